#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import CIntentHostSystem

/// How a child process ended. A non-zero exit is a result, not an error.
public enum Termination: Sendable, Equatable, CustomStringConvertible {
  case exited(Int32)
  case signalled(Int32)

  public var description: String {
    switch self {
    case .exited(let code): return "exited with status \(code)"
    case .signalled(let signal): return "killed by signal \(signal) (\(signalName(signal)))"
    }
  }
}

/// The conventional name of a signal, e.g. "SIGSEGV".
public func signalName(_ signal: Int32) -> String {
  let names: [Int32: String] = [
    SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
    SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
    SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
    SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS",
  ]
  return names[signal] ?? "signal \(signal)"
}

/// Why a spawn failed.
public struct SpawnError: Error, Sendable, CustomStringConvertible {
  public enum Stage: Sendable { case fork, setup, chdir, exec }
  public var stage: Stage
  public var error: SystemError

  public var description: String {
    switch stage {
    case .fork: return "cannot start a process: \(error.reason)"
    case .setup: return "cannot prepare the child process: \(error.reason)"
    case .chdir: return "cannot enter the working directory \(error.subject): \(error.reason)"
    case .exec: return "cannot execute \(error.subject): \(error.reason)"
    }
  }
}

/// A started child process, known by pid and by pidfd (which has no pid-reuse race).
public struct SpawnedProcess: Sendable {
  public var pid: pid_t
  /// Close-on-exec pidfd; readable once the child has ended.
  public var pidfd: FileDescriptor

  /// Sends `signal` through the pidfd. ESRCH (already reaped) is not an error.
  public func send(_ signal: Int32) {
    _ = ih_pidfd_send_signal(pidfd.rawValue, signal)
  }

  /// Sends `signal` to the child's whole process group (the child must lead it).
  public func sendToGroup(_ signal: Int32) {
    _ = kill(-pid, signal)
  }

  /// Reaps the child if it has ended; nil while it runs.
  public func reap() throws(SystemError) -> Termination? {
    var ended: Int32 = 0
    var kind: Int32 = 0
    var value: Int32 = 0
    let code = ih_pidfd_reap(pidfd.rawValue, &ended, &kind, &value)
    if code != 0 { throw SystemError(code: code, operation: "waitid", subject: "pid \(pid)") }
    guard ended == 1 else { return nil }
    return kind == 1 ? .exited(value) : .signalled(value)
  }
}

/// What the child gets.
public struct SpawnOptions: Sendable {
  public var executable: String
  public var arguments: [String]
  public var environment: [String: String]
  public var workingDirectory: String?
  public var standardInput: FileDescriptor
  public var standardOutput: FileDescriptor
  public var standardError: FileDescriptor
  /// Lead a new session and process group (so the whole group can be signalled and no terminal is attached).
  public var newSession: Bool = true
  /// Signal the child receives when the host dies; 0 for none.
  public var parentDeathSignal: Int32 = SIGKILL

  public init(
    executable: String, arguments: [String], environment: [String: String], workingDirectory: String? = nil,
    standardInput: FileDescriptor, standardOutput: FileDescriptor, standardError: FileDescriptor
  ) {
    self.executable = executable
    self.arguments = arguments
    self.environment = environment
    self.workingDirectory = workingDirectory
    self.standardInput = standardInput
    self.standardOutput = standardOutput
    self.standardError = standardError
  }
}

/// Starts a child with only fds 0, 1, 2, default signal handling, the given environment and nothing else.
/// argv[0] is `arguments.first`, or the executable path when `arguments` is empty.
public func spawn(_ options: SpawnOptions) throws(SpawnError) -> SpawnedProcess {
  let argv = options.arguments.isEmpty ? [options.executable] : options.arguments
  let envp = options.environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
  var pid: pid_t = -1
  var pidfd: Int32 = -1
  var stage: Int32 = 0
  let code: Int32 = withCStringArray(argv) { cArgv in
    withCStringArray(envp) { cEnvp in
      options.executable.withCString { cPath in
        withOptionalCString(options.workingDirectory) { cCwd in
          var o = ih_spawn_options(
            path: cPath, argv: cArgv, envp: cEnvp, cwd: cCwd,
            stdin_fd: options.standardInput.rawValue, stdout_fd: options.standardOutput.rawValue,
            stderr_fd: options.standardError.rawValue, new_session: options.newSession ? 1 : 0,
            parent_death_signal: options.parentDeathSignal)
          return ih_spawn(&o, &pid, &pidfd, &stage)
        }
      }
    }
  }
  if code != 0 {
    switch stage {
    case Int32(IH_SPAWN_STAGE_EXEC.rawValue):
      throw SpawnError(stage: .exec, error: SystemError(code: code, operation: "execve", subject: options.executable))
    case Int32(IH_SPAWN_STAGE_CHDIR.rawValue):
      throw SpawnError(
        stage: .chdir, error: SystemError(code: code, operation: "chdir", subject: options.workingDirectory ?? ""))
    case Int32(IH_SPAWN_STAGE_SETUP.rawValue):
      throw SpawnError(stage: .setup, error: SystemError(code: code, operation: "spawn"))
    default:
      throw SpawnError(stage: .fork, error: SystemError(code: code, operation: "fork"))
    }
  }
  return SpawnedProcess(pid: pid, pidfd: FileDescriptor(rawValue: pidfd))
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
  guard let string else { return body(nil) }
  return string.withCString { body($0) }
}

private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
  let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
  defer { for p in pointers { free(p) } }
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// Whether a process with this pid exists (a zombie counts). The corresponding C function is `kill(pid, 0)`.
public func processExists(_ pid: pid_t) -> Bool {
  kill(pid, 0) == 0 || errno == EPERM
}

/// Locks `fd` with `flock`, waiting while another open file description holds it.
public func lockFile(_ fd: FileDescriptor, exclusive: Bool) throws(SystemError) {
  let code = ih_flock(fd.rawValue, exclusive ? LOCK_EX : LOCK_SH)
  if code != 0 { throw SystemError(code: code, operation: "flock") }
}

/// Releases an `flock`.
public func unlockFile(_ fd: FileDescriptor) {
  _ = ih_flock(fd.rawValue, LOCK_UN)
}
