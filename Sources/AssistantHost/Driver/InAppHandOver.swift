// The driver's hand-over to the containing app: `handleInApp` and `continueInApp`.
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import UntrustedText

extension IntentDriver {
  /// `continueInApp`: launches the containing app in the foreground on the user's terminal, its stdout and stderr
  /// relayed, with `INTENTHOST_LAUNCH_REASON=continueUserActivity` and the activity as JSON in
  /// `INTENTHOST_USER_ACTIVITY` (the SDK's `AppContext.userActivity`), and waits for it to exit. An app that exits
  /// with a non-zero status is reported; the intent's result stands.
  /// - Throws: `HostError(.extensionFault)` when the activity is too large to pass, or what `AppLauncher.open`
  ///   throws.
  func openInForeground(_ app: AppBundle, activity: ContinuedActivity) async throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let json = String(decoding: try encoder.encode(activity), as: UTF8.self)
    guard json.utf8.count <= ContinuedActivity.maximumSize else {
      throw HostError(
        .extensionFault,
        "\(app.name) was not opened: the user activity of its answer is \(json.utf8.count) bytes of JSON, more than "
          + "the \(ContinuedActivity.maximumSize) an app can be given")
    }
    let environment = LaunchEnvironment.LaunchReason.continueUserActivity(json: json).variables
    let status: Int32
    if let foregroundLauncher {
      status = try await foregroundLauncher(app, environment)
    } else {
      var launcher = AppLauncher(home: home)
      launcher.locale = locale
      launcher.sandbox = sandbox
      launcher.outputToStandardError = appOutputToStandardError
      status = try await launcher.open(app, arguments: [], environment: environment)
    }
    if status != 0 { await writeHostMessage("\(app.name) exited with status \(status)") }
  }

  /// `handleInApp`: launches the containing app in the background and lets it handle the intent
  /// (`application(_:handle:completionHandler:)`); its answer is the intent's response.
  func handOver(_ intent: Intent, to app: AppBundle, spec: IntentSpec?) async throws -> IntentResponse {
    let session = try await ExtensionSession.start(
      SessionTarget(app: app), home: home, locale: locale, deadlines: deadlines, sandbox: sandbox, launcher: launcher,
      storageWatch: storageWatch, faults: faults)
    do {
      let response = try await session.request(
        HandleIntentRequest(intent: intent), phase: .handle, what: "handle of \(intent.name) in the app (handleInApp)",
        authenticator: authenticator)
      if [.ready, .handleInApp, .continueInApp].contains(response.code) {
        throw session.violation(
          "answered \(response.code) to handle of \(intent.name) in the app; an app that handles an intent must "
            + "finish it (answer success, failure or a code of the intent definition)")
      }
      try check(response.code, spec: spec, session: session, intent: intent.name)
      try checkResponseValues(response, spec: spec, session: session, what: "handle of \(intent.name) in the app")
      await session.shutdown()
      return response
    } catch {
      if session.peer.termination == nil { await session.shutdown() }
      throw error
    }
  }
}
