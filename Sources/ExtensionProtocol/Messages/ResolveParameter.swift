/// Resolve one parameter of an intent (`resolve<Parameter>(for:with:)`).
public struct ResolveParameterRequest: RequestMessage, Equatable {
  public static let method = "intent/resolve"
  public typealias Response = ResolutionResult

  public var intent: Intent
  /// The parameter's name in the intent definition, e.g. "roomNumber".
  public var parameter: String

  public init(intent: Intent, parameter: String) {
    self.intent = intent
    self.parameter = parameter
  }
}
