/// Asks the extension to finish its work. After answering, it must not start new work; the host then sends `exit`.
public struct ShutdownRequest: RequestMessage, Equatable {
  public static let method = "shutdown"
  public typealias Response = EmptyObject

  public init() {}
}

/// Tells the extension to exit now (status 0 after `shutdown`, 1 without it).
public struct ExitNotification: NotificationMessage, Equatable {
  public static let method = "exit"

  public init() {}
}
