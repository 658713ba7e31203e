import Foundation
import TestSupport
import Testing

/// Each fault gets its own fixture extension; the host must name it, say what happened, exit 70, and leave no child.
@Suite(.serialized, .tags(.endToEnd))
struct FaultEndToEndTests {
  /// Installs a fixture whose extension runs `mode` and asks it to handle Ping; waits off the cooperative pool.
  func run(_ mode: String, _ extra: [String] = []) async throws -> (CommandResult, HostFixture) {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: mode, in: host.directory.file("bundles"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    let result = try await host.assistant(extra + ["run", "Fixture", "Ping", "value=x"])
    return (result, host)
  }

  @Test func aWellBehavedFixturePasses() async throws {
    let (result, host) = try await run("Polite")
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == "Got pong.\n")
  }

  @Test(arguments: [
    ("CrashOnResolve", "crashed with SIGSEGV during resolve of value"),
    ("ExitEarly", "exited with status 3 during the handshake"),
    ("GarbageLine", "broke the protocol during the handshake: line 1 is not a JSON-RPC message: \"this is not JSON\""),
    ("WrongID", "broke the protocol during the handshake: line 1 answers request id 101, which is not pending"),
    ("FatalError", "crashed with SIGILL during handle of PingIntent"),
    ("UnknownCode", "answered response code \"exploded\", which PingIntent does not define"),
    ("ReadyOnHandle", "answered ready to handle of PingIntent; ready is for confirm only"),
  ])
  func faultIsReportedInOneLine(mode: String, expected: String) async throws {
    let (result, host) = try await run(mode)
    defer { host.directory.remove() }
    #expect(result.code == 70, "\(result)")
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(result)")
    #expect(result.stderr.hasPrefix("assistant: \(mode) (com.example.fixture.\(mode))"), "\(result)")
    #expect(result.stderr.contains(expected), "\(result)")
    let log = try String(contentsOfFile: host.home + "/Logs/com.example.fixture.\(mode).log", encoding: .utf8)
    #expect(log.contains("fault:"))
  }

  @Test func aFaultIsAlsoJSONWithJSON() async throws {
    let (result, host) = try await run("CrashOnResolve", ["--json"])
    defer { host.directory.remove() }
    #expect(result.code == 70)
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let error = object?["error"] as? [String: Any]
    #expect(error?["status"] as? Int == 70, "\(result)")
    #expect((error?["message"] as? String)?.contains("crashed with SIGSEGV during resolve of value") == true)
  }

  @Test func fatalErrorMessageReachesTheUser() async throws {
    let (result, host) = try await run("FatalError")
    defer { host.directory.remove() }
    #expect(result.stderr.contains("the fixture gave up"), "\(result)")
  }

  @Test func hangPastTheDeadlineIsKilled() async throws {
    let (result, host) = try await run("HangOnHandle", ["--deadline", "handle=0.5"])
    defer { host.directory.remove() }
    #expect(result.code == 70, "\(result)")
    #expect(result.stderr.contains("did not answer handle of PingIntent within 0.5 s"), "\(result)")
    #expect(result.stderr.contains("was killed"))
  }

  @Test func silentHandshakeHitsTheHandshakeDeadline() async throws {
    let (result, host) = try await run("SilentHandshake", ["--deadline", "handshake=0.3"])
    defer { host.directory.remove() }
    #expect(result.code == 70, "\(result)")
    #expect(result.stderr.contains("did not answer the handshake within 0.3 s"), "\(result)")
  }

  /// Unconfined (the sandbox forbids the fork itself), a grandchild left in the extension's process group is swept.
  @Test func noChildOutlivesTheHost() async throws {
    let (result, host) = try await run("LeaveChild", ["--no-sandbox"])
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    let pidText = try String(
      contentsOfFile: host.home + "/Containers/com.example.fixture.LeaveChild/grandchild.pid", encoding: .utf8)
    let pid = try #require(Int32(pidText))
    #expect(pid > 0, "the fixture could not fork, so this test shows nothing")
    // The host swept its group with SIGKILL as it ended; the grandchild dies once it is next scheduled.
    try await eventually(timeout: .seconds(5)) { !isAlive(pid) }
    #expect(!isAlive(pid), "the extension's child \(pid) outlived the host")
  }

  /// Sandboxed, the same extension cannot start a child at all.
  @Test func aSandboxedExtensionCannotFork() async throws {
    let (result, host) = try await run("LeaveChild")
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    let pidText = try String(
      contentsOfFile: host.home + "/Containers/com.example.fixture.LeaveChild/grandchild.pid", encoding: .utf8)
    #expect(pidText == "-1", "fork returned \(pidText)")
  }

  @Test func interruptStopsTheExtension() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fixture(extensionName: "HangOnHandle", in: host.directory.file("bundles"))
    #expect(try await host.assistant(["install", app.path]).code == 0)
    let marker = host.home + "/Containers/com.example.fixture.HangOnHandle/hanging"
    // A child task gets the host's pid and sends it SIGINT once the extension hangs in handle.
    enum Step: Sendable {
      case finished(CommandResult)
      /// SIGINT was sent while these processes of the fixture were alive.
      case interrupted(hanging: [pid_t])
    }
    let (pids, pidSink) = AsyncStream.makeStream(of: pid_t.self)
    let steps = try await withThrowingTaskGroup(of: Step?.self) { group in
      group.addTask {
        .finished(
          try await host.assistant(["run", "Fixture", "Ping", "value=x"]) { pid in
            pidSink.yield(pid)
            pidSink.finish()
          })
      }
      group.addTask {
        for await pid in pids {
          do {
            try await eventually(interval: .milliseconds(25)) { FileManager.default.fileExists(atPath: marker) }
          } catch {
            return nil  // cancelled: the host ended before the marker appeared, so it must not be signalled
          }
          let hanging = livingProcesses(named: "HangOnHandle", under: host.directory.path)
          kill(pid, SIGINT)
          return .interrupted(hanging: hanging)
        }
        return nil
      }
      var steps: [Step] = []
      while let next = try await group.next() {
        guard let next else { continue }
        steps.append(next)
        if case .finished = next { group.cancelAll() }
      }
      return steps
    }
    let result = try #require(
      steps.lazy.compactMap { if case .finished(let result) = $0 { result } else { nil } }.first)
    let hanging = steps.lazy.compactMap { if case .interrupted(let hanging) = $0 { hanging } else { nil } }.first
    #expect(result.code == 130, "\(result)")
    #expect(result.stderr.contains("interrupted"))
    // Control: while it hung, the search below found the extension, so it can see one left behind.
    #expect(hanging?.isEmpty == false, "the extension was not found while it hung: \(String(describing: hanging))")
    // No process of the fixture remains.
    let survivors = livingProcesses(named: "HangOnHandle", under: host.directory.path)
    #expect(survivors.isEmpty, "left behind: \(survivors)")
  }
}
