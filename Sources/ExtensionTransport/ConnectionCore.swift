import ExtensionProtocol
import IntentHostSystem

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// What a `Connection` runs: the state its caller, its reader thread and its writer thread share, and the two threads.
///
/// The threads hold this object, not the `Connection`, so a `Connection` dropped without `close()` is still closed
/// (by its deinit) and its threads end. The contracts are on `Connection`'s methods, which call these.
final class ConnectionCore: Sendable {
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
    /// What the peer sent of its own (requests and notifications) since our last request.
    var unsolicitedMessages = 0
    var unsolicitedBytes = 0
    /// How many `holdDeadlines()` wait for their `releaseDeadlines()`, and since when the clocks are stopped.
    var deadlineHolds = 0
    var heldSince: ContinuousClock.Instant?

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

  let options: Connection.Options
  private let input: FileDescriptor
  private let output: FileDescriptor
  /// Everything the caller, the reader thread and the writer thread share; the writer sleeps on its condition.
  private let state: ConditionLock<State>
  /// Made readable by `close()`, so that the reader, waiting for the peer, stops at once (a lent session's reader
  /// must be gone before the extension is handed back: `assistant serve`). Closed with the core.
  private let wake: FileDescriptor?
  private let inboundContinuation: AsyncStream<InboundMessage>.Continuation

  init(
    input: FileDescriptor, output: FileDescriptor, options: Connection.Options,
    inbound: AsyncStream<InboundMessage>.Continuation
  ) {
    self.input = input
    self.output = output
    self.options = options
    var initial = State(abandoned: AbandonedRequests(limit: options.abandonedRequestLimit))
    initial.nextID = options.firstRequestNumber
    self.state = ConditionLock(initial)
    self.inboundContinuation = inbound
    wake = try? FileDescriptor.wakeEvent()  // without one, the reader notices `close()` within 50 ms
  }

  deinit {
    wake?.close()
  }

  /// See `Connection.nextRequestNumber`.
  var nextRequestNumber: Int { state.withLock { $0.nextID } }

  /// See `Connection.start(onMessage:)`.
  func start(onMessage: (@Sendable (InboundMessage?) -> Void)? = nil) {
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
    let reader: @Sendable () -> Void = { [self] in
      readLoop(onMessage)
      input.close()
      onMessage?(nil)
      threadEnded(reader: true)
    }
    let writer: @Sendable () -> Void = { [self] in
      writeLoop()
      output.close()
      threadEnded(reader: false)
    }
    for body in [reader, writer] where !startThread(body) {
      // No thread: the connection fails, and the loop runs here only to close its descriptor (it returns at once).
      fail(.io(SystemError(code: EAGAIN, operation: "pthread_create")))
      body()
    }
  }

  /// See `Connection.failure`.
  var failure: ConnectionError? { state.withLock { $0.failure } }

  /// See `Connection.send(_:timeout:)`.
  func send<R: RequestMessage>(_ request: R, timeout: Duration? = nil) async throws -> R.Response {
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

  /// See `Connection.notify(_:)`.
  func notify<N: NotificationMessage>(_ notification: N) throws {
    try enqueue(try encodeLine(NotificationEnvelope(method: N.method, params: notification)))
  }

  /// See `Connection.reply(to:with:)`.
  func reply<Result: Codable & Sendable>(to id: RequestID, with result: Result) throws {
    try enqueue(try encodeLine(ResultEnvelope(id: id, result: result)))
  }

  /// See `Connection.reply(to:error:)`.
  func reply(to id: RequestID?, error: ResponseError) throws {
    try enqueue(try encodeLine(ErrorEnvelope(id: id, error: error)))
  }

  /// See `Connection.holdDeadlines()`.
  func holdDeadlines() {
    state.withLock { state in
      if state.deadlineHolds == 0 { state.heldSince = .now }
      state.deadlineHolds += 1
    }
  }

  /// See `Connection.releaseDeadlines()`.
  func releaseDeadlines() {
    state.withLock { state in
      guard state.deadlineHolds > 0 else { return assertionFailure("releaseDeadlines() without holdDeadlines()") }
      state.deadlineHolds -= 1
      guard state.deadlineHolds == 0, let since = state.heldSince else { return }
      state.heldSince = nil
      // Each pending deadline moves by the time its clock was stopped: since the hold, or since the request was sent
      // during it.
      let now = ContinuousClock.now
      for (id, var pending) in state.pending {
        guard let deadline = pending.deadline, let timeout = pending.timeout else { continue }
        pending.deadline = deadline + (now - max(since, deadline - timeout))
        state.pending[id] = pending
      }
    }
  }

  /// See `Connection.close()`.
  func close() {
    defer { signalWake() }
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

  /// See `Connection.closeOutput()`.
  func closeOutput() {
    state.withLockAndSignal { state in
      if state.output == .open { state.output = .draining }
    }
  }

  /// See `Connection.waitUntilOutputClosed()`.
  func waitUntilOutputClosed() async -> ConnectionError? {
    await withCheckedContinuation { (continuation: CheckedContinuation<ConnectionError?, Never>) in
      let ended: ConnectionError?? = state.withLock { state in
        if state.writerEnded { return .some(state.outputFailure) }
        state.outputWaiters.append(continuation)
        return .none
      }
      if let ended { continuation.resume(returning: ended) }
    }
  }

  /// See `Connection.waitUntilFinished()`.
  func waitUntilFinished() async {
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
    options.tap?(.sent, Array(line.dropLast()))
    let admission = state.withLockAndSignal { state -> Admission in
      if request != nil, let failure = state.failure { return .refused(failure) }
      let admission = admit(line, to: &state)
      if case .queued = admission, let (id, pending) = request {
        state.pending[id] = pending
        state.unsolicitedMessages = 0
        state.unsolicitedBytes = 0
      }
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
  /// deadline. Nothing expires while the deadlines are held.
  private func expireOverdue() -> Duration? {
    let now = ContinuousClock.now
    let (overdue, next) = state.withLock { state -> ([Pending], ContinuousClock.Instant?) in
      var overdue: [Pending] = []
      var next: ContinuousClock.Instant? = nil
      if state.deadlineHolds > 0 { return (overdue, next) }  // the clocks are stopped
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
        throwing: ConnectionError.timedOut(method: pending.method, seconds: pending.timeout?.inSeconds ?? 0))
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
              .protocolViolation("it stopped reading its input (a write waited \(timeout.wholeMilliseconds) ms)"))
          }
          if let failure = waitWritable(milliseconds: max(1, min(50, Int((timeout - waited).wholeMilliseconds) + 1))) {
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
        if let untilDeadline { wait = max(1, min(50, Int(untilDeadline.wholeMilliseconds) + 1)) }
        guard try waitReadable(timeoutMilliseconds: Int32(wait)) else { continue }
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

  /// Waits until the input is readable (or hung up), `close()` signalled the wake, or the timeout passed.
  /// - Returns: whether the input is readable.
  private func waitReadable(timeoutMilliseconds: Int32) throws(SystemError) -> Bool {
    guard let wake else { return try input.waitReadable(timeoutMilliseconds: timeoutMilliseconds) }
    var entries = [
      pollfd(fd: input.rawValue, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wake.rawValue, events: Int16(POLLIN), revents: 0),
    ]
    while true {
      let r = poll(&entries, 2, timeoutMilliseconds)
      if r >= 0 { return entries[0].revents != 0 }
      let error = SystemError.current("poll")
      if error.code != EINTR { throw error }
    }
  }

  /// Wakes the reader (`close()`).
  private func signalWake() {
    guard let wake else { return }
    var one: UInt64 = 1
    _ = Glibc.write(wake.rawValue, &one, 8)
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
      options.tap?(.received, Array(bytes))
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
        guard withinBudget(bytes.count) else { return false }
        deliver(InboundMessage(kind: .request(id), method: method, raw: data), onMessage)
      case .notification(let method):
        guard withinBudget(bytes.count) else { return false }
        deliver(InboundMessage(kind: .notification, method: method, raw: data), onMessage)
      }
      return true
    }
  }

  /// Counts a message the peer sent of its own against `Options.unsolicitedBudget`; past the budget the connection
  /// ends with a violation and this returns false.
  private func withinBudget(_ count: Int) -> Bool {
    guard let budget = options.unsolicitedBudget else { return true }
    let (messages, bytes) = state.withLock { state -> (Int, Int) in
      state.unsolicitedMessages += 1
      state.unsolicitedBytes += count
      return (state.unsolicitedMessages, state.unsolicitedBytes)
    }
    guard messages > budget.messages || bytes > budget.bytes else { return true }
    let what = messages > budget.messages ? "more than \(budget.messages) messages" : "more than \(budget.bytes) bytes"
    fail(
      .protocolViolation(
        "it sent \(what) of its own (requests or notifications) since the last request it was sent; the budget is "
          + "\(budget.messages) messages and \(budget.bytes) bytes per request"))
    return false
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
