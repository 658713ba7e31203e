import ExtensionProtocol
import ExtensionTransport
import TestSupport
import Testing

/// `holdDeadlines()` / `releaseDeadlines()`: what the host uses so that the user's time answering an extension's
/// question does not count against the request the extension is answering. Deterministic, without sleeping: a
/// request with a deadline of zero is overdue at once, and two round trips after it make the reader check the
/// deadlines once more (the check runs before each read, and the second answer is read in a pass that began after
/// the first answer, so after the overdue request was sent).
@Suite(.timeLimit(.minutes(1)), .tags(.process))
struct DeadlineHoldTests {
  /// Sends a request that is overdue at once, makes two round trips, then lets the server answer it: true when the
  /// answer was taken, false when the request had timed out.
  func overdueRequestSurvives(
    _ client: Connection, _ server: Connection, inbox: inout AsyncStream<InboundMessage>.Iterator
  ) async throws -> Bool {
    async let overdue = client.send(ShutdownRequest(), timeout: .zero)
    let first = try #require(requestID(await inbox.next()))
    for _ in 0..<2 {
      async let ping = client.send(ShutdownRequest())
      try server.reply(to: try #require(requestID(await inbox.next())), with: EmptyObject())
      _ = try await ping
    }
    try server.reply(to: first, with: EmptyObject())
    do {
      _ = try await overdue
      return true
    } catch ConnectionError.timedOut {
      return false
    }
  }

  /// While held, an overdue request still gets its answer; the control, unheld, times out.
  @Test(arguments: [true, false])
  func aHeldDeadlineDoesNotExpire(held: Bool) async throws {
    let (client, server) = try connectedPair()
    defer { client.close(); server.close() }
    var inbox = server.messages.makeAsyncIterator()
    if held { client.holdDeadlines() }
    #expect(try await overdueRequestSurvives(client, server, inbox: &inbox) == held)
    if held { client.releaseDeadlines() }
  }

  /// Holds nest: the deadlines run again only once every hold is released; then a request keeps only the time it had
  /// left (none, for one due at once).
  @Test func holdsNestAndReleaseRestoresTheDeadline() async throws {
    let (client, server) = try connectedPair()
    defer { client.close(); server.close() }
    var inbox = server.messages.makeAsyncIterator()
    client.holdDeadlines()
    client.holdDeadlines()
    client.releaseDeadlines()
    #expect(try await overdueRequestSurvives(client, server, inbox: &inbox))
    client.releaseDeadlines()
    #expect(try await !overdueRequestSurvives(client, server, inbox: &inbox))
    // A request sent during a hold, never answered, times out once the hold is released.
    client.holdDeadlines()
    let overdue = Task { try await client.send(ShutdownRequest(), timeout: .zero) }
    _ = await inbox.next()
    client.releaseDeadlines()
    await #expect(throws: ConnectionError.timedOut(method: "shutdown", seconds: 0)) { try await overdue.value }
  }
}
