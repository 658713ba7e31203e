#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the host gives a containing app it launches (`assistant open APP`, or `handleInApp`): its bundle, its
/// private container and its app groups, through the environment (see docs/PROTOCOL.md, "Apps").
public struct AppContext: Sendable {
  public let bundleIdentifier: String
  public let bundlePath: String
  public let containerPath: String
  public let locale: String
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
    public var variable: String
    public var description: String {
      "\(variable) is not set: this app must be launched by the assistant, e.g. "
        + "`Scripts/assistant open APP -- ARGS`"
    }
  }

  /// Reads the context from the environment the host set.
  /// - Throws: `Missing` naming the first variable that is not set.
  public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) throws(Missing)
    -> AppContext
  {
    func value(_ name: String) throws(Missing) -> String {
      guard let value = environment[name], !value.isEmpty else { throw Missing(variable: name) }
      return value
    }
    let groups = (environment["INTENTHOST_APP_GROUPS"] ?? "").split(separator: ":").compactMap {
      entry -> AppGroupLocation? in
      let parts = entry.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else { return nil }
      return AppGroupLocation(identifier: String(parts[0]), path: String(parts[1]))
    }
    let reason = environment["INTENTHOST_LAUNCH_REASON"].flatMap { $0.isEmpty ? nil : $0 }
    let activity: ContinuedActivity? =
      if reason == "continueUserActivity", let json = environment["INTENTHOST_USER_ACTIVITY"] {
        try? JSONDecoder().decode(ContinuedActivity.self, from: Data(json.utf8))
      } else {
        nil
      }
    let channel = environment["INTENTHOST_HOST_FD"].flatMap { Int32($0) }.flatMap { $0 >= 3 ? $0 : nil }
    return AppContext(
      bundleIdentifier: try value("INTENTHOST_BUNDLE_IDENTIFIER"), bundlePath: try value("INTENTHOST_BUNDLE_PATH"),
      containerPath: try value("INTENTHOST_CONTAINER"), locale: environment["INTENTHOST_LOCALE"] ?? "en_US",
      appGroups: groups, launchReason: reason, userActivity: activity, hostChannelDescriptor: channel)
  }

  /// The shared container of `identifier`.
  /// - Throws: `StoreError.invalidGroupIdentifier`, or `.notEntitled` when the app's entitlements do not list it.
  public func appGroup(_ identifier: String) throws(StoreError) -> AppGroupContainer {
    try openAppGroup(identifier, from: appGroups, owner: bundleIdentifier)
  }

}
