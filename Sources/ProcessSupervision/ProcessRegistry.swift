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
  private let interrupted = Mutex(false)

  /// Whether an interrupt signal arrived; the interrupt handler is then ending the process.
  public var isInterrupted: Bool { interrupted.withLock { $0 } }

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

  /// SIGKILLs every registered child's process group and reaps it.
  public func killAll() {
    let processes = live.withLock { Array($0.values) }
    for process in processes {
      process.sendToGroup(SIGKILL)
      process.send(SIGKILL)
    }
    for process in processes {
      for _ in 0..<500 {
        if (try? process.reap()) ?? nil != nil { break }
        _ = try? process.pidfd.waitReadable(timeoutMilliseconds: 10)
      }
    }
  }

  /// On SIGINT, SIGTERM or SIGHUP: kill every child, then exit with 128 + the signal number.
  /// - Parameter beforeExit: runs after the children are gone, e.g. to print a message.
  public func installInterruptHandler(beforeExit: @escaping @Sendable (Int32) -> Void = { _ in }) {
    var sources: [SendableSource] = []
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler { [self] in
        interrupted.withLock { $0 = true }
        killAll()
        beforeExit(signalNumber)
        exit(128 + signalNumber)
      }
      source.resume()
      sources.append(SendableSource(source))
    }
    handlers.withLock { $0 = sources }
  }
}
