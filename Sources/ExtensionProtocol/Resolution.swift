/// The kinds of `INIntentResolutionResult`.
public enum ResolutionKind: String, Codable, Sendable, CaseIterable {
  /// The value is accepted; `value` carries it (possibly normalised).
  case success
  /// A required value is missing: the host asks the user and resolves again.
  case needsValue
  /// Several candidates match: the user picks one of `candidates` and the host resolves again with it.
  case disambiguation
  /// The value is resolved but the user must confirm it (`value`); "no" is treated as `needsValue`.
  case confirmationRequired
  /// The value cannot be used; `reason` names the unsupported reason. The host asks for another value.
  case unsupported
  /// The handler does not use this parameter.
  case notRequired
}

/// The result of resolving one parameter.
public struct ResolutionResult: Codable, Sendable, Hashable {
  public var kind: ResolutionKind
  /// The resolved value (`success`, `confirmationRequired`).
  public var value: ParameterValue?
  /// The choices (`disambiguation`).
  public var candidates: [ParameterValue]?
  /// The unsupported reason code from the intent definition, e.g. "greaterThanMaximumValue" (`unsupported`).
  public var reason: String?
  /// Text the extension wants shown with an unsupported result when the definition has no template for `reason`.
  public var message: String?

  public init(
    kind: ResolutionKind, value: ParameterValue? = nil, candidates: [ParameterValue]? = nil, reason: String? = nil,
    message: String? = nil
  ) {
    self.kind = kind
    self.value = value
    self.candidates = candidates
    self.reason = reason
    self.message = message
  }

  /// Accepts `value` (possibly normalised).
  public static func success(_ value: ParameterValue) -> ResolutionResult { .init(kind: .success, value: value) }
  /// Asks the user for the value, then resolves again.
  public static let needsValue = ResolutionResult(kind: .needsValue)
  /// The handler does not use the parameter.
  public static let notRequired = ResolutionResult(kind: .notRequired)
  /// Lets the user pick one of `candidates`, then resolves again with it.
  public static func disambiguation(_ candidates: [ParameterValue]) -> ResolutionResult {
    .init(kind: .disambiguation, candidates: candidates)
  }
  /// Asks the user to confirm `value`; no counts as `needsValue`.
  public static func confirmationRequired(_ value: ParameterValue) -> ResolutionResult {
    .init(kind: .confirmationRequired, value: value)
  }
  /// Refuses the value: the host says the definition's text for `reason`, else `message`, and asks again.
  public static func unsupported(reason: String? = nil, message: String? = nil) -> ResolutionResult {
    .init(kind: .unsupported, reason: reason, message: message)
  }
}

/// A response code, by name: the standard codes below, or a custom one from the intent definition
/// ("successCancelledBooking"). Names go on the wire, never numbers.
public struct ResponseCode: RawRepresentable, Codable, Sendable, Hashable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }

  /// No particular outcome: treated as `failure`.
  public static let unspecified: ResponseCode = "unspecified"
  /// Confirm only: go on to handle.
  public static let ready: ResponseCode = "ready"
  /// The host opens the containing app in the foreground with the response's user activity (`ContinuedActivity`).
  public static let continueInApp: ResponseCode = "continueInApp"
  /// Handle only: the work has started; the host sends `intent/handle` again (at most 5 times in all).
  public static let inProgress: ResponseCode = "inProgress"
  /// Done: the host says the code's template, or "Done.".
  public static let success: ResponseCode = "success"
  /// Failed: the host says the code's template, or that there was a problem with the app.
  public static let failure: ResponseCode = "failure"
  /// Failed, and the user must open the app: the host asks whether to open it, as for `continueInApp`.
  public static let failureRequiringAppLaunch: ResponseCode = "failureRequiringAppLaunch"
  /// Handle only: the host launches the containing app to finish the work.
  public static let handleInApp: ResponseCode = "handleInApp"

  /// The codes every intent may answer, whatever its definition says.
  public static let standard: [ResponseCode] = [
    .unspecified, .ready, .continueInApp, .inProgress, .success, .failure, .failureRequiringAppLaunch, .handleInApp,
  ]

  public init(from decoder: Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  public var description: String { rawValue }
}

/// What confirm and handle answer: a code, the response parameters its template uses, and optional user-activity
/// data for the app (`NSUserActivity.userInfo`).
public struct IntentResponse: Codable, Sendable, Hashable {
  /// The outcome, by name.
  public var code: ResponseCode
  /// The response parameters the code's template reads, checked against the definition's types.
  public var parameters: [String: ParameterValue]
  /// The activity handed to the app with `continueInApp` or `failureRequiringAppLaunch`.
  public var userActivity: UserActivity?

  public init(code: ResponseCode, parameters: [String: ParameterValue] = [:], userActivity: UserActivity? = nil) {
    self.code = code
    self.parameters = parameters
    self.userActivity = userActivity
  }
}

/// `NSUserActivity` as far as the host passes it on: a type and string user info.
public struct UserActivity: Codable, Sendable, Hashable {
  public var activityType: String
  public var userInfo: [String: String]

  public init(activityType: String, userInfo: [String: String] = [:]) {
    self.activityType = activityType
    self.userInfo = userInfo
  }
}

/// The user activity a containing app continues when Siri brings it to the foreground (`continueInApp`, or
/// `failureRequiringAppLaunch` when the user agrees to open the app): `application(_:continue:restorationHandler:)`
/// with an `NSUserActivity` whose `interaction` is attached. The host passes it as JSON in the environment variable
/// `INTENTHOST_USER_ACTIVITY`, with `INTENTHOST_LAUNCH_REASON=continueUserActivity` (docs/PROTOCOL.md, "Apps").
public struct ContinuedActivity: Codable, Sendable, Hashable {
  /// The response's activity type, or the intent's class when the response has no user activity (Siri creates one).
  public var activityType: String
  /// The response's `userInfo` (empty when it had no user activity).
  public var userInfo: [String: String]
  /// The intent and the response that sent the user to the app.
  public var interaction: Interaction

  /// The activity for `response` to `intent`.
  public init(intent: Intent, response: IntentResponse, handlingStatus: String) {
    activityType = response.userActivity?.activityType ?? intent.name
    userInfo = response.userActivity?.userInfo ?? [:]
    interaction = Interaction(intent: intent, response: response, handlingStatus: handlingStatus)
  }

  /// The most bytes of JSON the host passes (one environment string stays far below Linux's 128 KiB).
  public static let maximumSize = 65536
}

/// An intent and how it was answered (`INInteraction`), what UI extensions and apps are given.
public struct Interaction: Codable, Sendable, Hashable {
  public var intent: Intent
  public var response: IntentResponse?
  /// `INIntentHandlingStatus`: `success`, `failure`, `ready`, `inProgress`, `deferredToApplication`, …; absent
  /// when not known.
  public var handlingStatus: String?

  public init(intent: Intent, response: IntentResponse?, handlingStatus: String? = nil) {
    self.intent = intent
    self.response = response
    self.handlingStatus = handlingStatus
  }
}
