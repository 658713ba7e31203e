/// An intent type generated from an intent definition (`BookRoomIntent` for the intent `BookRoom`): the intent's
/// parameters as typed properties (docs/INTENT-CODEGEN.md).
///
/// Requirements (all generated):
/// - `className`: the class name `IntentsSupported` lists, e.g. "BookRoomIntent".
/// - `init(_:)`: the typed view of an intent of that class; a value of another type than the parameter's reads as
///   missing (nil).
/// - `untyped`: the intent as the wire carries it.
public protocol TypedIntent: Sendable, Hashable {
  static var className: String { get }
  init(_ intent: Intent)
  var untyped: Intent { get }
}

/// A response type generated from an intent definition (`BookRoomIntentResponse`): a code of the definition and the
/// response parameters as typed properties.
///
/// Requirements (all generated):
/// - `init(_:)`: the typed view of a response; a code the definition does not know reads as `unspecified`.
/// - `untyped`: the response as the wire carries it.
public protocol TypedIntentResponse: Sendable, Hashable {
  init(_ response: IntentResponse)
  var untyped: IntentResponse { get }
}

/// The typed result of resolving one parameter whose values are `Value`s: what a generated `resolveNAME(for:in:)`
/// returns, the typed form of `ResolutionResult` (SiriKit's `INIntegerResolutionResult`, `INStringResolutionResult`
/// and the generated `…ResolutionResult` classes). A parameter that supports multiple values resolves as a whole:
/// `Value` is the array (`[String]`), as `ResolutionResult` carries one result per parameter.
public struct TypedResolutionResult<Value: IntentValue>: Sendable, Hashable {
  /// What the result says.
  public var kind: ResolutionKind
  /// The resolved value (`success`, `confirmationRequired`).
  public var value: Value?
  /// The choices (`disambiguation`).
  public var candidates: [Value]?
  /// The unsupported reason code from the intent definition, e.g. "noSuchRoom" (`unsupported`).
  public var reason: String?
  /// Text shown with an unsupported result when the definition has no template for `reason`.
  public var message: String?

  init(kind: ResolutionKind, value: Value? = nil, candidates: [Value]? = nil, reason: String? = nil, message: String?) {
    self.kind = kind
    self.value = value
    self.candidates = candidates
    self.reason = reason
    self.message = message
  }

  /// The value is accepted (possibly normalised).
  public static func success(with value: Value) -> Self { Self(kind: .success, value: value, message: nil) }
  /// A required value is missing: the host asks the user and resolves again.
  public static var needsValue: Self { Self(kind: .needsValue, message: nil) }
  /// The handler does not use this parameter.
  public static var notRequired: Self { Self(kind: .notRequired, message: nil) }
  /// Several candidates match: the user picks one and the host resolves again with it.
  public static func disambiguation(with candidates: [Value]) -> Self {
    Self(kind: .disambiguation, candidates: candidates, message: nil)
  }
  /// The value is resolved, but the user must confirm it; "no" is treated as `needsValue`.
  public static func confirmationRequired(with value: Value) -> Self {
    Self(kind: .confirmationRequired, value: value, message: nil)
  }
  /// The value cannot be used: `reason` is an unsupported reason code of the parameter in the definition, `message`
  /// the text to show when the definition has no template for it. The host asks for another value.
  public static func unsupported(reason: String? = nil, message: String? = nil) -> Self {
    Self(kind: .unsupported, reason: reason, message: message)
  }

  /// What a parameter resolves as when the handler does not implement its resolve method (Apple's default): the
  /// value given (`success`), or `notRequired` when there is none.
  public static func accepting(_ value: Value?) -> Self {
    value.map { .success(with: $0) } ?? .notRequired
  }

  /// The result as the wire carries it.
  public var untyped: ResolutionResult {
    ResolutionResult(
      kind: kind, value: value?.parameterValue, candidates: candidates?.map(\.parameterValue), reason: reason,
      message: message)
  }
}
