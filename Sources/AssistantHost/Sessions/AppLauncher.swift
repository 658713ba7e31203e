import BundleManifest
import Foundation
import IntentHostSystem
import ProcessSupervision

/// Launches an installed app as tapping its icon would: its own container, its app groups, a scrubbed environment,
/// and its host channel on fd 3 (`INTENTHOST_HOST_FD`), served while it runs (`AppHostChannel`).
package struct AppLauncher: Sendable {
  package var home: AssistantHome
  package var locale = "en_US"
  /// How the app is confined (the same kind of profile as extensions, with the app's limits).
  package var sandbox = SandboxPolicy()
  /// Whether the app's stdout is relayed to the host's stderr, not its stdout (`open --json`).
  package var outputToStandardError = false

  package init(home: AssistantHome) { self.home = home }

  /// Runs the app with `arguments`, relaying its stdout and stderr, and waits for it.
  ///
  /// `environment` is added to the app's own (the launch reason and user activity of `continueInApp`); it cannot
  /// replace a variable the host sets.
  ///
  /// When the calling task is cancelled (Ctrl-C), the app is killed and reaped, and this throws
  /// `CancellationError`.
  /// - Returns: the app's exit status; 141 when it died of SIGPIPE because the reader of its output went away.
  /// - Throws: `HostError` when the app cannot be started, or `.extensionFault` (exit 70, one line naming the app and
  ///   the signal, also in its log) when a signal ended it.
  package func open(_ app: AppBundle, arguments: [String], environment extra: [String: String] = [:]) async throws
    -> Int32
  {
    let identifier = app.info.bundleIdentifier
    // Preparing the container and the spawn block: off the cooperative pool.
    let (process, storage) = try await offloaded { () throws -> (SupervisedProcess, StorageCheck?) in
      // Its process is named for its executable, as a program the user starts is.
      let launch = try PreparedLaunch(
        SessionTarget(app: app), home: home, locale: locale, policy: sandbox, processName: app.info.executable,
        arguments: arguments, environment: extra, stdio: outputToStandardError ? .relayToStandardError : .relay,
        hostChannel: true)
      return (try startProcess(launch.specification, label: "\(app.name) (\(identifier))"), launch.storage)
    }
    // Its host channel (fd 3): donations and vocabulary while it runs.
    var channel: AppHostChannel? = nil
    if let descriptor = process.hostChannel {
      do {
        channel = try AppHostChannel(descriptor, app: app, home: home, process: process)
      } catch {
        process.appendHostLine("note: the host channel is not served: \(error)")
      }
    }
    defer { channel?.close() }
    guard let termination = await process.waitForExit() else {
      await process.kill()
      throw CancellationError()
    }
    _ = await process.stderrTail(waitingUpTo: .seconds(2))  // let the relayed output drain
    // Its container and groups: the user hears of those that are full.
    await StorageWatch.report(storage.map { [$0] } ?? [])
    switch termination {
    case .exited(let code):
      return code
    case .signalled(SIGPIPE):
      // Its reader went away (`assistant open App | head -1`): the relay closed, as a pipe would. Not a fault.
      return 128 + SIGPIPE
    case .signalled(let signal):
      let message = "\(app.name) (\(identifier)) \(describeKill(signal, process: process))"
      process.appendHostLine("fault: \(message)")
      throw HostError(.extensionFault, message)
    }
  }
}
