import ExtensionProtocol
import Foundation
import TestSupport
import Testing

@testable import AssistantHost
@testable import BundleManifest

/// A new user's review of issue 16, the conversation side: a phrase that fills a text slot with its own words is
/// noted (`phrase-reads-text`) and such a title is not listed; the re-ask of a value names the parameter by its
/// display name; a response parameter of another wire type than its declaration's is a protocol fault.
@Suite(.serialized)
struct ReviewSixteenTests {
  // MARK: Phrases that read text from their own words

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

  // MARK: The re-ask of a value

  /// An answer that is no whole number is refused naming the parameter by its display name, as the `need` of the
  /// same run and `run`'s own refusal do ("Room number (Integer) needs a whole number").
  @Test func theReAskNamesTheParameterByItsDisplayName() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["twelvish", "12", "yes"])
    _ = try await rig.driver(conversation).run(rig.invocation(["bookedBy": .string("Ada")]))
    #expect(conversation.said.contains("Sorry, Room number needs a whole number."), "\(conversation.events)")
  }

  // MARK: Response parameters of another wire type

  /// Runs BookRoomIntent for room 12 and Ada, the Intents extension answering `intent/handle` with `code success` and
  /// `roomNumber` as `roomNumber` (raw JSON of the typed value).
  static func run(roomNumber: String) async throws -> Result<IntentOutcome, HostError> {
    let rig = try await Rig()
    defer { rig.remove() }
    var driver = rig.driver(ScriptedConversation(answers: ["yes"]))
    driver.launcher = RawLauncher(
      handleAnswer: #"{"code":"success","parameters":{"roomNumber":"# + roomNumber
        + #","bookedBy":{"type":"string","value":"Ada"}}}"#)
    do {
      return .success(
        try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")])))
    } catch let error as HostError {
      return .failure(error)
    }
  }

  /// A string for the `Integer` response parameter roomNumber is a protocol fault (exit 70) naming the extension,
  /// the parameter, the type given and the type declared; the control (an integer) is said.
  @Test(arguments: [true, false])
  func aResponseParameterOfAnotherTypeIsAProtocolFault(wrongType: Bool) async throws {
    let result = try await Self.run(
      roomNumber: wrongType ? #"{"type":"string","value":"12"}"# : #"{"type":"integer","value":12}"#)
    switch result {
    case .success(let outcome):
      #expect(!wrongType, "the run should have failed: \(outcome)")
      #expect(outcome.code == .success)
    case .failure(let error):
      #expect(wrongType, "\(error.message)")
      #expect(error.status == .extensionFault)
      #expect(error.message.hasPrefix("RoomsIntents"), "\(error.message)")
      #expect(error.message.contains("handle of BookRoomIntent"), "\(error.message)")
      #expect(
        error.message.contains(
          "the response parameter roomNumber is a string, but the intent definition declares it as Integer: "
            + #"send {"type": "integer", "value": …}"#), "\(error.message)")
    }
  }

  struct TypeCase: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var type: String
    var enumType: String? = nil
    var multiple = false
    var value: ParameterValue
    var fits: Bool
  }

  /// What each declared type takes: a number also as an integer, a parameter with multiple values as an array or one
  /// value, a system type other than text as a string or an object; the rest one wire type.
  static let typeCases: [TypeCase] = [
    TypeCase(testDescription: "Integer takes an integer", type: "Integer", value: .integer(1), fits: true),
    TypeCase(testDescription: "Integer refuses a string", type: "Integer", value: .string("1"), fits: false),
    TypeCase(testDescription: "Integer refuses a decimal", type: "Integer", value: .decimal(1.5), fits: false),
    TypeCase(testDescription: "Decimal takes an integer", type: "Decimal", value: .integer(2), fits: true),
    TypeCase(testDescription: "Duration takes a decimal", type: "Duration", value: .decimal(90), fits: true),
    TypeCase(testDescription: "Currency refuses a string", type: "Currency", value: .string("$2"), fits: false),
    TypeCase(
      testDescription: "an enum takes a case", type: "Integer", enumType: "Kind", value: .enumCase("big"), fits: true
    ),
    TypeCase(
      testDescription: "an enum refuses an integer", type: "Integer", enumType: "Kind", value: .integer(1),
      fits: false),
    TypeCase(testDescription: "Boolean refuses a string", type: "Boolean", value: .string("yes"), fits: false),
    TypeCase(testDescription: "String refuses an integer", type: "String", value: .integer(3), fits: false),
    TypeCase(
      testDescription: "Person takes an object", type: "Person",
      value: .object(ObjectValue(identifier: "a", displayString: "Ada")), fits: true),
    TypeCase(testDescription: "Person takes a string", type: "Person", value: .string("Ada"), fits: true),
    TypeCase(
      testDescription: "multiple values: an array", type: "Integer", multiple: true,
      value: .array([.integer(1), .integer(2)]), fits: true),
    TypeCase(testDescription: "multiple values: one", type: "Integer", multiple: true, value: .integer(1), fits: true),
    TypeCase(
      testDescription: "multiple values: a wrong item", type: "Integer", multiple: true,
      value: .array([.integer(1), .string("2")]), fits: false),
    TypeCase(
      testDescription: "one value: no array", type: "Integer", value: .array([.integer(1)]), fits: false),
  ]

  @Test(arguments: typeCases)
  func whatEachDeclaredTypeTakes(_ test: TypeCase) {
    let spec = ResponseParameterSpec(
      name: "p", type: ParameterType(rawValue: test.type), displayName: nil, displayNameID: nil,
      supportsMultipleValues: test.multiple,
      enumType: test.enumType, objectType: nil, trueDisplayName: nil, falseDisplayName: nil)
    let problem = responseTypeProblem(in: ["p": test.value], declared: [spec])
    #expect((problem == nil) == test.fits, "\(problem ?? "fits")")
  }
}

extension ReviewSixteenTests {
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
