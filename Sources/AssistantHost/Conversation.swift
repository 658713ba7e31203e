import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization

/// How the assistant talks to the user: what it says, and how it asks.
public protocol Conversation: Sendable {
  /// Says something to the user (a dialog line).
  func say(_ text: String)
  /// Asks the user and returns the answer.
  /// - Parameter need: what is needed, for the message when the question cannot be asked.
  /// - Throws: `HostError(.valueNeeded)` when there is nobody to ask.
  func ask(_ prompt: String, need: String) throws -> String
  /// Shows a view an Intents UI extension drew (a snippet under the dialog).
  func show(_ view: ConfiguredView, from extensionName: String)
}

extension Conversation {
  public func show(_ view: ConfiguredView, from extensionName: String) {
    guard let snippet = view.snippet else { return }
    say("[\(extensionName)]\n" + snippet.lines.map { "  " + $0 }.joined(separator: "\n"))
  }
}

/// The shell: scripted answers (`--answer`) first, then the terminal; with neither, refuses with exit 75.
///
/// Dialog goes to stdout, or to stderr when `quiet` (the `--json` mode, whose stdout is one JSON object).
public final class TerminalConversation: Conversation {
  private let answers: Mutex<[String]>
  private let interactive: Bool
  private let quiet: Bool

  /// - Parameters:
  ///   - answers: scripted answers, used in order.
  ///   - interactive: whether a person is at the terminal (stdin is a tty).
  ///   - quiet: send dialog to stderr instead of stdout.
  public init(answers: [String], interactive: Bool, quiet: Bool) {
    self.answers = Mutex(answers)
    self.interactive = interactive
    self.quiet = quiet
  }

  public func say(_ text: String) {
    emit(text + "\n")
  }

  public func ask(_ prompt: String, need: String) throws -> String {
    if let scripted = answers.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
      emit("\(prompt) \(scripted)\n")
      return scripted
    }
    guard interactive else {
      throw HostError(
        .valueNeeded,
        "\(need) is needed (\"\(prompt)\"), but there is no terminal to ask: give it on the command line or "
          + "with --answer VALUE")
    }
    emit(prompt + " ")
    guard let line = readLine(strippingNewline: true) else {
      throw HostError(.valueNeeded, "\(need) is needed (\"\(prompt)\"), but input ended")
    }
    return line
  }

  /// Unused scripted answers (a sign of a wrong script).
  public var unusedAnswers: [String] { answers.withLock { $0 } }

  private func emit(_ text: String) {
    try? (quiet ? FileDescriptor.standardError : FileDescriptor.standardOutput).writeAll(Array(text.utf8))
  }
}
