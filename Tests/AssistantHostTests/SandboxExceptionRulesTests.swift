import BundleManifest
import Foundation
import IntentHostSystem
import TestSupport
import Testing

@testable import AssistantHost

/// The sandbox's exceptions from entitlements in-process: how the entitlements are read, the form and the file-system
/// rules of the read-only paths (each refusal beside a path that passes, its control), and what a profile hands the
/// spawner.
@Suite(.tags(.process)) struct SandboxExceptionRulesTests {
  static let readOnly = Entitlements.readOnlyPathsKey

  func entitlements(_ values: [String: Any]) throws -> Entitlements {
    try Entitlements(PlistDictionary(values: values, file: "X.entitlements"))
  }

  // MARK: - Reading the entitlements

  @Test func theSandboxKeysAreRead() throws {
    let read = try entitlements([
      Entitlements.networkClientKey: true, Entitlements.networkServerKey: "YES", Self.readOnly: ["/usr/share/dict"],
      Entitlements.appSandboxKey: true, Entitlements.applicationGroupsKey: ["group.com.example.app"],
    ])
    #expect(read.networkClient && read.networkServer)
    #expect(read.readOnlyPaths == ["/usr/share/dict"])
    #expect(read.diagnostics.isEmpty, "\(read.diagnostics)")
    let none = try entitlements([:])
    #expect(!none.networkClient && !none.networkServer && none.readOnlyPaths.isEmpty)
  }

  @Test func aValueOfTheWrongTypeIsAnError() {
    #expect(throws: ManifestError.self) { try entitlements([Entitlements.networkClientKey: ["yes"]]) }
    #expect(throws: ManifestError.self) { try entitlements([Self.readOnly: "/usr/share/dict"]) }
    #expect(throws: ManifestError.self) { try entitlements([Self.readOnly: [1]]) }
  }

  @Test(arguments: [
    ("com.apple.security.made-up", "entitlement-unknown"),
    ("com.apple.security.network.clients", "entitlement-unknown"),
    ("com.apple.security.device.camera", "entitlement-unsupported"),
    ("com.apple.security.files.user-selected.read-only", "entitlement-unsupported"),
    ("com.apple.security.temporary-exception.files.absolute-path.read-write", "entitlement-unsupported"),
    ("com.apple.security.cs.allow-jit", "entitlement-unsupported"),
  ])
  func otherSecurityKeysAreWarnings(key: String, rule: String) throws {
    let read = try entitlements([key: true, Entitlements.networkClientKey: true])
    #expect(read.diagnostics.map(\.rule.rawValue) == [rule], "\(read.diagnostics)")
    #expect(read.diagnostics.first?.severity == .warning)
    #expect(read.diagnostics.first?.keyPath == key)
    #expect(read.diagnostics.first?.message.contains("ignored") == true)
  }

  /// Keys outside `com.apple.security.` are not the sandbox's business (the control of the warnings above).
  @Test func otherAppleKeysAreNotTheSandboxs() throws {
    let read = try entitlements(["com.apple.developer.siri": true, "com.apple.developer.made-up": true])
    #expect(read.diagnostics.isEmpty, "\(read.diagnostics)")
  }

  @Test(arguments: [
    ("", "is empty"), ("usr/share", "is not an absolute path"), ("/", "is / alone"), ("//", "empty component (a //)"),
    ("/usr//share", "empty component (a //)"), ("/usr//bin", "empty component"), ("/usr/share//", "empty component"),
    ("/./", ". or .."), ("/../", ". or .."), ("/usr/./share", ". or .."), ("/usr/share/..", ". or .."),
    ("/usr/share/../", ". or .."), ("/usr/\u{1B}[2J", "control character"), ("/usr/a\u{85}b", "control character"),
    ("/usr/\u{1B}/", "control character"), ("/" + String(repeating: "a", count: 1024), "bytes long"),
  ])
  func aPathOfTheWrongFormIsRefused(path: String, problem: String) throws {
    #expect(Entitlements.readOnlyPathProblem(path)?.contains(problem) == true)
    let read = try entitlements([Self.readOnly: ["/usr/share/", path]])
    #expect(read.diagnostics.map(\.rule) == [.entitlementReadOnlyPath], "\(read.diagnostics)")
    #expect(read.diagnostics.first?.keyPath == "\(Self.readOnly)[1]")
    #expect(read.diagnostics.first?.severity == .error)
  }

  /// Apple's forms, as public projects write them: a trailing `/` for a folder and everything in it (`/usr/bin/`,
  /// `/Users/Shared/`, `/private/var/log/asl/`), none for one file or folder. (Each was refused as "an empty
  /// component (a // or a trailing /)" before the trailing `/` was read as Apple reads it.)
  @Test(arguments: [
    "/usr/bin/", "/usr/share/zoneinfo/", "/Users/Shared/", "/private/var/log/asl/", "/etc/hostname", "/usr/share",
    "/opt/data/file.txt", "/a", "/a/", "/" + String(repeating: "a", count: 1023), "/x/...y", "/x/...y/",
  ])
  func aPathOfTheRightForm(path: String) throws {
    #expect(Entitlements.readOnlyPathProblem(path) == nil)
    #expect(try entitlements([Self.readOnly: [path]]).diagnostics.isEmpty)
  }

  /// What a trailing `/` says, and the item it names: the folder without it.
  @Test(arguments: [
    ("/usr/bin/", true, "/usr/bin"), ("/usr/share/zoneinfo/", true, "/usr/share/zoneinfo"),
    ("/etc/hostname", false, "/etc/hostname"), ("/usr/share", false, "/usr/share"), ("/", false, "/"),
  ])
  func aTrailingSlashNamesAFolderAndItsContents(path: String, contents: Bool, item: String) {
    #expect(Entitlements.readOnlyPathNamesContents(path) == contents)
    #expect(Entitlements.readOnlyPathNamedItem(path) == item)
  }

  /// `/` alone says why: it would grant the whole file system; the finding's fix gives both of Apple's forms.
  @Test func theRootAloneIsRefusedSayingItWouldGrantTheWholeFileSystem() throws {
    let read = try entitlements([Self.readOnly: ["/"]])
    let finding = try #require(read.diagnostics.first)
    #expect(read.diagnostics.count == 1)
    #expect(
      finding.message
        == "\"/\" is / alone, which would grant the whole file system (every file the system owns, and every "
        + "folder's listing); name the folders the app reads instead, each ending in / (/usr/share/)")
    #expect(finding.fix?.contains("ends in / (/usr/share/)") == true, "\(finding)")
    #expect(finding.fix?.contains("(/etc/hostname)") == true, "\(finding)")
  }

  @Test func atMost32Paths() throws {
    let paths = (0..<33).map { "/usr/share/p\($0)" }
    #expect(try entitlements([Self.readOnly: paths]).diagnostics.map(\.rule) == [.entitlementReadOnlyPath])
    #expect(try entitlements([Self.readOnly: Array(paths.prefix(32))]).diagnostics.isEmpty)
  }

  // MARK: - The file-system rules

  /// Whether the tests run as root, who alone can make files an exception may grant (root's, outside /tmp): the
  /// controls that expect a grant of the test's own tree run only then, and say so otherwise.
  static let asRoot = geteuid() == 0
  static let needsRoot: Comment = "only root can make a folder an exception may grant"

  /// A tree outside any home (in /run as root): `good` (0755, a file in it 0644), and the places the rules refuse.
  struct Tree {
    let directory: TemporaryDirectory
    let home: AssistantHome
    var good: String { directory.file("good").path }
    var userHome: String { directory.file("user").path }
    var rules: ReadOnlyPathRules { ReadOnlyPathRules(home: home, environment: ["HOME": userHome]) }

    init() throws {
      directory = try TemporaryDirectory("intenthost-exceptions", under: TemporaryDirectory.systemBase)
      chmod(directory.path, 0o755)
      home = try AssistantHome(
        root: directory.file("assistant").path, environment: ["ASSISTANT_APP_GROUPS": directory.file("groups").path])
      for folder in [good, userHome, home.containers.path + "/com.example.other", home.appGroupsRoot.path + "/g"] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      }
      // Whatever the umask: no folder of the tree is writable by its group.
      for folder in [
        good, userHome, home.root.path, home.containers.path, home.containers.path + "/com.example.other",
        home.appGroupsRoot.path, home.appGroupsRoot.path + "/g",
      ] {
        chmod(folder, 0o755)
      }
      try "x".write(toFile: good + "/file.txt", atomically: true, encoding: .utf8)
      chmod(good + "/file.txt", 0o644)
    }

    func folder(_ name: String, mode: mode_t) throws -> String {
      let path = directory.file(name).path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      chmod(path, mode)
      return path
    }
  }

  func refusal(_ outcome: ReadOnlyPathRules.Outcome) -> String? {
    if case .refused(let reason, _) = outcome { return reason }
    return nil
  }

  @Test func aSystemFolderIsGranted() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    #expect(tree.rules.check("/usr/share") == .granted("/usr/share"))
    #expect(tree.rules.check("/etc/passwd") == .granted("/etc/passwd"))
  }

  @Test(.enabled(if: asRoot, needsRoot))
  func aPrivateFolderIsGranted() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    #expect(tree.rules.check(tree.good) == .granted(tree.good))
    #expect(tree.rules.check(tree.good + "/") == .granted(tree.good))
    #expect(tree.rules.check(tree.good + "/file.txt") == .granted(tree.good + "/file.txt"))
  }

  /// Apple's forms of a system folder (root's, on every Linux): `/usr/bin/` and `/usr/share/` are the folders and
  /// everything in them, `/usr/share` that folder alone (its listing), a file without a trailing `/` that file.
  @Test func aLaunchGetsWhatEachFormGrants() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let read = try entitlements([Self.readOnly: ["/usr/bin/", "/usr/share/", "/usr/share", "/etc/passwd"]])
    let grants = try tree.rules.grants(for: read, launch: "X (com.example.x)")
    #expect(
      grants == [
        ReadOnlyException(entitled: "/usr/bin/", path: "/usr/bin", scope: .contents),
        ReadOnlyException(entitled: "/usr/share/", path: "/usr/share", scope: .contents),
        ReadOnlyException(entitled: "/usr/share", path: "/usr/share", scope: .listing),
        ReadOnlyException(entitled: "/etc/passwd", path: "/etc/passwd", scope: .file),
      ])
    #expect(tree.rules.diagnostics(for: read) == [])
  }

  /// A trailing `/` on a file names a folder that is not there: refused, naming the path and the fix (the same path
  /// without the `/`); the control: without it, the file is granted.
  @Test func aTrailingSlashOnAFileIsRefusedWithTheFix() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let outcome = tree.rules.check("/etc/passwd/")
    #expect(
      outcome
        == .refused(
          "ends with /, which grants a folder and everything in it, but /etc/passwd is a file",
          fix: "write \"/etc/passwd\", without the trailing /, to grant that one file"))
    let read = try entitlements([Self.readOnly: ["/usr/share/", "/etc/passwd/"]])
    let findings = tree.rules.diagnostics(for: read)
    #expect(findings.map(\.rule) == [.entitlementReadOnlyPath], "\(findings)")
    #expect(findings.first?.keyPath == "\(Self.readOnly)[1]")
    #expect(findings.first?.message.hasPrefix("\"/etc/passwd/\" ends with /") == true, "\(findings)")
    #expect(findings.first?.fix == "write \"/etc/passwd\", without the trailing /, to grant that one file")
    let error = #expect(throws: HostError.self) { try tree.rules.grants(for: read, launch: "X (com.example.x)") }
    #expect(
      error?.message.contains("/etc/passwd is a file [entitlement-read-only-path]; write \"/etc/passwd\"") == true)
    #expect(tree.rules.check("/etc/passwd") == .granted("/etc/passwd"))
  }

  @Test(
    .enabled(if: geteuid() == 0, "only root can make a folder an exception may grant"),
    arguments: [(0o777, "writable by others (mode 777)"), (0o775, "writable by its group (mode 775)")])
  func aFolderWritableByOthersIsRefused(mode: Int, reason: String) throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let open = try tree.folder("open", mode: mode_t(mode))
    try "x".write(toFile: open + "/file.txt", atomically: true, encoding: .utf8)
    chmod(open + "/file.txt", 0o644)
    #expect(refusal(tree.rules.check(open))?.contains("is \(reason)") == true)
    // A file in it: the folder above is the problem.
    #expect(refusal(tree.rules.check(open + "/file.txt"))?.contains("lies in \(open), which is \(reason)") == true)
    chmod(open, 0o755)
    #expect(tree.rules.check(open + "/file.txt") == .granted(open + "/file.txt"))
  }

  /// /tmp is root's and sticky, but writable by all: nothing in it may be granted, not even a folder or a file of
  /// root's (one made there for anyone to find, or the user's own, a Kerberos ticket /tmp/krb5cc_UID); the control
  /// is `theSameFolderInRunIsGranted`.
  @Test func nothingInAStickyFolderIsGranted() throws {
    var status = stat()
    #expect(stat("/tmp", &status) == 0)
    try #require(status.st_mode & S_ISVTX != 0 && status.st_mode & S_IWOTH != 0, "this machine's /tmp is not sticky")
    let rules = ReadOnlyPathRules(home: nil, environment: [:])
    let folder = "/tmp/" + Self.stickyName()
    #expect(mkdir(folder, 0o755) == 0)
    defer { rmdir(folder) }
    chmod(folder, 0o755)
    let reason = refusal(rules.check(folder))
    #expect(reason?.contains("lies in /tmp, which is writable by others") == true, "\(String(describing: reason))")
    #expect(refusal(rules.check("/tmp"))?.contains("writable by others") == true)
  }

  /// The control of `nothingInAStickyFolderIsGranted`: the same folder in /run (root only) is granted.
  @Test(.enabled(if: asRoot, needsRoot))
  func theSameFolderInRunIsGranted() throws {
    let rules = ReadOnlyPathRules(home: nil, environment: [:])
    let folder = "/run/" + Self.stickyName()
    #expect(mkdir(folder, 0o755) == 0)
    defer { rmdir(folder) }
    chmod(folder, 0o755)
    #expect(rules.check(folder) == .granted(folder))
  }

  static func stickyName() -> String { "intenthost-sticky-\(getpid())-\(UInt32.random(in: 0...UInt32.max))" }

  /// An exception reaches only what root owns: a folder of an ordinary uid (the user running the host or another) is
  /// refused. The control: the same folder given back to root. (The ordinary user's host itself:
  /// SandboxExceptionTests.theUsersOwnFilesAreRefusedOnAnOrdinaryUsersHost.)
  @Test(.enabled(if: geteuid() == 0, "only root can make a folder an exception may grant"))
  func aFolderOfTheUserIsRefused() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let mine = try tree.folder("mine", mode: 0o755)
    #expect(chown(mine, 61_234, 61_234) == 0)
    let reason = refusal(tree.rules.check(mine))
    #expect(reason?.contains("belongs to uid 61234, not root") == true, "\(String(describing: reason))")
    #expect(chown(mine, 0, 0) == 0)
    #expect(tree.rules.check(mine) == .granted(mine))
  }

  /// The user's runtime folder ($XDG_RUNTIME_DIR) and /run/user are refused; the control is
  /// `aFolderNotNamedByXDGRuntimeDirIsGranted`.
  @Test func theRuntimeFoldersAreRefused() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let runtime = try tree.folder("runtime", mode: 0o700)
    let rules = ReadOnlyPathRules(home: tree.home, environment: ["HOME": tree.userHome, "XDG_RUNTIME_DIR": runtime])
    #expect(refusal(rules.check(runtime))?.contains("($XDG_RUNTIME_DIR)") == true)
    #expect(refusal(rules.check("/run/user"))?.contains("/run/user, the users' runtime folders") == true)
    #expect(refusal(rules.check("/run/user/1000/containers/auth.json"))?.contains("/run/user") == true)
    #expect(refusal(rules.check("/run"))?.hasPrefix("contains ") == true)
  }

  /// The control of `theRuntimeFoldersAreRefused`: the same folder with no $XDG_RUNTIME_DIR naming it is granted
  /// (root only).
  @Test(.enabled(if: asRoot, needsRoot))
  func aFolderNotNamedByXDGRuntimeDirIsGranted() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let runtime = try tree.folder("runtime", mode: 0o700)
    chmod(runtime, 0o755)
    #expect(tree.rules.check(runtime) == .granted(runtime))
  }

  /// Every home of the user database (an account from uid 1000, or with its home under /home) is refused, and so is
  /// what holds it and what lies in it; an account of the system (uid below 1000, home elsewhere) is not protected
  /// as a home, nor a system folder named as a home; /home itself is refused whatever the database says.
  @Test func theHomesOfTheUserDatabaseAreRefused() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let (people, alice, _, rules) = try userDatabase(tree)
    #expect(refusal(rules.check(alice))?.contains("is the home of user alice (uid 1234)") == true)
    #expect(refusal(rules.check(alice + "/.bashrc"))?.contains("is inside the home of user alice") == true)
    #expect(refusal(rules.check(people))?.contains("contains the home of user alice") == true)
    #expect(refusal(rules.check("/home"))?.contains("/home, the users' homes") == true)
    #expect(rules.check("/usr/share") == .granted("/usr/share"))
  }

  /// The control of `theHomesOfTheUserDatabaseAreRefused` (root only): a system account's home is granted, and so,
  /// with a database without alice, is the folder that holds hers.
  @Test(.enabled(if: asRoot, needsRoot))
  func whatTheUserDatabaseDoesNotNameAHomeIsGranted() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let (people, _, service, rules) = try userDatabase(tree)
    #expect(rules.check(service) == .granted(service))
    // The control: a database without alice grants her folder.
    #expect(tree.rules.check(people) == .granted(people))
  }

  /// The folders of `theHomesOfTheUserDatabaseAreRefused` in `tree`, and rules reading a database that makes
  /// alice's folder a home (uid 1234) and service's a system account's.
  func userDatabase(_ tree: Tree) throws -> (
    people: String, alice: String, service: String, rules: ReadOnlyPathRules
  ) {
    let people = try tree.folder("people", mode: 0o755)
    let alice = try tree.folder("people/alice", mode: 0o755)
    let service = try tree.folder("service", mode: 0o755)
    let passwd = tree.directory.file("passwd").path
    try """
    root:x:0:0:root:/root:/bin/bash
    svc:x:120:120::\(service):/usr/sbin/nologin
    alice:x:1234:1234:Alice:\(alice):/bin/bash
    usr:x:1500:1500::/usr:/usr/sbin/nologin
    nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
    broken line
    """.write(toFile: passwd, atomically: true, encoding: .utf8)
    #expect(ReadOnlyPathRules.accounts(passwd).map(\.name) == ["alice"])
    let rules = ReadOnlyPathRules(home: tree.home, environment: ["HOME": tree.userHome], passwd: passwd)
    return (people, alice, service, rules)
  }

  /// /etc itself and /etc/ld.so.cache (which the sandbox keeps unreadable so that the loader does not use it) are
  /// refused; a file of /etc is not (the control).
  @Test func etcAndTheLoadersCacheAreRefused() throws {
    let rules = ReadOnlyPathRules(home: nil, environment: [:])
    #expect(refusal(rules.check("/etc"))?.contains("is /etc itself") == true)
    #expect(refusal(rules.check("/etc/ld.so.cache"))?.contains("/etc/ld.so.cache") == true)
    #expect(rules.check("/etc/passwd") == .granted("/etc/passwd"))
  }

  /// Another IntentHost home (its apps may have this home's uids) is refused: a folder inside it, the home itself,
  /// and a folder holding it directly; recognised by `State/identities.json`, `State/owners.json` or `State/` beside
  /// `Containers/`. The control: the same tree without `State/` is granted.
  @Test(
    .enabled(if: geteuid() == 0, "only root can make a folder an exception may grant"),
    arguments: ["identities", "owners", "containers"])
  func anotherAssistantHomeIsRefused(sign: String) throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let other = try tree.folder("srv/other", mode: 0o755)
    let container = try tree.folder("srv/other/Containers/com.example.notes", mode: 0o755)
    let srv = tree.directory.file("srv").path
    #expect(tree.rules.check(other) == .granted(other))
    #expect(tree.rules.check(srv) == .granted(srv))
    _ = try tree.folder("srv/other/State", mode: 0o700)
    if sign != "containers" {
      try "{}".write(toFile: other + "/State/\(sign).json", atomically: true, encoding: .utf8)
      try FileManager.default.removeItem(atPath: other + "/Containers")
    }
    let inside = sign == "containers" ? container : other + "/State"
    #expect(refusal(tree.rules.check(inside))?.contains("is inside another IntentHost home (\(other))") == true)
    #expect(refusal(tree.rules.check(other))?.contains("is another IntentHost home") == true)
    #expect(refusal(tree.rules.check(srv))?.contains("contains another IntentHost home (\(other))") == true)
    let missing = refusal(tree.rules.check(other + "/State/not-yet"))
    #expect(missing?.contains("does not exist, and is inside another IntentHost home") == true)
  }

  @Test func theUsersHomeAndWhatHoldsItAreRefused() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    #expect(refusal(tree.rules.check(tree.userHome))?.contains("is the home of the user running assistant") == true)
    let inside = try tree.folder("user/notes", mode: 0o755)
    #expect(refusal(tree.rules.check(inside))?.contains("is inside the home of the user running assistant") == true)
    #expect(refusal(tree.rules.check(tree.directory.path))?.contains("contains the home of the user") == true)
    // Root's home, whoever runs the host.
    let root = ReadOnlyPathRules.homeFolder(of: 0) ?? "/root"
    #expect(refusal(tree.rules.check(root))?.contains(geteuid() == 0 ? "home of the user" : "root's home") == true)
  }

  /// The control of `theUsersHomeAndWhatHoldsItAreRefused` (root only): the same rules with another $HOME grant the
  /// folder.
  @Test(.enabled(if: asRoot, needsRoot))
  func theFolderUnderAnotherHomeIsGranted() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let inside = try tree.folder("user/notes", mode: 0o755)
    let elsewhere = ReadOnlyPathRules(home: tree.home, environment: ["HOME": tree.good])
    #expect(elsewhere.check(inside) == .granted(inside))
  }

  @Test func theAssistantsHomeContainersAndGroupsAreRefused() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let container = tree.home.containers.path + "/com.example.other"
    #expect(refusal(tree.rules.check(container))?.contains("is inside the containers") == true)
    #expect(refusal(tree.rules.check(tree.home.appGroupsRoot.path + "/g"))?.contains("inside the app groups") == true)
    #expect(refusal(tree.rules.check(tree.home.root.path))?.contains("the assistant's home") == true)
  }

  /// The control of `theAssistantsHomeContainersAndGroupsAreRefused` (root only): rules for no home grant the same
  /// folder.
  @Test(.enabled(if: asRoot, needsRoot))
  func aContainerIsGrantedByRulesForNoHome() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let container = tree.home.containers.path + "/com.example.other"
    let noHome = ReadOnlyPathRules(home: nil, environment: ["HOME": tree.userHome])
    #expect(noHome.check(container) == .granted(container))
  }

  @Test(arguments: ["/proc/self", "/proc", "/sys/kernel", "/dev/null", "/dev"])
  func theKernelsFoldersAreRefused(path: String) throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let reason = refusal(tree.rules.check(path))
    #expect(reason?.contains("which the sandbox grants only as it lists") == true, "\(String(describing: reason))")
  }

  /// A link is checked as its real path: one to the user's home is refused, one to `/` too; the control (one to a
  /// good folder is granted as that folder) is `aLinkToAGoodFolderIsGrantedAsThatFolder`.
  @Test func aLinkIsCheckedByItsRealPath() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let toHome = tree.directory.file("to-home").path
    try FileManager.default.createSymbolicLink(atPath: toHome, withDestinationPath: tree.userHome)
    #expect(refusal(tree.rules.check(toHome))?.hasPrefix("resolves to \(tree.userHome), which is the home") == true)
    let toRoot = tree.directory.file("to-root").path
    try FileManager.default.createSymbolicLink(atPath: toRoot, withDestinationPath: "/")
    #expect(refusal(tree.rules.check(toRoot))?.contains("is / alone, which would grant the whole file system") == true)
  }

  /// The control of `aLinkIsCheckedByItsRealPath` (root only): a link to a good folder is granted as that folder.
  @Test(.enabled(if: asRoot, needsRoot))
  func aLinkToAGoodFolderIsGrantedAsThatFolder() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let toGood = tree.directory.file("to-good").path
    try FileManager.default.createSymbolicLink(atPath: toGood, withDestinationPath: tree.good)
    #expect(tree.rules.check(toGood) == .granted(tree.good))
  }

  @Test func aMissingPathIsMissing() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    #expect(tree.rules.check(tree.good + "/not-yet") == .missing)
    #expect(tree.rules.check(tree.good + "/file.txt/below") == .missing)
    let dangling = tree.directory.file("dangling").path
    try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: tree.good + "/gone")
    #expect(tree.rules.check(dangling) == .missing)
  }

  /// A missing path is checked for where it would be: inside a protected folder, directly or through a link on the
  /// way, it is refused, not merely missing.
  @Test func aMissingPathInAProtectedFolderIsRefused() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let inside = refusal(tree.rules.check(tree.userHome + "/.ssh/id_rsa"))
    #expect(
      inside?.hasPrefix("does not exist, and is inside the home of the user") == true, "\(String(describing: inside))")
    let link = tree.directory.file("to-home").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: tree.userHome)
    let through = refusal(tree.rules.check(link + "/.ssh/id_rsa"))
    #expect(
      through?.hasPrefix("does not exist, and would resolve to \(tree.userHome)/.ssh/id_rsa, which is inside") == true,
      "\(String(describing: through))")
    #expect(tree.rules.check(tree.good + "/.ssh/id_rsa") == .missing)
  }

  @Test(.enabled(if: geteuid() == 0, "only root can make a folder an exception may grant"))
  func aFIFOIsRefused() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let fifo = tree.good + "/fifo"
    #expect(mkfifo(fifo, 0o644) == 0)
    #expect(refusal(tree.rules.check(fifo))?.contains("is a FIFO, not a file or a folder") == true)
  }

  @Test(.enabled(if: geteuid() == 0, "giving a folder to another user needs root"))
  func aFolderOfAnotherUserIsRefused() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let theirs = try tree.folder("theirs", mode: 0o755)
    #expect(chown(theirs, 4321, 4321) == 0)
    #expect(refusal(tree.rules.check(theirs))?.contains("belongs to uid 4321") == true)
    #expect(chown(theirs, 0, 0) == 0)
    #expect(tree.rules.check(theirs) == .granted(theirs))
  }

  @Test(.enabled(if: geteuid() == 0, "only root can make a folder an exception may grant"))
  func installFindingsNameTheRule() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let read = try Entitlements(
      PlistDictionary(
        values: [Self.readOnly: [tree.good, tree.good + "/not-yet", tree.userHome, "relative"]], file: "X.entitlements")
    )
    let findings = tree.rules.diagnostics(for: read)
    #expect(findings.map(\.rule) == [.entitlementReadOnlyPathMissing, .entitlementReadOnlyPath])
    #expect(findings.map(\.severity) == [.warning, .error])
    #expect(findings.map(\.keyPath) == ["\(Self.readOnly)[1]", "\(Self.readOnly)[2]"])
    // The form is the model's finding, not repeated here.
    #expect(read.diagnostics.map(\.keyPath) == ["\(Self.readOnly)[3]"])
  }

  @Test(.enabled(if: geteuid() == 0, "only root can make a folder an exception may grant"))
  func aLaunchGetsTheRealPathsAndIsRefusedForARefusedOne() throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let link = tree.directory.file("to-good").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: tree.good)
    let good = try entitlements([Self.readOnly: [link, tree.good + "/not-yet"]])
    #expect(
      try tree.rules.grants(for: good, launch: "X (com.example.x)") == [
        ReadOnlyException(entitled: link, path: tree.good, scope: .listing)
      ])
    let bad = try entitlements([Self.readOnly: [tree.good, tree.userHome]])
    let error = #expect(throws: HostError.self) { try tree.rules.grants(for: bad, launch: "X (com.example.x)") }
    #expect(
      error?.message.hasPrefix("X (com.example.x) cannot be sandboxed: \(Self.readOnly) \"\(tree.userHome)\"") == true)
    #expect(error?.message.contains("[entitlement-read-only-path]") == true)
  }

  // MARK: - Network and the spawner

  /// Runs `/usr/bin/cat file` under a sandbox granting it the system libraries, `exceptions` (read-only) and
  /// `listings` (the listing only): its exit status (0 when it read the file).
  /// - Throws: the spawn's `SpawnError`.
  func cat(_ file: String, exceptions: [String], listings: [String] = []) async throws -> Termination {
    try await sandboxed("/usr/bin/cat", [file], exceptions: exceptions, listings: listings)
  }

  /// Runs `program` with `arguments` under a sandbox granting it the system libraries, `exceptions` (read-only) and
  /// `listings` (the listing only): its exit status.
  /// - Throws: the spawn's `SpawnError`.
  func sandboxed(_ program: String, _ arguments: [String], exceptions: [String], listings: [String] = [])
    async throws -> Termination
  {
    var spec = SandboxSpec(
      landlockABI: IntentHostSystem.landlockABI(),
      executePaths: [program, "/lib64/ld-linux-x86-64.so.2"],
      readPaths: ["/lib", "/lib64", "/usr/lib", "/usr/lib64"], writePaths: [])
    spec.readExceptionPaths = exceptions
    spec.listingExceptionPaths = listings
    let null = try FileDescriptor.open("/dev/null", O_RDWR)
    defer { null.close() }
    var options = SpawnOptions(
      executable: program, arguments: [program] + arguments, environment: [:], standardInput: null,
      standardOutput: null, standardError: null)
    options.sandbox = spec
    let launch = options
    let spawned = try await offThePool { () throws(SpawnError) in try spawn(launch) }
    return try await waitForExit(spawned, timeout: .seconds(60))
  }

  /// The spawner opens each granted path without following a link, so a link swapped in after the host's check
  /// fails the launch at the landlock step rather than granting its target; the control: the real path is granted,
  /// and without the exception the file is not readable.
  @Test(.enabled(if: IntentHostSystem.landlockABI() > 0, "needs Landlock"))
  func theSpawnerGrantsRealPathsOnly() async throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let link = tree.directory.file("to-good").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: tree.good)
    let file = tree.good + "/file.txt"
    #expect(try await cat(file, exceptions: [tree.good]) == .exited(0))
    #expect(try await cat(file, exceptions: []) == .exited(1))
    do {
      let status = try await cat(file, exceptions: [link])
      Issue.record("a link in the exceptions was opened: cat \(status)")
    } catch let error as SpawnError {
      #expect(error.stage == .landlock)
      #expect(error.error.code == ELOOP)
    }
    // A path missing by launch time is skipped, as the optional system paths are.
    #expect(try await cat(file, exceptions: [tree.good + "/gone", tree.good]) == .exited(0))
  }

  /// A folder granted for its listing (written without a trailing `/`) can be listed, and no file in it read; the
  /// controls: without the grant it cannot be listed, and granted whole its file is read. A file among the listings
  /// gets nothing (the launch still starts).
  @Test(.enabled(if: IntentHostSystem.landlockABI() > 0, "needs Landlock"))
  func aListingGrantListsTheFolderAndReadsNoFile() async throws {
    let tree = try Tree()
    defer { tree.directory.remove() }
    let file = tree.good + "/file.txt"
    #expect(try await sandboxed("/usr/bin/ls", [tree.good], exceptions: [], listings: [tree.good]) == .exited(0))
    #expect(try await cat(file, exceptions: [], listings: [tree.good]) == .exited(1))
    #expect(try await sandboxed("/usr/bin/ls", [tree.good], exceptions: []) != .exited(0))
    #expect(try await cat(file, exceptions: [tree.good]) == .exited(0))
    #expect(try await cat(file, exceptions: [], listings: [file]) == .exited(1))
  }

  @Test(arguments: [
    (false, false, 1, true), (true, false, 1, true), (false, true, 3, false), (false, true, 4, true),
    (true, true, 1, true),
  ])
  func networkServerAloneNeedsABI4(client: Bool, server: Bool, abi: Int32, allowed: Bool) {
    let access = NetworkAccess(client: client, server: server)
    #expect((access.refusal(abi: abi) == nil) == allowed)
  }

  @Test func theProfileHandsTheExceptionsToTheSpawner() {
    var profile = SandboxProfile(
      kind: .intentsExtension, name: "X", bundleIdentifier: "com.example.x", executePaths: ["/x"], readPaths: ["/r"],
      writePaths: ["/w"], identity: nil, limits: SandboxPolicy().limits[.intentsExtension]!)
    let plain = profile.spec(abi: 6)
    #expect(!plain.networkClient && !plain.networkServer && plain.readExceptionPaths.isEmpty)
    profile.network = NetworkAccess(client: true, server: false)
    profile.readExceptions = [
      ReadOnlyException(entitled: "/link/", path: "/usr/share/dict", scope: .contents),
      ReadOnlyException(entitled: "/etc/hostname", path: "/etc/hostname", scope: .file),
      ReadOnlyException(entitled: "/usr/share/fonts", path: "/usr/share/fonts", scope: .listing),
    ]
    let spec = profile.spec(abi: 6)
    #expect(spec.networkClient && !spec.networkServer)
    #expect(spec.readExceptionPaths == ["/usr/share/dict", "/etc/hostname"])
    #expect(spec.listingExceptionPaths == ["/usr/share/fonts"])
    #expect(spec.readPaths == ["/r"])
    #expect(spec != plain)
    let text = profile.description(deadlines: nil, memoryMechanism: "m")
    #expect(text.contains("    /usr/share/dict (\(Self.readOnly), written /link/): the folder and everything in it\n"))
    #expect(text.contains("    /etc/hostname (\(Self.readOnly))\n"))
    #expect(text.contains("    /usr/share/fonts (\(Self.readOnly)): its listing only (written without a trailing /"))
    #expect(text.contains("  network: outgoing TCP and UDP to any host and port (com.apple.security.network.client)"))
    let report = profile.report(deadlines: nil, sandboxed: true)
    #expect(report.read == ["/r", "/usr/share/dict", "/etc/hostname"])
    #expect(report.readExceptions.map(\.scope) == [.contents, .file, .listing])
    #expect(report.network.client && !report.network.server)
  }
}
