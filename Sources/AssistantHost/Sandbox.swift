import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import ProcessSupervision
import UntrustedText

/// How the host confines what it launches. The defaults are documented in docs/SANDBOX.md.
public struct SandboxPolicy: Sendable {
  /// The kinds of process, each with its own limits.
  public enum Kind: String, Sendable, CaseIterable {
    case intentsExtension = "Intents extension"
    case intentsUIExtension = "Intents UI extension"
    case app = "app"
  }

  /// The limits of one kind.
  public struct Limits: Sendable, Equatable {
    /// Memory footprint ceiling in bytes (cgroup, else watchdog); Apple's reported figure for Intents extensions is
    /// about 30 MB.
    public var memory: Int
    /// CPU seconds (RLIMIT_CPU soft; SIGKILL one second later).
    public var cpuSeconds: Int
    public var openFiles: Int = 64
    /// Processes and threads (cgroup pids.max).
    public var threads: Int = 64
    public var fileSize: Int = 64 << 20
    /// RLIMIT_DATA, a backstop behind the memory ceiling.
    public var data: Int = 256 << 20
  }

  /// False with `--no-sandbox`: children run unconfined (a warning is printed on every run).
  public var enabled: Bool
  public var limits: [Kind: Limits]
  /// The most each container and app group may hold; a launch is refused while one is over (`--storage-limit`).
  public var storage = StorageBudget.standard
  /// What the kernel is taken to lack, for the tests (the hidden `--simulate`): it can only make the host refuse
  /// more or fall back to a weaker mechanism.
  public var simulatedKernel = SimulatedKernel()

  public init(enabled: Bool = true) {
    self.enabled = enabled
    limits = [
      .intentsExtension: Limits(memory: 30 << 20, cpuSeconds: 10),
      .intentsUIExtension: Limits(memory: 30 << 20, cpuSeconds: 10),
      .app: Limits(memory: 256 << 20, cpuSeconds: 60, openFiles: 256, threads: 256, data: 1 << 30),
    ]
  }

  /// Sets the memory ceiling of every extension kind (`--memory-limit MIB`).
  public mutating func setExtensionMemory(megabytes: Int) {
    limits[.intentsExtension]?.memory = megabytes << 20
    limits[.intentsUIExtension]?.memory = megabytes << 20
  }

  /// Sets the CPU time of every extension kind (`--cpu-limit SECONDS`).
  public mutating func setExtensionCPU(seconds: Int) {
    limits[.intentsExtension]?.cpuSeconds = seconds
    limits[.intentsUIExtension]?.cpuSeconds = seconds
  }

  /// The Landlock ABI to use.
  /// - Throws: `HostError(.refused)` when the sandbox is on but the kernel cannot provide it.
  public func landlockABI() throws -> Int32 {
    #if os(Linux)
      // `--simulate no-landlock` makes this host act as on a kernel without Landlock (for the test of the refusal),
      // `--simulate landlock-abi=N` as on one offering ABI N at most (for the tests of what needs a newer one):
      // either can only lower the ABI, so make the host refuse more.
      let abi = simulatedKernel.landlockABI(offered: IntentHostSystem.landlockABI())
      if abi > 0 { return abi }
      throw HostError(
        .refused,
        "this kernel has no Landlock (needed to sandbox extensions; Linux 5.13 or later with landlock in the lsm= "
          + "boot list); refusing to run extensions unconfined. Pass --no-sandbox to run them anyway, unsafely")
    #else
      throw HostError(
        .refused, "sandboxing needs Linux (Landlock and seccomp); pass --no-sandbox to run extensions unconfined")
    #endif
  }

  /// The line `--no-sandbox` prints on every run.
  public static let warning =
    "assistant: warning: --no-sandbox: extensions and apps run unconfined, with the host's user and no limits"
}

/// What one launch may do: the files it may read, write and execute, its identity and its limits. Printed by
/// `assistant sandbox-profile`, and turned into the `SandboxSpec` the spawner applies.
public struct SandboxProfile: Sendable {
  public var kind: SandboxPolicy.Kind
  public var name: String
  public var bundleIdentifier: String
  public var executePaths: [String]
  public var readPaths: [String]
  public var writePaths: [String]
  /// uid, gid and supplementary gids (one per app group) when the host runs as root; nil otherwise.
  public var identity: (uid: uid_t, gid: gid_t, groups: [gid_t])?
  /// Whether `identity` is recorded in `State/identities.json`; false when it is what the first launch would
  /// allocate (a profile shown before any launch, which records nothing).
  public var identityRecorded = true
  public var limits: SandboxPolicy.Limits
  /// What the container and each app group hold now, against the storage budget.
  public var storage: [StorageUsage] = []
  /// The interpreter a script runs with, as recorded at install (docs/SANDBOX.md, "Interpreted extensions"); nil
  /// for an ELF executable.
  var interpreter: ScriptInterpreter? = nil
  /// What its entitlements allow on the network (docs/SANDBOX.md, "Network").
  public var network = NetworkAccess()
  /// The paths its entitlements' temporary exception lets it read, by their real paths (docs/SANDBOX.md,
  /// "Exceptions from entitlements").
  public var readExceptions: [ReadOnlyException] = []
  /// What the kernel is taken to lack (the policy's, `--simulate`), for the mechanisms the profile names.
  public var simulatedKernel = SimulatedKernel()

  /// The first container or group over its budget, if any: the launch is refused.
  public var storageOverBudget: StorageUsage? { storage.first(where: \.isOver) }

  public func spec(abi: Int32) -> SandboxSpec {
    var spec = SandboxSpec(landlockABI: abi, executePaths: executePaths, readPaths: readPaths, writePaths: writePaths)
    spec.identity = identity
    spec.cpuSeconds = limits.cpuSeconds
    spec.openFiles = limits.openFiles
    spec.dataBytes = limits.data
    spec.fileSizeBytes = limits.fileSize
    spec.umask = 0o007
    spec.readExceptionPaths = readExceptions.map(\.path)
    spec.networkClient = network.client
    spec.networkServer = network.server
    return spec
  }

  /// The profile as `assistant sandbox-profile` prints it.
  public func description(deadlines: Deadlines?, memoryMechanism: String) -> String {
    func mib(_ bytes: Int) -> String { "\(bytes >> 20) MiB" }
    // Names and paths come from the bundle: each on one line (the whole text is sanitized again on its way out).
    var lines = ["\(Untrusted.shown(name)) (\(Untrusted.shown(bundleIdentifier))): \(kind.rawValue)"]
    if let interpreter {
      lines.append("  interpreter: \(Untrusted.shown(interpreter.summary))")
      if !interpreter.libraryFolders.isEmpty {
        lines.append(
          "    its library folders: \(interpreter.libraryFolders.map(Untrusted.shown).joined(separator: ", "))")
      }
    }
    lines.append("  execute:")
    lines += executePaths.map { "    \(Untrusted.shown($0))" }
    lines.append("  read:")
    lines += readPaths.map { "    \(Untrusted.shown($0))" }
    lines += readExceptions.map { exception in
      let written = exception.entitled == exception.path ? "" : ", written \(Untrusted.shown(exception.entitled))"
      return "    \(Untrusted.shown(exception.path)) (\(Entitlements.readOnlyPathsKey)\(written))"
    }
    lines.append("  read and write (no execute):")
    lines += writePaths.map { "    \(Untrusted.shown($0))" }
    lines.append("  everything else: denied (Landlock), including the host's home, other containers and $HOME")
    lines.append("  network: \(network.summary)")
    lines.append("  processes: none (no fork, exec of other programs, ptrace, io_uring; signals only inside)")
    if let identity {
      lines.append(
        "  runs as: uid \(identity.uid), gid \(identity.gid), groups \(identity.groups.map(String.init).joined(separator: ", "))"
          + (identityRecorded ? "" : " (not recorded yet: its first launch allocates them, others may come first)"))
    } else {
      lines.append("  runs as: the host's user (the host is not root; see docs/SANDBOX.md for what that allows)")
    }
    lines.append("  limits:")
    lines.append("    memory: \(mib(limits.memory)) footprint (\(memoryMechanism)); killed beyond it")
    lines.append("    CPU time: \(limits.cpuSeconds) s (SIGXCPU, then SIGKILL a second later)")
    let threadMechanism = SandboxReport.threadMechanism(ownUID: identity != nil, simulating: simulatedKernel)
    lines.append("    threads and processes: \(limits.threads) (\(threadMechanism)); open files: \(limits.openFiles)")
    lines.append("    file size: \(mib(limits.fileSize)); data segment: \(mib(limits.data)); core files: none")
    if let budget = storage.first?.budget {
      lines.append(
        "    storage: \(budget.description) for the container and for each app group (every file, folder and link "
          + "counts), measured at each launch, which is refused while one is over; now:")
      lines += storage.map {
        "      \($0.what): \($0.summary)\($0.isOver ? " (over: the next launch is refused)" : "")"
      }
    }
    if let deadlines {
      let phases = Phase.allCases.map { "\($0.rawValue) \(deadlines[$0].shortDescription)" }
      lines.append("  deadlines: " + phases.joined(separator: ", "))
    }
    lines.append("  environment: HOME, TMPDIR, PATH, LANG, SWIFT_BACKTRACE and the INTENTHOST_* variables only")
    lines.append("  file descriptors: 0, 1, 2 only")
    return lines.joined(separator: "\n")
  }
}

extension SandboxProfile {
  /// The profile as `assistant sandbox-profile --json` prints it: the same facts as `description`, as data.
  public struct Report: Sendable, Encodable {
    public var name: String
    public var bundleIdentifier: String
    /// "app", "Intents extension" or "Intents UI extension".
    public var kind: String
    public var execute: [String]
    public var read: [String]
    public var readWrite: [String]
    /// uid, gid and groups when the host runs as root; absent otherwise (the host's user).
    public var identity: Identity?
    public var limits: Limits
    public var storage: [Storage]
    /// Seconds per phase; extensions only.
    public var deadlines: [String: Double]?
    /// Whether this run applies it (false with --no-sandbox).
    public var enforced: Bool
    /// The interpreter of a script; absent (null) for an ELF executable.
    public var interpreter: Interpreter? = nil
    /// `{"client", "server"}`: the network entitlements it has.
    public var network: Network = Network(client: false, server: false)
    /// The paths of `read` that its entitlements' temporary exception grants: `{"entitled", "path"}`, as written and
    /// as granted (the real path).
    public var readExceptions: [ReadOnlyException] = []

    enum CodingKeys: String, CodingKey {
      case name, bundleIdentifier, kind, execute, read, readWrite, identity, limits, storage, deadlines, enforced
      case interpreter, network, readExceptions
    }

    /// Every key, `null` where there is no value (an app has no deadlines; a host that is not root, no identity).
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(name, forKey: .name)
      try container.encode(bundleIdentifier, forKey: .bundleIdentifier)
      try container.encode(kind, forKey: .kind)
      try container.encode(execute, forKey: .execute)
      try container.encode(read, forKey: .read)
      try container.encode(readWrite, forKey: .readWrite)
      try container.encode(identity, forKey: .identity)
      try container.encode(limits, forKey: .limits)
      try container.encode(storage, forKey: .storage)
      try container.encode(deadlines, forKey: .deadlines)
      try container.encode(enforced, forKey: .enforced)
      try container.encode(interpreter, forKey: .interpreter)
      try container.encode(network, forKey: .network)
      try container.encode(readExceptions, forKey: .readExceptions)
    }
  }
  /// A script's interpreter in `sandbox-profile --json`.
  public struct Interpreter: Sendable, Encodable {
    /// The `#!` line, after `#!`.
    public var shebang: String
    /// The interpreter as named (or found by `env` at install): argv[0].
    public var path: String
    /// The program executed and granted.
    public var realPath: String
    public var argument: String?
    /// Whether `#!/usr/bin/env NAME` was looked up at install.
    public var resolvedAtInstall: Bool
    public var libraryFolders: [String]
    public var libraryFiles: [String]
  }
  public struct Network: Sendable, Encodable {
    public var client: Bool
    public var server: Bool
  }
  public struct Identity: Sendable, Encodable {
    public var uid: UInt32
    public var gid: UInt32
    public var groups: [UInt32]
  }
  public struct Limits: Sendable, Encodable {
    public var memoryBytes: Int
    public var cpuSeconds: Int
    public var threads: Int
    public var openFiles: Int
    public var fileSizeBytes: Int
    public var dataBytes: Int
  }
  public struct Storage: Sendable, Encodable {
    public var what: String
    public var path: String
    public var bytes: Int?
    public var entries: Int?
    public var budgetBytes: Int
    public var budgetEntries: Int
    public var over: Bool
  }

  public func report(deadlines: Deadlines?, sandboxed: Bool) -> Report {
    Report(
      name: name, bundleIdentifier: bundleIdentifier, kind: kind.rawValue, execute: executePaths,
      read: readPaths + readExceptions.map(\.path), readWrite: writePaths,
      identity: identity.map { Identity(uid: $0.uid, gid: $0.gid, groups: $0.groups) },
      limits: Limits(
        memoryBytes: limits.memory, cpuSeconds: limits.cpuSeconds, threads: limits.threads,
        openFiles: limits.openFiles, fileSizeBytes: limits.fileSize, dataBytes: limits.data),
      storage: storage.map {
        Storage(
          what: $0.what, path: $0.path, bytes: $0.usage?.bytes, entries: $0.usage?.entries,
          budgetBytes: $0.budget.bytes, budgetEntries: $0.budget.entries, over: $0.isOver)
      },
      deadlines: deadlines.map { deadlines in
        Dictionary(
          uniqueKeysWithValues: Phase.allCases.map { phase in
            let (seconds, attoseconds) = deadlines[phase].components
            return (phase.rawValue, Double(seconds) + Double(attoseconds) / 1e18)
          })
      },
      enforced: sandboxed,
      interpreter: interpreter.map {
        Interpreter(
          shebang: $0.shebang, path: $0.path, realPath: $0.program, argument: $0.argument,
          resolvedAtInstall: $0.resolvedFromEnv, libraryFolders: $0.libraryFolders, libraryFiles: $0.libraryFiles)
      },
      network: Network(client: network.client, server: network.server), readExceptions: readExceptions)
  }
}

extension AssistantHome {
  /// The profile for launching `target` with `policy`: its own bundle (read), its executable and ELF interpreter
  /// (execute), the library files the loader needs (`LibraryGrants`), `/usr/share/zoneinfo` and `/proc` (read),
  /// its container and each app group its entitlements list (read and write).
  /// - Parameter recordingIdentity: as root, allocate and record the app's uid and the groups' gids (a launch);
  ///   without it, read what is recorded and make nothing (`sandbox-profile`, a read-only command).
  /// - Throws: `HostError(.refused)` when its ELF headers ask for libraries or a loader outside the folders the
  ///   sandbox trusts.
  func sandboxProfile(
    name: String, bundleIdentifier: String, bundlePath: String, executable: String, kind: SandboxPolicy.Kind,
    container: URL, appGroups: [AppGroupLocation], entitlements: Entitlements, appIdentifier: String,
    policy: SandboxPolicy, recordingIdentity: Bool
  ) throws -> SandboxProfile {
    // An extension's .appex lies in its app's PlugIns folder; it may load libraries from anywhere in the app.
    let parent = (bundlePath as NSString).deletingLastPathComponent
    let appBundle =
      (parent as NSString).lastPathComponent == "PlugIns" ? (parent as NSString).deletingLastPathComponent : bundlePath
    let grants = LibraryGrants.resolve(executable: executable, appBundle: appBundle)
    if let refusal = grants.refusal {
      throw HostError(.refused, "\(name) (\(bundleIdentifier)) cannot be sandboxed: \(refusal); it was not run")
    }
    var read = [bundlePath] + grants.libraries.filter { !isInside($0, [realPath(bundlePath) ?? bundlePath]) }
    read += ["/usr/share/zoneinfo", "/proc"]
    var execute = [executable]
    if let interpreter = grants.interpreter { execute.append(interpreter) }
    // A script: the interpreter recorded at install (not the script) is executed, with its loader and libraries.
    let script = try recordedInterpreter(
      name: name, bundleIdentifier: bundleIdentifier, executable: executable, appBundle: appBundle)
    if let script {
      let program = LibraryGrants.resolve(systemProgram: script.program)
      if let refusal = program.refusal {
        throw HostError(
          .refused,
          "\(name) (\(bundleIdentifier)) was refused by the sandbox: its interpreter \(script.program) is not allowed "
            + "(rule \(ScriptProblem.rule): \(refusal)); it was not run")
      }
      execute = [script.program] + (program.interpreter.map { [$0] } ?? [])
      for path in program.libraries + script.libraryFolders + script.libraryFiles where !read.contains(path) {
        read.append(path)
      }
    }
    let writable = [container.path] + appGroups.map(\.path)
    var identity: (uid_t, gid_t, [gid_t])? = nil
    var recorded = true
    if geteuid() == 0 {
      let groups = appGroups.map(\.identifier)
      if recordingIdentity {
        let ids = try identities(app: appIdentifier, groups: groups)
        identity = (ids.uid, ids.uid, ids.groups)
      } else {
        let ids = try expectedIdentities(app: appIdentifier, groups: groups)
        identity = (ids.uid, ids.uid, ids.groups)
        recorded = ids.recorded
      }
    }
    let storage =
      [StorageUsage.measure("container", path: container.path, budget: policy.storage)]
      + appGroups.map { StorageUsage.measure("app group \($0.identifier)", path: $0.path, budget: policy.storage) }
    var profile = SandboxProfile(
      kind: kind, name: name, bundleIdentifier: bundleIdentifier, executePaths: execute, readPaths: read,
      writePaths: writable, identity: identity.map { (uid: $0.0, gid: $0.1, groups: $0.2) },
      identityRecorded: recorded, limits: policy.limits[kind] ?? SandboxPolicy().limits[kind]!, storage: storage,
      interpreter: script)
    // The exceptions its entitlements ask for, checked again at each launch: the installed copy or the file system
    // may have changed since install.
    profile.network = NetworkAccess(entitlements)
    profile.simulatedKernel = policy.simulatedKernel
    // (The rules read the user database: only when there is something to check.)
    profile.readExceptions =
      entitlements.readOnlyPaths.isEmpty
      ? [] : try ReadOnlyPathRules(home: self).grants(for: entitlements, launch: "\(name) (\(bundleIdentifier))")
    return profile
  }

  /// Gets a launch's container and app-group folders ready, through descriptors only (`DirectoryDescriptor`):
  ///
  /// - A folder that does not exist is made once with its final owner and mode, set on its new descriptor (`mkdirat`,
  ///   then `fchown` and `fchmod`): the container (and its `Documents`, `Library`, `tmp`) mode 0700, owned by the
  ///   app's uid when the host is root; each group folder mode 2770, owned by root and the group's gid (the
  ///   set-group-ID bit gives everything made inside to the group). Not root: the host's user, 0700 and 0770.
  /// - A folder that exists costs one open and one `fstat`. Its own owner, group or mode, if wrong, is set again on
  ///   its descriptor. Nothing inside is walked, unless the folder belongs to another owner (a container made by an
  ///   earlier host as root, or by a root `--no-sandbox` launch) or another group (a group folder made by an earlier
  ///   host): only then is it handed over, by `adopt`, which never follows a link. An app cannot bring that about:
  ///   it cannot give its container away, nor change a group folder, which is root's.
  ///
  /// Nothing here follows a link an app or a group member could have planted: the parents (`Containers/`, the app
  /// groups' root) are the host's or the user's (opened as trusted, a link of the user's own followed), and each
  /// folder is made and opened beneath them following no link.
  /// - Parameter identity: the app's uid and each group's gid when the host is root; nil otherwise.
  /// - Throws: `HostError(.refused)` naming the folder that cannot be made or opened (for example a link).
  func prepareDirectories(
    bundleIdentifier: String, appGroups: [AppGroupLocation], identity: (uid: uid_t, groups: [gid_t])?
  ) throws {
    try prepareContainer(bundleIdentifier, owner: identity.map { (uid: $0.uid, gid: $0.uid) })
    for (index, group) in appGroups.enumerated() {
      _ = try prepareAppGroup(group.identifier, gid: identity?.groups[index])
    }
  }

  /// Makes or checks `Containers/<bundle id>` (see `prepareDirectories`).
  /// - Precondition: the home is prepared (`prepare()`): `Containers/` exists.
  func prepareContainer(_ bundleIdentifier: String, owner: (uid: uid_t, gid: gid_t)?) throws {
    let name = try Self.pathComponent(bundleIdentifier, "bundle identifier")
    try preparing(containers.path + "/" + name) { () throws(SystemError) in
      let containers = try DirectoryDescriptor.openTrusted(self.containers.path)
      defer { containers.close() }
      let (container, created) = try containers.makeDirectory(name, permissions: 0o700, owner: owner)
      defer { container.close() }
      if !created { try settle(container, owner: owner, permissions: 0o700, shared: false) }
      // The app may have removed or replaced these: it is its own container, so what is there is left alone.
      for sub in ["Documents", "Library", "tmp"] where try container.status(of: sub) == nil {
        try container.makeDirectory(sub, permissions: 0o700, owner: owner).directory.close()
      }
    }
  }

  /// Makes or checks the folder of app group `identifier` (see `prepareDirectories`) and its
  /// `Library/Preferences`, where the group's shared defaults live.
  /// - Parameter gid: the group's gid when the host is root; nil otherwise.
  /// - Returns: the folder's location.
  /// - Precondition: the home is prepared (`prepare()`): the app groups' root exists.
  func prepareAppGroup(_ identifier: String, gid: gid_t?) throws -> URL {
    let location = try appGroupLocation(identifier)
    let owner = gid.map { (uid: uid_t(0), gid: $0) }
    let permissions: mode_t = gid == nil ? 0o770 : 0o2770
    try preparing(location.path) { () throws(SystemError) in
      let root = try DirectoryDescriptor.openTrusted(appGroupsRoot.path)
      defer { root.close() }
      let (group, created) = try root.makeDirectory(location.lastPathComponent, permissions: permissions, owner: owner)
      defer { group.close() }
      if created {
        try group.makeDirectory("Library", permissions: permissions, owner: owner).directory.close()
        try group.makeDirectory("Library/Preferences", permissions: permissions, owner: owner).directory.close()
      } else {
        try settle(group, owner: owner, permissions: permissions, shared: true)
      }
    }
    return location
  }

  /// Runs `body`, which prepares the folder at `path`, and turns its failure into a refusal naming the folder.
  private func preparing(_ path: String, _ body: () throws(SystemError) -> Void) throws {
    do throws(SystemError) {
      try body()
    } catch {
      throw HostError(.refused, "cannot prepare \(path) for the launch: \(error)")
    }
  }

  /// Checks an existing container or group folder against its owner and mode, on its descriptor: a folder of the
  /// right owner (uid for a container, gid for a group) only gets its own ownership and mode set again if they
  /// changed; one of another owner is handed over with everything in it (`adopt`).
  private func settle(
    _ folder: DirectoryDescriptor, owner: (uid: uid_t, gid: gid_t)?, permissions: mode_t, shared: Bool
  ) throws(SystemError) {
    guard let owner else { return }
    let status = try folder.status()
    let foreign = shared ? status.group != owner.gid : status.owner != owner.uid
    if foreign {
      // Made by an earlier host or a root launch: hand over what it holds.
      try adopt(folder, owner: owner, shared: shared, depth: 0)
    }
    if foreign || status.owner != owner.uid || status.group != owner.gid {
      try folder.changeOwner(uid: owner.uid, gid: owner.gid)
    }
    if foreign || status.permissions != permissions { try folder.changeMode(permissions) }
  }

  /// Gives everything in `folder` to `owner`, through descriptors only: each entry is opened beneath its folder
  /// without following a link (`openDirectory`, or `openFile` read-only, which refuses FIFOs, devices and sockets),
  /// checked on its descriptor, and changed there (`fchown`, `fchmod`: user bits kept, group bits as the folder
  /// shares them). Links, special files, files with a second name (a hard link to a file elsewhere) and anything
  /// deeper than 64 folders are left as they are, and an entry that changes under the walk is skipped, never
  /// followed.
  private func adopt(
    _ folder: DirectoryDescriptor, owner: (uid: uid_t, gid: gid_t), shared: Bool, depth: Int
  ) throws(SystemError) {
    guard depth < 64 else { return }
    for name in try folder.entries() {
      guard let status = try? folder.status(of: name) else { continue }  // gone, or renamed: nothing to hand over
      switch status.kind {
      case .directory:
        guard let child = try? folder.openDirectory(name) else { continue }  // replaced under the walk: skipped
        defer { child.close() }
        try adopt(child, owner: owner, shared: shared, depth: depth + 1)
        let current = try child.status()
        try child.changeOwner(uid: owner.uid, gid: owner.gid)
        try child.changeMode((current.permissions & 0o700) | (shared ? 0o2770 : 0o700))
      case .regular:
        guard let file = try? folder.openFile(name, O_RDONLY) else { continue }  // replaced under the walk: skipped
        defer { file.close() }
        let current = try file.status()
        guard current.linkCount == 1 else { continue }
        try file.changeOwner(uid: owner.uid, gid: owner.gid)
        try file.changeMode((current.permissions & 0o700) | (shared ? 0o660 : 0o600))
      default:
        continue
      }
    }
  }

  /// Adds search permission for others (o+x) to each folder above `relative` inside `trusted`, and to `trusted` and
  /// the folders above it, so that an app's uid can reach its container, its groups and its bundle. `trusted` (the
  /// home, the app groups' root) is resolved first, as the user may reach it through a link; from `/` down, each
  /// folder is then opened from the one above without following a link and changed on its descriptor (`fchmod`). A
  /// link below `trusted` (planted in a bundle, say) ends the walk there. Best effort: a folder it cannot open is
  /// left, and the launch then fails with the app's own error.
  func makeSearchable(ancestorsOf relative: String, inside trusted: String) {
    guard let resolved = realpath(trusted, nil) else { return }
    let top = String(cString: resolved)
    free(resolved)
    let names = (top.split(separator: "/") + relative.split(separator: "/").dropLast()).map(String.init)
    guard var current = try? DirectoryDescriptor.openTrusted("/") else { return }
    defer { current.close() }
    for name in names where name != "." {
      guard let next = try? current.openDirectory(name) else { return }
      current.close()
      current = next
      if let status = try? current.status(), status.permissions & 0o001 == 0 {
        _ = try? current.changeMode(status.permissions | 0o001)  // best effort, as above
      }
    }
  }

  /// The record of identities, `State/identities.json`.
  var identitiesFile: String { state.appendingPathComponent("identities.json").path }

  /// The uid of an app and the gids of app groups, allocated once and kept in `State/identities.json`.
  /// - Precondition: the home is prepared (`prepare()`): `State/` exists.
  /// - Throws: `HostError(.ioError)` when the record cannot be read or written, `.dataError` when it is corrupt.
  func identities(app: String, groups: [String]) throws -> (uid: uid_t, groups: [gid_t]) {
    let document = Document<IdentityTable>(path: identitiesFile)
    do {
      // Almost always known already: a shared-lock read, no write.
      let known = try document.read()
      if let uid = known.apps[app], case let gids = groups.compactMap({ known.groups[$0] }), gids.count == groups.count
      {
        return (uid, gids)
      }
      return try document.update { table in
        let uid = table.id(for: app, in: \.apps, base: IdentityTable.firstUID)
        return (uid, groups.map { table.id(for: $0, in: \.groups, base: IdentityTable.firstGID) })
      }
    } catch {
      throw stateError(error, "cannot allocate the users the sandbox runs apps as", document: identitiesFile)
    }
  }

  /// What `identities(app:groups:)` gives, without recording anything: the recorded ids, and for the others the ids
  /// the next allocation would give (`recorded` false). Reads the record only when it exists, so a profile shown on
  /// a home no launch has used makes nothing.
  /// - Throws: `HostError(.ioError)` when the record cannot be read, `.dataError` when it is corrupt.
  func expectedIdentities(app: String, groups: [String]) throws -> (uid: uid_t, groups: [gid_t], recorded: Bool) {
    var table: IdentityTable
    do {
      table = try Document<IdentityTable>(path: identitiesFile).read()
    } catch {
      throw stateError(error, "cannot read the users the sandbox runs apps as", document: identitiesFile)
    }
    let recorded = table.apps[app] != nil && groups.allSatisfy { table.groups[$0] != nil }
    let uid = table.id(for: app, in: \.apps, base: IdentityTable.firstUID)
    return (uid, groups.map { table.id(for: $0, in: \.groups, base: IdentityTable.firstGID) }, recorded)
  }
}

extension AssistantHome {
  /// The gids of app groups, allocated once and kept in `State/identities.json` (as `identities(app:groups:)`).
  /// - Precondition: the home is prepared (`prepare()`): `State/` exists.
  func groupIDs(_ groups: [String]) throws -> [gid_t] {
    let document = Document<IdentityTable>(path: identitiesFile)
    do {
      let known = try document.read()
      if case let gids = groups.compactMap({ known.groups[$0] }), gids.count == groups.count { return gids }
      return try document.update { table in
        groups.map { table.id(for: $0, in: \.groups, base: IdentityTable.firstGID) }
      }
    } catch {
      throw stateError(error, "cannot allocate the groups the sandbox gives app groups", document: identitiesFile)
    }
  }
}

/// Which uid each app runs as, and which gid each app group has (host state, `State/identities.json`).
struct IdentityTable: DocumentContent {
  static let schemaVersion = 1
  /// Far above ordinary system and login ids.
  static let firstUID: UInt32 = 200_000
  static let firstGID: UInt32 = 300_000
  var apps: [String: UInt32] = [:]
  var groups: [String: UInt32] = [:]

  init() {}

  mutating func id(for name: String, in table: WritableKeyPath<IdentityTable, [String: UInt32]>, base: UInt32) -> UInt32
  {
    if let id = self[keyPath: table][name] { return id }
    let id = base + UInt32(self[keyPath: table].count)
    self[keyPath: table][name] = id
    return id
  }
}

/// Facts about this machine's sandbox support, for messages and `sandbox-profile`.
public enum SandboxReport {
  /// How memory ceilings are enforced here: a cgroup (v1 or v2) when the host can make one, else the watchdog.
  public static func memoryMechanism(simulating kernel: SimulatedKernel) -> String {
    if geteuid() == 0, let version = ControlGroupProbe.version(simulating: kernel) { return "cgroup v\(version)" }
    return "footprint watchdog every 10 ms"
  }

  /// How the thread cap is enforced here: the cgroup's `pids.max`; else RLIMIT_NPROC, of the app's own uid
  /// (`ownUID`, a root host) or inside a user namespace of the child's own (an ordinary host), with the watchdog
  /// as the backstop; the watchdog alone where the kernel refuses unprivileged user namespaces.
  public static func threadMechanism(ownUID: Bool, simulating kernel: SimulatedKernel) -> String {
    if geteuid() == 0, ControlGroupProbe.hasPidsController(simulating: kernel) { return "cgroup pids.max" }
    let watchdog = "the watchdog kills it past the cap, checked every 10 ms"
    if ownUID { return "RLIMIT_NPROC of the app's own uid; \(watchdog)" }
    if ControlGroupProbe.userNamespacesAllowed(simulating: kernel) {
      return "RLIMIT_NPROC in a user namespace of its own, so only its own threads count; \(watchdog)"
    }
    return "\(watchdog) (this kernel refuses unprivileged user namespaces, so RLIMIT_NPROC cannot count its "
      + "threads alone)"
  }
}

extension AssistantHome {
  /// The profile an app (`extensionNamed` nil) or one of its extensions gets. It reads and makes nothing: as root,
  /// identities not recorded yet are shown as the first launch would allocate them (`identityRecorded` false).
  public func profile(of app: AppBundle, extensionNamed: String?, policy: SandboxPolicy) throws -> SandboxProfile {
    if let extensionNamed, let ext = app.extensions.first(where: { $0.name == extensionNamed }) {
      let container = try self.container(for: ext.info.bundleIdentifier)
      return try sandboxProfile(
        name: ext.name, bundleIdentifier: ext.info.bundleIdentifier, bundlePath: ext.url.path,
        executable: ext.executableURL.path,
        kind: ext.extensionInfo.point == .intentsUIService ? .intentsUIExtension : .intentsExtension,
        container: container, appGroups: try grantedAppGroups(ext.entitlements, home: self),
        entitlements: ext.entitlements, appIdentifier: app.info.bundleIdentifier, policy: policy,
        recordingIdentity: false)
    }
    return try sandboxProfile(
      name: app.name, bundleIdentifier: app.info.bundleIdentifier, bundlePath: app.url.path,
      executable: app.executableURL.path, kind: .app, container: try container(for: app.info.bundleIdentifier),
      appGroups: try grantedAppGroups(app.entitlements, home: self), entitlements: app.entitlements,
      appIdentifier: app.info.bundleIdentifier, policy: policy, recordingIdentity: false)
  }
}

extension AssistantHome {
  /// The launch the host makes for one of `app`'s extensions (or the app itself when `extensionNamed` is nil),
  /// confined by `policy`: what `Scripts/bench` measures against a plain spawn.
  public func launchSpecification(of app: AppBundle, extensionNamed: String?, policy: SandboxPolicy) throws
    -> LaunchSpecification
  {
    let ext = extensionNamed.flatMap { name in app.extensions.first { $0.name == name } }
    let identifier = ext?.info.bundleIdentifier ?? app.info.bundleIdentifier
    let container = try container(for: identifier)
    let groups = try grantedAppGroups(ext?.entitlements ?? app.entitlements, home: self)
    var specification = LaunchSpecification(
      name: ext?.name ?? app.name, executable: (ext?.executableURL ?? app.executableURL).path,
      environment: childEnvironment(
        bundleIdentifier: identifier, bundlePath: (ext?.url ?? app.url).path, container: container, appGroups: groups,
        locale: "en_US"),
      workingDirectory: container.path)
    try confine(
      &specification, name: specification.name, bundleIdentifier: identifier, bundlePath: (ext?.url ?? app.url).path,
      kind: ext == nil ? .app : .intentsExtension, container: container, appGroups: groups,
      entitlements: ext?.entitlements ?? app.entitlements, appIdentifier: app.info.bundleIdentifier, policy: policy)
    return specification
  }
}
