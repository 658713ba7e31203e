import AssistantHost
import Foundation
import TestSupport
import Testing

/// Donations through the real binaries: RoomsKit donates through `IntentDonating` when a booking succeeds, in the
/// Rooms Intents extension (on its protocol connection) and in the Rooms app (on its host channel, fd 3); the host
/// keeps them in its own state.
@Suite(.tags(.endToEnd))
struct DonationEndToEndTests {
  func donations(_ host: HostFixture) async throws -> [StoredDonation] {
    try await offThePool {
      try DonationStore(home: AssistantHome(root: host.home, environment: [:])).donations(of: "com.example.rooms")
    }
  }

  @Test func aBookingThroughSiriIsDonatedByTheExtension() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await donations(host).isEmpty)  // control: nothing before
    let booked = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(booked.code == 0, "\(booked)")
    let kept = try await donations(host)
    #expect(kept.count == 1, "\(kept)")
    #expect(kept.first?.interaction.intent.name == "BookRoomIntent")
    #expect(kept.first?.interaction.intent["roomNumber"] == .integer(12))
    #expect(kept.first?.interaction.intent["bookedBy"] == .string("Ada"))
    #expect(kept.first?.groupIdentifier == "bookings")
    // A failed booking (the room is taken) donates nothing more.
    let again = try await host.assistant(["Book room 12 for Grace with Rooms"])
    #expect(again.code != 0 || again.stdout.contains("already"), "\(again)")
    #expect(try await donations(host).count == 1)
  }
}

extension DonationEndToEndTests {
  @Test func aBookingInTheAppIsDonatedOnItsHostChannel() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let booked = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Ada"])
    #expect(booked.code == 0, "\(booked)")
    #expect(!booked.stderr.contains("not donated"), "\(booked)")
    var kept = try await donations(host)
    #expect(kept.count == 1, "\(kept)")
    #expect(kept.first?.interaction.intent["roomNumber"] == .integer(12))
    #expect(kept.first?.interaction.response?.code == .success)
    // The cancellation is another donation (isCancellationOfBooking is true); booking room 12 again is the same
    // donation as the first, kept once, now the newest.
    let cancelled = try await host.assistant(["open", "Rooms", "--", "cancel", "12", "--by", "Ada"])
    #expect(cancelled.code == 0, "\(cancelled)")
    let again = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Ada"])
    #expect(again.code == 0, "\(again)")
    kept = try await donations(host)
    #expect(kept.count == 2, "\(kept)")
    #expect(kept.map { $0.interaction.intent["isCancellationOfBooking"] } == [.boolean(true), .boolean(false)])
  }
}

extension DonationEndToEndTests {
  /// A donation is dated by the host's clock, `INTENTHOST_CLOCK_OFFSET` included, as the device record is.
  @Test func aDonationIsDatedByTheHostsClock() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let day = 86400.0
    let before = Date().timeIntervalSince1970
    let shifted = try await host.assistant(
      ["open", "Rooms", "--", "book", "12", "--by", "Ada"], environment: ["INTENTHOST_CLOCK_OFFSET": "\(Int(day))"])
    #expect(shifted.code == 0, "\(shifted)")
    let plain = try await host.assistant(["open", "Rooms", "--", "book", "14", "--by", "Ada"])
    #expect(plain.code == 0, "\(plain)")
    let after = Date().timeIntervalSince1970
    let kept = try await donations(host)
    #expect(kept.count == 2, "\(kept)")
    #expect(kept.count == 2 && (before + day...after + day).contains(kept[0].donatedAt), "\(kept)")
    #expect(kept.count == 2 && (before...after).contains(kept[1].donatedAt), "control: \(kept)")
  }
}

/// An app that writes its own lines on its host channel: what breaks the rules is refused and nothing of it is kept;
/// the well-formed donation beside them (the control) is kept; a line past the channel's limit closes the channel
/// while the app runs on.
@Suite(.tags(.endToEnd))
struct HostileDonationEndToEndTests {
  static func donation(_ parameters: String, name: String = "PingIntent", id: Int = 1) -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"host/donate","params":{"interaction":{"intent":{"name":"\#(name)","identifier":"x","parameters":{\#(parameters)}}}}}"#
  }

  func fixture() async throws -> HostFixture {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: "Polite", in: host.directory.file("b"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return host
  }

  func donations(_ host: HostFixture) async throws -> [StoredDonation] {
    try await offThePool {
      try DonationStore(home: AssistantHome(root: host.home, environment: [:])).donations(of: "com.example.fixture")
    }
  }

  @Test func hostileDonationsAreRefusedAndTheControlIsKept() async throws {
    let host = try await fixture()
    defer { host.directory.remove() }
    let lines = [
      Self.donation(#""value":{"type":"string","value":"hi"}"#, id: 1),  // the control
      Self.donation("", name: "PayEveryoneIntent", id: 2),
      Self.donation(#""value":{"type":"integer","value":3}"#, id: 3),
      Self.donation(#""value":{"type":"string","value":"\#(String(repeating: "A", count: 20000))"}"#, id: 4),
      Self.donation(#""value":{"type":"string","value":"a\u001b[2Jb"}"#, id: 5),
      #"{"jsonrpc":"2.0","id":6,"method":"host/setVocabulary","params":{"type":"petName","strings":["Rex"]}}"#,
      #"{"jsonrpc":"2.0","id":7,"method":"host/requestAuthentication","params":{"reason":"Pay"}}"#,
    ]
    let result = try await host.assistant(["open", "Fixture", "--", "host-channel"] + lines)
    #expect(result.code == 0, "\(result)")
    let answers = result.stdout.split(separator: "\n").map(String.init)
    #expect(answers.count == 7, "\(result)")
    guard answers.count == 7 else { return }
    #expect(answers[0].contains(#""result":{"identifier":"d1"}"#), "\(answers[0])")
    #expect(answers[1].contains("-32602") && answers[1].contains("PayEveryoneIntent is neither"), "\(answers[1])")
    #expect(answers[2].contains("-32602") && answers[2].contains("expected a string"), "\(answers[2])")
    #expect(answers[3].contains("-32602") && answers[3].contains("the limit is 16384"), "\(answers[3])")
    // Text with escape sequences is kept as data (it is shown only through the sanitizer): accepted.
    #expect(answers[4].contains(#""result""#), "\(answers[4])")
    #expect(answers[5].contains("-32602") && answers[5].contains("not a vocabulary type"), "\(answers[5])")
    #expect(answers[6].contains("-32601"), "\(answers[6])")
    let kept = try await donations(host)
    #expect(kept.map(\.identifier) == ["d1", "d2"], "\(kept)")
  }

  @Test func aLinePastTheLimitClosesTheChannelAndTheAppRunsOn() async throws {
    let host = try await fixture()
    defer { host.directory.remove() }
    let huge = Self.donation(#""value":{"type":"string","value":"\#(String(repeating: "A", count: 70000))"}"#)
    let result = try await host.assistant([
      "open", "Fixture", "--", "host-channel", huge, Self.donation(#""value":{"type":"string","value":"hi"}"#),
    ])
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == "EOF\nEOF\n", "\(result)")
    #expect(try await donations(host).isEmpty)
    let log = try String(contentsOfFile: host.home + "/Logs/com.example.fixture.log", encoding: .utf8)
    #expect(log.contains("the host channel was closed"), "\(log)")
  }
}
