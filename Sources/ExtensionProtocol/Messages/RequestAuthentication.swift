/// Extension (or app serving `handleInApp`) → host: asks the host to authenticate the user before a transaction goes
/// ahead, the seed's "Additional Authorization" (Touch ID, Face ID or the passcode on iOS; the passcode here). The
/// host shows `reason` and asks for the device's passcode (with no passcode set, a yes/no confirmation).
///
/// Allowed only while one of the host's `intent/confirm` or `intent/handle` requests to the sender is pending, one at
/// a time per session; otherwise answered with `notAllowedNow` or `busy`. See docs/PROTOCOL.md, "Requests to the
/// host".
public struct RequestAuthenticationRequest: RequestMessage, Equatable {
  public static let method = "host/requestAuthentication"
  public typealias Response = RequestAuthenticationResult

  /// The longest reason accepted, in Unicode scalars.
  public static let maximumReasonLength = 200

  /// Why the user should authenticate, shown to them after the extension's name: "Send 20 € to Ada". Not blank, at
  /// most `maximumReasonLength` Unicode scalars; control characters are shown escaped.
  public var reason: String

  public init(reason: String) { self.reason = reason }

  /// What makes `reason` unacceptable, or nil when it is fine: blank, or longer than `maximumReasonLength`.
  public static func reasonProblem(_ reason: String) -> String? {
    if reason.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) { return "reason is empty" }
    let length = reason.unicodeScalars.count
    if length > maximumReasonLength {
      return "reason is \(length) Unicode scalars long; the limit is \(maximumReasonLength)"
    }
    return nil
  }
}

/// What came of `host/requestAuthentication`.
public enum AuthenticationOutcome: String, Codable, Sendable, CaseIterable {
  /// The user gave the right passcode (or, with no passcode set, said yes): go ahead.
  case approved
  /// The passcode was wrong (counted as a failed attempt), or, with no passcode set, the user said no.
  case denied
  /// The user gave no passcode (an empty line, end of input), or nobody could be asked.
  case cancelled
  /// Too many wrong passcodes: attempts are refused for now; the user was not asked.
  case lockedOut
}

/// The host's answer to `host/requestAuthentication`: `{"outcome": "approved"}`.
public struct RequestAuthenticationResult: Codable, Sendable, Equatable {
  public var outcome: AuthenticationOutcome

  public init(outcome: AuthenticationOutcome) { self.outcome = outcome }
}
