/// The assistant's exit statuses (sysexits-style). Documented in README.md and `assistant --help`.
public enum ExitStatus: Int32, Sendable {
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
  /// The host's own I/O failed (TEMPORARY until merge).
  case ioError = 74
  /// The extension crashed, exited, timed out or broke the protocol.
  case extensionFault = 70
  /// A value is needed but cannot be asked (no terminal, no scripted answer).
  case valueNeeded = 75
  /// Refused: locked device, authentication, entitlement or sandbox.
  case refused = 77
}

/// An error the assistant reports in one line and exits with.
public struct HostError: Error, Sendable, CustomStringConvertible {
  public var status: ExitStatus
  public var message: String

  public init(_ status: ExitStatus, _ message: String) {
    self.status = status
    self.message = message
  }

  public var description: String { message }
}
