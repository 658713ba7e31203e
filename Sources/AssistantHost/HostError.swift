import IntentHostSystem
import Understanding

/// The assistant's exit statuses (sysexits-style). Documented in README.md and `assistant --help`.
package enum ExitStatus: Int32, Sendable {
  /// The intent was handled with a success response.
  case success = 0
  /// The intent was handled with a failure response.
  case failureResponse = 1
  /// The command line is wrong.
  case usage = 64
  /// A manifest or a data file is invalid.
  case dataError = 65
  /// A path given on the command line does not exist (`install` or `validate` of a missing bundle or file). The
  /// name and number are sysexits' `EX_NOINPUT`, "cannot open input".
  case noInput = 66
  /// No installed app or intent matches.
  case noMatch = 69
  /// The extension crashed, exited, timed out or broke the protocol.
  case extensionFault = 70
  /// The host's home (or one of its folders) does not exist and cannot be created: a path under a regular file, a
  /// folder the user may not write. The message names the folder, the reason and the fix. (sysexits' EX_CANTCREAT.)
  case cannotCreate = 73
  /// The host's own input or output failed: reading or writing its state (the owner record, the identities, an
  /// installed bundle, an app group's document), or writing to stdout for a reason other than a closed pipe. Never
  /// the extension's fault, nor a refusal. (sysexits' EX_IOERR.)
  case ioError = 74
  /// A value is needed but cannot be asked (no terminal, no scripted answer).
  case valueNeeded = 75
  /// Refused: locked device, authentication, entitlement or sandbox.
  case refused = 77
}

/// An error the assistant reports in one line and exits with.
package struct HostError: Error, Sendable, CustomStringConvertible {
  package var status: ExitStatus
  package var message: String

  package init(_ status: ExitStatus, _ message: String) {
    self.status = status
    self.message = message
  }

  package var description: String { message }
}

extension ExitStatus {
  /// The exit status the assistant gives an `UnderstandingError` of `kind`: `usage` (64), `dataError` (65) or
  /// `noMatch` (69).
  package init(_ kind: UnderstandingError.Kind) {
    switch kind {
    case .usage: self = .usage
    case .dataError: self = .dataError
    case .noMatch: self = .noMatch
    }
  }
}

extension HostError {
  /// `error` as the assistant reports it: its message as it is, and the exit status of its kind
  /// (`ExitStatus.init(_:)`).
  package init(_ error: UnderstandingError) {
    self.init(ExitStatus(error.kind), error.message)
  }
}

extension HostError {
  /// Any error that ended a use case, as the assistant reports it: a `HostError` as it is; an `UnderstandingError`
  /// with the status of its kind (`init(_:)`); a failed write of stdout as "cannot write to stdout" (74); the host's
  /// own I/O errors 74, never 70 (which means an extension's fault). The command line and the test host both report
  /// through it, so a test sees the status a user would.
  package init(reporting error: any Error) {
    switch error {
    case let error as HostError: self = error
    case let error as UnderstandingError: self.init(error)
    case let error as SystemError where error.isStandardOutput:
      self.init(.ioError, "cannot write to stdout: \(error.reason)")
    case let error as SystemError: self.init(.ioError, "the host's own I/O failed: \(error)")
    default: self.init(.ioError, "the host failed: \(error)")
    }
  }
}
