import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// `assistant shell` with stdin a pipe the test writes one line at a time, so that it can wait for what the session
/// did (an idle shutdown in a log, a dialog line) before it sends the next; stdout and stderr go to files.
final class PipedShell: Sendable {
  let process: SpawnedProcess
  private let input: FileDescriptor
  private let directory: TemporaryDirectory

  private init(process: SpawnedProcess, input: FileDescriptor, directory: TemporaryDirectory) {
    self.process = process
    self.input = input
    self.directory = directory
  }

  /// Starts `assistant --home HOME shell ARGUMENTS` in a session of its own (no terminal). The spawn waits for the
  /// exec: it runs off the pool.
  static func start(_ host: HostFixture, _ arguments: [String]) async throws -> PipedShell {
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    environment["CI"] = nil
    let assistant = PackagePaths.executable("assistant")
    return try await offThePool { [environment] in
      let directory = try TemporaryDirectory("intenthost-shell")
      let (read, write) = try FileDescriptor.pipe()
      defer { read.close() }
      let out = try FileDescriptor.open(directory.file("out").path, O_WRONLY | O_CREAT | O_TRUNC)
      defer { out.close() }
      let err = try FileDescriptor.open(directory.file("err").path, O_WRONLY | O_CREAT | O_TRUNC)
      defer { err.close() }
      let process = try spawn(
        SpawnOptions(
          executable: assistant, arguments: [assistant, "--home", host.home, "shell"] + arguments,
          environment: environment, standardInput: read, standardOutput: out, standardError: err))
      return PipedShell(process: process, input: write, directory: directory)
    }
  }

  /// Sends one line, as if typed.
  func send(_ line: String) async throws {
    let input = input
    try await offThePool { () throws(SystemError) in try input.writeAll(Array((line + "\n").utf8)) }
  }

  /// What the session printed on stdout so far.
  var stdout: String { (try? String(contentsOf: directory.file("out"), encoding: .utf8)) ?? "" }

  /// Ends the input (Ctrl-D) and waits for the session's end; with `keepingInput`, waits for the session to end by
  /// itself (after a signal) before closing the input, so that the end of input cannot end it first.
  func finish(keepingInput: Bool = false) async throws -> CommandResult {
    if !keepingInput { input.close() }
    let termination: Termination
    do {
      termination = try await waitForExit(process, timeout: .seconds(60))
    } catch {
      if keepingInput { input.close() }
      throw error
    }
    if keepingInput { input.close() }
    let result = try await offThePool {
      CommandResult(
        status: termination, stdout: try String(contentsOf: self.directory.file("out"), encoding: .utf8),
        stderr: try String(contentsOf: self.directory.file("err"), encoding: .utf8), pid: self.process.pid)
    }
    directory.remove()
    return result
  }
}

/// `assistant shell`: a session of utterances over extensions kept running between them, with an idle timeout.
///
/// Whether an extension was started again is read from its log: each launch writes `--- ... NAME started, pid N`
/// there (a line an extension cannot forge), and an idle shutdown `--- host: idle for ...`.
@Suite(.serialized, .tags(.endToEnd))
struct ShellEndToEndTests {
  static let booked12 = "Room 12 is now booked by Ada.\n[RoomsUI]\n  Room 12\n  Status: Booked by Ada\n"
  static let cancelled12 =
    "The booking of room 12 by Ada is cancelled.\n[RoomsUI]\n  Room 12\n  Status: Free (Ada's booking cancelled)\n"

  /// How many times the log of `name` (com.example.rooms.RoomsIntents) records a start.
  static func starts(_ host: HostFixture, _ log: String, name: String) -> Int {
    let text = (try? String(contentsOfFile: host.home + "/Logs/\(log).log", encoding: .utf8)) ?? ""
    return text.split(separator: "\n").filter { $0.hasPrefix("--- ") && $0.contains(" \(name) started, pid ") }.count
  }

  static func roomsIntentsStarts(_ host: HostFixture) -> Int {
    starts(host, "com.example.rooms.RoomsIntents", name: "RoomsIntents")
  }

  static func roomsIntentsLog(_ host: HostFixture) -> String {
    (try? String(contentsOfFile: host.home + "/Logs/com.example.rooms.RoomsIntents.log", encoding: .utf8)) ?? ""
  }

  /// Every launch of the session ended with its end line and is gone.
  func expectAllStopped(_ host: HostFixture, _ result: CommandResult) {
    for launch in ExitPathTests.launches(in: host.home) {
      #expect(launch.ended, "\(launch) has no end line\n\(result)")
      #expect(!isAlive(launch.pid), "\(launch) outlived the session\n\(result)")
    }
  }

  @Test func twoUtterancesShareOneWarmExtensionAndAnErrorDoesNotEndTheSession() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant(
      ["shell"],
      input: "Book room 12 for Ada with Rooms\nBook room 3 with Nowhere\n\n  \nCancel room 12 for Ada with Rooms\n")
    // End of input ends the session with 0, although one utterance failed.
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == Self.booked12 + Self.cancelled12, "\(result)")
    // The error of the middle line, as `assistant "Book room 3 with Nowhere"` prints it (69 there).
    #expect(
      result.stderr.contains("assistant: \"Book room 3 with Nowhere\": no installed app is called \"Nowhere\""),
      "\(result)")
    // No prompt without a terminal.
    #expect(!result.stderr.contains("assistant> "), "\(result)")
    // One RoomsIntents (and one RoomsUI) served both utterances, and was shut down at the end.
    #expect(Self.roomsIntentsStarts(host) == 1, "\(Self.roomsIntentsLog(host))")
    #expect(Self.starts(host, "com.example.rooms.RoomsUI", name: "RoomsUI") == 1)
    expectAllStopped(host, result)
    let single = try await host.assistant(["Book room 3 with Nowhere"])
    #expect(single.code == 69 && result.stderr.contains(single.stderr), "\(single)")
  }

  @Test func jsonGivesOneLinePerUtteranceAndQuitEndsTheSession() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant(
      ["shell", "--json"],
      input: [
        "Book room 12 for Ada with Rooms", "Book room 3 with Nowhere", "", "What can you do?", "help",
        "Cancel room 12 for Ada with Rooms", "quit", "Book room 14 for Grace with Rooms",
      ].joined(separator: "\n") + "\n")
    #expect(result.code == 0, "\(result)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 5, "\(result)")
    guard lines.count == 5 else { return }
    func object(_ line: String) throws -> [String: Any] {
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }
    // The same object `assistant --json "UTTERANCE"` prints.
    let single = try await host.assistant(["--json", "Book room 15 for Ada with Rooms"])
    #expect(try Set(object(lines[0]).keys) == Set(object(single.stdout).keys), "\(result)\n\(single)")
    #expect(try object(lines[0])["code"] as? String == "success")
    let error = try #require(try object(lines[1])["error"] as? [String: Any])
    #expect(error["status"] as? Int == 69 && error["kind"] as? String == "noMatch", "\(error)")
    let phrases = try #require(try object(lines[2])["apps"] as? [[String: Any]], "\(lines[2])")
    #expect(phrases.first?["name"] as? String == "Rooms", "\(lines[2])")
    #expect((try object(lines[3])["help"] as? String)?.contains("What can you do?") == true)
    #expect(try object(lines[4])["code"] as? String == "successCancelledBooking")
    // The dialog went to stderr; nothing after quit was run.
    #expect(result.stderr.contains("Room 12 is now booked by Ada."), "\(result)")
    let shown = try await host.assistant(["open", "Rooms", "--", "show", "14"])
    #expect(shown.stdout == "Room 14 is free.\n", "\(shown)")
  }

  @Test func anExtensionIdleLongerThanTheTimeoutIsShutDownAndStartedAgain() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let shell = try await PipedShell.start(host, ["--idle", "1"])
    try await shell.send("Book room 12 for Ada with Rooms")
    // The pause is the test's: the next line goes only once the idle shutdown is in the log.
    let shutDown = try await eventually(timeout: .seconds(60)) {
      Self.roomsIntentsLog(host).contains("--- host: idle for 1 s: shut down\n--- RoomsIntents exited with status 0")
    }
    #expect(shutDown, "\(Self.roomsIntentsLog(host))")
    try await shell.send("Cancel room 12 for Ada with Rooms")
    let result = try await shell.finish()
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == Self.booked12 + Self.cancelled12, "\(result)")
    #expect(Self.roomsIntentsStarts(host) == 2, "\(Self.roomsIntentsLog(host))")
    expectAllStopped(host, result)
  }

  /// The control: with a long idle time, the same pause (longer than the 1 s above) keeps the extension.
  @Test func anExtensionWithinTheIdleTimeIsKept() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let shell = try await PipedShell.start(host, ["--idle", "600"])
    try await shell.send("Book room 12 for Ada with Rooms")
    #expect(try await eventually(timeout: .seconds(60)) { shell.stdout == Self.booked12 }, "\(shell.stdout)")
    try await Task.sleep(for: .milliseconds(1500))
    try await shell.send("Cancel room 12 for Ada with Rooms")
    let result = try await shell.finish()
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == Self.booked12 + Self.cancelled12, "\(result)")
    #expect(Self.roomsIntentsStarts(host) == 1, "\(Self.roomsIntentsLog(host))")
    #expect(!Self.roomsIntentsLog(host).contains("idle for"), "\(Self.roomsIntentsLog(host))")
    expectAllStopped(host, result)
  }

  /// A warm extension is no way around the device's lock rules: each utterance is checked as a single run is. The
  /// door opens while the device is unlocked; once it is locked (by another process, between two lines), the same
  /// utterance is refused (77, printed, the session goes on) and booking, which no rule restricts, still runs.
  @Test func theLockRulesApplyToEveryUtterance() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
    let shell = try await PipedShell.start(host, [])
    try await shell.send("Book room 12 for Ada with Rooms")
    try await shell.send("Open the door of room 12 with Rooms")
    let opened = "The door of room 12 is open.\n"
    #expect(try await eventually(timeout: .seconds(60)) { shell.stdout.hasSuffix(opened) }, "\(shell.stdout)")
    #expect(try await host.assistant(["lock"]).code == 0)
    try await shell.send("Open the door of room 12 with Rooms")
    try await shell.send("Book room 13 for Grace with Rooms")
    let result = try await shell.finish()
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout.components(separatedBy: opened).count == 2, "\(result)")
    #expect(
      result.stdout.hasSuffix("Room 13 is now booked by Grace.\n[RoomsUI]\n  Room 13\n  Status: Booked by Grace\n"))
    #expect(
      result.stderr.contains("OpenDoorIntent was not run: the device is locked and \(OpenDoorEndToEndTests.rule)"),
      "\(result)")
    #expect(Self.roomsIntentsStarts(host) == 1, "\(Self.roomsIntentsLog(host))")
    expectAllStopped(host, result)
  }

  /// SIGTERM is not Ctrl-C: it ends the session as it ends any run, the kept extensions shut down first (143).
  @Test func sigtermEndsTheSessionAndStopsTheKeptExtensions() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let shell = try await PipedShell.start(host, [])
    try await shell.send("Book room 12 for Ada with Rooms")
    #expect(try await eventually(timeout: .seconds(60)) { shell.stdout == Self.booked12 }, "\(shell.stdout)")
    let kept = ExitPathTests.launches(in: host.home)
    #expect(kept.count == 2 && kept.allSatisfy { !$0.ended && isAlive($0.pid) }, "\(kept)")
    shell.process.send(SIGTERM)
    // The input stays open: closed at once, its end could end the session (0) before the signal is taken.
    let result = try await shell.finish(keepingInput: true)
    #expect(result.code == 143, "\(result)")
    #expect(result.stderr.contains("assistant: interrupted; every extension was stopped"), "\(result)")
    expectAllStopped(host, result)
  }

  @Test(arguments: ["0", "-1", "abc", "", "1.5.2", "inf", "86401", "0.0001", "1e3"])
  func aBadIdleTimeIsAUsageError(_ value: String) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let result = try await host.assistant(["shell", "--idle", value], input: "")
    #expect(result.code == 64, "\(result)")
    #expect(result.stderr.contains("--idle needs a number of seconds above 0 and at most 86400"), "\(result)")
  }

  /// The control of the bad values, and the options a session refuses with what to do instead.
  @Test func goodIdleTimesAndRefusedOptions() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    for value in ["0.5", "1", "86400"] {
      let result = try await host.assistant(["shell", "--idle", value], input: "")
      #expect(result.code == 0, "\(value): \(result)")
    }
    let record = try await host.assistant(["shell", "--record", "session.jsonl"], input: "")
    #expect(record.code == 64, "\(record)")
    #expect(record.stderr.contains("assistant --record FILE \"UTTERANCE\""), "\(record)")
    let answer = try await host.assistant(["--answer", "Ada", "shell"], input: "")
    #expect(answer.code == 64, "\(answer)")
    #expect(answer.stderr.contains("assistant --answer TEXT \"UTTERANCE\""), "\(answer)")
  }
}

/// `assistant shell` on a pseudo-terminal, as a person uses it: the prompt, Ctrl-C at the prompt and during an
/// utterance, quit.
@Suite(.serialized, .tags(.endToEnd))
struct ShellTerminalEndToEndTests {
  /// Ctrl-C at the prompt clears the line; Ctrl-C while an extension hangs in handle cancels that utterance only
  /// (the extension is stopped, the session goes on); quit ends the session with 0.
  @Test func controlCCancelsTheUtteranceAndThePromptComesBack() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fixture(
      extensionName: "HangOnHandle", uiExtensionName: "UIOneAtATime", in: host.directory.file("bundles"))
    #expect(try await host.assistant(["install", app.path]).code == 0)
    let marker = host.home + "/Containers/com.example.fixture.HangOnHandle/hanging"

    let terminal = try PseudoTerminal()
    defer { terminal.close() }
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    environment["CI"] = nil
    let process = try await terminal.start(
      PackagePaths.executable("assistant"), ["--home", host.home, "shell"], environment: environment)
    let failure: (any Error)?
    do {
      try await terminal.waitFor("assistant> ")
      // Ctrl-C at the prompt: the half-typed line is dropped and a new prompt shows.
      try await terminal.type("Ping with Fix")
      try await terminal.waitFor("Ping with Fix")
      try await terminal.type("\u{03}")
      try await terminal.waitFor("assistant> ")
      #expect(!FileManager.default.fileExists(atPath: host.home + "/Logs/com.example.fixture.HangOnHandle.log"))
      // Ctrl-C while the extension hangs in handle.
      try await terminal.type("Ping with Fixture\n")
      let hanging = try await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: marker) }
      #expect(hanging, "the extension never started handling: \(terminal.transcript)")
      try await terminal.type("\u{03}")
      try await terminal.waitFor("assistant: interrupted; the utterance was cancelled\r\n")
      try await terminal.waitFor("assistant> ")
      // The session's own cleanup of the utterance stopped the extension before the prompt came back.
      let hung = ExitPathTests.launches(in: host.home).filter { $0.name == "HangOnHandle" }
      #expect(hung.count == 1 && hung.allSatisfy { $0.ended && !isAlive($0.pid) }, "\(hung)")
      try await terminal.type("help\n")
      try await terminal.waitFor("What can you do?")
      try await terminal.waitFor("assistant> ")
      try await terminal.type("quit\n")
      failure = nil
    } catch {
      failure = error
    }
    let termination = try await waitForExit(process, timeout: failure == nil ? .seconds(60) : .zero)
    try await terminal.drain()
    if let failure { throw failure }
    #expect(termination == .exited(0), "\(terminal.transcript)")
    #expect(
      terminal.transcript.contains("\r\nassistant: interrupted; the utterance was cancelled\r\nassistant> help\r\n"),
      "\(terminal.transcript)")
    // The half-typed line was never said: no error for it, and the only utterance run was the one interrupted.
    #expect(!terminal.transcript.contains("no installed app"), "\(terminal.transcript)")
    #expect(!terminal.transcript.contains("interrupted; every extension"), "\(terminal.transcript)")
    for launch in ExitPathTests.launches(in: host.home) {
      #expect(launch.ended && !isAlive(launch.pid), "\(launch)")
    }
  }

  /// Ctrl-D after typed text ends the line without a newline: the prompt's line is ended before the utterance's
  /// output (it used to follow on the same line: "assistant> helassistant: no installed app...").
  @Test func controlDAfterTypedTextEndsThePromptLine() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let terminal = try PseudoTerminal()
    defer { terminal.close() }
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    environment["CI"] = nil
    let process = try await terminal.start(
      PackagePaths.executable("assistant"), ["--home", host.home, "shell"], environment: environment)
    let failure: (any Error)?
    do {
      try await terminal.waitFor("assistant> ")
      try await terminal.type("hel\u{04}")
      try await terminal.waitFor("hel")
      try await terminal.type("\u{04}")
      try await terminal.waitFor("no installed app")
      try await terminal.waitFor("assistant> ")
      try await terminal.type("quit\n")
      failure = nil
    } catch {
      failure = error
    }
    let termination = try await waitForExit(process, timeout: failure == nil ? .seconds(60) : .zero)
    try await terminal.drain()
    if let failure { throw failure }
    #expect(termination == .exited(0), "\(terminal.transcript)")
    #expect(terminal.transcript.contains("assistant> hel\r\nassistant: no installed app"), "\(terminal.transcript)")
  }
}
