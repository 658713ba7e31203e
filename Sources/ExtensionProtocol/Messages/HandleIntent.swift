/// Handle a confirmed intent (`handle(intent:completion:)`).
public struct HandleIntentRequest: RequestMessage, Equatable {
  public static let method = "intent/handle"
  public typealias Response = IntentResponse

  public var intent: Intent

  public init(intent: Intent) { self.intent = intent }
}
