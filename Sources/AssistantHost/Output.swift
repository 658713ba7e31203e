import BundleManifest
import IntentHostSystem
import UntrustedText

// What the host prints goes through `Untrusted` (the one sanitizer) at these choke points: the conversation's
// `say`, `ask` and `show` (dialog, prompts, snippets), `hostMessage` (every error and warning line on stderr),
// `Diagnostic.shown` (validator findings), `IntentOutcome.json()` and the other JSON printers (`Untrusted.shown(json:)`),
// the command line's `DefaultsText`, and in ProcessSupervision the extension's log lines and the relayed output of `open`.

extension HostError {
  /// Whether the message is one line by contract: every error but a usage error (which may carry a usage text), a
  /// data error (which may list a manifest's diagnostics) and a missing input (which shows `validate`'s finding).
  /// Faults and refusals are always one line.
  package var isOneLine: Bool { status != .usage && status != .dataError && status != .noInput }

  /// The error as the user reads it on stderr (`hostMessage`), without the final newline.
  package var printed: String { hostMessage(message, oneLine: isOneLine) }
}

/// `assistant: ` and `message`, as the user reads it on stderr: every untrusted character escaped
/// (`Untrusted.shown`). A one-line message has its line breaks escaped too; in another, each further line is
/// indented by two spaces, so only the host's first line starts at the left edge and no text inside a message can
/// pass for another `assistant:` line.
package func hostMessage(_ message: String, oneLine: Bool) -> String {
  if oneLine { return "assistant: " + Untrusted.shown(message) }
  return "assistant: "
    + Untrusted.shown(message, multiline: true).split(separator: "\n", omittingEmptySubsequences: false)
    .joined(separator: "\n  ")
}

/// Writes a message of the host's (`hostMessage`: an error, a warning) on its own line to stderr, off the
/// cooperative pool.
package func writeHostMessage(_ message: String, oneLine: Bool = true) async {
  let bytes = Array((hostMessage(message, oneLine: oneLine) + "\n").utf8)
  _ = try? await offloaded { () throws(SystemError) in try FileDescriptor.standardError.writeAll(bytes) }
}

extension Diagnostic {
  /// `description` with each field sanitized to one line (`Untrusted.shown`), the rule aside (it is one of ours):
  /// what a terminal shows of a finding, whose message may quote a manifest's values.
  package var shown: String {
    var safe = self
    safe.file = Untrusted.shown(file)
    safe.keyPath = Untrusted.shown(keyPath)
    safe.message = Untrusted.shown(message)
    safe.fix = fix.map { Untrusted.shown($0) }
    return safe.description
  }
}
