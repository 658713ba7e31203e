/// Confirm a fully resolved intent (`confirm(intent:completion:)`). Answer `ready` to go on to handle.
public struct ConfirmIntentRequest: RequestMessage, Equatable {
  public static let method = "intent/confirm"
  public typealias Response = IntentResponse

  public var intent: Intent

  public init(intent: Intent) { self.intent = intent }
}
