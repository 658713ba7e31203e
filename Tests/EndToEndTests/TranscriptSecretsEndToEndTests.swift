import Foundation
import TestSupport
import Testing

/// A passcode never reaches a transcript (`--record FILE`): not the unlock passcode given with `--passcode-stdin`,
/// not the approval given with `--authentication-stdin`, not a wrong one. The file's bytes are searched for the
/// passcode's text; the controls: the same run's stdin held it, and an ordinary answer of the same run is in the file,
/// so a passcode written like an answer would be found.
@Suite(.serialized, .tags(.endToEnd))
struct TranscriptSecretsEndToEndTests {
  /// A passcode whose digits appear nowhere else in a transcript (times have three decimals, ids are UUIDs).
  static let passcode = "97531"

  func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

  func contains(_ data: Data, _ text: String) -> Bool { data.range(of: Data(text.utf8)) != nil }

  /// Locked, the restricted OpenDoor intent unlocks with `--passcode-stdin`; the room is asked for and answered with
  /// `--answer twenty-one` (the control). The transcript says "[passcode]" where the passcode was answered. A wrong
  /// passcode, refused (77), is not written either, nor in the recorded error.
  @Test func theUnlockPasscodeIsNotRecorded() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await host.assistant(["Book room 21 for Ada with Rooms"]).code == 0)
    let set = try await host.assistant(["passcode", "set", "--passcode-stdin"], input: Self.passcode + "\n")
    #expect(set.code == 0, "\(set)")
    #expect(try await host.assistant(["lock"]).code == 0)

    let transcript = host.directory.file("door.jsonl").path
    let input = Self.passcode + "\n"
    let opened = try await host.assistant(
      ["--record", transcript, "--passcode-stdin", "--answer", "twenty-one", "Open a door with Rooms"], input: input)
    #expect(opened.code == 0, "\(opened)")
    #expect(opened.stdout == "The door of room 21 is open.\n", "\(opened)")
    // The passcode was used: it unlocked the device.
    let status = try await host.assistant(["status", "--json"])
    #expect(status.stdout.contains(#""locked":false"#), "\(status)")

    let recorded = try bytes(transcript)
    #expect(!contains(recorded, Self.passcode), "\(String(decoding: recorded, as: UTF8.self))")
    #expect(contains(recorded, #""answer":"[passcode]""#) && contains(recorded, #""passcode":"unlock""#))
    // The controls: the run's stdin held the passcode, and its ordinary answer was written.
    #expect(input.contains(Self.passcode))
    #expect(contains(recorded, #""answer":"twenty-one""#), "\(String(decoding: recorded, as: UTF8.self))")

    // A wrong passcode (the right one with a digit added), refused: neither it nor the right one is written.
    #expect(try await host.assistant(["lock"]).code == 0)
    let wrongTranscript = host.directory.file("wrong.jsonl").path
    let wrongPasscode = Self.passcode + "8"
    let wrong = try await host.assistant(
      ["--record", wrongTranscript, "--passcode-stdin", "Open the door of room 21 with Rooms"],
      input: wrongPasscode + "\n")
    #expect(wrong.code == 77, "\(wrong)")
    let refused = try bytes(wrongTranscript)
    #expect(!contains(refused, Self.passcode), "\(String(decoding: refused, as: UTF8.self))")
    #expect(contains(refused, #""answer":"[passcode]""#))
    #expect(contains(refused, #""exit":77"#), "\(String(decoding: refused, as: UTF8.self))")
  }

  /// An extension's authentication request (the AuthExtension fixture's `requestAuthentication`), approved with
  /// `--authentication-stdin`: the transcript has the question, "[passcode]" and the messages to and from the
  /// extension, never the passcode. The control: the intent's value ("20 €"), sent to the extension, is in it.
  @Test func theAuthenticationPasscodeIsNotRecorded() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fixture(
      extensionName: "AuthInHandle", binary: "AuthExtension", in: host.directory.file("bundles"))
    #expect(try await host.assistant(["install", app.path]).code == 0)
    let set = try await host.assistant(["passcode", "set", "--passcode-stdin"], input: Self.passcode + "\n")
    #expect(set.code == 0, "\(set)")

    let transcript = host.directory.file("ping.jsonl").path
    let input = Self.passcode + "\n"
    let approved = try await host.assistant(
      ["run", "Fixture", "Ping", "value=20 €", "--authentication-stdin", "--record", transcript], input: input)
    #expect(approved.code == 0, "\(approved)")
    #expect(approved.stdout == "Got approved.\n", "\(approved)")

    let recorded = try bytes(transcript)
    let text = String(decoding: recorded, as: UTF8.self)
    #expect(!contains(recorded, Self.passcode), "\(text)")
    #expect(
      contains(recorded, #""passcode":"authentication""#) && contains(recorded, #""answer":"[passcode]""#), "\(text)")
    #expect(text.contains("requestAuthentication"), "\(text)")
    // The controls: stdin held the passcode; the intent's value went into the transcript.
    #expect(input.contains(Self.passcode))
    #expect(text.contains("20 €"), "\(text)")
  }
}
