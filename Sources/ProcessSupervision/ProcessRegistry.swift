import Dispatch
import IntentHostSystem
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Every child the host started and has not reaped yet, so that an interrupted host tears them all down.
public final class ProcessRegistry: Sendable {
  public static let shared = ProcessRegistry()

  private let live = Mutex<[pid_t: SpawnedProcess]>([:])
  private let handlers = Mutex<[SendableSource]>([])
  private let signalled = Mutex<Int32?>(nil)

  /// Whether an interrupt signal arrived.
  public var isInterrupted: Bool { interruptSignal != nil }

  /// The first interrupt signal that arrived (SIGINT, SIGTERM or SIGHUP), or nil.
  public var interruptSignal: Int32? { signalled.withLock { $0 } }

  /// Spawns and registers a child.
  func spawn(_ options: SpawnOptions) throws(SpawnError) -> SpawnedProcess {
    let process = try IntentHostSystem.spawn(options)
    live.withLock { $0[process.pid] = process }
    return process
  }

  func forget(_ process: SpawnedProcess) {
    _ = live.withLock { $0.removeValue(forKey: process.pid) }
  }

  /// The pids of children still running.
  public var livePIDs: [pid_t] { live.withLock { Array($0.keys) } }

  /// The last resort: SIGKILLs every registered child's process group, then waits (up to `timeout`, on the calling
  /// thread, which must not be a cooperative-pool thread) until their supervisors have reaped them and written the
  /// end lines of their logs.
  public func killAll(timeout: Duration = .seconds(2)) {
    let processes = live.withLock { Array($0.values) }
    for process in processes {
      process.sendToGroup(SIGKILL)
      process.send(SIGKILL)
    }
    let deadline = ContinuousClock.now + timeout
    while !live.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { usleep(2_000) }
  }

  /// Handles SIGINT, SIGTERM and SIGHUP for a run whose cleanup is structured.
  ///
  /// On the first signal, `onInterrupt` is called (cancel the run's task: its cleanup then shuts down and reaps
  /// every child it started, in order) and the signal is remembered (`interruptSignal`). If the process is still
  /// running `grace` later, or when a second signal arrives, every child is killed and reaped (`killAll`),
  /// `beforeExit` runs, and the process exits with 128 + the first signal's number.
  public func installInterruptHandler(
    grace: Duration = .seconds(3), onInterrupt: @escaping @Sendable (Int32) -> Void,
    beforeExit: @escaping @Sendable (Int32) -> Void = { _ in }
  ) {
    let queue = DispatchQueue(label: "intenthost.interrupt")
    var sources: [SendableSource] = []
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
      source.setEventHandler { [self] in
        let first = signalled.withLock { signalled -> Int32? in
          if let signalled { return signalled }
          signalled = signalNumber
          return nil
        }
        if let first {
          // A second signal: stop waiting for the orderly cleanup.
          detachThread { [self] in forceExit(first, beforeExit: beforeExit) }
          return
        }
        onInterrupt(signalNumber)
        detachThread { [self] in
          let left = grace.components
          var request = timespec(tv_sec: Int(left.seconds), tv_nsec: Int(left.attoseconds / 1_000_000_000))
          var remaining = timespec()
          while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
          forceExit(signalNumber, beforeExit: beforeExit)
        }
      }
      source.resume()
      sources.append(SendableSource(source))
    }
    handlers.withLock { $0 = sources }
  }

  private func forceExit(_ signalNumber: Int32, beforeExit: @Sendable (Int32) -> Void) -> Never {
    killAll()
    beforeExit(signalNumber)
    exit(128 + signalNumber)
  }
}
