import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// Where `--record FILE` and `replay --update FILE` write, and what `replay FILE` reads: a device or a FIFO is written
/// into, never replaced; a link's target is replaced and the link kept; a regular file keeps its mode; a path that
/// cannot take a transcript is refused (73) before anything runs; a FILE that is not a transcript is refused (66, 65)
/// before anything runs.
@Suite(.serialized, .tags(.endToEnd))
struct TranscriptFileEndToEndTests {
  static let booking = ["run", "Rooms", "BookRoom", "roomNumber=12", "bookedBy=Ada"]

  /// Whether room `number` is free, asked through the app: the control that nothing ran.
  static func isFree(_ host: HostFixture, _ number: Int) async throws -> Bool {
    let shown = try await host.assistant(["open", "Rooms", "--", "show", "\(number)"])
    return shown.stdout == "Room \(number) is free.\n"
  }

  static func kind(_ path: String) -> FileKind? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return FileKind(mode: info.st_mode)
  }

  /// A character device: a null device made in the test's folder (root may `mknod`), else /dev/null itself (which
  /// an ordinary user cannot replace anyway). The transcript is discarded, the device stays a device, exit 0.
  @Test func aCharacterDeviceIsWrittenIntoAndStaysADevice() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    var device = host.directory.file("null").path
    // Device 1:3 (makedev(1, 3) on Linux: the minor in the low byte), the null device.
    if mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) != 0 { device = "/dev/null" }
    #expect(Self.kind(device) == .characterDevice)
    let result = try await host.assistant(Self.booking + ["--record", device])
    #expect(result.code == 0, "\(result)")
    #expect(Self.kind(device) == .characterDevice, "\(device) was replaced")
    // The control: the run happened, and the same run recorded to a file writes a transcript.
    #expect(try await !Self.isFree(host, 12))
  }

  /// A FIFO receives the transcript through its reader, and stays a FIFO. The test holds the FIFO open read-write
  /// (a reader, so the host's check passes, and a writer, so nothing waits): the transcript, far smaller than a pipe's
  /// buffer, is there to read once the host has exited.
  @Test func aFIFOReceivesTheTranscript() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let fifo = host.directory.file("pipe").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = try FileDescriptor.open(fifo, O_RDWR | O_NONBLOCK)
    defer { reader.close() }
    let result = try await host.assistant(Self.booking + ["--record", fifo])
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(reader.rawValue, &buffer, buffer.count)
      guard count > 0 else { break }
      bytes += buffer[..<count]
    }
    let received = String(decoding: bytes, as: UTF8.self)
    #expect(result.code == 0, "\(result)")
    #expect(received.hasPrefix(#"{"app":"Rooms","command":"run""#), "\(received)")
    #expect(received.contains(#""exit":0"#), "\(received)")
    #expect(Self.kind(fifo) == .fifo)
  }

  /// A symbolic link: the transcript goes to its target, which keeps its mode (0600); the link stays a link. Both
  /// `--record` and `replay --update` write that way.
  @Test func aLinkedFileIsWrittenThroughTheLinkAndKeepsItsMode() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let golden = host.directory.file("golden")
    try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
    let target = golden.appendingPathComponent("booking.jsonl").path
    #expect(FileManager.default.createFile(atPath: target, contents: Data("old\n".utf8)))
    #expect(chmod(target, 0o600) == 0)
    let link = host.directory.file("booking.jsonl").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "golden/booking.jsonl")

    let recorded = try await host.assistant(Self.booking + ["--record", link])
    #expect(recorded.code == 0, "\(recorded)")
    #expect(Self.kind(link) == .symbolicLink, "the link was replaced")
    let text = try String(contentsOfFile: target, encoding: .utf8)
    #expect(text.hasPrefix(#"{"app":"Rooms","command":"run""#), "\(text)")
    var info = stat()
    #expect(
      stat(target, &info) == 0 && info.st_mode & 0o7777 == 0o600, "mode \(String(info.st_mode & 0o7777, radix: 8))")

    let updated = try await host.assistant(["replay", link, "--update"])
    #expect(updated.code == 0, "\(updated)")
    #expect(Self.kind(link) == .symbolicLink, "replay --update replaced the link")
    #expect(try String(contentsOfFile: target, encoding: .utf8) != text, "the target was not updated")
    #expect(stat(target, &info) == 0 && info.st_mode & 0o7777 == 0o600)
    // No temporary file is left beside the target.
    #expect(try FileManager.default.contentsOfDirectory(atPath: golden.path) == ["booking.jsonl"])
  }

  /// A path that cannot take a transcript is refused with 73 and one line naming it, why and the fix, before the
  /// intent runs: room 12 stays free. The control: the same run with a good path books it.
  @Test func aBadRecordPathIsRefusedBeforeAnythingRuns() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let folder = host.directory.path
    let socketPath = host.directory.file("socket").path
    let socket = try Self.bindSocket(socketPath)
    defer { close(socket) }
    let fifo = host.directory.file("unread").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let file = host.directory.file("old.jsonl").path
    #expect(FileManager.default.createFile(atPath: file, contents: Data()))
    let cases: [(String, String)] = [
      (
        "\(folder)/missing/run.jsonl",
        "cannot record to \(folder)/missing/run.jsonl: the folder \(folder)/missing does not exist; create it or "
          + "record elsewhere"
      ),
      (folder, "cannot record to \(folder): it is a directory; give a file name inside it, e.g. \(folder)/run.jsonl"),
      ("", "cannot record to \"\": the file name is empty; give a file name"),
      (
        socketPath,
        "cannot record to \(socketPath): it is a socket; record to a regular file, a FIFO or a character device"
      ),
      // A FIFO nobody reads would make the run wait for a reader at its end: refused before it runs.
      (fifo, "cannot record to \(fifo): it is a FIFO nobody reads; start its reader first (e.g. cat \(fifo) &)"),
      (
        file + "/",
        "cannot record to \(file)/: it ends with / but \(file) is not a folder; drop the trailing /"
      ),
    ]
    for (path, message) in cases {
      let result = try await host.assistant(Self.booking + ["--record", path])
      #expect(result.code == 73, "\(result)")
      #expect(result.stderr == "assistant: \(message)\n", "\(result)")
      #expect(try await Self.isFree(host, 12), "the intent ran before \(path) was refused")
    }
    #expect(Self.kind(socketPath) == .socket)
    let good = try await host.assistant(Self.booking + ["--record", host.directory.file("run.jsonl").path])
    #expect(good.code == 0, "\(good)")
    #expect(try await !Self.isFree(host, 12))
  }

  /// A listening Unix socket at `path`.
  static func bindSocket(_ path: String) throws -> Int32 {
    let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    try #require(bound == 0)
    return fd
  }

  /// `replay FILE` reads a regular file only: a directory, a device, a FIFO without a writer (which must not hang
  /// the open), a loop of links and a missing file are 66, each one line; a file over 16 MiB is 65.
  @Test func replayReadsOnlyARegularFile() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let folder = host.directory.path
    let fifo = host.directory.file("pipe").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let loop = host.directory.file("loop").path
    try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: "loop")
    let cases: [(String, Int32, String)] = [
      (folder, 66, "\(folder) is not a regular file (it is a directory); give a transcript written by --record"),
      (
        "/dev/zero", 66,
        "/dev/zero is not a regular file (it is a character device); give a transcript written by --record"
      ),
      (fifo, 66, "\(fifo) is not a regular file (it is a FIFO); give a transcript written by --record"),
      (loop, 66, "\(loop) is a loop of symbolic links; give a transcript written by --record"),
      ("\(folder)/none.jsonl", 66, "\(folder)/none.jsonl does not exist; give a transcript written by --record"),
    ]
    for (path, status, message) in cases {
      let result = try await host.assistant(["replay", path])
      #expect(result.code == status && !result.timedOut, "\(result)")
      #expect(result.stderr == "assistant: \(message)\n", "\(result)")
    }
    // A sparse file of 17 MiB: refused by its size, before it is read.
    let large = host.directory.file("large.jsonl").path
    let fd = try FileDescriptor.open(large, O_WRONLY | O_CREAT)
    #expect(ftruncate(fd.rawValue, 17 << 20) == 0)
    fd.close()
    let result = try await host.assistant(["replay", large])
    #expect(result.code == 65, "\(result)")
    #expect(result.stderr == "assistant: \(large) is 17 MiB; a transcript is at most 16 MiB\n", "\(result)")
  }

  /// A line that does not parse says so ("is not valid JSON", with the parser's reason: nested too deep), apart from
  /// one that parses to something other than an object.
  @Test func aLineThatIsNotJSONIsToldFromOneThatIsNotAnObject() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let deep = host.directory.file("deep.jsonl")
    try Data((String(repeating: "[", count: 2000) + "\n").utf8).write(to: deep)
    let parsed = try await host.assistant(["replay", deep.path])
    #expect(parsed.code == 65, "\(parsed)")
    #expect(parsed.stderr.hasPrefix("assistant: \(deep.path): line 1 is not valid JSON (Too many nested"), "\(parsed)")
    let array = host.directory.file("array.jsonl")
    try Data("[1]\n".utf8).write(to: array)
    let notObject = try await host.assistant(["replay", array.path])
    #expect(notObject.code == 65, "\(notObject)")
    #expect(notObject.stderr.hasPrefix("assistant: \(array.path): line 1 is not a JSON object"), "\(notObject)")
  }

  /// An invocation the command line would refuse is refused (65, naming the field and what it should be) and not
  /// run: room 12 stays free. The control: the valid invocation books it.
  @Test func anInvocationTheCommandLineWouldRefuseIsNotRun() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let valid =
      #"{"app":"Rooms","command":"run","intent":"BookRoom","kind":"invocation","locale":"en_US","values":["roomNumber=12","bookedBy=Ada"]}"#
    func variant(_ from: String, _ to: String) -> String { valid.replacingOccurrences(of: from, with: to) }
    let long = String(repeating: "a", count: 4097)
    let cases: [(String, String)] = [
      (variant(#""command":"run""#, #""command":"book""#), #"the invocation's "command" should be "ask" or "run""#),
      (variant(#""app":"Rooms""#, #""app":7"#), #"the invocation's "app" should be a string"#),
      (variant(#""intent":"BookRoom""#, #""intent":null"#), #"the invocation's "intent" should be a string"#),
      (
        variant(#"["roomNumber=12","bookedBy=Ada"]"#, #"["roomNumber=12",12]"#),
        #""values" should be an array of strings"#
      ),
      (
        variant(#""values":["roomNumber=12","bookedBy=Ada"]"#, #""values":"roomNumber=12""#),
        #""values" should be an array of strings"#
      ),
      (variant(#""locale":"en_US""#, #""locale":"en US; rm -rf""#), #""locale" should be a locale such as en_US"#),
      (variant(#""locale":"en_US""#, #""locale":"""#), #""locale" should be a locale such as en_US"#),
      (variant(#""locale":"en_US""#, #""locale":"en_US","voice":1"#), #""voice" should be true or false"#),
      (variant(#""locale":"en_US""#, #""locale":"en_US","voice":"yes""#), #""voice" should be true or false"#),
      (#"{"command":"ask","kind":"invocation","utterance":12}"#, #""utterance" should be a string"#),
      (
        #"{"command":"ask","kind":"invocation","utterance":"\#(long)"}"#,
        "the utterance is 4097 bytes; an utterance is at most 4096"
      ),
      (valid + "\n" + valid, "line 2 is a second invocation"),
      (#"{"kind":"user","question":"Who?","answer":"Ada"}"# + "\n" + valid, "the first line is not the invocation"),
      (
        valid + "\n" + #"{"kind":"user","question":"Who?","answer":5}"#,
        #"line 2: the user's "answer" should be a string"#
      ),
      // A line with no kind of a transcript's line, or more lines than a run makes, is no transcript.
      (valid + "\n{}", #"line 2 has no "kind" of a transcript's line"#),
      (valid + "\n" + #"{"kind":"sideways"}"#, #"line 2 has no "kind" of a transcript's line"#),
      (valid + String(repeating: "\n" + #"{"kind":"assistant"}"#, count: 10_000), "10001 lines; a transcript has"),
      (variant(#""locale":"en_US""#, #""locale":"\#(String(repeating: "a", count: 65))""#), #""locale" should be"#),
      ("", "the file is empty"),
    ]
    for (index, (text, message)) in cases.enumerated() {
      let file = host.directory.file("bad\(index).jsonl")
      try Data((text + "\n").utf8).write(to: file)
      let result = try await host.assistant(["replay", file.path])
      #expect(result.code == 65, "\(text)\n\(result)")
      #expect(result.stderr.hasPrefix("assistant: \(file.path): ") && result.stderr.contains(message), "\(result)")
      #expect(!result.stderr.contains(long), "the utterance was quoted")
      #expect(try await Self.isFree(host, 12), "\(text) ran")
    }
    let file = host.directory.file("valid.jsonl")
    try Data((valid + "\n").utf8).write(to: file)
    let result = try await host.assistant(["replay", file.path])
    #expect(result.code == 1, "\(result)")  // it differs from a transcript that holds only the invocation
    #expect(try await !Self.isFree(host, 12))
  }

  /// With `--update`, the report still says whether the run replayed clean: `"clean": true` and "updated (it
  /// replayed clean)" for a fresh recording; `"clean": false` with the diff once the behaviour changed.
  @Test func updateReportsCleanTruthfully() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await host.assistant(["open", "Rooms", "--", "book", "21", "--by", "Ada"]).code == 0)
    let transcript = host.directory.file("door.jsonl").path
    #expect(try await host.assistant(["--record", transcript, "Open the door of room 21 with Rooms"]).code == 0)

    let clean = try await host.assistant(["replay", transcript, "--update", "--json"])
    #expect(clean.code == 0, "\(clean)")
    #expect(clean.stdout == #"{"clean":true,"diff":[],"file":"\#(transcript)","updated":true}"# + "\n", "\(clean)")
    let cleanText = try await host.assistant(["replay", transcript, "--update"])
    #expect(cleanText.stdout == "\(transcript): updated (it replayed clean)\n", "\(cleanText)")

    // The room's booking cancelled: the door no longer opens, the replay differs.
    #expect(try await host.assistant(["open", "Rooms", "--", "cancel", "21", "--by", "Ada"]).code == 0)
    let changed = try await host.assistant(["replay", transcript, "--update", "--json"])
    #expect(changed.code == 0, "\(changed)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(changed.stdout.utf8)) as? [String: Any], "\(changed)")
    #expect(report["clean"] as? Bool == false && report["updated"] as? Bool == true, "\(changed)")
    #expect((report["diff"] as? [String])?.contains { $0.hasPrefix("@@ -") } == true, "\(changed)")
    // Updated, it now replays clean.
    let again = try await host.assistant(["replay", transcript])
    #expect(again.code == 0, "\(again)")
  }

  /// The text of `replay --update` counts the changed lines when the run differed.
  @Test func updateCountsTheChangedLines() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let transcript = host.directory.file("booking.jsonl").path
    #expect(try await host.assistant(Self.booking + ["--record", transcript]).code == 0)
    let diff = try await host.assistant(["replay", transcript])
    #expect(diff.code == 1, "\(diff)")
    let changed = diff.stdout.split(separator: "\n").dropFirst(2).filter { $0.hasPrefix("-") || $0.hasPrefix("+") }
    let updated = try await host.assistant(["replay", transcript, "--update"])
    #expect(updated.code == 0, "\(updated)")
    #expect(updated.stdout == "\(transcript): updated (\(changed.count) lines changed)\n", "\(diff)\n\(updated)")
  }
}
