import BundleManifest
import ExtensionProtocol
import Foundation
import ManifestFixtures
import Testing

@testable import Understanding

/// An in-memory definition with a parameter of every type `ValueInterpreter` knows (`SoupManifests`), and a
/// vocabulary for some.
enum Soup {
  static let intentClass = SoupManifests.intentClass

  static func definition() throws -> IntentDefinition { try SoupManifests.definition() }

  static func vocabulary() throws -> Vocabulary {
    func item(_ identifier: String, _ phrases: [String]) -> [String: Any] {
      ["VocabularyItemIdentifier": identifier, "VocabularyItemSynonyms": phrases.map { ["VocabularyItemPhrase": $0] }]
    }
    return try Vocabulary(
      PlistDictionary(
        values: [
          "ParameterVocabularies": [
            [
              "ParameterNames": ["OrderSoupIntent.size"],
              "ParameterVocabulary": [item("large", ["grande", "extra big"])],
            ],
            [
              "ParameterNames": ["OrderSoupIntent.isCancellation"],
              "ParameterVocabulary": [item("true", ["unbook", "call it off"])],
            ],
            ["ParameterNames": ["OrderSoupIntent.quantity"], "ParameterVocabulary": [item("12", ["a dozen"])]],
          ]
        ], file: "AppIntentVocabulary.plist"))
  }

  static func interpreter() throws -> ValueInterpreter {
    ValueInterpreter(intentClass: intentClass, definition: try definition(), vocabularies: [try vocabulary()])
  }

  static func spec(_ name: String) throws -> ParameterSpec {
    try #require(try definition().intents.first?.parameter(named: name))
  }
}

/// `ValueInterpreter`: what a user typed or said, as a typed value of a parameter; and values back into words.
@Suite(.tags(.unit)) struct ValueInterpreterTests {
  struct Parsed: Sendable, CustomTestStringConvertible {
    var parameter: String
    var text: String
    var value: ParameterValue?
    var testDescription: String { "\(parameter) \"\(text)\"" }

    init(_ parameter: String, _ text: String, _ value: ParameterValue?) {
      self.parameter = parameter
      self.text = text
      self.value = value
    }
  }

  /// 2026-11-21T09:30:00Z.
  static let nineThirty = Date(timeIntervalSince1970: 1_795_253_400)

  static let parsed: [Parsed] = [
    // Integer: digits, a sign, number words up to "ninety nine", vocabulary synonyms; never a fraction.
    Parsed("quantity", "12", 12),
    Parsed("quantity", "-3", -3),
    Parsed("quantity", "+5", 5),
    Parsed("quantity", " 7 ", 7),
    Parsed("quantity", "zero", 0),
    Parsed("quantity", "Twelve", 12),
    Parsed("quantity", "twenty one", 21),
    Parsed("quantity", "twenty-one", 21),
    Parsed("quantity", "ninety nine", 99),
    Parsed("quantity", "a dozen", 12),
    Parsed("quantity", "12.5", nil),
    Parsed("quantity", "1,000", nil),
    Parsed("quantity", "one hundred", .integer(100)),
    Parsed("quantity", "a hundred and five", .integer(105)),
    Parsed("quantity", "two thousand twenty six", .integer(2026)),
    Parsed("quantity", "two and a half", nil),
    Parsed("quantity", "twenty one two", nil),
    Parsed("quantity", "lots", nil),
    Parsed("quantity", "", nil),
    Parsed("quantity", "   ", nil),
    // Decimal, Double, Currency: what Double reads; no number words.
    Parsed("price", "2.5", .decimal(2.5)),
    Parsed("price", "3", .decimal(3)),
    Parsed("price", "-0.5", .decimal(-0.5)),
    Parsed("price", "1e3", .decimal(1000)),
    Parsed("price", " 4.25 ", .decimal(4.25)),
    Parsed("price", "two", .decimal(2)),
    Parsed("price", "two and a half", .decimal(2.5)),
    Parsed("price", "three point five", .decimal(3.5)),
    Parsed("price", "a quarter", .decimal(0.25)),
    Parsed("price", "one two", nil),
    Parsed("price", "2,5", nil),
    Parsed("weight", "1.5", .decimal(1.5)),
    Parsed("tip", "3.75", .decimal(3.75)),
    Parsed("tip", "$3", nil),
    // Boolean with display names: those come first ("cancel" is otherwise a no), then synonyms, then yes/no.
    Parsed("isCancellation", "Cancel", true),
    Parsed("isCancellation", "cancel", true),
    Parsed("isCancellation", "CANCEL", true),
    Parsed("isCancellation", "Book", false),
    Parsed("isCancellation", "unbook", true),
    Parsed("isCancellation", "Call it off", true),
    Parsed("isCancellation", "yes", true),
    Parsed("isCancellation", "no", false),
    Parsed("isCancellation", "maybe", nil),
    // Boolean: the words people use for yes and no.
    Parsed("extraSpicy", "yes", true),
    Parsed("extraSpicy", "YES", true),
    Parsed("extraSpicy", "y", true),
    Parsed("extraSpicy", "true", true),
    Parsed("extraSpicy", "1", true),
    Parsed("extraSpicy", "yeah", true),
    Parsed("extraSpicy", "yep", true),
    Parsed("extraSpicy", "sure", true),
    Parsed("extraSpicy", "ok", true),
    Parsed("extraSpicy", "okay", true),
    Parsed("extraSpicy", "confirm", true),
    Parsed("extraSpicy", "no", false),
    Parsed("extraSpicy", "n", false),
    Parsed("extraSpicy", "false", false),
    Parsed("extraSpicy", "0", false),
    Parsed("extraSpicy", "nope", false),
    Parsed("extraSpicy", "cancel", false),
    Parsed("extraSpicy", "maybe", nil),
    Parsed("extraSpicy", "2", nil),
    // Enum: a case by its name or display name, any case, or a synonym; not by its index.
    Parsed("size", "small", .enumCase("small")),
    Parsed("size", "SMALL", .enumCase("small")),
    Parsed("size", "medium", .enumCase("medium")),
    Parsed("size", "Medium size", .enumCase("medium")),
    Parsed("size", "medium SIZE", .enumCase("medium")),
    Parsed("size", "large", .enumCase("large")),
    Parsed("size", "grande", .enumCase("large")),
    Parsed("size", "Extra  big", .enumCase("large")),
    Parsed("size", "huge", nil),
    Parsed("size", "2", nil),
    // String and Object: the text, trimmed.
    Parsed("note", "Ada", "Ada"),
    Parsed("note", "  Ada Lovelace ", "Ada Lovelace"),
    Parsed("note", "12", "12"),
    Parsed("customer", "Ada", .object(ObjectValue(identifier: "Ada", displayString: "Ada"))),
    // Date and DateComponents: ISO 8601 date-times in UTC, with or without fractional seconds.
    Parsed("deliveryTime", "2026-11-21T09:30:00Z", .date(nineThirty)),
    Parsed("deliveryTime", "2026-11-21T09:30:00.250Z", .date(nineThirty.addingTimeInterval(0.25))),
    Parsed("birthday", "2026-11-21T09:30:00Z", .date(nineThirty)),
    Parsed("deliveryTime", "tomorrow", nil),
    Parsed("deliveryTime", "21/11/2026", nil),
    // Several values: comma-separated, each of the parameter's type; empty items skipped.
    Parsed("toppings", "croutons, chives", .array(["croutons", "chives"])),
    Parsed("toppings", "croutons", .array(["croutons"])),
    Parsed("toppings", "croutons,,chives", .array(["croutons", "chives"])),
    Parsed("toppings", " , ", nil),
    Parsed("rooms", "1, 2, three", .array([1, 2, 3])),
    Parsed("rooms", "1, x", nil),
    Parsed(
      "sizes", "small, Medium size, large", .array([.enumCase("small"), .enumCase("medium"), .enumCase("large")])),
    Parsed("sizes", "small, huge", nil),
  ]

  @Test(arguments: parsed)
  func parsesTextAsTheParametersType(_ example: Parsed) throws {
    let interpreter = try Soup.interpreter()
    let parameter = try Soup.spec(example.parameter)
    #expect(interpreter.parse(example.text, for: parameter) == example.value)
  }

  /// Two number words are a number only as tens followed by units ("twenty one"): "one two" is not 3.
  @Test(arguments: ["one two", "ten ten", "twelve one", "five twenty"])
  func twoNumberWordsAreANumberOnlyAsTensAndUnits(_ text: String) throws {
    let interpreter = try Soup.interpreter()
    let quantity = try Soup.spec("quantity")
    #expect(interpreter.parse("twenty one", for: quantity) == 21)  // the control
    #expect(interpreter.parse(text, for: quantity) == nil)
  }

  @Test(arguments: [
    ("quantity", "a whole number"),
    ("price", "a number"),
    ("weight", "a number"),
    ("tip", "a number"),
    ("isCancellation", "Cancel/yes or Book/no"),
    ("extraSpicy", "yes or no"),
    ("size", "one of Small, Medium size, large"),
    ("sizes", "one of Small, Medium size, large"),
    ("note", "some text"),
    ("customer", "some text"),
    ("deliveryTime", "an ISO 8601 date-time such as 2026-11-21T09:30:00Z"),
    ("birthday", "an ISO 8601 date-time such as 2026-11-21T09:30:00Z"),
    ("cookingTime", "a duration such as 30 minutes or 1 hour"),
  ])
  func saysWhatAValueLooksLike(parameter: String, expectation: String) throws {
    let interpreter = try Soup.interpreter()
    let spec = try Soup.spec(parameter)
    #expect(interpreter.expectation(for: spec) == expectation)
  }

  /// A message names an enum parameter's enum (the definition's name; its display name only where it says more),
  /// never the type Xcode stores it as (`Integer`); other parameters by their type; the control: without a
  /// definition, the enum is unknown and the stored type is all there is.
  @Test func namesTheTypeOfAParameterByItsEnum() throws {
    let interpreter = try Soup.interpreter()
    #expect(interpreter.typeName(of: try Soup.spec("size")) == "enum Size")
    #expect(interpreter.typeName(of: try Soup.spec("quantity")) == "Integer")
    var labelled = try Soup.definition()
    labelled.enums[0].displayName = "Soup size"
    let named = ValueInterpreter(intentClass: Soup.intentClass, definition: labelled, vocabularies: [])
    #expect(named.typeName(of: try Soup.spec("size")) == "enum Size (\"Soup size\")")
    labelled.enums[0].displayName = "size"
    #expect(
      ValueInterpreter(intentClass: Soup.intentClass, definition: labelled, vocabularies: []).typeName(
        of: try Soup.spec("size")) == "enum Size")
    let bare = ValueInterpreter(intentClass: Soup.intentClass, definition: nil, vocabularies: [])
    #expect(bare.typeName(of: try Soup.spec("size")) == "Integer")
  }

  /// Durations in the words people use, in seconds; a bare number is minutes.
  @Test(
    arguments: [
      ("30 minutes", 1800), ("30 minute", 1800), ("45", 2700), ("1 hour 30 minutes", 5400), ("hour", 3600),
      ("an hour", 3600), ("a minute", 60), ("An Hour", 3600), ("half an hour", 1800), ("a quarter of an hour", 900),
      ("an hour and a half", 5400), ("one and a half hours", 5400), ("two and a half hours", 9000),
      ("90 seconds", 90), ("90 s", 90), ("2 hours 15 minutes", 8100), ("2 hours and 15 minutes", 8100),
      ("a day and a half", 129_600),
    ] as [(String, Double)])
  func parsesDurations(_ text: String, _ seconds: Double) throws {
    let interpreter = try Soup.interpreter()
    #expect(interpreter.parse(text, for: try Soup.spec("cookingTime")) == .decimal(seconds))
  }

  /// The control: words that are not a duration.
  @Test(arguments: ["an", "a fortnight", "hour and", "2 hours 15", "an hour and two", "half an", "an hour a half"])
  func refusesWhatIsNotADuration(_ text: String) throws {
    let interpreter = try Soup.interpreter()
    #expect(interpreter.parse(text, for: try Soup.spec("cookingTime")) == nil)
  }

  /// Without a definition an enum parameter is read as its underlying type, and described as such.
  @Test func withoutADefinitionAnEnumIsItsType() throws {
    let interpreter = ValueInterpreter(intentClass: Soup.intentClass, definition: nil, vocabularies: [])
    let size = try Soup.spec("size")
    #expect(interpreter.parse("2", for: size) == 2)
    #expect(interpreter.parse("small", for: size) == nil)
    #expect(interpreter.expectation(for: size) == "a whole number")
  }

  struct Spoken: Sendable, CustomTestStringConvertible {
    var value: ParameterValue
    var names: Names?
    var words: String
    var testDescription: String { "\(value) → \(words)" }

    struct Names: Sendable {
      var trueName: String?
      var falseName: String?
      var enumType: String?
    }

    init(_ value: ParameterValue, _ words: String) {
      self.value = value
      self.words = words
    }

    init(_ value: ParameterValue, _ names: Names, _ words: String) {
      self.value = value
      self.names = names
      self.words = words
    }
  }

  static let cancelOrBook = Spoken.Names(trueName: "Cancel", falseName: "Book")
  static let size = Spoken.Names(enumType: "Size")

  static let spoken: [Spoken] = [
    Spoken("Ada", "Ada"),
    Spoken(12, "12"),
    Spoken(-3, "-3"),
    Spoken(.decimal(2), "2"),
    Spoken(.decimal(-3), "-3"),
    Spoken(.decimal(2.5), "2.5"),
    Spoken(.decimal(1e15), "1000000000000000.0"),
    Spoken(.decimal(2.5e20), "2.5e+20"),
    Spoken(true, "yes"),
    Spoken(false, "no"),
    Spoken(true, cancelOrBook, "Cancel"),
    Spoken(false, cancelOrBook, "Book"),
    Spoken(.enumCase("medium"), size, "Medium size"),
    Spoken(.enumCase("large"), size, "large"),
    Spoken(.enumCase("medium"), "medium"),
    Spoken(.enumCase("unknown"), size, "unknown"),
    Spoken(.date(nineThirty), "2026-11-21T09:30:00Z"),
    Spoken(.date(nineThirty.addingTimeInterval(0.25)), "2026-11-21T09:30:00Z"),
    Spoken(.object(ObjectValue(identifier: "p1", displayString: "Ada Lovelace")), "Ada Lovelace"),
    Spoken(.array([1, 2, 3]), "1, 2, 3"),
    Spoken(.array([true, false]), cancelOrBook, "Cancel, Book"),
    Spoken(.array([]), ""),
  ]

  @Test(arguments: spoken)
  func saysAValueInWords(_ example: Spoken) throws {
    let names = example.names.map { ($0.trueName, $0.falseName, $0.enumType) }
    let interpreter = try Soup.interpreter()
    #expect(interpreter.words(for: example.value, parameterType: names) == example.words)
  }

  /// `PROMPTID-VALUEID` in the strings table words a prompt for one enum case or boolean value.
  @Test func findsThePromptWordedForAValue() throws {
    let interpreter = try Soup.interpreter()
    let isCancellation = try Soup.spec("isCancellation")
    let size = try Soup.spec("size")
    let prompt = isCancellation.prompt("Confirmation")
    #expect(prompt?.textID == "pConf")
    #expect(interpreter.variant(of: prompt, for: true, parameter: isCancellation) == "Really cancel?")
    #expect(interpreter.variant(of: prompt, for: false, parameter: isCancellation) == nil)
    #expect(
      interpreter.variant(of: size.prompt("Confirmation"), for: .enumCase("medium"), parameter: size)
        == "A medium one, then?")
    #expect(interpreter.variant(of: size.prompt("Confirmation"), for: .enumCase("small"), parameter: size) == nil)
    #expect(interpreter.variant(of: nil, for: true, parameter: isCancellation) == nil)
    #expect(interpreter.variant(of: prompt, for: "Cancel", parameter: isCancellation) == nil)
    let bare = ValueInterpreter(intentClass: Soup.intentClass, definition: nil, vocabularies: [])
    #expect(bare.variant(of: prompt, for: true, parameter: isCancellation) == nil)
  }

  /// The Rooms definition, translated by fr.lproj, parses the French display names it then shows.
  @Test func aTranslatedDefinitionParsesItsOwnWords() throws {
    let app = try Rooms.app().localized(for: "fr_FR")
    let (spec, definition) = try #require(app.runnableSpec(className: "BookRoomIntent"))
    let interpreter = ValueInterpreter(
      intentClass: "BookRoomIntent", definition: definition, vocabularies: app.vocabularies)
    let cancel = try #require(spec.parameter(named: "isCancellationOfBooking"))
    #expect(cancel.trueDisplayName == "Annuler")
    #expect(interpreter.parse("annuler", for: cancel) == true)
    #expect(interpreter.parse("Réserver", for: cancel) == false)
    // Compared as words, as titles are: case and punctuation do not count.
    #expect(interpreter.parse("RÉSERVER !", for: cancel) == false)
    #expect(interpreter.parse("Annuler.", for: cancel) == true)
    #expect(interpreter.expectation(for: cancel) == "Annuler/yes or Réserver/no")
    #expect(
      interpreter.words(for: true, parameterType: (cancel.trueDisplayName, cancel.falseDisplayName, nil)) == "Annuler")
  }
}

/// `renderTemplate`: `${name}` placeholders filled by a lookup that gets the whole (possibly dotted) name.
@Suite(.tags(.unit)) struct TemplateTests {
  static let values: [String: String] = ["roomNumber": "12", "bookedBy": "Ada"]

  @Test(arguments: [
    ("Room ${roomNumber} is now booked by ${bookedBy}.", "Room 12 is now booked by Ada.", [String]()),
    ("Sorry, room ${roomNumber} could not be booked: ${reason}.", "Sorry, room 12 could not be booked: .", ["reason"]),
    ("${roomNumber}${bookedBy}", "12Ada", []),
    ("${roomNumber} and ${roomNumber}", "12 and 12", []),
    ("${a} ${b}", " ", ["a", "b"]),
    ("no placeholders", "no placeholders", []),
    ("", "", []),
    ("Hello ${bookedBy", "Hello ${bookedBy", []),
    ("$5 {roomNumber} $", "$5 {roomNumber} $", []),
    ("${}", "", [""]),
    ("${bookedBy}}", "Ada}", []),
  ])
  func fillsPlaceholders(template: String, text: String, missing: [String]) {
    let rendered = renderTemplate(template) { Self.values[$0] }
    #expect(rendered.text == text)
    #expect(rendered.missing == missing)
  }

  /// The lookup the driver gives a response template (`parameterValue(at:in:)`, then the value's words).
  static func responseLookup(_ parameters: [String: ParameterValue]) -> (String) -> String? {
    let interpreter = ValueInterpreter(intentClass: "OrderSoupIntent", definition: nil, vocabularies: [])
    return { name in parameterValue(at: name, in: parameters).map { interpreter.words(for: $0) } }
  }

  static let order: [String: ParameterValue] = [
    "orderDetails": .object(
      ObjectValue(
        identifier: "o1", displayString: "Order 1",
        properties: [
          "total": .decimal(12.5), "soup": .object(ObjectValue(identifier: "s", displayString: "Tomato soup")),
          "items": .array([2, 3]),
        ])),
    "quantity": 2,
  ]

  @Test(arguments: [
    ("Your total is ${orderDetails.total}.", "Your total is 12.5.", [String]()),
    ("${quantity} × ${orderDetails.soup}", "2 × Tomato soup", []),
    ("It is ${orderDetails}.", "It is Order 1.", []),
    ("Items: ${orderDetails.items}", "Items: 2, 3", []),
    ("Tax: ${orderDetails.tax}", "Tax: ", ["orderDetails.tax"]),
    ("${quantity.total}", "", ["quantity.total"]),
    ("${orderDetails.soup.name}", "", ["orderDetails.soup.name"]),
  ])
  func readsPropertiesOfObjects(template: String, text: String, missing: [String]) {
    var asked: [String] = []
    let lookup = Self.responseLookup(Self.order)
    let rendered = renderTemplate(template) { name in
      asked.append(name)
      return lookup(name)
    }
    #expect(rendered.text == text)
    #expect(rendered.missing == missing)
    #expect(asked == placeholders(template), "the lookup gets each whole dotted name, in order")
  }
}

/// The words of speech: what the matcher compares.
@Suite(.tags(.unit)) struct SpokenWordsTests {
  @Test(arguments: [
    ("Book room 12, for Ada!", ["Book", "room", "12", "for", "Ada"]),
    // An apostrophe inside a word is dropped; a hyphen or a slash between letters separates words (issue 14).
    ("Ada-Lovelace's room", ["Ada", "Lovelaces", "room"]),
    ("Open my room's door", ["Open", "my", "rooms", "door"]),
    ("Book-room/cancel with Rooms", ["Book", "room", "cancel", "with", "Rooms"]),
    ("'quoted' the Smiths' 90's", ["quoted", "the", "Smiths", "90s"]),
    ("twenty-one, room-12, 12-B", ["twenty", "one", "room", "12", "12", "B"]),
    // Control: a number, a time or a date keeps its "-", "/" is never part of one.
    ("-3 on 2026-11-21 at 09:30, 1/2", ["-3", "on", "2026-11-21", "at", "09:30", "1", "2"]),
    ("  spaced   out  ", ["spaced", "out"]),
    ("Réserver la salle 3", ["Réserver", "la", "salle", "3"]),
    // Numbers, times and dates are one word; a "." or ":" elsewhere ends one.
    ("room 2.5, at 09:30.", ["room", "2.5", "at", "09:30"]),
    ("at 2026-11-21T09:30:00Z.", ["at", "2026-11-21T09:30:00Z"]),
    ("2026-11-21T09:30:00.5+02:00!", ["2026-11-21T09:30:00.5+02:00"]),
    ("Rooms: book room 12.", ["Rooms", "book", "room", "12"]),
    ("3+4 .5 5. a.b", ["3", "4", "5", "5", "a", "b"]),
    // A typographic apostrophe is "'".
    ("d’une salle, O’Brien, O'Brien", ["dune", "salle", "OBrien", "OBrien"]),
    ("?!", []),
    // Compatibility forms are their plain letters and digits (NFKC); an emoji or a bidi control is no word.
    ("Ｒｏｏｍｓ, ｂｏｏｋ ｒｏｏｍ １２．５", ["Rooms", "book", "room", "12.5"]),
    ("ﬁne Zoë 🎉 A\u{202E}B", ["fine", "Zoë", "A", "B"]),
  ])
  func splitsIntoWordsKeepingCase(text: String, words: [String]) {
    #expect(spokenWords(text) == words)
    #expect(normalizedWords(text) == words.map { $0.lowercased() })
  }

  /// Each word's range is where it is in the text, as written (not in NFKC form).
  @Test func rangesAreWhereTheWordsAreWritten() {
    let text = "for Ａｄａ 🎉, with Rooms"
    let found = spokenWordRanges(text)
    #expect(found.map(\.word) == ["for", "Ada", "with", "Rooms"])
    #expect(found.map { String(text[$0.range]) } == ["for", "Ａｄａ", "with", "Rooms"])
  }

  /// A value as written: the spaces and sentence punctuation around it and a pair of quotes taken off, nothing else.
  @Test(arguments: [
    ("  Zoë 🎉  ", "Zoë 🎉"), (" A\u{202E}B ", "A\u{202E}B"), (", Ada!?", "Ada"), ("Ada & Co., Ltd.", "Ada & Co., Ltd"),
    ("\u{201C}The Beatles\u{201D}.", "The Beatles"), ("\"Ada", "\"Ada"), ("Ａｄａ", "Ａｄａ"), ("O'Brien", "O'Brien"),
    (" , ", ""),
  ])
  func aWrittenValueKeepsWhatWasWritten(text: String, value: String) {
    #expect(writtenValue(Substring(text)) == value)
  }
}

/// A vocabulary item whose identifier is also one of its phrases (Ascent's "wall climb"): the identifier is parsed
/// without the synonyms, once, instead of being looked up again for ever (install crashed on the stack).
@Suite(.tags(.unit))
struct SelfNamedSynonymTests {
  @Test func anIdentifierThatIsItsOwnPhraseIsParsedOnce() throws {
    let vocabulary = try Vocabulary(
      PlistDictionary(
        values: [
          "ParameterVocabularies": [
            [
              "ParameterNames": ["INStartWorkoutIntent.workoutName"],
              "ParameterVocabulary": [
                [
                  "VocabularyItemIdentifier": "wall climb",
                  "VocabularyItemSynonyms": [["VocabularyItemPhrase": "wall climb"], ["VocabularyItemPhrase": "wall"]],
                ]
              ],
            ]
          ]
        ], file: "AppIntentVocabulary.plist"))
    let interpreter = ValueInterpreter(
      intentClass: "INStartWorkoutIntent", definition: nil, vocabularies: [vocabulary])
    let spec = try #require(SystemIntent.named("INStartWorkoutIntent")?.spec.parameter(named: "workoutName"))
    #expect(interpreter.parse("wall climb", for: spec) == .string("wall climb"))
    #expect(interpreter.parse("Wall", for: spec) == .string("wall climb"))
    // The control: a phrase of no item is the text as said.
    #expect(interpreter.parse("boulder", for: spec) == .string("boulder"))
  }
}
