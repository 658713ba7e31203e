#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value guarded by a mutex, with a condition variable a dedicated thread can sleep on until the value changes.
///
/// `Synchronization.Mutex` has no condition variable, and a dedicated thread (a connection's writer) must sleep without
/// polling until there is something to do. The corresponding C types are `pthread_mutex_t` and `pthread_cond_t`.
///
/// - Important: `wait(until:then:)` blocks its thread: call it only from a dedicated thread, never from async code.
public final class ConditionLock<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `value` is read and written only between `pthread_mutex_lock(mutex)` and its unlock, and the
  // two pointers are set once in init and freed in deinit, when no other reference exists.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>
  private var value: Value

  /// A lock guarding `value`.
  public init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    condition.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the value, holding the lock. `body` must not block.
  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }

  /// Like `withLock`, then wakes every thread in `wait(until:then:)` so it checks its condition again.
  public func withLockAndSignal<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer {
      pthread_cond_broadcast(condition)
      pthread_mutex_unlock(mutex)
    }
    return try body(&value)
  }

  /// Sleeps until `ready` holds, then runs `body` with the value, all under the lock.
  ///
  /// Threads that change what `ready` looks at must use `withLockAndSignal`.
  public func wait<Result>(until ready: (Value) -> Bool, then body: (inout Value) -> Result) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while !ready(value) { pthread_cond_wait(condition, mutex) }
    return body(&value)
  }
}
