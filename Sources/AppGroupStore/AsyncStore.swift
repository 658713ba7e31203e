import IntentHostSystem

#if canImport(Glibc)
  import Glibc
#endif

// The store's calls wait on other processes (`flock`) and on the disk (`fdatasync`): the synchronous ones block
// their thread. From async code (an extension's handler, the host), use these overloads: the same operation runs
// on a dedicated thread (`offloaded`), never on Swift's cooperative pool. In an async context Swift picks them, so
// `try await document.update { ... }` is all it takes.

extension Document {
  /// `read()`, off the cooperative pool.
  public func read() async throws(StoreError) -> Content {
    try await offloaded { () throws(StoreError) in try self.read() }
  }

  /// `snapshot()`, off the cooperative pool.
  public func snapshot() async throws(StoreError) -> Snapshot {
    try await offloaded { () throws(StoreError) in try self.snapshot() }
  }

  /// `update(_:)`, off the cooperative pool: `body` runs on a dedicated thread, holding the document's lock.
  /// - Important: `body` must not read or update the same document again: it would wait for the lock it holds.
  public func update<Result: Sendable>(_ body: @escaping @Sendable (inout Content) throws -> Result) async throws
    -> Result
  {
    try await offloaded { () throws -> Result in try self.update(body) }
  }

  /// The changes other processes (or this one) commit from now on, as an asynchronous sequence.
  ///
  /// A thread of its own sleeps on inotify (or checks every `interval` with `polling`) and yields each new state;
  /// several quick updates may arrive as one. The sequence ends with an error when the document becomes unreadable,
  /// and the thread ends when the iterating task is cancelled or the sequence is dropped. Reading the baseline takes
  /// the document's shared lock, off the cooperative pool.
  /// - Throws: `StoreError` when the document cannot be read now (the baseline).
  public func changes(polling: Bool = false, interval: Duration = .milliseconds(200)) async throws(StoreError)
    -> AsyncThrowingStream<Snapshot, any Error>
  {
    let watch = try await offloaded { () throws(StoreError) in
      try UncheckedSendable(DocumentWatch(self, polling: polling, interval: interval))
    }.value
    let (stream, continuation) = AsyncThrowingStream.makeStream(
      of: Snapshot.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(64))
    let stop = watch.stopper
    continuation.onTermination = { _ in stop.stop() }
    // The watch moves to the feeding thread, which is its only user from here on.
    let owned = UncheckedSendable(watch)
    let started = startThread {
      do throws(StoreError) {
        while !owned.value.isStopped {
          guard let snapshot = try owned.value.next() else { break }
          if case .terminated = continuation.yield(snapshot) { break }
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    if !started {
      continuation.finish(throwing: StoreError.io(SystemError(code: EAGAIN, operation: "pthread_create")))
    }
    return stream
  }
}

/// A value handed from one thread to another that then is its only user (a `DocumentWatch`, which is not for
/// sharing): the hand-over is the guard.
struct UncheckedSendable<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

extension SharedDefaults {
  /// `value(forKey:)`, off the cooperative pool.
  public func value(forKey key: String) async throws(StoreError) -> JSONValue? {
    try await offloaded { () throws(StoreError) in try self.value(forKey: key) }
  }

  /// `set(_:forKey:)`, off the cooperative pool.
  public func set(_ value: JSONValue?, forKey key: String) async throws {
    try await offloaded { () throws in try self.set(value, forKey: key) }
  }

  /// `dictionaryRepresentation()`, off the cooperative pool.
  public func dictionaryRepresentation() async throws(StoreError) -> [String: JSONValue] {
    try await offloaded { () throws(StoreError) in try self.dictionaryRepresentation() }
  }
}

extension Document {
  /// `recover()`, off the cooperative pool.
  public func recover() async throws(StoreError) -> RecoveryReport {
    try await offloaded { () throws(StoreError) in try self.recover() }
  }
}

extension SharedDefaults {
  /// `integer(forKey:)`, off the cooperative pool.
  public func integer(forKey key: String) async throws(StoreError) -> Int? {
    try await offloaded { () throws(StoreError) in try self.integer(forKey: key) }
  }

  /// `string(forKey:)`, off the cooperative pool.
  public func string(forKey key: String) async throws(StoreError) -> String? {
    try await offloaded { () throws(StoreError) in try self.string(forKey: key) }
  }

  /// `bool(forKey:)`, off the cooperative pool.
  public func bool(forKey key: String) async throws(StoreError) -> Bool? {
    try await offloaded { () throws(StoreError) in try self.bool(forKey: key) }
  }
}
