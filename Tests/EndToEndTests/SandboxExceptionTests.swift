import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// The sandbox's exceptions from entitlements (docs/SANDBOX.md, "Network" and "Exceptions from entitlements"),
/// through the real host and the HostileExtension fixture: what each entitlement opens, what stays refused with it,
/// and the same attempt without it (or with `--no-sandbox`) as the control.
@Suite(.serialized, .tags(.endToEnd))
struct SandboxExceptionTests {
  typealias Scene = HostileExtensionTests.Scene

  static let client = "com.apple.security.network.client"
  static let server = "com.apple.security.network.server"
  static let readOnly = "com.apple.security.temporary-exception.files.absolute-path.read-only"

  /// Installs Fixture.app whose extension runs `attack`, with `entitlements` as its `.entitlements` file (none when
  /// empty).
  func install(_ scene: Scene, _ attack: String, _ entitlements: [String: Any]) async throws -> CommandResult {
    let app = try TestBundles.fixture(
      extensionName: attack, binary: "HostileExtension", in: scene.host.directory.file("bundles"))
    if !entitlements.isEmpty {
      try writePlist(entitlements, to: app.appendingPathComponent("PlugIns/\(attack).appex/\(attack).entitlements"))
    }
    if let user = scene.user { give(app.path, to: user) }
    return try await scene.assistant(["install", app.path])
  }

  /// Installs `attack` with `entitlements` and asks it to handle Ping with `value`.
  func run(
    _ scene: Scene, _ attack: String, _ value: String, _ entitlements: [String: Any], options: [String] = []
  ) async throws -> CommandResult {
    let installed = try await install(scene, attack, entitlements)
    #expect(installed.code == 0, "\(installed)")
    return try await scene.assistant(options + ["run", "Fixture", "Ping", "value=\(value)"])
  }

  func expectDone(
    _ result: CommandResult, _ text: String = "Got done:", sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(result.code == 0, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stdout.contains(text), "\(result)", sourceLocation: sourceLocation)
  }

  func expectRefused(
    _ result: CommandResult, _ text: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(result.code == 0, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stdout.contains("Got refused: \(text)"), "\(result)", sourceLocation: sourceLocation)
  }

  // MARK: - network.client

  /// With network.client the extension connects to a listener the test holds on 127.0.0.1, which reads what it
  /// sends; without the entitlement the same attempt is refused at `socket` and the listener gets nothing. Also with
  /// the host as an ordinary user (the extension then has the host's uid).
  @Test(arguments: [false, true])
  func networkClientConnectsToTheTestsListener(ordinaryUser: Bool) async throws {
    let scene = try Scene(ordinaryUser: ordinaryUser)
    defer { scene.host.directory.remove() }
    let listener = try Listener(.tcp)
    defer { listener.close() }
    let connected = try await run(scene, "TCPConnect", String(listener.port), [Self.client: true])
    expectDone(connected, "Got done: connected to 127.0.0.1:\(listener.port)")
    #expect(listener.receivedText()?.hasPrefix("hello from a hostile extension") == true)

    let refused = try await run(scene, "TCPConnect", String(listener.port), [:])
    expectRefused(refused, "socket: Permission denied")
    #expect(listener.receivedText() == nil, "the listener got a connection without the entitlement")
  }

  /// UDP needs no connect, which is why network.client allows it and docs/SANDBOX.md says so; without the
  /// entitlement `socket` is refused.
  @Test func networkClientSendsUDP() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let listener = try Listener(.udp)
    defer { listener.close() }
    expectDone(try await run(scene, "UDPSend", String(listener.port), [Self.client: true]))
    #expect(listener.receivedSomething())
    expectRefused(try await run(scene, "UDPSend", String(listener.port), [:]), "socket: Permission denied")
    #expect(!listener.receivedSomething())
  }

  /// network.client does not let it bind or listen (the control: network.server does), nor open a unix-domain
  /// socket to the host's listener (the control: --no-sandbox reaches it).
  @Test(arguments: [false, true])
  func networkClientStillRefusesListeningAndUnixSockets(abstract: Bool) async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    expectRefused(try await run(scene, "Listen", "now", [Self.client: true]), "bind 127.0.0.1: Permission denied")
    expectDone(try await run(scene, "Listen", "now", [Self.server: true]), "Got done: listening on 127.0.0.1:")

    let listener = try Listener(abstract ? .abstractUnix : .pathUnix)
    defer { listener.close() }
    let both = [Self.client: true, Self.server: true]
    expectRefused(try await run(scene, "UnixConnect", listener.unixName, both), "socket: Permission denied")
    #expect(!listener.receivedSomething())
    expectDone(try await run(scene, "UnixConnect", listener.unixName, both, options: ["--no-sandbox"]))
    #expect(listener.receivedSomething())
  }

  // MARK: - network.server

  /// With network.server the extension listens on 127.0.0.1 and the test connects to it and sends a byte, which it
  /// reads; without the entitlement `socket` is refused.
  @Test func networkServerAcceptsTheTestsConnection() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    #expect(try await install(scene, "Listen", [Self.server: true]).code == 0)
    let portFile = scene.container("Listen") + "/listening-port"
    async let running = scene.assistant(["run", "Fixture", "Ping", "value=wait"])
    let listening = try await eventually(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: portFile) }
    var port: UInt16 = 0
    if listening, let text = try? String(contentsOfFile: portFile, encoding: .utf8), let number = UInt16(text) {
      port = number
      #expect(try await offThePool { try connectAndSend("x", to: number) })
    }
    let result = try await running
    #expect(listening, "the extension never listened: \(result)")
    expectDone(result, "Got done: accepted on 127.0.0.1:\(port) and read \"x\"")

    expectRefused(try await run(scene, "Listen", "now", [:]), "socket: Permission denied")
  }

  /// network.server alone does not let it connect out, by `connect` (Landlock) or by a send that connects (TCP Fast
  /// Open, seccomp); with network.client as well, both reach the listener (the control).
  @Test(arguments: ["TCPConnect", "FastOpen"])
  func networkServerAloneRefusesConnectingOut(attack: String) async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let listener = try Listener(.tcp)
    defer { listener.close() }
    let refused = try await run(scene, attack, String(listener.port), [Self.server: true])
    expectRefused(refused, attack == "FastOpen" ? "sendto MSG_FASTOPEN" : "connect 127.0.0.1:\(listener.port)")
    #expect(refused.stdout.contains("Permission denied"), "\(refused)")
    #expect(!listener.receivedSomething())
    expectDone(try await run(scene, attack, String(listener.port), [Self.server: true, Self.client: true]))
    #expect(listener.receivedSomething())
  }

  /// SO_REUSEPORT is refused whatever the entitlements (seccomp): with it an extension running as the host's user
  /// could join the port group of a service that user runs and take a share of its connections. The controls:
  /// SO_REUSEADDR on the same socket works, and SO_REUSEPORT works unconfined.
  @Test func networkServerCannotJoinAReusePortGroup() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let both: [String: Any] = [Self.server: true, Self.client: true]
    let refused = try await run(scene, "ReuseOption", "reuseport", both)
    expectRefused(refused, "setsockopt reuseport: Operation not permitted")
    expectRefused(try await run(scene, "ReuseOption", "reuseport", [Self.server: true]), "setsockopt reuseport")
    expectDone(try await run(scene, "ReuseOption", "reuseaddr", both), "Got done: set reuseaddr")
    expectDone(
      try await run(scene, "ReuseOption", "reuseport", both, options: ["--no-sandbox"]), "Got done: set reuseport")
  }

  /// Below Landlock ABI 4 nothing but Landlock could refuse the connects of a server-only extension: the launch is
  /// refused (exit 77, naming the entitlement and the ABI). The controls: with network.client too, and on this
  /// kernel's own ABI, it runs.
  @Test func networkServerAloneNeedsLandlockABI4() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let old = ["--simulate", "landlock-abi=3"]
    let refused = try await run(scene, "Listen", "now", [Self.server: true], options: old)
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("Listen (com.example.fixture.Listen) cannot be sandboxed"), "\(refused)")
    #expect(refused.stderr.contains("needs Landlock ABI 4"), "\(refused)")
    #expect(refused.stderr.contains("offers ABI 3"), "\(refused)")
    expectDone(try await run(scene, "Listen", "now", [Self.server: true, Self.client: true], options: old))
    expectDone(try await run(scene, "Listen", "now", [Self.server: true]))
  }

  // MARK: - read-only paths

  /// A folder outside the home for the exception's files, in /run (root's, not writable by others, as an exception
  /// needs): mode 0755 (mkdtemp makes 0700), so the app's uid of a root host can enter it.
  struct Outside {
    let directory: TemporaryDirectory
    var granted: String { directory.file("granted").path }
    var sibling: String { directory.file("sibling").path }

    init() throws {
      directory = try TemporaryDirectory("intenthost-exception", under: TemporaryDirectory.systemBase)
      chmod(directory.path, 0o755)
      for folder in [granted, sibling] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        try "readable\n".write(toFile: folder + "/file.txt", atomically: true, encoding: .utf8)
        chmod(folder + "/file.txt", 0o644)
      }
    }
  }

  /// The entitled folder is readable, its sibling is not; the control: without the entitlement neither is, and
  /// unconfined the sibling is. Also with the host as an ordinary user.
  @Test(
    .enabled(if: geteuid() == 0, "only root can make a folder an exception may grant (root's, not in /tmp)"),
    arguments: [false, true])
  func aReadOnlyPathIsReadableAndItsSiblingIsNot(ordinaryUser: Bool) async throws {
    let scene = try Scene(ordinaryUser: ordinaryUser)
    defer { scene.host.directory.remove() }
    let outside = try Outside()
    defer { outside.directory.remove() }
    let entitled: [String: Any] = [Self.readOnly: [outside.granted + "/"]]
    expectDone(try await run(scene, "ReadFile", outside.granted + "/file.txt", entitled), "Got done: read 9 bytes")
    expectRefused(try await run(scene, "ReadFile", outside.sibling + "/file.txt", entitled), "open")
    expectRefused(try await run(scene, "ReadFile", outside.granted + "/file.txt", [:]), "open")
    expectDone(
      try await run(scene, "ReadFile", outside.sibling + "/file.txt", entitled, options: ["--no-sandbox"]),
      "Got done: read 9 bytes")
  }

  /// A file below `/usr/share` (root's on every Linux host, and not one the profile grants anyway, as it does
  /// `/usr/share/zoneinfo`): the first readable by all, in a folder of `/usr/share` readable by all.
  static func fileBelowUsrShare() -> String? {
    let fm = FileManager.default
    let folders = ((try? fm.contentsOfDirectory(atPath: "/usr/share")) ?? []).sorted().filter { $0 != "zoneinfo" }
    for folder in folders.map({ "/usr/share/" + $0 }) {
      for name in ((try? fm.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
        var status = stat()
        let path = folder + "/" + name
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & S_IROTH != 0,
          status.st_uid == 0
        else { continue }
        return path
      }
    }
    return nil
  }

  /// Apple's form of a folder and everything in it, with a trailing `/` (`/usr/share/`, as public projects write
  /// `/usr/bin/`), installs and lets the extension read a file below it; the control: without the entitlement the
  /// same read is refused.
  @Test(.enabled(if: fileBelowUsrShare() != nil, "no file readable by all below /usr/share on this host"))
  func aFolderWithATrailingSlashIsReadWithEverythingInIt() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let file = try #require(Self.fileBelowUsrShare())
    expectDone(try await run(scene, "ReadFile", file, [Self.readOnly: ["/usr/share/"]]), "Got done: read")
    let profile = try await scene.host.assistant(["sandbox-profile", "ReadFile"])
    #expect(
      profile.stdout.contains(
        "    /usr/share (\(Self.readOnly), written /usr/share/): the folder and everything in it\n"), "\(profile)")
    expectRefused(try await run(scene, "ReadFile", file, [:]), "open \(file): Permission denied")
  }

  /// A folder written without a trailing `/` is that folder alone, as Apple reads it: its listing, not what it holds;
  /// with the `/`, its file is read. The control: without the entitlement, not even the listing.
  @Test(.enabled(if: geteuid() == 0, "only root can make a folder an exception may grant (root's, not in /tmp)"))
  func aFolderWithoutATrailingSlashIsItsListingOnly() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let outside = try Outside()
    defer { outside.directory.remove() }
    let file = outside.granted + "/file.txt"
    let folderAlone: [String: Any] = [Self.readOnly: [outside.granted]]
    expectDone(try await run(scene, "ListFolder", outside.granted, folderAlone), "Got done: listed 3 names")
    let profile = try await scene.host.assistant(["sandbox-profile", "ListFolder"])
    #expect(
      profile.stdout.contains(
        "    \(outside.granted) (\(Self.readOnly)): its listing only (written without a trailing /"),
      "\(profile)")
    expectRefused(try await run(scene, "ReadFile", file, folderAlone), "open \(file): Permission denied")
    expectDone(try await run(scene, "ReadFile", file, [Self.readOnly: [outside.granted + "/"]]), "Got done: read 9")
    expectRefused(try await run(scene, "ListFolder", outside.granted, [:]), "opendir \(outside.granted)")
  }

  /// A trailing `/` on a file is refused at install (exit 65), naming the path and the fix; the control: the file
  /// without it installs and is read.
  @Test func aFileWithATrailingSlashIsRefusedWithTheFix() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let refused = try await install(scene, "ReadFile", [Self.readOnly: ["/etc/passwd/"]])
    #expect(refused.code == 65, "\(refused)")
    #expect(
      refused.stderr.contains(
        "\(Self.readOnly)[0]: error: \"/etc/passwd/\" ends with /, which grants a folder and everything in it, but "
          + "/etc/passwd is a file [entitlement-read-only-path]"), "\(refused)")
    #expect(refused.stderr.contains("fix: write \"/etc/passwd\", without the trailing /, to grant that one file"))
    expectDone(try await run(scene, "ReadFile", "/etc/passwd", [Self.readOnly: ["/etc/passwd"]]), "Got done: read")
  }

  /// On an ordinary user's host the extension runs as that user: an exception reaches only root's files, not the
  /// user's own outside the home (a Kerberos ticket in /tmp, a runtime folder). Refused at install: a folder of the
  /// user's, a file of root's in /tmp; the control: the same folder given back to root installs and is read.
  @Test(.enabled(if: geteuid() == 0, "needs root to run the host as an ordinary user"))
  func theUsersOwnFilesAreRefusedOnAnOrdinaryUsersHost() async throws {
    let scene = try Scene(ordinaryUser: true)
    defer { scene.host.directory.remove() }
    let outside = try Outside()
    defer { outside.directory.remove() }
    let user = try #require(scene.user)
    for path in [outside.granted, outside.granted + "/file.txt"] { #expect(chown(path, user, user) == 0) }
    let ticket = "/tmp/intenthost-krb5cc-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try "TICKET\n".write(toFile: ticket, atomically: true, encoding: .utf8)
    defer { unlink(ticket) }
    #expect(chown(ticket, user, user) == 0)
    for (path, reason) in [
      (outside.granted, "belongs to uid \(user), not root"), (ticket, "lies in /tmp, which is writable by others"),
    ] {
      let refused = try await install(scene, "ReadFile", [Self.readOnly: [path]])
      #expect(refused.code == 65, "\(refused)")
      #expect(refused.stderr.contains(reason), "\(refused)")
    }
    for path in [outside.granted, outside.granted + "/file.txt"] { #expect(chown(path, 0, 0) == 0) }
    expectDone(
      try await run(scene, "ReadFile", outside.granted + "/file.txt", [Self.readOnly: [outside.granted + "/"]]),
      "Got done: read 9 bytes")
  }

  /// A link is resolved at install and launch, and its target is what is granted (`link/`: the folder it points to
  /// and everything in it): `sandbox-profile` shows it with the path as written.
  @Test(.enabled(if: geteuid() == 0, "only root can make a folder an exception may grant (root's, not in /tmp)"))
  func aLinkIsGrantedAsItsTarget() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let outside = try Outside()
    defer { outside.directory.remove() }
    let link = outside.directory.file("link").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside.granted)
    let entitled: [String: Any] = [Self.readOnly: [link + "/"]]
    expectDone(try await run(scene, "ReadFile", outside.granted + "/file.txt", entitled), "Got done: read 9 bytes")
    let profile = try await scene.host.assistant(["sandbox-profile", "ReadFile"])
    #expect(profile.code == 0, "\(profile)")
    #expect(
      profile.stdout.contains(
        "    \(outside.granted) (\(Self.readOnly), written \(link)/): the folder and everything in it\n"),
      "\(profile)")
    #expect(profile.stdout.contains("  network: denied"), "\(profile)")
    let json = try await scene.host.assistant(["sandbox-profile", "--json", "ReadFile"])
    let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    let report = (document?["profiles"] as? [[String: Any]])?.first
    #expect((report?["read"] as? [String])?.contains(outside.granted) == true, "\(json)")
    let exceptions = report?["readExceptions"] as? [[String: String]]
    #expect(exceptions == [["entitled": link + "/", "path": outside.granted, "scope": "contents"]], "\(json)")
    #expect(report?["network"] as? [String: Bool] == ["client": false, "server": false], "\(json)")
  }

  /// Each place an exception may not reach is refused at install with the rule named (exit 65); a good path in
  /// the same test installs (the control).
  @Test(
    .enabled(if: geteuid() == 0, "only root can make a folder an exception may grant (root's, not in /tmp)"),
    arguments: [
      "home", "container", "group", "writable", "link to home", "proc", "other owner", "tmp", "homes", "other home",
    ])
  func aForbiddenPathIsRefusedAtInstall(place: String) async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let outside = try Outside()
    defer { outside.directory.remove() }
    let userHome = outside.directory.file("user-home").path
    try FileManager.default.createDirectory(atPath: userHome + "/notes", withIntermediateDirectories: true)
    let otherContainer = scene.host.home + "/Containers/com.example.other"
    try FileManager.default.createDirectory(atPath: otherContainer, withIntermediateDirectories: true)
    let open = outside.directory.file("open").path
    try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
    chmod(open, 0o777)
    try FileManager.default.createSymbolicLink(
      atPath: outside.directory.file("to-home").path, withDestinationPath: userHome)
    if place == "other owner" { chown(outside.sibling, 4321, 4321) }
    // A file of root's in /tmp (sticky, writable by all), as a Kerberos ticket /tmp/krb5cc_UID is the user's.
    let inTmp = "/tmp/intenthost-krb5cc-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try "TICKET\n".write(toFile: inTmp, atomically: true, encoding: .utf8)
    defer { unlink(inTmp) }
    chmod(inTmp, 0o644)
    // Another IntentHost home on this host, whose apps may have this home's uids.
    let otherHome = outside.directory.file("srv/assistant").path
    try FileManager.default.createDirectory(atPath: otherHome + "/State", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: otherHome + "/Containers/com.example.notes", withIntermediateDirectories: true)
    let path: String
    let reason: String
    switch place {
    case "home": (path, reason) = (userHome + "/notes", "is inside the home of the user running assistant ($HOME)")
    case "container": (path, reason) = (otherContainer, "is inside the containers of apps and extensions")
    case "group": (path, reason) = (scene.host.groups + "/group.com.example.other", "is inside the app groups")
    case "writable": (path, reason) = (open, "is writable by others (mode 777)")
    case "link to home": (path, reason) = (outside.directory.file("to-home").path, "resolves to \(userHome), which is")
    case "proc": (path, reason) = ("/proc/self", "/proc")
    case "tmp": (path, reason) = (inTmp, "lies in /tmp, which is writable by others")
    case "homes": (path, reason) = ("/home", "is /home, the users' homes")
    case "other home":
      (path, reason) = (otherHome + "/Containers/com.example.notes", "is inside another IntentHost home (\(otherHome))")
    default: (path, reason) = (outside.sibling, "belongs to uid 4321, not root")
    }
    let environment = ["HOME": userHome]
    let app = try TestBundles.fixture(
      extensionName: "ReadFile", binary: "HostileExtension", in: scene.host.directory.file("bundles"))
    try writePlist(
      [Self.readOnly: [outside.granted, path]],
      to: app.appendingPathComponent("PlugIns/ReadFile.appex/ReadFile.entitlements"))
    let refused = try await scene.host.assistant(["install", app.path], environment: environment)
    #expect(refused.code == 65, "\(refused)")
    #expect(refused.stderr.contains("[entitlement-read-only-path]"), "\(refused)")
    #expect(refused.stderr.contains(reason), "\(refused)")
    #expect(refused.stderr.contains("\(Self.readOnly)[1]"), "\(refused)")
    // `validate` protects the home the environment names (it takes no --home yet): not this scene's containers.
    if place != "container" {
      let validated = try await scene.host.assistant(["validate", app.path], environment: environment)
      #expect(validated.code == 65, "\(validated)")
      #expect(validated.stdout.contains("[entitlement-read-only-path]"), "\(validated)")
    }

    try writePlist(
      [Self.readOnly: [outside.granted]], to: app.appendingPathComponent("PlugIns/ReadFile.appex/ReadFile.entitlements")
    )
    let installed = try await scene.host.assistant(["install", app.path], environment: environment)
    #expect(installed.code == 0, "\(installed)")
  }

  /// A path that does not exist is a warning at install (which goes on) and is skipped at launch.
  @Test(.enabled(if: geteuid() == 0, "only root can make a folder an exception may grant (root's, not in /tmp)"))
  func aMissingPathIsAWarningAndSkipped() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let outside = try Outside()
    defer { outside.directory.remove() }
    let missing = outside.directory.file("not-yet").path
    let installed = try await install(scene, "ReadFile", [Self.readOnly: [missing, outside.granted + "/"]])
    #expect(installed.code == 0, "\(installed)")
    #expect(installed.stderr.contains("[entitlement-read-only-path-missing]"), "\(installed)")
    let result = try await scene.assistant(["run", "Fixture", "Ping", "value=\(outside.granted)/file.txt"])
    expectDone(result, "Got done: read 9 bytes")
  }

  /// Every launch checks again: a granted folder made writable by others since install, or an installed copy whose
  /// entitlements now name another container, is refused (exit 77, the rule named); the control is the same launch
  /// before the change.
  @Test(.enabled(if: geteuid() == 0, "only root can make a folder an exception may grant (root's, not in /tmp)"))
  func aLaunchChecksThePathsAgain() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let outside = try Outside()
    defer { outside.directory.remove() }
    let target = outside.granted + "/file.txt"
    expectDone(
      try await run(scene, "ReadFile", target, [Self.readOnly: [outside.granted + "/"]]), "Got done: read 9 bytes")

    chmod(outside.granted, 0o777)
    let writable = try await scene.assistant(["run", "Fixture", "Ping", "value=\(target)"])
    #expect(writable.code == 77, "\(writable)")
    #expect(writable.stderr.contains("ReadFile (com.example.fixture.ReadFile) cannot be sandboxed"), "\(writable)")
    #expect(writable.stderr.contains("is writable by others (mode 777) [entitlement-read-only-path]"), "\(writable)")
    chmod(outside.granted, 0o755)
    expectDone(try await scene.assistant(["run", "Fixture", "Ping", "value=\(target)"]), "Got done: read 9 bytes")

    let other = scene.host.home + "/Containers/com.example.other"
    try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
    let installed = scene.host.home + "/Applications/Fixture.app/PlugIns/ReadFile.appex/ReadFile.entitlements"
    try writePlist([Self.readOnly: [other]], to: URL(fileURLWithPath: installed))
    let changed = try await scene.assistant(["run", "Fixture", "Ping", "value=\(other)"])
    #expect(changed.code == 77, "\(changed)")
    #expect(changed.stderr.contains("is inside the containers of apps and extensions"), "\(changed)")
    #expect(changed.stderr.contains("[entitlement-read-only-path]"), "\(changed)")
  }

  // MARK: - other keys

  /// Unknown `com.apple.security.` keys and Apple's keys that mean nothing here are warnings naming the key; the
  /// install goes on. The known keys (the control) are not.
  @Test func unknownAndUnsupportedKeysAreWarnings() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let installed = try await install(
      scene, "ReadFile",
      [
        "com.apple.security.made-up": true, "com.apple.security.device.camera": true,
        "com.apple.security.app-sandbox": true, Self.client: true,
      ])
    #expect(installed.code == 0, "\(installed)")
    #expect(installed.stderr.contains("com.apple.security.made-up: warning: is not an entitlement"), "\(installed)")
    #expect(installed.stderr.contains("[entitlement-unknown]"), "\(installed)")
    #expect(installed.stderr.contains("com.apple.security.device.camera: warning: is not supported"), "\(installed)")
    #expect(installed.stderr.contains("[entitlement-unsupported]"), "\(installed)")
    #expect(!installed.stderr.contains("app-sandbox: warning"), "\(installed)")
    #expect(!installed.stderr.contains("network.client: warning"), "\(installed)")
    let profile = try await scene.host.assistant(["sandbox-profile", "ReadFile"])
    #expect(
      profile.stdout.contains("  network: outgoing TCP and UDP to any host and port (\(Self.client))"), "\(profile)")
  }
}

extension Listener {
  /// Accepts a connection, if one is waiting, and returns what it sent (without waiting); nil when none came.
  func receivedText() -> String? {
    let client = accept(fd, nil, nil)
    guard client >= 0 else { return nil }
    defer { Glibc.close(client) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = recv(client, &buffer, buffer.count, Int32(MSG_DONTWAIT))
    return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
  }
}

/// Connects to 127.0.0.1:`port` and sends `text` (blocking: call it off the pool).
func connectAndSend(_ text: String, to port: UInt16) throws -> Bool {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { throw SystemError.current("socket") }
  defer { Glibc.close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = port.bigEndian
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  guard connected == 0 else { throw SystemError.current("connect") }
  let bytes = Array(text.utf8)
  return write(fd, bytes, bytes.count) == bytes.count
}
