import BundleManifest
import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The keys `assistant strings export` writes, in-process: the Rooms definition's texts with what each is, a table
/// merged with them (kept, new, stale, variants), and the two renderings read back.
@Suite(.tags(.unit))
struct StringsExportTests {
  static let rooms = PackagePaths.root.appendingPathComponent("Sources/Examples/Rooms")

  static func roomsDefinition() throws -> IntentDefinition {
    try IntentDefinition.load(contentsOf: rooms.appendingPathComponent("Base.lproj/Intents.intentdefinition"))
  }

  static func roomsFrench() throws -> [String: String] {
    try StringsTable.load(contentsOf: rooms.appendingPathComponent("fr.lproj/Intents.strings")).strings
  }

  @Test func everyTextOfRoomsHasItsKeyAndSaysWhatItIs() throws {
    let strings = try Self.roomsDefinition().localizableStrings
    let byKey = Dictionary(uniqueKeysWithValues: strings.map { ($0.key, $0) })
    #expect(byKey.count == strings.count)
    #expect(byKey["rmTitl"]?.comment == "Title of intent BookRoom")
    #expect(byKey["rp003"]?.comment == "Primary prompt of parameter bookedBy of BookRoom")
    #expect(byKey["rp003"]?.source == "Who is the booking for?")
    #expect(byKey["rmOK01"]?.comment == "Response template of code success of BookRoom")
    #expect(
      byKey["rmTrue"]?.comment == "Display name of the true value of parameter isCancellationOfBooking of BookRoom")
    // Every key is an ID of the definition, and the French table (complete) has each of them.
    #expect(Set(byKey.keys).isSubset(of: try Self.roomsDefinition().localizationIDs))
    #expect(Set(byKey.keys).isSubset(of: Set(try Self.roomsFrench().keys)))
  }

  @Test func anIDUsedTwiceIsListedOnceAndAnIDWithoutTextNotAtAll() throws {
    var definition = try Self.roomsDefinition()
    definition.intents[0].description = nil
    definition.intents[0].titleID = "shared"
    definition.intents[0].parameters[0].displayNameID = "shared"
    let keys = definition.localizableStrings.map(\.key)
    #expect(keys.filter { $0 == "shared" }.count == 1)
    #expect(!keys.contains(try Self.roomsDefinition().intents[0].descriptionID!))
  }

  @Test func aTableKeepsTranslationsAddsNewKeysAndKeepsStaleOnesLast() throws {
    var french = try Self.roomsFrench()
    french["rp003"] = nil
    french["gone42"] = "Ancien texte"
    french["rp004-rmTrue"] = "Vous annulez bien ?"
    let export = StringsExport(
      definition: try Self.roomsDefinition(), definitionName: "Base.lproj/Intents.intentdefinition", locale: "fr",
      existing: french)
    #expect(export.newCount == 1)
    #expect(export.staleCount == 1)
    let new = try #require(export.entries.first { $0.key == "rp003" })
    #expect(new.state == .new && new.text == "Who is the booking for?")
    #expect(export.entries.first { $0.key == "rmTitl" }?.text == "Réserver une salle")
    #expect(export.entries.last?.key == "gone42")
    #expect(export.entries.last?.state == .stale)
    // A variant follows its prompt and is the definition's, not stale.
    let prompt = try #require(export.entries.firstIndex { $0.key == "rp004" })
    #expect(export.entries[prompt + 1].key == "rp004-rmTrue")
    #expect(export.entries[prompt + 1].state == .translated)

    let file = export.stringsFile
    #expect(
      file.contains(
        "/* NEW: Primary prompt of parameter bookedBy of BookRoom */\n\"rp003\" = \"Who is the booking for?\";"))
    #expect(
      file.contains("/* STALE: no longer in Base.lproj/Intents.intentdefinition */\n\"gone42\" = \"Ancien texte\";"))
    // Read back, the file says what was merged.
    let parsed = try PropertyListSerialization.propertyList(from: Data(file.utf8), format: nil) as? [String: String]
    var expected = french
    expected["rp003"] = "Who is the booking for?"
    #expect(parsed == expected)
  }

  @Test func aKeyMarkedNewStaysNewUntilItsTextChanges() throws {
    let definition = try Self.roomsDefinition()
    let first = StringsExport(definition: definition, definitionName: "X", locale: "fr", existing: [:])
    let marked = StringsExport.markedNew(in: first.stringsFile)
    #expect(marked == Set(definition.localizableStrings.map(\.key)))
    var table = try #require(
      try PropertyListSerialization.propertyList(from: Data(first.stringsFile.utf8), format: nil) as? [String: String])
    let again = StringsExport(
      definition: definition, definitionName: "X", locale: "fr", existing: table, untranslated: marked)
    #expect(again.newCount == first.newCount && again.translatedCount == 0)
    // Translated (its text changed), a key marked NEW counts as translated.
    table["rmTitl"] = "Réserver une salle"
    let translated = StringsExport(
      definition: definition, definitionName: "X", locale: "fr", existing: table, untranslated: marked)
    #expect(translated.newCount == first.newCount - 1)
    #expect(translated.entries.first { $0.key == "rmTitl" }?.state == .translated)
    // Control: without the markers read back, every key with a text counts as translated.
    #expect(
      StringsExport(definition: definition, definitionName: "X", locale: "fr", existing: table).newCount == 0)
  }

  @Test func markedKeysAreUnquotedAsTheyWereWritten() {
    let text = "/* NEW: a */\n\"a\\\"b\\\\c\\U00E9\" = \"x\";\n/* not new */\n\"d\" = \"y\";\n\"e\" = \"z\";\n"
    #expect(StringsExport.markedNew(in: text) == ["a\"b\\cé"])
  }

  @Test func quotesBackslashesNewlinesAndCommentEndsSurviveTheStringsFile() throws {
    var definition = try Self.roomsDefinition()
    definition.intents[0].title = "Say \"hi\" \\ then\nmore\ttab"
    definition.intents[0].name = "Evil*/Name"
    let export = StringsExport(definition: definition, definitionName: "X", locale: "fr", existing: [:])
    let parsed = try PropertyListSerialization.propertyList(from: Data(export.stringsFile.utf8), format: nil)
    let table = try #require(parsed as? [String: String])
    #expect(table[definition.intents[0].titleID!] == "Say \"hi\" \\ then\nmore\ttab")
    #expect(table.count == definition.localizableStrings.count)
  }

  /// Collects what an XLIFF says: each trans-unit's id, and which of source, target and note it has.
  final class XLIFFReader: NSObject, XMLParserDelegate {
    var units: [String: Set<String>] = [:]
    var texts: [String: [String: String]] = [:]
    var current: String?
    var element: String?
    var version: String?

    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      if name == "xliff" { version = attributes["version"] }
      if name == "trans-unit" {
        current = attributes["id"]
        units[current ?? ""] = []
      } else if let current {
        units[current]?.insert(name)
        element = name
      }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      guard let current, let element else { return }
      texts[current, default: [:]][element, default: ""] += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      if name == "trans-unit" { current = nil }
      element = nil
    }
  }

  @Test func theXLIFFIsWellFormedWithATargetOnlyWhenTranslated() throws {
    var french = try Self.roomsFrench()
    french["rp003"] = nil
    var definition = try Self.roomsDefinition()
    definition.intents[0].title = "Book <a> room & \"more\""
    let export = StringsExport(
      definition: definition, definitionName: "Base.lproj/Intents.intentdefinition", locale: "fr", existing: french)
    let parser = XMLParser(data: Data(export.xliff().utf8))
    let reader = XLIFFReader()
    parser.delegate = reader
    #expect(parser.parse(), "\(String(describing: parser.parserError))")
    #expect(reader.version == "1.2")
    #expect(reader.units.count == export.keyCount)
    #expect(reader.units["rp003"] == ["source", "note"])
    #expect(reader.units["rmTitl"] == ["source", "target", "note"])
    #expect(reader.texts["rmTitl"]?["source"] == "Book <a> room & \"more\"")
    #expect(reader.texts["rmTitl"]?["target"] == "Réserver une salle")
    #expect(reader.texts["rp003"]?["note"] == "Primary prompt of parameter bookedBy of BookRoom")
  }

  /// Every definition of the real corpus: its keys are its IDs, each once.
  @Test(.enabled(if: Corpus.present, Corpus.skipped))
  func theCorpusKeysAreUniqueIDs() throws {
    let corpus = PackagePaths.corpus
    let files =
      FileManager.default.enumerator(at: corpus, includingPropertiesForKeys: nil)?
      .compactMap { $0 as? URL }.filter { $0.pathExtension == "intentdefinition" } ?? []
    #expect(!files.isEmpty)
    for file in files {
      let definition = try IntentDefinition.load(contentsOf: file)
      let keys = definition.localizableStrings.map(\.key)
      #expect(Set(keys).count == keys.count, "\(file.path)")
      #expect(Set(keys).isSubset(of: definition.localizationIDs), "\(file.path)")
    }
  }
}
