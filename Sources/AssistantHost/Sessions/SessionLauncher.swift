// How a session's process is started and described: the launcher, its peer, and the words for how it ended.
import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision

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
  /// Sends `signal` to its process group (a fault plan's SIGSTOP and SIGCONT); nothing once it is gone.
  func signalGroup(_ signal: Int32)
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
  /// What to check of its container and groups once it has run; nil for none (no sandbox, a test's peer).
  var storage: StorageCheck? = nil
  /// What it answered `initialize` to an earlier run, when it is lent by `assistant serve` and was used before: the
  /// handshake is not done again.
  var handshake: InitializeResult? = nil
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
  /// The home's server (`assistant serve`), which lends running extensions; nil: every session is started here.
  var server: ServerClient? = nil

  func launch(_ target: SessionTarget, home: AssistantHome, locale: String, sandbox: SandboxPolicy) async throws
    -> LaunchedSession
  {
    // Extensions only: an app launched to handle an intent is the run's own.
    if let server, target.kind != .app, let lent = try await server.lend(target, locale: locale, recorder: recorder) {
      return lent
    }
    // Preparing the container and the identity (file locks, syncs) and the spawn (which waits for the child's
    // exec, and its cgroup join) block: they run off the cooperative pool.
    let (process, launch) = try await offloaded { () throws -> (SupervisedProcess, PreparedLaunch) in
      let launch = try PreparedLaunch(
        target, home: home, locale: locale, policy: sandbox,
        launchReason: target.kind == .app ? (target.performsAppIntents ? .appIntent : .handleInApp) : nil)
      let process = try startProcess(launch.specification, label: "\(target.name) (\(target.bundleIdentifier))")
      return (process, launch)
    }
    var options = Connection.Options(
      unsolicitedBudget: unsolicitedBudget, peerName: target.name,
      log: { [process] line in process.appendToLog("note: \(line)") })
    options.tap = recorder?.tap(peer: target.name)
    let connection = Connection(input: process.standardOutput!, output: process.standardInput!, options: options)
    return LaunchedSession(
      connection: connection, peer: process, containerPath: launch.container.path, appGroups: launch.appGroups,
      storage: launch.storage)
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
