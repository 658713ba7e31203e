import Foundation
import TestSupport
import Testing

/// The host under a pseudo-terminal, as a person at a shell runs it: util-linux `script` gives it a controlling
/// terminal while its stdout goes to a file (`assistant "Book room 90 with Rooms" > OUT`). The question must appear on
/// the terminal and the file must hold the dialog only.
///
/// `script` copies its own stdin (a fixed file here) to the terminal, as if typed; the terminal's line discipline
/// echoes what is typed and turns Ctrl-D (`\u{04}`) at the start of a line into end of input. Everything `script`
/// shows (the terminal: the echo, the prompts, the host's stderr) is its stdout. The test needs no terminal of its
/// own: `runCommand` starts `script` in a new session, and `script` opens the pseudo-terminal itself.
@Suite(.serialized, .tags(.endToEnd))
struct TerminalEndToEndTests {
  /// A word for `sh -c`, whatever it holds.
  static func quoted(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }

  /// Runs `assistant --home HOME ARGUMENTS > OUT` on a pseudo-terminal fed `typed`, and returns what the terminal
  /// showed (`script`'s output) and what OUT holds.
  func onTerminal(_ host: HostFixture, _ arguments: [String], typing typed: String) async throws -> (
    terminal: CommandResult, out: String
  ) {
    let out = host.directory.file("out.txt")
    let command =
      ([PackagePaths.executable("assistant"), "--home", host.home] + arguments).map(Self.quoted).joined(separator: " ")
      + " > " + Self.quoted(out.path)
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    environment["SHELL"] = "/bin/sh"  // what `script -c` runs the command with
    // -q: no "Script started" lines; -e: the command's exit status; -c: the command; /dev/null: no typescript file.
    let terminal = try await runCommand(
      "/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment, input: typed)
    let written = try await offThePool { try String(contentsOf: out, encoding: .utf8) }
    return (terminal, written)
  }

  @Test func theQuestionIsOnTheTerminalAndTheAnswerInTheRedirectedStdout() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let (terminal, out) = try await onTerminal(host, ["Book room 90 with Rooms"], typing: "Ada\n")
    #expect(terminal.code == 0, "\(terminal)")
    #expect(terminal.stdout.contains("Who is the booking for? "), "\(terminal)")
    #expect(!terminal.stdout.contains("Room 90 is now booked"), "\(terminal)")
    // Control of the redirection: the dialog is in the file, and the question is not (it was, before questions went
    // to the terminal).
    #expect(out == "Room 90 is now booked by Ada.\n[RoomsUI]\n  Room 90\n  Status: Booked by Ada\n", "\(terminal)")
    #expect(!out.contains("Who is the booking for?"), "\(out)")
  }

  @Test func aScriptedAnswerIsEchoedOnTheTerminal() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let (terminal, out) = try await onTerminal(host, ["--answer", "Grace", "Book room 91 with Rooms"], typing: "")
    #expect(terminal.code == 0, "\(terminal)")
    #expect(terminal.stdout.contains("Who is the booking for? Grace\r\n"), "\(terminal)")
    #expect(out.hasPrefix("Room 91 is now booked by Grace.\n"), "\(out)")
    #expect(!out.contains("Who is the booking for?"), "\(out)")
  }

  @Test func endOfInputEndsThePromptLineBeforeTheError() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let (terminal, out) = try await onTerminal(host, ["Book room 92 with Rooms"], typing: "\u{04}")
    #expect(terminal.code == 75, "\(terminal)")
    // The terminal turns "\n" into "\r\n": the error starts a line of its own, right after the prompt's.
    #expect(
      terminal.stdout.contains("Who is the booking for? \r\nassistant: Booked by (bookedBy) for Rooms is needed"),
      "\(terminal)")
    #expect(out.isEmpty, "\(out)")
  }

  /// Ctrl-D after typed text ends the answer without a newline: the prompt's line is ended on the terminal, so that
  /// what is printed next starts a line of its own (it used to follow on the same line: "Who is the booking for?
  /// AdaRoom 93 is now booked by Ada."). The answer is typed once the question shows (`PseudoTerminal`).
  @Test func controlDAfterTheAnswerEndsThePromptLine() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let terminal = try PseudoTerminal()
    defer { terminal.close() }
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    environment["CI"] = nil
    let process = try await terminal.start(
      PackagePaths.executable("assistant"), ["--home", host.home, "Book room 93 with Rooms"],
      environment: environment)
    let failure: (any Error)?
    do {
      try await terminal.waitFor("Who is the booking for? ")
      // The first Ctrl-D hands "Ada" to the host without a newline; the second ends the input.
      try await terminal.type("Ada\u{04}")
      try await terminal.waitFor("Ada")
      try await terminal.type("\u{04}")
      try await terminal.waitFor("Status: Booked by Ada")
      failure = nil
    } catch {
      failure = error
    }
    let termination = try await waitForExit(process, timeout: failure == nil ? .seconds(60) : .zero)
    try await terminal.drain()
    if let failure { throw failure }
    #expect(termination == .exited(0), "\(terminal.transcript)")
    #expect(
      terminal.transcript.contains("Who is the booking for? Ada\r\nRoom 93 is now booked by Ada.\r\n"),
      "\(terminal.transcript)")
  }
}
