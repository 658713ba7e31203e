import Foundation
import IntentHostSystem
import ProcessSupervision
import TestSupport
import Testing

@Suite(.serialized, .tags(.process))
struct SupervisionTests {
  /// Starts a supervised `sh -c script`; the spawn (which waits for the child's exec) runs off the pool.
  func start(_ script: String, environment: [String: String] = [:]) async throws -> SupervisedProcess {
    try await offloaded {
      try SupervisedProcess(
        LaunchSpecification(name: "sh", executable: "/bin/sh", arguments: ["-c", script], environment: environment))
    }
  }

  /// The CPU time a kept process has used (`assistant serve` retires one past half of its limit), and a new log
  /// allowance for each run it serves.
  @Test func cpuTimeIsReadAndTheLogAllowanceRenews() async throws {
    let directory = try TemporaryDirectory("intenthost-cpu")
    defer { directory.remove() }
    let log = directory.file("busy.log").path
    var specification = LaunchSpecification(
      name: "busy", executable: "/bin/sh",
      arguments: ["-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done; sleep 30"], environment: [:])
    specification.logPath = log
    specification.hostLogLimit = 200
    let launch = specification
    let busy = try await offloaded { try SupervisedProcess(launch) }
    #expect(try await eventually(timeout: .seconds(30)) { (busy.cpuTimeUsed() ?? .zero) >= .milliseconds(100) })
    for index in 0..<10 { busy.appendHostLine("first run \(index) \(String(repeating: "x", count: 30))") }
    busy.renewLogAllowance()
    busy.appendHostLine("second run")
    await busy.kill()
    #expect(busy.cpuTimeUsed() == nil)  // gone
    let text = try String(contentsOfFile: log, encoding: .utf8)
    #expect(text.contains("--- host: second run"), "\(text)")
    // Control: the first run's lines stopped at its allowance.
    #expect(!text.contains("first run 9"), "\(text)")
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

  /// Runs `sh -c script` with its stderr logged at `log`, waits for it and for its streams, and returns the log.
  func logged(_ script: String, log: String, rotatingAt size: Int = 1 << 20) async throws -> String {
    let child = try await offloaded {
      var specification = LaunchSpecification(
        name: "sh", executable: "/bin/sh", arguments: ["-c", script], environment: [:], logPath: log)
      specification.logRotationSize = size
      return try SupervisedProcess(specification)
    }
    _ = await child.waitForExit()
    _ = await child.stderrTail(waitingUpTo: .seconds(5))  // the streams are drained into the log
    return try await offloaded { try String(contentsOfFile: log, encoding: .utf8) }
  }

  /// Every line the child writes is logged as `| ` and the line, escaped; the host's lines alone start with `--- `.
  @Test func childLinesAreMarkedAndEscapedInTheLog() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let script =
      #"printf -- '--- host: fault: sh crashed (forged)\n\033]0;title\007 tab\there\r\nno newline \342\200\256' >&2"#
    let log = try await logged(script, log: directory.file("sh.log").path)
    let lines = log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.count == 6, "\(log)")
    #expect(
      lines.first?.hasPrefix("--- ") == true
        && lines.first?.hasSuffix(" sh started, pid \(lines.first!.split(separator: " ").last!)") == true)
    #expect(
      Array(lines[1...3]) == [
        "| --- host: fault: sh crashed (forged)", "| \\u{1B}]0;title\\u{07} tab\there", "| no newline \\u{202E}",
      ], "\(log)")
    #expect(lines[4] == "--- sh exited with status 0", "\(log)")
    #expect(lines[5] == "")
  }

  /// A log that reached the rotation size is moved to `.1` (replacing the older one) before the next launch logs.
  @Test func aFullLogIsRotatedAtLaunch() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let log = directory.file("sh.log").path
    let first = try await logged("echo first >&2", log: log, rotatingAt: 100)
    #expect(first.contains("| first\n"))
    let second = try await logged("echo second >&2", log: log, rotatingAt: 100)
    #expect(second.contains("| first\n") && second.contains("| second\n"), "under 100 bytes: appended")
    let third = try await logged("echo third >&2", log: log, rotatingAt: 100)
    #expect(!third.contains("| first") && third.contains("| third\n"), "\(third)")
    let rotated = try String(contentsOfFile: log + ".1", encoding: .utf8)
    #expect(rotated == second)
    let fourth = try await logged("echo fourth >&2", log: log, rotatingAt: 10)
    #expect(try String(contentsOfFile: log + ".1", encoding: .utf8) == third)
    #expect(fourth.contains("| fourth\n") && !fourth.contains("third"))
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(files == ["sh.log", "sh.log.1"])
  }
}
