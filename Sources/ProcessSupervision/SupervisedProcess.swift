#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import Dispatch
import IntentHostSystem
import Synchronization
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
    var stderrWaiters: [CheckedContinuation<Void, Never>] = []
    var exitSource: SendableSource?
    var streamSources: [SendableSource] = []
  }

  private let state: Mutex<State>
  private let queue: DispatchQueue
  private let log: FileDescriptor?

  public var name: String { specification.name }
  public var pid: pid_t { process.pid }

  /// Starts the child.
  /// - Throws: `SpawnError` (cannot execute, no such file, …) or `SystemError` for pipes and the log.
  public init(_ specification: LaunchSpecification) throws {
    self.specification = specification
    self.queue = DispatchQueue(label: "intenthost.process.\(specification.name)")
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
    let options = SpawnOptions(
      executable: specification.executable,
      arguments: [specification.name] + specification.arguments,
      environment: specification.environment, workingDirectory: specification.workingDirectory,
      standardInput: childIn, standardOutput: childOut, standardError: stderrPipe.write)
    let spawned: SpawnedProcess
    do {
      spawned = try ProcessRegistry.shared.spawn(options)
    } catch {
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

  private func startWatching(stderr: FileDescriptor, relayedOutput: FileDescriptor?) {
    var sources: [SendableSource] = []
    let relay = specification.stdio == .relay
    for (fd, isStderr) in [(stderr, true)] + (relayedOutput.map { [($0, false)] } ?? []) {
      try? fd.setNonBlocking(true)
      let source = DispatchSource.makeReadSource(fileDescriptor: fd.rawValue, queue: queue)
      let target: FileDescriptor? = relay ? (isStderr ? .standardError : .standardOutput) : nil
      source.setEventHandler { [weak self] in self?.drain(fd, logging: isStderr, relayTo: target) }
      source.setCancelHandler { fd.close() }
      sources.append(SendableSource(source))
    }
    let exitSource = DispatchSource.makeReadSource(fileDescriptor: process.pidfd.rawValue, queue: queue)
    exitSource.setEventHandler { [weak self] in self?.childExited() }
    let pidfd = process.pidfd
    exitSource.setCancelHandler { pidfd.close() }
    let exitBox = SendableSource(exitSource)
    state.withLock {
      $0.streamSources = sources
      $0.openStreams = sources.count
      $0.exitSource = exitBox
    }
    for source in sources { source.resume() }
    exitBox.resume()
  }

  private func drain(_ fd: FileDescriptor, logging: Bool, relayTo target: FileDescriptor?) {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count: Int
      do {
        count = try fd.read(into: &buffer)
      } catch {
        if error.code == EAGAIN || error.code == EWOULDBLOCK { return }
        count = 0
      }
      if count == 0 {
        let (source, waiters) = state.withLock { state -> (SendableSource?, [CheckedContinuation<Void, Never>]) in
          state.openStreams -= 1
          let source = state.streamSources.first { $0.handle == UInt(fd.rawValue) }
          guard state.openStreams == 0 else { return (source, []) }
          defer { state.stderrWaiters.removeAll() }
          return (source, state.stderrWaiters)
        }
        source?.cancel()
        for waiter in waiters { waiter.resume() }
        return
      }
      let chunk = buffer[0..<count]
      if let target { try? target.writeAll(Array(chunk), timeoutMilliseconds: 5000) }
      guard logging else { continue }
      let alreadyLogged = state.withLock { state -> Int in
        let before = state.stderrBytes
        state.stderrBytes += count
        state.stderrTail.append(contentsOf: chunk)
        if state.stderrTail.count > 4096 { state.stderrTail.removeFirst(state.stderrTail.count - 4096) }
        return before
      }
      if let log, alreadyLogged < specification.logLimit {
        let room = specification.logLimit - alreadyLogged
        try? log.writeAll(Array(chunk.prefix(room)))
        if count > room {
          try? log.writeAll(Array("\n[stderr beyond \(specification.logLimit) bytes not logged]\n".utf8))
        }
      }
    }
  }

  private func childExited() {
    let termination: Termination?
    do {
      termination = try process.reap()
    } catch {
      termination = .exited(-1)
    }
    guard let termination else { return }
    let (waiters, source) = state.withLock { state in
      state.termination = termination
      defer { state.exitWaiters.removeAll() }
      return (Array(state.exitWaiters.values), state.exitSource)
    }
    source?.cancel()
    ProcessRegistry.shared.forget(process)
    if let log {
      try? log.writeAll(Array("--- \(specification.name) \(termination)\n".utf8))
    }
    for waiter in waiters { waiter.resume(returning: termination) }
  }

  /// How the child ended, or nil while it runs.
  public var termination: Termination? { state.withLock { $0.termination } }

  /// Waits for the child to end.
  /// - Parameter timeout: nil waits forever.
  /// - Returns: the termination, or nil when the timeout passed first.
  public func waitForExit(timeout: Duration? = nil) async -> Termination? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Termination?, Never>) in
      let ticket = state.withLock { state -> Int? in
        if state.termination != nil { return nil }
        state.nextWaiter += 1
        state.exitWaiters[state.nextWaiter] = continuation
        return state.nextWaiter
      }
      guard let ticket else {
        continuation.resume(returning: termination)
        return
      }
      if let timeout {
        queue.asyncAfter(deadline: .now() + timeout.seconds) { [weak self] in
          guard let self else { return }
          let waiter = state.withLock { $0.exitWaiters.removeValue(forKey: ticket) }
          waiter?.resume(returning: nil)
        }
      }
    }
  }

  /// The last few KiB the child wrote to stderr, after waiting up to `timeout` for it to close its output streams.
  public func stderrTail(waitingUpTo timeout: Duration = .milliseconds(200)) async -> String {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let closed = state.withLock { state -> Bool in
        if state.openStreams == 0 { return true }
        state.stderrWaiters.append(continuation)
        return false
      }
      if closed {
        continuation.resume()
        return
      }
      queue.asyncAfter(deadline: .now() + timeout.seconds) { [weak self] in
        guard let self else { return }
        let waiters = state.withLock { state in
          defer { state.stderrWaiters.removeAll() }
          return state.stderrWaiters
        }
        for waiter in waiters { waiter.resume() }
      }
    }
    return String(decoding: state.withLock { $0.stderrTail }, as: UTF8.self)
  }

  /// The last non-empty stderr line, trimmed, for one-line fault messages.
  public func lastStderrLine() async -> String? {
    let tail = await stderrTail()
    return tail.split(whereSeparator: \.isNewline).last.map { String($0.prefix(200)) }
  }

  /// Sends a signal to the child's process group.
  public func signalGroup(_ signal: Int32) {
    guard termination == nil else { return }
    process.sendToGroup(signal)
    process.send(signal)
  }

  /// The timed teardown: wait `grace` for the child to exit by itself (its stdin should already be closed), then
  /// SIGTERM to its process group and wait `termGrace`, then SIGKILL. Always ends with the child reaped.
  @discardableResult
  public func tearDown(grace: Duration = .milliseconds(500), termGrace: Duration = .milliseconds(500)) async
    -> Termination
  {
    if let ended = await waitForExit(timeout: grace) { return ended }
    signalGroup(SIGTERM)
    if let ended = await waitForExit(timeout: termGrace) { return ended }
    return await kill()
  }

  /// SIGKILL to the process group, then waits until reaped.
  @discardableResult
  public func kill() async -> Termination {
    signalGroup(SIGKILL)
    if let ended = await waitForExit(timeout: .seconds(5)) { return ended }
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
