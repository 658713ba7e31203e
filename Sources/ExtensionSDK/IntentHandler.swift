@_exported import AppGroupStore
@_exported import ExtensionProtocol

/// What an Intents extension implements for one intent: `resolve` per parameter, `confirm`, then `handle`.
///
/// Requirements:
/// - `handle(_:in:)`: required. Answer `success`, `failure`, a custom code of the intent definition, or
///   `handleInApp`/`continueInApp`; never `ready`.
/// - `resolve(_:of:in:)`: optional. The default accepts a present value (`success`) and answers `notRequired` for a
///   missing one.
/// - `confirm(_:in:)`: optional. The default answers `ready`.
///
/// The SDK creates a fresh handler for every phase (as SiriKit does), so keep no state between calls: everything
/// you need is in the intent, the context, or the app group.
public protocol IntentHandler: Sendable {
  func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws -> ResolutionResult
  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse
  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse
}

extension IntentHandler {
  public func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws
    -> ResolutionResult
  {
    if let value = intent[parameter] { return .success(value) }
    return .notRequired
  }

  public func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    IntentResponse(code: .ready)
  }
}

/// An Intents extension: the `INExtension` subclass. Mark the type `@main`; the SDK serves the protocol on
/// stdin/stdout until the host shuts it down.
///
/// Requirements:
/// - `init()`: called once per request, so each phase gets a fresh instance.
/// - `handler(for:)`: pick the handler for an intent, or nil if this extension does not handle it. Do nothing else
///   here.
public protocol IntentsExtension: SendableMetatype {
  init()
  func handler(for intent: Intent) -> (any IntentHandler)?
}

extension IntentsExtension {
  /// The entry point: serves the protocol and exits.
  public static func main() async {
    await ExtensionRunner.serve { Self().handler(for: $0) }
  }
}

/// What the host told the extension at `initialize`: who it is and where its data lives.
public struct ExtensionContext: Sendable {
  public let bundleIdentifier: String
  public let extensionPoint: String
  public let bundlePath: String
  /// The private container (read-write).
  public let containerPath: String
  /// The user's locale, e.g. "fr_FR" (`assistant --locale`): the language of the text the extension makes itself (an
  /// `unsupported` message, a snippet). The host translates the intent definition's text.
  public let locale: String
  /// The app groups the extension's entitlements list, and their paths.
  public let appGroups: [AppGroupLocation]

  public init(
    bundleIdentifier: String, extensionPoint: String, bundlePath: String, containerPath: String, locale: String,
    appGroups: [AppGroupLocation]
  ) {
    self.bundleIdentifier = bundleIdentifier
    self.extensionPoint = extensionPoint
    self.bundlePath = bundlePath
    self.containerPath = containerPath
    self.locale = locale
    self.appGroups = appGroups
  }

  /// The shared container of `identifier` (`containerURL(forSecurityApplicationGroupIdentifier:)`).
  /// - Throws: `StoreError.invalidGroupIdentifier`, or `.notEntitled` when the bundle's entitlements do not list
  ///   the group (iOS returns no container then).
  public func appGroup(_ identifier: String) throws(StoreError) -> AppGroupContainer {
    try openAppGroup(identifier, from: appGroups, owner: bundleIdentifier)
  }

}

/// Opens the container of `identifier` if `groups` (what the host granted from the entitlements) lists it.
func openAppGroup(_ identifier: String, from groups: [AppGroupLocation], owner: String) throws(StoreError)
  -> AppGroupContainer
{
  if let problem = AppGroupContainer.identifierProblem(identifier) {
    throw .invalidGroupIdentifier(identifier, problem: problem)
  }
  guard let location = groups.first(where: { $0.identifier == identifier }) else {
    throw .notEntitled(group: identifier, entitlements: "the entitlements of \(owner)")
  }
  return try AppGroupContainer(identifier: identifier, path: location.path)
}
