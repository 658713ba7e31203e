import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import UntrustedText

/// How the assistant talks to the user: what it says, and how it asks.
///
/// Every requirement is async: a terminal is read and written off the cooperative pool, and an asking conversation
/// ends with the task that waits for it (cancellation, e.g. Ctrl-C).
package protocol Conversation: Sendable {
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
package enum AnswerKind: Sendable, Equatable {
  /// A parameter's value ("What kind of workout?").
  case value
  /// yes or no ("Ready to start your wall climb workout in Ascent?", "Unlock it?").
  case yesNo
  /// One of a list, by number or name ("Choose 1-2:").
  case choice
}

/// What a passcode is asked for.
package enum PasscodePurpose: Sendable, Equatable {
  /// To unlock the device (`--passcode-stdin` in a script).
  case unlock
  /// To approve an extension's transaction, `host/requestAuthentication` (`--authentication-stdin` in a script).
  case authentication
}

/// What came of asking for the passcode.
package enum PasscodeAnswer: Sendable, Equatable {
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
  package func ask(_ prompt: String, need: String, kind: AnswerKind) async throws -> String {
    try await ask(prompt, need: need)
  }

  /// By default nothing is shown.
  package func progress(_ text: String?) async {}

  /// By default, said as dialog.
  package func explain(_ text: String) async { await say(text) }

  /// By default nobody can be asked.
  package func askPasscode(_ prompt: String, for purpose: PasscodePurpose) async throws -> PasscodeAnswer {
    .unavailable("this conversation cannot ask for a passcode")
  }

  /// By default nobody can be asked.
  package func askApproval(_ prompt: String) async throws -> PasscodeAnswer {
    .unavailable("this conversation cannot ask for an approval")
  }

  /// Says the snippet under the name of the extension that drew it, each of its lines indented. The name and each
  /// line are sanitized to one line, so nothing in a snippet can leave its box or pass for the dialog.
  package func show(_ view: ConfiguredView, from extensionName: String) async {
    guard let snippet = view.snippet else { return }
    await say(
      "[\(Untrusted.shown(extensionName))]\n" + snippet.lines.map { "  " + Untrusted.shown($0) }.joined(separator: "\n")
    )
  }
}

/// Where the questions of a `TerminalConversation` go: to the person at the terminal, never into a redirected stdout
/// (`assistant "Book room 90 with Rooms" > out.txt` asks on the terminal and leaves only the dialog in the file).
package enum PromptDestination: Sendable {
  /// The controlling terminal (`/dev/tty`), opened write-only, without becoming the controlling terminal and
  /// close-on-exec, once, when the first question is written; stderr when the process has no controlling terminal
  /// (a daemon, a test that spawns the host in a session of its own).
  case controllingTerminal
  /// This descriptor, e.g. a pipe in a test. The conversation does not close it.
  case descriptor(FileDescriptor)
}
