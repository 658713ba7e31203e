import Foundation
import Synchronization
import Testing

@testable import IntentHostSystem

/// `cancellableBlockingWait`: a blocking wait that runs off the cooperative pool and that the calling task's
/// cancellation ends. Every wait here polls with a time limit, so that a broken guarantee fails the test instead of
/// hanging it.
struct CancellableBlockingWaitTests {
  /// How a test's wait ended.
  enum Ending: Equatable, Sendable {
    case ready
    case cancelled
    case timedOut
  }

  /// How many waits are inside their body now, and the most that were at once.
  final class Occupancy: Sendable {
    private let counts = Mutex((now: 0, most: 0))
    var most: Int { counts.withLock { $0.most } }
    func enter() {
      counts.withLock {
        $0.now += 1
        $0.most = max($0.most, $0.now)
      }
    }
    func leave() { counts.withLock { $0.now -= 1 } }
  }

  /// Waits up to `milliseconds` for `fd` to be readable, or the cancellation.
  static func wait(for fd: FileDescriptor, cancellation: FileDescriptor, milliseconds: Int32) throws(SystemError)
    -> Ending
  {
    let ready = try pollReadable([fd, cancellation], timeoutMilliseconds: milliseconds)
    if ready[1] { return .cancelled }
    return ready[0] ? .ready : .timedOut
  }

  @Test func cancellingTheTaskWakesTheWait() async throws {
    let (quiet, quietWriter) = try FileDescriptor.pipe()
    defer {
      quiet.close()
      quietWriter.close()
    }
    let started = Signal()
    let waiting = Task {
      try await cancellableBlockingWait { cancellation throws(SystemError) in
        started.fire()
        return try Self.wait(for: quiet, cancellation: cancellation, milliseconds: 30_000)
      }
    }
    await started.wait()
    let before = ContinuousClock.now
    waiting.cancel()
    #expect(try await waiting.value == .cancelled)
    #expect(ContinuousClock.now - before < .seconds(20))
  }

  @Test func aTaskCancelledBeforeTheWaitFindsItWokenAtOnce() async throws {
    let (quiet, quietWriter) = try FileDescriptor.pipe()
    defer {
      quiet.close()
      quietWriter.close()
    }
    let gate = Signal()
    let waiting = Task {
      await gate.wait()  // returns at once: the task is cancelled by then
      return try await cancellableBlockingWait { cancellation throws(SystemError) in
        try Self.wait(for: quiet, cancellation: cancellation, milliseconds: 30_000)
      }
    }
    waiting.cancel()
    #expect(try await waiting.value == .cancelled)
  }

  @Test func aWaitThatEndsOnItsOwnReturnsItsResult() async throws {
    let (input, writer) = try FileDescriptor.pipe()
    defer {
      input.close()
      writer.close()
    }
    try await writer.writeAll(Array("x".utf8))
    let ending = try await cancellableBlockingWait { cancellation throws(SystemError) in
      try Self.wait(for: input, cancellation: cancellation, milliseconds: 30_000)
    }
    #expect(ending == .ready)
    let value = try await cancellableBlockingWait { _ in 42 }
    #expect(value == 42)
  }

  @Test func whatTheBodyThrowsReachesTheCaller() async throws {
    await #expect(throws: SystemError(code: EBADF, operation: "read")) {
      try await cancellableBlockingWait { _ throws(SystemError) -> Int in
        throw SystemError(code: EBADF, operation: "read")
      }
    }
  }

  /// More waits than the cooperative pool has threads block at the same time, and other tasks still run meanwhile:
  /// the waits hold no thread of the pool. (Were they on the pool, at most one per core could be in at once, and the
  /// count below would stop there until their time limits passed.)
  @Test func manyWaitsBlockTogetherAndThePoolStaysFree() async throws {
    let count = ProcessInfo.processInfo.activeProcessorCount + 2
    let (quiet, quietWriter) = try FileDescriptor.pipe()
    defer {
      quiet.close()
      quietWriter.close()
    }
    let inside = Occupancy()
    let waits = Task {
      try await withThrowingTaskGroup(of: Ending.self) { group in
        for _ in 0..<count {
          group.addTask {
            try await cancellableBlockingWait { cancellation throws(SystemError) in
              inside.enter()
              defer { inside.leave() }
              return try Self.wait(for: quiet, cancellation: cancellation, milliseconds: 20_000)
            }
          }
        }
        var endings: [Ending] = []
        for try await ending in group { endings.append(ending) }
        return endings
      }
    }
    let deadline = ContinuousClock.now + .seconds(15)
    while inside.most < count && ContinuousClock.now < deadline {
      // Another task runs while the waits block.
      #expect(await Task.detached { 1 + 1 }.value == 2)
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(inside.most == count)
    waits.cancel()
    #expect(try await waits.value == Array(repeating: .cancelled, count: count))
  }
}
