import ExtensionProtocol
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

/// A message that arrived from the peer and is not a response: a request to answer or a notification.
public struct InboundMessage: Sendable {
  public enum Kind: Sendable, Equatable {
    case request(RequestID)
    case notification
  }

  public var kind: Kind
  public var method: String
  /// The whole JSON line, for decoding the params with the type the method names.
  public var raw: Data

  /// Decodes the params as `P`.
  /// - Throws: `ResponseError` with `invalidParams` naming the method and the decoding problem.
  public func params<P: Codable & Sendable>(_ type: P.Type) throws(ResponseError) -> P {
    do {
      switch kind {
      case .request:
        return try WireCoding.decoder().decode(RequestEnvelope<P>.self, from: raw).params
      case .notification:
        return try WireCoding.decoder().decode(NotificationEnvelope<P>.self, from: raw).params
      }
    } catch {
      throw ResponseError(.invalidParams, "invalid params for \(method): \(describeDecodingError(error))")
    }
  }
}

/// Newline-delimited JSON-RPC 2.0 over two file descriptors.
///
/// The connection owns request/response pairing (an id table), per-request deadlines, cancellation, the maximum
/// message size and the order of its output. Incoming requests and notifications are delivered on `messages` (or to
/// the `start(onMessage:)` callback) in arrival order; responses never appear there. Anything that is not the protocol
/// (a non-JSON line, an answer to an id never sent or already answered, an oversized line) ends the connection:
/// every pending request fails with `.protocolViolation`.
///
/// `start` runs two threads of its own, so no blocking system call ever runs on the caller's thread (in particular
/// not on the Swift concurrency pool):
/// - the reader reads, frames and dispatches the peer's messages, and fails requests whose deadline has passed;
/// - the writer writes the output queue. `send`, `notify` and `reply` only encode their message and append it to that
///   queue, so they never wait for the peer; the wire order is the order of the calls. A peer that stops reading
///   ends the connection: once a write makes no progress for `Options.writeTimeout`, or once more than
///   `Options.maximumQueuedBytes` wait to be written.
///
/// A request the connection gave up on (its deadline passed, or its task was cancelled and the peer was sent
/// `$/cancelRequest`) is remembered as abandoned (the last `Options.abandonedRequestLimit` of them): its answer, which
/// the peer may still send, is dropped and reported to `Options.log` instead of ending the connection.
///
/// - Important: the connection owns both descriptors (which must be distinct) and closes each exactly once: the
///   reader closes `input` when it stops and the writer closes `output` (after `closeOutput()` once the queue is
///   written; after `close()` or a failure at once). A connection closed before `start` closes both in `close()`.
///   Ignore SIGPIPE in the process (`ignoreBrokenPipeSignal()`), so a peer that is gone is an `EPIPE`, not a signal.
public final class Connection: Sendable {
  public struct Options: Sendable {
    /// The largest message accepted, in bytes.
    public var maximumMessageSize: Int
    /// How long the writer waits for the peer to take any of its output before giving up on it.
    public var writeTimeout: Duration
    /// The most bytes that may wait in the output queue (including a message being written). A message that would
    /// take the queue past it ends the connection: the peer is not reading. It must be at least the largest message
    /// sent.
    public var maximumQueuedBytes: Int
    /// How many of the requests given up on (timed out or cancelled) are remembered, so that their late answers are
    /// dropped rather than taken for answers to unknown ids. The oldest is forgotten first.
    public var abandonedRequestLimit: Int
    /// The peer's name in error messages and logs.
    public var peerName: String
    /// Where the connection reports what it tolerated (such as a dropped late answer), one line at a time. It is
    /// called on the connection's threads and must not block.
    public var log: (@Sendable (String) -> Void)?

    /// - Parameters:
    ///   - maximumMessageSize: the largest message accepted, in bytes (default 4 MiB).
    ///   - writeTimeout: how long the peer may leave our output unread while we have something to write (default 5 s).
    ///   - maximumQueuedBytes: the bound on bytes waiting to be written; nil means 4 × `maximumMessageSize`.
    ///   - abandonedRequestLimit: how many abandoned request ids to remember (default 1024, at least 1).
    ///   - peerName: the peer's name in messages.
    ///   - log: where tolerated oddities are reported.
    public init(
      maximumMessageSize: Int = 4 << 20, writeTimeout: Duration = .seconds(5), maximumQueuedBytes: Int? = nil,
      abandonedRequestLimit: Int = 1024, peerName: String = "peer", log: (@Sendable (String) -> Void)? = nil
    ) {
      self.maximumMessageSize = maximumMessageSize
      self.writeTimeout = writeTimeout
      self.maximumQueuedBytes = maximumQueuedBytes ?? 4 * maximumMessageSize
      self.abandonedRequestLimit = abandonedRequestLimit
      self.peerName = peerName
      self.log = log
    }
  }

  private struct Pending: Sendable {
    var method: String
    var continuation: CheckedContinuation<Data, any Error>
    /// When the request times out, checked by the reader thread (no timer thread is woken per request).
    var deadline: ContinuousClock.Instant?
    var timeout: Duration?
  }

  /// Where the output stands.
  private enum Output: Sendable, Equatable {
    /// Messages are accepted and written.
    case open
    /// `closeOutput()` was called: the writer writes what is queued, then closes the descriptor.
    case draining
    /// Nothing more is written: the writer drops what is queued and closes the descriptor.
    case stopped
  }

  private struct State: Sendable {
    var nextID = 1
    var pending: [RequestID: Pending] = [:]
    var abandoned: AbandonedRequests
    /// Why the connection ended; nil while it is open.
    var failure: ConnectionError?
    /// Whether `close()` was called.
    var closed = false
    /// Whether `start` ran (or `close()` came first and took the descriptors).
    var started = false
    var output = Output.open
    /// Why the output stopped before everything queued was written; nil when it was drained and closed.
    var outputFailure: ConnectionError?
    /// Messages accepted and not yet taken by the writer, in call order.
    var queue: [[UInt8]] = []
    /// Bytes accepted and not yet written, including the batch the writer is writing.
    var queuedBytes = 0
    var writerEnded = false
    var readerEnded = false
    var outputWaiters: [CheckedContinuation<ConnectionError?, Never>] = []
    var finishWaiters: [CheckedContinuation<Void, Never>] = []

    /// What a message offered to the output now meets: nil when it can be queued.
    var outputRefusal: ConnectionError? {
      output == .open ? nil : outputFailure ?? .closed
    }
  }

  /// What became of a message offered to the output queue.
  private enum Admission {
    case queued
    /// The output is closed or stopped; nothing changed.
    case refused(ConnectionError)
    /// The message would pass `maximumQueuedBytes`: the connection ended, and these requests must be failed.
    case overflowed(ConnectionError, [Pending])
  }

  /// What the writer thread's attempt to write a batch came to.
  private enum WriteOutcome {
    case written
    /// `close()` or a failure stopped the output while the writer waited for the peer.
    case stopped
    case failed(ConnectionError)
  }

  public let options: Options
  private let input: FileDescriptor
  private let output: FileDescriptor
  /// Everything the caller, the reader thread and the writer thread share; the writer sleeps on its condition.
  private let state: ConditionLock<State>
  private let inboundContinuation: AsyncStream<InboundMessage>.Continuation
  /// Incoming requests and notifications, in arrival order. Finishes when the connection ends.
  public let messages: AsyncStream<InboundMessage>

  /// - Parameters:
  ///   - input: where the peer's messages come from (made blocking; the reader waits for it with a timeout).
  ///   - output: where ours go (made non-blocking; only the writer thread writes it).
  ///   - options: limits, timeouts, the peer's name and the log.
  public init(input: FileDescriptor, output: FileDescriptor, options: Options = Options()) {
    self.input = input
    self.output = output
    self.options = options
    self.state = ConditionLock(State(abandoned: AbandonedRequests(limit: options.abandonedRequestLimit)))
    (messages, inboundContinuation) = AsyncStream.makeStream(of: InboundMessage.self)
  }

  /// Starts the reader and the writer, each on a thread of its own. Only the first call does anything, and none after
  /// `close()`. Messages queued before it are written once it runs.
  ///
  /// - Parameter onMessage: when given, incoming requests and notifications are handed to it on the reader thread
  ///   (in arrival order, one at a time; it must not block) instead of `messages`, and it receives nil once when the
  ///   reader stops. This saves a thread hop per message, which is most of a round trip's cost. It may call `reply`
  ///   and `notify`, which do not block.
  public func start(onMessage: (@Sendable (InboundMessage?) -> Void)? = nil) {
    let first = state.withLock { state in
      defer { state.started = true }
      return !state.started
    }
    guard first else { return }
    do throws(SystemError) {
      try input.setNonBlocking(false)
      try output.setNonBlocking(true)
    } catch {
      fail(.io(error))  // the threads still start, to close the descriptors and report the end
    }
    detachThread { [self] in
      readLoop(onMessage)
      input.close()
      onMessage?(nil)
      threadEnded(reader: true)
    }
    detachThread { [self] in
      writeLoop()
      output.close()
      threadEnded(reader: false)
    }
  }

  /// Why the connection ended, or nil while it is open.
  public var failure: ConnectionError? { state.withLock { $0.failure } }

  /// Sends a request and waits for its result, without blocking: the request is queued for the writer thread.
  ///
  /// When the deadline passes or the calling task is cancelled, the request is abandoned (the peer is sent
  /// `$/cancelRequest` on cancellation) and its answer, should it still come, is dropped.
  ///
  /// - Parameters:
  ///   - request: the request; its `method` goes on the wire.
  ///   - timeout: the deadline for the answer, counted from this call; nil waits as long as the connection lives.
  /// - Returns: the decoded result.
  /// - Throws: `ConnectionError`: `.timedOut`, `.cancelled`, `.remote` when the peer answered with an error, or why
  ///   the connection ended (at once when it already had).
  public func send<R: RequestMessage>(_ request: R, timeout: Duration? = nil) async throws -> R.Response {
    if Task.isCancelled { throw ConnectionError.cancelled }
    let id = state.withLock { state -> RequestID in
      defer { state.nextID += 1 }
      return .number(state.nextID)
    }
    let line: [UInt8]
    do {
      line = try encodeLine(RequestEnvelope(id: id, method: R.method, params: request))
    } catch {
      throw ConnectionError.protocolViolation("cannot encode \(R.method): \(error)")
    }
    let data = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
        let pending = Pending(
          method: R.method, continuation: continuation, deadline: timeout.map { ContinuousClock.now + $0 },
          timeout: timeout)
        do throws(ConnectionError) {
          try enqueue(line, registering: (id, pending))
        } catch {
          continuation.resume(throwing: error)
          return
        }
        // A cancellation that came before the request was registered found nothing to cancel.
        if Task.isCancelled { cancel(id) }
      }
    } onCancel: {
      cancel(id)
    }
    do {
      return try WireCoding.decoder().decode(ResultEnvelope<R.Response>.self, from: data).result
    } catch {
      throw ConnectionError.protocolViolation(
        "its answer to \(R.method) is not a valid result: \(describeDecodingError(error))")
    }
  }

  /// Queues a notification for the writer thread and returns at once.
  /// - Throws: `ConnectionError` when the output is closed or the connection ended (`.closed` after `close()` or
  ///   `closeOutput()`), or when the queue would pass `Options.maximumQueuedBytes` (which ends the connection);
  ///   an encoding error when the notification cannot be encoded.
  public func notify<N: NotificationMessage>(_ notification: N) throws {
    try enqueue(try encodeLine(NotificationEnvelope(method: N.method, params: notification)))
  }

  /// Queues the answer to request `id` with a result and returns at once.
  /// - Throws: as `notify`.
  public func reply<Result: Codable & Sendable>(to id: RequestID, with result: Result) throws {
    try enqueue(try encodeLine(ResultEnvelope(id: id, result: result)))
  }

  /// Queues the answer to request `id` (or to an unreadable request, with nil) with an error and returns at once.
  /// - Throws: as `notify`.
  public func reply(to id: RequestID?, error: ResponseError) throws {
    try enqueue(try encodeLine(ErrorEnvelope(id: id, error: error)))
  }

  /// Ends everything at once without blocking: drops the output queue, fails pending requests with `.closed`,
  /// finishes `messages`, and makes both threads stop (the writer at once, the reader within 50 ms) and close their
  /// descriptors. Later calls do nothing. `waitUntilFinished()` says when it is done.
  public func close() {
    let (pending, descriptorsAreOurs) = state.withLockAndSignal { state -> ([Pending], Bool) in
      state.closed = true
      let pending = Self.end(&state, with: .closed, stoppingOutput: true)
      guard !state.started else { return (pending, false) }
      state.started = true
      return (pending, true)
    }
    finish(pending, with: .closed)
    if descriptorsAreOurs {
      // Never started: no thread owns the descriptors.
      input.close()
      output.close()
      threadEnded(reader: false)
      threadEnded(reader: true)
    }
  }

  /// Closes our output once everything queued before this call is written, so the peer reads it all and then end of
  /// file; meanwhile the connection keeps reading the peer's answers. Returns at once; later messages are refused
  /// with `.closed`. `waitUntilOutputClosed()` says when the descriptor is closed.
  public func closeOutput() {
    state.withLockAndSignal { state in
      if state.output == .open { state.output = .draining }
    }
  }

  /// Waits, without blocking a thread, until the writer has stopped and closed the output: after `closeOutput()`
  /// once the queue is written, after `close()` or a failure at once.
  /// - Returns: nil when everything queued was written; otherwise why the rest was dropped.
  @discardableResult
  public func waitUntilOutputClosed() async -> ConnectionError? {
    await withCheckedContinuation { (continuation: CheckedContinuation<ConnectionError?, Never>) in
      let ended: ConnectionError?? = state.withLock { state in
        if state.writerEnded { return .some(state.outputFailure) }
        state.outputWaiters.append(continuation)
        return .none
      }
      if let ended { continuation.resume(returning: ended) }
    }
  }

  /// Waits, without blocking a thread, until both threads have ended and both descriptors are closed (after
  /// `close()`, or after the output is closed and the peer's input ended).
  public func waitUntilFinished() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ended = state.withLock { state in
        if state.writerEnded && state.readerEnded { return true }
        state.finishWaiters.append(continuation)
        return false
      }
      if ended { continuation.resume() }
    }
  }

  // MARK: - Internals

  private func encodeLine<T: Encodable>(_ value: T) throws -> [UInt8] {
    var bytes = [UInt8](try WireCoding.encoder().encode(value))
    bytes.append(0x0A)
    return bytes
  }

  /// Queues `line` for the writer, registering a request with it in the same step, so that the wire order is the
  /// order of the calls and an answer always finds its request.
  private func enqueue(_ line: [UInt8], registering request: (RequestID, Pending)? = nil) throws(ConnectionError) {
    let admission = state.withLockAndSignal { state -> Admission in
      if request != nil, let failure = state.failure { return .refused(failure) }
      let admission = admit(line, to: &state)
      if case .queued = admission, let (id, pending) = request { state.pending[id] = pending }
      return admission
    }
    switch admission {
    case .queued:
      return
    case .refused(let error):
      throw error
    case .overflowed(let error, let pending):
      finish(pending, with: error)
      throw error
    }
  }

  /// Appends `line` to the queue unless the output is closed or the queue bound would be passed (which ends the
  /// connection). Call with the lock held, then act on the result.
  private func admit(_ line: [UInt8], to state: inout State) -> Admission {
    if let refusal = state.outputRefusal { return .refused(refusal) }
    let total = state.queuedBytes + line.count
    guard total <= options.maximumQueuedBytes else {
      let error = ConnectionError.protocolViolation(
        "it stopped reading its input (\(total) bytes would wait to be written, more than the "
          + "\(options.maximumQueuedBytes)-byte limit)")
      return .overflowed(error, Self.end(&state, with: error, stoppingOutput: true))
    }
    state.queue.append(line)
    state.queuedBytes = total
    return .queued
  }

  /// Gives up on request `id` because its task was cancelled: it fails with `.cancelled`, its id is remembered as
  /// abandoned, and the peer is sent `$/cancelRequest`. Does nothing when the request is no longer pending.
  private func cancel(_ id: RequestID) {
    // Encoding a request id cannot fail.
    let notice = try! encodeLine(
      NotificationEnvelope(method: CancelRequestNotification.method, params: CancelRequestNotification(id: id)))
    let (cancelled, admission) = state.withLockAndSignal { state -> (Pending?, Admission?) in
      guard let pending = state.pending.removeValue(forKey: id) else { return (nil, nil) }
      state.abandoned.insert(id, method: pending.method, reason: .cancelled)
      return (pending, admit(notice, to: &state))
    }
    cancelled?.continuation.resume(throwing: ConnectionError.cancelled)
    if case .overflowed(let error, let pending) = admission { finish(pending, with: error) }
  }

  /// Ends the connection with `error`, with the lock held: records the first failure, stops the output (dropping the
  /// queue) unless `stoppingOutput` is false, and takes the pending requests, which the caller must pass to `finish`.
  private static func end(_ state: inout State, with error: ConnectionError, stoppingOutput: Bool) -> [Pending] {
    if state.failure == nil { state.failure = error }
    if stoppingOutput && state.output != .stopped {
      state.output = .stopped
      state.outputFailure = error
      state.queue.removeAll()
      state.queuedBytes = 0
    }
    defer { state.pending.removeAll() }
    return Array(state.pending.values)
  }

  /// Fails `pending` with `error` and finishes `messages`, after `end` and outside the lock.
  private func finish(_ pending: [Pending], with error: ConnectionError) {
    for entry in pending {
      entry.continuation.resume(throwing: error)
    }
    inboundContinuation.finish()
  }

  /// Ends the connection with `error`: every pending request fails with it, and `messages` finishes. The output
  /// stops too, unless `stoppingOutput` is false (the peer closed its output but may still read ours).
  private func fail(_ error: ConnectionError, stoppingOutput: Bool = true) {
    let pending = state.withLockAndSignal { Self.end(&$0, with: error, stoppingOutput: stoppingOutput) }
    finish(pending, with: error)
  }

  /// Records that the reader or writer thread has ended and wakes whoever waits for it.
  private func threadEnded(reader: Bool) {
    let (outputWaiters, outputFailure, finishWaiters) = state.withLock {
      state -> ([CheckedContinuation<ConnectionError?, Never>], ConnectionError?, [CheckedContinuation<Void, Never>])
      in
      if reader { state.readerEnded = true } else { state.writerEnded = true }
      var outputWaiters: [CheckedContinuation<ConnectionError?, Never>] = []
      if state.writerEnded { swap(&outputWaiters, &state.outputWaiters) }
      var finishWaiters: [CheckedContinuation<Void, Never>] = []
      if state.writerEnded && state.readerEnded { swap(&finishWaiters, &state.finishWaiters) }
      return (outputWaiters, state.outputFailure, finishWaiters)
    }
    for waiter in outputWaiters { waiter.resume(returning: outputFailure) }
    for waiter in finishWaiters { waiter.resume() }
  }

  /// Fails the requests whose deadline has passed, remembering them as abandoned; returns how long until the next
  /// deadline.
  private func expireOverdue() -> Duration? {
    let now = ContinuousClock.now
    let (overdue, next) = state.withLock { state -> ([Pending], ContinuousClock.Instant?) in
      var overdue: [Pending] = []
      var next: ContinuousClock.Instant? = nil
      for (id, pending) in state.pending {
        guard let deadline = pending.deadline else { continue }
        if deadline <= now {
          overdue.append(pending)
          state.pending[id] = nil
          state.abandoned.insert(id, method: pending.method, reason: .timedOut)
        } else if next == nil || deadline < next! {
          next = deadline
        }
      }
      return (overdue, next)
    }
    for pending in overdue {
      pending.continuation.resume(
        throwing: ConnectionError.timedOut(method: pending.method, seconds: pending.timeout?.timeInterval ?? 0))
    }
    return next.map { $0 - now }
  }

  // MARK: - The writer thread

  /// The writer thread: writes the queue in order until the output stops, is drained after `closeOutput()`, or a
  /// write fails (which ends the connection). It sleeps on the state's condition while there is nothing to write.
  private func writeLoop() {
    while true {
      let batch = state.wait(until: { $0.output != .open || !$0.queue.isEmpty }) { state -> [[UInt8]]? in
        guard state.output != .stopped, !state.queue.isEmpty else { return nil }
        defer { state.queue = [] }
        return state.queue
      }
      guard let batch else { break }  // stopped, or drained after `closeOutput()`
      let bytes = batch.count == 1 ? batch[0] : Array(batch.joined())
      switch write(bytes) {
      case .written:
        state.withLock { state in
          if state.output != .stopped { state.queuedBytes -= bytes.count }
        }
      case .stopped:
        return
      case .failed(let error):
        fail(error)
        return
      }
    }
    // Drained after `closeOutput()`, unless something stopped the output meanwhile.
    state.withLock { state in
      if state.output == .draining { state.output = .stopped }
    }
  }

  /// Writes all of `bytes` to `output`, waiting for the peer to make room (in slices of at most 50 ms, to notice
  /// `close()`) for at most `options.writeTimeout` without progress.
  private func write(_ bytes: [UInt8]) -> WriteOutcome {
    let timeout = options.writeTimeout
    return bytes.withUnsafeBytes { buffer -> WriteOutcome in
      var offset = 0
      var lastProgress = ContinuousClock.now
      while offset < buffer.count {
        let count = Glibc.write(output.rawValue, buffer.baseAddress! + offset, buffer.count - offset)
        if count > 0 {
          offset += count
          lastProgress = .now
          continue
        }
        let error = SystemError.current("write")
        switch error.code {
        case EINTR:
          continue
        case EAGAIN, EWOULDBLOCK:
          if state.withLock({ $0.output == .stopped }) { return .stopped }
          let waited = ContinuousClock.now - lastProgress
          if waited >= timeout {
            return .failed(
              .protocolViolation("it stopped reading its input (a write waited \(timeout.milliseconds) ms)"))
          }
          if let failure = waitWritable(milliseconds: max(1, min(50, (timeout - waited).milliseconds + 1))) {
            return .failed(.io(failure))
          }
        case EPIPE:
          return .failed(.closed)
        default:
          return .failed(.io(error))
        }
      }
      return .written
    }
  }

  /// Waits up to `milliseconds` for room in `output`; returns the error when the wait itself failed.
  private func waitWritable(milliseconds: Int) -> SystemError? {
    var entry = pollfd(fd: output.rawValue, events: Int16(POLLOUT), revents: 0)
    while poll(&entry, 1, Int32(clamping: milliseconds)) < 0 {
      let error = SystemError.current("poll")
      if error.code != EINTR { return error }
    }
    return nil
  }

  // MARK: - The reader thread

  /// The reader thread: reads until end of file, a violation, a failure of the connection, or `close()`. It also
  /// enforces the request deadlines: it wakes at least every 50 ms, and sooner when a deadline is nearer.
  private func readLoop(_ onMessage: (@Sendable (InboundMessage?) -> Void)?) {
    var framer = LineFramer(limit: options.maximumMessageSize)
    var linesRead = 0
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !state.withLock({ $0.closed || $0.failure != nil }) {
      do {
        let untilDeadline = expireOverdue()
        var wait = 50
        if let untilDeadline { wait = max(1, min(50, untilDeadline.milliseconds + 1)) }
        guard try input.waitReadable(timeoutMilliseconds: Int32(wait)) else { continue }
        let count = try input.read(into: &buffer)
        if count == 0 {
          fail(.closed, stoppingOutput: false)  // the peer may still read what we write
          return
        }
        for event in framer.feed(buffer[0..<count]) {
          linesRead += 1
          guard handle(event, lineNumber: linesRead, onMessage) else { return }
        }
      } catch {
        if error.code == EAGAIN || error.code == EWOULDBLOCK { continue }
        fail(.io(error))
        return
      }
    }
  }

  /// Returns false when the event ended the connection.
  private func handle(
    _ event: LineFramer.Event, lineNumber: Int, _ onMessage: (@Sendable (InboundMessage?) -> Void)?
  ) -> Bool {
    switch event {
    case .oversized(let limit):
      fail(.protocolViolation("line \(lineNumber) is longer than the \(limit)-byte message limit"))
      return false
    case .message(let bytes):
      let data = Data(bytes)
      guard let header = try? WireCoding.decoder().decode(MessageHeader.self, from: data), let kind = header.kind
      else {
        fail(.protocolViolation("line \(lineNumber) is not a JSON-RPC message: \(preview(bytes))"))
        return false
      }
      switch kind {
      case .response(let id):
        return take(answer: .success(data), to: id, lineNumber: lineNumber)
      case .errorResponse(let id?, let error):
        return take(answer: .failure(ConnectionError.remote(error)), to: id, lineNumber: lineNumber)
      case .errorResponse(nil, let error):
        fail(.remote(error))
        return false
      case .request(let id, let method):
        deliver(InboundMessage(kind: .request(id), method: method, raw: data), onMessage)
      case .notification(let method):
        deliver(InboundMessage(kind: .notification, method: method, raw: data), onMessage)
      }
      return true
    }
  }

  /// Hands an answer to its pending request, or drops it when the request was abandoned. An answer to any other id
  /// (never sent, already answered, or abandoned too long ago) ends the connection. Returns false when it did.
  private func take(answer: Result<Data, any Error>, to id: RequestID, lineNumber: Int) -> Bool {
    enum Match {
      case pending(Pending)
      case abandoned(AbandonedRequests.Entry)
      case unknown
    }
    let match = state.withLock { state -> Match in
      if let pending = state.pending.removeValue(forKey: id) { return .pending(pending) }
      if let entry = state.abandoned.remove(id) { return .abandoned(entry) }
      return .unknown
    }
    switch match {
    case .pending(let pending):
      pending.continuation.resume(with: answer)
    case .abandoned(let entry):
      options.log?("dropped the late answer to request \(id) (\(entry.method)), which \(entry.reason)")
    case .unknown:
      fail(.protocolViolation("line \(lineNumber) answers request id \(id), which is not pending"))
      return false
    }
    return true
  }

  private func deliver(_ message: InboundMessage, _ onMessage: (@Sendable (InboundMessage?) -> Void)?) {
    if let onMessage { onMessage(message) } else { inboundContinuation.yield(message) }
  }
}

extension Duration {
  var timeInterval: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }

  /// Whole milliseconds, rounded down.
  var milliseconds: Int {
    Int(clamping: components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
  }
}

/// The first 80 characters of a line, printable.
func preview(_ bytes: [UInt8]) -> String {
  let text = String(decoding: bytes.prefix(80), as: UTF8.self)
  let cleaned = String(text.map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7F) ? "?" : $0 })
  return "\"" + cleaned + (bytes.count > 80 ? "…" : "") + "\""
}

/// A one-line account of a decoding error: the coding path and the problem.
public func describeDecodingError(_ error: any Error) -> String {
  guard let error = error as? DecodingError else { return "\(error)" }
  func path(_ codingPath: [any CodingKey]) -> String {
    let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    return text.isEmpty ? "the message" : String(text.drop(while: { $0 == "." }))
  }
  switch error {
  case .keyNotFound(let key, let context):
    return "\(path(context.codingPath + [key])) is missing"
  case .typeMismatch(let type, let context):
    return "\(path(context.codingPath)) is not a \(type)"
  case .valueNotFound(let type, let context):
    return "\(path(context.codingPath)) is null, expected \(type)"
  case .dataCorrupted(let context):
    return "\(path(context.codingPath)): \(context.debugDescription)"
  @unknown default:
    return "\(error)"
  }
}
