import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision

/// The environment a child gets, built from nothing (docs/PROTOCOL.md lists the variables).
func childEnvironment(
  bundleIdentifier: String, bundlePath: String, container: URL, appGroups: [AppGroupLocation], locale: String
) -> [String: String] {
  [
    "HOME": container.path,
    "TMPDIR": container.appendingPathComponent("tmp").path,
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "SWIFT_BACKTRACE": "enable=no",
    "INTENTHOST_BUNDLE_IDENTIFIER": bundleIdentifier,
    "INTENTHOST_BUNDLE_PATH": bundlePath,
    "INTENTHOST_CONTAINER": container.path,
    "INTENTHOST_LOCALE": locale,
    "INTENTHOST_APP_GROUPS": appGroups.map { "\($0.identifier)=\($0.path)" }.joined(separator: ":"),
  ]
}

/// The app groups a bundle's entitlements grant, with their containers.
func grantedAppGroups(_ entitlements: Entitlements, home: AssistantHome) throws -> [AppGroupLocation] {
  try entitlements.applicationGroups.map { identifier in
    if let problem = AppGroupContainer.identifierProblem(identifier) {
      throw HostError(.dataError, "\(entitlements.file ?? "entitlements"): \(problem)")
    }
    let path = try home.appGroupContainer(identifier).path
    if path.contains(":") {
      throw HostError(.dataError, "app group path \(path) contains \":\"; choose an ASSISTANT_APP_GROUPS without one")
    }
    return AppGroupLocation(identifier: identifier, path: path)
  }
}

import AppGroupStore

/// What a protocol session runs: an extension, or a containing app launched to handle an intent (`handleInApp`).
struct SessionTarget: Sendable {
  var name: String
  var bundleIdentifier: String
  var executable: String
  var bundlePath: String
  var entitlements: Entitlements
  /// `NSExtensionPointIdentifier`, or `appExtensionPoint` for an app.
  var extensionPoint: String

  init(_ bundle: ExtensionBundle) {
    name = bundle.name
    bundleIdentifier = bundle.info.bundleIdentifier
    executable = bundle.executableURL.path
    bundlePath = bundle.url.path
    entitlements = bundle.entitlements
    extensionPoint = bundle.extensionInfo.pointIdentifier
  }

  /// The containing app, launched in the background to handle an intent.
  init(app: AppBundle) {
    name = app.name
    bundleIdentifier = app.info.bundleIdentifier
    executable = app.executableURL.path
    bundlePath = app.url.path
    entitlements = app.entitlements
    extensionPoint = appExtensionPoint
  }
}

/// The `extensionPoint` the host sends to a containing app it launched for `handleInApp`.
let appExtensionPoint = "com.intenthost.app.handle-intent"

/// One running extension (or app serving `handleInApp`): its supervised process and the connection to it.
final class ExtensionSession: Sendable {
  let target: SessionTarget
  let process: SupervisedProcess
  let connection: Connection
  let deadlines: Deadlines

  /// A name for messages: "RoomsIntents (com.example.rooms.RoomsIntents)".
  var label: String { "\(target.name) (\(target.bundleIdentifier))" }

  private init(target: SessionTarget, process: SupervisedProcess, connection: Connection, deadlines: Deadlines) {
    self.target = target
    self.process = process
    self.connection = connection
    self.deadlines = deadlines
  }

  /// Starts the extension and performs the handshake.
  /// - Throws: `HostError` (`.extensionFault` when it cannot start or answer).
  static func start(
    _ bundle: ExtensionBundle, home: AssistantHome, locale: String, deadlines: Deadlines
  ) async throws -> ExtensionSession {
    try await start(SessionTarget(bundle), home: home, locale: locale, deadlines: deadlines)
  }

  /// Starts `target` and performs the handshake.
  static func start(
    _ target: SessionTarget, home: AssistantHome, locale: String, deadlines: Deadlines
  ) async throws -> ExtensionSession {
    let identifier = target.bundleIdentifier
    let container = try home.container(for: identifier)
    let groups = try grantedAppGroups(target.entitlements, home: home)
    var environment = childEnvironment(
      bundleIdentifier: identifier, bundlePath: target.bundlePath, container: container, appGroups: groups,
      locale: locale)
    if target.extensionPoint == appExtensionPoint { environment["INTENTHOST_LAUNCH_REASON"] = "handleInApp" }
    let specification = LaunchSpecification(
      name: target.name, executable: target.executable, environment: environment,
      workingDirectory: container.path, logPath: home.logFile(for: identifier).path)
    let process: SupervisedProcess
    do {
      process = try SupervisedProcess(specification)
    } catch {
      throw HostError(.extensionFault, "\(target.name) (\(identifier)) could not be started: \(error)")
    }
    let connection = Connection(
      input: process.standardOutput!, output: process.standardInput!,
      options: .init(peerName: target.name))
    connection.start()
    let session = ExtensionSession(target: target, process: process, connection: connection, deadlines: deadlines)
    let result = try await session.request(
      InitializeRequest(
        host: "IntentHost \(hostVersion)", bundleIdentifier: identifier,
        extensionPoint: target.extensionPoint, bundlePath: target.bundlePath,
        containerPath: container.path, appGroups: groups, locale: locale),
      phase: .handshake, what: "the handshake")
    if result.protocolVersion != protocolVersion {
      await session.abort()
      throw HostError(
        .extensionFault,
        "\(session.label) speaks protocol version \(result.protocolVersion); this host speaks \(protocolVersion)")
    }
    return session
  }

  /// Sends a request within the phase's deadline.
  /// - Parameter what: the step for messages, e.g. "resolve of roomNumber".
  /// - Throws: `HostError(.extensionFault)` describing what went wrong; the process is then gone.
  func request<R: RequestMessage>(_ request: R, phase: Phase, what: String) async throws -> R.Response {
    do {
      return try await connection.send(request, timeout: deadlines[phase])
    } catch let error as ConnectionError {
      throw await fault(error, phase: phase, what: what)
    }
  }

  /// Turns a connection failure into a one-line fault, tearing the process down and logging the fault.
  private func fault(_ error: ConnectionError, phase: Phase, what: String) async -> HostError {
    let message: String
    switch error {
    case .timedOut:
      await process.kill()
      message = "\(label) did not answer \(what) within \(deadlines[phase].shortDescription) "
        + "(the \(phase.rawValue) deadline; change it with --deadline \(phase.rawValue)=SECONDS) and was killed"
    case .closed, .io:
      connection.close()
      var termination = await process.waitForExit(timeout: .seconds(2))
      if termination == nil { termination = await process.kill() }
      let last = await process.lastStderrLine()
      let detail = last.map { "; its last words on stderr: \($0)" } ?? ""
      switch termination ?? .signalled(SIGKILL) {
      case .signalled(let signal):
        message = "\(label) crashed with \(signalName(signal)) during \(what)\(detail)"
      case .exited(let code):
        message = "\(label) exited with status \(code) during \(what) without answering\(detail)"
      }
    case .protocolViolation(let what2):
      connection.close()
      await process.kill()
      message = "\(label) broke the protocol during \(what): \(what2)"
    case .remote(let remote):
      // The extension is alive and answered with an error: shut it down cleanly.
      await shutdown()
      message = "\(label) failed \(what): \(remote.message) (\(remote.code.name))"
    case .cancelled:
      await abort()
      message = "\(what) was cancelled"
    }
    var full = message
    if target.extensionPoint == appExtensionPoint && phase == .handshake {
      full += " (the extension answered handleInApp, so the app was launched to handle the intent; it must serve "
        + "it with InAppIntentHandling.serve, see docs/PROTOCOL.md, \"Apps\")"
    }
    appendToLog("fault: \(full)")
    return HostError(.extensionFault, full)
  }

  /// A fault in what the extension answered (valid JSON-RPC, wrong content), logged and ready to throw.
  func violation(_ what: String) -> HostError {
    let message = "\(label) \(what)"
    appendToLog("fault: \(message)")
    return HostError(.extensionFault, message)
  }

  /// The orderly end: `shutdown`, `exit`, close stdin, then the timed teardown.
  func shutdown() async {
    if connection.failure == nil {
      _ = try? await connection.send(ShutdownRequest(), timeout: deadlines.shutdown)
      try? connection.notify(ExitNotification())
    }
    connection.closeOutput()
    await process.tearDown(grace: deadlines.shutdown, termGrace: .milliseconds(500))
    connection.close()
  }

  /// Kills the extension at once.
  func abort() async {
    connection.close()
    await process.kill()
  }

  /// A line in the extension's log, beside its stderr.
  func appendToLog(_ line: String) {
    guard let path = process.specification.logPath,
      let fd = try? FileDescriptor.open(path, O_WRONLY | O_APPEND | O_CREAT, mode: 0o600)
    else { return }
    try? fd.writeAll(Array("--- host: \(line)\n".utf8))
    fd.close()
  }
}

/// The host's version, shown in `initialize` and `--version`.
public let hostVersion = "0.1.0"
