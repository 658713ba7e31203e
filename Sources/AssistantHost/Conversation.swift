import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import UntrustedText

/// How the assistant talks to the user: what it says, and how it asks.
///
/// Every requirement is async: a terminal is read and written off the cooperative pool, and an asking conversation
/// ends with the task that waits for it (cancellation, e.g. Ctrl-C).
public protocol Conversation: Sendable {
  /// Says something to the user (a dialog line).
  func say(_ text: String) async
  /// Asks the user and returns the answer.
  /// - Parameter need: what is needed, for the message when the question cannot be asked.
  /// - Throws: `HostError(.valueNeeded)` when there is nobody to ask, or input ended; `CancellationError` when the
  ///   waiting task is cancelled.
  func ask(_ prompt: String, need: String) async throws -> String
  /// Asks the user for an answer of `kind`, which says what a script gives for it when nobody can be asked (by
  /// default, `ask(_:need:)`).
  func ask(_ prompt: String, need: String, kind: AnswerKind) async throws -> String
  /// Says something that belongs to a question: the choices of a disambiguation, why an answer was not taken. A
  /// shell shows it where the question is asked (the terminal), not in the dialog's output.
  func explain(_ text: String) async
  /// Shows a view an Intents UI extension drew (a snippet under the dialog).
  func show(_ view: ConfiguredView, from extensionName: String) async
  /// Asks for the device's passcode without showing what is typed. The purpose decides where a script's passcode
  /// comes from: a line given to unlock the device is never taken to approve an extension's transaction.
  /// - Throws: `CancellationError` when the waiting task is cancelled (Ctrl-C).
  func askPasscode(_ prompt: String, for purpose: PasscodePurpose) async throws -> PasscodeAnswer
  /// Asks a yes/no question that approves an extension's transaction (`host/requestAuthentication` with no passcode
  /// set): like a passcode for authentication, never answered by the scripted answers of other questions.
  /// - Throws: `CancellationError` when the waiting task is cancelled (Ctrl-C).
  func askApproval(_ prompt: String) async throws -> PasscodeAnswer
  /// Shows that work is under way (an extension answered `inProgress`): `text` starts or updates a spinner on a
  /// terminal, nil ends it and clears its line. Nothing is shown where no person watches a terminal.
  func progress(_ text: String?) async
}

/// What a question wants: it decides what a script gives for it, and what the user is told when nobody can be asked
/// ("answer it with --answer yes" for a yes/no question).
public enum AnswerKind: Sendable, Equatable {
  /// A parameter's value ("What kind of workout?").
  case value
  /// yes or no ("Ready to start your wall climb workout in Ascent?", "Unlock it?").
  case yesNo
  /// One of a list, by number or name ("Choose 1-2:").
  case choice
}

/// What a passcode is asked for.
public enum PasscodePurpose: Sendable, Equatable {
  /// To unlock the device (`--passcode-stdin` in a script).
  case unlock
  /// To approve an extension's transaction, `host/requestAuthentication` (`--authentication-stdin` in a script).
  case authentication
}

/// What came of asking for the passcode.
public enum PasscodeAnswer: Sendable, Equatable {
  /// A passcode was typed (never empty).
  case entered(String)
  /// The user gave none: an empty line, or end of input (Ctrl-D).
  case cancelled
  /// Nobody can be asked; the reason with its fix, for the message ("there is no terminal to ask it on: give it
  /// with --passcode-stdin").
  case unavailable(String)
}

extension Conversation {
  /// By default, asked as any question.
  public func ask(_ prompt: String, need: String, kind: AnswerKind) async throws -> String {
    try await ask(prompt, need: need)
  }

  /// By default nothing is shown.
  public func progress(_ text: String?) async {}

  /// By default, said as dialog.
  public func explain(_ text: String) async { await say(text) }

  /// By default nobody can be asked.
  public func askPasscode(_ prompt: String, for purpose: PasscodePurpose) async throws -> PasscodeAnswer {
    .unavailable("this conversation cannot ask for a passcode")
  }

  /// By default nobody can be asked.
  public func askApproval(_ prompt: String) async throws -> PasscodeAnswer {
    .unavailable("this conversation cannot ask for an approval")
  }

  /// Says the snippet under the name of the extension that drew it, each of its lines indented. The name and each
  /// line are sanitized to one line, so nothing in a snippet can leave its box or pass for the dialog.
  public func show(_ view: ConfiguredView, from extensionName: String) async {
    guard let snippet = view.snippet else { return }
    await say(
      "[\(Untrusted.shown(extensionName))]\n" + snippet.lines.map { "  " + Untrusted.shown($0) }.joined(separator: "\n")
    )
  }
}

/// Where the questions of a `TerminalConversation` go: to the person at the terminal, never into a redirected stdout
/// (`assistant "Book room 90 with Rooms" > out.txt` asks on the terminal and leaves only the dialog in the file).
public enum PromptDestination: Sendable {
  /// The controlling terminal (`/dev/tty`), opened write-only, without becoming the controlling terminal and
  /// close-on-exec, once, when the first question is written; stderr when the process has no controlling terminal
  /// (a daemon, a test that spawns the host in a session of its own).
  case controllingTerminal
  /// This descriptor, e.g. a pipe in a test. The conversation does not close it.
  case descriptor(FileDescriptor)
}

/// The shell: scripted answers (`--answer`) first, then the terminal; with neither, refuses with exit 75.
///
/// Two streams:
/// - Questions (the prompt, and with a scripted answer the echoed "prompt answer" line; on end of input, the newline
///   that ends the prompt's line) go to `prompts`: by default the controlling terminal, else stderr. They never go
///   to stdout, so a redirected stdout holds the dialog only and the person at the terminal still sees the question.
/// - Dialog lines and snippets go to stdout, or to stderr when `quiet` (the `--json` mode, whose stdout is one JSON
///   object).
///
/// Whether a person can be asked is `interactive` (stdin is a terminal); answers are read from stdin, never from
/// `/dev/tty`, so a run with stdin redirected stays non-interactive even with a terminal at hand. Writes, the open
/// of `/dev/tty` and terminal reads run on a dedicated thread (`offloaded`), never on the cooperative pool.
///
/// Everything it writes is dialog that holds untrusted text (response parameters, templates, prompts, an
/// extension's messages and snippets): it passes through the sanitizer (`Untrusted`, multi-line: newlines and tabs
/// kept, every other control character, escape sequence and bidirectional control shown escaped) on its way out.
public final class TerminalConversation: Conversation {
  private let answers: Mutex<[String]>
  private let interactive: Bool
  /// `--passcode-stdin`: passcodes to unlock the device are lines of stdin (read with the answers' reader).
  private let passcodesFromStandardInput: Bool
  /// `--authentication-stdin`: passcodes (or, with none set, yes/no) approving an extension's transaction are lines
  /// of stdin.
  private let authenticationFromStandardInput: Bool
  private let dialog: FileDescriptor
  private let input: LineReader
  /// Whether the run takes `--answer` (a single utterance or `run`), or not (`assistant shell`): what a question that
  /// cannot be asked (no terminal) tells the user to do instead (`noTerminalAdvice(for:)`).
  private let takesAnswerOptions: Bool
  private let prompts: PromptDestination
  /// The descriptor questions are written to, once resolved (the controlling terminal is opened on first use);
  /// `opened` says whether this conversation opened it, and closes it when it ends.
  private let promptTarget = Mutex<(fd: FileDescriptor, opened: Bool)?>(nil)

  /// - Parameters:
  ///   - answers: scripted answers, used in order.
  ///   - interactive: whether a person is at the terminal (stdin is a tty): only then is a question without a
  ///     scripted answer asked.
  ///   - quiet: send dialog to stderr instead of stdout.
  ///   - prompts: where questions go; by default the controlling terminal, else stderr.
  ///   - passcodesFromStandardInput: `--passcode-stdin`: a passcode to unlock is the next line of stdin.
  ///   - authenticationFromStandardInput: `--authentication-stdin`: an approval is the next line of stdin.
  public convenience init(
    answers: [String], interactive: Bool, quiet: Bool, prompts: PromptDestination = .controllingTerminal,
    passcodesFromStandardInput: Bool = false, authenticationFromStandardInput: Bool = false
  ) {
    self.init(
      answers: answers, interactive: interactive, prompts: prompts,
      dialog: quiet ? .standardError : .standardOutput, input: .standardInput,
      passcodesFromStandardInput: passcodesFromStandardInput,
      authenticationFromStandardInput: authenticationFromStandardInput)
  }

  /// The conversation reading answers (and `--passcode-stdin` lines) with `input`, a reader the caller shares:
  /// `assistant shell` reads its utterances with the same reader, so that no line meant for one is taken by the
  /// other.
  /// - Parameter takesAnswerOptions: whether a question that cannot be asked (no terminal) tells the user to give
  ///   its answer with `--answer` (true), or, for a session that takes none (`assistant shell`), to say the value in
  ///   the utterance, run the session on a terminal, or run the utterance alone with `--answer`.
  public convenience init(
    answers: [String], interactive: Bool, quiet: Bool, input: LineReader,
    passcodesFromStandardInput: Bool = false, authenticationFromStandardInput: Bool = false,
    takesAnswerOptions: Bool = true
  ) {
    self.init(
      answers: answers, interactive: interactive, prompts: .controllingTerminal,
      dialog: quiet ? .standardError : .standardOutput, reader: input,
      passcodesFromStandardInput: passcodesFromStandardInput,
      authenticationFromStandardInput: authenticationFromStandardInput, takesAnswerOptions: takesAnswerOptions)
  }

  /// The conversation on explicit descriptors (tests use pipes).
  /// - Parameters:
  ///   - dialog: where dialog lines and snippets go.
  ///   - input: where answers are read from, when `interactive`.
  convenience init(
    answers: [String], interactive: Bool, prompts: PromptDestination, dialog: FileDescriptor, input: FileDescriptor,
    passcodesFromStandardInput: Bool = false, authenticationFromStandardInput: Bool = false,
    takesAnswerOptions: Bool = true
  ) {
    self.init(
      answers: answers, interactive: interactive, prompts: prompts, dialog: dialog, reader: LineReader(input),
      passcodesFromStandardInput: passcodesFromStandardInput,
      authenticationFromStandardInput: authenticationFromStandardInput, takesAnswerOptions: takesAnswerOptions)
  }

  private init(
    answers: [String], interactive: Bool, prompts: PromptDestination, dialog: FileDescriptor, reader: LineReader,
    passcodesFromStandardInput: Bool, authenticationFromStandardInput: Bool, takesAnswerOptions: Bool = true
  ) {
    self.takesAnswerOptions = takesAnswerOptions
    self.answers = Mutex(answers)
    self.interactive = interactive
    self.passcodesFromStandardInput = passcodesFromStandardInput
    self.authenticationFromStandardInput = authenticationFromStandardInput
    self.prompts = prompts
    self.dialog = dialog
    self.input = reader
  }

  deinit {
    promptTarget.withLock { target in
      if let target, target.opened { target.fd.close() }
    }
  }

  /// A dialog line: one line on the terminal, whatever it holds (a newline in a template or a response parameter is
  /// shown escaped, so nothing the bundle or the extension says can start a line of its own, such as a fake
  /// `assistant:` error).
  public func say(_ text: String) async {
    await emit(Untrusted.shown(text) + "\n", to: .dialog)
  }

  /// A line that belongs to a question, on the prompts' stream (the terminal), one line like `say`'s.
  public func explain(_ text: String) async {
    await emit(Untrusted.shown(text) + "\n", to: .prompts)
  }

  /// The snippet under the name of the extension that drew it, each of its lines indented and sanitized to one line.
  public func show(_ view: ConfiguredView, from extensionName: String) async {
    guard let snippet = view.snippet else { return }
    await emit(
      "[\(Untrusted.shown(extensionName))]\n" + snippet.lines.map { "  " + Untrusted.shown($0) + "\n" }.joined(),
      to: .dialog)
  }

  /// Asks on the prompts' stream (see the type): a scripted answer is echoed after the prompt; otherwise, when a
  /// person is at the terminal, the prompt waits on its line for a line of stdin.
  public func ask(_ prompt: String, need: String) async throws -> String {
    try await ask(prompt, need: need, kind: .value)
  }

  /// Asks as `ask(_:need:)` does; when nobody can be asked, the error says how to give an answer of `kind`
  /// (`noTerminalAdvice(for:)`).
  public func ask(_ prompt: String, need: String, kind: AnswerKind) async throws -> String {
    let prompt = Untrusted.shown(prompt)  // from the bundle or the extension: one line
    if let scripted = answers.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
      await emit("\(prompt) \(Untrusted.shown(scripted))\n", to: .prompts)
      return scripted
    }
    guard interactive else {
      throw HostError(
        .valueNeeded,
        "\(need) is needed (\"\(prompt)\"), but there is no terminal to ask: \(noTerminalAdvice(for: kind))")
    }
    await emit(prompt + " ", to: .prompts)
    guard let line = try await nextLine() else {
      // Ctrl-D: end the prompt's line where the prompt is, so the error starts a line of its own.
      await emit("\n", to: .prompts)
      throw HostError(.valueNeeded, "\(need) is needed (\"\(prompt)\"), but input ended")
    }
    return line
  }

  /// What a question of `kind` that cannot be asked (no terminal, no scripted answer left) tells the user to do.
  ///
  /// A single run (`assistant "UTTERANCE"`, `assistant run`) takes `--answer`: a value is given on the command line
  /// or with `--answer VALUE`, a yes/no with `--answer yes` (or `no`), a choice with `--answer NUMBER`. A session
  /// (`assistant shell`) takes no `--answer`: a value is said in the utterance; a yes/no or a choice, which no
  /// utterance can say, needs the session on a terminal, or the utterance run alone with `--answer`.
  func noTerminalAdvice(for kind: AnswerKind) -> String {
    switch (kind, takesAnswerOptions) {
    case (.value, true): "give it on the command line or with --answer VALUE"
    case (.yesNo, true): "answer it with --answer yes (or --answer no), or run it on a terminal"
    case (.choice, true): "answer it with --answer NUMBER (or the name), or run it on a terminal"
    case (.value, false):
      "say it in the utterance, or run the utterance alone with `assistant --answer VALUE \"UTTERANCE\"`"
    case (.yesNo, false):
      "a session without a terminal cannot answer yes or no: run `assistant shell` on a terminal, or run the "
        + "utterance alone with `assistant --answer yes \"UTTERANCE\"`"
    case (.choice, false):
      "a session without a terminal cannot choose: run `assistant shell` on a terminal, or run the utterance alone "
        + "with `assistant --answer NUMBER \"UTTERANCE\"`"
    }
  }

  /// The passcode: when a person is at the terminal (stdin is a terminal), typed there with echo off
  /// (`PasscodeReader`), whatever the flags say; otherwise the next line of stdin when the purpose's flag was given
  /// (`--passcode-stdin` to unlock, `--authentication-stdin` to approve); otherwise nobody can be asked. Scripted
  /// answers are never used for it.
  public func askPasscode(_ prompt: String, for purpose: PasscodePurpose) async throws -> PasscodeAnswer {
    let line: String?
    if interactive {
      do {
        await input.discardTypeAhead()
        line = try await PasscodeReader.readWithoutEcho(Untrusted.shown(prompt))
      } catch let error as SystemError where error.code == ENXIO {
        // A terminal on stdin that is not this process's controlling terminal (a new session).
        guard fromStandardInput(purpose) else {
          return .unavailable("there is no controlling terminal to ask it on: give it with \(flag(purpose))")
        }
        line = try await nextLine()
      }
    } else if fromStandardInput(purpose) {
      line = try await nextLine()
    } else {
      return .unavailable("there is no terminal to ask it on: give it with \(flag(purpose))")
    }
    guard let line, !line.isEmpty else { return .cancelled }
    return .entered(line)
  }

  /// The approval: asked at the terminal like any question (it is not secret), or the next line of stdin with
  /// `--authentication-stdin`; never a scripted `--answer`, which was given for another question.
  public func askApproval(_ prompt: String) async throws -> PasscodeAnswer {
    let prompt = Untrusted.shown(prompt)
    let line: String?
    if fromStandardInput(.authentication) && !interactive {
      line = try await nextLine()
      await emit("\(prompt) \(Untrusted.shown(line ?? ""))\n", to: .prompts)
    } else if interactive {
      // What was typed before the question was shown is not an answer to it.
      await input.discardTypeAhead()
      await emit(prompt + " ", to: .prompts)
      line = try await nextLine()
      if line == nil { await emit("\n", to: .prompts) }
    } else {
      return .unavailable("there is no terminal to ask it on: give it with --authentication-stdin")
    }
    guard let line, !line.isEmpty else { return .cancelled }
    return .entered(line)
  }

  /// The next line of input; one longer than the reader takes is a usage error (its text is never shown: it may be a
  /// passcode).
  ///
  /// A line typed at a terminal and ended by Ctrl-D leaves the cursor after it: the prompt's line is ended then, so
  /// that what is printed next starts a line of its own.
  private func nextLine() async throws -> String? {
    do {
      guard let (line, newline) = try await input.nextLineAndEnd() else { return nil }
      if !newline && input.isTerminal { await emit("\n", to: .prompts) }
      return line
    } catch let error as LineTooLong {
      throw HostError(.usage, "the answer read from stdin is \(error.bytes) bytes; an answer is at most \(error.limit)")
    }
  }

  private func fromStandardInput(_ purpose: PasscodePurpose) -> Bool {
    purpose == .unlock ? passcodesFromStandardInput : authenticationFromStandardInput
  }

  private func flag(_ purpose: PasscodePurpose) -> String {
    purpose == .unlock ? "--passcode-stdin" : "--authentication-stdin"
  }

  /// Unused scripted answers (a sign of a wrong script).
  public var unusedAnswers: [String] { answers.withLock { $0 } }

  private let spinner = Mutex<Task<Void, Never>?>(nil)

  /// A spinner on the prompts' stream, only when a person is at a terminal: a frame every 120 ms, written off the
  /// cooperative pool; nil stops it and clears its line.
  public func progress(_ text: String?) async {
    let previous = spinner.withLock { task in
      defer { task = nil }
      return task
    }
    previous?.cancel()
    await previous?.value
    guard interactive else { return }
    let clear = Array("\r\u{1B}[K".utf8)
    guard let text else {
      _ = try? await offloaded { () throws(SystemError) in
        let fd = self.promptDescriptor()
        if fd.isTerminal { try fd.writeAll(clear) }
      }
      return
    }
    let shown = Untrusted.shown(text)
    let task = Task {
      let frames = ["|", "/", "-", "\\"]
      var index = 0
      while !Task.isCancelled {
        let frame = Array("\r\u{1B}[K\(frames[index % frames.count]) \(shown)".utf8)
        let shownOnATerminal =
          (try? await offloaded { () throws(SystemError) -> Bool in
            let fd = self.promptDescriptor()
            guard fd.isTerminal else { return false }
            try fd.writeAll(frame)
            return true
          }) ?? false
        if !shownOnATerminal { return }
        index += 1
        try? await Task.sleep(for: .milliseconds(120))
      }
    }
    spinner.withLock { $0 = task }
  }

  private enum Stream { case dialog, prompts }

  /// The first write of the dialog that failed (`EPIPE`: its reader went away; `ENOSPC`, `EIO`...), if any: from
  /// then on no dialog is written. The run goes on to its end (its extensions shut down in order), and the command
  /// then ends as a failed write of its output does (141 or 74).
  private let dialogFailure = Mutex<SystemError?>(nil)

  /// The first failed write of the dialog, if one failed (see `emit`).
  public var dialogWriteFailure: SystemError? { dialogFailure.withLock { $0 } }

  /// The one way out: sanitized, written off the cooperative pool. A failed write of the dialog is remembered
  /// (`dialogWriteFailure`) and nothing more of it is written; one of a question (the terminal gone) is dropped, as
  /// input ends soon after.
  private func emit(_ text: String, to stream: Stream) async {
    let bytes = Array(Untrusted.shown(text, multiline: true).utf8)
    if stream == .dialog && dialogWriteFailure != nil { return }
    let written = await offloaded { () -> Result<Void, SystemError> in
      let target = stream == .dialog ? self.dialog : self.promptDescriptor()
      do throws(SystemError) { try target.writeAll(bytes) } catch { return .failure(error) }
      return .success(())
    }
    if stream == .dialog, case .failure(let error) = written {
      dialogFailure.withLock { failure in if failure == nil { failure = error } }
    }
  }

  /// Where questions go, opening the controlling terminal on first use. Blocking (an `open`): call it off the pool.
  private func promptDescriptor() -> FileDescriptor {
    promptTarget.withLock { target in
      if let target { return target.fd }
      let resolved: (fd: FileDescriptor, opened: Bool)
      switch prompts {
      case .descriptor(let fd): resolved = (fd, false)
      case .controllingTerminal:
        // ENXIO: no controlling terminal. Any other failure also leaves the question on stderr, where it is seen.
        if let tty = try? FileDescriptor.open("/dev/tty", O_WRONLY | O_NOCTTY) {
          resolved = (tty, true)
        } else {
          resolved = (.standardError, false)
        }
      }
      target = resolved
      return resolved.fd
    }
  }
}

/// A line longer than a `LineReader` takes: it was read to its end and dropped, none of it used.
public struct LineTooLong: Error, Sendable, Equatable, CustomStringConvertible {
  /// The line's length in bytes, its newline not counted.
  public var bytes: Int
  /// The reader's limit.
  public var limit: Int

  public var description: String { "the line is \(bytes) bytes; a line is at most \(limit)" }
}

/// Reads lines from a descriptor (a terminal or a pipe) on a dedicated thread, one call at a time; a call ends
/// early, with `CancellationError`, when its task is cancelled. Bytes after a line are kept for the next call.
///
/// A line is taken whole or not at all: one longer than `limit` is read to its newline (or the end of input), dropped,
/// and reported as `LineTooLong`; the next call reads the line after it.
public final class LineReader: Sendable {
  private let fd: FileDescriptor
  /// What was read but not yet taken, and how many bytes of an over-long line have been dropped so far (0 when
  /// none is being dropped).
  private let state = Mutex<(buffer: [UInt8], dropped: Int)>(([], 0))
  /// The longest line accepted, in bytes (its newline, and a `\r` before it, not counted).
  public let limit: Int

  /// Whether it reads a terminal.
  public var isTerminal: Bool { fd.isTerminal }

  /// A reader of `fd`, which it does not close.
  public init(_ fd: FileDescriptor, limit: Int = 64 << 10) {
    self.fd = fd
    self.limit = limit
  }

  /// Drops what was read but not yet taken, and what is waiting in the terminal's input queue (a terminal only):
  /// typed before a question was shown, it is not its answer.
  func discardTypeAhead() async {
    state.withLock { $0.buffer.removeAll() }
    _ = try? await offloaded { () throws(SystemError) in
      if self.fd.isTerminal { _ = tcflush(self.fd.rawValue, TCIFLUSH) }
    }
  }

  /// The next line without its newline (a `\r` before it dropped too), or nil at end of input; a last line without
  /// a newline still counts.
  /// - Throws: `LineTooLong` when the line was longer than `limit` (it was read and dropped); `CancellationError`
  ///   when the task is cancelled while waiting; `SystemError` when `fd` cannot be read.
  public func nextLine() async throws -> String? {
    try await nextLineAndEnd()?.text
  }

  /// The next line as `nextLine()` reads it, and whether a newline ended it (else end of input did: on a terminal,
  /// Ctrl-D after some characters, which leaves the cursor after them).
  public func nextLineAndEnd() async throws -> (text: String, newline: Bool)? {
    let (wake, waker) = try FileDescriptor.pipe()
    let wakerOpen = Mutex(true)
    defer {
      wakerOpen.withLock { open in
        if open { waker.close() }
        open = false
      }
      wake.close()
    }
    let read = try await withTaskCancellationHandler {
      try await offloaded { () throws(SystemError) in try self.readLine(wake: wake) }
    } onCancel: {
      wakerOpen.withLock { open in if open { _ = try? waker.writeAll([1]) } }
    }
    switch read {
    case .line(let line, let newline): return (String(decoding: line, as: UTF8.self), newline)
    case .tooLong(let bytes): throw LineTooLong(bytes: bytes, limit: limit)
    case .none:
      if Task.isCancelled { throw CancellationError() }
      return nil
    }
  }

  private enum Read {
    case line([UInt8], newline: Bool)
    case tooLong(Int)
  }

  /// Blocks until a whole line, an over-long line's end, end of input (nil), or a byte on `wake` (nil).
  private func readLine(wake: FileDescriptor) throws(SystemError) -> Read? {
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let taken = state.withLock { state -> Read? in
        if let newline = state.buffer.firstIndex(of: 0x0A) {
          var line = Array(state.buffer[..<newline])
          state.buffer.removeSubrange(...newline)
          if line.last == 0x0D { line.removeLast() }
          let dropped = state.dropped
          state.dropped = 0
          if dropped > 0 || line.count > limit { return .tooLong(dropped + line.count) }
          return .line(line, newline: true)
        }
        // No newline in sight: a line longer than the limit (and its \r) is dropped as it comes, only counted.
        if state.dropped > 0 || state.buffer.count > limit + 1 {
          state.dropped += state.buffer.count
          state.buffer.removeAll()
        }
        return nil
      }
      if let taken { return taken }
      let ready = try pollReadable([fd, wake], timeoutMilliseconds: -1)
      if ready[1] { return nil }
      let count = try fd.read(into: &chunk)
      if count == 0 {
        // End of input: a last line without a newline still counts.
        return state.withLock { state -> Read? in
          defer { (state.buffer, state.dropped) = ([], 0) }
          var line = state.buffer
          if line.last == 0x0D { line.removeLast() }
          if state.dropped > 0 || line.count > limit { return .tooLong(state.dropped + line.count) }
          return line.isEmpty ? nil : .line(line, newline: false)
        }
      }
      state.withLock { $0.buffer.append(contentsOf: chunk[..<count]) }
    }
  }
}
