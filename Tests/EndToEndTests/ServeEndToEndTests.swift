import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// `assistant serve` running in the background of a test, its stdout (the ready line with --json) and stderr in
/// files.
final class ServerUnderTest: Sendable {
  let process: SpawnedProcess
  private let directory: TemporaryDirectory

  private init(process: SpawnedProcess, directory: TemporaryDirectory) {
    self.process = process
    self.directory = directory
  }

  /// Starts `assistant --home HOME serve --json ARGUMENTS` (through `prefix`, e.g. setpriv, when given) and waits
  /// for its ready line.
  static func start(
    home: String, groups: String, _ arguments: [String] = [], prefix: [String] = []
  ) async throws -> ServerUnderTest {
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = groups
    environment["CI"] = nil
    let assistant = PackagePaths.executable("assistant")
    let command = prefix + [assistant, "--home", home, "serve", "--json"] + arguments
    let server = try await offThePool { [environment] in
      let directory = try TemporaryDirectory("intenthost-serve")
      _ = chmod(directory.url.path, 0o755)
      let devNull = try FileDescriptor.open("/dev/null", O_RDWR)
      defer { devNull.close() }
      let out = try FileDescriptor.open(directory.file("out").path, O_WRONLY | O_CREAT | O_TRUNC)
      defer { out.close() }
      let err = try FileDescriptor.open(directory.file("err").path, O_WRONLY | O_CREAT | O_TRUNC)
      defer { err.close() }
      let process = try spawn(
        SpawnOptions(
          executable: command[0], arguments: command, environment: environment, standardInput: devNull,
          standardOutput: out, standardError: err))
      return ServerUnderTest(process: process, directory: directory)
    }
    let ready = try await eventually(timeout: .seconds(60)) { server.stdout.contains("\"socket\"") }
    #expect(ready, "the server never said it was ready: \(server.stderr)")
    return server
  }

  var stdout: String { (try? String(contentsOf: directory.file("out"), encoding: .utf8)) ?? "" }
  var stderr: String { (try? String(contentsOf: directory.file("err"), encoding: .utf8)) ?? "" }

  deinit { directory.remove() }

  /// Waits for the server's end (killing it after `timeout`); its output stays readable.
  func finish(timeout: Duration = .seconds(60)) async throws -> Termination {
    try await waitForExit(process, timeout: timeout)
  }
}

/// What `assistant serve --status --json` says.
struct ServedStatus: Decodable {
  struct Kept: Decodable {
    var bundleIdentifier: String
    var pid: Int32
    var lent: Bool
    var runs: Int
  }
  var pid: Int32
  var extensions: [Kept]

  func kept(_ bundleIdentifier: String) -> Kept? { extensions.first { $0.bundleIdentifier == bundleIdentifier } }
}

/// `assistant serve`: CLI calls borrow the home's running extensions and give them back; a server that dies or hangs
/// never holds a call; idle, count and memory limits shut extensions down; only the server's own uid is served; each
/// home has its own server.
///
/// Whether a call started an extension is read from its log (`--- ... NAME started, pid N`, a line an extension
/// cannot forge), as for `assistant shell`.
@Suite(.serialized, .tags(.endToEnd))
struct ServeEndToEndTests {
  static let intents = "com.example.rooms.RoomsIntents"

  static func status(_ host: HostFixture) async throws -> ServedStatus {
    let result = try await host.assistant(["serve", "--status", "--json"])
    #expect(result.code == 0, "\(result)")
    return try JSONDecoder().decode(ServedStatus.self, from: Data(result.stdout.utf8))
  }

  /// The version the host checks a server's against (`assistant --version`).
  static func version(_ host: HostFixture) async throws -> String {
    let result = try await host.assistant(["--version"])
    return String(result.stdout.split(separator: " ").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func intentsStarts(_ host: HostFixture) -> Int {
    ShellEndToEndTests.starts(host, intents, name: "RoomsIntents")
  }

  static func socketIsGone(_ host: HostFixture) -> Bool { access(host.home + "/serve.sock", F_OK) != 0 }

  @Test func callsBorrowTheServersExtensionsGiveThemBackAndAReinstallStartsAfresh() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let server = try await ServerUnderTest.start(home: host.home, groups: host.groups)
    // The socket is the user's alone.
    var info = stat()
    #expect(stat(host.home + "/serve.sock", &info) == 0 && info.st_mode & 0o777 == 0o600)

    let book = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(book.code == 0 && book.stdout == ShellEndToEndTests.booked12, "\(book)")
    let cancel = try await host.assistant(["Cancel room 12 for Ada with Rooms"])
    #expect(cancel.code == 0 && cancel.stdout == ShellEndToEndTests.cancelled12, "\(cancel)")
    // One RoomsIntents served both calls, and is kept.
    #expect(Self.intentsStarts(host) == 1, "\(ShellEndToEndTests.roomsIntentsLog(host))")
    let first = try await Self.status(host)
    let kept = try #require(first.kept(Self.intents))
    #expect(kept.runs == 2 && !kept.lent && isAlive(kept.pid))
    #expect(first.kept("com.example.rooms.RoomsUI")?.runs == 2)

    // Control: --no-server starts its own, and the server's is not touched.
    let own = try await host.assistant(["--no-server", "Book room 12 for Ada with Rooms"])
    #expect(own.code == 0 && own.stdout == ShellEndToEndTests.booked12, "\(own)")
    #expect(Self.intentsStarts(host) == 2)
    #expect(try await Self.status(host).kept(Self.intents)?.runs == 2)

    // Installed again: the kept process is not lent again; a new one starts.
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    #expect(try await host.assistant(["install", app.path]).code == 0)
    let after = try await host.assistant(["Cancel room 12 for Ada with Rooms"])
    #expect(after.code == 0 && after.stdout == ShellEndToEndTests.cancelled12, "\(after)")
    #expect(Self.intentsStarts(host) == 3)
    #expect(try await eventually { !isAlive(kept.pid) })
    #expect(try await Self.status(host).kept(Self.intents)?.pid != kept.pid)

    let stop = try await host.assistant(["serve", "--stop", "--json"])
    #expect(stop.code == 0 && stop.stdout == "{\"stopped\":\(first.pid)}\n", "\(stop)")
    #expect(try await server.finish() == .exited(0))
    #expect(Self.socketIsGone(host))
    ShellEndToEndTests().expectAllStopped(host, stop)
    let none = try await host.assistant(["serve", "--status"])
    #expect(none.code == 69 && none.stderr.contains("no server runs for"), "\(none)")
  }

  /// What a launch checks before it runs is checked before a kept extension is lent: the storage budget of its
  /// folders (the same refusal, 77), and that its app group is still the folder it was confined to.
  @Test func aKeptExtensionIsLentOnlyAsALaunchWouldRun() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let server = try await ServerUnderTest.start(home: host.home, groups: host.groups)
    #expect(try await host.assistant(["Book room 12 for Ada with Rooms"]).code == 0)
    let group = host.groups + "/group.com.example.rooms"

    // The group made again (emptied by a user): the kept process is not lent; a new one is confined to the new one.
    try FileManager.default.removeItem(atPath: group)
    let again = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(again.code == 0 && again.stdout == ShellEndToEndTests.booked12, "\(again)")
    #expect(server.stderr.contains("its container or an app group was made again"), "\(server.stderr)")
    #expect(Self.intentsStarts(host) == 2)

    // Over the budget: refused as a launch is, with and without the server.
    #expect(try await host.assistant(["storage", "set", "1,50"]).code == 0)
    let junk = group + "/Library/junk"
    try FileManager.default.createDirectory(atPath: junk, withIntermediateDirectories: true)
    for index in 0..<60 { _ = FileManager.default.createFile(atPath: "\(junk)/\(index)", contents: Data()) }
    let own = try await host.assistant(["--no-server", "Cancel room 12 for Ada with Rooms"])
    let served = try await host.assistant(["Cancel room 12 for Ada with Rooms"])
    #expect(own.code == 77 && own.stderr.contains("over its storage budget"), "\(own)")
    #expect(served.code == 77 && served.stderr == own.stderr, "\(served)\n\(own)")
    // Control: under the budget again, the kept extension serves.
    try FileManager.default.removeItem(atPath: junk)
    let cancel = try await host.assistant(["Cancel room 12 for Ada with Rooms"])
    #expect(cancel.code == 0 && cancel.stdout == ShellEndToEndTests.cancelled12, "\(cancel)")
    #expect(Self.intentsStarts(host) == 2)  // the refused calls started nothing; the kept one served

    #expect(try await host.assistant(["serve", "--stop"]).code == 0)
    #expect(try await server.finish() == .exited(0))
  }

  @Test func aKilledServerIsPassedOverOnceAndItsSocketRemoved() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let server = try await ServerUnderTest.start(home: host.home, groups: host.groups)
    #expect(try await host.assistant(["Book room 12 for Ada with Rooms"]).code == 0)
    let kept = try #require(try await Self.status(host).kept(Self.intents))
    kill(server.process.pid, SIGKILL)
    #expect(try await server.finish() == .signalled(SIGKILL))
    // Its extensions died with it.
    #expect(try await eventually { !isAlive(kept.pid) })

    let call = try await host.assistant(["Cancel room 12 for Ada with Rooms"])
    #expect(call.code == 0 && call.stdout == ShellEndToEndTests.cancelled12, "\(call)")
    let said = "had stopped without removing its socket"
    #expect(call.stderr.components(separatedBy: said).count == 2, "said once: \(call)")
    #expect(Self.socketIsGone(host))
    let next = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(next.code == 0 && !next.stderr.contains("server"), "\(next)")
  }

  @Test func aHungServerNeverHoldsACall() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let server = try await ServerUnderTest.start(home: host.home, groups: host.groups)
    kill(server.process.pid, SIGSTOP)
    let call = try await host.assistant(["Book room 12 for Ada with Rooms"])
    kill(server.process.pid, SIGCONT)
    #expect(call.code == 0 && call.stdout == ShellEndToEndTests.booked12, "\(call)")
    #expect(call.stderr.contains("not using the server of \(host.home): it did not answer within 2 s"), "\(call)")
    #expect(call.stderr.components(separatedBy: "not using the server").count == 2, "said once: \(call)")
    #expect(try await host.assistant(["serve", "--stop"]).code == 0)
    #expect(try await server.finish() == .exited(0))
  }

  @Test func idleExtensionsAreShutDownAndTheServerEndsWithNothingKept() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let server = try await ServerUnderTest.start(
      home: host.home, groups: host.groups, ["--idle", "0.3", "--exit-after", "5"])
    #expect(try await host.assistant(["Book room 12 for Ada with Rooms"]).code == 0)
    #expect(try await server.finish() == .exited(0))
    let stderr = server.stderr
    #expect(stderr.contains("shut down RoomsIntents (pid "), "\(stderr)")
    #expect(stderr.contains("): idle for 0.3 s"), "\(stderr)")
    #expect(stderr.contains("stopping: no extension kept for 5 s"), "\(stderr)")
    let log = ShellEndToEndTests.roomsIntentsLog(host)
    #expect(log.contains("\n--- host: idle for 0.3 s: shut down by assistant serve"), "\(log)")
    #expect(!log.contains("--- host: --- host:"), "\(log)")
    #expect(Self.socketIsGone(host))
    ShellEndToEndTests().expectAllStopped(host, CommandResult(status: .exited(0), stdout: "", stderr: stderr, pid: 0))
  }

  @Test(arguments: [
    (["--memory-budget", "1"], 0, "over the budget of 1 MiB"), (["--max-extensions", "1"], 1, "more than 1 kept"),
  ])
  func theLimitsShutDownTheExtensionsIdleLongest(arguments: [String], kept: Int, reason: String) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let server = try await ServerUnderTest.start(home: host.home, groups: host.groups, arguments)
    #expect(try await host.assistant(["Book room 12 for Ada with Rooms"]).code == 0)
    #expect(try await eventually { try await Self.status(host).extensions.count == kept })
    #expect(server.stderr.contains(reason), "\(server.stderr)")
    #expect(try await host.assistant(["serve", "--stop"]).code == 0)
    #expect(try await server.finish() == .exited(0))
  }

  @Test(.enabled(if: getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0, "needs root and setpriv"))
  func onlyTheServersOwnUserIsServed() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    // A home of uid 65534, served by a server running as 65534.
    for path in [host.directory.url.path, host.home] {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      #expect(chown(path, 65534, 65534) == 0)
    }
    let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    let server = try await ServerUnderTest.start(home: host.home, groups: host.groups, prefix: nobody)
    // A call of root's talks to no listener but its own user's (the kernel's record of who listens).
    let root = try await host.assistant(["serve", "--status"])
    #expect(
      root.code == 69 && root.stderr.contains("its socket is served by uid 65534, not by this user (uid 0)"),
      "\(root)")
    // Root may open any socket, whatever its mode: the server refuses it by the kernel's record of its uid.
    let raw = try await runCommand(
      "/usr/bin/python3",
      [
        "-c",
        """
        import json, socket, struct, sys
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
        body = json.dumps({"version": sys.argv[2], "status": True}).encode()
        s.sendall(struct.pack(">I", len(body)) + body)
        size = struct.unpack(">I", s.recv(4, socket.MSG_WAITALL))[0]
        print(s.recv(size, socket.MSG_WAITALL).decode())
        """,
        host.home + "/serve.sock", try await Self.version(host),
      ])
    #expect(raw.code == 0 && raw.stdout.contains("it serves uid 65534 only"), "\(raw)")
    #expect(!raw.stdout.contains("\"status\""), "\(raw)")
    #expect(server.stderr.contains("refused a connection from uid 0"), "\(server.stderr)")
    // Control: its own user is served.
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    let own = try await runCommand(
      nobody[0],
      Array(nobody.dropFirst()) + [PackagePaths.executable("assistant"), "--home", host.home, "serve", "--stop"],
      environment: environment)
    #expect(own.code == 0 && own.stdout.hasPrefix("stopped the server of"), "\(own)")
    #expect(try await server.finish() == .exited(0))
  }

  @Test func eachHomeHasItsOwnServer() async throws {
    let first = try HostFixture()
    defer { first.directory.remove() }
    let second = try HostFixture()
    defer { second.directory.remove() }
    try await first.installRooms()
    try await second.installRooms()
    let one = try await ServerUnderTest.start(home: first.home, groups: first.groups)
    let two = try await ServerUnderTest.start(home: second.home, groups: second.groups)
    // A second server for the same home is refused.
    let again = try await first.assistant(["serve"])
    #expect(again.code == 73 && again.stderr.contains("a server already serves \(first.home)"), "\(again)")

    #expect(try await first.assistant(["Book room 12 for Ada with Rooms"]).code == 0)
    #expect(try await Self.status(first).kept(Self.intents)?.runs == 1)
    #expect(try await Self.status(second).extensions.isEmpty)
    #expect(try await second.assistant(["Book room 12 for Ada with Rooms"]).code == 0)
    #expect(try await Self.status(second).kept(Self.intents)?.runs == 1)
    #expect(try await Self.status(first).kept(Self.intents)?.runs == 1)

    // The second home's socket made a link to the first's: the first server serves only its own home, and its
    // kept extension is not touched.
    let link = second.home + "/serve.sock"
    try FileManager.default.removeItem(atPath: link)
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: first.home + "/serve.sock")
    let linked = try await second.assistant(["Book room 14 for Ada with Rooms"])
    #expect(linked.code == 0 && linked.stderr.contains("it serves another home, \(first.home)"), "\(linked)")
    let stopLinked = try await second.assistant(["serve", "--stop"])
    #expect(stopLinked.code == 69, "\(stopLinked)")
    #expect(try await Self.status(first).kept(Self.intents)?.runs == 1)
    try FileManager.default.removeItem(atPath: link)

    #expect(try await first.assistant(["serve", "--stop"]).code == 0)
    #expect(try await one.finish() == .exited(0))
    // The second server lost its socket (the link replaced it): it is still stopped by its lock's pid.
    kill(two.process.pid, SIGTERM)
    #expect(try await two.finish() == .exited(128 + SIGTERM))
  }
}
