#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the host gives a containing app it launches (`assistant open APP`, or `handleInApp`): its bundle, its
/// private container and its app groups, through the environment (see docs/PROTOCOL.md, "Apps").
public struct AppContext: Sendable {
  /// The app's `CFBundleIdentifier` (`INTENTHOST_BUNDLE_IDENTIFIER`).
  public let bundleIdentifier: String
  /// The app bundle's directory (read-only).
  public let bundlePath: String
  /// The app's private container (read-write), not its extensions'.
  public let containerPath: String
  /// The user's locale, e.g. "fr_FR": the language of the text the app makes itself.
  public let locale: String
  /// The app groups the app's entitlements list, and their paths: open one with `appGroup(_:)`.
  public let appGroups: [AppGroupLocation]
  /// Why the host launched the app: `continueUserActivity` (Siri brings it to the foreground to continue an
  /// intent, `userActivity` is set), `handleInApp` (see `InAppIntentHandling`), or nil (`assistant open`, a tap).
  public let launchReason: String?
  /// The activity to continue when `launchReason` is `continueUserActivity` (iOS calls
  /// `application(_:continue:restorationHandler:)` with it): its type, its `userInfo`, and the interaction (the intent
  /// and the response) that sent the user here. nil otherwise, or when the host's JSON does not decode.
  public let userActivity: ContinuedActivity?
  /// The descriptor of the host channel (`INTENTHOST_HOST_FD`), nil when the host gave none.
  let hostChannelDescriptor: Int32?

  /// Why the context could not be read.
  public struct Missing: Error, CustomStringConvertible {
    /// The first `INTENTHOST_*` variable that is not set, e.g. "INTENTHOST_BUNDLE_IDENTIFIER".
    public var variable: String
    /// Names the variable and says how to launch the app (`assistant open APP -- ARGS`).
    public var description: String {
      "\(variable) is not set: this app must be launched by the assistant, e.g. "
        + "`Scripts/assistant open APP -- ARGS`"
    }
  }

  /// Reads the context from the environment the host set (`LaunchEnvironment`).
  /// - Throws: `Missing` naming the first variable that is not set.
  public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) throws(Missing)
    -> AppContext
  {
    let launch: LaunchEnvironment
    do throws(LaunchEnvironment.Missing) {
      launch = try LaunchEnvironment(decoding: environment)
    } catch {
      throw Missing(variable: error.variable.rawValue)
    }
    return AppContext(
      bundleIdentifier: launch.bundleIdentifier, bundlePath: launch.bundlePath, containerPath: launch.containerPath,
      locale: launch.locale, appGroups: launch.appGroups, launchReason: launch.launchReason?.name,
      userActivity: launch.launchReason?.continuedActivity, hostChannelDescriptor: launch.hostChannelDescriptor)
  }

  /// The shared container of `identifier`.
  /// - Throws: `StoreError.invalidGroupIdentifier`, or `.notEntitled` when the app's entitlements do not list it.
  public func appGroup(_ identifier: String) throws(StoreError) -> AppGroupContainer {
    try openAppGroup(identifier, from: appGroups, owner: bundleIdentifier)
  }

}
