import BundleManifest
import ExtensionProtocol
import Foundation
import Testing

@testable import Understanding

/// `PhraseBook`: the capability questions ("What can you do?") and the phrase lint (`check`).
@Suite(.tags(.unit)) struct PhraseBookTests {
  /// Each question, and the app it names (nil: all apps).
  @Test(
    arguments: [
      ("What can you do?", nil), ("what can you do", nil), ("WHAT CAN YOU DO?!", nil), ("What can I say?", nil),
      ("Help", nil), ("What can I ask?", nil), ("What can I say to Rooms?", "Rooms"),
      ("What can I do with Room Booking?", "Room Booking"), ("What can Rooms do?", "Rooms"),
      ("What can I ask Rooms", "Rooms"), ("What can I do?", nil), ("what can I do here?", nil),
      ("What can I do with Rooms?", "Rooms"), ("What can you do for me?", nil),
      // A bundle id stays whole; the name is as written.
      ("What can I say to com.example.rooms?", "com.example.rooms"),
      ("What can com.example.rooms do?", "com.example.rooms"),
      ("What can I say to Ｒｏｏｍｓ?", "Ｒｏｏｍｓ"),
      // The app named first, asked, or after "you do with"; "for me" after "do".
      ("Rooms, what can you do?", "Rooms"), ("Room Booking what can I say", "Room Booking"),
      ("What can you do with Rooms?", "Rooms"), ("ask Rooms what it can do", "Rooms"),
      ("Ask Rooms what can it do?", "Rooms"), ("What can Rooms do for me?", "Rooms"),
      ("What can you do in Meeting Rooms?", "Meeting Rooms"),
    ] as [(String, String?)])
  func capabilityQuestions(_ utterance: String, _ app: String?) {
    let asked = PhraseBook.capabilityQuestion(utterance)
    #expect(asked != nil, "not taken as a question")
    #expect(asked == .some(app))
  }

  /// The control: requests, even ones starting like a question, are not questions.
  @Test(arguments: [
    "Book room 12 for Ada with Rooms", "What can you", "Help me book a room with Rooms", "What rooms are free",
    "can you do", "what can I say to", "ask what it can do", "Rooms, book room 12 and tell me what you can",
    "Messages, tell Bob what you can do",
  ])
  func requestsAreNotQuestions(_ utterance: String) {
    #expect(PhraseBook.capabilityQuestion(utterance) == nil)
  }

  /// The name a question gives names the app for `PhraseList.of` (`Router.app(named:)`): a bundle id, a fullwidth
  /// name, an app named first or asked. The control: an unknown name is refused.
  @Test(arguments: [
    "What can I say to com.example.rooms?", "What can com.example.rooms do?", "Rooms, what can you do?",
    "What can you do with Rooms?", "ask Rooms what it can do", "What can Rooms do for me?", "What can Ｒｏｏｍｓ do?",
  ])
  func theQuestionNamesTheApp(_ utterance: String) throws {
    let name = try #require(PhraseBook.capabilityQuestion(utterance) ?? nil)
    let router = Router(apps: [try Rooms.app()])
    #expect(try router.app(named: name).identifier.rawValue == "com.example.rooms")
    #expect(throws: UnderstandingError.self) { try router.app(named: name + "x") }
  }

  @Test func entriesListExamplesFirst() throws {
    let entries = PhraseBook.entries([try Rooms.app()])
    let rooms = try #require(entries.first)
    #expect(entries.count == 1)
    #expect(rooms.name == "Rooms" && rooms.bundleIdentifier == "com.example.rooms")
    let sources = rooms.phrases.map(\.source)
    let firstOther = try #require(sources.firstIndex { $0 != .example })
    #expect(sources[..<firstOther].allSatisfy { $0 == .example })
    #expect(sources[firstOther...].allSatisfy { $0 != .example })
    #expect(rooms.phrases.first?.phrase == "Book room 12 for Ada with Rooms")
    #expect(rooms.phrases.contains { $0.intent == "OpenDoorIntent" && $0.phrase == "Open a door with Rooms" })
  }

  /// Under a locale the titles translated for it are listed too, before the definition's own; the control: not
  /// without the locale, nor under one the app has no strings for.
  @Test func entriesUnderALocaleListTheTranslatedTitles() throws {
    let french = "${isCancellationOfBooking} la salle ${roomNumber} pour ${bookedBy}"
    let english = "${isCancellationOfBooking} room ${roomNumber} for ${bookedBy}"
    let app = try Rooms.app()
    let phrases = try #require(PhraseBook.entries([app], locale: "fr_FR").first).phrases.map(\.phrase)
    let translated = try #require(phrases.firstIndex(of: french), "\(phrases)")
    let own = try #require(phrases.firstIndex(of: english), "\(phrases)")
    #expect(translated < own)
    #expect(phrases.contains("Ouvrir la porte de la salle ${roomNumber}"))
    for locale in [nil, "de_DE"] as [String?] {
      let lines = try #require(PhraseBook.entries([app], locale: locale).first).phrases.map(\.phrase)
      #expect(!lines.contains(french))
      #expect(lines.contains(english))
    }
  }

  /// The example Rooms passes its own check: the control of the cases below.
  @Test func theExampleChecksClean() throws {
    #expect(PhraseBook.check(try Rooms.app()).map(\.description) == [])
  }

  /// Titles with a Decimal, a Date and a Duration slot, filled with `2.5`, `2026-11-21T09:30:00Z` and `30 minutes`,
  /// reach their intent with those values: Meters checks clean. The control: a title whose slot no value fills is
  /// reported, and only it.
  @Test(arguments: [false, true])
  func titlesWithNumbersDatesAndDurationsCheckClean(impossibleTitle: Bool) throws {
    let directory = try TemporaryDirectory("assistanthost-meters")
    defer { directory.remove() }
    let app = try AppBundle.load(from: Meters.build(impossibleTitle: impossibleTitle, in: directory.url))
    let diagnostics = PhraseBook.check(app)
    if impossibleTitle {
      #expect(diagnostics.count == 1, "\(diagnostics.map(\.description))")
      #expect(diagnostics.first?.rule == .intentPhraseUnreachable)
      #expect(diagnostics.first?.keyPath == "CalibrateIntent")
      #expect(
        diagnostics.first?.message.hasPrefix("\"Calibrate in 12 mode with Meters\" does not reach CalibrateIntent")
          == true, "\(diagnostics.map(\.description))")
    } else {
      #expect(diagnostics.map(\.description) == [])
    }
    let matcher = UtteranceMatcher(apps: [app])
    let said = try matcher.match("Log 2.5 litres at 2026-11-21T09:30:00Z with Meters")
    #expect(said.intentClass == "LogReadingIntent")
    #expect(
      said.values == [
        "amount": .decimal(2.5), "at": .date(try #require(ParameterValue.parseDate("2026-11-21T09:30:00Z"))),
      ])
  }

  struct Broken: Sendable, CustomTestStringConvertible {
    var example: String
    var intent: Int
    var rule: String
    var says: String
    var testDescription: String { example }
  }

  static let broken: [Broken] = [
    Broken(
      example: "Book room 12 for Ada", intent: 0, rule: "intent-phrase-unreachable",
      says: "\"Book room 12 for Ada\" does not reach BookRoomIntent"),
    Broken(
      example: "Book rooms 12 and 14 with Rooms", intent: 0, rule: "intent-phrase-unreachable",
      says: "loses the value 14"),
    Broken(
      example: "Open a door with Rooms", intent: 0, rule: "intent-phrase-claimed-twice",
      says: "\"Open a door with Rooms\" is claimed by BookRoomIntent and OpenDoorIntent"),
    Broken(
      example: "Book a room with Room Booking", intent: 1, rule: "intent-phrase-unreachable",
      says: "reaches BookRoomIntent, not OpenDoorIntent"),
  ]

  /// Wallet.app: an app whose Intents extension handles Apple's INSendPaymentIntent, with `examples` as its
  /// `IntentPhrases`.
  static func wallet(examples: [String], in directory: URL) throws -> AppBundle {
    let app = try SmallApp.build(name: "Wallet", intents: [], systemIntents: ["INSendPaymentIntent"], in: directory)
    try writePlist(
      ["IntentPhrases": [["IntentName": "INSendPaymentIntent", "IntentExamples": examples]]],
      to: app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist"))
    return try AppBundle.load(from: app)
  }

  /// A number said inside a value the run sends as text is not lost: "Send Ada 5 dollars with Wallet" sends the
  /// amount "5 dollars", and the lint reads the value as the run does. The control: a number the run drops (Rooms'
  /// "Book rooms 12 and 14", whose room number is 12) is still lost, and named as said ("14", not "14.0").
  @Test func aNumberInsideATextValueIsNotLost() throws {
    let directory = try TemporaryDirectory("assistanthost-phrasebook")
    defer { directory.remove() }
    let wallet = try Self.wallet(
      examples: ["Send Ada 5 dollars with Wallet", "Pay Ada 7 with Wallet"], in: directory.url)
    let sent = try UtteranceMatcher(apps: [wallet]).match("Send Ada 5 dollars with Wallet")
    #expect(sent.values["currencyAmount"]?.description.contains("5 dollars") == true, "\(sent.values)")
    #expect(PhraseBook.check(wallet).map(\.description) == [])

    let root = try TestBundles.roomsManifests(in: directory.url)
    try Edit.addExample("Book rooms 12 and 14 with Rooms", to: 0, in: root)
    let lost = PhraseBook.check(try AppBundle.load(from: root)).map(\.message)
    #expect(
      lost.contains("\"Book rooms 12 and 14 with Rooms\" reaches BookRoomIntent but loses the value 14"), "\(lost)")
  }

  @Test(arguments: broken)
  func aBrokenExampleIsAnError(_ case_: Broken) throws {
    let directory = try TemporaryDirectory("assistanthost-phrasebook")
    defer { directory.remove() }
    let root = try TestBundles.roomsManifests(in: directory.url)
    try Edit.addExample(case_.example, to: case_.intent, in: root)
    let diagnostics = PhraseBook.check(try AppBundle.load(from: root))
    let found = try #require(diagnostics.first { $0.message.contains(case_.says) }, "\(diagnostics.map(\.description))")
    #expect(found.rule.rawValue == case_.rule)
    #expect(found.severity == .error)
    #expect(found.file.hasSuffix("Base.lproj/AppIntentVocabulary.plist"))
  }
}
