import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// The dialog of an utterance, `run` or `shell` on a stdout that cannot take it: the run goes to its end (the
/// booking made, every extension shut down in order), then the host exits 141 when the reader went away (quietly, as
/// SIGPIPE would) or 74 with one line naming stdout for any other failure. A session stops before its next line.
@Suite(.serialized, .tags(.endToEnd))
struct DialogOutputFailureTests {
  /// What `assistant` printed on stderr, and how it ended.
  struct Ended: CustomStringConvertible {
    var termination: Termination
    var stderr: String
    var description: String { "\(termination), stderr: \(stderr.debugDescription)" }
  }

  /// Runs `assistant --home HOME ARGUMENTS` with stdout `output` and stdin `input` (else /dev/null), stderr to a file;
  /// waits for its end.
  func run(
    _ host: HostFixture, _ arguments: [String], output: FileDescriptor, input: FileDescriptor? = nil
  ) async throws -> Ended {
    let process = try await start(host, arguments, output: output, input: input)
    let termination = try await waitForExit(process, timeout: .seconds(60))
    let stderr = try await offThePool { try String(contentsOf: host.directory.file("err"), encoding: .utf8) }
    return Ended(termination: termination, stderr: stderr)
  }

  /// Starts `assistant --home HOME ARGUMENTS` (stderr to the file `err` of the host's folder). The spawn waits for
  /// the exec: it runs off the pool.
  func start(
    _ host: HostFixture, _ arguments: [String], output: FileDescriptor, input: FileDescriptor? = nil
  ) async throws -> SpawnedProcess {
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    environment["CI"] = nil
    let assistant = PackagePaths.executable("assistant")
    let errPath = host.directory.file("err").path
    return try await offThePool { [environment] in
      let devNull = try FileDescriptor.open("/dev/null", O_RDONLY)
      defer { devNull.close() }
      let err = try FileDescriptor.open(errPath, O_WRONLY | O_CREAT | O_TRUNC)
      defer { err.close() }
      return try spawn(
        SpawnOptions(
          executable: assistant, arguments: [assistant, "--home", host.home] + arguments, environment: environment,
          standardInput: input ?? devNull, standardOutput: output, standardError: err))
    }
  }

  /// The rooms the Rooms app says are booked (`assistant open Rooms -- list`), e.g. "Room 250: booked by Ada".
  func bookings(_ host: HostFixture) async throws -> String {
    let listed = try await host.assistant(["open", "Rooms", "--", "list"])
    #expect(listed.code == 0, "\(listed)")
    return listed.stdout
  }

  /// A pipe whose reader is gone before the run starts: the booking is made, both extensions end, and the host
  /// exits 141 with nothing on stderr; for an utterance and for `run`.
  @Test(arguments: [
    ["Book room 250 for Ada with Rooms"], ["run", "Rooms", "BookRoom", "roomNumber=250", "bookedBy=Ada"],
  ])
  func aClosedPipeEnds141AfterTheRun(_ arguments: [String]) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let (read, write) = try FileDescriptor.pipe()
    read.close()
    defer { write.close() }
    let ended = try await run(host, arguments, output: write)
    #expect(ended.termination == .exited(141), "\(ended)")
    #expect(ended.stderr.isEmpty, "\(ended)")
    let launches = ExitPathTests.launches(in: host.home)
    #expect(Set(launches.map(\.name)) == ["RoomsIntents", "RoomsUI"], "\(launches)")
    for launch in launches { #expect(launch.ended && !isAlive(launch.pid), "\(launch)") }
    #expect(try await bookings(host).contains("Room 250: booked by Ada"))
  }

  /// A character device that is always full (1,7, as /dev/full), made in the test's folder; nil when it cannot be
  /// made (only root can: the tests that need it are enabled only there).
  func fullDevice(_ host: HostFixture) -> String? {
    let path = host.directory.file("full").path
    return mknod(path, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0 ? path : nil
  }

  /// A full device: the booking is made, and the host exits 74 with one line naming stdout and the reason; the
  /// control, stdout a file, exits 0.
  @Test(.enabled(if: geteuid() == 0, "only root can make the full device (mknod)"))
  func aFullDeviceEnds74NamingStdout() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let full = try #require(fullDevice(host), "mknod of a full device failed")
    let device = try FileDescriptor.open(full, O_WRONLY)
    defer { device.close() }
    let ended = try await run(host, ["Book room 254 for Ada with Rooms"], output: device)
    #expect(ended.termination == .exited(74), "\(ended)")
    #expect(ended.stderr == "assistant: cannot write to stdout: No space left on device\n", "\(ended)")
    #expect(try await bookings(host).contains("Room 254: booked by Ada"))
    for launch in ExitPathTests.launches(in: host.home) { #expect(launch.ended && !isAlive(launch.pid), "\(launch)") }
    let file = try FileDescriptor.open(host.directory.file("out").path, O_WRONLY | O_CREAT | O_TRUNC)
    defer { file.close() }
    let control = try await run(host, ["Book room 253 for Ada with Rooms"], output: file)
    #expect(control.termination == .exited(0), "\(control)")
  }

  /// A closed stdout (`>&-`) is not /dev/null: the first write fails (EBADF), and the host exits 74 after the run.
  @Test func aClosedStdoutEnds74() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await runCommand(
      "/bin/sh",
      [
        "-c", "exec \"$0\" --home \"$1\" 'Book room 252 for Ada with Rooms' >&-", PackagePaths.executable("assistant"),
        host.home,
      ], environment: ProcessInfo.processInfo.environment.merging(["ASSISTANT_APP_GROUPS": host.groups]) { $1 })
    #expect(result.status == .exited(74), "\(result)")
    #expect(result.stderr == "assistant: cannot write to stdout: Bad file descriptor\n", "\(result)")
    #expect(try await bookings(host).contains("Room 252: booked by Ada"))
  }

  /// `assistant shell` on a full device stops at the first utterance, whose dialog failed: the second line is not
  /// run.
  @Test(.enabled(if: geteuid() == 0, "only root can make the full device (mknod)"))
  func aShellOnAFullDeviceStopsAtTheFirstFailedWrite() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let full = try #require(fullDevice(host), "mknod of a full device failed")
    let device = try FileDescriptor.open(full, O_WRONLY)
    defer { device.close() }
    let script = host.directory.file("in")
    try Data("Book room 244 for Ada with Rooms\nBook room 245 for Ada with Rooms\n".utf8).write(to: script)
    let input = try FileDescriptor.open(script.path, O_RDONLY)
    defer { input.close() }
    let ended = try await run(host, ["shell"], output: device, input: input)
    #expect(ended.termination == .exited(74), "\(ended)")
    #expect(ended.stderr == "assistant: cannot write to stdout: No space left on device\n", "\(ended)")
    let booked = try await bookings(host)
    #expect(booked.contains("Room 244: booked by Ada") && !booked.contains("Room 245:"), "\(booked)")
  }

  /// Reads `fd` up to its first newline (blocking: off the pool).
  func firstLine(_ fd: FileDescriptor) async throws -> String {
    try await offThePool { () throws(SystemError) in
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 1)
      while !bytes.contains(0x0A), try fd.read(into: &chunk) == 1 { bytes.append(chunk[0]) }
      return String(decoding: bytes, as: UTF8.self)
    }
  }

  /// `(echo LINE1; ...; echo LINE2) | assistant shell | head -1`: once the reader of stdout is gone after the first
  /// dialog line, the session ends with 141 before it runs the second line. The second line is sent only once the
  /// first booking's dialog was read (the booking is made before it is said). The control keeps reading: both rooms
  /// are booked and the session ends with 0.
  @Test(arguments: [(["shell"], true), (["shell", "--json"], true), (["shell"], false)])
  func aShellWhoseReaderWentAwayStopsBeforeTheNextLine(_ arguments: [String], readerLeaves: Bool) async throws {
    ignoreBrokenPipeSignal()  // the session may have ended when the second line is sent
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let stdin = try FileDescriptor.pipe()
    let stdout = try FileDescriptor.pipe()
    let process: SpawnedProcess
    do {
      defer {
        stdin.read.close()
        stdout.write.close()
      }
      process = try await start(host, arguments, output: stdout.write, input: stdin.read)
    }
    let readerOpen = !readerLeaves
    defer { if readerOpen { stdout.read.close() } }
    let send = { (line: String) async in
      _ = try? await offThePool { () throws(SystemError) in try stdin.write.writeAll(Array((line + "\n").utf8)) }
    }
    await send("Book room 240 for Ada with Rooms")
    let first = try await firstLine(stdout.read)
    #expect(first.contains("Room 240 is now booked by Ada."), "\(first)")
    if readerLeaves { stdout.read.close() }
    #expect(try await bookings(host).contains("Room 240: booked by Ada"))
    await send("Book room 241 for Ada with Rooms")
    if !readerLeaves {
      var next = ""
      while !next.contains("Room 241") {
        let line = try await firstLine(stdout.read)
        if line.isEmpty { break }  // end of output
        next += line
      }
      #expect(next.contains("Room 241 is now booked by Ada."), "\(next)")
    }
    stdin.write.close()
    let termination = try await waitForExit(process, timeout: .seconds(60))
    #expect(termination == .exited(readerLeaves ? 141 : 0))
    let booked = try await bookings(host)
    #expect(booked.contains("Room 241: booked by Ada") == !readerLeaves, "\(booked)")
    for launch in ExitPathTests.launches(in: host.home) { #expect(launch.ended && !isAlive(launch.pid), "\(launch)") }
  }
}
