// `assistant shell`: a session with the assistant, one utterance a line, its extensions kept running between
// utterances and shut down once idle.
import AssistantHost
import Foundation
import IntentHostSystem
import ProcessSupervision
import Synchronization
import UntrustedText

/// `assistant shell [--idle SECONDS]`.
struct Shell: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "shell",
      abstract: "Talk to the assistant in a session: one utterance a line, its extensions kept running between them.",
      discussion: """
        Each line is said as `assistant "LINE"` says it: the same understanding, questions, dialog, errors and \
        --json object. An error is printed and the session goes on. `help` says what you can say ("What can you \
        do?" lists what the installed apps answer to); `quit`, `exit` or Ctrl-D end the session (punctuation \
        around them does not matter); blank lines are ignored. A line longer than 4096 bytes is not said: it is \
        reported (as a 64 error) and the session goes on with the next line.

        On a terminal the prompt is `assistant> `, and the line is edited by the terminal itself (its canonical \
        mode: Backspace, Ctrl-U erases the line, Ctrl-W a word; there is no history). When stdin is not a \
        terminal, its lines are read without a prompt (`assistant shell < session.txt`); a question then cannot \
        be asked (that line fails with 75: say the value in the utterance; a yes/no, such as the confirmation of \
        a workout's start, needs the shell on a terminal or the utterance run alone with `assistant --answer yes \
        "UTTERANCE"`), and with --passcode-stdin or --authentication-stdin a passcode is the next line. At a \
        question, "cancel" ends the utterance ("OK, I won't.") and the session goes on.

        Extensions stay running between utterances; one not used for --idle seconds is shut down, and every one \
        at the end. The device's lock rules (a locked device, auto-lock, the passcode) are checked for every \
        utterance, as for a single one. Ctrl-C cancels the utterance under way (its extension is stopped) and \
        the prompt comes back; at the prompt it clears the line. A second Ctrl-C before the prompt is back, \
        Ctrl-\\, SIGTERM or SIGHUP end the session as they end any run (128+N, every extension stopped first).

        The session exits 0 when it ends with quit, exit or end of input, whatever its utterances did: each one's \
        outcome is printed as it ends (with --json, one JSON line per utterance: the object `assistant --json \
        "UTTERANCE"` prints, or {"error": {"message", "status", "kind"}}). --record and --answer apply to a single \
        utterance (`assistant --record FILE "UTTERANCE"`), not to a session.
        """,
      options: [Self.idleOption, deadlineOption, voiceOption, authenticationStdinOption, localeOption]
        + confinementOptions,
      examples: [
        "assistant shell",
        "assistant shell --idle 300 --json",
        "printf 'Book room 12 for Ada with Rooms\\nCancel room 12 for Ada with Rooms\\n' | assistant shell",
      ],
      refusedOptions: [
        "--record":
          "a session is not recorded; record one utterance with `assistant --record FILE \"UTTERANCE\"`",
        "--answer":
          "a session asks its questions at the terminal; script one utterance's answers with "
          + "`assistant --answer TEXT \"UTTERANCE\"`",
      ])
  }

  static let idleOption = Option.value(
    "--idle", value: "SECONDS",
    help: "Shut down an extension not used for SECONDS (default 60; more than 0, at most 86400).")

  /// How long an extension may stay unused before it is shut down.
  var idle: Duration
  var launch: LaunchOptions

  init(_ parsed: ParsedCommand) throws {
    launch = try LaunchOptions(parsed)
    idle = try Self.idleTime(parsed.value(Self.idleOption))
  }

  /// The default idle time, as Siri keeps an extension for a while after a request.
  static let defaultIdleTime = Duration.seconds(60)

  /// `--idle SECONDS`: digits with an optional fraction, more than 0 (a millisecond at least) and at most a day.
  /// - Throws: `HostError(.usage)` naming the value.
  static func idleTime(_ text: String?) throws -> Duration {
    guard let text else { return defaultIdleTime }
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    let digits = parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    guard (1...2).contains(parts.count), digits, let seconds = Double(text), seconds <= 86_400,
      case let milliseconds = Int64((seconds * 1000).rounded()), milliseconds >= 1
    else {
      throw HostError(
        .usage, "--idle needs a number of seconds above 0 and at most 86400, e.g. --idle 60, not \"\(text)\"")
    }
    return .milliseconds(milliseconds)
  }

  func run(in context: CommandContext) async throws -> Int32 {
    _ = try context.home()  // an empty --home= is a usage error before the session starts
    let interactive = FileDescriptor.standardInput.isTerminal
    let prompt = interactive ? await ShellPrompt.open() : nil
    defer { prompt?.close() }
    let session = ShellSession(
      shell: self, context: context, interactive: interactive, prompt: prompt,
      reader: LineReader(.standardInput, limit: UtteranceArgument.limit),
      warm: WarmExtensions())
    let steps = session.steps
    // Ctrl-C goes to the step under way (ShellSteps); any other interrupt ends the session as it ends any run.
    let result = await ProcessRegistry.shared.interceptingInterrupts({ steps.interrupt($0) }) {
      await withTaskGroup(of: Void.self) { group in
        let idle = self.idle
        let warm = session.warm
        group.addTask { await warm.shutDownIdle(after: idle) }
        let result: Result<Int32, any Error>
        do { result = .success(try await session.run()) } catch { result = .failure(error) }
        group.cancelAll()
        return result
      }
    }
    await session.warm.shutdownAll()
    return try result.get()
  }
}

/// One session: reads lines, runs each as an utterance, and reports it, until quit or end of input.
struct ShellSession: Sendable {
  let shell: Shell
  let context: CommandContext
  /// Whether stdin is a terminal: then the prompt is shown and questions are asked there.
  let interactive: Bool
  let prompt: ShellPrompt?
  /// The one reader of stdin: the session's lines, and the answers and passcodes its utterances read.
  let reader: LineReader
  let warm: WarmExtensions
  let steps = ShellSteps()

  /// The session's lines until quit or end of input.
  /// - Returns: 0.
  /// - Throws: `CancellationError` when the session was interrupted (not by a Ctrl-C that one step took); a
  ///   `SystemError` when stdin cannot be read or stdout is gone (`EPIPE`).
  func run() async throws -> Int32 {
    while true {
      try Task.checkCancellation()
      try Self.checkOutputReader()
      await prompt?.write("assistant> ")
      let reading = CancellableRun<Result<(text: String, newline: Bool)?, any Error>>()
      let read = await steps.run(reading, escalates: false) { [reader] in
        do { return .success(try await reader.nextLineAndEnd()) } catch { return .failure(error) }
      }
      try Task.checkCancellation()
      if reading.isCancelled {
        // Ctrl-C at the prompt: the terminal dropped what was typed (and showed ^C); a fresh prompt.
        await prompt?.write("\n")
        continue
      }
      let typed: (text: String, newline: Bool)?
      do {
        typed = try read.get()
      } catch let error as LineTooLong {
        // Read to its end and dropped: none of it is said, and the session goes on with the next line.
        _ = await report(
          HostError(.usage, "the line is \(error.bytes) bytes; an utterance is at most \(error.limit)"),
          json: context.json)
        continue
      }
      guard let (line, newline) = typed else {
        await prompt?.write("\n")  // Ctrl-D: the caller's shell prompt starts a line of its own
        return ExitStatus.success.rawValue
      }
      // Ctrl-D after typed characters ended the line without a newline: end the prompt's line, so that what the
      // utterance prints starts a line of its own.
      if !newline { await prompt?.write("\n") }
      try Self.checkOutputReader()  // the reader of stdout went away while the line was read
      let text = line.trimmingCharacters(in: .whitespaces)
      // A built-in is a word, whatever punctuation surrounds it ("Quit!", "help?"), as in an utterance.
      switch text.lowercased().trimmingCharacters(in: CharacterSet.punctuationCharacters.union(.whitespaces)) {
      case "" where text.isEmpty: continue
      case "quit", "exit": return ExitStatus.success.rawValue
      case "help":
        try await printHelp()
        continue
      default: break
      }
      try await say(text)
    }
  }

  /// Runs one utterance as `assistant "UTTERANCE"` does, and prints how it ended when it failed.
  private func say(_ utterance: String) async throws {
    let conversation = TerminalConversation(
      answers: [], interactive: interactive, quiet: context.json, input: reader,
      passcodesFromStandardInput: shell.launch.passcodesFromStandardInput,
      authenticationFromStandardInput: shell.launch.authenticationFromStandardInput,
      takesAnswerOptions: false)
    let running = CancellableRun<Result<Int32, any Error>>()
    let outcome = await steps.run(running, escalates: true) { [context, warm, launch = shell.launch] in
      do {
        let assistant = try launch.assistant(in: context, conversation: conversation, warm: warm)
        return .success(try await Ask.show(assistant.say(utterance), in: context))
      } catch {
        return .failure(error)
      }
    }
    try Task.checkCancellation()
    if running.isCancelled {
      // Ctrl-C: the utterance's own cleanup stopped what it started, as on any interrupted run.
      let message = "interrupted; the utterance was cancelled"
      await FileDescriptor.standardError.write((interactive ? "\n" : "") + "assistant: \(message)\n")
      if context.json {
        struct Interrupted: Encodable {
          var message: String
          var status = 128 + SIGINT
          var kind = "interrupted"
        }
        try await context.output(json: ["error": Interrupted(message: message)])
      }
      return
    }
    guard case .failure(let error) = outcome else { return }
    // stdout failed (its reader is gone, a full disk): the session ends, before it reads another line.
    if let error = error as? SystemError, error.code == EPIPE || error.isStandardOutput { throw error }
    _ = await report(error, json: context.json)
  }

  /// Ends the session when stdout is a pipe or socket whose reader went away (`... | head -1`), although nothing
  /// has failed to be written yet: the next line is not run for an output nobody reads. `poll` with no wait (it
  /// does not block) says `POLLERR` for such a pipe.
  /// - Throws: `SystemError(EPIPE)` naming stdout.
  static func checkOutputReader() throws {
    var status = stat()
    guard fstat(FileDescriptor.standardOutput.rawValue, &status) == 0,
      status.st_mode & S_IFMT == S_IFIFO || status.st_mode & S_IFMT == S_IFSOCK
    else { return }
    var entry = pollfd(fd: FileDescriptor.standardOutput.rawValue, events: Int16(POLLOUT), revents: 0)
    guard poll(&entry, 1, 0) == 1, entry.revents & Int16(POLLERR | POLLHUP) != 0 else { return }
    throw SystemError(code: EPIPE, operation: "write", subject: "stdout")
  }

  static let help = """
    Say what you want, as to Siri: "Book room 12 for Ada with Rooms", "Rooms, cancel room 12 for Ada".
    "What can you do?" lists what the installed apps answer to; "What can I say to Rooms?" one app's phrases.
    Ctrl-C cancels what is under way; quit, exit or Ctrl-D ends the session.
    """

  private func printHelp() async throws {
    if context.json {
      try await context.output(json: ["help": Self.help])
    } else {
      try await context.output(Self.help)
    }
  }
}

/// The step of a session that Ctrl-C cancels: the line being read, or the utterance being run. A Ctrl-C between
/// steps cancels the next one.
final class ShellSteps: Sendable {
  private struct Step {
    var cancel: @Sendable () -> Void
    var isCancelled: @Sendable () -> Bool
    /// Whether a second Ctrl-C while it is being cancelled ends the session (an utterance whose cleanup takes
    /// time), rather than being ignored (a read, which ends at once).
    var escalates: Bool
  }

  private let state = Mutex<(current: Step?, pending: Bool)>((nil, false))

  /// Runs `body` as the current step.
  func run<Value: Sendable>(
    _ run: CancellableRun<Value>, escalates: Bool, _ body: @escaping @Sendable () async -> Value
  ) async -> Value {
    let pending = state.withLock { state -> Bool in
      state.current = Step(cancel: { run.cancel() }, isCancelled: { run.isCancelled }, escalates: escalates)
      defer { state.pending = false }
      return state.pending
    }
    if pending { run.cancel() }
    let value = await run.start(body)
    state.withLock { $0.current = nil }
    return value
  }

  /// The interrupt handler's part (on the signal thread; it does not block): takes a SIGINT by cancelling the
  /// current step, and declines any other signal, and a SIGINT that comes while an utterance is already being
  /// cancelled, so that they end the session.
  /// - Returns: whether the signal was taken.
  func interrupt(_ signal: Int32) -> Bool {
    guard signal == SIGINT else { return false }
    let step = state.withLock { state -> Step?? in
      guard let current = state.current else {
        state.pending = true
        return .some(nil)
      }
      if current.isCancelled() && current.escalates { return nil }
      return .some(current)
    }
    guard let step else { return false }
    step?.cancel()
    return true
  }
}

/// Where the session's prompt goes: the controlling terminal (`/dev/tty`, opened write-only, without becoming the
/// controlling terminal, close-on-exec), else stderr; never stdout. Written off the cooperative pool.
final class ShellPrompt: Sendable {
  private let fd: FileDescriptor
  private let opened: Bool

  private init(fd: FileDescriptor, opened: Bool) {
    self.fd = fd
    self.opened = opened
  }

  /// The controlling terminal, or stderr when there is none (ENXIO) or it cannot be opened.
  static func open() async -> ShellPrompt {
    await offloaded {
      if let tty = try? FileDescriptor.open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC) {
        return ShellPrompt(fd: tty, opened: true)
      }
      return ShellPrompt(fd: .standardError, opened: false)
    }
  }

  /// Writes `text` (the host's own): a failed write (the terminal gone) is dropped, and input ends soon after.
  func write(_ text: String) async {
    let bytes = Array(text.utf8)
    _ = try? await offloaded { () throws(SystemError) in try self.fd.writeAll(bytes) }
  }

  func close() {
    if opened { fd.close() }
  }
}
