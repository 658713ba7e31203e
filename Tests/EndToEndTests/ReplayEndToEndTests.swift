import Foundation
import TestSupport
import Testing

/// `--record FILE` and `assistant replay FILE [--update]` on the example Rooms app.
@Suite struct ReplayEndToEndTests {
  /// A booking recorded; replayed, the extension's answer has changed (the room is booked now), so the replay fails
  /// with a diff (exit 1); `--update` takes the new behaviour, which then replays clean.
  @Test func aChangedAnswerFailsWithADiffAndUpdateMakesItClean() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let transcript = host.directory.file("booking.jsonl").path
    let recorded = try await host.assistant([
      "run", "Rooms", "BookRoom", "roomNumber=12", "--answer", "Ada", "--record", transcript,
    ])
    #expect(recorded.code == 0, "\(recorded)")
    let text = try String(contentsOfFile: transcript, encoding: .utf8)
    let lines = text.split(separator: "\n")
    #expect(lines.first?.contains(#""kind":"invocation""#) == true, "\(text)")
    #expect(text.contains(#""answer":"Ada""#) && text.contains(#""peer":"RoomsUI""#), "\(text)")
    #expect(lines.last?.contains(#""exit":0"#) == true, "\(text)")

    let changed = try await host.assistant(["replay", transcript])
    #expect(changed.code == 1, "\(changed)")
    #expect(changed.stdout.hasPrefix("--- recorded\n+++ replayed\n"), "\(changed)")
    #expect(changed.stdout.contains(#"-{"kind":"assistant","say":"Room 12 is now booked by Ada."}"#), "\(changed)")
    #expect(changed.stdout.contains(#"+{"exit":1,"kind":"outcome"}"#), "\(changed)")

    let updated = try await host.assistant(["replay", transcript, "--update"])
    #expect(updated.code == 0, "\(updated)")
    let clean = try await host.assistant(["replay", transcript])
    #expect(clean.code == 0, "\(clean)")
    #expect(clean.stdout.hasSuffix("replays clean\n"), "\(clean)")
  }
}
