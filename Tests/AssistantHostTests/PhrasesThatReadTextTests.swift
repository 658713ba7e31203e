import ExtensionProtocol
import Foundation
import TestSupport
import Testing
import Understanding

@testable import AssistantHost
@testable import BundleManifest

/// Phrases that read text from their own words: an example or a title said as written that fills a text slot with
/// its own words is noted (`phrase-reads-text`), such a title is not listed by `assistant phrases`, `validate` keeps
/// the notes notes, and which values look like none the phrase means.
@Suite(.serialized, .tags(.unit))
struct PhrasesThatReadTextTests {
  /// The user's Pantry: StockItemIntent (item String, quantity Integer), intent title "Stock Item", the example
  /// "Stock the pantry with Pantry" (meant: ask for the values). With `readingTitle`, the combination title
  /// `Stock ${item}` reads the example and the intent title whole; without it (the control), only `Put ${item} on the
  /// shelf` and `Stock ${quantity} ${item}` do not.
  static func pantry(readingTitle: Bool, in directory: URL) throws -> AppBundle {
    let (app, _) = try AppSkeleton.write(
      name: "Pantry", executable: "pantry", identifier: "com.example.pantry", intents: ["StockItemIntent"],
      in: directory)
    try writePlist(
      [
        "IntentPhrases": [
          [
            "IntentName": "StockItemIntent",
            "IntentExamples": ["Stock the pantry with Pantry", "Stock 6 eggs with Pantry"],
          ]
        ]
      ], to: app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist"))
    var combinations: [String: Any] = [
      "item,quantity": ["INIntentParameterCombinationTitle": "Stock ${quantity} ${item}"]
    ]
    combinations["item"] = [
      "INIntentParameterCombinationTitle": readingTitle ? "Stock ${item}" : "Put ${item} on the shelf"
    ]
    try writePlist(
      [
        "INIntentDefinitionModelVersion": "1.2", "INEnums": [Any](), "INTypes": [Any](),
        "INIntents": [
          [
            "INIntentName": "StockItem", "INIntentTitle": "Stock Item",
            "INIntentParameterCombinations": combinations,
            "INIntentParameters": [
              ["INIntentParameterName": "item", "INIntentParameterType": "String"],
              ["INIntentParameterName": "quantity", "INIntentParameterType": "Integer"],
            ],
            "INIntentResponse": [
              "INIntentResponseCodes": [
                ["INIntentResponseCodeName": "success", "INIntentResponseCodeSuccess": true],
                ["INIntentResponseCodeName": "failure"],
              ]
            ],
          ] as [String: Any]
        ],
      ], to: app.appendingPathComponent("Base.lproj/Intents.intentdefinition"))
    return try AppBundle.load(from: app)
  }

  /// The example and the intent's title said as written reach StockItemIntent with item "the pantry" and "Item": one
  /// note each, naming the phrase, the parameter, the value and a wording that leaves the item to be asked; no error.
  /// The control: without a title that reads them whole, neither is noted.
  @Test(arguments: [true, false])
  func aPhraseThatFillsATextSlotWithItsOwnWordsIsNoted(readingTitle: Bool) throws {
    let directory = try TemporaryDirectory("assistanthost-pantry")
    defer { directory.remove() }
    let app = try Self.pantry(readingTitle: readingTitle, in: directory.url)
    let diagnostics = PhraseBook.check(app)
    #expect(diagnostics.errors.isEmpty, "\(diagnostics.map(\.description))")
    let notes = diagnostics.filter { $0.rule == .phraseReadsText }
    #expect(notes.allSatisfy { $0.severity == .note })
    // "Stock 6 eggs with Pantry" takes item "eggs" from `Stock ${quantity} ${item}` in both: a value it means, not
    // noted (`looksLikeNoValue`).
    #expect(!notes.contains { $0.message.contains("Stock 6 eggs") }, "\(notes.map(\.description))")
    let example = notes.first { $0.message.hasPrefix("\"Stock the pantry with Pantry\"") }
    let title = notes.first { $0.message.hasPrefix("\"Stock Item with Pantry\"") }
    guard readingTitle else {
      #expect(example == nil && title == nil, "\(notes.map(\.description))")
      return
    }
    #expect(notes.count == 2, "\(diagnostics.map(\.description))")
    #expect(example?.keyPath == "IntentPhrases.StockItemIntent")
    #expect(
      example?.message
        == "\"Stock the pantry with Pantry\" (the example) reaches StockItemIntent with item = \"the pantry\", read "
        + "from its own words (the phrase `Stock ${item}` reads it)")
    #expect(example?.fix?.contains("if it means to leave item to be asked") == true, "\(notes.map(\.description))")
    #expect(example?.fix?.contains("e.g. \"Stock with Pantry\"") == true, "\(notes.map(\.description))")
    #expect(example?.fix?.hasSuffix("if it means the value, nothing to do") == true)
    #expect(title?.keyPath == "StockItemIntent")
    #expect(title?.fix?.contains("word the title so that no phrase reads it whole, e.g. \"Stock\";") == true)
    #expect(
      title?.message.hasPrefix("\"Stock Item with Pantry\" (the title) reaches StockItemIntent with item = \"Item\"")
        == true, "\(notes.map(\.description))")
  }

  /// `assistant phrases` does not list a title without slots that fills a slot with its own words ("Stock Item");
  /// the control lists it.
  @Test(arguments: [true, false])
  func aTitleThatFillsATextSlotIsNotListed(readingTitle: Bool) throws {
    let directory = try TemporaryDirectory("assistanthost-pantry")
    defer { directory.remove() }
    let app = try Self.pantry(readingTitle: readingTitle, in: directory.url)
    let listed = PhraseBook.entries([app])[0].phrases.map(\.phrase)
    #expect(listed.contains("Stock the pantry with Pantry"))
    #expect(listed.contains("Stock Item") == !readingTitle, "\(listed)")
  }

  /// `validate` keeps the notes as notes (it makes the lint's errors warnings): they count as no warning.
  @Test func validateKeepsTheNotesNotes() throws {
    let directory = try TemporaryDirectory("assistanthost-pantry")
    defer { directory.remove() }
    let app = try Self.pantry(readingTitle: true, in: directory.url)
    let diagnostics = Validator().validate(app).filter { $0.rule == .phraseReadsText }
    #expect(diagnostics.count == 2)
    #expect(diagnostics.allSatisfy { $0.severity == .note })
  }

  /// Which text values an example takes from its own words look like none it means: an article, a possessive or a
  /// placeholder first, or the parameter's own name; a name, a place or a thing does not.
  @Test(arguments: [
    ("the pantry", true), ("a note", true), ("My usual", true), ("it", true), ("something", true), ("Item", true),
    ("items", true), ("Ada", false), ("Work", false), ("buy milk", false), ("eggs", false), ("Itemised", false),
  ])
  func aValueThatLooksLikeNone(_ value: String, _ none: Bool) throws {
    let directory = try TemporaryDirectory("assistanthost-pantry")
    defer { directory.remove() }
    let app = try Self.pantry(readingTitle: true, in: directory.url)
    let example = UtteranceMatcher.Phrase(intentClass: "StockItemIntent", text: "Stock it", source: .example)
    #expect(PhraseBook.looksLikeNoValue(value, parameter: "item", app: app, of: example) == none)
  }
}
