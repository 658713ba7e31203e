import CIntentHostSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

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
  public enum Stage: String, Sendable {
    case fork, setup, chdir, exec
    /// Sandbox steps: joining the cgroups, resource limits, dropping to the app's uid, no-new-privileges,
    /// Landlock, seccomp.
    case cgroup, limits, identity, noNewPrivileges = "no-new-privileges", landlock, seccomp

    /// Whether the failure was in setting up the sandbox (the child exited 125 before running anything).
    public var isSandbox: Bool { ![.fork, .setup, .chdir, .exec].contains(self) }
  }
  public var stage: Stage
  public var error: SystemError

  public var description: String {
    switch stage {
    case .fork: return "cannot start a process: \(error.reason)"
    case .setup: return "cannot prepare the child process: \(error.reason)"
    case .chdir: return "cannot enter the working directory \(error.subject): \(error.reason)"
    case .exec: return "cannot execute \(error.subject): \(error.reason)"
    default: return "sandbox setup failed at the \(stage.rawValue) step: \(error.reason)"
    }
  }
}

/// The confinement `spawn` applies in the child before exec (see docs/SANDBOX.md). Paths that do not exist are
/// skipped.
public struct SandboxSpec: Sendable, Equatable {
  /// The Landlock ABI to use (`landlockABI()`); 0 makes the spawn fail at the landlock step.
  public var landlockABI: Int32
  /// Read and execute: the executable and its ELF interpreter.
  public var executePaths: [String]
  /// Read only.
  public var readPaths: [String]
  /// Read, write, create, remove, rename; never execute.
  public var writePaths: [String]
  /// Install the seccomp deny-list (no sockets, new processes, ptrace, io_uring, mounts, ...).
  public var seccomp: Bool = true
  /// Run as this uid, gid and supplementary groups (needs root); nil keeps the host's identity.
  public var identity: (uid: uid_t, gid: gid_t, groups: [gid_t])?
  /// `cgroup.procs` files the child writes itself into before anything else.
  public var cgroupProcs: [String] = []
  public var cpuSeconds: Int = 0
  public var openFiles: Int = 0
  public var dataBytes: Int = 0
  public var fileSizeBytes: Int = 0
  /// RLIMIT_NPROC, which counts every process and thread of the uid (only sound for a uid of the child's own).
  public var processes: Int = 0
  /// RLIMIT_NPROC inside a user namespace of the child's own (its uid and gid mapped to themselves), where it counts
  /// the child's threads only: the thread cap of a child that runs as the host's user. Best effort: where the kernel
  /// refuses unprivileged user namespaces, no limit is set. 0 for no namespace.
  public var namespaceProcesses: Int = 0
  public var umask: Int32 = -1
  /// Read only, from the entitlements' temporary exception: real paths, each opened without following any link, so
  /// that what is granted is what the host checked; a missing one is skipped.
  public var readExceptionPaths: [String] = []
  /// Folders whose listing alone may be read (names, not contents), from the entitlements' temporary exception (a
  /// folder written without a trailing `/`): Landlock's read-dir right, which reaches the listings of the folders
  /// below too. Opened as `readExceptionPaths`; one that is not a folder gets nothing.
  public var listingExceptionPaths: [String] = []
  /// `com.apple.security.network.client`: inet stream and datagram sockets, TCP connect; bind and listen refused.
  public var networkClient = false
  /// `com.apple.security.network.server`: inet stream sockets, bind and listen; without `networkClient`, TCP connect
  /// refused (by Landlock, ABI 4 and later).
  public var networkServer = false

  public init(landlockABI: Int32, executePaths: [String], readPaths: [String], writePaths: [String]) {
    self.landlockABI = landlockABI
    self.executePaths = executePaths
    self.readPaths = readPaths
    self.writePaths = writePaths
  }

  public static func == (a: SandboxSpec, b: SandboxSpec) -> Bool {
    a.landlockABI == b.landlockABI && a.executePaths == b.executePaths && a.readPaths == b.readPaths
      && a.writePaths == b.writePaths && a.seccomp == b.seccomp && a.identity?.uid == b.identity?.uid
      && a.identity?.gid == b.identity?.gid && a.identity?.groups == b.identity?.groups
      && a.cgroupProcs == b.cgroupProcs && a.cpuSeconds == b.cpuSeconds && a.openFiles == b.openFiles
      && a.dataBytes == b.dataBytes && a.fileSizeBytes == b.fileSizeBytes && a.processes == b.processes
      && a.namespaceProcesses == b.namespaceProcesses && a.umask == b.umask
      && a.readExceptionPaths == b.readExceptionPaths && a.listingExceptionPaths == b.listingExceptionPaths
      && a.networkClient == b.networkClient
      && a.networkServer == b.networkServer
  }
}

/// The Landlock ABI version this kernel offers; 0 when there is none.
public func landlockABI() -> Int32 { ih_landlock_abi() }

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
  /// Becomes the child's fd 3 (an app's host channel); nil: the child gets 0, 1 and 2 only.
  public var extraDescriptor: FileDescriptor? = nil
  /// Lead a new session and process group (so the whole group can be signalled and no terminal is attached).
  public var newSession: Bool = true
  /// Signal the child receives when the host dies; 0 for none.
  public var parentDeathSignal: Int32 = SIGKILL
  /// The confinement; nil runs the child unconfined.
  public var sandbox: SandboxSpec? = nil

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

/// Starts a child with only fds 0, 1, 2 (and 3 with `extraDescriptor`), default signal handling, the given environment and nothing else.
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
          withSandbox(options.sandbox) { sandbox in
            var o = ih_spawn_options(
              path: cPath, argv: cArgv, envp: cEnvp, cwd: cCwd,
              stdin_fd: options.standardInput.rawValue, stdout_fd: options.standardOutput.rawValue,
              stderr_fd: options.standardError.rawValue, extra_fd: options.extraDescriptor?.rawValue ?? -1,
              new_session: options.newSession ? 1 : 0,
              parent_death_signal: options.parentDeathSignal, sandbox: sandbox)
            return ih_spawn(&o, &pid, &pidfd, &stage)
          }
        }
      }
    }
  }
  if code != 0 {
    let sandboxStages: [Int32: SpawnError.Stage] = [
      Int32(IH_SPAWN_STAGE_CGROUP.rawValue): .cgroup, Int32(IH_SPAWN_STAGE_LIMITS.rawValue): .limits,
      Int32(IH_SPAWN_STAGE_IDENTITY.rawValue): .identity,
      Int32(IH_SPAWN_STAGE_NO_NEW_PRIVS.rawValue): .noNewPrivileges,
      Int32(IH_SPAWN_STAGE_LANDLOCK.rawValue): .landlock, Int32(IH_SPAWN_STAGE_SECCOMP.rawValue): .seccomp,
    ]
    if let sandboxStage = sandboxStages[stage] {
      throw SpawnError(stage: sandboxStage, error: SystemError(code: code, operation: sandboxStage.rawValue))
    }
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

/// Calls `body` with an `ih_sandbox` for `spec` (or nil), valid for the call.
private func withSandbox<R>(_ spec: SandboxSpec?, _ body: (UnsafePointer<ih_sandbox>?) -> R) -> R {
  guard let spec else { return body(nil) }
  return withCStringArray(spec.executePaths) { exec in
    withCStringArray(spec.readPaths) { read in
      withCStringArray(spec.writePaths) { write in
        withCStringArray(spec.cgroupProcs) { cgroups in
          let groups = spec.identity?.groups ?? []
          return groups.withUnsafeBufferPointer { groupPointer in
            // The arrays hold char* (mutable); ih_sandbox wants const char *const *.
            func constant(_ p: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> UnsafePointer<UnsafePointer<CChar>?> {
              UnsafeRawPointer(p).assumingMemoryBound(to: UnsafePointer<CChar>?.self)
            }
            var sandbox = ih_sandbox(
              landlock_abi: spec.landlockABI, exec_paths: constant(exec), read_paths: constant(read),
              write_paths: constant(write), seccomp: spec.seccomp ? 1 : 0, set_identity: spec.identity == nil ? 0 : 1,
              uid: spec.identity?.uid ?? 0, gid: spec.identity?.gid ?? 0, groups: groupPointer.baseAddress,
              group_count: Int32(groups.count), cgroup_procs: constant(cgroups), cpu_seconds: Int64(spec.cpuSeconds),
              open_files: Int64(spec.openFiles), data_bytes: Int64(spec.dataBytes),
              file_size_bytes: Int64(spec.fileSizeBytes), processes: Int64(spec.processes),
              namespace_processes: Int64(spec.namespaceProcesses), umask_value: spec.umask,
              read_exception_paths: nil, listing_exception_paths: nil, network_client: spec.networkClient ? 1 : 0,
              network_server: spec.networkServer ? 1 : 0)
            return withCStringArray(spec.readExceptionPaths) { exceptions in
              withCStringArray(spec.listingExceptionPaths) { listings in
                sandbox.read_exception_paths = constant(exceptions)
                sandbox.listing_exception_paths = constant(listings)
                return body(&sandbox)
              }
            }
          }
        }
      }
    }
  }
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

/// Tries to take an `flock` without waiting. Returns false when another open file description holds it.
public func tryLockFile(_ fd: FileDescriptor, exclusive: Bool) throws(SystemError) -> Bool {
  let code = ih_flock(fd.rawValue, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB)
  if code == EWOULDBLOCK { return false }
  if code != 0 { throw SystemError(code: code, operation: "flock") }
  return true
}

/// Releases an `flock`.
public func unlockFile(_ fd: FileDescriptor) {
  _ = ih_flock(fd.rawValue, LOCK_UN)
}
