import AppGroupStore
import ExtensionProtocol
import Foundation
import TestSupport
import Testing

@testable import AssistantHost

/// Suggested shortcuts ("Add to Siri") as the host keeps them: a new list replaces the old one, an equal suggestion
/// keeps its identifier, the list is bounded; and the checks on what an untrusted app publishes.
@Suite(.tags(.unit))
struct SuggestionTests {
  static func usual(_ room: Int, phrase: String = "Book my usual room", request: String = "R") -> ShortcutSuggestion {
    ShortcutSuggestion(
      intent: Intent(
        name: "BookRoomIntent", identifier: request,
        parameters: ["roomNumber": .integer(room), "isCancellationOfBooking": .boolean(false)]),
      phrase: phrase)
  }
  static let door = ShortcutSuggestion(
    intent: Intent(name: "OpenDoorIntent", identifier: "D", parameters: ["roomNumber": .integer(12)]),
    phrase: "Open my room's door")

  @Test func aNewListReplacesTheOldOneAndAnEqualSuggestionKeepsItsIdentifier() {
    var record = SuggestionsRecord()
    #expect(record.publish([Self.usual(12), Self.door], at: 1) == ["s1", "s2"])
    // The same two again (another per-request identifier does not count), in another order: the same names, the
    // first publication time kept; the order is the new list's.
    #expect(record.publish([Self.door, Self.usual(12, request: "other")], at: 2) == ["s2", "s1"])
    #expect(record.suggestions.map(\.identifier) == ["s2", "s1"])
    #expect(record.suggestions.map(\.publishedAt) == [1, 1])
    // Control: other values, or another phrase, make a new suggestion; what the new list leaves out is gone.
    #expect(record.publish([Self.usual(14), Self.usual(12, phrase: "Book room twelve")], at: 3) == ["s3", "s4"])
    #expect(record.suggestions.map(\.identifier) == ["s3", "s4"])
    // A name is never given twice, even to a suggestion that comes back after it was dropped.
    #expect(record.publish([Self.door], at: 4) == ["s5"])
    // An exact duplicate in one list is kept once, and both get its name.
    #expect(record.publish([Self.door, Self.door], at: 5) == ["s5", "s5"])
    #expect(record.suggestions.count == 1)
    // An empty list removes them all.
    #expect(record.publish([], at: 6) == [])
    #expect(record.suggestions.isEmpty)
  }

  @Test func theListIsBounded() {
    var record = SuggestionsRecord()
    let many = (1...(DonationLimits.maximumSuggestions + 3)).map { Self.usual($0) }
    // Past the bound the rest is ignored, and gets no name (none is used up for it).
    #expect(record.publish(many, at: 1).count == DonationLimits.maximumSuggestions)
    #expect(record.nextNumber == DonationLimits.maximumSuggestions + 1)
    #expect(record.suggestions.count == DonationLimits.maximumSuggestions)
    #expect(record.suggestions.last?.suggestion.intent["roomNumber"] == .integer(DonationLimits.maximumSuggestions))
  }

  /// The store: one document per app in the host's state, read back by another store (another process would do the
  /// same); the suggestions of one app are not another's.
  @Test func theStoreKeepsSuggestionsPerApp() async throws {
    let directory = try TemporaryDirectory("suggestions")
    defer { directory.remove() }
    try await offThePool {
      let home = try AssistantHome(root: directory.file("home").path, environment: [:])
      let store = DonationStore(home: home, clock: .stopped(at: 100))
      #expect(try store.suggestions(of: "com.example.rooms").isEmpty)
      #expect(try store.setSuggestions([Self.usual(12), Self.door], for: "com.example.rooms") == ["s1", "s2"])
      #expect(try store.setSuggestions([Self.door], for: "com.example.other") == ["s1"])
      let again = DonationStore(home: home)
      #expect(try again.suggestions(of: "com.example.rooms").map(\.suggestion) == [Self.usual(12), Self.door])
      #expect(try again.suggestions(of: "com.example.rooms").map(\.publishedAt) == [100, 100])
      #expect(try again.setSuggestions([Self.door], for: "com.example.rooms") == ["s2"])
      #expect(try store.suggestions(of: "com.example.rooms").map(\.identifier) == ["s2"])
      #expect(try store.suggestions(of: "com.example.other").map(\.identifier) == ["s1"])
      #expect(
        FileManager.default.fileExists(atPath: home.state.appendingPathComponent("suggestions").path))
    }
  }

  // MARK: - What an untrusted app may publish

  @Test func wellFormedSuggestionsAreAccepted() {
    // The control of every refusal below: Rooms' two, a system intent, the longest phrase, the most suggestions.
    #expect(
      DonationTests.rules.problem(SetShortcutSuggestionsRequest(suggestions: [Self.usual(12), Self.door])) == nil)
    let system = ShortcutSuggestion(
      intent: Intent(name: "INStartWorkoutIntent", identifier: "1", parameters: ["workoutName": .string("Run")]),
      phrase: "Go running")
    #expect(DonationTests.rules.problem(SetShortcutSuggestionsRequest(suggestions: [system])) == nil)
    let longest = Self.usual(12, phrase: String(repeating: "a", count: DonationLimits.maximumPhraseLength))
    #expect(DonationTests.rules.problem(SetShortcutSuggestionsRequest(suggestions: [longest])) == nil)
    let most = (1...DonationLimits.maximumSuggestions).map { Self.usual($0) }
    #expect(DonationTests.rules.problem(SetShortcutSuggestionsRequest(suggestions: most)) == nil)
    #expect(DonationTests.rules.problem(SetShortcutSuggestionsRequest(suggestions: [])) == nil)
  }

  @Test(
    arguments: [
      ("blank phrase", [usual(12, phrase: " \t")], "suggestions[0].phrase is blank"),
      ("empty phrase", [usual(12, phrase: "")], "suggestions[0].phrase is blank"),
      ("no word", [door, usual(12, phrase: "?! …")], "suggestions[1].phrase has no word"),
      (
        "long phrase", [usual(12, phrase: String(repeating: "a", count: DonationLimits.maximumPhraseLength + 1))],
        "suggestions[0].phrase is 201 Unicode scalars long; the limit is 200"
      ),
      ("escape", [usual(12, phrase: "Book \u{1B}[2J room")], "suggestions[0].phrase contains a control character"),
      ("bidi", [usual(12, phrase: "Book \u{202E}moor")], "suggestions[0].phrase contains a control character"),
      ("newline", [usual(12, phrase: "Book\nroom")], "suggestions[0].phrase contains a control character"),
      (
        "unknown intent",
        [ShortcutSuggestion(intent: Intent(name: "PayEveryoneIntent", identifier: "1"), phrase: "Pay")],
        "suggestions[0].intent.name: PayEveryoneIntent is neither"
      ),
      (
        "wrong type",
        [
          ShortcutSuggestion(
            intent: Intent(name: "OpenDoorIntent", identifier: "1", parameters: ["roomNumber": .string("12")]),
            phrase: "Open")
        ], "suggestions[0].intent.parameters.roomNumber: expected an integer, not a string"
      ),
      (
        "undeclared parameter",
        [
          ShortcutSuggestion(
            intent: Intent(name: "OpenDoorIntent", identifier: "1", parameters: ["floor": .integer(1)]), phrase: "Open")
        ], "OpenDoorIntent has no parameter floor"
      ),
      (
        "too many", (1...(DonationLimits.maximumSuggestions + 1)).map { usual($0) },
        "suggestions has 51 items; the limit is 50"
      ),
    ] as [(String, [ShortcutSuggestion], String)])
  func hostileSuggestionsAreRefused(name: String, suggestions: [ShortcutSuggestion], problem: String) {
    let found = DonationTests.rules.problem(SetShortcutSuggestionsRequest(suggestions: suggestions))
    #expect(found?.contains(problem) == true, "\(name): \(found ?? "accepted")")
  }
}
