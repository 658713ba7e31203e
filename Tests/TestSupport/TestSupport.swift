import Foundation
import IntentHostSystem
import Synchronization

/// Where the package and its built products are.
public enum PackagePaths {
  /// The package root (the folder with Package.swift).
  public static let root: URL = {
    var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
      url.deleteLastPathComponent()
    }
    return url
  }()

  /// The folder of built executables: `$INTENTHOST_BIN`, else `.build/debug`.
  public static var binaries: URL {
    if let bin = ProcessInfo.processInfo.environment["INTENTHOST_BIN"], !bin.isEmpty {
      return URL(fileURLWithPath: bin)
    }
    return root.appendingPathComponent(".build/debug")
  }

  /// A built executable, e.g. "assistant".
  public static func executable(_ name: String) -> String { binaries.appendingPathComponent(name).path }

  /// `../shared/corpus/real-xcode` beside the clone, if present.
  public static var corpus: URL { root.deletingLastPathComponent().appendingPathComponent("shared/corpus/real-xcode") }
}

/// A fresh temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
  public let url: URL
  public var path: String { url.path }

  /// - Parameter base: the folder to make it in (the system's temporary folder by default).
  public init(_ prefix: String = "intenthost-test", under base: String = NSTemporaryDirectory()) throws {
    var template = Array((base + "/\(prefix)-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw SystemError.current("mkdtemp") }
    url = URL(fileURLWithPath: String(cString: made)).standardizedFileURL
  }

  /// Removes the directory and everything in it; first unmounts what is mounted below it (a home's volumes), the
  /// deepest first, so that the removal neither stops at a mount point nor empties a volume it would leave mounted.
  public func remove() {
    Self.unmountEverything(under: path)
    try? FileManager.default.removeItem(at: url)
  }

  /// Unmounts every mount whose mount point is `path` or below it (as this process sees them), deepest first; one
  /// still busy (a process left in it) is detached, to go when its last user does.
  public static func unmountEverything(under path: String) {
    let root = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let points = ((try? MountEntry.all()) ?? []).map(\.mountPoint).filter { $0 == root || $0.hasPrefix(root + "/") }
    for point in points.sorted(by: { $0.count > $1.count }) {
      do throws(SystemError) {
        try unmount(point)
      } catch {
        try? unmount(point, detach: true)
      }
    }
  }

  public func file(_ relative: String) -> URL { url.appendingPathComponent(relative) }

  /// Where a test makes files the sandbox's read-only exceptions may grant, which must be root's and in no folder
  /// writable by others (so not in /tmp): `/run` when the tests run as root; the temporary folder otherwise (where
  /// nothing can be granted, so such tests need root).
  public static var systemBase: String { geteuid() == 0 ? "/run" : NSTemporaryDirectory() }
}

/// What a finished command did.
public struct CommandResult: Sendable, CustomStringConvertible {
  public var status: Termination
  public var stdout: String
  public var stderr: String
  public var pid: pid_t
  /// Whether the command outlived its time limit and was killed (its `status` is then SIGKILL).
  public var timedOut = false

  public init(status: Termination, stdout: String, stderr: String, pid: pid_t, timedOut: Bool = false) {
    self.status = status
    self.stdout = stdout
    self.stderr = stderr
    self.pid = pid
    self.timedOut = timedOut
  }

  /// The exit code, or 128 + signal.
  public var code: Int32 {
    switch status {
    case .exited(let code): return code
    case .signalled(let signal): return 128 + signal
    }
  }

  public var description: String {
    "\(status)\(timedOut ? " (timed out)" : "")\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
  }
}

// MARK: - Waiting off the cooperative pool

/// Runs `body` on a dedicated thread and returns its result, so that a blocking call (a read of a pipe, `flock`,
/// `fdatasync`, `poll`, `waitpid`, a sleep) waits off the cooperative pool: IntentHostSystem's `offloaded`, for
/// test files that do not import it.
/// - Important: `body` runs to its end even if the task is cancelled: give it its own time limit.
public func offThePool<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
  try await offloaded(body)
}

/// The permission bits of every file and folder under `folder`, by its path below it: how a bundle was laid out.
/// Reads off the cooperative pool.
public func fileModes(under folder: String) async throws -> [String: Int] {
  try await offThePool { () throws -> [String: Int] in
    var modes: [String: Int] = [:]
    for path in try FileManager.default.subpathsOfDirectory(atPath: folder) {
      let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + path)
      modes[path] = (attributes[.posixPermissions] as? Int) ?? -1
    }
    return modes
  }
}

/// Checks `condition` until it holds or `timeout` has passed, sleeping `interval` between checks with
/// `Task.sleep`, so that nothing waits on the cooperative pool.
///
/// Use it for a state another process reaches (a file appears, a process is gone); the last check comes after
/// the time is up.
/// - Important: `condition` runs on the pool: keep it cheap and non-blocking (a `stat`, a read of `/proc`). Anything
///   that blocks goes through `offThePool`.
/// - Returns: whether `condition` held in time.
/// - Throws: `CancellationError` when the task is cancelled; what `condition` throws.
@discardableResult
public func eventually(
  timeout: Duration = .seconds(10), interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async throws -> Bool {
  let deadline = ContinuousClock.now + timeout
  while true {
    if try await condition() { return true }
    if ContinuousClock.now >= deadline { return false }
    try await Task.sleep(for: interval)
  }
}

/// Waits for `process` to end, reaps it and closes its pidfd, all on a dedicated thread (the wait is a `poll` of
/// the pidfd, then `waitid`), so no thread of the cooperative pool waits.
///
/// After `timeout`, SIGKILL goes to the process group and the process and the wait goes on until it is reaped, so the
/// result is then `.signalled(SIGKILL)`.
/// - Important: Call it once per process. It closes the pidfd, so nothing may signal the process afterwards. A
///   timeout of zero kills and reaps at once.
/// - Returns: how the process ended.
/// - Throws: `CancellationError` when the task is cancelled, after the process was killed and reaped; a
///   `SystemError` when the pidfd cannot be waited for (the process is then killed, and its pidfd closed).
public func waitForExit(_ process: SpawnedProcess, timeout: Duration = .seconds(120)) async throws -> Termination {
  try await waitForEnding(of: process, limit: timeout).termination
}

/// How a wait for a child ended first.
private enum Ending: Sendable {
  case exited(Result<Termination, any Error>)
  case timedOut
  case cancelled
}

/// See `waitForExit(_:timeout:)`; also says whether the time limit killed the process.
private func waitForEnding(
  of process: SpawnedProcess, limit: Duration
) async throws -> (termination: Termination, timedOut: Bool) {
  let reaper = Reaper(process)
  let (first, exit) = await withTaskGroup(of: Ending.self) { group in
    group.addTask {
      await withCheckedContinuation { (continuation: CheckedContinuation<Ending, Never>) in
        detachThread { continuation.resume(returning: .exited(Result { try reaper.blockingWait() })) }
      }
    }
    group.addTask {
      do {
        try await Task.sleep(for: limit)
        return .timedOut
      } catch {
        return .cancelled
      }
    }
    let first = await group.next()!
    if case .exited(let exit) = first {
      group.cancelAll()
      return (first, exit)
    }
    // Timed out or cancelled: kill it, and still wait for the dedicated thread to reap it.
    reaper.kill()
    while let next = await group.next() {
      if case .exited(let exit) = next { return (first, exit) }
    }
    fatalError("the waiting thread ended without an answer")
  }
  let termination = try exit.get()
  if case .cancelled = first { throw CancellationError() }
  if case .timedOut = first { return (termination, true) }
  return (termination, false)
}

/// One child being waited for, and who may still signal it: nobody, once it is reaped (its pid and pidfd number
/// can then belong to another process).
private final class Reaper: Sendable {
  let process: SpawnedProcess
  /// Whether the child was reaped (or given up on). Signals are sent and the child reaped under this lock.
  private let reaped = Mutex(false)

  init(_ process: SpawnedProcess) { self.process = process }

  /// SIGKILL to the child's process group and to the child, unless it is already reaped.
  func kill() {
    reaped.withLock { isReaped in
      guard !isReaped else { return }
      process.sendToGroup(SIGKILL)
      process.send(SIGKILL)
    }
  }

  /// Blocks until the child ends, reaps it and closes its pidfd. Runs on a dedicated thread only.
  func blockingWait() throws -> Termination {
    do {
      while true {
        _ = try process.pidfd.waitReadable(timeoutMilliseconds: -1)
        let ended = try reaped.withLock { isReaped throws -> Termination? in
          guard let termination = try process.reap() else { return nil }
          isReaped = true
          return termination
        }
        if let ended {
          process.pidfd.close()
          return ended
        }
      }
    } catch {
      // Not waitable: kill it rather than leave it running, and give up on it.
      reaped.withLock { isReaped in
        if !isReaped {
          process.sendToGroup(SIGKILL)
          process.send(SIGKILL)
        }
        isReaped = true
      }
      process.pidfd.close()
      throw error
    }
  }
}

// MARK: - Commands

/// Runs a built executable to its end, as a user would from a shell (stdin /dev/null unless `input` is given), and
/// waits for it off the cooperative pool: the spawn (which waits for the exec), the wait for its end (a `poll` of its
/// pidfd, then `waitid`) and the read of its captured output all run on dedicated threads.
/// - Parameters:
///   - environment: the whole environment; nil is this process's (`CI` is removed either way).
///   - input: what the command reads on stdin.
///   - timeout: how long it may run; then SIGKILL goes to its process group and to it, it is reaped, and the result
///     says `timedOut`.
///   - onStart: called with the pid once the process runs (e.g. to signal it). It runs on the pool: it must not
///     block.
/// - Returns: how it ended and what it wrote.
/// - Throws: `CancellationError` when the task is cancelled (the process is killed and reaped first); a
///   `SpawnError` when it cannot start; a `SystemError` when it cannot be waited for or its output read.
public func runCommand(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
  timeout: Duration = .seconds(120), onStart: (@Sendable (pid_t) -> Void)? = nil
) async throws -> CommandResult {
  try Task.checkCancellation()
  var environment = environment ?? ProcessInfo.processInfo.environment
  environment["CI"] = nil
  let started = try await offThePool { [environment] in
    try StartedCommand(executable, arguments, environment: environment, input: input)
  }
  onStart?(started.process.pid)
  let ending: (termination: Termination, timedOut: Bool)
  do {
    ending = try await waitForEnding(of: started.process, limit: timeout)
  } catch {
    await offThePool { started.scratch.remove() }
    throw error
  }
  return try await offThePool {
    defer { started.scratch.remove() }
    return CommandResult(
      status: ending.termination, stdout: try started.captured("out"), stderr: try started.captured("err"),
      pid: started.process.pid, timedOut: ending.timedOut)
  }
}

/// A spawned command and the scratch folder holding its input and captured output.
private struct StartedCommand: Sendable {
  let scratch: TemporaryDirectory
  let process: SpawnedProcess

  /// Spawns `executable` leading its own session, stdout and stderr to files in a new scratch folder. Blocks until
  /// the exec: call it off the pool.
  init(_ executable: String, _ arguments: [String], environment: [String: String], input: String?) throws {
    let scratch = try TemporaryDirectory("intenthost-run")
    do {
      let out = try FileDescriptor.open(scratch.file("out").path, O_WRONLY | O_CREAT | O_TRUNC)
      defer { out.close() }
      let err = try FileDescriptor.open(scratch.file("err").path, O_WRONLY | O_CREAT | O_TRUNC)
      defer { err.close() }
      if let input { try Data(input.utf8).write(to: scratch.file("in")) }
      let inFD = try FileDescriptor.open(input == nil ? "/dev/null" : scratch.file("in").path, O_RDONLY)
      defer { inFD.close() }
      var options = SpawnOptions(
        executable: executable, arguments: [executable] + arguments, environment: environment, standardInput: inFD,
        standardOutput: out, standardError: err)
      options.newSession = true
      process = try spawn(options)
    } catch {
      scratch.remove()
      throw error
    }
    self.scratch = scratch
  }

  /// What the command wrote to `name` ("out" or "err"), invalid UTF-8 repaired. Reads a file: call it off the pool.
  func captured(_ name: String) throws -> String {
    String(decoding: try Data(contentsOf: scratch.file(name)), as: UTF8.self)
  }
}

// MARK: - Processes and files

/// Whether a process is alive (a zombie counts as dead). Reads `/proc/PID/stat`; it does not wait.
public func isAlive(_ pid: pid_t) -> Bool {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
  guard let close = stat.lastIndex(of: ")") else { return false }
  let state = stat[stat.index(close, offsetBy: 2)]
  return state != "Z" && state != "X"
}

/// The living processes whose `argv[0]` is `name` and whose working directory is `directory` or inside it: the
/// extensions a test's host started in containers under that test's temporary home. Other test runs on the machine
/// start the same fixtures elsewhere; the directory keeps their processes out. Reads `/proc`; it does not wait.
public func livingProcesses(named name: String, under directory: String) -> [pid_t] {
  let root = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  return entries.compactMap { pid_t($0) }.filter { pid in
    guard let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
      command.hasPrefix(name + "\0"), isAlive(pid),
      let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")
    else { return false }
    return cwd == root || cwd.hasPrefix(root + "/")
  }
}

/// Writes a property list (XML) from a dictionary.
public func writePlist(_ value: [String: Any], to url: URL) throws {
  let data = try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)
  try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try data.write(to: url)
}

/// Starts `executable` with stdout appended to a fresh file at `outputPath` (stdin and stderr `/dev/null`), for a test
/// that reads the output while the process runs. The spawn waits for the exec, so it runs off the pool.
/// - Returns: the process, to signal and to reap with `waitForExit`.
public func spawnWritingOutput(
  to outputPath: String, _ executable: String, _ arguments: [String], environment: [String: String] = [:]
) async throws -> SpawnedProcess {
  try await offThePool {
    let outFD = try FileDescriptor.open(outputPath, O_WRONLY | O_CREAT | O_TRUNC)
    defer { outFD.close() }
    let devNull = try FileDescriptor.open("/dev/null", O_RDWR)
    defer { devNull.close() }
    return try spawn(
      SpawnOptions(
        executable: executable, arguments: [executable] + arguments, environment: environment,
        standardInput: devNull, standardOutput: outFD, standardError: devNull))
  }
}
