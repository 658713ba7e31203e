import Foundation
import IntentHostSystem
import ProcessSupervision
import TestSupport
import Testing

@Suite(.serialized)
struct SupervisionTests {
  /// Starts a supervised `sh -c script`; the spawn (which waits for the child's exec) runs off the pool.
  func start(_ script: String, environment: [String: String] = [:]) async throws -> SupervisedProcess {
    try await offloaded {
      try SupervisedProcess(
        LaunchSpecification(name: "sh", executable: "/bin/sh", arguments: ["-c", script], environment: environment))
    }
  }

  @Test func terminationIsTyped() async throws {
    let exits = try await start("exit 3")
    #expect(await exits.waitForExit() == .exited(3))
    let crashes = try await start("kill -SEGV $$")
    #expect(await crashes.waitForExit() == .signalled(SIGSEGV))
  }

  @Test func childGetsOnlyStandardDescriptorsAndTheGivenEnvironment() async throws {
    let child = try await start(
      "ls /proc/self/fd >&2; echo ENV; env >&2", environment: ["ONLY": "this", "PATH": "/usr/bin:/bin"])
    #expect(await child.waitForExit() == .exited(0))
    let lines = await child.stderrTail().split(separator: "\n").map(String.init)
    // ls itself opens one descriptor to read /proc/self/fd.
    #expect(lines.prefix(4) == ["0", "1", "2", "3"])
    #expect(!lines.contains("4"))
    #expect(lines.contains("ONLY=this"))
    #expect(!lines.contains { $0.hasPrefix("HOME=") })
  }

  @Test func teardownEscalatesToKill() async throws {
    let child = try await start("trap '' TERM; while :; do sleep 1; done")
    let termination = await child.tearDown(grace: .milliseconds(100), termGrace: .milliseconds(100))
    #expect(termination == .signalled(SIGKILL))
    #expect(!isAlive(child.pid))
  }

  /// When the child ends, what it left in its process group is killed before its end is reported (and before its
  /// stderr, which the grandchild shares, is drained to the end).
  @Test func whatTheChildLeftInItsGroupIsKilledAtItsEnd() async throws {
    let child = try await start("sleep 60 & echo $! >&2; exit 0")
    #expect(await child.waitForExit() == .exited(0))
    let grandchild = try #require(
      Int32(await child.stderrTail(waitingUpTo: .milliseconds(100)).split(separator: "\n").first ?? ""))
    #expect(try await eventually(timeout: .seconds(2)) { !isAlive(grandchild) }, "pid \(grandchild) outlived the child")
  }

  /// Control: the same grandchild outlives a plain spawn that nobody supervises, so the test above can fail.
  @Test func aGrandchildOutlivesAnUnsupervisedChild() async throws {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let out = scratch.file("out").path
    let process = try await spawnWritingOutput(to: out, "/bin/sh", ["-c", "sleep 60 & echo $!; exit 0"])
    _ = try await waitForExit(process)
    let grandchild = try #require(
      Int32(try String(contentsOfFile: out, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(isAlive(grandchild))
    kill(grandchild, SIGKILL)
  }

  @Test func execFailureNamesTheFile() async throws {
    await #expect {
      try await offloaded {
        try SupervisedProcess(LaunchSpecification(name: "x", executable: "/nonexistent/tool", environment: [:]))
      }
    } throws: { error in
      "\(error)" == "cannot execute /nonexistent/tool: No such file or directory"
    }
  }

  @Test func lastStderrLinePrefersTheFatalError() async throws {
    let child = try await start("echo 'Fatal error: boom' >&2; echo '0 0x1 frame' >&2; exit 1")
    _ = await child.waitForExit()
    #expect(await child.lastStderrLine() == "Fatal error: boom")
  }
}
