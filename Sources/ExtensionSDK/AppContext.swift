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
    return AppContext(
      bundleIdentifier: try value("INTENTHOST_BUNDLE_IDENTIFIER"), bundlePath: try value("INTENTHOST_BUNDLE_PATH"),
      containerPath: try value("INTENTHOST_CONTAINER"), locale: environment["INTENTHOST_LOCALE"] ?? "en_US",
      appGroups: groups)
  }

  /// The shared container of `identifier`.
  /// - Throws: `StoreError.invalidGroupIdentifier`, or `.notEntitled` when the app's entitlements do not list it.
  public func appGroup(_ identifier: String) throws(StoreError) -> AppGroupContainer {
    try openAppGroup(identifier, from: appGroups, owner: bundleIdentifier)
  }

}
