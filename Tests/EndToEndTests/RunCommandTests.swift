import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// `runCommand` itself: whatever it started is killed and reaped before it returns, on a timeout and on
/// cancellation.
@Suite(.serialized, .tags(.endToEnd))
struct RunCommandTests {
  @Test func aCommandPastItsTimeoutIsKilledWithItsGroupAndReaped() async throws {
    // The shell leaves a sleep in its process group and waits for it.
    let result = try await runCommand("/bin/sh", ["-c", "sleep 60 & echo $!; wait"], timeout: .seconds(1))
    #expect(result.timedOut, "\(result)")
    #expect(result.status == .signalled(SIGKILL), "\(result)")
    #expect(!processExists(result.pid), "the shell \(result.pid) was not reaped")
    let sleeper = try #require(Int32(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result)")
    try await eventually(timeout: .seconds(5)) { !isAlive(sleeper) }
    #expect(!isAlive(sleeper), "the shell's child \(sleeper) outlived the kill of its process group")
  }

  @Test func cancellingTheTaskKillsAndReapsTheCommand() async throws {
    let (pids, pidSink) = AsyncStream.makeStream(of: pid_t.self)
    let command = Task {
      try await runCommand("/bin/sleep", ["60"]) { pid in
        pidSink.yield(pid)
        pidSink.finish()
      }
    }
    var iterator = pids.makeAsyncIterator()
    let pid = try #require(await iterator.next())
    command.cancel()
    await #expect(throws: CancellationError.self) { try await command.value }
    #expect(!processExists(pid), "the command \(pid) was not reaped")
  }
}
