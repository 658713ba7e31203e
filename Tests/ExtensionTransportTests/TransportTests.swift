import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

@Suite(.tags(.unit))
struct LineFramerTests {
  @Test func oneByteAtATime() {
    var framer = LineFramer(limit: 100)
    var events: [LineFramer.Event] = []
    for byte in Array("{\"a\":1}\r\n\n{\"b\":2}\n".utf8) { events += framer.feed([byte]) }
    #expect(events == [.message(Array("{\"a\":1}".utf8)), .message(Array("{\"b\":2}".utf8))])
    #expect(framer.bufferedCount == 0)
  }

  @Test func oversizedLineIsReportedOnceAndSkipped() {
    var framer = LineFramer(limit: 8)
    let events = framer.feed(Array("0123456789abcdef".utf8)) + framer.feed(Array("more\nok\n".utf8))
    #expect(events == [.oversized(limit: 8), .message(Array("ok".utf8))])
  }

  @Test func garbageIsStillFramedIntoLines() {
    var framer = LineFramer(limit: 64)
    let events = framer.feed([0xFF, 0x00, 0x0A, 0x41])
    #expect(events == [.message([0xFF, 0x00])])
    #expect(framer.bufferedCount == 1)
  }
}

// MARK: - Helpers

/// A numbered notification, with padding to make it as large as a test needs.
struct Numbered: NotificationMessage {
  static let method = "test/numbered"
  var sender: Int
  var index: Int
  var padding: String = ""
}

/// Tells a test server that the moment it waits for has come.
struct Go: NotificationMessage {
  static let method = "test/go"
}

/// Two connections joined by pipes, not started: `client` talks to `server`.
func makePair(
  client clientOptions: Connection.Options = .init(peerName: "server"),
  server serverOptions: Connection.Options = .init(peerName: "client")
) throws -> (client: Connection, server: Connection) {
  ignoreBrokenPipeSignal()
  let a = try FileDescriptor.pipe()
  let b = try FileDescriptor.pipe()
  let client = Connection(input: b.read, output: a.write, options: clientOptions)
  let server = Connection(input: a.read, output: b.write, options: serverOptions)
  return (client, server)
}

/// Two started connections joined by pipes: `client` talks to `server`, whose messages arrive on `server.messages`.
func connectedPair(
  client clientOptions: Connection.Options = .init(peerName: "server"),
  server serverOptions: Connection.Options = .init(peerName: "client")
) throws -> (client: Connection, server: Connection) {
  let (client, server) = try makePair(client: clientOptions, server: serverOptions)
  client.start()
  server.start()
  return (client, server)
}

/// Starts `server` so that `answer` sees each message on the server's reader thread, off the concurrency pool, and
/// can reply there. Everything the server receives is also on the returned stream, which finishes when its reader
/// stops. (The answers below use `try?`: a reply can only fail once the connection has, which the client side of
/// each test sees and checks.)
func serve(
  _ server: Connection, answer: @escaping @Sendable (Connection, InboundMessage) -> Void = { _, _ in }
) -> AsyncStream<InboundMessage> {
  let (received, continuation) = AsyncStream.makeStream(of: InboundMessage.self)
  server.start { message in
    guard let message else {
      continuation.finish()
      return
    }
    continuation.yield(message)
    answer(server, message)
  }
  return received
}

/// A client connection whose peer is the test itself: it writes the client's input and may read its output.
struct RawPeer {
  let client: Connection
  /// The read end of the client's output.
  let clientOutput: FileDescriptor
  /// The write end of the client's input.
  let clientInput: FileDescriptor

  /// - Parameter start: start the client (delivering on `client.messages`); false leaves that to the test.
  init(options: Connection.Options, start: Bool = true) throws {
    ignoreBrokenPipeSignal()
    let toClient = try FileDescriptor.pipe()
    let fromClient = try FileDescriptor.pipe()
    client = Connection(input: toClient.read, output: fromClient.write, options: options)
    clientOutput = fromClient.read
    clientInput = toClient.write
    if start { client.start() }
  }

  /// Writes one line as the peer (small lines into an empty pipe do not block).
  func send(_ line: String) throws {
    try clientInput.writeAll(Array((line + "\n").utf8))
  }

  func close() {
    client.close()
    clientOutput.close()
    clientInput.close()
  }
}

/// The lines a connection logged.
final class LogRecorder: Sendable {
  private let recorded = Mutex<[String]>([])
  private let stream: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation

  init() { (stream, continuation) = AsyncStream.makeStream(of: String.self) }

  var callback: @Sendable (String) -> Void {
    { [self] line in
      recorded.withLock { $0.append(line) }
      continuation.yield(line)
    }
  }

  /// What was logged so far.
  var lines: [String] { recorded.withLock { $0 } }

  /// The first line logged, waiting for it at most `limit`; nil if none came. (The wait races a sleep in a task
  /// group, so a missing line fails the test instead of hanging it.)
  func firstLine(within limit: Duration) async -> String? {
    await withTaskGroup(of: String?.self) { group in
      group.addTask { [stream] in
        for await line in stream { return line }
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: limit)  // cancelled when the line comes first
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }
}

/// A value behind a mutex that `@Sendable` closures can share.
final class Shared<Value: Sendable>: Sendable {
  let value: Mutex<Value>
  init(_ initial: Value) { value = Mutex(initial) }
}

/// The request id of an inbound message, or nil for a notification.
func requestID(_ message: InboundMessage?) -> RequestID? {
  guard case .request(let id) = message?.kind else { return nil }
  return id
}

/// What a request over `client` fails with: the violation's text, or a description of anything else.
func violation(endingConnectionOf client: Connection) async -> String {
  do {
    _ = try await client.send(ShutdownRequest(), timeout: .seconds(5))
    return "the request succeeded"
  } catch ConnectionError.protocolViolation(let what) {
    return what
  } catch {
    return "\(error)"
  }
}

// MARK: - Pairing, deadlines, violations

@Suite(.timeLimit(.minutes(3)), .tags(.process))  // a broken connection must fail a test, not hang the run
struct ConnectionTests {
  @Test func answersArePairedByIDEvenOutOfOrder() async throws {
    let (client, server) = try makePair()
    client.start()
    let held = Shared<[RequestID]>([])
    _ = serve(server) { server, message in
      guard let id = requestID(message) else { return }
      let both = held.value.withLock { held -> [RequestID]? in
        held.append(id)
        return held.count == 2 ? held : nil
      }
      // Answer the second first.
      for id in (both ?? []).reversed() {
        _ = try? server.reply(to: id, with: ResolutionResult.success(.string("answer to \(id)")))
      }
    }
    defer { client.close(); server.close() }
    let intent = Intent(name: "X", identifier: "1")
    async let first = client.send(ResolveParameterRequest(intent: intent, parameter: "a"), timeout: .seconds(5))
    async let second = client.send(ResolveParameterRequest(intent: intent, parameter: "b"), timeout: .seconds(5))
    #expect(try await first.value == .string("answer to 1"))
    #expect(try await second.value == .string("answer to 2"))
  }

  @Test func unansweredRequestTimesOut() async throws {
    let (client, server) = try connectedPair()
    defer { client.close(); server.close() }
    await #expect(throws: ConnectionError.timedOut(method: "shutdown", seconds: 0.05)) {
      try await client.send(ShutdownRequest(), timeout: .milliseconds(50))
    }
    // The connection is still usable after a timeout.
    #expect(client.failure == nil)
  }

  @Test func cancellationSendsCancelRequest() async throws {
    let (client, server) = try connectedPair()
    defer { client.close(); server.close() }
    let task = Task { try await client.send(ShutdownRequest()) }
    var iterator = server.messages.makeAsyncIterator()
    let request = await iterator.next()
    #expect(request?.method == "shutdown")
    task.cancel()
    await #expect(throws: ConnectionError.cancelled) { try await task.value }
    let cancel = await iterator.next()
    #expect(cancel?.method == CancelRequestNotification.method)
    #expect(try cancel?.params(CancelRequestNotification.self).id == .number(1))
  }

  @Test func endOfFileFailsPendingRequests() async throws {
    let (client, server) = try makePair()
    client.start()
    _ = serve(server) { server, _ in server.close() }
    defer { client.close() }
    await #expect(throws: ConnectionError.closed) { try await client.send(ShutdownRequest(), timeout: .seconds(5)) }
  }

  @Test(arguments: [
    ("not json at all\n", "line 1 is not a JSON-RPC message"),
    (#"{"jsonrpc":"2.0","id":77,"result":{}}"# + "\n", "line 1 answers request id 77, which is not pending"),
    (String(repeating: "x", count: 5000) + "\n", "line 1 is longer than the 1024-byte message limit"),
  ])
  func violationsEndTheConnection(garbage: String, expected: String) async throws {
    let toClient = try FileDescriptor.pipe()
    let fromClient = try FileDescriptor.pipe()
    let client = Connection(
      input: toClient.read, output: fromClient.write, options: .init(maximumMessageSize: 1024, peerName: "peer"))
    client.start()
    defer { client.close(); toClient.write.close(); fromClient.read.close() }
    let pending = Task { try await client.send(ShutdownRequest(), timeout: .seconds(5)) }
    try await toClient.write.writeAll(Array(garbage.utf8))
    do {
      _ = try await pending.value
      Issue.record("the request should have failed")
    } catch let error as ConnectionError {
      guard case .protocolViolation(let what) = error else {
        Issue.record("expected a protocol violation, got \(error)")
        return
      }
      #expect(what.contains(expected), "\(what)")
    }
  }

  @Test func remoteErrorsArriveAsData() async throws {
    let (client, server) = try makePair()
    client.start()
    _ = serve(server) { server, message in
      if let id = requestID(message) {
        _ = try? server.reply(to: id, error: ResponseError(.noHandler, "no handler for X"))
      }
    }
    defer { client.close(); server.close() }
    await #expect(throws: ConnectionError.remote(ResponseError(.noHandler, "no handler for X"))) {
      try await client.send(ShutdownRequest(), timeout: .seconds(5))
    }
  }
}

// MARK: - Abandoned requests

/// How a peer answers a request the connection already gave up on.
enum LateAnswer: String, CaseIterable, Sendable {
  case result
  case error

  func send(to id: RequestID, over server: Connection) throws {
    switch self {
    case .result: try server.reply(to: id, with: EmptyObject())
    case .error: try server.reply(to: id, error: ResponseError(.requestCancelled, "cancelled"))
    }
  }
}

@Suite(.timeLimit(.minutes(3)), .tags(.process))  // a broken connection must fail a test, not hang the run
struct AbandonedRequestTests {
  /// Sends a request that the test answers from `inbox`, to show that the connection still works.
  func expectHealthy(
    _ client: Connection, _ server: Connection, inbox: inout AsyncStream<InboundMessage>.Iterator
  ) async throws {
    async let answer = client.send(ShutdownRequest(), timeout: .seconds(5))
    let request = await inbox.next()
    let id = try #require(requestID(request))
    try server.reply(to: id, with: EmptyObject())
    #expect(try await answer == EmptyObject())
    #expect(client.failure == nil)
  }

  @Test(arguments: LateAnswer.allCases)
  func aLateAnswerToACancelledRequestIsDropped(late: LateAnswer) async throws {
    let log = LogRecorder()
    let (client, server) = try connectedPair(client: .init(peerName: "server", log: log.callback))
    defer { client.close(); server.close() }
    var inbox = server.messages.makeAsyncIterator()
    let task = Task { try await client.send(ShutdownRequest()) }
    let request = await inbox.next()
    let id = try #require(requestID(request))
    task.cancel()
    await #expect(throws: ConnectionError.cancelled) { try await task.value }
    let cancel = await inbox.next()
    #expect(try cancel?.params(CancelRequestNotification.self).id == id)
    // As docs/PROTOCOL.md asks, the peer still answers the cancelled request.
    try late.send(to: id, over: server)
    try await expectHealthy(client, server, inbox: &inbox)
    // The late answer came before the answer that `expectHealthy` waited for, so it was handled already.
    #expect(log.lines == ["dropped the late answer to request 1 (shutdown), which was cancelled"])
  }

  @Test(arguments: LateAnswer.allCases)
  func aLateAnswerToATimedOutRequestIsDropped(late: LateAnswer) async throws {
    let log = LogRecorder()
    let (client, server) = try connectedPair(client: .init(peerName: "server", log: log.callback))
    defer { client.close(); server.close() }
    var inbox = server.messages.makeAsyncIterator()
    await #expect(throws: ConnectionError.timedOut(method: "shutdown", seconds: 0.05)) {
      try await client.send(ShutdownRequest(), timeout: .milliseconds(50))
    }
    let request = await inbox.next()
    let id = try #require(requestID(request))
    try late.send(to: id, over: server)
    try await expectHealthy(client, server, inbox: &inbox)
    #expect(log.lines == ["dropped the late answer to request 1 (shutdown), which had timed out"])
  }

  /// The control: only abandoned ids are forgiven. An answer to an id never sent, a second answer to an abandoned
  /// id, and an answer to an id forgotten (past `abandonedRequestLimit`) still end the connection.
  @Test(arguments: [
    ("never sent", [99], "line 1 answers request id 99, which is not pending"),
    ("answered twice", [2, 2], "line 2 answers request id 2, which is not pending"),
    ("forgotten", [1], "line 1 answers request id 1, which is not pending"),
  ])
  func answersToOtherIDsStillEndTheConnection(name: String, answered: [Int], expected: String) async throws {
    let peer = try RawPeer(options: .init(abandonedRequestLimit: 1, peerName: "peer"))
    defer { peer.close() }
    // Requests 1 and 2 time out; with room for one abandoned id, only 2 is still remembered.
    for _ in 0..<2 {
      await #expect(throws: ConnectionError.timedOut(method: "shutdown", seconds: 0.02)) {
        try await peer.client.send(ShutdownRequest(), timeout: .milliseconds(20))
      }
    }
    for id in answered { try peer.send(#"{"jsonrpc":"2.0","id":\#(id),"result":{}}"#) }
    let what = await violation(endingConnectionOf: peer.client)
    #expect(what.contains(expected), "\(name): \(what)")
  }
}

// MARK: - The writer

@Suite(.timeLimit(.minutes(3)), .tags(.process))  // a broken connection must fail a test, not hang the run
struct WriterTests {
  /// A notification of about `bytes` bytes on the wire.
  func payload(_ index: Int, bytes: Int) -> Numbered {
    Numbered(sender: 0, index: index, padding: String(repeating: "x", count: bytes))
  }

  @Test func sendingDoesNotWaitForAPeerThatNeverReads() async throws {
    let peer = try RawPeer(options: .init(writeTimeout: .milliseconds(500), peerName: "peer"))
    defer { peer.close() }
    // 256 KiB, four times what a pipe holds: a caller that wrote would wait for the write timeout, then fail.
    for index in 0..<4 { try peer.client.notify(payload(index, bytes: 64 << 10)) }
    #expect(peer.client.failure == nil, "the calls returned only after the write timeout")
    let what = await violation(endingConnectionOf: peer.client)
    #expect(what == "it stopped reading its input (a write waited 500 ms)")
    #expect(throws: ConnectionError.protocolViolation(what)) { try peer.client.notify(ExitNotification()) }
  }

  @Test func theQueueIsBounded() async throws {
    let limit = 100_000
    let peer = try RawPeer(options: .init(writeTimeout: .seconds(30), maximumQueuedBytes: limit, peerName: "peer"))
    defer { peer.close() }
    let pending = Task { try await peer.client.send(ShutdownRequest()) }
    // The pipe takes 64 KiB and the queue 100 000 bytes; 1 MB cannot all be accepted.
    var refusal: (any Error)? = nil
    for index in 0..<1000 {
      do { try peer.client.notify(payload(index, bytes: 1000)) } catch {
        refusal = error
        break
      }
    }
    guard case .protocolViolation(let what) = refusal as? ConnectionError else {
      Issue.record("expected the queue bound to end the connection, got \(String(describing: refusal))")
      return
    }
    #expect(what.hasPrefix("it stopped reading its input ("), "\(what)")
    #expect(what.hasSuffix("bytes would wait to be written, more than the 100000-byte limit)"), "\(what)")
    await #expect(throws: ConnectionError.protocolViolation(what)) { try await pending.value }
    #expect(peer.client.failure == .protocolViolation(what))
  }

  @Test func aPeerThatClosedItsInputEndsTheConnectionAsClosed() async throws {
    let peer = try RawPeer(options: .init(peerName: "peer"))
    defer { peer.client.close(); peer.clientInput.close() }
    peer.clientOutput.close()
    // A fork elsewhere in this process (a test spawning a child) holds a copy of the read end until its exec: a
    // write in that instant goes through, and its request times out instead. The next write meets the closed pipe.
    var failure: ConnectionError? = nil
    for _ in 0..<5 where failure != .closed {
      do {
        _ = try await peer.client.send(ShutdownRequest(), timeout: .seconds(1))
      } catch let error as ConnectionError {
        failure = error
      }
    }
    #expect(failure == .closed)
    #expect(throws: ConnectionError.closed) { try peer.client.notify(ExitNotification()) }
  }

  @Test func closeStopsAWriterWaitingForThePeer() async throws {
    let peer = try RawPeer(options: .init(writeTimeout: .seconds(30), peerName: "peer"))
    defer { peer.close() }
    try peer.client.notify(payload(0, bytes: 256 << 10))
    let pending = Task { try await peer.client.send(ShutdownRequest()) }
    peer.client.close()
    await #expect(throws: ConnectionError.closed) { try await pending.value }
    #expect(await peer.client.waitUntilOutputClosed() == .closed)
    await peer.client.waitUntilFinished()
  }

  @Test func messageOrderIsTheOrderOfTheCalls() async throws {
    let (client, server) = try connectedPair()
    defer { client.close(); server.close() }
    let senders = 8
    let perSender = 250
    // The shared counter gives the calls an order; each call is made holding it, which only works because a call
    // never blocks.
    let counter = Shared(0)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for sender in 0..<senders {
        group.addTask {
          for _ in 0..<perSender {
            try counter.value.withLock { next in
              try client.notify(Numbered(sender: sender, index: next))
              next += 1
            }
            await Task.yield()
          }
        }
      }
      try await group.waitForAll()
    }
    var received: [Int] = []
    for await message in server.messages {
      received.append(try message.params(Numbered.self).index)
      if received.count == senders * perSender { break }
    }
    #expect(received == Array(0..<senders * perSender))
  }

  @Test func eachSendersOrderSurvivesConcurrentSenders() async throws {
    let (client, server) = try connectedPair()
    defer { client.close(); server.close() }
    let senders = 8
    let perSender = 250
    try await withThrowingTaskGroup(of: Void.self) { group in
      for sender in 0..<senders {
        group.addTask {
          for index in 0..<perSender {
            try client.notify(Numbered(sender: sender, index: index))
            if index % 16 == 0 { await Task.yield() }
          }
        }
      }
      try await group.waitForAll()
    }
    var next = [Int](repeating: 0, count: senders)
    var count = 0
    for await message in server.messages {
      let numbered = try message.params(Numbered.self)
      #expect(numbered.index == next[numbered.sender], "sender \(numbered.sender)")
      next[numbered.sender] = numbered.index + 1
      count += 1
      if count == senders * perSender { break }
    }
    #expect(next == [Int](repeating: perSender, count: senders))
  }

  /// The host's orderly end: `shutdown`, `exit`, `closeOutput()`. What was queued reaches the peer, then end of file.
  @Test func closeOutputWritesWhatWasQueuedFirst() async throws {
    let (client, server) = try makePair()
    client.start()
    let received = serve(server) { server, message in
      if let id = requestID(message) { _ = try? server.reply(to: id, with: EmptyObject()) }
    }
    defer { client.close(); server.close() }
    _ = try await client.send(ShutdownRequest(), timeout: .seconds(5))
    // 200 KiB: the writer is still writing when the output is closed.
    for index in 0..<100 { try client.notify(payload(index, bytes: 2048)) }
    try client.notify(ExitNotification())
    client.closeOutput()
    #expect(throws: ConnectionError.closed) { try client.notify(ExitNotification()) }
    var methods: [String] = []
    var indexes: [Int] = []
    for await message in received {  // finishes at the end of file
      methods.append(message.method)
      if message.method == Numbered.method { indexes.append(try message.params(Numbered.self).index) }
    }
    #expect(methods.first == ShutdownRequest.method)
    #expect(methods.last == ExitNotification.method)
    #expect(indexes == Array(0..<100))
    #expect(await client.waitUntilOutputClosed() == nil)
    #expect(server.failure == .closed)
  }
}

// MARK: - Lifetime

@Suite(.timeLimit(.minutes(3)), .tags(.process))  // a broken connection must fail a test, not hang the run
struct LifetimeTests {
  /// The inode of the pipe behind `descriptor`.
  func pipeInode(_ descriptor: FileDescriptor) -> UInt {
    var info = stat()
    fstat(descriptor.rawValue, &info)
    return UInt(info.st_ino)
  }

  /// Which of the pipes with `inodes` this process still has a descriptor for.
  func openPipes(_ inodes: Set<UInt>) throws -> [String] {
    let links = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
      try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
    }
    return links.filter { link in inodes.contains { link == "pipe:[\($0)]" } }
  }

  @Test func closeEndsBothThreadsAndClosesEveryDescriptor() async throws {
    ignoreBrokenPipeSignal()
    let a = try FileDescriptor.pipe()
    let b = try FileDescriptor.pipe()
    let inodes = Set([a.read, b.read].map(pipeInode))
    let client = Connection(input: b.read, output: a.write)
    let server = Connection(input: a.read, output: b.write)
    client.start()
    _ = serve(server) { server, message in
      if let id = requestID(message) { _ = try? server.reply(to: id, with: EmptyObject()) }
    }
    _ = try await client.send(ShutdownRequest(), timeout: .seconds(5))
    #expect(try openPipes(inodes).count == 4)
    client.close()
    server.close()
    await client.waitUntilFinished()
    await server.waitUntilFinished()
    #expect(try openPipes(inodes).isEmpty)
  }

  @Test func aConnectionDroppedWithoutCloseIsClosed() async throws {
    let a = try FileDescriptor.pipe()
    let b = try FileDescriptor.pipe()
    defer { a.write.close(); b.read.close() }  // the peer's ends, open so the connection sees no end of file
    let messages: AsyncStream<InboundMessage>
    do {
      let dropped = Connection(input: a.read, output: b.write)
      dropped.start()
      messages = dropped.messages
    }
    // `messages` finishes when the connection is closed; the race against a sleep keeps a failure from hanging.
    let finished = await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        for await _ in messages {}
        return true
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(5))  // cancelled when the stream finishes first
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
    #expect(finished)
  }

  @Test func closeBeforeStartClosesTheDescriptors() async throws {
    let a = try FileDescriptor.pipe()
    let inodes = Set([pipeInode(a.read)])
    let connection = Connection(input: a.read, output: a.write)
    try connection.notify(ExitNotification())  // queued; never written
    connection.close()
    connection.start()  // does nothing after close()
    await connection.waitUntilFinished()
    #expect(try openPipes(inodes).isEmpty)
    #expect(throws: ConnectionError.closed) { try connection.notify(ExitNotification()) }
    await #expect(throws: ConnectionError.closed) { try await connection.send(ShutdownRequest()) }
  }
}

// MARK: - A blocked pool

/// Every thread of the cooperative pool blocked at once, to show that a connection needs none of them.
///
/// Other suites run meanwhile and may hold pool threads themselves (some block them for seconds), so an attempt
/// counts only when this suite's blockers held every pool thread at once, soon after the request was sent;
/// otherwise it is given up at once and tried again.
@Suite(.serialized, .timeLimit(.minutes(3)), .tags(.process))
struct PoolStarvationTests {
  /// How long the pool is blocked once it is.
  static let saturation = Duration.milliseconds(500)
  /// The request's deadline: shorter than `saturation`, so an answer that needs the pool misses it.
  static let deadline = Duration.milliseconds(400)
  /// How long the blockers wait for each other to hold every pool thread before an attempt is given up.
  static let gathering = Duration.milliseconds(150)
  /// How long to keep trying to block the pool.
  static let patience = Duration.seconds(40)

  private enum Phase {
    case gathering(arrived: Int)
    /// Every blocker holds a thread; the last one calls `whenAllBlocked`.
    case deciding
    case blocked
    case givenUp
  }

  /// What came of one attempt.
  struct Attempt {
    var client: Connection
    var server: Connection
    var log: LogRecorder
    /// Whether the pool was blocked (else the attempt proves nothing).
    var blocked: Bool
    var answer: Result<EmptyObject, any Error>

    func close() {
      client.close()
      server.close()
    }
  }

  /// One attempt: the client sends `shutdown` with `deadline` while blockers (one per core) take every pool thread,
  /// deliberately, for `saturation`. Once all of them hold one, the last tells the server `Go` (over the same
  /// connection, so after the request), and the server answers, on its reader thread or from a pool task. Blockers
  /// that do not all hold a thread within `gathering` give up at once and close the connection.
  static func attempt(answeringFromAPoolTask: Bool) async throws -> Attempt {
    let log = LogRecorder()
    let (client, server) = try makePair(client: .init(peerName: "server", log: log.callback))
    client.start()
    // The server holds the first request until `Go`, and answers later ones at once, on its reader thread.
    let held = Shared<(id: RequestID?, count: Int)>((nil, 0))
    _ = serve(server) { server, message in
      if message.method == Go.method, let id = held.value.withLock({ $0.id }) {
        if answeringFromAPoolTask {
          Task { _ = try? server.reply(to: id, with: EmptyObject()) }
        } else {
          _ = try? server.reply(to: id, with: EmptyObject())
        }
        return
      }
      guard let id = requestID(message) else { return }
      let first = held.value.withLock { held in
        held.count += 1
        if held.count == 1 { held.id = id }
        return held.count == 1
      }
      if !first { _ = try? server.reply(to: id, with: EmptyObject()) }
    }

    let width = ProcessInfo.processInfo.activeProcessorCount
    let phase = Shared(Phase.gathering(arrived: 0))
    let start = ContinuousClock.now
    return await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<width {
        // High priority: a pool thread that comes free goes to a blocker before other suites' work.
        group.addTask(priority: .high) {
          let last = phase.value.withLock { phase -> Bool in
            guard case .gathering(let arrived) = phase else { return false }
            phase = arrived + 1 == width ? .deciding : .gathering(arrived: arrived + 1)
            return arrived + 1 == width
          }
          if last {
            var go = ContinuousClock.now - start < gathering
            if go {
              do { try client.notify(Go()) } catch {  // from a blocked pool thread: it must not wait for the peer
                Issue.record("notify failed: \(error)")
                go = false
              }
            }
            phase.value.withLock { $0 = go ? .blocked : .givenUp }
            if !go { client.close() }
          }
          while true {
            var gaveUp = false
            let now = phase.value.withLock { phase -> Phase in
              if case .gathering = phase, ContinuousClock.now - start > gathering {
                phase = .givenUp
                gaveUp = true
              }
              return phase
            }
            if gaveUp { client.close() }  // fails the request at once
            switch now {
            case .gathering, .deciding:
              usleep(1000)  // blocking this pool thread is the point
            case .blocked:
              usleep(UInt32(saturation / .microseconds(1)))
              return true
            case .givenUp:
              return false
            }
          }
        }
      }
      // The request is queued before this task lets its thread go to a blocker, so it precedes `Go` on the wire.
      let answer: Result<EmptyObject, any Error>
      do { answer = .success(try await client.send(ShutdownRequest(), timeout: deadline)) } catch {
        answer = .failure(error)
      }
      let blocked = await group.allSatisfy { $0 }
      return Attempt(client: client, server: server, log: log, blocked: blocked, answer: answer)
    }
  }

  /// Runs attempts until one blocks the pool, and returns it (the caller closes it). When none did within
  /// `patience`, the test is cancelled (reported as such, neither passed nor failed).
  static func attemptWithThePoolBlocked(answeringFromAPoolTask: Bool) async throws -> Attempt {
    let start = ContinuousClock.now
    while ContinuousClock.now - start < patience {
      let attempt = try await attempt(answeringFromAPoolTask: answeringFromAPoolTask)
      if attempt.blocked { return attempt }
      attempt.close()
      try await Task.sleep(for: .milliseconds(50))
    }
    // Not a failure of the connection: this run cannot show anything either way.
    try Test.cancel("other suites kept the pool's threads busy for \(patience); it could not be blocked")
  }

  @Test func aPeerAnsweringOffThePoolMeetsTheDeadlineWhileThePoolIsBlocked() async throws {
    let attempt = try await Self.attemptWithThePoolBlocked(answeringFromAPoolTask: false)
    defer { attempt.close() }
    #expect(try attempt.answer.get() == EmptyObject())
  }

  /// The control: the same peer answering from a pool task cannot answer until the pool is free, after the deadline.
  /// Its late answer is then dropped and the connection goes on.
  @Test func aPeerAnsweringFromAPoolTaskMissesTheDeadline() async throws {
    let attempt = try await Self.attemptWithThePoolBlocked(answeringFromAPoolTask: true)
    defer { attempt.close() }
    #expect(throws: ConnectionError.timedOut(method: "shutdown", seconds: 0.4)) { try attempt.answer.get() }
    let line = await attempt.log.firstLine(within: .seconds(5))
    #expect(line == "dropped the late answer to request 1 (shutdown), which had timed out")
    #expect(try await attempt.client.send(ShutdownRequest(), timeout: .seconds(5)) == EmptyObject())
  }
}
