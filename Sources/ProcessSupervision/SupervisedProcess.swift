import Dispatch
import IntentHostSystem
import Synchronization
import UntrustedText

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
  /// The child's argv[0]; nil gives it `name`. A script's interpreter gets its own path, as the kernel would give it.
  public var argumentZero: String? = nil
  public var arguments: [String]
  /// The child's whole environment; nothing is inherited from the host.
  public var environment: [String: String]
  public var workingDirectory: String?
  /// Where the child's stderr is appended, one `| ` line per line it wrote, beside the host's `--- ` lines
  /// (`ExtensionLog`); nil discards it.
  public var logPath: String?
  /// The most bytes of stderr lines written to the log per launch (as logged: prefixed and escaped); the rest is
  /// drained and counted.
  public var logLimit: Int = 1 << 20
  /// The most bytes of the host's own lines (faults, warnings, notes) written to the log per launch, beside its
  /// start and end lines, which are always written.
  public var hostLogLimit: Int = 64 << 10
  /// A log holding this many bytes or more when the launch starts is first rotated to `<log>.1`
  /// (`ExtensionLog.rotate`).
  public var logRotationSize: Int = ExtensionLog.defaultRotationSize
  /// How the child's stdio is connected.
  public var stdio: Stdio = .protocolPipes
  /// Whether the child gets a host channel: fd 3, one end of a Unix stream socket pair whose other end is
  /// `SupervisedProcess.hostChannel` (docs/PROTOCOL.md, "The host channel of an app").
  public var hostChannel = false
  /// The confinement applied before exec; nil runs the child unconfined.
  public var sandbox: SandboxSpec? = nil
  /// The memory ceiling in bytes (a cgroup where one can be made, else a footprint watchdog every 10 ms); nil for
  /// none. Only applied with a sandbox.
  public var memoryLimit: Int? = nil
  /// The cgroup's process and thread cap.
  public var processLimit: Int = 64
  /// What the kernel is taken to lack (`--simulate`): no cgroup, no unprivileged user namespaces.
  public var simulatedKernel = SimulatedKernel()

  public enum Stdio: Sendable {
    /// stdin and stdout are pipes to the host (the protocol); stderr goes to the log.
    case protocolPipes
    /// stdin is /dev/null; stdout and stderr are relayed to the host's stdout and stderr (and stderr to the log).
    case relay
    /// As `relay`, but stdout too is relayed to the host's stderr (the host's stdout is for its own JSON).
    case relayToStandardError
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
  /// The host's end of the child's fd 3 (nil unless `LaunchSpecification.hostChannel`). Owned by whoever serves it.
  public let hostChannel: FileDescriptor?

  private struct State {
    var termination: Termination?
    var exitWaiters: [Int: CheckedContinuation<Termination?, Never>] = [:]
    var nextWaiter = 0
    var stderrTail: [UInt8] = []
    /// Bytes of stderr lines and of host lines written to the log so far.
    var loggedStderrBytes = 0
    var loggedHostBytes = 0
    /// Set once the child is reaped: no signal may go to its pid any more.
    var reaped = false
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
    // Every descriptor made here is closed again if a later step fails.
    var made: [FileDescriptor] = []
    func keep(_ fd: FileDescriptor) -> FileDescriptor {
      made.append(fd)
      return fd
    }
    var controlGroup: ControlGroup? = nil
    var watching = true
    do {
      var log: FileDescriptor? = nil
      var rotationFailure: SystemError? = nil
      if let logPath = specification.logPath {
        rotationFailure = ExtensionLog.rotate(logPath, ifAtLeast: specification.logRotationSize)
        log = keep(try FileDescriptor.open(logPath, O_WRONLY | O_CREAT | O_APPEND, mode: 0o600))
      }
      let stderrPipe = try FileDescriptor.pipe()
      _ = (keep(stderrPipe.read), keep(stderrPipe.write))
      let childIn: FileDescriptor
      let childOut: FileDescriptor
      var parentIn: FileDescriptor? = nil
      var parentOut: FileDescriptor? = nil
      var relayedOut: FileDescriptor? = nil
      switch specification.stdio {
      case .protocolPipes:
        let inPipe = try FileDescriptor.pipe()
        _ = (keep(inPipe.read), keep(inPipe.write))
        let outPipe = try FileDescriptor.pipe()
        _ = (keep(outPipe.read), keep(outPipe.write))
        childIn = inPipe.read
        childOut = outPipe.write
        parentIn = inPipe.write
        parentOut = outPipe.read
      case .relay, .relayToStandardError:
        childIn = keep(try FileDescriptor.open("/dev/null", O_RDONLY))
        let outPipe = try FileDescriptor.pipe()
        _ = (keep(outPipe.read), keep(outPipe.write))
        childOut = outPipe.write
        relayedOut = outPipe.read
      }
      var options = SpawnOptions(
        executable: specification.executable,
        arguments: [specification.argumentZero ?? specification.name] + specification.arguments,
        environment: specification.environment, workingDirectory: specification.workingDirectory,
        standardInput: childIn, standardOutput: childOut, standardError: stderrPipe.write)
      var channel: (host: FileDescriptor, child: FileDescriptor)? = nil
      if specification.hostChannel {
        let pair = try FileDescriptor.socketPair()
        channel = (keep(pair.0), keep(pair.1))
        options.extraDescriptor = channel?.child
      }
      var watchdogLimit: Int? = nil
      if var sandbox = specification.sandbox {
        if let limit = specification.memoryLimit {
          controlGroup = ControlGroup.create(
            name: specification.name, memoryLimit: limit, processLimit: specification.processLimit,
            simulating: specification.simulatedKernel)
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
            } else if sandbox.namespaceProcesses == 0
              && ControlGroupProbe.userNamespacesAllowed(simulating: specification.simulatedKernel)
            {
              sandbox.namespaceProcesses = specification.processLimit
            }
          }
        }
        options.sandbox = sandbox
      }
      let spawned = try ProcessRegistry.shared.spawn(options)
      for fd in [childIn, childOut, stderrPipe.write, channel?.child].compactMap({ $0 }) { fd.close() }
      self.log = log
      self.controlGroup = controlGroup
      self.watchdogLimit = watchdogLimit
      self.process = spawned
      self.standardInput = parentIn
      self.standardOutput = parentOut
      self.hostChannel = channel?.host
      self.state = Mutex(State())
      if let log {
        let stamp = ParameterFreeClock.timestamp()
        let name = Untrusted.shown(specification.name)
        try? log.writeAll(Array("--- \(stamp) \(name) started, pid \(spawned.pid)\n".utf8))
        if let rotationFailure { appendHostLine("warning: the log was not rotated: \(rotationFailure)") }
      }
      watching = startWatching(stderr: stderrPipe.read, relayedOutput: relayedOut)
      if !watching {
        // Nobody could watch it: kill and reap it here (this initializer runs off the cooperative pool).
        spawned.send(SIGKILL)
        spawned.sendToGroup(SIGKILL)
        while (try? spawned.reap()) ?? nil == nil { _ = try? spawned.pidfd.waitReadable(timeoutMilliseconds: 100) }
        spawned.pidfd.close()
        ProcessRegistry.shared.forget(spawned)
        for fd in [stderrPipe.read, parentIn, parentOut, relayedOut, channel?.host].compactMap({ $0 }) { fd.close() }
        controlGroup?.remove()
      }
    } catch {
      controlGroup?.remove()
      for fd in made { fd.close() }
      throw error
    }
    if !watching {
      throw SystemError(code: EAGAIN, operation: "pthread_create", subject: "the watcher of \(specification.name)")
    }
  }

  /// One output stream of the child, drained by the watcher.
  private struct Stream {
    var fd: FileDescriptor
    /// Whether it is stderr (logged as `| ` lines and kept in the tail).
    var logging: Bool
    /// Where it is relayed (the host's own stdout or stderr), sanitized, until that is gone.
    var target: FileDescriptor?
    var logLines = ExtensionLog.LineAssembler()
    var relayText = Untrusted.StreamSanitizer(multiline: true)
  }

  /// What the watcher knows of the child's end.
  private struct Ending {
    var reaped: Termination?
    /// Once reaped: until when what is left in the streams is still drained (and relayed).
    var drainUntil: ContinuousClock.Instant?
  }

  /// One watcher thread per child: drains its output streams, relays them without ever blocking past the child's
  /// end, and notices its exit (pidfd), with `poll`. At the exit it kills what is left in the child's process group,
  /// reaps, drains what the child wrote (at most 2 s), writes the log's end line, and only then wakes the waiters:
  /// when `waitForExit` returns, the log is complete.
  /// - Returns: false when no thread could be made.
  private func startWatching(stderr: FileDescriptor, relayedOutput: FileDescriptor?) -> Bool {
    let relay = specification.stdio != .protocolPipes
    var streams = [Stream(fd: stderr, logging: true, target: relay ? .standardError : nil)]
    if let relayedOutput {
      let target: FileDescriptor = specification.stdio == .relayToStandardError ? .standardError : .standardOutput
      streams.append(Stream(fd: relayedOutput, logging: false, target: target))
    }
    state.withLock { $0.openStreams = streams.count }
    return startThread { [self, streams] in watch(streams) }
  }

  private func watch(_ streams: [Stream]) {
    let pidfd = process.pidfd
    var open = streams
    var ending = Ending()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !open.isEmpty || ending.reaped == nil {
      if let until = ending.drainUntil, ContinuousClock.now >= until || ProcessRegistry.shared.isForcing {
        for index in open.indices { closeStream(&open[index], ending: &ending) }
        open.removeAll()
        break
      }
      let fds = open.map(\.fd) + (ending.reaped == nil ? [pidfd] : [])
      let interval: Int32 = watchdogLimit != nil && ending.reaped == nil ? 10 : 50
      let ready = (try? pollReadable(fds, timeoutMilliseconds: interval)) ?? Array(repeating: false, count: fds.count)
      if ending.reaped == nil, let limit = watchdogLimit { watch(memoryLimit: limit) }
      if ending.reaped == nil && ready.last == true { reapAfterSweep(&ending) }
      var index = 0
      while index < open.count {
        var stream = open[index]
        var ended = false
        if ready[index] {
          let count = (try? stream.fd.read(into: &buffer)) ?? 0
          if count == 0 {
            ended = true
          } else {
            ended = !record(buffer[0..<count], from: &stream, ending: &ending)
            open[index] = stream
          }
        }
        if ended {
          closeStream(&stream, ending: &ending)
          open.remove(at: index)
        } else {
          index += 1
        }
      }
    }
    finish(ending.reaped ?? .exited(-1))
    pidfd.close()
  }

  /// The end of a stream: what it left unfinished (an incomplete character, a line without its newline) is relayed
  /// and logged, then it is closed.
  private func closeStream(_ stream: inout Stream, ending: inout Ending) {
    if let target = stream.target, !Untrusted.isBypassedForTesting {
      let rest = stream.relayText.finish()
      if !rest.isEmpty { _ = relay(Array(rest.utf8)[...], to: target, ending: &ending) }
    }
    if stream.logging { writeLogLines(stream.logLines.finish()) }
    stream.fd.close()
    streamClosed()
  }

  /// The child's end: SIGKILL to what is left in its process group (the child is a zombie until reaped, so its pid,
  /// the group's id, cannot have been reused), then the reap, then the cgroup's counters before it goes away.
  private func reapAfterSweep(_ ending: inout Ending) {
    process.sendToGroup(SIGKILL)
    controlGroup?.killAll()
    let termination: Termination?
    do {
      termination = try process.reap()
    } catch {
      termination = .exited(-1)
    }
    guard let termination else { return }
    if let controlGroup {
      let peak = controlGroup.peakMemory() ?? 0
      let killed = controlGroup.oomKills() > 0
      state.withLock { state in
        state.peakFootprint = peak
        state.killedForMemory = killed
      }
      controlGroup.remove()
    }
    state.withLock { $0.reaped = true }
    ending.reaped = termination
    ending.drainUntil = .now + .seconds(2)
  }

  /// After the streams: the log's end line, then the waiters. The registry forgets the child last, so `killAll`
  /// (the forced exit) waits for the end line too.
  private func finish(_ termination: Termination) {
    if let log {
      // Every stream has been closed and its last, unfinished line logged: the end line is on a line of its own.
      try? log.writeAll(Array("--- \(Untrusted.shown(specification.name)) \(termination)\n".utf8))
    }
    let waiters = state.withLock { state in
      state.termination = termination
      state.cancelledWaiters.removeAll()
      defer { state.exitWaiters.removeAll() }
      return Array(state.exitWaiters.values)
    }
    ProcessRegistry.shared.forget(process)
    for waiter in waiters { waiter.resume(returning: termination) }
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

  /// Relays (sanitized) and logs (as `| ` lines) a chunk of the child's output.
  /// - Returns: false when the stream should be closed: its target is gone and it is not logged, so the child
  ///   should see a broken pipe, as it would writing to a closed pipe directly.
  private func record(_ chunk: ArraySlice<UInt8>, from stream: inout Stream, ending: inout Ending) -> Bool {
    if let target = stream.target {
      let text = Untrusted.isBypassedForTesting ? Array(chunk) : Array(stream.relayText.text(chunk).utf8)
      if !relay(text[...], to: target, ending: &ending) {
        stream.target = nil
        if !stream.logging { return false }
      }
    }
    guard stream.logging else { return true }
    state.withLock { state in
      state.stderrTail.append(contentsOf: chunk)
      if state.stderrTail.count > 4096 { state.stderrTail.removeFirst(state.stderrTail.count - 4096) }
    }
    writeLogLines(stream.logLines.lines(chunk))
    return true
  }

  /// Writes whole stderr lines to the log while they fit in `logLimit`; the first that does not gets the marker.
  private func writeLogLines(_ lines: [UInt8]) {
    guard let log, !lines.isEmpty else { return }
    let limit = specification.logLimit
    let (fits, marks) = state.withLock { state -> (Int, Bool) in
      let before = state.loggedStderrBytes
      guard before <= limit else { return (0, false) }
      var fits = min(lines.count, limit - before)
      if fits < lines.count {
        // Only whole lines: back up to the end of the last line that fits.
        while fits > 0 && lines[fits - 1] != 0x0A { fits -= 1 }
        state.loggedStderrBytes = limit + 1  // nothing more from this launch
        return (fits, true)
      }
      state.loggedStderrBytes += fits
      return (fits, false)
    }
    if fits > 0 { try? log.writeAll(Array(lines[..<fits])) }
    if marks { try? log.writeAll(Array(ExtensionLog.hostLine("stderr beyond \(limit) bytes not logged").utf8)) }
  }

  /// Starts a new allowance of log lines (`logLimit`, `hostLogLimit`) for the next run a kept process serves
  /// (`assistant serve` lends one process to many calls; each gets what a launch of its own would).
  public func renewLogAllowance() {
    state.withLock { state in
      state.loggedStderrBytes = 0
      state.loggedHostBytes = 0
    }
  }

  /// The CPU time it has used (user and system, all its threads), from `/proc/PID/stat`; nil once it is gone.
  /// Blocks briefly (a read of /proc): call it off the cooperative pool.
  public func cpuTimeUsed() -> Duration? {
    guard let fd = try? FileDescriptor.open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC) else { return nil }
    defer { fd.close() }
    guard let bytes = try? fd.readAll(limit: 4096), let close = bytes.lastIndex(of: UInt8(ascii: ")")) else {
      return nil
    }
    // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
    let fields = bytes[(close + 2)...].split(separator: UInt8(ascii: " "))
    guard fields.count > 12, let user = Int(String(decoding: fields[11], as: UTF8.self)),
      let system = Int(String(decoding: fields[12], as: UTF8.self))
    else { return nil }
    let ticks = max(1, sysconf(Int32(_SC_CLK_TCK)))
    return .milliseconds((user + system) * 1000 / ticks)
  }

  /// Adds a line of the host's (a fault, a warning, a note) to the child's log: `--- host: ` and `line`, sanitized
  /// to one line. At most `hostLogLimit` bytes of them per launch.
  public func appendHostLine(_ line: String) {
    guard let log else { return }
    let bytes = Array(ExtensionLog.hostLine(line).utf8)
    let fits = state.withLock { state -> Bool in
      guard state.loggedHostBytes + bytes.count <= specification.hostLogLimit else { return false }
      state.loggedHostBytes += bytes.count
      return true
    }
    if fits { try? log.writeAll(bytes) }
  }

  /// Writes `chunk` to the host's stdout or stderr, waiting for a slow reader (a pager) while the child runs, as a
  /// pipe would. It never blocks past the child's end: it wakes on the pidfd, reaps, and then waits only until the
  /// drain's end; the memory watchdog keeps running meanwhile.
  /// - Returns: false when the target is gone (its reader closed it) or the drain's time is up; the rest is dropped.
  private func relay(_ chunk: ArraySlice<UInt8>, to target: FileDescriptor, ending: inout Ending) -> Bool {
    var offset = chunk.startIndex
    while offset < chunk.endIndex {
      // Once reaped, wait in slices, to notice a forced exit (`killAll`), which drops the rest at once.
      let watching = ending.reaped == nil && watchdogLimit != nil
      let deadline: ContinuousClock.Instant? =
        ending.drainUntil.map { min($0, .now + .milliseconds(50)) } ?? (watching ? .now + .milliseconds(10) : nil)
      do {
        offset += try target.write(
          chunk[offset...], until: deadline, wakingOn: ending.reaped == nil ? process.pidfd : nil)
      } catch {
        return false  // EPIPE: nobody reads it any more
      }
      if offset == chunk.endIndex { return true }
      if let until = ending.drainUntil, ContinuousClock.now >= until || ProcessRegistry.shared.isForcing {
        return false
      }
      if ending.reaped == nil {
        if let limit = watchdogLimit { watch(memoryLimit: limit) }
        if (try? process.pidfd.waitReadable(timeoutMilliseconds: 0)) == true { reapAfterSweep(&ending) }
      }
    }
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

  /// Sends a signal to the child's process group (nothing once the child is reaped).
  public func signalGroup(_ signal: Int32) {
    state.withLock { state in
      guard !state.reaped else { return }
      process.sendToGroup(signal)
      process.send(signal)
    }
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
    if let ended = await waitForExit(timeout: grace) { return ended }
    signalGroup(SIGTERM)
    if let ended = await waitForExit(timeout: termGrace) { return ended }
    return await kill()
  }

  /// SIGKILL to the process group, then waits until reaped (even when the calling task is cancelled).
  @discardableResult
  public func kill() async -> Termination {
    await withUncancelledTask { await self.killSteps() }
  }

  private func killSteps() async -> Termination {
    signalGroup(SIGKILL)
    controlGroup?.killAll()
    if let ended = await waitForExit(timeout: .seconds(5)) { return ended }
    // Unreachable in practice: SIGKILL cannot be ignored. Keep the answer typed rather than hang.
    return .signalled(SIGKILL)
  }

  deinit {
    log?.close()
  }
}

/// UTC timestamps for log lines.
enum ParameterFreeClock {
  static func timestamp() -> String {
    Date().formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
  }
}
