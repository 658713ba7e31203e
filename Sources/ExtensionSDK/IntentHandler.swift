@_exported import AppGroupStore
@_exported import ExtensionProtocol
import ExtensionTransport

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
  /// Resolves the parameter named `parameter` of `intent`: once per parameter the definition marks for resolution,
  /// in its order, and again after the user answers.
  /// - Throws: any error, which ends the intent as a fault of the extension (`handlerFailed`); answer an expected
  ///   problem with `ResolutionResult.unsupported(reason:message:)` instead.
  func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws -> ResolutionResult
  /// Says whether `intent` can go ahead: `ready`, or any other code, which ends the intent with that response.
  /// - Throws: as `resolve(_:of:in:)`.
  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse
  /// Does the work of `intent` (resolved and confirmed) and says how it went.
  /// - Throws: as `resolve(_:of:in:)`; answer an expected failure with `failure` or a code of the definition.
  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse
}

extension IntentHandler {
  /// Accepts a present value as it is (`success`) and answers `notRequired` for a missing one: a required
  /// parameter needs a `resolve` of its own that answers `needsValue`.
  public func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws
    -> ResolutionResult
  {
    if let value = intent[parameter] { return .success(value) }
    return .notRequired
  }

  /// Answers `ready`.
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
  /// Makes the extension; called once per request.
  init()
  /// The handler of `intent`, or nil when this extension does not handle it (answered `noHandler`, a fault).
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
  /// The extension's `CFBundleIdentifier`, e.g. "com.example.rooms.RoomsIntents".
  public let bundleIdentifier: String
  /// Its `NSExtensionPointIdentifier`, e.g. "com.apple.intents-service" (`SessionKind.extensionPoint`).
  public let extensionPoint: String
  /// What this process is to the host, as `extensionPoint` says: an Intents or Intents UI extension, or a containing
  /// app serving `handleInApp` (`InAppIntentHandling`).
  public var kind: SessionKind { SessionKind(extensionPoint: extensionPoint) }
  /// The bundle's directory (read-only).
  public let bundlePath: String
  /// The private container (read-write).
  public let containerPath: String
  /// The user's locale, e.g. "fr_FR" (`assistant --locale`): the language of the text the extension makes itself (an
  /// `unsupported` message, a snippet). The host translates the intent definition's text.
  public let locale: String
  /// The app groups the extension's entitlements list, and their paths.
  public let appGroups: [AppGroupLocation]
  /// The connection to the host, for requests to it; nil in a context made with the public initializer.
  let host: Connection?

  /// The connection to the host, for the App Intents runtime's requests (nil when not connected).
  package var hostConnection: Connection? { host }

  /// A context that is not connected to a host (for tests of a handler): `requestAuthentication(reason:)` throws
  /// `notAllowedNow`. The SDK gives handlers a connected one.
  public init(
    bundleIdentifier: String, extensionPoint: String, bundlePath: String, containerPath: String, locale: String,
    appGroups: [AppGroupLocation]
  ) {
    self.init(
      bundleIdentifier: bundleIdentifier, extensionPoint: extensionPoint, bundlePath: bundlePath,
      containerPath: containerPath, locale: locale, appGroups: appGroups, host: nil)
  }

  init(
    bundleIdentifier: String, extensionPoint: String, bundlePath: String, containerPath: String, locale: String,
    appGroups: [AppGroupLocation], host: Connection?
  ) {
    self.bundleIdentifier = bundleIdentifier
    self.extensionPoint = extensionPoint
    self.bundlePath = bundlePath
    self.containerPath = containerPath
    self.locale = locale
    self.appGroups = appGroups
    self.host = host
  }

  /// Asks the host to authenticate the user before going ahead with something that needs it (a payment, a
  /// message): SiriKit's "Additional Authorization", where iOS asks for Touch ID, Face ID or the passcode. The host
  /// shows "NAME asks you to authenticate: REASON" and asks for the device's passcode (with no passcode set, a yes/no
  /// question). Call it from `confirm(_:in:)` or `handle(_:in:)` (in an app serving `handleInApp`, from
  /// `handle(_:in:)`), once at a time, and act on the outcome:
  ///
  /// ```swift
  /// func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
  ///   guard try await context.requestAuthentication(reason: "Send 20 € to Ada") == .approved else {
  ///     return IntentResponse(code: .failure)
  ///   }
  ///   // ... send the money ...
  /// }
  /// ```
  ///
  /// The wait has no deadline of its own: it ends when the user has answered. The time the user takes does not count
  /// against the host's deadline for the confirm or handle being answered.
  ///
  /// - Parameter reason: why, in the user's language (`locale`): not blank, at most
  ///   `RequestAuthenticationRequest.maximumReasonLength` (200) Unicode scalars, one line.
  /// - Returns: `approved` (the right passcode, or yes), `denied` (a wrong passcode, counted as a failed attempt; or
  ///   no), `cancelled` (no passcode given, or nobody to ask), `lockedOut` (too many wrong passcodes; not asked). An
  ///   approval authorizes this one transaction; it does not unlock the device.
  /// - Throws: `ResponseError` when the host refuses the request: `notAllowedNow` outside confirm and handle (or in a
  ///   context not connected to a host), `busy` while another authentication of this extension is being answered,
  ///   `invalidParams` for a blank or too long reason, `requestCancelled` when the host's request ended before the
  ///   user answered; `internalError` when the host could not be reached. `CancellationError` when the calling task
  ///   is cancelled (the host is sent `$/cancelRequest`, which ends its prompt).
  public func requestAuthentication(reason: String) async throws -> AuthenticationOutcome {
    guard let host else {
      throw ResponseError(
        .notAllowedNow, "\(RequestAuthenticationRequest.method): this context is not connected to a host")
    }
    do {
      return try await host.send(RequestAuthenticationRequest(reason: reason)).outcome
    } catch ConnectionError.remote(let error) {
      throw error
    } catch ConnectionError.cancelled {
      throw CancellationError()
    } catch {
      throw ResponseError(.internalError, "\(RequestAuthenticationRequest.method): no answer from the host: \(error)")
    }
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
