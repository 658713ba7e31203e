import BundleManifest
import Foundation
import TestSupport
import Testing
import Understanding
import UntrustedText

@testable import AssistantHost
@testable import Understanding

/// `ClosestPhrases`: what is suggested when an utterance matches nothing. In-process.
@Suite(.tags(.unit)) struct ClosestPhrasesTests {
  static func words(_ text: String) -> [String] { ClosestPhrases.words(normalizedWords(text)) }

  /// Numbers, in digits or words, are one `#` each, however many words they take.
  @Test(arguments: [
    ("Book room 12 for Ada", ["book", "room", "#", "for", "ada"]),
    ("book room twenty one", ["book", "room", "#"]),
    ("room one hundred and five for Ada", ["room", "#", "for", "ada"]),
    ("book a room and a desk", ["book", "a", "room", "and", "a", "desk"]),
    ("room twenty-one", ["room", "#"]),
  ])
  func numbersAreOneWord(_ text: String, _ expected: [String]) {
    #expect(Self.words(text) == expected)
  }

  @Test func closenessCountsSharedWordsThenEdits() {
    func closeness(_ phrase: String, _ said: String) -> ClosestPhrases.Closeness {
      ClosestPhrases.closeness(of: Self.words(phrase), to: Self.words(said))
    }
    // Equal words count two, a misspelt one one, little words nothing; any number is as good as another.
    #expect(closeness("cancel a room", "cancel my reservation").shared == 2)
    #expect(closeness("book a room", "bok a rooom").shared == 2)
    #expect(closeness("book room 12 for Ada", "book room seven for Grace").shared == 6)
    #expect(closeness("open a door", "fly me to the moon").shared == 0)
    // Edits: two a word inserted, deleted or replaced, one a misspelling.
    #expect(closeness("book room 12", "book room 7").edits == 0)
    #expect(closeness("book room 12 for Ada", "book room 12").edits == 4)
    #expect(closeness("book a room", "bok a room").edits == 1)
    #expect(closeness("end my workout", "pause my workout").edits == 2)
    #expect(closeness("start a workout", "pause my workout").edits == 4)
    // More shared words beat fewer edits.
    #expect(closeness("book room 12 for Ada", "book room 12") > closeness("cancel room 12", "book room 12"))
  }

  struct Ranked: Sendable, CustomTestStringConvertible {
    var said: String
    var first: String
    var testDescription: String { said }
  }

  /// Each utterance said to Rooms, and the phrase suggested first. A ranking that ignores the words would give each
  /// the same first phrase; `aRankingThatIgnoresTheWordsFails` is that control.
  static let ranked: [Ranked] = [
    Ranked(said: "cancel my reservation", first: "Cancel a room with Rooms"),
    Ranked(said: "open the dor of my room", first: "Open the door of room 12 with Rooms"),
    Ranked(said: "bok a rooom", first: "Book a room with Rooms"),
    Ranked(said: "book room seven for Grace", first: "Book room 12 for Ada with Rooms"),
    Ranked(said: "unlock the door", first: "Open a door with Rooms"),
    Ranked(said: "cancel room twenty one please", first: "Cancel room 12 with Rooms"),
  ]

  static func closest(_ said: String, _ apps: [AppBundle], minimumShared: Int = 1) -> [String] {
    ClosestPhrases.closest(
      to: normalizedWords(said), in: apps, names: UtteranceMatcher(apps: apps).names(of:),
      minimumShared: minimumShared
    ).map(\.said)
  }

  @Test(arguments: ranked)
  func theClosestPhraseComesFirst(_ row: Ranked) throws {
    let suggested = Self.closest(row.said, [try Rooms.app()])
    #expect(suggested.first == row.first, "\(suggested)")
    #expect(suggested.count <= 3)
  }

  /// The control: the phrases in their listed order (what a ranking ignoring the words would suggest first) is not
  /// what these rows expect, for all but at most one of them.
  @Test func aRankingThatIgnoresTheWordsFails() throws {
    let app = try Rooms.app()
    let listedFirst = try #require(
      ClosestPhrases.candidates(of: app, names: UtteranceMatcher(apps: [app]).names(of: app)).first?.said)
    #expect(listedFirst == "Book room 12 for Ada with Rooms")
    #expect(Self.ranked.filter { $0.first != listedFirst }.count >= Self.ranked.count - 1)
    #expect(Set(Self.ranked.map(\.first)).count >= 5)
  }

  /// The phrases to suggest: each once (same words, little words aside), titles with example values, system phrases
  /// only without a slot, each with the app's name.
  @Test func candidatesAreSayable() throws {
    let app = try Rooms.app()
    let said = ClosestPhrases.candidates(of: app, names: UtteranceMatcher(apps: [app]).names(of: app)).map(\.said)
    #expect(
      said == [
        "Book room 12 for Ada with Rooms", "Cancel room 12 for Ada with Rooms", "Book a room with Rooms",
        "Open the door of room 12 with Rooms", "Open a door with Rooms", "Cancel a room with Rooms",
        "Cancel a room for Ada with Rooms", "Cancel room 12 with Rooms",
      ])
    let directory = try TemporaryDirectory("assistanthost-closest")
    defer { directory.remove() }
    let ascent = try AppBundle.load(
      from: SmallApp.build(
        name: "Ascent", intents: [], systemIntents: ["INStartWorkoutIntent"], in: directory.url))
    #expect(
      ClosestPhrases.candidates(of: ascent, names: ["Ascent"]).map(\.said) == [
        "Start a workout with Ascent", "Begin a workout with Ascent",
      ])
  }

  /// A phrase that shares no word is never suggested.
  @Test func nothingSharedNothingSuggested() throws {
    #expect(Self.closest("fly me to the moon", [try Rooms.app()]) == [])
    #expect(Self.closest("", [try Rooms.app()]) == [])
  }

  /// Two apps with equally close phrases: the earlier app's first, whichever order they come in.
  @Test func tiesGoToTheEarlierApp() throws {
    let directory = try TemporaryDirectory("assistanthost-closest")
    defer { directory.remove() }
    let rooms = try Rooms.app()
    let hotel = try AppBundle.load(
      from: SmallApp.build(name: "Hotel", intents: [("BookRoom", "Book a room")], in: directory.url))
    #expect(
      Self.closest("book a room please", [rooms, hotel]).prefix(2) == [
        "Book a room with Rooms", "Book a room with Hotel",
      ])
    #expect(
      Self.closest("book a room please", [hotel, rooms]).prefix(2) == [
        "Book a room with Hotel", "Book a room with Rooms",
      ])
  }

  /// No app named: only phrases close to the words are suggested (at least two words, and half of those said).
  @Test func withoutAnAppOnlyClosePhrasesAreSuggested() throws {
    let matcher = UtteranceMatcher(apps: [try Rooms.app()])
    let close = try #require(throws: UnderstandingError.self) { try matcher.match("Open the door of room 4") }
    #expect(
      close.message
        == "no installed app is named in \"Open the door of room 4\"; did you mean \"Open the door of room 12 with "
        + "Rooms\"?")
    // The control: one word shared is not close.
    let far = try #require(throws: UnderstandingError.self) { try matcher.match("Open the window") }
    #expect(
      far.message == "no installed app is named in \"Open the window\"; end it with \"with APP\" (installed: Rooms)")
  }

  /// The user's active shortcuts are candidates too, said as they are (no "with APP" added) and named (issue 14):
  /// first when they are as close as an app's phrase; the control, the same matcher without them.
  @Test func theUsersShortcutsAreSuggested() throws {
    let apps = [try Rooms.app()]
    let shortcut = ClosestPhrases.ShortcutCandidate(
      phrase: "Open my room's door", identifier: "k3", app: "com.example.rooms")
    let with = UtteranceMatcher(apps: apps, shortcuts: [shortcut])
    let without = UtteranceMatcher(apps: apps)
    // No app named.
    let noApp = try #require(throws: UnderstandingError.self) { try with.match("open my rooms door now") }
    #expect(
      noApp.message
        == "no installed app is named in \"open my rooms door now\"; did you mean \"Open my room's door\" (your "
        + "shortcut k3), \"Open the door of room 12 with Rooms\" or \"Open a door with Rooms\"?")
    let control = try #require(throws: UnderstandingError.self) { try without.match("open my rooms door now") }
    #expect(!control.message.contains("k3"), "\(control.message)")
    // The app named: its shortcuts among its closest phrases, the app's name left out when comparing.
    let named = try #require(throws: UnderstandingError.self) { try with.match("open my rooms door now with Rooms") }
    #expect(named.message.contains("closest: \"Open my room's door\" (your shortcut k3)"), "\(named.message)")
    // Another app's shortcut is not suggested for Rooms.
    var other = shortcut
    other.app = "com.example.other"
    let otherApp = try #require(throws: UnderstandingError.self) {
      try UtteranceMatcher(apps: apps, shortcuts: [other]).match("open my rooms door now with Rooms")
    }
    #expect(!otherApp.message.contains("k3"), "\(otherApp.message)")
  }

  /// A phrase is bundle text: it reaches the message as written, and the terminal only through the sanitizer.
  @Test func aSuggestedPhraseIsPrintedSanitized() throws {
    let directory = try TemporaryDirectory("assistanthost-closest")
    defer { directory.remove() }
    let app = try AppBundle.load(
      from: SmallApp.build(name: "Evil", intents: [("BookRoom", "Book a room \u{1B}[2J now")], in: directory.url))
    let error = try #require(throws: UnderstandingError.self) {
      try UtteranceMatcher(apps: [app]).match("Book a desk with Evil")
    }
    // The control: the escape is in the message, so the sanitizer is what keeps it off the terminal.
    #expect(error.message.contains("\"Book a room \u{1B}[2J now with Evil\""), "\(error.message)")
    #expect(!error.printed.contains("\u{1B}"))
    #expect(error.printed.contains("Book a room \\u{1B}[2J now with Evil"), "\(error.printed)")
  }
}
