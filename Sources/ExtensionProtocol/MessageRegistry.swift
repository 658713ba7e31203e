/// Every message of the protocol. Adding a message: see docs/PROTOCOL.md, "Adding a message".
public enum MessageRegistry {
  /// Requests, by method name: the host's, then those an extension (or an app) sends to the host.
  public static let requests: [any RequestMessage.Type] = [
    InitializeRequest.self,
    ResolveParameterRequest.self,
    ConfirmIntentRequest.self,
    HandleIntentRequest.self,
    ConfigureViewRequest.self,
    PerformAppIntentRequest.self,
    AppIntentOptionsRequest.self,
    EntityQueryRequest.self,
    ShutdownRequest.self,
    RequestAuthenticationRequest.self,
    RequestValueRequest.self,
    RequestDisambiguationRequest.self,
    RequestConfirmationRequest.self,
    RequestParameterConfirmationRequest.self,
    DonateRequest.self,
    DeleteDonationsRequest.self,
    SetVocabularyRequest.self,
    SetShortcutSuggestionsRequest.self,
  ]

  /// Notifications, by method name.
  public static let notifications: [any NotificationMessage.Type] = [
    ExitNotification.self,
    CancelRequestNotification.self,
  ]

  /// The request type for a method name, if the protocol has one.
  public static func requestType(for method: String) -> (any RequestMessage.Type)? {
    requests.first { $0.method == method }
  }

  /// The notification type for a method name, if the protocol has one.
  public static func notificationType(for method: String) -> (any NotificationMessage.Type)? {
    notifications.first { $0.method == method }
  }
}
