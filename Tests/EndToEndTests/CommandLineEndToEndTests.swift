import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// The command line as a user meets it: every probe of issue 11 through the real binary, with its exit status and
/// the stream its message goes to.
@Suite(.serialized, .tags(.endToEnd))
struct CommandLineEndToEndTests {
  enum Stream: Sendable {
    case stdout, stderr
  }

  /// A probe: the arguments (after `--home HOME`), the exit status, where the message goes and what it says.
  struct Probe: Sendable, CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var stream: Stream
    var says: String

    init(_ arguments: [String], _ status: Int32, _ stream: Stream, _ says: String) {
      self.arguments = arguments
      self.status = status
      self.stream = stream
      self.says = says
    }

    var description: String { "assistant " + arguments.joined(separator: " ") }
  }

  static let probes: [Probe] = [
    Probe(["validate", "MISSING", "--json"], 66, .stdout, "\"errors\""),
    Probe(["defaults", "read", "group.com.example.rooms", "--foo"], 64, .stderr, "unknown option --foo"),
    Probe(["defaults", "list", "--json"], 0, .stdout, "["),
    Probe(["-V"], 64, .stderr, "did you mean \"--version\""),
    Probe(["-q"], 64, .stderr, "unknown option -q"),
    Probe(["help"], 0, .stdout, "USAGE: assistant"),
    Probe(["lst"], 64, .stderr, "did you mean \"list\""),
    Probe(["instal", "X"], 64, .stderr, "did you mean \"install\""),
    Probe(["open", "--help"], 0, .stdout, "USAGE: assistant open"),
    Probe(["--", "Book room 30 for Ada with Rooms"], 0, .stdout, "Room 30 is now booked by Ada."),
    Probe(["run", "Rooms", "BookRoom", "roomNumber=31", "--answer=Ada"], 0, .stdout, "Room 31 is now booked by Ada."),
    Probe(["list", "extra"], 64, .stderr, "unexpected argument \"extra\""),
    Probe(["run", "--help"], 0, .stdout, "USAGE: assistant run [OPTIONS] APP INTENT"),
    Probe(["list", "--help"], 0, .stdout, "USAGE: assistant list"),
    Probe(["help", "defaults", "write"], 0, .stdout, "USAGE: assistant defaults write"),
    Probe(["--json", "Book room 32 with Nobody"], 69, .stdout, "\"error\""),
    Probe(["list", "--json"], 0, .stdout, "\"bundleIdentifier\":\"com.example.rooms\""),
    Probe(["sandbox-profile", "RoomsIntents", "--json"], 0, .stdout, "\"profiles\""),
    Probe(["defaults", "read", "group.com.example.rooms", "nothing", "--json"], 69, .stdout, "\"status\":69"),
    Probe(["run", "Roms", "BookRoom"], 69, .stderr, "did you mean \"Rooms\""),
    Probe(["run", "Rooms", "BookRom"], 69, .stderr, "did you mean \"BookRoom\""),
    Probe(["--jsn", "list"], 64, .stderr, "did you mean \"--json\""),
    Probe(["--version", "--json"], 0, .stdout, "\"version\""),
    // Answered before anything starts, the same wherever the option is.
    Probe(["--version"], 0, .stdout, "assistant (IntentHost) "),
    Probe(["list", "--version"], 0, .stdout, "assistant (IntentHost) "),
    Probe(["--json", "list", "--version"], 0, .stdout, "{\"version\":\""),
    Probe(["install", "/nonexistent/Rooms.app"], 66, .stderr, "does not exist"),
    Probe(["open", "Rooms", "book", "33", "--by", "Ada"], 64, .stderr, "after `--`"),
    Probe(["run", "Rooms", "BookRoom", "roomNumber=35", "roomNumber=36"], 64, .stderr, "roomNumber= is given twice"),
    Probe(["run", "Rooms", "BookRoom", "roomNumbr=35"], 64, .stderr, "did you mean \"roomNumber\""),
    Probe(["Book room 37 for Ada with Roms"], 69, .stderr, "did you mean \"Rooms\""),
    Probe(["Rooms, cancel my reservation"], 69, .stderr, "; closest: \"Cancel a room with Rooms\", "),
    Probe(["Book room 38 for Ada"], 69, .stderr, "; did you mean \"Book room 12 for Ada with Rooms\""),
    Probe(["--deadline", "hadnle=3", "run", "Rooms", "BookRoom"], 64, .stderr, "did you mean \"handle\""),
    Probe(["run"], 64, .stderr, "missing APP and INTENT"),
    Probe(["defaults", "recover", "group.com.example.rooms", "--document", "nope.json"], 69, .stderr, "never written"),
    Probe(["defaults", "help", "write"], 0, .stdout, "USAGE: assistant defaults write"),
    Probe(["sandbox-profile", "Rooms", "--json"], 0, .stdout, "\"deadlines\":null"),
    // Last: it removes Rooms. An app's folder in Applications names it too.
    Probe(["uninstall", "Rooms.app"], 0, .stdout, "Uninstalled Rooms (com.example.rooms)"),
  ]

  @Test func everyProbeEndsAsDocumented() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    for probe in Self.probes {
      let result = try await host.assistant(probe.arguments)
      #expect(result.code == probe.status, "\(probe): \(result)")
      let text = probe.stream == .stdout ? result.stdout : result.stderr
      #expect(text.contains(probe.says), "\(probe): \(result)")
      if probe.status == 64 || probe.status == 69 {
        // The message starts a line of its own on stderr; stdout is empty or one JSON document.
        #expect(result.stderr.hasPrefix("assistant: "), "\(probe): \(result)")
        if !probe.arguments.contains("--json") { #expect(result.stdout.isEmpty, "\(probe): \(result)") }
      }
      if probe.arguments.contains("--json") && probe.stream == .stdout {
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1, "\(probe): one JSON document: \(result)")
        #expect((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) != nil, "\(probe): \(result)")
      }
    }
  }

  /// A second `--answer` that no question used is an error at the end of the run (64), not silently dropped.
  @Test func anUnusedAnswerIsReported() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant(["--answer", "Ada", "--answer", "Grace", "Book room 34 with Rooms"])
    #expect(result.code == 64, "\(result)")
    #expect(result.stderr.contains("was not used"), "\(result)")
    #expect(result.stderr.contains("--answer \"Grace\""), "\(result)")
  }

  /// `defaults watch | head -1` ends when `head` does (141, as SIGPIPE would), without waiting for another change
  /// to write into the closed pipe; with its output in a file it keeps watching until its timeout.
  @Test func aWatchEndsWithItsReader() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let written = try await host.assistant(["defaults", "write", "group.com.example.rooms", "greeting", "Hello"])
    #expect(written.code == 0, "\(written)")
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    let piped = try await runCommand(
      "/bin/bash",
      [
        "-c",
        "\"$1\" --home \"$2\" defaults watch group.com.example.rooms greeting | head -1; echo \"${PIPESTATUS[0]}\"",
        "bash", PackagePaths.executable("assistant"), host.home,
      ], environment: environment, timeout: .seconds(60))
    #expect(!piped.timedOut, "the watch outlived its reader: \(piped)")
    #expect(piped.stdout == "Hello\n141\n", "\(piped)")
    // The control: into a file, nothing ends it but its timeout.
    let filed = try await host.assistant([
      "defaults", "watch", "group.com.example.rooms", "greeting", "--timeout", "0.5",
    ])
    #expect(filed.code == 0, "\(filed)")
    #expect(filed.stdout == "Hello\n", "\(filed)")
  }

  /// An update from a folder of another name replaces the app where it is installed.
  @Test func anUpdateKeepsTheAppsFolder() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    #expect(try await host.assistant(["install", app.path]).code == 0)
    let copy = host.directory.file("bundles/Copy.app")
    try await offThePool { try FileManager.default.copyItem(at: app, to: copy) }
    let updated = try await host.assistant(["install", copy.path])
    #expect(updated.code == 0, "\(updated)")
    #expect(updated.stdout.contains("Applications/Rooms.app"), "\(updated)")
    #expect(FileManager.default.fileExists(atPath: host.home + "/Applications/Rooms.app"))
    #expect(!FileManager.default.fileExists(atPath: host.home + "/Applications/Copy.app"))
  }

  /// Read-only commands on a home that does not exist create nothing; a writing command makes it.
  @Test func readingCommandsCreateNothing() async throws {
    let directory = try TemporaryDirectory("intenthost-nohome")
    defer { directory.remove() }
    let home = directory.file("missing/home").path
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = nil
    for arguments in [
      ["list"], ["list", "--json"], ["sandbox-profile", "Rooms"], ["defaults", "list"],
      ["defaults", "read", "group.com.typo.example"], ["defaults", "read", "group.com.typo.example", "key"],
      ["defaults", "watch", "group.com.typo.example", "--timeout", "0.2"], ["validate", directory.path],
      ["Book room 12 with Rooms"], ["run", "Rooms", "BookRoom"], ["open", "Rooms"], ["uninstall", "Rooms"],
    ] {
      let result = try await runCommand(
        PackagePaths.executable("assistant"), ["--home", home] + arguments, environment: environment)
      #expect(result.code != 0 || arguments.first == "list" || arguments == ["defaults", "list"], "\(arguments)")
      #expect(
        !FileManager.default.fileExists(atPath: directory.file("missing").path),
        "assistant \(arguments.joined(separator: " ")) created \(home): \(result)")
    }
    // An empty --home= is refused, not read as "no --home"; a home that is a file is not "missing".
    let empty = try await runCommand(
      PackagePaths.executable("assistant"), ["--home=", "list"], environment: environment)
    #expect(empty.code == 64 && empty.stderr.contains("--home needs a folder"), "\(empty)")
    let file = directory.file("a file")
    try await offThePool { try Data().write(to: file) }
    let notAFolder = try await runCommand(
      PackagePaths.executable("assistant"), ["--home", file.path, "list"], environment: environment)
    #expect(notAFolder.code == 73 && notAFolder.stderr.contains("is not a folder"), "\(notAFolder)")
    // The control: a command that writes makes the home.
    let written = try await runCommand(
      PackagePaths.executable("assistant"),
      ["--home", home, "defaults", "write", "group.com.typo.example", "key", "value"], environment: environment)
    #expect(written.code == 0, "\(written)")
    #expect(FileManager.default.fileExists(atPath: home + "/AppGroup/group.com.typo.example"))
  }
}
