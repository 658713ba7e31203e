import BundleManifest
import ExtensionProtocol
import Foundation
import TestSupport
import Testing
import Understanding

@testable import AssistantHost
@testable import Understanding

/// Understanding an utterance (`UtteranceMatcher`) against the installed example Rooms app.
@Suite(.tags(.unit)) struct UtteranceMatcherTests {
  struct Understood: Sendable, CustomTestStringConvertible {
    var utterance: String
    var values: [String: ParameterValue]
    var testDescription: String { utterance }

    init(_ utterance: String, _ values: [String: ParameterValue]) {
      self.utterance = utterance
      self.values = values
    }
  }

  static let cancel = "isCancellationOfBooking"

  /// What the README, the vocabulary's example phrases and the end-to-end tests say, and their variants.
  static let understood: [Understood] = [
    Understood("Book room 12 for Ada with Rooms", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Cancel room 12 for Ada with Rooms", [cancel: .boolean(true), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Book a room with Rooms", [cancel: .boolean(false)]),
    Understood("Book room 14 with Rooms", [cancel: .boolean(false), "roomNumber": 14]),
    Understood("Book a room for Ada with Rooms", [cancel: .boolean(false), "bookedBy": "Ada"]),
    Understood("Book Room with Rooms", [cancel: .boolean(false)]),
    // Case: words match in any case, values keep the user's.
    Understood("book room 12 for ada with rooms", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "ada"]),
    Understood("BOOK ROOM 12 FOR ADA WITH ROOMS", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "ADA"]),
    // Values: number words, names of several words, punctuation dropped.
    Understood("Book room twelve for Ada with Rooms", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood(
      "Book room twenty-one for Ada with Rooms", [cancel: .boolean(false), "roomNumber": 21, "bookedBy": "Ada"]),
    Understood(
      "Book room 12 for Ada Lovelace with Rooms",
      [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada Lovelace"]),
    Understood("Book room 12 for Ada with Rooms.", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Book the room 12 for Ada with Rooms", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    // The boolean slot by its display names and the vocabulary's synonyms.
    Understood("Reserve room 12 for Ada with Rooms", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Unbook room 12 for Ada with Rooms", [cancel: .boolean(true), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood(
      "Cancel the booking of room 12 for Ada with Rooms",
      [cancel: .boolean(true), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Cancel my booking of a room with Rooms", [cancel: .boolean(true)]),
    // The app: "with|using|in|on|via APP", "APP, ...", "ask APP to ...", and every name it answers to.
    Understood("Book room 12 for Ada using Rooms", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Book room 12 for Ada in Rooms", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Book room 12 for Ada on Rooms", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Book room 12 for Ada via Rooms", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Rooms, book room 12 for Ada", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood("Ask Rooms to book room 12 for Ada", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
    Understood(
      "Book room 12 for Ada with Room Booking", [cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"]),
  ]

  @Test(arguments: understood)
  func understandsTheRoomsPhrases(_ example: Understood) throws {
    let match = try UtteranceMatcher(apps: [Rooms.app()]).match(example.utterance)
    #expect(match.app.info.bundleIdentifier == "com.example.rooms")
    #expect(match.intentClass == "BookRoomIntent")
    #expect(match.values == example.values)
  }

  /// OpenDoorIntent's phrases go to it, and none of BookRoomIntent's (above) does: the two intents' titles share no
  /// first word.
  static let openDoor: [Understood] = [
    Understood("Open the door of room 12 with Rooms", ["roomNumber": 12]),
    Understood("Open door of room 12 with Rooms", ["roomNumber": 12]),
    Understood("open the door of room twelve with Rooms", ["roomNumber": 12]),
    Understood("Rooms, open the door of room 7", ["roomNumber": 7]),
    Understood("Open a door with Rooms", [:]),
    Understood("Open Door with Rooms", [:]),
  ]

  @Test(arguments: openDoor)
  func understandsTheDoorPhrases(_ example: Understood) throws {
    let match = try UtteranceMatcher(apps: [Rooms.app()]).match(example.utterance)
    #expect(match.intentClass == "OpenDoorIntent")
    #expect(match.values == example.values)
  }

  /// The hint after an utterance that matches nothing gives each intent a turn, in the manifest's order.
  @Test func examplePhrasesTakeTurns() throws {
    let app = try Rooms.app()
    #expect(
      UtteranceMatcher.examplePhrases(of: app, limit: 5) == [
        "Book room 12 for Ada with Rooms", "Open the door of room 12 with Rooms", "Cancel room 12 for Ada with Rooms",
        "Open a door with Rooms", "Book a room with Rooms",
      ])
    #expect(UtteranceMatcher.examplePhrases(of: app, limit: 1) == ["Book room 12 for Ada with Rooms"])
    #expect(UtteranceMatcher.examplePhrases(of: app, limit: 9).count == 5)
  }

  struct NotUnderstood: Sendable, CustomTestStringConvertible {
    var utterance: String
    var status: AssistantHost.ExitStatus
    var message: String
    var testDescription: String { utterance.isEmpty ? "(nothing)" : utterance }
  }

  static let installed = "(installed: Rooms)"
  static let tryPhrases =
    "; try: \"Book room 12 for Ada with Rooms\", \"Open the door of room 12 with Rooms\", "
    + "\"Cancel room 12 for Ada with Rooms\""

  static let notUnderstood: [NotUnderstood] = [
    NotUnderstood(utterance: "", status: .usage, message: "say something, e.g. \"Book room 12 for Ada with Rooms\""),
    NotUnderstood(
      utterance: " ?! ", status: .usage, message: "say something, e.g. \"Book room 12 for Ada with Rooms\""),
    NotUnderstood(
      utterance: "Book room 12 for Ada with Desks", status: .noMatch,
      message: "\"Book room 12 for Ada with Desks\": no installed app is called \"Desks\"; installed: Rooms"),
    NotUnderstood(
      utterance: "Rooms", status: .noMatch, message: "you named Rooms but did not say what to do\(tryPhrases)"),
    NotUnderstood(
      utterance: "Book room 12 for Ada with Roomz", status: .noMatch,
      message:
        "\"Book room 12 for Ada with Roomz\": no installed app is called \"Roomz\" (did you mean \"Rooms\"?); installed: Rooms"
    ),
    NotUnderstood(
      utterance: "Order soup with Rooms", status: .noMatch,
      message: "Rooms has no intent matching \"order soup\"\(tryPhrases)"),
    NotUnderstood(
      utterance: "Book room twelvish for Ada with Rooms", status: .noMatch,
      message:
        "Rooms has no intent matching \"book room twelvish for ada\"; closest: \"Book room 12 for Ada with Rooms\", "
        + "\"Cancel room 12 for Ada with Rooms\", \"Cancel a room for Ada with Rooms\""),
    NotUnderstood(
      utterance: "with Rooms", status: .noMatch, message: "you named Rooms but did not say what to do\(tryPhrases)"),
  ]

  @Test(arguments: notUnderstood)
  func saysWhatItDidNotUnderstand(_ example: NotUnderstood) throws {
    let matcher = UtteranceMatcher(apps: [try Rooms.app()])
    let error = try #require(throws: UnderstandingError.self) { try matcher.match(example.utterance) }
    #expect(error.status == example.status)
    #expect(error.message == example.message)
  }

  @Test func withNoAppInstalledItSaysSo() throws {
    let error = try #require(throws: UnderstandingError.self) {
      try UtteranceMatcher(apps: []).match("Book room 12 for Ada with Rooms")
    }
    #expect(error.status == .noMatch)
    #expect(error.message.hasSuffix("installed: none"), "\(error.message)")
  }

  /// With several apps installed, each utterance goes to the app it names.
  @Test func eachAppGetsItsOwnUtterances() async throws {
    let apps = try await Rooms.installed(with: [
      { try SmallApp.build(name: "Desks", intents: [("BookDesk", "Book desk ${value}")], in: $0) }
    ])
    #expect(apps.map(\.name) == ["Desks", "Rooms"])
    let matcher = UtteranceMatcher(apps: apps)
    let desk = try matcher.match("Book desk 4 with Desks")
    #expect(desk.app.name == "Desks")
    #expect(desk.intentClass == "BookDeskIntent")
    #expect(desk.values == ["value": "4"])
    let room = try matcher.match("Book room 12 for Ada with Rooms")
    #expect(room.app.name == "Rooms")
    #expect(room.values == [Self.cancel: .boolean(false), "roomNumber": 12, "bookedBy": "Ada"])
    let error = try #require(throws: UnderstandingError.self) { try matcher.match("Book desk 4 with Rooms") }
    #expect(error.message.hasPrefix("Rooms has no intent matching \"book desk 4\""))
  }

  /// The utterance names "Study Rooms", and "Rooms" is installed too: both names end it, so neither is picked: the
  /// user is asked to say which by bundle id (and the bundle id works). Otherwise an app whose name ends with another
  /// app's could take its utterances: one called "12 for Ada with Rooms" would take "Book room 12 for Ada with
  /// Rooms" from Rooms.
  @Test func anAppNameThatEndsAnotherIsAskedAbout() async throws {
    let apps = try await Rooms.installed(with: [
      { try SmallApp.build(name: "Study Rooms", intents: [("BookCarrel", "Book carrel ${value}")], in: $0) }
    ])
    #expect(apps.map(\.name) == ["Rooms", "Study Rooms"])
    // The control: alone, Study Rooms understands its phrase.
    let alone = UtteranceMatcher(apps: apps.filter { $0.name == "Study Rooms" })
    #expect(try alone.match("Book carrel 3 with Study Rooms").values == ["value": "3"])

    let matcher = UtteranceMatcher(apps: apps)
    let error = try #require(throws: UnderstandingError.self) { try matcher.match("Book carrel 3 with Study Rooms") }
    #expect(error.status == .noMatch)
    #expect(error.message.contains("com.example.rooms (Rooms)"), "\(error)")
    let study = try #require(apps.first { $0.name == "Study Rooms" })
    #expect(try matcher.match("Book carrel 3 with \(study.identifier.rawValue)").app.name == "Study Rooms")
    #expect(try matcher.match("Book room 12 for Ada with Rooms").app.name == "Rooms")
  }

  /// A system intent answers to Siri's phrases for it even when the app's definition gives it a title of its own
  /// (`UtteranceMatcher.phrases(of:)`): both are phrases of the intent.
  @Test func aSystemIntentWithATitleKeepsItsSystemPhrases() throws {
    let directory = try TemporaryDirectory("assistanthost-system-title")
    defer { directory.remove() }
    let app = try AppBundle.load(
      from: SmallApp.build(
        name: "Trainer", intents: [("INStartWorkout", "Begin training ${value}")], in: directory.url))
    let phrases = UtteranceMatcher.phrases(of: app)
    #expect(phrases.contains { $0.source == .title && $0.text == "Begin training ${value}" }, "\(phrases)")
    #expect(phrases.contains { $0.source == .system && $0.text == "start a workout" }, "\(phrases)")
    let matcher = UtteranceMatcher(apps: [app])
    #expect(try matcher.match("Begin training legs with Trainer").intentClass == "INStartWorkoutIntent")
    #expect(try matcher.match("Start a workout with Trainer").intentClass == "INStartWorkoutIntent")
  }

  /// Two apps called Rooms, and only one understands the rest of the utterance: nothing runs, and the refusal's
  /// example is what was asked with the bundle id of the app that understood it (whichever sorts first). The control:
  /// that example works.
  @Test(arguments: [
    ("Open the door of room 3 with Rooms", "Open the door of room 3 with com.example.rooms"),
    ("Book carrel 3 with Rooms", "Book carrel 3 with com.check.rooms"),
  ])
  func theRefusalOfTwoAppsOfOneNameGivesAnExampleThatWorks(_ utterance: String, _ example: String) throws {
    let directory = try TemporaryDirectory("assistanthost-same-name")
    defer { directory.remove() }
    let other = try AppBundle.load(
      from: SmallApp.build(
        name: "Rooms", identifier: "com.check.rooms", intents: [("BookCarrel", "Book carrel ${value}")],
        in: directory.url))
    for apps in [[try Rooms.app(), other], [other, try Rooms.app()]] {
      let matcher = UtteranceMatcher(apps: apps)
      let error = try #require(throws: UnderstandingError.self) { try matcher.match(utterance) }
      #expect(error.status == .noMatch)
      #expect(
        error.message == "\"\(utterance)\" names 2 installed apps: com.check.rooms (Rooms), com.example.rooms (Rooms); "
          + "use the bundle id instead of the name to say which, e.g. \"\(example)\"")
      #expect(throws: Never.self) { try matcher.match(example) }
    }
  }

  /// Rooms and Study Rooms: "... with Study Rooms" names both ("Rooms" ends it), and only Study Rooms understands
  /// "Book carrel 3". The example leaves out all of Study Rooms' name, not only the "Rooms" that names the other app.
  @Test func theRefusalsExampleLeavesOutTheWholeName() throws {
    let directory = try TemporaryDirectory("assistanthost-study-rooms")
    defer { directory.remove() }
    let study = try AppBundle.load(
      from: SmallApp.build(
        name: "Study Rooms", identifier: "com.check.app", intents: [("BookCarrel", "Book carrel ${value}")],
        in: directory.url))
    for apps in [[try Rooms.app(), study], [study, try Rooms.app()]] {
      let error = try #require(throws: UnderstandingError.self) {
        try UtteranceMatcher(apps: apps).match("Book carrel 3 with Study Rooms")
      }
      #expect(error.message.hasSuffix("e.g. \"Book carrel 3 with com.check.app\""), "\(error.message)")
    }
  }

  /// The attack: an app named with the end of Rooms' phrase does not take it.
  @Test func anAppNamedLikeTheEndOfAPhraseDoesNotTakeIt() async throws {
    let apps = try await Rooms.installed(with: [
      { try SmallApp.build(name: "12 for Ada with Rooms", intents: [("BookRoom", "Book room")], in: $0) }
    ])
    let matcher = UtteranceMatcher(apps: apps)
    let error = try #require(throws: UnderstandingError.self) { try matcher.match("Book room 12 for Ada with Rooms") }
    #expect(error.status == .noMatch, "\(error)")
    #expect(try matcher.match("Book room 12 for Ada with com.example.rooms").app.name == "Rooms")
  }

  /// An app called "Book" and an utterance that starts with the word "book" and ends "with Rooms": "... with APP"
  /// is the better way of naming an app than "APP, ..." (which spokenWords matches without its comma), so Rooms gets
  /// it.
  @Test func anAppNamedLikeAVerbDoesNotStealUtterances() async throws {
    let apps = try await Rooms.installed(with: [
      { try SmallApp.build(name: "Book", intents: [("Read", "Read ${value}")], in: $0) }
    ])
    #expect(apps.map(\.name) == ["Book", "Rooms"])
    let matcher = UtteranceMatcher(apps: apps)
    // The control: the app named "Book" gets its own phrase.
    #expect(try matcher.match("Read Dune with Book").app.name == "Book")
    let match = try matcher.match("Book room 12 for Ada with Rooms")
    #expect(match.app.name == "Rooms")
  }
}

/// `assistant run APP INTENT name=value...`: finding the app and the intent by name, and typing the values.
@Suite(.tags(.unit)) struct RouterTests {
  @Test(arguments: ["Rooms", "rooms", "ROOMS", "Room Booking", "room booking", "com.example.rooms"])
  func findsTheAppByAnyOfItsNames(_ name: String) throws {
    let router = Router(apps: [try Rooms.app()])
    #expect(try router.app(named: name).info.bundleIdentifier == "com.example.rooms")
  }

  @Test(arguments: [
    ("Desks", nil), ("Room", "Rooms"), ("rooms app", nil), ("COM.EXAMPLE.ROOMS", "com.example.rooms"),
    ("com.example", nil), ("", nil), ("Romos", "Rooms"),
  ])
  func anUnknownAppNameListsTheInstalledApps(_ name: String, _ suggested: String?) throws {
    let router = Router(apps: [try Rooms.app()])
    let error = try #require(throws: UnderstandingError.self) { try router.app(named: name) }
    #expect(error.status == .noMatch)
    #expect(error.status.rawValue == 69)
    let guess = suggested.map { " (did you mean \"\($0)\"?)" } ?? ""
    #expect(error.message == "no installed app is called \"\(name)\"\(guess); installed: Rooms")
  }

  /// One rule for names everywhere: case, punctuation and spacing never matter; a bundle id is exact.
  @Test(arguments: ["Rooms", "rooms", "ROOMS", " rooms ", "Rooms!", "com.example.rooms"])
  func anAppAnswersToItsNamesAsSpokenWords(_ name: String) throws {
    #expect(try Router(apps: [try Rooms.app()]).app(named: name).identifier.rawValue == "com.example.rooms")
  }

  /// Under a locale an app answers to the names its InfoPlist.strings gives for it ("What can Salles do?", `phrases
  /// Salles`); the control: not without the locale, nor under another.
  @Test func underALocaleAnAppAnswersToItsTranslatedNames() throws {
    let directory = try TemporaryDirectory("assistanthost-salles")
    defer { directory.remove() }
    let rooms = try TestBundles.roomsManifests(in: directory.url)
    try "\"CFBundleDisplayName\" = \"Salles\";\n".write(
      to: rooms.appendingPathComponent("fr.lproj/InfoPlist.strings"), atomically: true, encoding: .utf8)
    let app = try AppBundle.load(from: rooms)
    for name in ["Salles", "salles", "Rooms"] {
      #expect(try Router(apps: [app], locale: "fr_FR").app(named: name).identifier.rawValue == "com.example.rooms")
    }
    for locale in [nil, "de_DE"] as [String?] {
      let error = try #require(throws: UnderstandingError.self) {
        try Router(apps: [app], locale: locale).app(named: "Salles")
      }
      #expect(error.status == .noMatch)
    }
  }

  @Test func withNoAppInstalledTheListIsNone() {
    let error = #expect(throws: UnderstandingError.self) { try Router(apps: []).app(named: "Rooms") }
    #expect(error?.message == "no installed app is called \"Rooms\"; installed: none")
  }

  @Test(arguments: ["BookRoomIntent", "BookRoom", "Book Room", "book room", "bookroom", "BOOKROOMINTENT", "bookRoom"])
  func findsTheIntentByClassDefinitionOrTitle(_ name: String) throws {
    let app = try Rooms.app()
    #expect(try Router(apps: [app]).intentClass(named: name, in: app) == "BookRoomIntent")
  }

  @Test(arguments: [
    ("CancelRoom", nil), ("Book", nil), ("Room", nil), ("BookRoomIntentIntent", "BookRoomIntent"),
    ("BookRom", "BookRoom"), ("OpenDor", "OpenDoor"),
  ])
  func anUnknownIntentNameListsTheSupportedIntents(_ name: String, _ suggested: String?) throws {
    let app = try Rooms.app()
    let error = try #require(throws: UnderstandingError.self) {
      try Router(apps: [app]).intentClass(named: name, in: app)
    }
    #expect(error.status == .noMatch)
    let guess = suggested.map { " (did you mean \"\($0)\"?)" } ?? ""
    #expect(
      error.message == "Rooms has no intent called \"\(name)\"\(guess); it supports BookRoomIntent, OpenDoorIntent")
  }

  /// A system intent (no definition of the app) is found by its class name or its name without `IN` and `Intent`.
  @Test(arguments: ["INStartWorkoutIntent", "StartWorkout", "startworkout", "INStartWorkout"])
  func findsASystemIntent(_ name: String) async throws {
    let apps = try await Rooms.installed(with: [
      { try SmallApp.build(name: "Runs", intents: [], systemIntents: ["INStartWorkoutIntent"], in: $0) }
    ])
    let router = Router(apps: apps)
    let runs = try router.app(named: "Runs")
    #expect(try router.intentClass(named: name, in: runs) == "INStartWorkoutIntent")
  }

  struct Typed: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var values: [String: ParameterValue]
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let typed: [Typed] = [
    Typed(arguments: [], values: [:]),
    Typed(arguments: ["roomNumber=12", "bookedBy=Ada"], values: ["roomNumber": 12, "bookedBy": "Ada"]),
    Typed(arguments: ["roomNumber=twelve"], values: ["roomNumber": 12]),
    Typed(arguments: ["roomNumber= 7 "], values: ["roomNumber": 7]),
    Typed(arguments: ["roomNumber=-3"], values: ["roomNumber": -3]),
    Typed(arguments: ["bookedBy=Ada Lovelace"], values: ["bookedBy": "Ada Lovelace"]),
    Typed(arguments: ["bookedBy=a=b"], values: ["bookedBy": "a=b"]),
    Typed(arguments: ["isCancellationOfBooking=yes"], values: ["isCancellationOfBooking": true]),
    Typed(arguments: ["isCancellationOfBooking=0"], values: ["isCancellationOfBooking": false]),
    // The definition's display names (Cancel/Book) come first: "cancel" is otherwise a no.
    Typed(arguments: ["isCancellationOfBooking=Cancel"], values: ["isCancellationOfBooking": true]),
    Typed(arguments: ["isCancellationOfBooking=cancel"], values: ["isCancellationOfBooking": true]),
    Typed(arguments: ["isCancellationOfBooking=book"], values: ["isCancellationOfBooking": false]),
    // ... and the vocabulary's synonyms.
    Typed(arguments: ["isCancellationOfBooking=unbook"], values: ["isCancellationOfBooking": true]),
    Typed(arguments: ["isCancellationOfBooking=reserve"], values: ["isCancellationOfBooking": false]),
  ]

  @Test(arguments: typed)
  func typesNameValueArguments(_ example: Typed) throws {
    let app = try Rooms.app()
    #expect(try Router(apps: [app]).values(example.arguments, intentClass: "BookRoomIntent", in: app) == example.values)
  }

  struct Refused: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var intentClass = "BookRoomIntent"
    var status: AssistantHost.ExitStatus = .usage
    var message: String
    var testDescription: String { "\(intentClass) " + arguments.joined(separator: " ") }
  }

  static let parameters = "roomNumber, bookedBy, isCancellationOfBooking"

  static let refused: [Refused] = [
    // Values that do not fit the type: usage errors naming the argument, the parameter, its type, what fits.
    Refused(
      arguments: ["roomNumber=twelvish"], message: "roomNumber=twelvish: Room number (Integer) needs a whole number"),
    Refused(arguments: ["roomNumber=12.5"], message: "roomNumber=12.5: Room number (Integer) needs a whole number"),
    Refused(arguments: ["roomNumber="], message: "roomNumber=: Room number (Integer) needs a whole number"),
    Refused(arguments: ["bookedBy= "], message: "bookedBy= : Booked by (String) needs some text"),
    Refused(
      arguments: ["isCancellationOfBooking=maybe"],
      message: "isCancellationOfBooking=maybe: Cancellation (Boolean) needs Cancel/yes or Book/no"),
    // Unknown names (names are case-sensitive) and arguments that are not name=value.
    Refused(
      arguments: ["floor=3"], message: "BookRoomIntent has no parameter \"floor\"; its parameters are \(parameters)"),
    Refused(
      arguments: ["RoomNumber=12"],
      message:
        "BookRoomIntent has no parameter \"RoomNumber\" (did you mean \"roomNumber\"?); its parameters are \(parameters)"
    ),
    Refused(arguments: ["=12"], message: "BookRoomIntent has no parameter \"\"; its parameters are \(parameters)"),
    Refused(arguments: ["roomNumber"], message: "\"roomNumber\" is not name=value (e.g. roomNumber=12)"),
    // The first bad argument is the one reported.
    Refused(
      arguments: ["roomNumber=12", "floor=3", "roomNumber=x"],
      message: "BookRoomIntent has no parameter \"floor\"; its parameters are \(parameters)"),
    // No definition to type the values with: a data error.
    Refused(
      arguments: ["roomNumber=12"], intentClass: "CancelRoomIntent", status: .dataError,
      message: "Rooms has no intent definition for CancelRoomIntent, so roomNumber= cannot be typed"),
  ]

  @Test(arguments: refused)
  func refusesValuesThatDoNotFit(_ example: Refused) throws {
    let app = try Rooms.app()
    let error = try #require(throws: UnderstandingError.self) {
      try Router(apps: [app]).values(example.arguments, intentClass: example.intentClass, in: app)
    }
    #expect(error.status == example.status)
    #expect(error.message == example.message)
  }

  /// A system intent's values are typed by the catalog (INStartWorkoutIntent: goalValue is a Decimal).
  @Test func typesASystemIntentsValuesFromTheCatalog() async throws {
    let apps = try await Rooms.installed(with: [
      { try SmallApp.build(name: "Runs", intents: [], systemIntents: ["INStartWorkoutIntent"], in: $0) }
    ])
    let router = Router(apps: apps)
    let runs = try router.app(named: "Runs")
    let values = try router.values(
      ["goalValue=5.5", "isOpenEnded=no", "workoutName=morning run"], intentClass: "INStartWorkoutIntent", in: runs)
    #expect(values == ["goalValue": .decimal(5.5), "isOpenEnded": false, "workoutName": "morning run"])
    #expect(
      try router.values(["goalValue=two and a half"], intentClass: "INStartWorkoutIntent", in: runs) == [
        "goalValue": .decimal(2.5)
      ])
    let error = try #require(throws: UnderstandingError.self) {
      try router.values(["goalValue=fivish"], intentClass: "INStartWorkoutIntent", in: runs)
    }
    #expect(error.message == "goalValue=fivish: Goal (Decimal) needs a number")
  }

  /// No JSON can carry NaN (or infinity), so `goalValue=nan` is refused here as a usage error.
  @Test(arguments: ["nan", "inf", "-infinity"])
  func aNonFiniteDecimalIsRefused(_ text: String) async throws {
    let apps = try await Rooms.installed(with: [
      { try SmallApp.build(name: "Runs", intents: [], systemIntents: ["INStartWorkoutIntent"], in: $0) }
    ])
    let router = Router(apps: apps)
    let runs = try router.app(named: "Runs")
    let accepted = try? router.values(["goalValue=\(text)"], intentClass: "INStartWorkoutIntent", in: runs)
    // The control: what is accepted must go on the wire.
    if let accepted {
      let intent = Intent(name: "INStartWorkoutIntent", identifier: "1", parameters: accepted)
      #expect(throws: EncodingError.self) { try WireCoding.encoder().encode(intent) }
    }
    #expect(accepted == nil)
  }
}
