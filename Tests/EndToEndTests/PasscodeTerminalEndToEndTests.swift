import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// The passcode typed at a real terminal: the host runs on a pseudo-terminal (`PseudoTerminal`) that is its
/// controlling terminal, and the test types each passcode only once the prompt is on the screen, as a person does.
/// (`script`, as TerminalEndToEndTests uses it, types everything at once before the host turns echo off, so the
/// host's TCSAFLUSH discards it: it cannot answer a passcode prompt.)
///
/// What is checked: the passcode never appears on the terminal (no echo) while the newline does (ECHONL); the
/// terminal's echo is back after every ending (a wrong passcode, Ctrl-C, Ctrl-D); the exit statuses. The control of
/// the no-echo check is the same terminal once the host ended: text typed then, with echo on, does appear.
@Suite(.serialized, .tags(.endToEnd))
struct PasscodeTerminalEndToEndTests {
  struct Status: Decodable {
    var locked: Bool
    var passcodeSet: Bool
    var failedAttempts: Int
  }

  func status(_ host: HostFixture) async throws -> Status {
    let result = try await host.assistant(["status", "--json"])
    #expect(result.code == 0, "\(result)")
    return try JSONDecoder().decode(Status.self, from: Data(result.stdout.utf8))
  }

  /// A home with the passcode `2468` set (through `--passcode-stdin`) and the device locked.
  func lockedHost() async throws -> HostFixture {
    let host = try HostFixture()
    let set = try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n")
    #expect(set.code == 0, "\(set)")
    let lock = try await host.assistant(["lock"])
    #expect(lock.code == 0, "\(lock)")
    return host
  }

  /// Runs `assistant --home HOME ARGUMENTS` on a new pseudo-terminal, lets `dialog` type and read, then waits for the
  /// host's end. When `dialog` throws (a prompt that did not come), the host is killed at once; otherwise it has 60
  /// seconds to end before it is killed, and the test fails.
  /// - Returns: how the host ended, everything the terminal showed, and whether the terminal echoes afterwards.
  func onTerminal(
    _ host: HostFixture, _ arguments: [String], _ dialog: (PseudoTerminal) async throws -> Void
  ) async throws -> (termination: Termination, shown: String, echoAfter: Bool) {
    let terminal = try PseudoTerminal()
    defer { terminal.close() }
    #expect(try terminal.echoIsOn, "a new terminal echoes")
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    environment["CI"] = nil
    let process = try await terminal.start(
      PackagePaths.executable("assistant"), ["--home", host.home] + arguments, environment: environment)
    let failure: (any Error)?
    do {
      try await dialog(terminal)
      failure = nil
    } catch {
      failure = error
    }
    let termination = try await waitForExit(process, timeout: failure == nil ? .seconds(60) : .zero)
    try await terminal.drain()
    if let failure { throw failure }
    let echoAfter = try terminal.echoIsOn
    // The control of every no-echo check: with echo on, what is typed shows on this terminal.
    try await terminal.type("typed-after-the-end\n")
    try await terminal.waitFor("typed-after-the-end")
    return (termination, terminal.transcript, echoAfter)
  }

  /// Waits for `prompt`; the terminal must then no longer echo (the host switches echo off before it asks) while it
  /// still echoes the newline.
  func waitForPasscodePrompt(_ terminal: PseudoTerminal, _ prompt: String) async throws {
    try await terminal.waitFor(prompt)
    #expect(try !terminal.echoIsOn, "echo is off once \(prompt.debugDescription) shows")
    #expect(try terminal.echoesNewline, "the newline is still echoed (ECHONL)")
  }

  @Test func setAsksTwiceWithoutEchoAndThePasscodeWorks() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let run = try await onTerminal(host, ["passcode", "set"]) { terminal in
      try await waitForPasscodePrompt(terminal, "New passcode: ")
      try await terminal.type("2468\n")
      try await waitForPasscodePrompt(terminal, "Confirm the new passcode: ")
      try await terminal.type("2468\n")
      try await terminal.waitFor("passcode set\r\n")
    }
    #expect(run.termination == .exited(0), "\(run)")
    #expect(run.echoAfter)
    // Each newline typed shows (ECHONL), the passcode never does; then the control typed after the end.
    #expect(
      run.shown
        == "New passcode: \r\nConfirm the new passcode: \r\npasscode set\r\ntyped-after-the-end\r\n",
      "\(run)")
    #expect(!run.shown.contains("2468"))

    #expect(try await host.assistant(["lock"]).code == 0)
    let wrong = try await host.assistant(["unlock", "--passcode-stdin"], input: "1357\n")
    #expect(wrong.code == 77, "\(wrong)")
    let right = try await host.assistant(["unlock", "--passcode-stdin"], input: "2468\n")
    #expect(right.code == 0, "\(right)")
    let after = try await status(host)
    #expect(!after.locked && after.passcodeSet && after.failedAttempts == 0)
  }

  @Test func twoDifferentPasscodesSetNothing() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let run = try await onTerminal(host, ["passcode", "set"]) { terminal in
      try await waitForPasscodePrompt(terminal, "New passcode: ")
      try await terminal.type("2468\n")
      try await waitForPasscodePrompt(terminal, "Confirm the new passcode: ")
      try await terminal.type("8642\n")
      try await terminal.waitFor("the two passcodes differ; nothing changed\r\n")
    }
    #expect(run.termination == .exited(77), "\(run)")
    #expect(run.echoAfter)
    #expect(!run.shown.contains("2468") && !run.shown.contains("8642"), "\(run)")
    #expect(try await !status(host).passcodeSet)
  }

  @Test func unlockRefusesAWrongPasscodeAndTakesTheRightOne() async throws {
    let host = try await lockedHost()
    defer { host.directory.remove() }
    let wrong = try await onTerminal(host, ["unlock"]) { terminal in
      try await waitForPasscodePrompt(terminal, "Passcode: ")
      try await terminal.type("1357\n")
      try await terminal.waitFor("wrong passcode (1 failed attempt in a row)\r\n")
    }
    #expect(wrong.termination == .exited(77), "\(wrong)")
    #expect(wrong.echoAfter)
    #expect(
      wrong.shown
        == "Passcode: \r\nassistant: wrong passcode (1 failed attempt in a row)\r\ntyped-after-the-end\r\n",
      "\(wrong)")
    let refused = try await status(host)
    #expect(refused.locked && refused.failedAttempts == 1)

    let right = try await onTerminal(host, ["unlock"]) { terminal in
      try await waitForPasscodePrompt(terminal, "Passcode: ")
      try await terminal.type("2468\n")
      try await terminal.waitFor("unlocked\r\n")
    }
    #expect(right.termination == .exited(0), "\(right)")
    #expect(right.echoAfter)
    #expect(right.shown == "Passcode: \r\nunlocked\r\ntyped-after-the-end\r\n", "\(right)")
    let unlocked = try await status(host)
    #expect(!unlocked.locked && unlocked.failedAttempts == 0)
  }

  /// Ctrl-\\ and Ctrl-Z at the prompt neither end the host with a core dump, nor stop it with echo off, nor become
  /// part of the passcode: "24", Ctrl-\\, Ctrl-Z, "68" unlocks with 2468.
  @Test func quitAndSuspendKeysAreNotPartOfThePasscode() async throws {
    let host = try await lockedHost()
    defer { host.directory.remove() }
    let run = try await onTerminal(host, ["unlock"]) { terminal in
      try await waitForPasscodePrompt(terminal, "Passcode: ")
      try await terminal.type("24")
      try await terminal.type("\u{1C}")
      try await terminal.type("\u{1A}")
      try await terminal.type("68\n")
      try await terminal.waitFor("unlocked\r\n")
    }
    #expect(run.termination == .exited(0), "\(run)")
    #expect(run.echoAfter, "\(run)")
    let after = try await status(host)
    #expect(!after.locked && after.failedAttempts == 0)
  }

  /// Ctrl-C at the prompt: the terminal sends SIGINT (ISIG) to the host, which restores echo and exits 130; what was
  /// typed before it is neither shown nor counted.
  @Test func controlCCancelsThePromptAndRestoresEcho() async throws {
    let host = try await lockedHost()
    defer { host.directory.remove() }
    let run = try await onTerminal(host, ["unlock"]) { terminal in
      try await waitForPasscodePrompt(terminal, "Passcode: ")
      try await terminal.type("13")
      try await terminal.type("\u{03}")
      try await terminal.waitFor("interrupted")
    }
    #expect(run.termination == .exited(130), "\(run)")
    #expect(run.echoAfter, "\(run)")
    // The prompt's line is ended; what the host says about the interruption is the command line's business.
    #expect(run.shown.hasPrefix("Passcode: \r\n"), "\(run)")
    #expect(!run.shown.contains("13"), "\(run)")
    let after = try await status(host)
    #expect(after.locked && after.failedAttempts == 0)
  }

  /// Ctrl-D at the prompt: end of input, so the passcode cannot be had (75, as PasscodeReader documents); echo is
  /// restored and nothing is counted.
  @Test func controlDEndsTheInputAndRestoresEcho() async throws {
    let host = try await lockedHost()
    defer { host.directory.remove() }
    let run = try await onTerminal(host, ["unlock"]) { terminal in
      try await waitForPasscodePrompt(terminal, "Passcode: ")
      try await terminal.type("\u{04}")
      try await terminal.waitFor("the passcode is needed, but input ended\r\n")
    }
    #expect(run.termination == .exited(75), "\(run)")
    #expect(run.echoAfter, "\(run)")
    #expect(
      run.shown == "Passcode: \r\nassistant: the passcode is needed, but input ended\r\ntyped-after-the-end\r\n",
      "\(run)")
    let after = try await status(host)
    #expect(after.locked && after.failedAttempts == 0)
  }
}
