import CIntentHostSystem
import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

private final class ThreadBody {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Starts a detached POSIX thread running `body`. Used for blocking reads, which must not occupy the Swift
/// concurrency pool. When no thread can be made, `body` runs on the calling thread rather than be lost.
/// The corresponding C function is `pthread_create`.
public func detachThread(_ body: @escaping @Sendable () -> Void) {
  if !startThread(body) { body() }
}

/// Starts a detached POSIX thread running `body`; false (and `body` not run) when no thread can be made.
public func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
  let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
  var attributes = pthread_attr_t()
  pthread_attr_init(&attributes)
  pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
  var thread = pthread_t()
  let code = pthread_create(
    &thread, &attributes,
    { raw in
      Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
      return nil
    }, context)
  pthread_attr_destroy(&attributes)
  if code != 0 {
    Unmanaged<ThreadBody>.fromOpaque(context).release()
    return false
  }
  return true
}

/// Waits until any of `fds` is readable or hung up, up to `timeoutMilliseconds` (-1 forever).
/// - Returns: the readiness of each descriptor, in order.
public func pollReadable(_ fds: [FileDescriptor], timeoutMilliseconds: Int32) throws(SystemError) -> [Bool] {
  var entries = fds.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
  while true {
    let result = poll(&entries, nfds_t(entries.count), timeoutMilliseconds)
    if result >= 0 { break }
    let error = SystemError.current("poll")
    if error.code != EINTR { throw error }
  }
  return entries.map { $0.revents != 0 }
}

extension FileDescriptor {
  /// Returns once the reader of this descriptor is gone: it is the write end of a pipe (or a socket) whose other end
  /// was closed (`poll` reports `POLLERR` or `POLLHUP`), as `tail -f | head -1` learns that `head` ended without
  /// writing again. A regular file never ends it (a terminal only when it hangs up). Waits on a dedicated thread;
  /// returns early, without an answer, when the calling task is cancelled.
  /// - Returns: true when the reader went away, false when cancelled (or the descriptor cannot be polled).
  public func readerGone() async -> Bool {
    let watched = self
    do {
      return try await cancellableBlockingWait { cancellation in
        var entries = [
          pollfd(fd: watched.rawValue, events: 0, revents: 0),
          pollfd(fd: cancellation.rawValue, events: Int16(POLLIN), revents: 0),
        ]
        while true {
          let result = poll(&entries, nfds_t(entries.count), -1)
          if result < 0 && errno == EINTR { continue }
          if result < 0 || entries[1].revents != 0 { return false }
          return entries[0].revents & Int16(POLLERR | POLLHUP) != 0
        }
      }
    } catch {
      // No pipe for the cancellation could be made: no answer, as documented.
      return false
    }
  }
}

/// Runs `body` on a dedicated thread (never on Swift's cooperative pool) and waits for its result without holding a
/// pool thread. For every call that can wait on another party or on the disk: `flock`, `fdatasync`, a read of a
/// pipe or a terminal, `waitpid`, `poll`, a spawn that waits for its child to exec.
///
/// The threads are kept in `BlockingThreads.shared`: an idle one is reused, and a new one is started when all are
/// busy, so a blocked call never delays another.
///
/// - Important: `body` is not cancelled when the calling task is; it runs to its end, and its result is returned.
public func offloaded<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
  // `body` (and all it captured) is released before the caller resumes.
  let work = Mutex<(@Sendable () throws(E) -> T)?>(body)
  let result: Result<T, E> = await withCheckedContinuation { continuation in
    BlockingThreads.shared.run {
      let result = { () -> Result<T, E> in
        guard let body = work.withLock({ $0.take() }) else { fatalError("offloaded work ran twice") }
        do throws(E) {
          return .success(try body())
        } catch {
          return .failure(error)
        }
      }()
      continuation.resume(returning: result)
    }
  }
  return try result.get()
}

/// Runs `body` on a dedicated thread, as `offloaded` does, and lets the calling task's cancellation end its wait:
/// `body` is given `cancellation`, the read end of a pipe that becomes readable when the calling task is cancelled (at
/// once when it already is). `body` waits on it beside what it waits for, e.g.
/// `pollReadable([fd, cancellation], timeoutMilliseconds: -1)`, and returns when it is readable. This is the one
/// way a blocking read, `poll` or wait of ours is made cancellable.
///
/// The pipe is made for the call and closed when it returns; no thread of Swift's cooperative pool blocks.
///
/// - Parameter body: the blocking work. It must not close `cancellation`, read from it, or keep it past its return.
/// - Returns: what `body` returns, after a cancellation too: `body` decides what a cancelled wait returns (or the
///   caller does, asking `Task.isCancelled`).
/// - Throws: what `body` throws; `SystemError` from `pipe` when the pipe cannot be made (then `body` is not run).
/// - Important: cancellation does not interrupt `body`; it only makes `cancellation` readable. A body that does not
///   wait on it runs to its end, as under `offloaded`.
public func cancellableBlockingWait<T: Sendable>(
  _ body: @escaping @Sendable (_ cancellation: FileDescriptor) throws(SystemError) -> T
) async throws(SystemError) -> T {
  let (cancellation, canceller) = try FileDescriptor.pipe()
  // The write end is closed once, by whoever is last: the cancellation handler may run at any time, even after the
  // wait ended.
  let cancellerOpen = Mutex(true)
  defer {
    cancellerOpen.withLock { open in
      if open { canceller.close() }
      open = false
    }
    cancellation.close()
  }
  // `withTaskCancellationHandler` does not carry a typed error: the result comes through as a `Result`.
  let result = await withTaskCancellationHandler {
    await offloaded { () -> Result<T, SystemError> in
      do throws(SystemError) { return .success(try body(cancellation)) } catch { return .failure(error) }
    }
  } onCancel: {
    // One byte makes the read end readable until it is closed (the pipe is empty: no other byte is ever written).
    cancellerOpen.withLock { open in if open { _ = try? canceller.writeAll([1]) } }
  }
  return try result.get()
}

/// Runs `body` in a new task that does not inherit the caller's cancellation, and waits for it: cleanup that must
/// finish (a teardown's timed steps, a shutdown's handshake) even when the work it cleans up after was cancelled.
/// The task is awaited, so this is structured in effect: `body` has ended when this returns.
public func withUncancelledTask<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
  await Task { await body() }.value
}

/// The threads behind `offloaded`: up to `idleLimit` idle threads wait for work; more start when all are busy, and
/// a thread idle for `idleTimeout` ends.
public final class BlockingThreads: Sendable {
  public static let shared = BlockingThreads()

  /// One idle thread: the semaphore wakes it, `job` is what it should run (nil: end).
  private final class Worker: Sendable {
    let wake = DispatchSemaphore(value: 0)
    let job = Mutex<(@Sendable () -> Void)?>(nil)
  }

  private let idle = Mutex<[Worker]>([])
  private let idleLimit: Int
  private let idleTimeout: Duration

  public init(idleLimit: Int = 4, idleTimeout: Duration = .seconds(10)) {
    self.idleLimit = idleLimit
    self.idleTimeout = idleTimeout
  }

  /// The number of threads waiting for work now.
  public var idleCount: Int { idle.withLock { $0.count } }

  /// Runs `job` on an idle thread, or on a new one.
  public func run(_ job: @escaping @Sendable () -> Void) {
    if let worker = idle.withLock({ $0.popLast() }) {
      worker.job.withLock { $0 = job }
      worker.wake.signal()
      return
    }
    let worker = Worker()
    worker.job.withLock { $0 = job }
    if !startThread({ [self] in serve(worker) }) {
      // No thread can be made: run the job here rather than lose it.
      worker.job.withLock { $0.take() }?()
    }
  }

  private func serve(_ worker: Worker) {
    var next = worker.job.withLock { $0.take() }
    while true {
      // The job (and all it captured) is released before the thread parks.
      if let job = next {
        next = nil
        job()
      }
      let parked = idle.withLock { idle -> Bool in
        guard idle.count < idleLimit else { return false }
        idle.append(worker)
        return true
      }
      guard parked else { return }
      let waited = worker.wake.wait(timeout: .now() + .nanoseconds(Int(idleTimeout.wholeNanoseconds)))
      if waited == .timedOut {
        // Leave the idle list, unless `run` took this worker in the meantime (then its job is on the way).
        let left = idle.withLock { idle -> Bool in
          guard let index = idle.firstIndex(where: { $0 === worker }) else { return false }
          idle.remove(at: index)
          return true
        }
        if left { return }
        worker.wake.wait()
      }
      next = worker.job.withLock { $0.take() }
      if next == nil { return }
    }
  }
}

extension FileDescriptor {
  /// Writes all of `bytes`, off the cooperative pool: a write to a pipe or a terminal waits while its reader is
  /// behind. In an async context Swift picks this overload of `writeAll`.
  public func writeAll(_ bytes: [UInt8]) async throws(SystemError) {
    try await offloaded { () throws(SystemError) in try self.writeAll(bytes, timeoutMilliseconds: -1) }
  }

  /// Writes `text` as UTF-8, off the cooperative pool; a failure (a closed pipe) is ignored, as `print` ignores it.
  public func write(_ text: String) async {
    _ = try? await writeAll(Array(text.utf8))
  }
}

/// Catches `signals` from now on, in every thread: each arrival becomes one byte (the signal's number) on the returned
/// pipe, for a thread of the caller's to read. Nothing is lost between this call and that thread's first read.
/// Call once, as early as possible. The corresponding C function is `sigaction`.
public func catchSignals(_ signals: [Int32]) throws(SystemError) -> FileDescriptor {
  var fd: Int32 = -1
  let code = signals.withUnsafeBufferPointer { ih_signal_pipe($0.baseAddress, Int32($0.count), &fd) }
  if code != 0 { throw SystemError(code: code, operation: "sigaction") }
  return FileDescriptor(rawValue: fd)
}

extension FileDescriptor {
  /// Writes as much of `bytes` as it can until `deadline` passes or `wake` becomes readable, without ever blocking
  /// longer: it waits for room with `poll`, then writes at most `PIPE_BUF` bytes, which a pipe with room takes
  /// whole. For descriptors whose flags are not ours to change (a terminal or pipe shared with the user's shell).
  /// - Parameters:
  ///   - deadline: nil waits for room as long as it takes.
  ///   - wake: when readable (or hung up), the write stops early.
  /// - Returns: how many bytes were written (fewer than `bytes.count` when stopped early).
  /// - Throws: `SystemError` from `write` (`EPIPE` when the reader is gone) or `poll`.
  public func write(
    _ bytes: ArraySlice<UInt8>, until deadline: ContinuousClock.Instant?, wakingOn wake: FileDescriptor? = nil
  ) throws(SystemError) -> Int {
    var written = 0
    while written < bytes.count {
      var timeout: Int32 = -1
      if let deadline {
        let left = deadline - ContinuousClock.now
        if left <= .zero { return written }
        timeout = left.pollTimeout(waitingPastTheEnd: true)
      }
      var entries = [pollfd(fd: rawValue, events: Int16(POLLOUT), revents: 0)]
      if let wake { entries.append(pollfd(fd: wake.rawValue, events: Int16(POLLIN), revents: 0)) }
      let ready = poll(&entries, nfds_t(entries.count), timeout)
      if ready < 0 {
        let error = SystemError.current("poll")
        if error.code == EINTR { continue }
        throw error
      }
      if entries.count > 1 && entries[1].revents != 0 { return written }
      if ready == 0 { continue }  // the deadline is checked above
      let start = bytes.startIndex + written
      let count = min(bytes.count - written, Int(PIPE_BUF))
      let n = bytes[start..<start + count].withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress, $0.count) }
      if n > 0 {
        written += n
      } else if n < 0 {
        let error = SystemError.current("write")
        if error.code != EINTR && error.code != EAGAIN && error.code != EWOULDBLOCK { throw error }
      }
    }
    return written
  }
}
