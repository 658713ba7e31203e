import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// A peer handed from one connection to the next (`assistant serve` lends an extension's pipes to one call after
/// another): the ids go on, and a closed connection's reader reads nothing of its successor's.
@Suite(.timeLimit(.minutes(3)), .tags(.process))
struct HandOverTests {
  @Test func theNextConnectionGoesOnFromTheIdsOfTheLastAndGetsItsOwnAnswers() async throws {
    ignoreBrokenPipeSignal()
    let toPeer = try FileDescriptor.pipe()
    let fromPeer = try FileDescriptor.pipe()
    let peer = Connection(input: toPeer.read, output: fromPeer.write, options: .init(peerName: "host"))
    let ids = Shared<[RequestID]>([])
    _ = serve(peer) { peer, message in
      guard let id = requestID(message) else { return }
      ids.value.withLock { $0.append(id) }
      _ = try? peer.reply(to: id, with: ResolutionResult.success(.string("answer to \(id)")))
    }
    defer { peer.close() }
    let intent = Intent(name: "X", identifier: "1")

    // The first holder: copies of the pipe ends, numbered from 41.
    var options = Connection.Options(peerName: "peer")
    options.firstRequestNumber = 41
    let first = Connection(input: try fromPeer.read.duplicate(), output: try toPeer.write.duplicate(), options: options)
    first.start()
    _ = try await first.send(ResolveParameterRequest(intent: intent, parameter: "a"), timeout: .seconds(5))
    #expect(first.nextRequestNumber == 42)
    first.close()
    await first.waitUntilFinished()

    // The second holder goes on from there, and every answer reaches it.
    options.firstRequestNumber = first.nextRequestNumber
    let second = Connection(input: fromPeer.read, output: toPeer.write, options: options)
    second.start()
    defer { second.close() }
    for parameter in ["b", "c", "d"] {
      let answer = try await second.send(
        ResolveParameterRequest(intent: intent, parameter: parameter), timeout: .seconds(5))
      #expect(answer == .success(.string("answer to \(RequestID.number(second.nextRequestNumber - 1))")))
    }
    #expect(ids.value.withLock { $0 } == [41, 42, 43, 44].map(RequestID.number))
  }
}
