import Foundation
import TestSupport
import Testing

/// What the answer says: the printed and the voice dialog, and scripted answers that were never asked for.
@Suite(.serialized, .tags(.endToEnd))
struct DialogEndToEndTests {
  func host() async throws -> HostFixture {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: "Polite", in: host.directory.file("b"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return host
  }

  /// `--voice` says the concise template; without it, the printed one (the control); `--json` carries both.
  @Test func voiceSaysTheConciseDialog() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let printed = try await host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(printed.code == 0, "\(printed)")
    #expect(printed.stdout == "Got pong.\n", "\(printed)")
    let voiced = try await host.assistant(["--voice", "run", "Fixture", "Ping", "value=x"])
    #expect(voiced.code == 0, "\(voiced)")
    #expect(voiced.stdout == "pong.\n", "\(voiced)")
    let json = try await host.assistant(["--json", "run", "Fixture", "Ping", "value=x"])
    let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    #expect(object?["dialog"] as? String == "Got pong.", "\(json)")
    #expect(object?["voiceDialog"] as? String == "pong.", "\(json)")
  }

  /// A definition without a concise template: the voice dialog is the printed one.
  @Test func withoutAConciseTemplateTheVoiceDialogIsThePrintedOne() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant([
      "--voice", "--json", "run", "Rooms", "BookRoom", "roomNumber=9", "bookedBy=Ada",
    ])
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    #expect(object?["voiceDialog"] as? String == object?["dialog"] as? String, "\(result)")
    #expect(object?["dialog"] as? String == "Room 9 is now booked by Ada.", "\(result)")
  }

  /// Scripted answers nobody asked for are an error at the end of the run (64), each named; the control, with every
  /// answer used, exits 0.
  @Test func leftoverAnswersAreAnError() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let leftover = try await host.assistant([
      "--answer", "spare", "--answer", "other", "run", "Fixture", "Ping", "value=x",
    ])
    #expect(leftover.code == 64, "\(leftover)")
    #expect(leftover.stdout == "Got pong.\n", "\(leftover)")  // the run itself happened
    #expect(
      leftover.stderr.contains(
        #"2 answers were not used (no question was asked for --answer "spare", --answer "other")"#),
      "\(leftover)")
    try await host.installRooms()
    let control = try await host.assistant(["--answer", "Ada", "run", "Rooms", "BookRoom", "roomNumber=9"])
    #expect(control.code == 0, "\(control)")
    #expect(control.stdout.hasPrefix("Room 9 is now booked by Ada."), "\(control)")
  }
}
