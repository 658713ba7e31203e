/// What a process that speaks the protocol is, as `initialize` tells it in `extensionPoint`: an Intents extension, an
/// Intents UI extension, or a containing app the host launched to handle an intent (`handleInApp`).
public enum SessionKind: Sendable, Hashable, CaseIterable {
  /// An Intents extension (`com.apple.intents-service`): resolves, confirms and handles intents.
  case intentsExtension
  /// An Intents UI extension (`com.apple.intents-ui-service`): draws an intent's card.
  case intentsUIExtension
  /// A containing app launched in the background to handle an intent its extension handed over (`handleInApp`,
  /// `INTENTHOST_LAUNCH_REASON=handleInApp`): `com.intenthost.app.handle-intent`, which no bundle declares.
  case app

  /// The `extensionPoint` of `initialize` for this kind.
  public var extensionPoint: String {
    switch self {
    case .intentsExtension: "com.apple.intents-service"
    case .intentsUIExtension: "com.apple.intents-ui-service"
    case .app: "com.intenthost.app.handle-intent"
    }
  }

  /// The kind `extensionPoint` names; any point but the UI extensions' and the app's is an Intents extension's (the
  /// host runs no other kind).
  public init(extensionPoint: String) {
    switch extensionPoint {
    case SessionKind.app.extensionPoint: self = .app
    case SessionKind.intentsUIExtension.extensionPoint: self = .intentsUIExtension
    default: self = .intentsExtension
    }
  }
}
