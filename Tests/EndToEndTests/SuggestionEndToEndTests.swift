import AssistantHost
import ExtensionProtocol
import Foundation
import TestSupport
import Testing

/// Suggested shortcuts through the real binaries: the Rooms app publishes its two through `ShortcutSuggesting` on its
/// host channel after every command; what breaks the rules is refused and keeps nothing.
@Suite(.tags(.endToEnd))
struct SuggestionEndToEndTests {
  func suggestions(_ host: HostFixture, of app: String = "com.example.rooms") async throws -> [StoredSuggestion] {
    try await offThePool {
      try DonationStore(home: AssistantHome(root: host.home, environment: [:])).suggestions(of: app)
    }
  }

  @Test func theRoomsAppPublishesItsSuggestionsForTheNewestBooking() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await suggestions(host).isEmpty)  // control: nothing before the app runs
    // Any command publishes them; with no booking, without values.
    let listed = try await host.assistant(["open", "Rooms", "--", "list"])
    #expect(listed.code == 0 && !listed.stderr.contains("not published"), "\(listed)")
    var kept = try await suggestions(host)
    #expect(kept.map(\.identifier) == ["s1", "s2"], "\(kept)")
    #expect(kept.map(\.suggestion.phrase) == ["Book my usual room", "Open my room's door"])
    #expect(kept.first?.suggestion.intent.parameters == ["isCancellationOfBooking": .boolean(false)])
    #expect(kept.last?.suggestion.intent.parameters == [:])
    // A booking: the usual room is the one just booked, for the same person; its door is that room's.
    let booked = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Ada"])
    #expect(booked.code == 0, "\(booked)")
    kept = try await suggestions(host)
    #expect(kept.map(\.identifier) == ["s3", "s4"], "\(kept)")
    #expect(kept.map(\.suggestion.intent.name) == ["BookRoomIntent", "OpenDoorIntent"])
    #expect(
      kept.first?.suggestion.intent.parameters
        == ["roomNumber": .integer(12), "bookedBy": .string("Ada"), "isCancellationOfBooking": .boolean(false)])
    #expect(kept.last?.suggestion.intent.parameters == ["roomNumber": .integer(12)])
    // The same suggestions published again (another command, nothing new booked) keep their names.
    let shown = try await host.assistant(["open", "Rooms", "--", "show", "12"])
    #expect(shown.code == 0, "\(shown)")
    #expect(try await suggestions(host).map(\.identifier) == ["s3", "s4"])
    // A command that fails publishes them too.
    let refused = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Grace"])
    #expect(refused.code == 1, "\(refused)")
    #expect(!refused.stderr.contains("not published"), "\(refused)")
    #expect(try await suggestions(host).map(\.identifier) == ["s3", "s4"])
  }
}

/// An app that writes its own `host/setShortcutSuggestions` lines on its host channel: each refusal keeps nothing
/// (the list published before it stays), the well-formed one (the control) replaces the list.
@Suite(.tags(.endToEnd))
struct HostileSuggestionEndToEndTests {
  static func suggest(_ suggestions: [String], id: Int) -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"host/setShortcutSuggestions","params":{"suggestions":[\#(suggestions.joined(separator: ","))]}}"#
  }
  static func ping(_ phrase: String, name: String = "PingIntent", value: String = "hi") -> String {
    #"{"intent":{"name":"\#(name)","identifier":"x","parameters":{"value":{"type":"string","value":"\#(value)"}}},"phrase":"\#(phrase)"}"#
  }

  @Test func hostileSuggestionsAreRefusedAndKeepNothing() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fixture(extensionName: "Polite", in: host.directory.file("b"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    let lines = [
      Self.suggest([Self.ping("Ping it")], id: 1),  // the control
      Self.suggest([Self.ping("Pay everyone", name: "PayEveryoneIntent")], id: 2),
      Self.suggest(Array(repeating: Self.ping("Ping"), count: DonationLimits.maximumSuggestions + 1), id: 3),
      Self.suggest([Self.ping("Ping", value: String(repeating: "A", count: 900))], id: 4),
      Self.suggest(Array(repeating: Self.ping("Ping", value: String(repeating: "A", count: 900)), count: 40), id: 5),
      Self.suggest([Self.ping(#"Ping \u001b]0;title\u0007"#)], id: 6),
      Self.suggest([Self.ping("!!!")], id: 7),
    ]
    let result = try await host.assistant(["open", "Fixture", "--", "host-channel"] + lines)
    #expect(result.code == 0, "\(result)")
    let answers = result.stdout.split(separator: "\n").map(String.init)
    #expect(answers.count == 7, "\(result)")
    guard answers.count == 7 else { return }
    #expect(answers[0].contains(#""result":{"identifiers":["s1"]}"#), "\(answers[0])")
    #expect(answers[1].contains("-32602") && answers[1].contains("PayEveryoneIntent is neither"), "\(answers[1])")
    #expect(answers[2].contains("-32602") && answers[2].contains("the limit is 50"), "\(answers[2])")
    // A message of about 1 KB is accepted (another control: it replaces the list), one past 32768 bytes is not.
    #expect(answers[3].contains(#""result":{"identifiers":["s2"]}"#), "\(answers[3])")
    #expect(answers[4].contains("-32602") && answers[4].contains("the limit is 32768"), "\(answers[4])")
    #expect(answers[5].contains("-32602") && answers[5].contains("control character"), "\(answers[5])")
    #expect(answers[6].contains("-32602") && answers[6].contains("has no word"), "\(answers[6])")
    let kept = try await offThePool {
      try DonationStore(home: AssistantHome(root: host.home, environment: [:])).suggestions(of: "com.example.fixture")
    }
    #expect(kept.map(\.identifier) == ["s2"], "\(kept)")
  }
}
