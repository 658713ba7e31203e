import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// `Options.unsolicitedBudget`: what a peer sends of its own (requests, notifications) is bounded per request of
/// ours; past the bound the connection ends as a protocol violation. The control is the same flood without a budget,
/// which the connection takes in full.
@Suite(.timeLimit(.minutes(1)), .tags(.process))  // a broken connection must fail a test, not hang the run
struct UnsolicitedBudgetTests {
  static let tick = #"{"jsonrpc":"2.0","method":"test/tick","params":{}}"#

  /// A peer whose client counts what it is handed (on its reader thread) instead of buffering it in `messages`.
  func peer(budget: Connection.UnsolicitedBudget?) throws -> (RawPeer, Shared<Int>) {
    let delivered = Shared(0)
    let peer = try RawPeer(options: .init(unsolicitedBudget: budget, peerName: "peer"), start: false)
    peer.client.start { message in
      if message != nil { delivered.value.withLock { $0 += 1 } }
    }
    return (peer, delivered)
  }

  /// Waits (off the pool) until the client's request is on the wire: it is then registered, and what the peer sends
  /// next counts against its budget.
  func requestWritten(_ peer: RawPeer) async throws {
    let output = peer.clientOutput
    _ = try await offloaded { () throws(SystemError) -> Int in
      var buffer = [UInt8](repeating: 0, count: 4096)
      return try output.read(into: &buffer)
    }
  }

  @Test func aFloodPastTheMessageBudgetIsAViolation() async throws {
    let (peer, delivered) = try peer(budget: .init(messages: 3, bytes: 1 << 20))
    defer { peer.close() }
    let pending = Task { try await peer.client.send(ShutdownRequest(), timeout: .seconds(5)) }
    try await requestWritten(peer)
    for _ in 0..<4 { try peer.send(Self.tick) }
    do {
      _ = try await pending.value
      Issue.record("the request should have failed")
    } catch ConnectionError.protocolViolation(let what) {
      #expect(
        what
          == "it sent more than 3 messages of its own (requests or notifications) since the last request it was "
          + "sent; the budget is 3 messages and 1048576 bytes per request")
    }
    #expect(delivered.value.withLock { $0 } == 3)
  }

  @Test func aFloodPastTheByteBudgetIsAViolation() async throws {
    let (peer, _) = try peer(budget: .init(messages: 100, bytes: 100))
    defer { peer.close() }
    // 82 bytes: the first is within the 100-byte budget, the second passes it.
    let padded = #"{"jsonrpc":"2.0","method":"test/tick","params":{"padding":"\#(String(repeating: "x", count: 20))"}}"#
    let pending = Task { try await peer.client.send(ShutdownRequest(), timeout: .seconds(5)) }
    try await requestWritten(peer)
    try peer.send(padded)
    try peer.send(padded)
    do {
      _ = try await pending.value
      Issue.record("the request should have failed")
    } catch ConnectionError.protocolViolation(let what) {
      #expect(what.contains("it sent more than 100 bytes of its own"), "\(what)")
    }
  }

  /// The budget counts from each request: a peer that sends its allowance for every request stays within it.
  @Test func theBudgetRefillsWithEachRequest() async throws {
    let (peer, delivered) = try peer(budget: .init(messages: 3, bytes: 1 << 20))
    defer { peer.close() }
    for id in 1...3 {
      let pending = Task { try await peer.client.send(ShutdownRequest(), timeout: .seconds(5)) }
      try await requestWritten(peer)
      for _ in 0..<3 { try peer.send(Self.tick) }
      try peer.send(#"{"jsonrpc":"2.0","id":\#(id),"result":{}}"#)
      #expect(try await pending.value == EmptyObject())
    }
    #expect(peer.client.failure == nil)
    #expect(delivered.value.withLock { $0 } == 9)
  }

  /// The control: without a budget the same flood (and more) is taken in full.
  @Test func withoutABudgetAFloodIsTakenInFull() async throws {
    let (peer, delivered) = try peer(budget: nil)
    defer { peer.close() }
    let pending = Task { try await peer.client.send(ShutdownRequest(), timeout: .seconds(5)) }
    try await requestWritten(peer)
    let flood = Array(repeating: Self.tick, count: 100).joined(separator: "\n")
    for _ in 0..<10 { try peer.send(flood) }
    try peer.send(#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
    #expect(try await pending.value == EmptyObject())
    #expect(delivered.value.withLock { $0 } == 1000)
    #expect(peer.client.failure == nil)
  }
}
