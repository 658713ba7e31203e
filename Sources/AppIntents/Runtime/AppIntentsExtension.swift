// The entry point of an App Intents extension (or of an app that runs its own intents): serve the host's App
// Intents requests with the intents the `@main` type lists.
import ExtensionProtocol
import ExtensionSDK
import ExtensionTransport

/// The `@main` type of an App Intents extension. Swift without macros cannot find the intent types of a module, so
/// this lists them: the one line Apple's framework does not need. The intents a shortcut names are added to them.
///
/// ```swift
/// @main
/// struct FuelOrderIntents: AppIntentsExtension {
///   static let intents: [any AppIntent.Type] = [OrderFuelIntent.self]
///   static let shortcuts: (any AppShortcutsProvider.Type)? = FuelShortcuts.self
/// }
/// ```
///
/// Run by the host, it serves the protocol on stdin and stdout (docs/PROTOCOL.md, "App Intents"). Run as
/// `EXECUTABLE --emit-appintents-metadata DIR`, it writes `DIR/Metadata.appintents` from what it declares.
public protocol AppIntentsExtension {
  static var intents: [any AppIntent.Type] { get }
  static var shortcuts: (any AppShortcutsProvider.Type)? { get }
}

extension AppIntentsExtension {
  public static var shortcuts: (any AppShortcutsProvider.Type)? { nil }

  /// Every intent type: those listed, then those only a shortcut names.
  public static var allIntents: [any AppIntent.Type] {
    var all = intents
    for shortcut in shortcuts?.appShortcuts ?? []
    where !all.contains(where: { $0.identifier == shortcut.intentType.identifier }) {
      all.append(shortcut.intentType)
    }
    return all
  }

  public static func main() async {
    let catalog = IntentCatalog(intents: allIntents)
    await serveMoreMethods(
      MoreMethods(
        methods: [PerformAppIntentRequest.method, AppIntentOptionsRequest.method, EntityQueryRequest.method],
        answer: { message, context in try await catalog.answer(message, context: context) }))
  }
}
