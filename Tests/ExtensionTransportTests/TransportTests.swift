import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import Testing

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

/// Two connections joined by pipes: `client` talks to `server`.
func connectedPair() throws -> (client: Connection, server: Connection) {
  let a = try FileDescriptor.pipe()
  let b = try FileDescriptor.pipe()
  let client = Connection(input: b.read, output: a.write, options: .init(peerName: "server"))
  let server = Connection(input: a.read, output: b.write, options: .init(peerName: "client"))
  client.start()
  server.start()
  return (client, server)
}

struct ConnectionTests {
  @Test func answersArePairedByIDEvenOutOfOrder() async throws {
    let (client, server) = try connectedPair()
    defer { client.close(); server.close() }
    Task {
      var held: [RequestID] = []
      for await message in server.messages {
        guard case .request(let id) = message.kind else { continue }
        held.append(id)
        if held.count == 2 {
          // Answer the second first.
          for id in held.reversed() {
            try server.reply(to: id, with: ResolutionResult.success(.string("answer to \(id)")))
          }
        }
      }
    }
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
    let (client, server) = try connectedPair()
    defer { client.close() }
    Task {
      for await _ in server.messages { server.close() }
    }
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
    let (client, server) = try connectedPair()
    defer { client.close(); server.close() }
    Task {
      for await message in server.messages {
        if case .request(let id) = message.kind {
          try server.reply(to: id, error: ResponseError(.noHandler, "no handler for X"))
        }
      }
    }
    await #expect(throws: ConnectionError.remote(ResponseError(.noHandler, "no handler for X"))) {
      try await client.send(ShutdownRequest(), timeout: .seconds(5))
    }
  }
}
