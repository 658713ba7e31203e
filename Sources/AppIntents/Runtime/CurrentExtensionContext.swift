// What the host gave the extension (its bundle, container and app groups), for the code the runtime calls: a
// perform(), an options provider, an entity query.
import ExtensionSDK

/// The extension's bundle, private container, locale and app groups, as the host gave them in `initialize`.
public typealias ExtensionContext = ExtensionSDK.ExtensionContext

extension ExtensionContext {
  /// The context of the extension while it answers one of the host's requests (`appIntent/perform`,
  /// `appIntent/options`, `entity/query`); nil outside one. The runtime sets it; a test sets it with
  /// `ExtensionContext.$answering.withValue(context) { ... }`.
  @TaskLocal public static var answering: ExtensionContext?

  /// The context of the request being answered: what an intent, an options provider or an entity query reaches its
  /// app group with, where Apple's code calls `FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`.
  ///
  /// ```swift
  /// let container = try ExtensionContext.current().appGroup("group.com.example.fuelorder")
  /// ```
  /// - Throws: `AppIntentsUsageError.outsideRequest` when no request is being answered.
  public static func current() throws(AppIntentsUsageError) -> ExtensionContext {
    guard let answering else { throw .outsideRequest }
    return answering
  }
}
