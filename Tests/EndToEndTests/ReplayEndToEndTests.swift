import Foundation
import TestSupport
import Testing

/// `--record FILE` and `assistant replay FILE [--update]` on the example Rooms app.
@Suite(.tags(.endToEnd)) struct ReplayEndToEndTests {
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
    #expect(changed.stdout.hasPrefix("--- recorded\n+++ replayed\n@@ -"), "\(changed)")
    // Every hunk header is a standard one: @@ -START,COUNT +START,COUNT @@.
    let headers = changed.stdout.split(separator: "\n").filter { $0.hasPrefix("@@") }
    #expect(
      !headers.isEmpty && headers.allSatisfy { $0.wholeMatch(of: /@@ -\d+,\d+ \+\d+,\d+ @@/) != nil }, "\(changed)")
    #expect(changed.stdout.contains(#"-{"kind":"assistant","say":"Room 12 is now booked by Ada."}"#), "\(changed)")
    #expect(changed.stdout.contains(#"+{"exit":1,"kind":"outcome"}"#), "\(changed)")

    let updated = try await host.assistant(["replay", transcript, "--update"])
    #expect(updated.code == 0, "\(updated)")
    let clean = try await host.assistant(["replay", transcript])
    #expect(clean.code == 0, "\(clean)")
    #expect(clean.stdout.hasSuffix("replays clean\n"), "\(clean)")
  }

  /// A run recorded just now replays clean at once (exit 0, "replays clean"), from the fresh file, nothing edited.
  /// Opening the door of a booked room changes only when its door was last opened, which the conversation never shows,
  /// so the second run says and exchanges the same (once identifiers, times and paths are normalised). The room is
  /// booked through the app, outside the recording.
  @Test func aFreshRecordingReplaysClean() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await host.assistant(["open", "Rooms", "--", "book", "21", "--by", "Ada"]).code == 0)
    let transcript = host.directory.file("door.jsonl").path
    #expect(!FileManager.default.fileExists(atPath: transcript))
    let recorded = try await host.assistant(["--record", transcript, "Open the door of room 21 with Rooms"])
    #expect(recorded.code == 0, "\(recorded)")
    #expect(recorded.stdout == "The door of room 21 is open.\n", "\(recorded)")
    // Fresh, and the extension's messages are in it: the replay has something to compare.
    let text = try String(contentsOfFile: transcript, encoding: .utf8)
    #expect(text.hasPrefix(#"{"command":"ask","kind":"invocation""#), "\(text)")
    #expect(text.contains(#""utterance":"Open the door of room 21 with Rooms""#), "\(text)")
    #expect(text.contains(#""method":"intent/handle""#) && text.contains(#""peer":"RoomsIntents""#), "\(text)")

    let replayed = try await host.assistant(["replay", transcript])
    #expect(replayed.code == 0, "\(replayed)")
    #expect(replayed.stdout == "\(transcript): replays clean\n", "\(replayed)")
    #expect(try String(contentsOfFile: transcript, encoding: .utf8) == text, "replay without --update rewrote it")
  }

  /// A booking leaves the room booked, so replayed as it is it fails with a diff (`aChangedAnswerFailsWithADiffAndUpdateMakesItClean`, the control). Undone
  /// through the app (the booking cancelled, the app group as before the recording), the fresh recording of a
  /// booking, with its recorded answer and the UI extension's card, replays clean.
  @Test func aRecordedBookingReplaysCleanOnceTheBookingIsUndone() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let transcript = host.directory.file("booking.jsonl").path
    let recorded = try await host.assistant([
      "run", "Rooms", "BookRoom", "roomNumber=30", "--answer", "Ada", "--record", transcript,
    ])
    #expect(recorded.code == 0, "\(recorded)")
    let text = try String(contentsOfFile: transcript, encoding: .utf8)
    #expect(text.contains(#""answer":"Ada""#) && text.contains(#""peer":"RoomsUI""#), "\(text)")
    let cancelled = try await host.assistant(["open", "Rooms", "--", "cancel", "30", "--by", "Ada"])
    #expect(cancelled.code == 0, "\(cancelled)")

    let replayed = try await host.assistant(["replay", transcript])
    #expect(replayed.code == 0, "\(replayed)")
    #expect(replayed.stdout == "\(transcript): replays clean\n", "\(replayed)")
  }
}
