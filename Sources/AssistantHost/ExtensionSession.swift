import AppGroupStore
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
    let path = try home.appGroupLocation(identifier).path
    if path.contains(":") {
      throw HostError(.dataError, "app group path \(path) contains \":\"; choose an ASSISTANT_APP_GROUPS without one")
    }
    return AppGroupLocation(identifier: identifier, path: path)
  }
}

/// What a protocol session runs: an extension, or a containing app launched to handle an intent (`handleInApp`).
struct SessionTarget: Sendable {
  var name: String
  var bundleIdentifier: String
  var executable: String
  var bundlePath: String
  var entitlements: Entitlements
  /// `NSExtensionPointIdentifier`, or `appExtensionPoint` for an app.
  var extensionPoint: String
  /// The containing app's bundle identifier (whose uid the sandbox runs it as, whose donations it makes).
  var appIdentifier: String
  /// The intent definitions of the containing app and its extensions: what it may donate.
  var appDefinitions: [IntentDefinition]

  var kind: SandboxPolicy.Kind {
    switch extensionPoint {
    case appExtensionPoint: return .app
    case ExtensionPoint.intentsUIService.rawValue: return .intentsUIExtension
    default: return .intentsExtension
    }
  }

  init(_ bundle: ExtensionBundle, app: AppBundle) {
    appIdentifier = app.info.bundleIdentifier
    appDefinitions = app.allDefinitions
    name = bundle.name
    bundleIdentifier = bundle.info.bundleIdentifier
    executable = bundle.executableURL.path
    bundlePath = bundle.url.path
    entitlements = bundle.entitlements
    extensionPoint = bundle.extensionInfo.pointIdentifier
  }

  /// The containing app, launched in the background to handle an intent.
  init(app: AppBundle) {
    appIdentifier = app.info.bundleIdentifier
    appDefinitions = app.allDefinitions
    name = app.name
    bundleIdentifier = app.info.bundleIdentifier
    executable = app.executableURL.path
    bundlePath = app.url.path
    entitlements = app.entitlements
    extensionPoint = appExtensionPoint
  }
}

/// What an extension (or an app serving `handleInApp`) may send of its own, requests and notifications, per request
/// of the host's: past it, a protocol violation (exit 70). Version 1 has one request for an extension to send
/// (`host/requestAuthentication`, during confirm or handle) and `$/cancelRequest`; the budget leaves room for a
/// handful of those and for a message a newer SDK might add.
let unsolicitedBudget = Connection.UnsolicitedBudget(messages: 16, bytes: 64 << 10)

/// The `extensionPoint` the host sends to a containing app it launched for `handleInApp`.
let appExtensionPoint = "com.intenthost.app.handle-intent"

/// The other end of a session: the process the host supervises (`SupervisedProcess`), or in tests a server in the
/// same process.
protocol SessionPeer: Sendable {
  var pid: Int32 { get }
  /// How it ended, or nil while it runs.
  var termination: Termination? { get }
  /// Waits for it to end; nil when `timeout` passed first.
  func waitForExit(timeout: Duration) async -> Termination?
  /// Kills it at once and waits until it is gone.
  @discardableResult func kill() async -> Termination
  /// The timed teardown (wait, SIGTERM, SIGKILL); it is gone when this returns.
  @discardableResult func tearDown(grace: Duration, termGrace: Duration) async -> Termination
  /// The most telling line it wrote to stderr.
  func lastStderrLine() async -> String?
  /// Why it died by `signal`, in words ("crashed with SIGSEGV", "was killed for using too much memory (...)").
  func describeKill(_ signal: Int32) -> String
  /// Whether it was killed for going over its memory ceiling.
  var wasKilledForMemory: Bool { get }
  /// Adds a line of the host's to its log.
  func appendToLog(_ line: String)
}

extension SupervisedProcess: SessionPeer {
  func describeKill(_ signal: Int32) -> String { AssistantHost.describeKill(signal, process: self) }
  var wasKilledForMemory: Bool { memoryReport?.killed == true || threadReport.killed }
  func appendToLog(_ line: String) { appendHostLine(line) }
}

/// A launched session's parts, before the handshake; the connection is not started yet (the session starts it, with
/// its handler of what the peer sends of its own).
struct LaunchedSession: Sendable {
  var connection: Connection
  var peer: any SessionPeer
  var containerPath: String
  var appGroups: [AppGroupLocation]
}

/// Starts what a run talks to: extensions, and apps launched to handle an intent.
protocol SessionLauncher: Sendable {
  /// Starts `target` and makes a connection to it, not started; the handshake is the caller's.
  /// - Throws: `HostError` (`.refused` when it cannot be sandboxed, `.extensionFault` when it cannot start).
  func launch(_ target: SessionTarget, home: AssistantHome, locale: String, sandbox: SandboxPolicy) async throws
    -> LaunchedSession
}

/// The real launcher: a sandboxed child process per session, its stderr in its log.
struct ProcessLauncher: SessionLauncher {
  /// Where each connection's lines are recorded (`--record`), if anywhere.
  var recorder: TranscriptRecorder? = nil

  func launch(_ target: SessionTarget, home: AssistantHome, locale: String, sandbox: SandboxPolicy) async throws
    -> LaunchedSession
  {
    // Preparing the container and the identity (file locks, syncs) and the spawn (which waits for the child's
    // exec, and its cgroup join) block: they run off the cooperative pool.
    let (process, container, groups) = try await offloaded {
      () throws -> (SupervisedProcess, URL, [AppGroupLocation]) in
      let identifier = target.bundleIdentifier
      let container = try home.container(for: identifier)
      let groups = try grantedAppGroups(target.entitlements, home: home)
      var environment = childEnvironment(
        bundleIdentifier: identifier, bundlePath: target.bundlePath, container: container, appGroups: groups,
        locale: locale)
      if target.extensionPoint == appExtensionPoint { environment["INTENTHOST_LAUNCH_REASON"] = "handleInApp" }
      var specification = LaunchSpecification(
        name: target.name, executable: target.executable, environment: environment,
        workingDirectory: container.path, logPath: home.logFile(for: identifier).path)
      try home.confine(
        &specification, name: target.name, bundleIdentifier: identifier, bundlePath: target.bundlePath,
        kind: target.kind, container: container, appGroups: groups, entitlements: target.entitlements,
        appIdentifier: target.appIdentifier, policy: sandbox)
      return (try startProcess(specification, label: "\(target.name) (\(identifier))"), container, groups)
    }
    var options = Connection.Options(
      unsolicitedBudget: unsolicitedBudget, peerName: target.name,
      log: { [process] line in process.appendToLog("note: \(line)") })
    options.tap = recorder?.tap(peer: target.name)
    let connection = Connection(input: process.standardOutput!, output: process.standardInput!, options: options)
    return LaunchedSession(connection: connection, peer: process, containerPath: container.path, appGroups: groups)
  }
}

/// One running extension (or app serving `handleInApp`): its peer (the supervised process) and the connection to
/// it.
final class ExtensionSession: Sendable {
  let target: SessionTarget
  let peer: any SessionPeer
  let connection: Connection
  let deadlines: Deadlines
  /// What the peer sends of its own: `host/requestAuthentication` during confirm and handle, errors otherwise.
  let inbound: InboundRequests

  /// A name for messages: "RoomsIntents (com.example.rooms.RoomsIntents)".
  var label: String { "\(target.name) (\(target.bundleIdentifier))" }

  private init(
    target: SessionTarget, peer: any SessionPeer, connection: Connection, deadlines: Deadlines, home: AssistantHome
  ) {
    self.target = target
    self.peer = peer
    self.connection = connection
    self.deadlines = deadlines
    let log: @Sendable (String) -> Void = { [peer] line in peer.appendToLog(line) }
    inbound = InboundRequests(
      donations: DonationServer(
        store: DonationStore(home: home), app: target.appIdentifier,
        rules: DonationRules(definitions: target.appDefinitions), log: log),
      log: log)
    // Taken on the reader thread as they come, in arrival order (docs/PROTOCOL.md, "Requests to the host").
    connection.start { [weak connection, inbound] message in
      guard let message, let connection else { return }
      inbound.receive(message, connection: connection)
    }
  }

  /// Starts `target` (confined by `sandbox`) through `launcher` and performs the handshake.
  /// - Throws: `HostError` (`.extensionFault` when it cannot start or answer, `.refused` when it cannot be
  ///   sandboxed); whatever was started is gone when this throws.
  static func start(
    _ target: SessionTarget, home: AssistantHome, locale: String, deadlines: Deadlines, sandbox: SandboxPolicy,
    launcher: any SessionLauncher = ProcessLauncher()
  ) async throws -> ExtensionSession {
    let launched = try await launcher.launch(target, home: home, locale: locale, sandbox: sandbox)
    let session = ExtensionSession(
      target: target, peer: launched.peer, connection: launched.connection, deadlines: deadlines, home: home)
    do {
      let result = try await session.request(
        InitializeRequest(
          host: "IntentHost \(hostVersion)", bundleIdentifier: target.bundleIdentifier,
          extensionPoint: target.extensionPoint, bundlePath: target.bundlePath,
          containerPath: launched.containerPath, appGroups: launched.appGroups, locale: locale),
        phase: .handshake, what: "the handshake")
      if result.protocolVersion != protocolVersion {
        throw session.violation(
          "speaks protocol version \(result.protocolVersion); this host speaks \(protocolVersion)")
      }
      return session
    } catch {
      await session.abort()
      throw error
    }
  }

  /// Whether the session can take another request.
  var isHealthy: Bool { connection.failure == nil && peer.termination == nil }

  /// Sends a request within the phase's deadline.
  /// - Parameters:
  ///   - what: the step for messages, e.g. "resolve of roomNumber".
  ///   - authenticator: given for confirm and handle: while the request is pending, the peer's
  ///     `host/requestAuthentication` requests are served with it, one at a time (the user's time does not count
  ///     against the deadline). Without it they are answered `notAllowedNow`.
  /// - Throws: `HostError(.extensionFault)` describing what went wrong (the peer is then gone), or
  ///   `CancellationError` when the calling task was cancelled (the peer is then killed).
  func request<R: RequestMessage>(
    _ request: R, phase: Phase, what: String, authenticator: HostAuthenticator? = nil
  ) async throws -> R.Response {
    do {
      guard let authenticator else { return try await connection.send(request, timeout: deadlines[phase]) }
      return try await servingAuthentications(with: authenticator, during: what) {
        try await self.connection.send(request, timeout: self.deadlines[phase])
      }
    } catch ConnectionError.cancelled {
      await abort()
      throw CancellationError()
    } catch let error as ConnectionError {
      throw await fault(error, phase: phase, what: what)
    }
  }

  /// Runs `body` (the wait for a request's answer) with a child task that serves the peer's authentication requests
  /// until it ends. When it ends, an authentication still being served is answered `requestCancelled` and its prompt
  /// ends; the child has ended when this returns.
  private func servingAuthentications<T: Sendable>(
    with authenticator: HostAuthenticator, during what: String, _ body: () async throws -> T
  ) async throws -> T {
    let authentications = inbound.open(during: what)
    let result = await withTaskGroup(of: Void.self) { group -> Result<T, any Error> in
      group.addTask { await self.serve(authentications, with: authenticator, during: what) }
      let result: Result<T, any Error>
      do { result = .success(try await body()) } catch { result = .failure(error) }
      inbound.close(connection: connection)
      group.cancelAll()
      return result
    }
    return try result.get()
  }

  /// Serves the authentications taken during `what`, one at a time, until the stream finishes or the task is
  /// cancelled.
  private func serve(
    _ authentications: AsyncStream<InboundRequests.Authentication>, with authenticator: HostAuthenticator,
    during what: String
  ) async {
    for await authentication in authentications {
      let result: Result<AuthenticationOutcome, ResponseError>
      do {
        let name = target.name
        let outcome = try await authentication.cancelled.racing {
          try await authenticator.authenticate(reason: authentication.reason, for: name)
        }
        result =
          outcome.map { .success($0) }
          ?? .failure(ResponseError(.requestCancelled, "cancelled by $/cancelRequest before the user answered"))
      } catch is CancellationError {
        result = .failure(
          ResponseError(.requestCancelled, "the host's \(what) ended before the user answered"))
      } catch {
        let message = (error as? HostError)?.message ?? "\(error)"
        await writeHostMessage("cannot authenticate the user for \(label): \(message)")
        // The details (the host's paths, what is wrong with its state) go to the user and the log, not to the peer.
        peer.appendToLog("note: cannot authenticate the user: \(message)")
        result = .failure(ResponseError(.internalError, "the host could not authenticate the user"))
      }
      switch result {
      case .success(let outcome):
        peer.appendToLog("note: \(RequestAuthenticationRequest.method) during \(what): \(outcome.rawValue)")
      case .failure(let error):
        peer.appendToLog("note: \(RequestAuthenticationRequest.method) during \(what): \(error.code.name)")
      }
      inbound.answer(authentication, with: result, connection: connection)
    }
  }

  /// Turns a connection failure into a one-line fault, tearing the peer down and logging the fault.
  private func fault(_ error: ConnectionError, phase: Phase, what: String) async -> HostError {
    let message: String
    switch error {
    case .timedOut:
      connection.close()
      await peer.kill()
      message =
        "\(label) did not answer \(what) within \(deadlines[phase].shortDescription) "
        + "(the \(phase.rawValue) deadline; change it with --deadline \(phase.rawValue)=SECONDS) and was killed"
    case .closed, .io:
      connection.close()
      var termination = await peer.waitForExit(timeout: .seconds(2))
      let stillRunning = termination == nil
      if stillRunning { termination = await peer.kill() }
      let last = await peer.lastStderrLine()
      let detail = last.map { "; its last words on stderr: \($0)" + forkRefusalHint($0) } ?? ""
      if stillRunning && !peer.wasKilledForMemory {
        message = "\(label) closed its output during \(what) without answering, kept running, and was killed\(detail)"
        peer.appendToLog("fault: \(message)")
        return HostError(.extensionFault, message)
      }
      switch termination ?? .signalled(SIGKILL) {
      case .signalled(let signal):
        message = "\(label) \(peer.describeKill(signal)) during \(what)\(detail)"
      case .exited(let code):
        message = "\(label) exited with status \(code) during \(what) without answering\(detail)"
      }
    case .protocolViolation(let what2):
      connection.close()
      await peer.kill()
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
      full +=
        " (the extension answered handleInApp, so the app was launched to handle the intent; it must serve "
        + "it with InAppIntentHandling.serve, see docs/PROTOCOL.md, \"Apps\")"
    }
    peer.appendToLog("fault: \(full)")
    return HostError(.extensionFault, full)
  }

  /// A fault in what the extension answered (valid JSON-RPC, wrong content), logged and ready to throw.
  func violation(_ what: String) -> HostError {
    let message = "\(label) \(what)"
    peer.appendToLog("fault: \(message)")
    return HostError(.extensionFault, message)
  }

  /// The orderly end: `shutdown`, `exit`, close stdin, then the timed teardown. It runs to its end even when the
  /// calling task is cancelled; the peer is gone when it returns.
  func shutdown() async {
    await withUncancelledTask { [self] in
      if case .protocolViolation(let what)? = connection.failure {
        // Broken between requests (a flood after its last answer): the answers stand, the fault is logged.
        peer.appendToLog("fault: \(label) broke the protocol after its last answer: \(what)")
      }
      if connection.failure == nil {
        _ = try? await connection.send(ShutdownRequest(), timeout: deadlines.shutdown)
        try? connection.notify(ExitNotification())
      }
      connection.closeOutput()
      await peer.tearDown(grace: deadlines.shutdown, termGrace: .milliseconds(500))
      connection.close()
    }
  }

  /// Kills the peer at once; it is gone when this returns.
  func abort() async {
    connection.close()
    await peer.kill()
  }

  /// A line in the extension's log, beside its stderr.
  func appendToLog(_ line: String) {
    peer.appendToLog(line)
  }
}

/// Starts a supervised child, turning a sandbox setup failure, or an exec the sandbox refused, into a refusal (exit
/// 77, the same line in its log) and any other failure into an extension fault (exit 70), each naming the child.
func startProcess(_ specification: LaunchSpecification, label: String) throws -> SupervisedProcess {
  func refused(_ message: String) -> HostError {
    // Best effort: the line reaches the user on stderr whether or not the log takes it.
    if let log = specification.logPath { ExtensionLog.appendHostLine("fault: \(message)", toLogAt: log) }
    return HostError(.refused, message)
  }
  do {
    return try SupervisedProcess(specification)
  } catch let error as SpawnError where error.stage.isSandbox {
    throw refused("\(label) could not be sandboxed: \(error); it was not run")
  } catch let error as SpawnError where error.stage == .exec && specification.sandbox != nil {
    // Inside the sandbox, an exec fails for want of a grant (EACCES), or for a file that is neither ELF nor a
    // script with a recorded interpreter (ENOEXEC): a refusal, as docs/SANDBOX.md says.
    let what =
      specification.argumentZero == nil
      ? "its executable \(specification.executable) could not be executed (\(error.error.reason); the sandbox runs "
        + "an ELF program of its bundle, or a #! script through an interpreter recorded at install)"
      : "its interpreter \(specification.executable) could not be executed (\(error.error.reason); rule "
        + "\(ScriptProblem.rule): the sandbox grants execute on the interpreter recorded at install and its loader "
        + "only)"
    throw refused("\(label) was refused by the sandbox: \(what); it was not run")
  } catch {
    throw HostError(.extensionFault, "\(label) could not be started: \(error)")
  }
}

/// Why a child died by `signal`, in words: a limit it hit (memory, CPU, file size), a forbidden system call, or a
/// crash.
func describeKill(_ signal: Int32, process: SupervisedProcess) -> String {
  func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
  if let memory = process.memoryReport, memory.killed {
    let peak = memory.peak.map { "peak \(mib($0)), " } ?? ""
    return "was killed for using too much memory (\(peak)limit \(mib(memory.limit)), \(memory.mechanism))"
  }
  let threads = process.threadReport
  if threads.killed {
    return "was killed for running more than \(threads.limit) threads (\(threads.peak) seen by the watchdog)"
  }
  switch signal {
  case SIGXCPU:
    let seconds = process.specification.sandbox.map { " (\($0.cpuSeconds) s)" } ?? ""
    return "was killed for using more than its CPU time\(seconds) (SIGXCPU)"
  case SIGXFSZ:
    let size = process.specification.sandbox.map { " of \($0.fileSizeBytes >> 20) MiB" } ?? ""
    return "was killed for writing beyond its file-size limit\(size) (SIGXFSZ)"
  case SIGSYS:
    return "was killed for a forbidden system call (SIGSYS)"
  default:
    return "crashed with \(signalName(signal))"
  }
}

extension AssistantHome {
  /// Gets the home (`prepare()`: the log's folder, the identities' record), the launch's container and app groups
  /// ready (`prepareDirectories`), then adds the sandbox of `policy`: the profile's paths and identity, its limits,
  /// its memory ceiling. With `--no-sandbox`, only the folders. Every launch goes through here.
  /// - Throws: `HostError(.cannotCreate)` when the home cannot be made; `.refused` when a folder cannot be prepared,
  ///   or the sandbox is on but cannot be provided.
  func confine(
    _ specification: inout LaunchSpecification, name: String, bundleIdentifier: String, bundlePath: String,
    kind: SandboxPolicy.Kind, container: URL, appGroups: [AppGroupLocation], entitlements: Entitlements,
    appIdentifier: String, policy: SandboxPolicy
  ) throws {
    // As root the folders belong to the app's uid and the groups' gids whether or not this launch is sandboxed, so
    // that a later sandboxed launch finds them ready.
    try prepare()
    let identity = geteuid() == 0 ? try identities(app: appIdentifier, groups: appGroups.map(\.identifier)) : nil
    try prepareDirectories(bundleIdentifier: bundleIdentifier, appGroups: appGroups, identity: identity)
    guard policy.enabled else { return }
    let abi = try policy.landlockABI()
    let profile: SandboxProfile
    do {
      profile = try sandboxProfile(
        name: name, bundleIdentifier: bundleIdentifier, bundlePath: bundlePath, executable: specification.executable,
        kind: kind, container: container, appGroups: appGroups, entitlements: entitlements,
        appIdentifier: appIdentifier, policy: policy, recordingIdentity: true)
      if let refusal = profile.network.refusal(abi: abi) {
        throw HostError(.refused, "\(name) (\(bundleIdentifier)) cannot be sandboxed: \(refusal); it was not run")
      }
    } catch let error as HostError where error.status == .refused {
      // Refused before anything ran: the same line in its log (best effort, as in `startProcess`).
      if let log = specification.logPath { ExtensionLog.appendHostLine("fault: \(error.message)", toLogAt: log) }
      throw error
    }
    if let full = profile.storageOverBudget {
      throw HostError(.refused, full.refusal("\(name) (\(bundleIdentifier))"))
    }
    if let script = profile.interpreter {
      // The interpreter recorded at install runs the script, with the arguments the kernel would give it.
      specification.arguments = script.arguments(script: specification.executable) + specification.arguments
      specification.argumentZero = script.argumentZero
      specification.executable = script.program
      specification.environment.merge(script.environment) { _, new in new }
    }
    if profile.identity != nil {
      // The app's uid must reach its folders and its bundle.
      makeSearchable(ancestorsOf: container.lastPathComponent, inside: containers.path)
      for group in appGroups { makeSearchable(ancestorsOf: group.identifier, inside: appGroupsRoot.path) }
      let applicationsPath = applications.path + "/"
      if bundlePath.hasPrefix(applicationsPath) {
        makeSearchable(ancestorsOf: String(bundlePath.dropFirst(applicationsPath.count)), inside: applications.path)
      }
    }
    specification.sandbox = profile.spec(abi: abi)
    specification.memoryLimit = profile.limits.memory
    specification.processLimit = profile.limits.threads
    specification.simulatedKernel = policy.simulatedKernel
  }
}

/// The host's version, shown in `initialize` and `--version`.
public let hostVersion = "0.1.0"

/// A hint for an extension's last stderr line that says a new process was refused (a shell's `$(...)`, pipe or
/// command: dash's "Cannot fork", bash's "fork: Operation not permitted"); empty otherwise.
func forkRefusalHint(_ line: String) -> String {
  let lower = line.lowercased()
  guard lower.contains("cannot fork") || (lower.contains("fork") && lower.contains("operation not permitted")) else {
    return ""
  }
  return " (the sandbox refuses new processes: a shell script may use builtins only, no $(...), pipe or command; "
    + "docs/SANDBOX.md, \"Interpreted extensions\")"
}
