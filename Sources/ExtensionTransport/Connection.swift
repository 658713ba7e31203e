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
/// The connection owns request/response pairing (an id table), per-request deadlines, cancellation and the maximum
/// message size. Incoming requests and notifications are delivered on `messages` in arrival order; responses never
/// appear there. Anything that is not the protocol (a non-JSON line, a response to an id never sent, an oversized
/// line) ends the connection: every pending request fails with `.protocolViolation`.
///
/// - Important: the connection owns both descriptors and closes them in `close()`.
public final class Connection: Sendable {
  public struct Options: Sendable {
    /// The largest message accepted, in bytes.
    public var maximumMessageSize: Int = 4 << 20
    /// How long one write may wait for the peer to drain the pipe.
    public var writeTimeout: Duration = .seconds(5)
    /// The peer's name in error messages and logs.
    public var peerName: String = "peer"

    public init(maximumMessageSize: Int = 4 << 20, writeTimeout: Duration = .seconds(5), peerName: String = "peer") {
      self.maximumMessageSize = maximumMessageSize
      self.writeTimeout = writeTimeout
      self.peerName = peerName
    }
  }

  private struct Pending {
    var method: String
    var continuation: CheckedContinuation<Data, any Error>
    /// When the request times out, checked by the reader thread (no timer thread is woken per request).
    var deadline: ContinuousClock.Instant?
    var timeout: Duration?
  }

  private struct State {
    var nextID = 1
    var pending: [RequestID: Pending] = [:]
    var cancelledEarly: Set<RequestID> = []
    var failure: ConnectionError?
    var framer: LineFramer
    var linesRead = 0
    var closed = false
  }

  public let options: Options
  private let input: FileDescriptor
  private let output: FileDescriptor
  private let state: Mutex<State>
  /// Guards writes to `output` and whether it is still open (so it is closed exactly once).
  private let writeLock = Mutex(true)
  private let inboundContinuation: AsyncStream<InboundMessage>.Continuation
  /// Incoming requests and notifications, in arrival order. Finishes when the connection ends.
  public let messages: AsyncStream<InboundMessage>

  /// - Parameters:
  ///   - input: where the peer's messages come from (made non-blocking).
  ///   - output: where ours go (made non-blocking; writes wait up to `options.writeTimeout`).
  public init(input: FileDescriptor, output: FileDescriptor, options: Options = Options()) {
    self.input = input
    self.output = output
    self.options = options
    self.state = Mutex(State(framer: LineFramer(limit: options.maximumMessageSize)))
    (messages, inboundContinuation) = AsyncStream.makeStream(of: InboundMessage.self)
  }

  /// Starts reading, on a thread of its own. Call once.
  ///
  /// - Parameter onMessage: when given, incoming requests and notifications are handed to it on the reader thread
  ///   (in arrival order, one at a time; it must not block) instead of `messages`, and it receives nil once when the
  ///   connection ends. This saves a thread hop per message, which is most of a round trip's cost.
  public func start(onMessage: (@Sendable (InboundMessage?) -> Void)? = nil) {
    try? input.setNonBlocking(false)
    try? output.setNonBlocking(true)
    detachThread { [self] in
      readLoop(onMessage)
      onMessage?(nil)
    }
  }

  /// Why the connection ended, or nil while it is open.
  public var failure: ConnectionError? { state.withLock { $0.failure } }

  /// Sends a request and waits for its result.
  /// - Parameter timeout: the deadline for the answer; nil waits as long as the connection lives.
  /// - Throws: `ConnectionError`.
  public func send<R: RequestMessage>(_ request: R, timeout: Duration? = nil) async throws -> R.Response {
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
        let refusal: (any Error)? = state.withLock { state in
          if let failure = state.failure { return failure }
          if state.cancelledEarly.remove(id) != nil { return ConnectionError.cancelled }
          state.pending[id] = Pending(
            method: R.method, continuation: continuation, deadline: timeout.map { ContinuousClock.now + $0 },
            timeout: timeout)
          return nil
        }
        if let refusal {
          continuation.resume(throwing: refusal)
          return
        }
        do {
          try write(line)
        } catch {
          resolve(id, with: .failure(error))
        }
      }
    } onCancel: {
      let wasPending = state.withLock { state -> Bool in
        if state.pending[id] != nil { return true }
        state.cancelledEarly.insert(id)
        return false
      }
      if wasPending {
        resolve(id, with: .failure(ConnectionError.cancelled))
        try? notify(CancelRequestNotification(id: id))
      }
    }
    do {
      return try WireCoding.decoder().decode(ResultEnvelope<R.Response>.self, from: data).result
    } catch {
      throw ConnectionError.protocolViolation(
        "its answer to \(R.method) is not a valid result: \(describeDecodingError(error))")
    }
  }

  /// Sends a notification.
  public func notify<N: NotificationMessage>(_ notification: N) throws {
    try write(try encodeLine(NotificationEnvelope(method: N.method, params: notification)))
  }

  /// Answers request `id` with a result.
  public func reply<Result: Codable & Sendable>(to id: RequestID, with result: Result) throws {
    try write(try encodeLine(ResultEnvelope(id: id, result: result)))
  }

  /// Answers request `id` (or an unreadable request, with nil) with an error.
  public func reply(to id: RequestID?, error: ResponseError) throws {
    try write(try encodeLine(ErrorEnvelope(id: id, error: error)))
  }

  /// Stops reading, fails pending requests with `.closed`, and closes both descriptors.
  public func close() {
    fail(.closed)
    state.withLock { $0.closed = true }  // the reader sees it within 50 ms, stops and closes `input`
    closeOutput()
  }

  /// Closes only our output, so the peer reads end of file, and keeps reading its answers.
  public func closeOutput() {
    writeLock.withLock { open in
      if open { output.close() }
      open = false
    }
  }

  // MARK: - Internals

  private func encodeLine<T: Encodable>(_ value: T) throws -> [UInt8] {
    var bytes = [UInt8](try WireCoding.encoder().encode(value))
    bytes.append(0x0A)
    return bytes
  }

  private func write(_ line: [UInt8]) throws {
    if let failure = state.withLock({ $0.failure }), failure != .closed { throw failure }
    let timeout = options.writeTimeout.components
    let milliseconds = Int32(clamping: timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000)
    let failure: SystemError? = writeLock.withLock { open in
      guard open else { return SystemError(code: EPIPE, operation: "write") }
      do throws(SystemError) {
        try output.writeAll(line, timeoutMilliseconds: milliseconds)
        return nil
      } catch {
        return error
      }
    }
    guard let error = failure else { return }
    if error.code == EPIPE || error.code == EBADF { throw ConnectionError.closed }
    if error.code == ETIMEDOUT {
      throw ConnectionError.protocolViolation("it stopped reading its input (a write waited \(milliseconds) ms)")
    }
    throw ConnectionError.io(error)
  }

  private func resolve(_ id: RequestID, with result: Result<Data, any Error>) {
    let pending = state.withLock { $0.pending.removeValue(forKey: id) }
    guard let pending else { return }
    pending.continuation.resume(with: result)
  }

  /// Fails the requests whose deadline has passed; returns how long until the next deadline.
  private func expireOverdue() -> Duration? {
    let now = ContinuousClock.now
    let (overdue, next) = state.withLock { state -> ([(RequestID, Pending)], ContinuousClock.Instant?) in
      var overdue: [(RequestID, Pending)] = []
      var next: ContinuousClock.Instant? = nil
      for (id, pending) in state.pending {
        guard let deadline = pending.deadline else { continue }
        if deadline <= now {
          overdue.append((id, pending))
        } else if next == nil || deadline < next! {
          next = deadline
        }
      }
      for (id, _) in overdue { state.pending[id] = nil }
      return (overdue, next)
    }
    for (_, pending) in overdue {
      pending.continuation.resume(
        throwing: ConnectionError.timedOut(method: pending.method, seconds: pending.timeout?.timeInterval ?? 0))
    }
    return next.map { $0 - now }
  }

  /// Ends the connection with `error`: every pending request fails with it, and `messages` finishes.
  private func fail(_ error: ConnectionError) {
    let pending = state.withLock { state -> [Pending] in
      if state.failure == nil { state.failure = error }
      defer { state.pending.removeAll() }
      return Array(state.pending.values)
    }
    for entry in pending {
      entry.continuation.resume(throwing: error)
    }
    inboundContinuation.finish()
  }

  /// The reader thread: reads until end of file, a violation, or `close()`, then closes `input`. It also enforces
  /// the request deadlines: it wakes at least every 50 ms, and sooner when a deadline is nearer.
  private func readLoop(_ onMessage: (@Sendable (InboundMessage?) -> Void)?) {
    defer { input.close() }
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !state.withLock({ $0.closed }) {
      do {
        let untilDeadline = expireOverdue()
        var wait: Int32 = 50
        if let untilDeadline {
          let milliseconds =
            untilDeadline.components.seconds * 1000
            + untilDeadline.components.attoseconds / 1_000_000_000_000_000 + 1
          wait = Int32(clamping: max(1, min(50, milliseconds)))
        }
        guard try input.waitReadable(timeoutMilliseconds: wait) else { continue }
        let count = try input.read(into: &buffer)
        if count == 0 {
          fail(.closed)
          return
        }
        let events = state.withLock { $0.framer.feed(buffer[0..<count]) }
        for event in events where !handle(event, onMessage) { return }
      } catch {
        if error.code == EAGAIN || error.code == EWOULDBLOCK { continue }
        fail(.io(error))
        return
      }
    }
  }

  /// Returns false when the event ended the connection.
  private func handle(_ event: LineFramer.Event, _ onMessage: (@Sendable (InboundMessage?) -> Void)?) -> Bool {
    let lineNumber = state.withLock { state -> Int in
      state.linesRead += 1
      return state.linesRead
    }
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
        guard state.withLock({ $0.pending[id] != nil }) else {
          fail(.protocolViolation("line \(lineNumber) answers request id \(id), which is not pending"))
          return false
        }
        resolve(id, with: .success(data))
      case .errorResponse(let id?, let error):
        guard state.withLock({ $0.pending[id] != nil }) else {
          fail(.protocolViolation("line \(lineNumber) answers request id \(id), which is not pending"))
          return false
        }
        resolve(id, with: .failure(ConnectionError.remote(error)))
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

  private func deliver(_ message: InboundMessage, _ onMessage: (@Sendable (InboundMessage?) -> Void)?) {
    if let onMessage { onMessage(message) } else { inboundContinuation.yield(message) }
  }
}

extension Duration {
  var timeInterval: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
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
