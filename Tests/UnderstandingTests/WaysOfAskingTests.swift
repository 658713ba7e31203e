import BundleManifest
import ExtensionProtocol
import Foundation
import Testing

@testable import Understanding

/// The common ways of asking (issue 26): the app addressed before the request ("use Rooms to …", "tell Rooms to …",
/// "open Rooms and …", "ask Rooms to …"), and a wake phrase before it all ("Hey Siri, …", "Siri …"), in any case. The
/// controls: a wake phrase elsewhere is words of the request, an addressing verb followed by no app's name is a word
/// of the request, and an unknown app after one is not understood. In-process: nothing runs.
@Suite(.tags(.unit)) struct WaysOfAskingTests {
  /// Rooms, and Spa, whose one intent's title starts with "use": `Use ${value}`.
  static let apps: [AppBundle] = {
    let directory = try! TemporaryDirectory("assistanthost-ways-of-asking")
    defer { directory.remove() }
    return [
      try! AppBundle.load(from: TestBundles.roomsManifests(in: directory.url)),
      try! AppBundle.load(from: SmallApp.build(name: "Spa", intents: [("Use", "Use ${value}")], in: directory.url)),
    ]
  }()

  static let cancel = "isCancellationOfBooking"

  struct Said: Sendable, CustomTestStringConvertible {
    var utterance: String
    var app = "com.example.rooms"
    var intentClass = "BookRoomIntent"
    var values: [String: ParameterValue]
    var testDescription: String { utterance }
  }

  static func book(_ utterance: String, _ values: [String: ParameterValue]) -> Said {
    Said(utterance: utterance, values: values)
  }
  static func door(_ utterance: String, _ room: Int) -> Said {
    Said(utterance: utterance, intentClass: "OpenDoorIntent", values: ["roomNumber": .integer(room)])
  }

  static let understood: [Said] = [
    // The app addressed first: the rest is the request, as if the app had been named last.
    book("use Rooms to book room 12 for Ada", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("Use rooms to book room 12 for Ada", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("USE ROOMS TO CANCEL ROOM 12 FOR ADA", [cancel: true, "roomNumber": 12, "bookedBy": "ADA"]),
    book("use com.example.rooms to book room 12", [cancel: false, "roomNumber": 12]),
    book("tell Rooms to book room 12 for Ada", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    door("Tell ROOMS to open the door of room 2", 2),
    book("open Rooms and book room 12 for Ada", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    door("Open Rooms and open the door of room 3", 3),
    book("Ask Rooms to book room 12 for Ada", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    // A wake phrase first, with or without its comma, in any case.
    book("Hey Siri, book room 12 for Ada with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("hey siri book room 12 for Ada with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("HEY SIRI, BOOK ROOM 12 WITH ROOMS", [cancel: false, "roomNumber": 12]),
    book("Hey, Siri: book room 12 with Rooms", [cancel: false, "roomNumber": 12]),
    book("Siri, book room 12 for Ada with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("siri book room 12 for Ada with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("Hey Siri, use Rooms to book room 12 for Ada", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("Siri, Rooms, book room 12 for Ada", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    // The controls: a wake phrase elsewhere is words of the request.
    book("Book room 12 for Hey Siri with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Hey Siri"]),
    book("Book room 12 for Ada, hey Siri, with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Ada, hey Siri"]),
    // The controls: "use" followed by no app's name is a word of the request, and the app named last wins over one
    // named after "use" without "to".
    Said(
      utterance: "Use the sauna with Spa", app: "com.example.spa", intentClass: "UseIntent",
      values: ["value": "the sauna"]),
    Said(utterance: "Use rooms with Spa", app: "com.example.spa", intentClass: "UseIntent", values: ["value": "rooms"]),
  ]

  @Test(arguments: understood)
  func eachWayIsUnderstood(_ row: Said) throws {
    let match = try UtteranceMatcher(apps: Self.apps).match(row.utterance)
    #expect(match.app.identifier.rawValue == row.app)
    #expect(match.intentClass == row.intentClass)
    #expect(match.values == row.values)
  }

  /// An unknown app after an addressing verb is not understood (exit 69): a name close to an installed one is
  /// reported with "did you mean", another one gets the closest phrases. Without "to", "use Rooms" is no way of
  /// naming Rooms.
  @Test func anUnknownAppAfterAnAddressingVerbIsNotUnderstood() throws {
    let matcher = UtteranceMatcher(apps: Self.apps)
    let close = try #require(throws: UnderstandingError.self) { try matcher.match("use Roms to book room 12 for Ada") }
    #expect(close.kind == .noMatch)
    #expect(
      close.message
        == "\"use Roms to book room 12 for Ada\": no installed app is called \"Roms\" (did you mean \"Rooms\"?); "
        + "installed: Rooms, Spa")
    let told = try #require(throws: UnderstandingError.self) { try matcher.match("open Roms and book room 12") }
    #expect(told.message.hasPrefix("\"open Roms and book room 12\": no installed app is called \"Roms\""), "\(told)")
    for utterance in ["use Hotels to book room 12 for Ada", "use Rooms book room 12 for Ada"] {
      let error = try #require(throws: UnderstandingError.self) { try matcher.match(utterance) }
      #expect(error.kind == .noMatch)
      #expect(error.message.hasPrefix("no installed app is named in \"\(utterance)\""), "\(error)")
    }
  }

  /// The app addressed and nothing asked; a wake phrase and nothing asked.
  @Test func nothingAsked() throws {
    let matcher = UtteranceMatcher(apps: Self.apps)
    for utterance in ["use Rooms to", "tell Rooms", "Hey Siri, use Rooms", "open Rooms and"] {
      let error = try #require(throws: UnderstandingError.self) { try matcher.match(utterance) }
      #expect(error.kind == .noMatch)
      #expect(error.message.hasPrefix("you named Rooms but did not say what to do"), "\(utterance): \(error)")
    }
    for utterance in ["Hey Siri", "siri,", "Hey Siri!"] {
      let error = try #require(throws: UnderstandingError.self) { try matcher.match(utterance) }
      #expect(error.kind == .usage, "\(utterance): \(error)")
    }
  }

  /// The wake phrase itself: removed from the start only, once, with the punctuation after it; a word that only
  /// begins like it is no wake phrase.
  @Test func theWakePhrase() {
    #expect(WakePhrase.removed(from: "Hey Siri, book room 12") == "book room 12")
    #expect(WakePhrase.removed(from: "  hey SIRI book room 12") == "book room 12")
    #expect(WakePhrase.removed(from: "Siri; Rooms, book room 12") == "Rooms, book room 12")
    #expect(WakePhrase.removed(from: "Hey Siri") == "")
    #expect(WakePhrase.removed(from: "Hey Siri, Siri, book") == "Siri, book")
    // The controls.
    #expect(WakePhrase.removed(from: "Book room 12 for Siri") == "Book room 12 for Siri")
    #expect(WakePhrase.removed(from: "Sirius, book room 12") == "Sirius, book room 12")
    #expect(WakePhrase.removed(from: "Hey Rooms, book room 12") == "Hey Rooms, book room 12")
  }

  /// "Hey Siri, what can you do?" is the capability question.
  @Test func aWakePhraseBeforeACapabilityQuestion() {
    #expect(PhraseBook.capabilityQuestion("Hey Siri, what can you do?") == .some(nil))
    #expect(PhraseBook.capabilityQuestion("Siri, what can I say to Rooms?") == .some("Rooms"))
    // The control: not after the question.
    #expect(PhraseBook.capabilityQuestion("what can you do, hey Siri?") == nil)
  }
}
