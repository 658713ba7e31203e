import BundleManifest
import Foundation
import IntentHostSystem
import ProcessSupervision

/// Launches an installed app as tapping its icon would: its own container, its app groups, a scrubbed environment.
public struct AppLauncher: Sendable {
  public var home: AssistantHome
  public var locale = "en_US"

  public init(home: AssistantHome) { self.home = home }

  /// Runs the app with `arguments`, relaying its stdout and stderr, and waits for it.
  /// - Returns: the app's exit status (a signal becomes 128 + signal, reported on stderr).
  /// - Throws: `HostError` when the app cannot be started.
  public func open(_ app: AppBundle, arguments: [String]) async throws -> Int32 {
    let identifier = app.info.bundleIdentifier
    let container = try home.container(for: identifier)
    let groups = try grantedAppGroups(app.entitlements, home: home)
    let specification = LaunchSpecification(
      name: app.info.executable, executable: app.executableURL.path, arguments: arguments,
      environment: childEnvironment(
        bundleIdentifier: identifier, bundlePath: app.url.path, container: container, appGroups: groups,
        locale: locale),
      workingDirectory: container.path, logPath: home.logFile(for: identifier).path, stdio: .relay)
    let process: SupervisedProcess
    do {
      process = try SupervisedProcess(specification)
    } catch {
      throw HostError(.extensionFault, "\(app.name) (\(identifier)) could not be started: \(error)")
    }
    let termination = await process.waitForExit() ?? .exited(70)
    _ = await process.stderrTail(waitingUpTo: .seconds(2))  // let the relayed output drain
    switch termination {
    case .exited(let code):
      return code
    case .signalled(let signal):
      throw HostError(.extensionFault, "\(app.name) (\(identifier)) crashed with \(signalName(signal))")
    }
  }
}
