// The conversation a running perform() has with the assistant: asking for a value, a choice or a confirmation.
import ExtensionProtocol

/// What `perform()` can ask of the assistant while it runs. The App Intents runtime gives one to each perform (a
/// task-local value), and `$parameter.requestValue()`, `requestConfirmation(...)` and their kin use it; outside
/// perform there is none, and they throw `AppIntentsUsageError.outsidePerform`.
public protocol PerformConversation: Sendable {
  /// Asks the user for a value of `parameter`.
  func requestValue(parameter: String, dialog: IntentDialog?) async throws -> ParameterValue
  /// Asks the user to choose one of `candidates` for `parameter`.
  func requestDisambiguation(parameter: String, candidates: [ParameterValue], dialog: IntentDialog?) async throws
    -> ParameterValue
  /// Asks the user whether `value` is right for `parameter`.
  func requestConfirmation(parameter: String, value: ParameterValue, dialog: IntentDialog?) async throws -> Bool
  /// Asks the user to confirm the whole intent; returns when they do, throws `AppIntentsError.userCancelled` when
  /// they do not.
  func requestConfirmation(
    actionName: ConfirmationActionName, dialog: IntentDialog?, showPrompt: Bool, snippet: SnippetNode?
  ) async throws
}

/// The conversation of the perform running in this task, if any.
public enum PerformContext {
  @TaskLocal public static var conversation: (any PerformConversation)?

  static func current() throws -> any PerformConversation {
    guard let conversation else { throw AppIntentsUsageError.outsidePerform }
    return conversation
  }
}

/// A call that only `perform()` may make, made elsewhere.
public enum AppIntentsUsageError: Error, Sendable, Equatable, CustomStringConvertible {
  case outsidePerform
  /// `ExtensionContext.current()` called while no request of the host is being answered.
  case outsideRequest
  /// A parameter read before it has a value, and with no default.
  case noValue(parameter: String)
  /// The host sent a value of another type than the parameter's.
  case wrongType(parameter: String, expected: String, got: String)
  /// A type or parameter name the metadata cannot hold.
  case invalidName(String, problem: String)

  public var description: String {
    switch self {
    case .outsidePerform:
      "requestValue, requestDisambiguation and requestConfirmation can only be called while perform() runs"
    case .outsideRequest:
      "the extension's context (its container and app groups) is known only while it answers the host: in perform(), "
        + "an options provider or an entity query"
    case .noValue(let parameter): "the parameter \(parameter) has no value and no default"
    case .wrongType(let parameter, let expected, let got):
      "the value given for \(parameter) is \(got), not \(expected)"
    case .invalidName(let name, let problem): "\(name) cannot name an intent, a parameter or a type: \(problem)"
    }
  }
}

/// Why perform ends without a result: the user declined a confirmation, or a parameter needs a new value.
public enum AppIntentsError: Error, Sendable, Equatable {
  /// The user said no to a confirmation (Apple: requestConfirmation "throws an error if they cancel it").
  case userCancelled
  /// `needsValueError`: perform runs again once the user has given `parameter` a value.
  case needsValue(parameter: String, dialog: IntentDialog?)
}
