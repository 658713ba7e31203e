import ExtensionProtocol
import IntentHostSystem

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
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
/// With `Options.unsolicitedBudget`, a peer that sends more requests and notifications of its own than the budget
/// allows per request of ours breaks the protocol too: what it sends cannot pile up in our memory.
///
/// A request the connection gave up on (its deadline passed, or its task was cancelled and the peer was sent
/// `$/cancelRequest`) is remembered as abandoned (the last `Options.abandonedRequestLimit` of them): its answer, which
/// the peer may still send, is dropped and reported to `Options.log` instead of ending the connection.
///
/// - Important: the connection owns both descriptors (which must be distinct) and closes each exactly once: the
///   reader closes `input` when it stops and the writer closes `output` (after `closeOutput()` once the queue is
///   written; after `close()` or a failure at once). A connection closed before `start` closes both in `close()`.
///   A connection dropped without `close()` is closed by its deinit. The callback given to `start(onMessage:)` is held
///   by the reader thread until the reader stops, so a connection it captures lives at least that long.
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
    /// The most the peer may send of its own (requests and notifications, as opposed to answers) per request of
    /// ours; nil for no bound. Passing it ends the connection with `.protocolViolation`.
    public var unsolicitedBudget: UnsolicitedBudget?
    /// The peer's name in error messages and logs.
    public var peerName: String
    /// Where the connection reports what it tolerated (such as a dropped late answer), one line at a time. It is
    /// called on the connection's threads and must not block.
    public var log: (@Sendable (String) -> Void)?
    /// Sees every message line, without its newline: what we send when it is queued (on the sending thread, in wire
    /// order), what the peer sends as the reader takes it (on the reader thread). It must not block (a transcript
    /// appends to memory under a lock).
    public var tap: (@Sendable (TapDirection, [UInt8]) -> Void)?
    /// The id of the first request sent (default 1): a connection that takes over a peer another connection talked
    /// to (a session lent by `assistant serve`) goes on from that one's `nextRequestNumber`.
    public var firstRequestNumber = 1

    /// - Parameters:
    ///   - maximumMessageSize: the largest message accepted, in bytes (default 4 MiB).
    ///   - writeTimeout: how long the peer may leave our output unread while we have something to write (default 5 s).
    ///   - maximumQueuedBytes: the bound on bytes waiting to be written; nil means 4 × `maximumMessageSize`.
    ///   - abandonedRequestLimit: how many abandoned request ids to remember (default 1024, at least 1).
    ///   - unsolicitedBudget: how much the peer may send of its own per request of ours (default: no bound).
    ///   - peerName: the peer's name in messages.
    ///   - log: where tolerated oddities are reported.
    public init(
      maximumMessageSize: Int = 4 << 20, writeTimeout: Duration = .seconds(5), maximumQueuedBytes: Int? = nil,
      abandonedRequestLimit: Int = 1024, unsolicitedBudget: UnsolicitedBudget? = nil, peerName: String = "peer",
      log: (@Sendable (String) -> Void)? = nil
    ) {
      self.maximumMessageSize = maximumMessageSize
      self.writeTimeout = writeTimeout
      self.maximumQueuedBytes = maximumQueuedBytes ?? 4 * maximumMessageSize
      self.abandonedRequestLimit = abandonedRequestLimit
      self.unsolicitedBudget = unsolicitedBudget
      self.peerName = peerName
      self.log = log
    }
  }

  /// Which way a tapped line went.
  public enum TapDirection: Sendable, Equatable {
    /// From us to the peer.
    case sent
    /// From the peer to us.
    case received
  }

  /// How much a peer may send of its own (requests and notifications) between two requests of ours, counted from
  /// each request we send (and from the start); a message that goes past either bound ends the connection.
  public struct UnsolicitedBudget: Sendable, Equatable {
    /// The most messages.
    public var messages: Int
    /// The most bytes, all those messages together.
    public var bytes: Int

    public init(messages: Int, bytes: Int) {
      self.messages = messages
      self.bytes = bytes
    }
  }

  public let options: Options
  /// Incoming requests and notifications, in arrival order, unless `start(onMessage:)` was given a callback.
  /// Finishes when the connection ends.
  public let messages: AsyncStream<InboundMessage>
  private let core: ConnectionCore

  /// - Parameters:
  ///   - input: where the peer's messages come from (made blocking; the reader waits for it with a timeout).
  ///   - output: where ours go (made non-blocking; only the writer thread writes it).
  ///   - options: limits, timeouts, the peer's name and the log.
  public init(input: FileDescriptor, output: FileDescriptor, options: Options = Options()) {
    self.options = options
    let (messages, inbound) = AsyncStream.makeStream(of: InboundMessage.self)
    self.messages = messages
    core = ConnectionCore(input: input, output: output, options: options, inbound: inbound)
  }

  /// A connection dropped without `close()` is closed: its threads end and its descriptors are closed.
  deinit {
    core.close()
  }

  /// Starts the reader and the writer, each on a thread of its own. Only the first call does anything, and none after
  /// `close()`. Messages queued before it are written once it runs.
  ///
  /// - Parameter onMessage: when given, incoming requests and notifications are handed to it on the reader thread
  ///   (in arrival order, one at a time; it must not block) instead of `messages`, and it receives nil once when the
  ///   reader stops. This saves a thread hop per message, which is most of a round trip's cost. It may call `reply`
  ///   and `notify`, which do not block.
  public func start(onMessage: (@Sendable (InboundMessage?) -> Void)? = nil) {
    core.start(onMessage: onMessage)
  }

  /// Why the connection ended, or nil while it is open.
  public var failure: ConnectionError? { core.failure }

  /// The id the next request will get.
  public var nextRequestNumber: Int { core.nextRequestNumber }

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
  ///   the connection ended (at once when it already had, or when the request would pass
  ///   `Options.maximumQueuedBytes`).
  public func send<R: RequestMessage>(_ request: R, timeout: Duration? = nil) async throws -> R.Response {
    try await core.send(request, timeout: timeout)
  }

  /// Stops the clocks of the deadlines of pending requests, and of requests sent meanwhile, until the matching
  /// `releaseDeadlines()`: nothing times out while they are held. Holds nest; each needs its release.
  ///
  /// The host holds them while the user answers a question the peer asked (`host/requestAuthentication`), so that the
  /// user's time does not count against the request the peer is answering. Returns at once; it does not block.
  public func holdDeadlines() {
    core.holdDeadlines()
  }

  /// Ends a `holdDeadlines()`. When the last hold ends, every pending deadline is moved later by the time its clock was
  /// stopped (from the hold, or from the request if it was sent during the hold), so each request keeps the time it
  /// had left.
  public func releaseDeadlines() {
    core.releaseDeadlines()
  }

  /// Queues a notification for the writer thread and returns at once.
  /// - Throws: `ConnectionError` when the output is closed or the connection ended (`.closed` after `close()` or
  ///   `closeOutput()`), or when the queue would pass `Options.maximumQueuedBytes` (which ends the connection);
  ///   an encoding error when the notification cannot be encoded.
  public func notify<N: NotificationMessage>(_ notification: N) throws {
    try core.notify(notification)
  }

  /// Queues the answer to request `id` with a result and returns at once.
  /// - Throws: as `notify`.
  public func reply<Result: Codable & Sendable>(to id: RequestID, with result: Result) throws {
    try core.reply(to: id, with: result)
  }

  /// Queues the answer to request `id` (or to an unreadable request, with nil) with an error and returns at once.
  /// - Throws: as `notify`.
  public func reply(to id: RequestID?, error: ResponseError) throws {
    try core.reply(to: id, error: error)
  }

  /// Ends everything at once without blocking: drops the output queue, fails pending requests with `.closed`,
  /// finishes `messages`, and makes both threads stop at once (the reader within 50 ms where no eventfd could be made) and close their
  /// descriptors. Later calls do nothing. `waitUntilFinished()` says when it is done.
  public func close() {
    core.close()
  }

  /// Closes our output once everything queued before this call is written, so the peer reads it all and then end of
  /// file; meanwhile the connection keeps reading the peer's answers. Returns at once; later messages are refused
  /// with `.closed`. `waitUntilOutputClosed()` says when the descriptor is closed.
  public func closeOutput() {
    core.closeOutput()
  }

  /// Waits, without blocking a thread, until the writer has stopped and closed the output: after `closeOutput()`
  /// once the queue is written, after `close()` or a failure at once.
  /// - Returns: nil when everything queued was written; otherwise why the rest was dropped.
  @discardableResult
  public func waitUntilOutputClosed() async -> ConnectionError? {
    await core.waitUntilOutputClosed()
  }

  /// Waits, without blocking a thread, until both threads have ended and both descriptors are closed: after
  /// `close()`, or once the output is closed and the peer's output has ended.
  public func waitUntilFinished() async {
    await core.waitUntilFinished()
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
