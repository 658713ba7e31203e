#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The `INTENTHOST_*` variables the host sets for every process it launches (an extension, or a containing app):
/// its bundle, its private container, the user's locale, its app groups, why it was launched and its host channel
/// (docs/PROTOCOL.md, "The process"). The host writes them with `encode()`, the SDK reads them with
/// `init(decoding:)`; the names and the formats of the values are defined here only.
///
/// The rest of a child's environment (`HOME`, `TMPDIR`, `PATH`, `LANG`, `SWIFT_BACKTRACE`) is the host's.
public struct LaunchEnvironment: Sendable, Hashable {
  /// The name of each variable.
  public enum Variable: String, Sendable, Hashable, CaseIterable {
    /// The bundle's `CFBundleIdentifier`.
    case bundleIdentifier = "INTENTHOST_BUNDLE_IDENTIFIER"
    /// The bundle's directory.
    case bundlePath = "INTENTHOST_BUNDLE_PATH"
    /// The private container.
    case container = "INTENTHOST_CONTAINER"
    /// The user's locale, e.g. `en_US`.
    case locale = "INTENTHOST_LOCALE"
    /// `group.id=/path:group.other=/path`: the app groups the bundle's entitlements grant.
    case appGroups = "INTENTHOST_APP_GROUPS"
    /// `handleInApp`, `appIntent` or `continueUserActivity`; absent for any other launch.
    case launchReason = "INTENTHOST_LAUNCH_REASON"
    /// With `continueUserActivity` only: the activity to continue, as the JSON of a `ContinuedActivity`.
    case userActivity = "INTENTHOST_USER_ACTIVITY"
    /// The descriptor of an app's host channel (always `3`); absent when there is none.
    case hostChannel = "INTENTHOST_HOST_FD"
  }

  /// Why the host launched a containing app (`INTENTHOST_LAUNCH_REASON`).
  public enum LaunchReason: Sendable, Hashable {
    /// `handleInApp`: in the background, to handle an intent over the protocol (stdin and stdout), as a session of
    /// kind `SessionKind.app`.
    case handleInApp
    /// `appIntent`: to perform an App Intent over the protocol (stdin and stdout), one the app's own
    /// `Metadata.appintents` declares or one an extension continued in the foreground (`continueInForeground`); each
    /// `appIntent/perform` says in its `mode` whether the app runs in the background or the foreground.
    case appIntent
    /// `continueUserActivity`: in the foreground, to continue an intent; `json` is the activity
    /// (`INTENTHOST_USER_ACTIVITY`), nil when the variable is not set.
    case continueUserActivity(json: String?)
    /// A reason this side does not know, as it was set (not empty).
    case other(String)

    /// The value of `INTENTHOST_LAUNCH_REASON`.
    public var name: String {
      switch self {
      case .handleInApp: "handleInApp"
      case .appIntent: "appIntent"
      case .continueUserActivity: "continueUserActivity"
      case .other(let name): name
      }
    }

    /// The variables this reason sets: `INTENTHOST_LAUNCH_REASON`, and `INTENTHOST_USER_ACTIVITY` with an activity.
    public var variables: [String: String] {
      var variables = [Variable.launchReason.rawValue: name]
      if case .continueUserActivity(let json?) = self { variables[Variable.userActivity.rawValue] = json }
      return variables
    }

    /// The activity to continue: with `continueUserActivity`, its JSON decoded; nil otherwise, or when the JSON does
    /// not decode.
    public var continuedActivity: ContinuedActivity? {
      guard case .continueUserActivity(let json?) = self else { return nil }
      return try? JSONDecoder().decode(ContinuedActivity.self, from: Data(json.utf8))
    }

    /// The reason `environment` gives; nil when `INTENTHOST_LAUNCH_REASON` is not set, or empty.
    public init?(environment: [String: String]) {
      guard let name = environment[Variable.launchReason.rawValue], !name.isEmpty else { return nil }
      switch name {
      case "handleInApp": self = .handleInApp
      case "appIntent": self = .appIntent
      case "continueUserActivity": self = .continueUserActivity(json: environment[Variable.userActivity.rawValue])
      default: self = .other(name)
      }
    }
  }

  /// A variable the launch must have that is not set, or is empty.
  public struct Missing: Error, Sendable, Hashable, CustomStringConvertible {
    /// The variable.
    public var variable: Variable

    /// An error naming `variable`.
    public init(variable: Variable) { self.variable = variable }

    public var description: String { "\(variable.rawValue) is not set" }
  }

  /// `INTENTHOST_BUNDLE_IDENTIFIER`.
  public var bundleIdentifier: String
  /// `INTENTHOST_BUNDLE_PATH`.
  public var bundlePath: String
  /// `INTENTHOST_CONTAINER`.
  public var containerPath: String
  /// `INTENTHOST_LOCALE`.
  public var locale: String
  /// `INTENTHOST_APP_GROUPS`.
  public var appGroups: [AppGroupLocation]
  /// `INTENTHOST_LAUNCH_REASON` (and `INTENTHOST_USER_ACTIVITY`); nil for a launch with no reason: an extension, or
  /// an app opened by the user.
  public var launchReason: LaunchReason?
  /// `INTENTHOST_HOST_FD`: the descriptor of an app's host channel, nil when it has none.
  public var hostChannelDescriptor: Int32?

  /// A launch's variables.
  public init(
    bundleIdentifier: String, bundlePath: String, containerPath: String, locale: String,
    appGroups: [AppGroupLocation], launchReason: LaunchReason? = nil, hostChannelDescriptor: Int32? = nil
  ) {
    self.bundleIdentifier = bundleIdentifier
    self.bundlePath = bundlePath
    self.containerPath = containerPath
    self.locale = locale
    self.appGroups = appGroups
    self.launchReason = launchReason
    self.hostChannelDescriptor = hostChannelDescriptor
  }

  /// The variables, by name. `init(decoding:)` reads them back as they were, for identifiers without `:` or `=`,
  /// paths without `:`, required values not empty and a host channel of 3 or more (as the host makes them).
  public func encode() -> [String: String] {
    var variables = [
      Variable.bundleIdentifier.rawValue: bundleIdentifier,
      Variable.bundlePath.rawValue: bundlePath,
      Variable.container.rawValue: containerPath,
      Variable.locale.rawValue: locale,
      Variable.appGroups.rawValue: appGroups.map { "\($0.identifier)=\($0.path)" }.joined(separator: ":"),
    ]
    if let launchReason { variables.merge(launchReason.variables) { _, reason in reason } }
    if let hostChannelDescriptor { variables[Variable.hostChannel.rawValue] = String(hostChannelDescriptor) }
    return variables
  }

  /// Reads the variables from `environment` (the process's, as the host set it).
  ///
  /// The bundle identifier, bundle path and container are required. The rest is read as leniently as a hand-made
  /// environment needs: no locale is `en_US`; an app-group entry without an identifier and a path around its `=` is
  /// skipped; an empty launch reason is none; a host channel that is not a number of 3 or more is none.
  /// - Throws: `Missing` naming the first of `INTENTHOST_BUNDLE_IDENTIFIER`, `INTENTHOST_BUNDLE_PATH` and
  ///   `INTENTHOST_CONTAINER` that is not set or empty.
  public init(decoding environment: [String: String]) throws(Missing) {
    func required(_ variable: Variable) throws(Missing) -> String {
      guard let value = environment[variable.rawValue], !value.isEmpty else { throw Missing(variable: variable) }
      return value
    }
    bundleIdentifier = try required(.bundleIdentifier)
    bundlePath = try required(.bundlePath)
    containerPath = try required(.container)
    locale = environment[Variable.locale.rawValue] ?? "en_US"
    appGroups = (environment[Variable.appGroups.rawValue] ?? "").split(separator: ":").compactMap { entry in
      let parts = entry.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else { return nil }
      return AppGroupLocation(identifier: String(parts[0]), path: String(parts[1]))
    }
    launchReason = LaunchReason(environment: environment)
    hostChannelDescriptor = environment[Variable.hostChannel.rawValue].flatMap { Int32($0) }.flatMap {
      $0 >= 3 ? $0 : nil
    }
  }
}
