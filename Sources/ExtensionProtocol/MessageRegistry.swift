#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

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

  /// Requests that share a method with one of `requests` and are told apart by their params: `DonateAppIntentRequest`
  /// (`host/donate` with an `appIntent`).
  public static let variants: [any RequestMessage.Type] = [DonateAppIntentRequest.self]

  /// Notifications, by method name.
  public static let notifications: [any NotificationMessage.Type] = [
    ExitNotification.self,
    CancelRequestNotification.self,
  ]

  /// The request type for a method name, if the protocol has one.
  public static func requestType(for method: String) -> (any RequestMessage.Type)? {
    requests.first { $0.method == method }
  }

  /// The request type of the request line `line` of method `method`: a variant when its params say so
  /// (`DonateAppIntentRequest.Kind`), else `requestType(for:)`.
  public static func requestType(for method: String, line: Data) -> (any RequestMessage.Type)? {
    struct Probe: Decodable { var params: DonateAppIntentRequest.Kind? }
    if method == DonateRequest.method,
      (try? WireCoding.decoder().decode(Probe.self, from: line))?.params?.isAppIntent == true
    {
      return DonateAppIntentRequest.self
    }
    return requestType(for: method)
  }

  /// The notification type for a method name, if the protocol has one.
  public static func notificationType(for method: String) -> (any NotificationMessage.Type)? {
    notifications.first { $0.method == method }
  }
}
