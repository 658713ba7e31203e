import AppIntentsMetadata
import Foundation
import FuzzTargets
import TestSupport
import Testing

/// Every input in Tests/FuzzCorpus (the seeds and each crash, hang or broken property a fuzzer found, kept as a
/// regression) and the real Xcode files, run through its fuzz target in-process: each holds its properties.
@Suite(.tags(.unit))
struct FuzzReplayTests {
  static let corpus = PackagePaths.root.appendingPathComponent("Tests/FuzzCorpus")

  /// The committed inputs of a target.
  static func inputs(of target: String) -> [URL] {
    let folder = corpus.appendingPathComponent(target)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.sorted().map { folder.appendingPathComponent($0) }
  }

  @Test("every committed input holds its target's properties", arguments: FuzzTargets.all.map(\.name))
  func committedInputsHold(target name: String) throws {
    let target = try #require(FuzzTargets.named(name))
    for input in Self.inputs(of: name) {
      let problems = target.check(Array(try Data(contentsOf: input)))
      #expect(problems.isEmpty, "\(input.lastPathComponent): \(problems)")
    }
  }

  @Test("every folder of Tests/FuzzCorpus names a target")
  func corpusFoldersNameTargets() throws {
    let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
    for folder in folders { #expect(FuzzTargets.named(folder) != nil, "Tests/FuzzCorpus/\(folder)") }
  }

  @Test("the real Xcode files hold their targets' properties")
  func realFilesHold() throws {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.corpus.path)) ?? []
    try #require(!files.isEmpty, "the real Xcode corpus is at \(PackagePaths.corpus.path)")
    var checked = 0
    for file in files {
      let name =
        file.hasSuffix(".entitlements")
        ? "entitlements"
        : file.hasSuffix(".intentdefinition")
          ? "intentdefinition"
          : file.hasSuffix("AppIntentVocabulary.plist")
            ? "vocabulary" : file.hasSuffix("Info.plist") ? "plist" : file.hasSuffix(".strings") ? "strings" : nil
      guard let name, let target = FuzzTargets.named(name) else { continue }
      let bytes = Array(try Data(contentsOf: PackagePaths.corpus.appendingPathComponent(file)))
      #expect(target.check(bytes).isEmpty, "\(file)")
      checked += 1
    }
    #expect(checked >= 20)
  }

  // Controls: each property check fails on what breaks it, so that a target's silence means the property held.

  @Test("the framer's properties fail on an empty, an oversized and a multi-line message")
  func framerPropertiesCanFail() {
    #expect(FuzzTargets.framedProblems([.message(Array("ok".utf8))], limit: 4).isEmpty)
    #expect(FuzzTargets.framedProblems([.message([])], limit: 4) == ["an empty message"])
    #expect(FuzzTargets.framedProblems([.message(Array("12345".utf8))], limit: 4).count == 1)
    #expect(FuzzTargets.framedProblems([.message(Array("a\nb".utf8))], limit: 4) == ["a message with a newline"])
  }

  @Test("the sanitizer's property fails on text a terminal would act on")
  func sanitizerPropertyCanFail() {
    #expect(FuzzTargets.unsafeProblems("plain caf\u{E9}", multiline: false, by: "it").isEmpty)
    #expect(FuzzTargets.unsafeProblems("\u{1B}[2J", multiline: false, by: "it") == ["U+1B passes it"])
    #expect(FuzzTargets.unsafeProblems("a\nb", multiline: false, by: "it") == ["U+A passes it"])
    #expect(FuzzTargets.unsafeProblems("a\nb", multiline: true, by: "it").isEmpty)
    #expect(FuzzTargets.unsafeProblems("\u{202E}evil", multiline: true, by: "it") == ["U+202E passes it"])
  }

  @Test("the entitlements property fails on a relative path, a dot-dot and a control character")
  func pathPropertyCanFail() {
    #expect(FuzzTargets.acceptedPathProblems("/usr/share/zoneinfo").isEmpty)
    #expect(FuzzTargets.acceptedPathProblems("usr/share").count == 1)
    #expect(FuzzTargets.acceptedPathProblems("/usr/../etc").count == 1)
    #expect(FuzzTargets.acceptedPathProblems("/usr/\u{7}bin").count == 1)
  }

  @Test("the journal target finds garbage and a newer schema readable after recovery")
  func journalGarbageRecovers() throws {
    let target = try #require(FuzzTargets.named("journal"))
    #expect(target.check(Array("{\"content\": [}\0IHJ1 zzzz".utf8)).isEmpty)
    #expect(target.check(Array("{\"content\":{},\"schemaVersion\":99,\"sequence\":1}".utf8)).isEmpty)
  }

  @Test("the metadata round trip fails on a document the writer cannot write back")
  func metadataRoundTripCanFail() throws {
    let vehicle = MetadataIdentifier(validating: "Vehicle")!
    func reading(_ type: MetadataDocument.ValueType) -> MetadataReading {
      var document = MetadataDocument()
      let name = MetadataIdentifier(validating: "A")!
      document.actions[name] = MetadataDocument.Action(
        identifier: name, title: "A",
        parameters: [
          MetadataDocument.Parameter(name: MetadataIdentifier(validating: "p")!, title: "P", valueType: type)
        ])
      return MetadataReading(document: document)
    }
    // The control: a document the reader made survives.
    #expect(FuzzTargets.roundTripProblems(reading(.entity(vehicle))).isEmpty)
    // A known tag with content the reader refuses, and one it reads as something else.
    let refused = FuzzTargets.roundTripProblems(reading(.unknown(tag: "primitive", content: .null)))
    #expect(refused.count == 1 && refused[0].hasPrefix("the reader refuses what the writer wrote"))
    let other = reading(
      .unknown(tag: "entity", content: .object(["wrapper": .object(["typeName": .string("Vehicle")])])))
    #expect(FuzzTargets.roundTripProblems(other) == ["what the writer wrote reads back to another document"])
    // An unknown tag is noted again when read back: the property holds when the first reading noted it.
    var unknown = reading(.unknown(tag: "hologram", content: .object([:])))
    #expect(FuzzTargets.roundTripProblems(unknown) == ["what the writer wrote has a key the reader does not read"])
    unknown = try MetadataReader.read(unknown.document.canonicalEncoding(), file: "written")
    #expect(FuzzTargets.roundTripProblems(unknown).isEmpty)
  }
}
