/// Cancels a request still running; the receiver answers it with `requestCancelled` (or its result, if done).
public struct CancelRequestNotification: NotificationMessage, Equatable {
  public static let method = "$/cancelRequest"

  public var id: RequestID

  public init(id: RequestID) { self.id = id }
}
