import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

/// Whatever path `assistant run` ends by, every extension it started is shut down and reaped before it exits, and
/// each one's log ends with its end line.
@Suite(.serialized, .tags(.endToEnd))
struct ExitPathTests {
  /// One launch recorded in a log: its pid, whether the log has its end line ("--- NAME exited with status N" or
  /// "--- NAME killed by signal N (...)") after the start line, and whether anything but the host's own lines
  /// ("--- host: ...") follows the end line before the next launch (the child's output must all come before it).
  struct Launch: CustomStringConvertible {
    var log: String
    var name: String
    var pid: Int32
    var ended: Bool
    var writtenAfterEnd = false
    var description: String {
      "\(name) pid \(pid) in \(log)\(ended ? "" : " (no end line)")\(writtenAfterEnd ? " (output after its end line)" : "")"
    }
  }

  /// Every launch the logs of `home` record. Only the host's lines start with `--- `: every line an extension wrote
  /// to stderr is logged as `| ` and the line (README, "Where things live"), so an extension cannot fake its end line.
  static func launches(in home: String) -> [Launch] {
    let logs = home + "/Logs"
    var launches: [Launch] = []
    for file in ((try? FileManager.default.contentsOfDirectory(atPath: logs)) ?? []).sorted() {
      let text = (try? String(contentsOfFile: logs + "/" + file, encoding: .utf8)) ?? ""
      var open: [Int] = []  // indexes into `launches` of this log's launches without an end line yet
      var lastEnded: Int? = nil  // the launch whose end line came last, until the next start
      for line in text.split(separator: "\n").map(String.init) {
        guard line.hasPrefix("--- ") else {
          if open.isEmpty, let lastEnded, !line.isEmpty { launches[lastEnded].writtenAfterEnd = true }
          continue
        }
        if let range = line.range(of: " started, pid ") {
          lastEnded = nil
          let name = String(line[..<range.lowerBound].split(separator: " ").last ?? "")
          launches.append(
            Launch(log: file, name: name, pid: Int32(line[range.upperBound...]) ?? -1, ended: false))
          open.append(launches.count - 1)
        } else if line.contains(" exited with status ") || line.contains(" killed by signal "),
          !line.hasPrefix("--- host:"), let index = open.popLast()
        {
          launches[index].ended = true
          lastEnded = index
        }
      }
    }
    return launches
  }

  /// Checks that the run started `expected` (by name), and that none of its launches outlived it or lacks its end
  /// line.
  func expectAllStopped(_ host: HostFixture, started expected: Set<String>, _ result: CommandResult) {
    let launches = Self.launches(in: host.home)
    #expect(Set(launches.map(\.name)) == expected, "launches: \(launches)\n\(result)")
    for launch in launches {
      #expect(launch.ended, "\(launch) has no end line\n\(result)")
      #expect(!launch.writtenAfterEnd, "\(launch)\n\(result)")
      #expect(!isAlive(launch.pid), "\(launch) outlived the run\n\(result)")
    }
  }

  /// A fixture app whose Intents extension behaves as `mode`, beside a well-behaved UI extension.
  func fixture(_ mode: String, ui: String? = "UIOneAtATime") async throws -> HostFixture {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: mode, uiExtensionName: ui, in: host.directory.file("bundles"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return host
  }

  @Test func success0AndFailure1() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let booked = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=5", "bookedBy=Ada"])
    #expect(booked.code == 0, "\(booked)")
    let again = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=5", "bookedBy=Grace"])
    #expect(again.code == 1, "\(again)")
    expectAllStopped(host, started: ["RoomsIntents", "RoomsUI"], again)
    #expect(Self.launches(in: host.home).count == 4)
  }

  /// 64 (a value that does not fit), 65 (an installed manifest that became unreadable), 69 (no such app): nothing
  /// is started.
  @Test func usage64DataError65AndNoMatch69StartNothing() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let usage = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=twelve-ish"])
    #expect(usage.code == 64, "\(usage)")
    let unknown = try await host.assistant(["Book room 3 with Nowhere"])
    #expect(unknown.code == 69, "\(unknown)")
    try Data("not a plist".utf8).write(
      to: URL(fileURLWithPath: host.home + "/Applications/Rooms.app/PlugIns/RoomsIntents.appex/Info.plist"))
    let broken = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=3", "bookedBy=Ada"])
    #expect(broken.code == 65, "\(broken)")
    expectAllStopped(host, started: [], broken)
  }

  @Test func fault70StopsTheUIExtensionStartedBeside() async throws {
    let host = try await fixture("CrashOnResolve")
    defer { host.directory.remove() }
    let result = try await host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(result.code == 70, "\(result)")
    expectAllStopped(host, started: ["CrashOnResolve", "UIOneAtATime"], result)
  }

  /// The case that used to leave the UI extension running: a value is needed and nobody can be asked.
  @Test func valueNeeded75StopsTheUIExtensionStartedBeside() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant(["Book room 14 with Rooms"])
    #expect(result.code == 75, "\(result)")
    expectAllStopped(host, started: ["RoomsIntents", "RoomsUI"], result)
  }

  @Test func refused77StartsNothing() async throws {
    let host = try await fixture("Polite")
    defer { host.directory.remove() }
    let result = try await host.assistant(["--simulate", "no-landlock", "run", "Fixture", "Ping", "value=x"])
    #expect(result.code == 77, "\(result)")
    expectAllStopped(host, started: [], result)
  }

  /// Ctrl-C while the extension handles: the run's own cleanup stops both extensions, and the host exits 130.
  @Test func interrupt130StopsEveryExtension() async throws {
    let host = try await fixture("HangOnHandle")
    defer { host.directory.remove() }
    let marker = host.home + "/Containers/com.example.fixture.HangOnHandle/hanging"
    let pid = Mutex<pid_t?>(nil)
    let transcript = host.directory.file("interrupted.jsonl").path
    async let finished = host.assistant(["--record", transcript, "run", "Fixture", "Ping", "value=x"]) { started in
      pid.withLock { $0 = started }
    }
    var signalled = false
    for _ in 0..<400 {
      if let started = pid.withLock({ $0 }), FileManager.default.fileExists(atPath: marker) {
        kill(started, SIGINT)
        signalled = true
        break
      }
      try await Task.sleep(for: .milliseconds(25))
    }
    let result = try await finished
    #expect(signalled, "the extension never started handling\n\(result)")
    #expect(result.code == 130, "\(result)")
    // The orderly path (the run's own cleanup), not the forced one ("every extension was killed").
    #expect(result.stderr.contains("interrupted; every extension was stopped"), "\(result)")
    // The transcript was written, and its outcome is the host's exit status.
    let recorded = try String(contentsOfFile: transcript, encoding: .utf8).split(separator: "\n")
    let outcome = try #require(
      try JSONSerialization.jsonObject(with: Data((recorded.last ?? "").utf8)) as? [String: Any], "\(recorded)")
    #expect(outcome["kind"] as? String == "outcome" && outcome["exit"] as? Int == 130, "\(outcome)")
    #expect(outcome["error"] as? String == "interrupted", "\(outcome)")
    expectAllStopped(host, started: ["HangOnHandle", "UIOneAtATime"], result)
    // A UI extension that had answered its handshake got shutdown and exit; one still starting (a loaded machine)
    // had its start cancelled, which kills it. Either way it is gone, with its end line (checked above).
    let ui = try String(contentsOfFile: host.home + "/Logs/com.example.fixture.UIOneAtATime.log", encoding: .utf8)
    #expect(
      ui.contains("UIOneAtATime exited with status 0") || ui.contains("UIOneAtATime killed by signal 9"), "\(ui)")
  }

  /// `assistant open` with a reader that never reads (a paused pager): SIGTERM still stops the app in order, the
  /// host exits 143 within the drain's 2 s, and the log has its end line.
  @Test func aStalledReaderDoesNotHoldTheHostAfterSIGTERM() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fixture(extensionName: "Polite", appMode: "flood", in: host.directory.file("bundles"))
    #expect(try await host.assistant(["install", app.path]).code == 0)
    let stalled = try FileDescriptor.pipe()  // its read end is held and never read
    defer { stalled.read.close() }
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    let assistant = PackagePaths.executable("assistant")
    let process = try await offThePool { [environment] in
      let devNull = try FileDescriptor.open("/dev/null", O_RDWR)
      defer { devNull.close() }
      return try spawn(
        SpawnOptions(
          executable: assistant, arguments: [assistant, "--home", host.home, "open", "Fixture"],
          environment: environment, standardInput: devNull, standardOutput: stalled.write, standardError: devNull))
    }
    stalled.write.close()
    // Once the app runs, its output has filled the pipe and the relay waits for the reader.
    let log = host.home + "/Logs/com.example.fixture.log"
    try await eventually { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("started, pid") }
    try await Task.sleep(for: .milliseconds(200))
    process.send(SIGTERM)
    let termination = try await waitForExit(process, timeout: .seconds(10))
    #expect(termination == .exited(143))
    let launches = Self.launches(in: host.home)
    #expect(launches.count == 1 && launches.allSatisfy { $0.ended && !isAlive($0.pid) }, "\(launches)")
  }

  /// Signals that arrive while the host starts are never lost: each of 40 SIGTERMs sent 0-10 ms after the start
  /// ends the host with 143. A lost one would leave it waiting for the extension's handshake deadline, then 70. That
  /// deadline is long (60 s) so that the host cannot end by itself before the signal comes: on a loaded machine the
  /// test's own tasks can wait seconds for a thread, so the signal is sent from a thread of its own, started as soon
  /// as the test learns the pid.
  @Test func earlySignalsAreNeverLost() async throws {
    let host = try await fixture("SilentHandshake", ui: nil)
    defer { host.directory.remove() }
    for attempt in 0..<40 {
      let delay = useconds_t.random(in: 0...10_000)
      let result = try await host.assistant(["--deadline", "handshake=60", "run", "Fixture", "Ping", "value=x"]) {
        started in
        detachThread {
          usleep(delay)
          kill(started, SIGTERM)
        }
      }
      #expect(result.code == 143, "attempt \(attempt): \(result)")
    }
    for launch in Self.launches(in: host.home) {
      #expect(launch.ended && !isAlive(launch.pid), "\(launch)")
    }
  }

  /// Control: the log reader sees a launch without its end line, so the checks above can fail.
  @Test func aLaunchWithoutItsEndLineIsSeen() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try FileManager.default.createDirectory(atPath: directory.path + "/Logs", withIntermediateDirectories: true)
    try Data(
      ("--- 2026-01-01T00:00:00Z X started, pid 1\n| --- X exited with status 0\n"
        + "--- host: fault: X exited with status 3 (quoted)\n").utf8
    ).write(to: URL(fileURLWithPath: directory.path + "/Logs/x.log"))
    let launches = Self.launches(in: directory.path)
    #expect(launches.count == 1)
    #expect(launches.first?.ended == false)
    // And output after an end line.
    try Data("--- T X started, pid 2\n--- X exited with status 0\nlate words\n--- host: note\n".utf8)
      .write(to: URL(fileURLWithPath: directory.path + "/Logs/x.log"))
    #expect(Self.launches(in: directory.path).first?.writtenAfterEnd == true)
  }

  /// An extension that writes much to stderr and exits at once: all of it is in the log before the end line.
  @Test func theEndLineComesAfterEverythingTheChildWrote() async throws {
    let host = try await fixture("StderrBurstThenExit", ui: nil)
    defer { host.directory.remove() }
    let result = try await host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(result.code == 70, "\(result)")
    expectAllStopped(host, started: ["StderrBurstThenExit"], result)
    let log = try String(
      contentsOfFile: host.home + "/Logs/com.example.fixture.StderrBurstThenExit.log", encoding: .utf8)
    #expect(log.contains("the last line of the burst"), "the burst was cut: \(log.suffix(300))")
  }
}
