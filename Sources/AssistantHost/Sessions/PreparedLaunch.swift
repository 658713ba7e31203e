import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import ProcessSupervision

/// A launch of a `SessionTarget`, built and confined, ready to spawn: the one builder of the host's launches (an
/// extension's session, an app's `handleInApp` session, an app opened in the foreground, the benchmark's spawns).
struct PreparedLaunch: Sendable {
  /// What to spawn: executable, arguments, environment, working directory, log, stdio, sandbox and limits.
  var specification: LaunchSpecification
  /// The target's private container (also its working directory and `HOME`).
  var container: URL
  /// The app groups its entitlements grant, with their containers.
  var appGroups: [AppGroupLocation]
  /// What to check of its container and groups once it has run (`StorageWatch`); nil with `--no-sandbox`.
  var storage: StorageCheck?

  /// Builds the launch of `target`: its container and granted app groups, its environment (docs/PROTOCOL.md), its
  /// log (`<home>/Logs/<bundle id>.log`) and working directory, then confines it by `policy` (`confine`).
  ///
  /// Blocks (file locks, syncs, directory preparation): call it off the cooperative pool.
  /// - Parameters:
  ///   - locale: the user's locale (`INTENTHOST_LOCALE`).
  ///   - processName: the child's name in messages, its log and its argv[0]; nil for the target's name.
  ///   - arguments: the child's arguments after argv[0].
  ///   - launchReason: why an app is launched (`INTENTHOST_LAUNCH_REASON`); nil for none.
  ///   - extra: variables added to the environment (`AppLauncher.open`'s); one the host sets is never replaced.
  ///   - stdio: how the child's stdio is connected.
  ///   - hostChannel: whether the child gets its host channel on fd 3 (`INTENTHOST_HOST_FD=3`).
  /// - Throws: `HostError` (`.dataError` for an app group that cannot be granted, `.cannotCreate` or `.refused`
  ///   from `confine`), or what preparing the container throws.
  init(
    _ target: SessionTarget, home: AssistantHome, locale: String, policy: SandboxPolicy, processName: String? = nil,
    arguments: [String] = [], launchReason: LaunchEnvironment.LaunchReason? = nil,
    environment extra: [String: String] = [:],
    stdio: LaunchSpecification.Stdio = .protocolPipes, hostChannel: Bool = false
  ) throws {
    let identifier = target.bundleIdentifier
    let container = try home.container(for: identifier)
    let groups = try grantedAppGroups(target.entitlements, home: home)
    let environment = LaunchEnvironment(
      bundleIdentifier: identifier, bundlePath: target.bundlePath, containerPath: container.path, locale: locale,
      appGroups: groups, launchReason: launchReason, hostChannelDescriptor: hostChannel ? 3 : nil
    ).processEnvironment(container: container).merging(extra) { own, _ in own }
    var specification = LaunchSpecification(
      name: processName ?? target.name, executable: target.executable, arguments: arguments,
      environment: environment, workingDirectory: container.path, logPath: home.logFile(for: identifier).path,
      stdio: stdio)
    specification.hostChannel = hostChannel
    storage = try home.confine(
      &specification, name: target.name, bundleIdentifier: identifier, bundlePath: target.bundlePath,
      kind: target.sandboxKind, container: container, appGroups: groups, entitlements: target.entitlements,
      appIdentifier: target.appIdentifier, policy: policy)
    self.specification = specification
    self.container = container
    self.appGroups = groups
  }
}
