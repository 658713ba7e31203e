#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// In the containing app: handling an intent that the app's Intents extension handed over with `handleInApp`
/// (SiriKit's `application(_:handle:completionHandler:)`).
///
/// The host launches the app in the background with `INTENTHOST_LAUNCH_REASON=handleInApp` and speaks the same
/// protocol as to an extension: `initialize`, one `intent/handle`, `shutdown`, `exit`. Check `isRequested` first
/// thing in the app's main, before reading arguments:
///
/// ```swift
/// if InAppIntentHandling.isRequested {
///   await InAppIntentHandling.serve { intent in intent.name == "BookRoomIntent" ? BookRoomInApp() : nil }
/// }
/// ```
public enum InAppIntentHandling {
  /// True when the host launched this app to handle an intent rather than for the user.
  public static var isRequested: Bool {
    LaunchEnvironment.LaunchReason(environment: ProcessInfo.processInfo.environment) == .handleInApp
  }

  /// Serves the handed-over intent with the handler `handlerFor` picks (nil: the app does not handle that intent),
  /// then exits. Only `handle` is called; `in` carries the app's context (its `kind` is `SessionKind.app`, extension
  /// point `com.intenthost.app.handle-intent`), connected to the host: the handler may call
  /// `context.requestAuthentication(reason:)` as an extension's `handle` does. (An app launched by
  /// `assistant open` speaks no protocol, so its `AppContext` has no such call.)
  public static func serve(_ handlerFor: @escaping @Sendable (Intent) -> (any IntentHandler)?) async -> Never {
    await ExtensionRunner.serve(handlerFor: handlerFor)
  }
}
