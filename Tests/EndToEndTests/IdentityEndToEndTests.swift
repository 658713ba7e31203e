import AssistantHost
@_spi(Testing) import BundleManifest
import Foundation
import TestSupport
import Testing

/// The names and identities of a bundle, through the real host: a name that would be a path is refused where it is
/// parsed; another team's bundle cannot take Rooms' identifier or group; two apps called Rooms are both kept and
/// never picked by name. Each test has its control, which shows the harm the check stops is real: the same bundle
/// loaded without the name checks (a test-only hook) gives the host a path outside `Containers/`; the impostor
/// planted where the installer refuses to put it runs with Rooms' bookings; the two apps called Rooms run different
/// code. No process of the test outlives it.
@Suite(.serialized, .tags(.endToEnd))
struct IdentityEndToEndTests {
  static let appex = "PlugIns/RoomsIntents.appex"

  /// A copy of the assembled Rooms.app at `directory/folder`, with `change` made to it.
  static func variant(
    of rooms: URL, at folder: String, in directory: URL, _ change: (URL) throws -> Void
  ) throws -> URL {
    let copy = directory.appendingPathComponent(folder)
    try? FileManager.default.removeItem(at: copy)
    try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: rooms, to: copy)
    try change(copy)
    return copy
  }

  /// Gives the app `identifier`, and its two extensions that identifier plus their names.
  static func identify(_ app: URL, as identifier: String, extensions: String? = nil) throws {
    try ValidationTests.edit(app.appendingPathComponent("Info.plist")) { $0["CFBundleIdentifier"] = identifier }
    for name in ["RoomsIntents", "RoomsUI"] {
      try ValidationTests.edit(app.appendingPathComponent("PlugIns/\(name).appex/Info.plist")) {
        $0["CFBundleIdentifier"] = "\(extensions ?? identifier).\(name)"
      }
    }
  }

  static func survivors(_ host: HostFixture) -> [pid_t] {
    ["rooms", "RoomsIntents", "RoomsUI"].flatMap { livingProcesses(named: $0, under: host.directory.path) }
  }

  /// Every file and folder under `directory`, relative, but for the bundles the test builds.
  static func tree(_ directory: URL) -> [String] {
    ((try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []).filter {
      !$0.hasPrefix("bundles")
    }.sorted()
  }

  /// What the host's own code makes of a name: `actual` is what it computes, `expected` the harm.
  struct Harm: Sendable {
    var what: String
    var actual: String
    var expected: String
  }

  /// What the host's own code would do with a bundle loaded without the name checks: `(bundle, home, test folder)`.
  /// Runs off the cooperative pool (it makes folders); the test checks what it returns.
  typealias Control = @Sendable (AppBundle, AssistantHome, URL) throws -> [Harm]

  struct Hostile: Sendable, CustomTestStringConvertible {
    var name: String
    var rule: String
    /// The file the diagnostic names, relative to the bundle, and its key.
    var file: String
    var keyPath: String
    var change: @Sendable (URL) throws -> Void
    var control: Control
    var testDescription: String { name }
  }

  /// The path `url` stands for, `..` and symbolic links resolved.
  static func resolved(_ url: URL) -> String { url.standardizedFileURL.resolvingSymlinksInPath().path }

  static let hostile: [Hostile] = [
    Hostile(
      name: "id ..", rule: "bundle-id-syntax", file: "Info.plist", keyPath: "CFBundleIdentifier",
      change: { try identify($0, as: "..") },
      control: { app, home, _ in
        // Its container would be the home itself (State/identities.json, every app's bundle and container). (The
        // host's container(for:) refuses such a name too, a second layer; this is the path a name becomes.)
        let container = home.containers.appendingPathComponent(app.info.bundleIdentifier)
        return [Harm(what: "container", actual: resolved(container), expected: resolved(home.root))]
      }),
    Hostile(
      name: "id ../../x", rule: "bundle-id-syntax", file: "Info.plist", keyPath: "CFBundleIdentifier",
      change: { try identify($0, as: "../../x") },
      control: { app, home, directory in
        // A folder beside the home, which the host would make, chown and log beside.
        let container = home.containers.appendingPathComponent(app.info.bundleIdentifier)
        return [
          Harm(
            what: "container", actual: resolved(container), expected: resolved(directory.appendingPathComponent("x"))),
          Harm(
            what: "log", actual: resolved(home.logFile(for: app.info.bundleIdentifier)),
            expected: resolved(directory.appendingPathComponent("x.log"))),
        ]
      }),
    Hostile(
      name: "id a/b", rule: "bundle-id-syntax", file: "Info.plist", keyPath: "CFBundleIdentifier",
      change: { try identify($0, as: "com.example/rooms") },
      control: { app, home, _ in
        // Inside the container of another app (one whose identifier is com.example).
        [
          Harm(
            what: "container", actual: resolved(home.containers.appendingPathComponent(app.info.bundleIdentifier)),
            expected: resolved(home.containers.appendingPathComponent("com.example").appendingPathComponent("rooms")))
        ]
      }),
    Hostile(
      name: "empty id", rule: "bundle-id-missing", file: "Info.plist", keyPath: "CFBundleIdentifier",
      change: { try ValidationTests.edit($0.appendingPathComponent("Info.plist")) { $0["CFBundleIdentifier"] = "" } },
      control: { app, home, _ in
        // Every container at once, and a log called ".log".
        [
          Harm(
            what: "container", actual: resolved(home.containers.appendingPathComponent(app.info.bundleIdentifier)),
            expected: resolved(home.containers)),
          Harm(what: "log", actual: home.logFile(for: app.info.bundleIdentifier).lastPathComponent, expected: ".log"),
        ]
      }),
    Hostile(
      name: "long id", rule: "bundle-id-syntax", file: "Info.plist", keyPath: "CFBundleIdentifier",
      change: { try identify($0, as: String(repeating: "a.", count: 2000) + "b") },
      control: { app, home, _ in
        // Not even a file name (longer than NAME_MAX): every launch would fail on it.
        let fits = app.info.bundleIdentifier.utf8.count <= Int(NAME_MAX)
        return [Harm(what: "fits in a file name", actual: "\(fits)", expected: "false")]
      }),
    Hostile(
      name: "lookalike id", rule: "bundle-id-syntax", file: "Info.plist", keyPath: "CFBundleIdentifier",
      change: { try identify($0, as: "com.ex\u{430}mple.rooms") },
      control: { app, _, _ in
        // Printed like Rooms' identifier, and another one: `assistant list` would show two "com.example.rooms".
        let identifier = app.info.bundleIdentifier
        return [
          Harm(what: "is Rooms' id", actual: "\(identifier == "com.example.rooms")", expected: "false"),
          Harm(
            what: "looks like Rooms' id", actual: identifier.replacingOccurrences(of: "\u{430}", with: "a"),
            expected: "com.example.rooms"),
        ]
      }),
    Hostile(
      name: "extension id of another app", rule: "bundle-id-prefix", file: "\(appex)/Info.plist",
      keyPath: "CFBundleIdentifier",
      change: { try identify($0, as: "com.example", extensions: "com.example.rooms") },
      control: { app, home, _ in
        // App com.example's extension would have Rooms' extension's private container.
        let ext = try #require(app.extensions.first { $0.name == "RoomsIntents" })
        return [
          Harm(
            what: "extension container", actual: resolved(try home.container(for: ext.info.bundleIdentifier)),
            expected: resolved(home.containers.appendingPathComponent("com.example.rooms.RoomsIntents")))
        ]
      }),
    Hostile(
      name: "executable path", rule: "executable-name", file: "\(appex)/Info.plist", keyPath: "CFBundleExecutable",
      change: {
        try ValidationTests.edit($0.appendingPathComponent("\(appex)/Info.plist")) {
          $0["CFBundleExecutable"] = "../../../../../../../../bin/sh"
        }
      },
      control: { app, _, _ in
        // The extension the host would launch (and grant execute on) is the system's shell.
        let ext = try #require(app.extensions.first { $0.name == "RoomsIntents" })
        return [
          Harm(
            what: "executable", actual: resolved(ext.executableURL),
            expected: resolved(URL(fileURLWithPath: "/bin/sh")))
        ]
      }),
    Hostile(
      name: "group path", rule: "app-group-identifier", file: "Rooms.entitlements",
      keyPath: "com.apple.security.application-groups[0]",
      change: {
        try ValidationTests.edit($0.appendingPathComponent("Rooms.entitlements")) {
          $0["com.apple.security.application-groups"] = ["group.com.example/../../x"]
        }
      },
      control: { app, home, directory in
        // A "group" beside the groups folder, which the host would make and grant read and write on.
        let group = try #require(app.entitlements.applicationGroups.first)
        return [
          Harm(
            what: "group container", actual: resolved(home.appGroupsRoot.appendingPathComponent(group)),
            expected: resolved(directory.appendingPathComponent("x")))
        ]
      }),
  ]

  /// Names validated where they are parsed: `validate` and `install` refuse each hostile name with the file, the key
  /// and the rule (exit 65) and nothing is made; planted in Applications/ by hand, the host will not use it either.
  /// The control: the same bundle loaded without the checks (the test-only hook) gives the host's own code a
  /// container, a log, an executable or a group outside its folder, or another app's extension's container.
  @Test(arguments: hostile)
  func aNameThatWouldBeAPathIsRefused(_ hostile: Hostile) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let rooms = try await TestBundles.rooms(in: host.directory.file("bundles/assembled"))
    let bad = try Self.variant(of: rooms, at: "bundles/bad/X.app", in: host.directory.url) { app in
      try ValidationTests.edit(app.appendingPathComponent("Info.plist")) {
        $0["CFBundleDisplayName"] = "X"
        $0["CFBundleName"] = "X"
      }
      try hostile.change(app)
    }
    let before = Self.tree(host.directory.url)
    let file = bad.appendingPathComponent(hostile.file).path

    let validated = try await host.assistant(["--json", "validate", bad.path])
    #expect(validated.code == 65, "\(validated)")
    let report = try JSONDecoder().decode(ValidationTests.Report.self, from: Data(validated.stdout.utf8))
    let diagnostic = try #require(report.diagnostics.first { $0.rule == hostile.rule }, "\(validated)")
    #expect(diagnostic.file == file)
    #expect(diagnostic.keyPath == hostile.keyPath)
    #expect(diagnostic.severity == "error")
    #expect(diagnostic.fix?.isEmpty == false)

    let installed = try await host.assistant(["install", bad.path])
    #expect(installed.code == 65, "\(installed)")
    #expect(installed.stderr.contains("cannot install \(bad.path)"), "\(installed)")
    #expect(installed.stderr.contains("\(file): \(hostile.keyPath): error: "), "\(installed)")
    #expect(installed.stderr.contains("[\(hostile.rule)]"), "\(installed)")
    #expect(installed.stderr.contains("    fix: "), "\(installed)")
    #expect(Self.tree(host.directory.url) == before, "the refused install changed the home or beside it")

    // Planted by hand, it is not used: every command that lists the apps refuses it, and makes nothing.
    let planted = URL(fileURLWithPath: host.home).appendingPathComponent("Applications/X.app")
    try FileManager.default.copyItem(at: bad, to: planted)
    let plantedBefore = Self.tree(host.directory.url)
    let opened = try await host.assistant(["open", "X", "--", "list"])
    #expect(opened.code == 65, "\(opened)")
    #expect(opened.stderr.contains("installed app X.app is invalid, and is not used"), "\(opened)")
    #expect(Self.tree(host.directory.url) == plantedBefore)
    try FileManager.default.removeItem(at: planted)

    // The control: without the checks, the host's own code builds its paths from the name.
    let unchecked = try AppBundle.load(from: bad, checkingNames: false)
    let harms = try await offThePool {
      let home = try AssistantHome(root: host.home, environment: ["ASSISTANT_APP_GROUPS": host.groups])
      return try hostile.control(unchecked, home, host.directory.url)
    }
    #expect(!harms.isEmpty)
    for harm in harms { #expect(harm.actual == harm.expected, "\(harm.what)") }
    #expect(Self.survivors(host).isEmpty)
  }

  /// The lines of `assistant sandbox-profile` that say where an app may write and whom it runs as.
  static func identityLines(_ profile: String) -> [String] {
    profile.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
      $0.contains("/Containers/") || $0.hasPrefix("runs as:")
    }
  }

  /// Identities belong to their owner: a bundle of another team with Rooms' identifier is refused (exit 77, naming
  /// the owner and the fix), and so is one of its own identifier that lists Rooms' group, until the user shares the
  /// group with `--share-group`. The controls: the impostor planted where install refuses to put it gets Rooms'
  /// container, uid and bookings; the spy planted without the user's word reads them.
  @Test func anotherTeamCannotTakeRoomsIdentityOrItsGroup() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let booked = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(booked.code == 0, "\(booked)")
    let rooms = try await TestBundles.rooms(in: host.directory.file("bundles/assembled"))
    let profile = try await host.assistant(["sandbox-profile", "com.example.rooms"])
    #expect(profile.code == 0, "\(profile)")
    let roomsIdentity = Self.identityLines(profile.stdout)
    #expect(roomsIdentity.contains { $0.hasSuffix("/Containers/com.example.rooms") }, "\(profile.stdout)")

    // Rooms' identifier, another team (its entitlements' team identifier).
    let impostor = try Self.variant(of: rooms, at: "bundles/impostor/Rooms.app", in: host.directory.url) { app in
      try ValidationTests.edit(app.appendingPathComponent("Rooms.entitlements")) {
        $0["com.apple.developer.team-identifier"] = "EVILTEAM01"
      }
      try ValidationTests.edit(app.appendingPathComponent("Info.plist")) { $0["CFBundleDisplayName"] = "Impostor" }
    }
    let refused = try await host.assistant(["install", impostor.path])
    #expect(refused.code == 77, "\(refused)")
    #expect(
      refused.stderr.hasPrefix(
        "assistant: cannot install \(impostor.path): the bundle identifier com.example.rooms belongs to team "
          + "com.example (from the bundle identifier), which installed Rooms (com.example.rooms); this bundle is from "
          + "team EVILTEAM01."), "\(refused)")
    #expect(refused.stderr.contains("Fix: give the bundle an identifier of its own"), "\(refused)")
    let list = try await host.assistant(["list"])
    #expect(list.stdout.contains("Rooms (com.example.rooms)\n"), "\(list)")
    #expect(!list.stdout.contains("Impostor"), "\(list)")
    let still = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=13", "bookedBy=Grace"])
    #expect(still.code == 0, "\(still)")

    // Its own identifier, another team, Rooms' group.
    let spy = try Self.variant(of: rooms, at: "bundles/spy/Spy.app", in: host.directory.url) { app in
      try Self.identify(app, as: "com.spy.rooms")
      try ValidationTests.edit(app.appendingPathComponent("Info.plist")) {
        $0["CFBundleDisplayName"] = "Spy"
        $0["INAlternativeAppNames"] = nil
      }
    }
    let spied = try await host.assistant(["install", spy.path])
    #expect(spied.code == 77, "\(spied)")
    #expect(
      spied.stderr.contains(
        "it lists the app group group.com.example.rooms, which belongs to team com.example (from the bundle "
          + "identifier) (used by Rooms (com.example.rooms)); this bundle is from team com.spy (from the bundle "
          + "identifier)"), "\(spied)")
    #expect(
      spied.stderr.contains("`assistant install --share-group group.com.example.rooms \(spy.path)`"), "\(spied)")
    #expect(try await host.assistant(["open", "Spy", "--", "show", "12"]).code == 69)

    // The controls. The spy, planted without the user's word, reads Rooms' bookings.
    let applications = URL(fileURLWithPath: host.home).appendingPathComponent("Applications")
    try FileManager.default.copyItem(at: spy, to: applications.appendingPathComponent("Spy.app"))
    let read = try await host.assistant(["open", "Spy", "--", "show", "12"])
    #expect(read.code == 0, "\(read)")
    #expect(read.stdout.hasPrefix("Room 12 is booked by Ada"), "\(read)")
    try FileManager.default.removeItem(at: applications.appendingPathComponent("Spy.app"))
    // The impostor, planted over Rooms as an install without the check would have, is Rooms to the host: its code
    // runs in Rooms' container, as Rooms' uid, with Rooms' bookings.
    try FileManager.default.removeItem(at: applications.appendingPathComponent("Rooms.app"))
    try FileManager.default.copyItem(at: impostor, to: applications.appendingPathComponent("Rooms.app"))
    let taken = try await host.assistant(["sandbox-profile", "Impostor"])
    #expect(taken.stdout.hasPrefix("Impostor (com.example.rooms): app"), "\(taken)")
    #expect(Self.identityLines(taken.stdout).prefix(roomsIdentity.count) == roomsIdentity[...], "\(taken.stdout)")
    let stolen = try await host.assistant(["open", "Impostor", "--", "show", "12"])
    #expect(stolen.stdout.hasPrefix("Room 12 is booked by Ada"), "\(stolen)")
    try FileManager.default.removeItem(at: applications.appendingPathComponent("Rooms.app"))
    let reinstalled = try await host.assistant(["install", host.directory.file("bundles/Rooms.app").path])
    #expect(reinstalled.code == 0, "\(reinstalled)")

    // The user's word: shared with --share-group, the spy installs and reads the group.
    let shared = try await host.assistant(["install", "--share-group", "group.com.example.rooms", spy.path])
    #expect(shared.code == 0, "\(shared)")
    #expect(shared.stdout.hasPrefix("Installed Spy (com.spy.rooms) in "), "\(shared)")
    let allowed = try await host.assistant(["open", "com.spy.rooms", "--", "show", "13"])
    #expect(allowed.stdout.hasPrefix("Room 13 is booked by Grace"), "\(allowed)")
    let badFlag = try await host.assistant(["install", "--share-group", "group.../x", spy.path])
    #expect(badFlag.code == 64, "\(badFlag)")
    #expect(Self.survivors(host).isEmpty)
  }

  /// Two apps called Rooms are both kept; `open`, `run` and utterances never pick one by that name (exit 69, listing
  /// them by bundle id) and take the bundle id instead. The control: the two are different code with different
  /// data, so a silent pick runs the wrong one.
  @Test func twoAppsCalledRoomsAreBothKeptAndNeitherIsPicked() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let rooms = try await TestBundles.rooms(in: host.directory.file("bundles/assembled"))
    let shadow = try Self.variant(of: rooms, at: "bundles/shadow/Rooms.app", in: host.directory.url) { app in
      try Self.identify(app, as: "com.shadow.rooms")
      for entitlements in ["Rooms.entitlements", "\(Self.appex)/RoomsIntents.entitlements"] {
        try ValidationTests.edit(app.appendingPathComponent(entitlements)) {
          $0["com.apple.security.application-groups"] = ["group.com.shadow.rooms"]
        }
      }
    }
    let installed = try await host.assistant(["install", shadow.path])
    #expect(installed.code == 0, "\(installed)")
    #expect(
      installed.stdout == "Installed Rooms (com.shadow.rooms) in \(host.home)/Applications/com.shadow.rooms.app\n",
      "\(installed)")
    let list = try await host.assistant(["list"])
    #expect(list.stdout.contains("Rooms (com.example.rooms)\n"), "\(list)")
    #expect(list.stdout.contains("Rooms (com.shadow.rooms)\n"), "\(list)")

    let candidates =
      "2 installed apps: com.example.rooms (Rooms), com.shadow.rooms (Rooms); use the bundle id instead of the name "
      + "to say which"
    let opened = try await host.assistant(["open", "Rooms", "--", "list"])
    #expect(opened.code == 69, "\(opened)")
    #expect(opened.stderr == "assistant: \"Rooms\" is the name of \(candidates)\n", "\(opened)")
    let ran = try await host.assistant(["run", "Room Booking", "BookRoom", "roomNumber=1", "bookedBy=Ada"])
    #expect(ran.code == 69, "\(ran)")
    #expect(ran.stderr.contains("\"Room Booking\" is the name of \(candidates)"), "\(ran)")
    // An utterance that two apps answer asks which one (issue 13): without a terminal or an answer, 75; never a pick.
    let said = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(said.code == 75, "\(said)")
    #expect(said.stderr.contains("\"Book room 12 for Ada with Rooms\" could mean:"), "\(said)")
    #expect(said.stderr.contains("com.example.rooms") && said.stderr.contains("com.shadow.rooms"), "\(said)")
    let profile = try await host.assistant(["sandbox-profile", "Rooms"])
    #expect(profile.code == 69, "\(profile)")

    // The bundle id says which.
    let byIdentifier = try await host.assistant([
      "run", "com.example.rooms", "BookRoom", "roomNumber=12", "bookedBy=Ada",
    ])
    #expect(byIdentifier.code == 0, "\(byIdentifier)")
    #expect(byIdentifier.stdout.hasPrefix("Room 12 is now booked by Ada."), "\(byIdentifier)")
    let spoken = try await host.assistant(["Book room 14 for Grace with com.example.rooms"])
    #expect(spoken.code == 0, "\(spoken)")
    #expect(spoken.stdout.hasPrefix("Room 14 is now booked by Grace."), "\(spoken)")
    let shown = try await host.assistant(["open", "com.example.rooms", "--", "show", "14"])
    #expect(shown.stdout.hasPrefix("Room 14 is booked by Grace"), "\(shown)")

    // The control: the other "Rooms" is other code with other data (here it cannot even open Rooms' group).
    let other = try await host.assistant(["open", "com.shadow.rooms", "--", "show", "14"])
    #expect(other.code == 77, "\(other)")
    #expect(!other.stdout.contains("Grace"), "\(other)")
    #expect(Self.survivors(host).isEmpty)
  }
}
