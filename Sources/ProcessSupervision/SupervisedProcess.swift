import Dispatch
import IntentHostSystem
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// What to start and how.
public struct LaunchSpecification: Sendable {
  /// A short name for messages, e.g. "RoomsIntents".
  public var name: String
  public var executable: String
  public var arguments: [String]
  /// The child's whole environment; nothing is inherited from the host.
  public var environment: [String: String]
  public var workingDirectory: String?
  /// Where the child's stderr is appended; nil discards it.
  public var logPath: String?
  /// The most bytes of stderr written to the log per launch; the rest is drained and counted.
  public var logLimit: Int = 1 << 20
  /// How the child's stdio is connected.
  public var stdio: Stdio = .protocolPipes
  /// The confinement applied before exec; nil runs the child unconfined.
  public var sandbox: SandboxSpec? = nil
  /// The memory ceiling in bytes (a cgroup where one can be made, else a footprint watchdog every 10 ms); nil for
  /// none. Only applied with a sandbox.
  public var memoryLimit: Int? = nil
  /// The cgroup's process and thread cap.
  public var processLimit: Int = 64

  public enum Stdio: Sendable {
    /// stdin and stdout are pipes to the host (the protocol); stderr goes to the log.
    case protocolPipes
    /// stdin is /dev/null; stdout and stderr are relayed to the host's stdout and stderr (and stderr to the log).
    case relay
  }

  public init(
    name: String, executable: String, arguments: [String] = [], environment: [String: String],
    workingDirectory: String? = nil, logPath: String? = nil, stdio: Stdio = .protocolPipes
  ) {
    self.name = name
    self.executable = executable
    self.arguments = arguments
    self.environment = environment
    self.workingDirectory = workingDirectory
    self.logPath = logPath
    self.stdio = stdio
  }
}

/// One supervised child: it owns the process, its pipes, its stderr log and its teardown.
///
/// The child leads its own process group and session, gets only fds 0, 1, 2, and receives SIGKILL if the host dies.
/// It is registered with `ProcessRegistry` until reaped, so an interrupted host can tear it down.
public final class SupervisedProcess: Sendable {
  public let specification: LaunchSpecification
  public let process: SpawnedProcess
  /// The write end of the child's stdin (nil without pipes). Owned by whoever builds the connection on it.
  public let standardInput: FileDescriptor?
  /// The read end of the child's stdout (nil without pipes).
  public let standardOutput: FileDescriptor?

  private struct State {
    var termination: Termination?
    var exitWaiters: [Int: CheckedContinuation<Termination?, Never>] = [:]
    var nextWaiter = 0
    var stderrTail: [UInt8] = []
    var stderrBytes = 0
    var openStreams = 1
    var stderrWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Waiters whose task was cancelled before they were registered.
    var cancelledWaiters: Set<Int> = []
    var peakFootprint = 0
    var killedForMemory = false
    var peakThreads = 0
    var killedForThreads = false
  }

  /// How the child stood against its memory ceiling.
  public struct MemoryReport: Sendable, Equatable {
    public var limit: Int
    /// The most it used, when known (the cgroup's peak, or the largest footprint the watchdog saw).
    public var peak: Int?
    /// Whether it was killed for going over (the kernel's OOM kill in its cgroup, or the watchdog).
    public var killed: Bool
    /// "cgroup v1", "cgroup v2" or "footprint watchdog".
    public var mechanism: String
  }

  private let state: Mutex<State>
  private let log: FileDescriptor?
  private let controlGroup: ControlGroup?
  /// Set when memory is watched from here rather than by a cgroup.
  private let watchdogLimit: Int?

  public var name: String { specification.name }
  public var pid: pid_t { process.pid }

  /// Starts the child.
  /// - Throws: `SpawnError` (cannot execute, no such file, …) or `SystemError` for pipes and the log.
  public init(_ specification: LaunchSpecification) throws {
    self.specification = specification
    var log: FileDescriptor? = nil
    if let logPath = specification.logPath {
      log = try FileDescriptor.open(logPath, O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
    }
    self.log = log
    let stderrPipe = try FileDescriptor.pipe()
    let childIn: FileDescriptor
    let childOut: FileDescriptor
    var parentIn: FileDescriptor? = nil
    var parentOut: FileDescriptor? = nil
    var relayedOut: FileDescriptor? = nil
    switch specification.stdio {
    case .protocolPipes:
      let inPipe = try FileDescriptor.pipe()
      let outPipe = try FileDescriptor.pipe()
      childIn = inPipe.read
      childOut = outPipe.write
      parentIn = inPipe.write
      parentOut = outPipe.read
    case .relay:
      childIn = try FileDescriptor.open("/dev/null", O_RDONLY)
      let outPipe = try FileDescriptor.pipe()
      childOut = outPipe.write
      relayedOut = outPipe.read
    }
    var options = SpawnOptions(
      executable: specification.executable,
      arguments: [specification.name] + specification.arguments,
      environment: specification.environment, workingDirectory: specification.workingDirectory,
      standardInput: childIn, standardOutput: childOut, standardError: stderrPipe.write)
    var controlGroup: ControlGroup? = nil
    var watchdogLimit: Int? = nil
    if var sandbox = specification.sandbox {
      if let limit = specification.memoryLimit {
        controlGroup = ControlGroup.create(
          name: specification.name, memoryLimit: limit, processLimit: specification.processLimit)
        if let controlGroup {
          sandbox.cgroupProcs = controlGroup.procsFiles
        } else {
          watchdogLimit = limit
          // Without pids.max, cap threads with RLIMIT_NPROC, which counts every process and thread of the uid: as
          // is for a uid of the child's own; for the host's user, inside a user namespace of the child's own, where
          // the count is the child's alone. The watchdog counts threads as well, for a kernel that refuses the
          // namespace.
          if sandbox.identity != nil {
            if sandbox.processes == 0 { sandbox.processes = specification.processLimit }
          } else if sandbox.namespaceProcesses == 0 && ControlGroupProbe.userNamespacesAllowed() {
            sandbox.namespaceProcesses = specification.processLimit
          }
        }
      }
      options.sandbox = sandbox
    }
    self.controlGroup = controlGroup
    self.watchdogLimit = watchdogLimit
    let spawned: SpawnedProcess
    do {
      spawned = try ProcessRegistry.shared.spawn(options)
    } catch {
      controlGroup?.remove()
      for fd in [childIn, childOut, stderrPipe.read, stderrPipe.write] { fd.close() }
      parentIn?.close()
      parentOut?.close()
      relayedOut?.close()
      log?.close()
      throw error
    }
    childIn.close()
    childOut.close()
    stderrPipe.write.close()
    self.process = spawned
    self.standardInput = parentIn
    self.standardOutput = parentOut
    self.state = Mutex(State())
    if let log {
      let stamp = ParameterFreeClock.timestamp()
      try? log.writeAll(Array("--- \(stamp) \(specification.name) started, pid \(spawned.pid)\n".utf8))
    }
    startWatching(stderr: stderrPipe.read, relayedOutput: relayedOut)
  }

  /// One watcher thread per child: drains its output streams and notices its exit (pidfd), with `poll`.
  private func startWatching(stderr: FileDescriptor, relayedOutput: FileDescriptor?) {
    let relay = specification.stdio == .relay
    var streams: [(fd: FileDescriptor, logging: Bool, target: FileDescriptor?)] = [
      (stderr, true, relay ? .standardError : nil)
    ]
    if let relayedOutput { streams.append((relayedOutput, false, .standardOutput)) }
    state.withLock { $0.openStreams = streams.count }
    let pidfd = process.pidfd
    detachThread { [self, streams] in
      var open = streams
      var exited = false
      var drainDeadline: Int = 0  // polls left for the streams once the child is gone
      var buffer = [UInt8](repeating: 0, count: 65536)
      while !open.isEmpty || !exited {
        let fds = open.map(\.fd) + (exited ? [] : [pidfd])
        let interval: Int32 = watchdogLimit != nil && !exited ? 10 : 50
        let ready = (try? pollReadable(fds, timeoutMilliseconds: interval)) ?? Array(repeating: false, count: fds.count)
        if !exited, let limit = watchdogLimit { watch(memoryLimit: limit) }
        if !exited && ready.last == true {
          exited = childExited()
          drainDeadline = 40  // 2 s for grandchildren holding the pipes to be swept
        }
        var index = 0
        while index < open.count {
          let stream = open[index]
          var ended = false
          if ready[index] {
            let count = (try? stream.fd.read(into: &buffer)) ?? 0
            if count == 0 {
              ended = true
            } else {
              record(buffer[0..<count], logging: stream.logging, relayTo: stream.target)
            }
          }
          if !ended && exited && drainDeadline <= 0 { ended = true }
          if ended {
            stream.fd.close()
            open.remove(at: index)
            streamClosed()
          } else {
            index += 1
          }
        }
        if exited { drainDeadline -= 1 }
      }
      pidfd.close()
    }
  }

  /// The watchdog (no cgroup): kills the child once it uses more memory than `limit`, or runs more threads than its
  /// process limit (which RLIMIT_NPROC normally keeps it under; this catches a kernel that refused its namespace).
  private func watch(memoryLimit limit: Int) {
    guard let status = ProcessStatus.read(process.pid) else { return }
    let threadLimit = specification.processLimit
    let over = state.withLock { state -> Bool in
      state.peakFootprint = max(state.peakFootprint, status.footprint)
      state.peakThreads = max(state.peakThreads, status.threads)
      if state.killedForMemory || state.killedForThreads { return false }
      if status.footprint > limit {
        state.killedForMemory = true
        return true
      }
      if status.threads > threadLimit {
        state.killedForThreads = true
        return true
      }
      return false
    }
    if over { process.send(SIGKILL) }
  }

  /// Whether the watchdog killed the child for running more threads than its process limit, and the most it saw.
  public var threadReport: (killed: Bool, peak: Int, limit: Int) {
    state.withLock { ($0.killedForThreads, $0.peakThreads, specification.processLimit) }
  }

  /// The child's memory against its ceiling; nil when it had none. Complete once the child has exited.
  public var memoryReport: MemoryReport? {
    guard let limit = specification.sandbox != nil ? specification.memoryLimit : nil else { return nil }
    if let controlGroup {
      let (peak, killed) = state.withLock { ($0.peakFootprint, $0.killedForMemory) }
      return MemoryReport(
        limit: limit, peak: peak > 0 ? peak : controlGroup.peakMemory(), killed: killed || controlGroup.oomKills() > 0,
        mechanism: "cgroup v\(controlGroup.version)")
    }
    return state.withLock {
      MemoryReport(limit: limit, peak: $0.peakFootprint, killed: $0.killedForMemory, mechanism: "footprint watchdog")
    }
  }

  private func streamClosed() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.openStreams -= 1
      guard state.openStreams == 0 else { return [] }
      defer { state.stderrWaiters.removeAll() }
      return Array(state.stderrWaiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  private func record(_ chunk: ArraySlice<UInt8>, logging: Bool, relayTo target: FileDescriptor?) {
    let count = chunk.count
    if let target { try? target.writeAll(Array(chunk), timeoutMilliseconds: 5000) }
    guard logging else { return }
    let alreadyLogged = state.withLock { state -> Int in
      let before = state.stderrBytes
      state.stderrBytes += count
      state.stderrTail.append(contentsOf: chunk)
      if state.stderrTail.count > 4096 { state.stderrTail.removeFirst(state.stderrTail.count - 4096) }
      return before
    }
    guard let log else { return }
    let limit = specification.logLimit
    if alreadyLogged < limit { try? log.writeAll(Array(chunk.prefix(limit - alreadyLogged))) }
    // The byte that first goes past the limit, in whichever chunk it comes, gets the marker.
    if alreadyLogged <= limit && alreadyLogged + count > limit {
      try? log.writeAll(Array("\n[stderr beyond \(limit) bytes not logged]\n".utf8))
    }
  }

  /// Reaps the child if it has ended and wakes the waiters. Returns whether it has ended.
  private func childExited() -> Bool {
    let termination: Termination?
    do {
      termination = try process.reap()
    } catch {
      termination = .exited(-1)
    }
    guard let termination else { return false }
    if let controlGroup {
      // Read the counters before the group goes away; anything left in it dies with the child.
      let peak = controlGroup.peakMemory() ?? 0
      let killed = controlGroup.oomKills() > 0
      state.withLock { state in
        state.peakFootprint = peak
        state.killedForMemory = killed
      }
      controlGroup.killAll()
      controlGroup.remove()
    }
    let waiters = state.withLock { state in
      state.termination = termination
      defer { state.exitWaiters.removeAll() }
      return Array(state.exitWaiters.values)
    }
    ProcessRegistry.shared.forget(process)
    if let log {
      try? log.writeAll(Array("--- \(specification.name) \(termination)\n".utf8))
    }
    for waiter in waiters { waiter.resume(returning: termination) }
    return true
  }

  /// How the child ended, or nil while it runs.
  public var termination: Termination? { state.withLock { $0.termination } }

  /// Waits for the child to end, as long as it takes.
  /// - Returns: the termination, or nil when the calling task is cancelled first.
  public func waitForExit() async -> Termination? {
    let ticket = state.withLock { state -> Int in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Termination?, Never>) in
        let ended = state.withLock { state -> Termination?? in
          if let termination = state.termination { return .some(termination) }
          if state.cancelledWaiters.remove(ticket) != nil { return .some(nil) }
          state.exitWaiters[ticket] = continuation
          return nil
        }
        if let ended { continuation.resume(returning: ended) }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        let waiter = state.exitWaiters.removeValue(forKey: ticket)
        if waiter == nil && state.termination == nil { state.cancelledWaiters.insert(ticket) }
        return waiter
      }
      waiter?.resume(returning: nil)
    }
  }

  /// Waits for the child to end, racing `timeout` (a `Task.sleep`) in a task group.
  /// - Returns: the termination, or nil when the timeout passed first (or the calling task was cancelled).
  public func waitForExit(timeout: Duration) async -> Termination? {
    await withTaskGroup(of: Termination?.self) { group in
      group.addTask { await self.waitForExit() }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first ?? termination
    }
  }

  /// The last few KiB the child wrote to stderr, after waiting up to `timeout` for it to close its output streams.
  public func stderrTail(waitingUpTo timeout: Duration = .milliseconds(200)) async -> String {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.streamsClosed() }
      group.addTask { try? await Task.sleep(for: timeout) }
      await group.next()
      group.cancelAll()
    }
    return String(decoding: state.withLock { $0.stderrTail }, as: UTF8.self)
  }

  /// Returns once the child's output streams are closed (or the calling task is cancelled).
  private func streamsClosed() async {
    let ticket = state.withLock { state -> Int in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let done = state.withLock { state -> Bool in
          if state.openStreams == 0 || state.cancelledWaiters.remove(ticket) != nil { return true }
          state.stderrWaiters[ticket] = continuation
          return false
        }
        if done { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        let waiter = state.stderrWaiters.removeValue(forKey: ticket)
        if waiter == nil && state.openStreams > 0 { state.cancelledWaiters.insert(ticket) }
        return waiter
      }
      waiter?.resume()
    }
  }

  /// The most telling stderr line for a one-line fault message: the last Swift runtime "Fatal error" line if
  /// there is one, else the last non-empty line (trimmed to 200 characters).
  public func lastStderrLine() async -> String? {
    let lines = await stderrTail().split(whereSeparator: \.isNewline).map {
      String($0.drop(while: \.isWhitespace))
    }.filter { !$0.isEmpty }
    let line = lines.last { $0.contains("Fatal error") || $0.contains("fatal error") } ?? lines.last
    return line.map { String($0.prefix(200)) }
  }

  /// Sends a signal to the child's process group.
  public func signalGroup(_ signal: Int32) {
    guard termination == nil else { return }
    process.sendToGroup(signal)
    process.send(signal)
  }

  /// The timed teardown: wait `grace` for the child to exit by itself (its stdin should already be closed), then
  /// SIGTERM to its process group and wait `termGrace`, then SIGKILL. Always ends with the child reaped and
  /// anything left in its process group killed.
  ///
  /// It runs to its end even when the calling task is cancelled (an interrupted run still stops its children in
  /// order and reaps them).
  @discardableResult
  public func tearDown(grace: Duration = .milliseconds(500), termGrace: Duration = .milliseconds(500)) async
    -> Termination
  {
    await withUncancelledTask { await self.tearDownSteps(grace: grace, termGrace: termGrace) }
  }

  private func tearDownSteps(grace: Duration, termGrace: Duration) async -> Termination {
    if let ended = await waitForExit(timeout: grace) { return sweepGroup(ended) }
    signalGroup(SIGTERM)
    if let ended = await waitForExit(timeout: termGrace) { return sweepGroup(ended) }
    return await kill()
  }

  /// Kills whatever the child left behind in its process group (it led the group, so its pid is the group id) and
  /// in its cgroup.
  private func sweepGroup(_ termination: Termination) -> Termination {
    process.sendToGroup(SIGKILL)
    controlGroup?.killAll()
    return termination
  }

  /// SIGKILL to the process group, then waits until reaped (even when the calling task is cancelled).
  @discardableResult
  public func kill() async -> Termination {
    await withUncancelledTask { await self.killSteps() }
  }

  private func killSteps() async -> Termination {
    signalGroup(SIGKILL)
    controlGroup?.killAll()
    if let ended = await waitForExit(timeout: .seconds(5)) { return sweepGroup(ended) }
    // Unreachable in practice: SIGKILL cannot be ignored. Keep the answer typed rather than hang.
    return .signalled(SIGKILL)
  }

  deinit {
    log?.close()
  }
}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// UTC timestamps for log lines.
enum ParameterFreeClock {
  static func timestamp() -> String {
    Date().formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
  }
}
