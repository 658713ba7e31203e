import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `assistant strings export` and `validate`'s `strings-missing-key` through the real binary, on a copy of the Rooms
/// sources (its definition in Base.lproj, its French table in fr.lproj).
@Suite(.serialized, .tags(.endToEnd))
struct StringsExportEndToEndTests {
  struct Report: Decodable {
    var file: String
    var locale: String
    var keys: Int
    var new: Int
    var stale: Int
    var translated: Int
    var xliff: String?
    var seededFrom: String?
  }

  struct Validation: Decodable {
    struct Item: Decodable {
      var rule: String
      var file: String
      var keyPath: String
      var severity: String
    }
    var diagnostics: [Item]
  }

  /// A copy of Sources/Examples/Rooms in the fixture's folder.
  static func rooms(_ host: HostFixture) async throws -> URL {
    let copy = host.directory.file("Rooms")
    try await offThePool {
      try FileManager.default.copyItem(
        at: PackagePaths.root.appendingPathComponent("Sources/Examples/Rooms"), to: copy)
    }
    return copy
  }

  static func removeLine(key: String, from file: URL) throws {
    let text = try String(contentsOf: file, encoding: .utf8)
    let kept = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("\"\(key)\"") }
    try kept.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
  }

  func missingKeys(_ folder: URL, _ host: HostFixture) async throws -> [Validation.Item] {
    let result = try await host.assistant(["--json", "validate", folder.path])
    let report = try JSONDecoder().decode(Validation.self, from: Data(result.stdout.utf8))
    return report.diagnostics.filter { $0.rule == "strings-missing-key" }
  }

  func export(_ arguments: [String], _ host: HostFixture) async throws -> (CommandResult, Report?) {
    let result = try await host.assistant(["strings", "export", "--json"] + arguments)
    struct Document: Decodable { var tables: [Report] }
    let document = try? JSONDecoder().decode(Document.self, from: Data(result.stdout.utf8))
    #expect(document == nil || document?.tables.count == 1, "one definition, one table: \(result.stdout)")
    return (result, document?.tables.first)
  }

  @Test func frenchKeepsItsTranslationsAndARemovedKeyIsWarnedAboutThenReAddedAsNew() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let rooms = try await Self.rooms(host)
    let table = rooms.appendingPathComponent("fr.lproj/Intents.strings")
    // The control: the complete French table is not warned about, and exporting changes no translation.
    #expect(try await missingKeys(rooms, host).isEmpty)
    let (first, report) = try await export([rooms.path, "--locale", "fr"], host)
    #expect(first.code == 0, "\(first)")
    #expect(report?.new == 0 && report?.stale == 0 && report?.translated == report?.keys)
    #expect(report?.file == table.path)
    let text = try String(contentsOf: table, encoding: .utf8)
    #expect(text.contains("/* Title of intent BookRoom */\n\"rmTitl\" = \"Réserver une salle\";"))

    try Self.removeLine(key: "rp003", from: table)
    let missing = try await missingKeys(rooms, host)
    #expect(missing.count == 1)
    #expect(missing.first?.severity == "warning" && missing.first?.keyPath == "rp003")
    #expect(missing.first?.file == table.path)

    let (second, readded) = try await export([rooms.path, "--locale", "fr"], host)
    #expect(second.code == 0, "\(second)")
    #expect(readded?.new == 1)
    let after = try String(contentsOf: table, encoding: .utf8)
    #expect(
      after.contains(
        "/* NEW: Primary prompt of parameter bookedBy of BookRoom */\n\"rp003\" = \"Who is the booking for?\";"))
    #expect(after.contains("\"rp002\" = \"Quelle salle ?\";"))
    #expect(try await missingKeys(rooms, host).isEmpty)

    // Exported again untouched, the key is still new (the NEW marker is read back) ...
    let (third, still) = try await export([rooms.path, "--locale", "fr"], host)
    #expect(third.code == 0, "\(third)")
    #expect(still?.new == 1 && still?.translated == (still?.keys ?? 0) - 1)
    #expect(try String(contentsOf: table, encoding: .utf8) == after)
    // ... and once the translator changes its text (the marker left in place), it is translated (the control).
    try after.replacingOccurrences(
      of: "\"rp003\" = \"Who is the booking for?\";", with: "\"rp003\" = \"Pour qui ?\";"
    ).write(to: table, atomically: true, encoding: .utf8)
    let (fourth, translated) = try await export([rooms.path, "--locale", "fr"], host)
    #expect(fourth.code == 0, "\(fourth)")
    #expect(translated?.new == 0 && translated?.translated == translated?.keys)
    #expect(
      try String(contentsOf: table, encoding: .utf8).contains(
        "/* Primary prompt of parameter bookedBy of BookRoom */\n\"rp003\" = \"Pour qui ?\";"))
  }

  @Test func aStaleKeyIsKeptLastAndTheXLIFFParses() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let rooms = try await Self.rooms(host)
    let table = rooms.appendingPathComponent("fr.lproj/Intents.strings")
    let handle = try FileHandle(forWritingTo: table)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("\"zzGone\" = \"Plus là\";\n\"aaGone\" = \"Non plus\";\n".utf8))
    try handle.close()
    let (result, report) = try await export(
      [rooms.appendingPathComponent("Base.lproj/Intents.intentdefinition").path, "--locale", "fr", "--xliff"], host)
    #expect(result.code == 0, "\(result)")
    #expect(report?.stale == 2)
    let text = try String(contentsOf: table, encoding: .utf8)
    let lines = text.split(separator: "\n")
    #expect(
      lines.suffix(4).map(String.init) == [
        "/* STALE: no longer in Base.lproj/Intents.intentdefinition */", "\"aaGone\" = \"Non plus\";",
        "/* STALE: no longer in Base.lproj/Intents.intentdefinition */", "\"zzGone\" = \"Plus là\";",
      ])
    let xliff = try #require(report?.xliff)
    let parser = XMLParserCounter()
    #expect(parser.parse(try Data(contentsOf: URL(fileURLWithPath: xliff))))
    #expect(parser.transUnits == report?.keys)
  }

  @Test func aLinkedLanguageFolderIsRefusedAndARealOneWorks() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let rooms = try await Self.rooms(host)
    let outside = host.directory.file("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    let german = rooms.appendingPathComponent("de.lproj")
    try FileManager.default.createSymbolicLink(at: german, withDestinationURL: outside)
    let (refused, _) = try await export([rooms.path, "--locale", "de"], host)
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("symbolic link"), "\(refused)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)

    // A table planted as a link out of the bundle is refused too, and what it points at is left as it is.
    let victim = outside.appendingPathComponent("victim.txt")
    try Data("untouched".utf8).write(to: victim)
    let french = rooms.appendingPathComponent("fr.lproj/Intents.strings")
    try FileManager.default.removeItem(at: french)
    try FileManager.default.createSymbolicLink(at: french, withDestinationURL: victim)
    let (linkedTable, _) = try await export([rooms.path, "--locale", "fr"], host)
    #expect(linkedTable.code == 77, "\(linkedTable)")
    #expect(try String(contentsOf: victim, encoding: .utf8) == "untouched")

    // The control: a real folder in the link's place is written.
    try FileManager.default.removeItem(at: german)
    let (written, report) = try await export([rooms.path, "--locale", "de"], host)
    #expect(written.code == 0, "\(written)")
    #expect(report?.new == report?.keys && (report?.keys ?? 0) > 0)
    #expect(FileManager.default.fileExists(atPath: german.appendingPathComponent("Intents.strings").path))
  }

  @Test func usageAndMissingPaths() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let rooms = try await Self.rooms(host)
    #expect(try await host.assistant(["strings", "export", rooms.path, "--locale", "../fr"]).code == 64)
    #expect(try await host.assistant(["strings", "export", rooms.path]).code == 64)
    #expect(
      try await host.assistant(["strings", "export", host.directory.file("none").path, "--locale", "fr"]).code == 66)
    let empty = host.directory.file("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    #expect(try await host.assistant(["strings", "export", empty.path, "--locale", "fr"]).code == 65)
  }
}

/// Parses an XML document with Foundation's XMLParser, counting its `trans-unit` elements.
final class XMLParserCounter: NSObject, XMLParserDelegate {
  var transUnits = 0

  func parse(_ data: Data) -> Bool {
    let parser = XMLParser(data: data)
    parser.delegate = self
    return parser.parse()
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    if name == "trans-unit" { transUnits += 1 }
  }
}

extension StringsExportEndToEndTests {
  /// A region's new table starts from its language's (fr_FR from fr.lproj): otherwise, once installed, `--locale
  /// fr_FR` would find an untranslated fr_FR.lproj before fr.lproj and speak English. The control: a region whose
  /// language has no table (de_DE) starts from the source texts.
  @Test func aRegionStartsFromItsLanguagesTable() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let rooms = try await Self.rooms(host)
    let (result, report) = try await export([rooms.path, "--locale", "fr_FR"], host)
    #expect(result.code == 0, "\(result)")
    #expect(report?.seededFrom == rooms.appendingPathComponent("fr.lproj/Intents.strings").path)
    #expect(report?.new == 0 && report?.translated == report?.keys)
    let table = try String(contentsOf: rooms.appendingPathComponent("fr_FR.lproj/Intents.strings"), encoding: .utf8)
    #expect(table.contains("\"rmTitl\" = \"Réserver une salle\";"))
    let text = try await host.assistant(["strings", "export", rooms.path, "--locale", "pt-BR"])
    #expect(text.code == 0 && !text.stdout.contains("translations from"), "\(text)")

    let (control, fresh) = try await export([rooms.path, "--locale", "de_DE"], host)
    #expect(control.code == 0, "\(control)")
    #expect(fresh?.seededFrom == nil && fresh?.translated == 0 && fresh?.new == fresh?.keys)
    // Once it has its own table, a region keeps it (its NEW keys stay new).
    let (again, kept) = try await export([rooms.path, "--locale", "de_DE"], host)
    #expect(again.code == 0 && kept?.seededFrom == nil && kept?.new == kept?.keys, "\(again)")
  }

  /// An .xliff already beside the table is rewritten by every export, so that the two never disagree; the control
  /// is the first export, which writes none without --xliff.
  @Test func anXLIFFAlreadyThereIsKeptUpToDate() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let rooms = try await Self.rooms(host)
    let xliff = rooms.appendingPathComponent("fr.lproj/Intents.xliff")
    let (plain, none) = try await export([rooms.path, "--locale", "fr"], host)
    #expect(plain.code == 0 && none?.xliff == nil, "\(plain)")
    #expect(!FileManager.default.fileExists(atPath: xliff.path))
    let (first, _) = try await export([rooms.path, "--locale", "fr", "--xliff"], host)
    #expect(first.code == 0, "\(first)")
    #expect(try String(contentsOf: xliff, encoding: .utf8).contains("<target>Pour qui est la réservation ?</target>"))
    try Self.removeLine(key: "rp003", from: rooms.appendingPathComponent("fr.lproj/Intents.strings"))
    let (second, report) = try await export([rooms.path, "--locale", "fr"], host)
    #expect(second.code == 0, "\(second)")
    #expect(report?.xliff == xliff.path)
    let updated = try String(contentsOf: xliff, encoding: .utf8)
    #expect(!updated.contains("Pour qui est la réservation ?"), "\(updated)")
    #expect(updated.contains("<source>Who is the booking for?</source>"))
  }

  /// A file where LANG.lproj must be is a table that cannot be written: 73, naming it, not 66.
  @Test func aFileInTheWayOfTheLanguageFolderCannotBeWritten() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let rooms = try await Self.rooms(host)
    try Data("not a folder".utf8).write(to: rooms.appendingPathComponent("ja.lproj"))
    let result = try await host.assistant(["strings", "export", rooms.path, "--locale", "ja"])
    #expect(result.code == 73, "\(result)")
    #expect(result.stderr.contains("ja.lproj") && result.stderr.contains("move it aside"), "\(result)")
  }
}
