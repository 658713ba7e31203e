import Foundation
import TestSupport
import Testing

/// An utterance is at most 4096 bytes wherever it enters (the command line, a shell line); a shell line is taken
/// whole or not at all; the shell's built-ins ignore punctuation; a question the piped shell cannot ask advises what
/// the shell can do.
@Suite(.serialized, .tags(.endToEnd))
struct UtteranceLimitEndToEndTests {
  static func isFree(_ host: HostFixture, _ number: Int) async throws -> Bool {
    try await TranscriptFileEndToEndTests.isFree(host, number)
  }

  /// "Book room N for Ada with Rooms" padded with spaces to `bytes` bytes: understood as the booking when it is said
  /// (trailing spaces do not matter), so a line cut to its start would book the room.
  static func padded(_ number: Int, to bytes: Int) -> String {
    let text = "Book room \(number) for Ada with Rooms"
    return text + String(repeating: " ", count: bytes - text.utf8.count - 1) + "."
  }

  /// Over 4096 bytes: 64, naming the length and the limit, without echoing the utterance, and nothing runs. The
  /// control: 4096 bytes are said.
  @Test func aCommandLineUtteranceIsAtMost4096Bytes() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let over = try await host.assistant([Self.padded(12, to: 4097)])
    #expect(over.code == 64, "\(over)")
    #expect(
      over.stderr == "assistant: the utterance is 4097 bytes; an utterance is at most 4096; say it in fewer words\n",
      "\(over)")
    let asked = try await host.assistant(["ask", Self.padded(12, to: 5000)])
    #expect(asked.code == 64 && asked.stderr.contains("the utterance is 5000 bytes"), "\(asked)")
    #expect(try await Self.isFree(host, 12))
    let within = try await host.assistant([Self.padded(12, to: 4096)])
    #expect(within.code == 0, "\(within)")
    #expect(try await !Self.isFree(host, 12))
  }

  /// A shell line over the limit is read to its end and dropped: neither a 70,000-byte line (once cut at 65,536
  /// bytes and the rest said) nor a 4097-byte one books its room; one message each, and the session goes on with the
  /// next line, which is said (the control).
  @Test func anOverlongShellLineIsNotSaid() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let input =
      [Self.padded(12, to: 70_000), Self.padded(13, to: 4097), "Book room 14 for Ada with Rooms"]
      .joined(separator: "\n") + "\n"
    let result = try await host.assistant(["shell"], input: input)
    #expect(result.code == 0, "\(result)")
    #expect(
      result.stderr
        == "assistant: the line is 70000 bytes; an utterance is at most 4096\n"
        + "assistant: the line is 4097 bytes; an utterance is at most 4096\n", "\(result)")
    #expect(result.stdout.hasPrefix("Room 14 is now booked by Ada."), "\(result)")
    #expect(try await Self.isFree(host, 12))
    #expect(try await Self.isFree(host, 13))
    #expect(try await !Self.isFree(host, 14))
  }

  /// `Help?` is help, `Quit!` ends the session: nothing after it runs.
  @Test func builtInsIgnorePunctuation() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    for quit in ["Quit!", "exit.", "quit."] {
      let result = try await host.assistant(["shell"], input: "Help?\n\(quit)\nBook room 12 for Ada with Rooms\n")
      #expect(result.code == 0, "\(result)")
      #expect(result.stdout.hasPrefix("Say what you want, as to Siri"), "\(result)")
      #expect(result.stderr.isEmpty, "\(result)")
      #expect(try await Self.isFree(host, 12), "\(quit) did not end the session")
    }
  }

  /// Piped, the shell cannot ask for a missing value, and says what it can do instead, never the --answer it refuses.
  @Test func aPipedShellAdvisesWhatItCanDo() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant(["shell"], input: "Book room 40 with Rooms\n")
    #expect(result.code == 0, "\(result)")
    #expect(
      result.stderr.contains(
        "but there is no terminal to ask: say it in the utterance, or run the utterance alone with "
          + "`assistant --answer VALUE \"UTTERANCE\"`"), "\(result)")
    #expect(!result.stderr.contains("give it on the command line"), "\(result)")
    // The control: a single run keeps its own advice.
    let single = try await host.assistant(["Book room 40 with Rooms"])
    #expect(single.code == 75 && single.stderr.contains("give it on the command line or with --answer VALUE"))
  }
}
