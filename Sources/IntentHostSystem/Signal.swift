import Synchronization

/// A one-shot event between tasks (not a POSIX signal): fired at most once, and a task can wait for it, or race work
/// against it.
public final class Signal: Sendable {
  private struct State {
    var fired = false
    var waiter: CheckedContinuation<Void, Never>?
    /// The wait was cancelled before it could register.
    var abandoned = false
  }
  private let state = Mutex(State())

  /// An event not fired yet.
  public init() {}

  /// Whether `fire()` was called.
  public var isFired: Bool { state.withLock { $0.fired } }

  /// Fires the event: wakes the waiter, if any, and every later `wait()` returns at once. Firing again does nothing.
  public func fire() {
    state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.fired = true
      defer { state.waiter = nil }
      return state.waiter
    }?.resume()
  }

  /// Returns once the signal has fired, or the calling task is cancelled. One waiter at a time.
  public func wait() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state -> Bool in
          if state.fired || state.abandoned { return true }
          state.waiter = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      state.withLock { state -> CheckedContinuation<Void, Never>? in
        state.abandoned = true
        defer { state.waiter = nil }
        return state.waiter
      }?.resume()
    }
  }

  /// Runs `body` until it ends or the signal fires, whichever is first; nil when the signal was first (`body` is then
  /// cancelled).
  /// - Throws: what `body` throws; `CancellationError` when the calling task is cancelled.
  public func racing<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    let first = try await withThrowingTaskGroup(of: T?.self) { group in
      group.addTask { try await body() }
      group.addTask {
        await self.wait()
        return nil
      }
      defer { group.cancelAll() }
      return try await group.next() ?? nil
    }
    try Task.checkCancellation()
    return first
  }
}
