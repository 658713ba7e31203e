/// Host → App Intents extension (or app): runs the intent's `perform()` with every required parameter resolved. While
/// it is pending, the extension may ask the user through the host (`host/requestValue`, `host/requestDisambiguation`,
/// `host/requestConfirmation`, `host/requestParameterConfirmation`, `host/requestAuthentication`). A thrown error is an
/// error answer (`ResponseError.performFailed`, read back with `PerformFailure`). See docs/PROTOCOL.md, "App Intents".
public struct PerformAppIntentRequest: RequestMessage, Equatable {
  public static let method = "appIntent/perform"
  public typealias Response = AppIntentPerformResult

  public var intent: AppIntentInstance
  /// 1 for the first perform of a run, one more for each perform again (after `needsValue` or
  /// `continueInForeground`); the host performs at most 5 times per run.
  public var attempt: Int
  /// Where perform runs (App Intents' `systemContext.currentMode`).
  public var mode: PerformMode

  public init(intent: AppIntentInstance, attempt: Int = 1, mode: PerformMode = .background) {
    self.intent = intent
    self.attempt = attempt
    self.mode = mode
  }

  private enum CodingKeys: String, CodingKey { case intent, attempt, mode }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    intent = try container.decode(AppIntentInstance.self, forKey: .intent)
    attempt = try container.decode(Int.self, forKey: .attempt)
    try container.refuse(attempt < 1 ? "attempt is \(attempt); the first perform is attempt 1" : nil)
    mode = try container.decodeCase(PerformMode.self, forKey: .mode, as: "a perform mode")
  }
}

/// Where `perform()` runs: App Intents' `IntentModes` as the running intent sees them.
public enum PerformMode: String, Codable, Sendable, CaseIterable {
  /// In the App Intents extension, or in the app launched in the background.
  case background
  /// In the app, in the foreground (`openAppWhenRun`, or after `continueInForeground`).
  case foreground
}

/// What `perform()` returned, by `kind`:
/// `{"kind": "result", "dialog"?, "value"?, "snippet"?}`, `{"kind": "needsValue", "parameter", "dialog"?}`,
/// `{"kind": "continueInForeground", "dialog"?, "alwaysConfirm"}`.
public enum AppIntentPerformResult: Codable, Sendable, Hashable {
  /// `.result(…)`: the host says `dialog`, draws `snippet` (the tree `ui/configureView` answers with) and returns
  /// `value` (`ReturnsValue`) in `--json`.
  case result(dialog: String? = nil, value: ParameterValue? = nil, snippet: SnippetNode? = nil)
  /// `$parameter.needsValueError(dialog)`: the host asks for `parameter` (with `dialog`, else the parameter's
  /// `requestValueDialog`) and performs again with the answer, `attempt` + 1.
  case needsValue(parameter: String, dialog: String? = nil)
  /// `continueInForeground(dialog, alwaysConfirm:)` (or `needsToContinueInForegroundError`): the host says `dialog`,
  /// asks the user to continue when `alwaysConfirm`, and performs again in the app in the foreground.
  case continueInForeground(dialog: String? = nil, alwaysConfirm: Bool = true)

  /// The kinds, as `kind` names them on the wire.
  public enum Kind: String, Sendable, CaseIterable {
    case result, needsValue, continueInForeground
  }

  public var kind: Kind {
    switch self {
    case .result: .result
    case .needsValue: .needsValue
    case .continueInForeground: .continueInForeground
    }
  }

  /// The dialog of any kind.
  public var dialog: String? {
    switch self {
    case .result(let dialog, _, _), .needsValue(_, let dialog), .continueInForeground(let dialog, _): dialog
    }
  }

  private enum CodingKeys: String, CodingKey { case kind, dialog, value, snippet, parameter, alwaysConfirm }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let kind = try container.decodeCase(Kind.self, forKey: .kind, as: "a kind of perform result")
    let dialog = try container.decodeTextIfPresent(forKey: .dialog)
    switch kind {
    case .result:
      self = .result(
        dialog: dialog, value: try container.decodeValueIfPresent(forKey: .value),
        snippet: try container.decodeSnippetIfPresent(forKey: .snippet))
    case .needsValue:
      self = .needsValue(parameter: try container.decodeName(forKey: .parameter), dialog: dialog)
    case .continueInForeground:
      self = .continueInForeground(
        dialog: dialog, alwaysConfirm: try container.decode(Bool.self, forKey: .alwaysConfirm))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(kind.rawValue, forKey: .kind)
    try container.encodeIfPresent(dialog, forKey: .dialog)
    switch self {
    case .result(_, let value, let snippet):
      try container.encodeIfPresent(value, forKey: .value)
      try container.encodeIfPresent(snippet, forKey: .snippet)
    case .needsValue(let parameter, _): try container.encode(parameter, forKey: .parameter)
    case .continueInForeground(_, let alwaysConfirm): try container.encode(alwaysConfirm, forKey: .alwaysConfirm)
    }
  }
}

extension ResponseError {
  /// An App Intent's thrown error as the answer to `appIntent/perform`: `handlerFailed`, with `message` for the
  /// extension's log and `data` the text the user hears, the error's `localizedStringResource` (nil for an error
  /// without one: the host says Apple's "…could not run because an unknown error occurred").
  public static func performFailed(_ message: String, localizedStringResource: String?) -> ResponseError {
    ResponseError(.handlerFailed, message, data: localizedStringResource)
  }
}

/// How the host takes an error answer to `appIntent/perform` (docs/PROTOCOL.md, "App Intents"): a thrown error is
/// said to the user (exit 1), a cancel is the user's, anything else is a fault of the extension (exit 70).
public enum PerformFailure: Sendable, Hashable {
  /// `handlerFailed`: perform threw. The user hears `localizedStringResource` (`data`), or the generic sentence
  /// when it is nil.
  case threw(message: String, localizedStringResource: String?)
  /// `userCancelled`: perform let the cancel of one of its questions to the user through.
  case cancelledByUser
  /// Any other code, or a `data` that `AppIntentLimits.textProblem` refuses: what is wrong.
  case fault(String)

  public init(_ error: ResponseError) {
    switch error.code {
    case .handlerFailed:
      if let text = error.data, let problem = AppIntentLimits.textProblem(text, field: "the error's data") {
        self = .fault(problem)
      } else {
        self = .threw(message: error.message, localizedStringResource: error.data)
      }
    case .userCancelled: self = .cancelledByUser
    default: self = .fault("\(PerformAppIntentRequest.method) answered the error \(error.code): \(error.message)")
    }
  }
}
