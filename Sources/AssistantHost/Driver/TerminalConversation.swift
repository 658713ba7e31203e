import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import UntrustedText

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
package final class TerminalConversation: Conversation {
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
  package convenience init(
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
  package convenience init(
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
  package func say(_ text: String) async {
    await emit(Untrusted.shown(text) + "\n", to: .dialog)
  }

  /// A line that belongs to a question, on the prompts' stream (the terminal), one line like `say`'s.
  package func explain(_ text: String) async {
    await emit(Untrusted.shown(text) + "\n", to: .prompts)
  }

  /// The snippet under the name of the extension that drew it, each of its lines indented and sanitized to one line.
  package func show(_ view: ConfiguredView, from extensionName: String) async {
    guard let snippet = view.snippet else { return }
    await emit(
      "[\(Untrusted.shown(extensionName))]\n" + snippet.lines.map { "  " + Untrusted.shown($0) + "\n" }.joined(),
      to: .dialog)
  }

  /// Asks on the prompts' stream (see the type): a scripted answer is echoed after the prompt; otherwise, when a
  /// person is at the terminal, the prompt waits on its line for a line of stdin.
  package func ask(_ prompt: String, need: String) async throws -> String {
    try await ask(prompt, need: need, kind: .value)
  }

  /// Asks as `ask(_:need:)` does; when nobody can be asked, the error says how to give an answer of `kind`
  /// (`noTerminalAdvice(for:)`).
  package func ask(_ prompt: String, need: String, kind: AnswerKind) async throws -> String {
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
  package func askPasscode(_ prompt: String, for purpose: PasscodePurpose) async throws -> PasscodeAnswer {
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
  package func askApproval(_ prompt: String) async throws -> PasscodeAnswer {
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
  package var unusedAnswers: [String] { answers.withLock { $0 } }

  private let spinner = Mutex<Task<Void, Never>?>(nil)

  /// A spinner on the prompts' stream, only when a person is at a terminal: a frame every 120 ms, written off the
  /// cooperative pool; nil stops it and clears its line.
  package func progress(_ text: String?) async {
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
  package var dialogWriteFailure: SystemError? { dialogFailure.withLock { $0 } }

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
