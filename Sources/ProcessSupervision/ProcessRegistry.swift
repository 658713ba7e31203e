import IntentHostSystem
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Every child the host started and has not reaped yet, so that an interrupted host tears them all down.
public final class ProcessRegistry: Sendable {
  public static let shared = ProcessRegistry()

  private let live = Mutex<[pid_t: SpawnedProcess]>([:])
  private let spawned = Mutex(0)
  private let signalled = Mutex<Int32?>(nil)

  private let forcing = Mutex(false)

  /// Whether `killAll` runs: the supervisors then drain what their children wrote only briefly (no relaying to a
  /// stalled terminal), so that every log gets its end line before the forced exit.
  public var isForcing: Bool { forcing.withLock { $0 } }

  /// Whether an interrupt signal arrived.
  public var isInterrupted: Bool { interruptSignal != nil }

  /// The first interrupt signal that arrived (SIGINT, SIGTERM or SIGHUP), or nil.
  public var interruptSignal: Int32? { signalled.withLock { $0 } }

  /// Spawns and registers a child.
  func spawn(_ options: SpawnOptions) throws(SpawnError) -> SpawnedProcess {
    let process = try IntentHostSystem.spawn(options)
    live.withLock { $0[process.pid] = process }
    spawned.withLock { $0 += 1 }
    return process
  }

  /// How many children were ever spawned.
  public var spawnedCount: Int { spawned.withLock { $0 } }

  func forget(_ process: SpawnedProcess) {
    _ = live.withLock { $0.removeValue(forKey: process.pid) }
  }

  /// The pids of children still running.
  public var livePIDs: [pid_t] { live.withLock { Array($0.keys) } }

  /// The last resort: SIGKILLs every registered child's process group, then waits (up to `timeout`, on the calling
  /// thread, which must not be a cooperative-pool thread) until their supervisors have reaped them and written the
  /// end lines of their logs.
  public func killAll(timeout: Duration = .seconds(2)) {
    forcing.withLock { $0 = true }
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
  /// The signals are caught from this call on, in every thread (no window in which one is lost or kills the host
  /// unhandled). On the first, `onInterrupt` is called (cancel the run's task: its cleanup then shuts down and reaps
  /// every child it started, in order) and the signal is remembered (`interruptSignal`). If the process is still
  /// running `grace` later, or when a second signal arrives, every child is killed and reaped (`killAll`), and the
  /// process exits with 128 + the first signal's number after printing `forcedMessage` (`exit(_:message:)`).
  public func installInterruptHandler(
    grace: Duration = .seconds(3), forcedMessage: String, onInterrupt: @escaping @Sendable (Int32) -> Void
  ) {
    let signals: FileDescriptor
    do {
      signals = try catchSignals([SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    } catch {
      _ = try? FileDescriptor.standardError.write(
        Array("assistant: cannot catch interrupt signals (\(error)); Ctrl-C will not stop extensions in order\n".utf8)[
          ...],
        until: .now + .seconds(1))
      return
    }
    detachThread { [self] in
      var byte: [UInt8] = [0]
      var first: Int32
      repeat {
        guard (try? signals.read(into: &byte)) == 1 else { return }
        first = Int32(byte[0])
      } while interceptor.withLock({ $0 })?(first) == true
      signalled.withLock { $0 = first }
      onInterrupt(first)
      // Wait for the orderly end; a second signal, or the grace period's end, forces it.
      _ = try? pollReadable([signals], timeoutMilliseconds: grace.pollTimeout())
      killAll()
      exit(128 + first, message: forcedMessage)
    }
  }

  /// The handler that sees each interrupt signal first while `interceptingInterrupts` runs.
  private let interceptor = Mutex<(@Sendable (Int32) -> Bool)?>(nil)

  /// Runs `body` with `handler` seeing each interrupt signal first (on the signal thread of
  /// `installInterruptHandler`): a signal it takes (returns true) is handled, and does not interrupt the process; one
  /// it declines goes the usual way (`onInterrupt`, then the forced end). An interactive session uses it to let
  /// Ctrl-C cancel one step instead of the whole run.
  /// - Important: `handler` runs on the signal thread: it must not block (cancelling a task is fine). One body at a
  ///   time; nesting replaces the outer handler until the inner body ends.
  public func interceptingInterrupts<T>(
    _ handler: @escaping @Sendable (Int32) -> Bool, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> T
  ) async rethrows -> T {
    let outer = interceptor.withLock { current in
      defer { current = handler }
      return current
    }
    defer { interceptor.withLock { $0 = outer } }
    return try await body()
  }

  private let exiting = Mutex(false)

  /// Ends the process with `status`, once: the first caller prints `message` (waiting at most a second for a stalled
  /// stderr) and exits; a second caller, on another thread, waits for that exit instead of racing it.
  public func exit(_ status: Int32, message: String? = nil) -> Never {
    let first = exiting.withLock { exiting in
      defer { exiting = true }
      return !exiting
    }
    guard first else {
      while true { pause() }
    }
    if let message {
      _ = try? FileDescriptor.standardError.write(Array(message.utf8)[...], until: .now + .seconds(1))
    }
    Glibc.exit(status)
  }
}
