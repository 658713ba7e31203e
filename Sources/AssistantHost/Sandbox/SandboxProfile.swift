import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import ProcessSupervision
import UntrustedText

/// What one launch may do: the files it may read, write and execute, its identity and its limits. Printed by
/// `assistant sandbox-profile`, and turned into the `SandboxSpec` the spawner applies.
package struct SandboxProfile: Sendable {
  package var kind: SandboxPolicy.Kind
  package var name: String
  package var bundleIdentifier: String
  package var executePaths: [String]
  package var readPaths: [String]
  package var writePaths: [String]
  /// uid, gid and supplementary gids (one per app group) when the host runs as root; nil otherwise.
  package var identity: (uid: uid_t, gid: gid_t, groups: [gid_t])?
  /// Whether `identity` is recorded in `State/identities.json`; false when it is what the first launch would
  /// allocate (a profile shown before any launch, which records nothing).
  package var identityRecorded = true
  package var limits: SandboxPolicy.Limits
  /// What the container and each app group hold now, against the storage budget.
  package var storage: [StorageUsage] = []
  /// The budget of the container and of each app group (`StorageBudget.effective`), and where it comes from.
  package var storageBudget = StorageBudget.standard
  package var storageSource = StorageBudget.Source.standard
  /// How it is enforced for this launch: `volumes` when the home's folders are volumes and no `--storage-limit`
  /// asks for another budget (which is then checked before the launch).
  package var storageEnforcement = StorageEnforcement.checked
  /// The interpreter a script runs with, as recorded at install (docs/SANDBOX.md, "Interpreted extensions"); nil
  /// for an ELF executable.
  var interpreter: ScriptInterpreter? = nil
  /// What its entitlements allow on the network (docs/SANDBOX.md, "Network").
  package var network = NetworkAccess()
  /// The paths its entitlements' temporary exception lets it read, by their real paths (docs/SANDBOX.md,
  /// "Exceptions from entitlements").
  package var readExceptions: [ReadOnlyException] = []
  /// What the kernel is taken to lack (the policy's, `--simulate`), for the mechanisms the profile names.
  package var simulatedKernel = SimulatedKernel()

  /// The first container or group over its budget, if any: the launch is refused.
  package var storageOverBudget: StorageUsage? { storage.first(where: \.isOver) }

  package func spec(abi: Int32) -> SandboxSpec {
    var spec = SandboxSpec(landlockABI: abi, executePaths: executePaths, readPaths: readPaths, writePaths: writePaths)
    spec.identity = identity
    spec.cpuSeconds = limits.cpuSeconds
    spec.openFiles = limits.openFiles
    spec.dataBytes = limits.data
    spec.fileSizeBytes = limits.fileSize
    spec.umask = 0o007
    spec.readExceptionPaths = readExceptions.filter { $0.scope != .listing }.map(\.path)
    spec.listingExceptionPaths = readExceptions.filter { $0.scope == .listing }.map(\.path)
    spec.networkClient = network.client
    spec.networkServer = network.server
    return spec
  }

  /// The profile as `assistant sandbox-profile` prints it.
  package func description(deadlines: Deadlines?, memoryMechanism: String) -> String {
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
      let line = "    \(Untrusted.shown(exception.path)) (\(Entitlements.readOnlyPathsKey)\(written))"
      switch exception.scope {
      case .file: return line
      case .contents: return line + ": the folder and everything in it"
      case .listing:
        return line + ": its listing only (written without a trailing /, which would grant everything in it)"
      }
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
        storageEnforcement == .volumes
          ? "    storage: \(budget.description) for the container and for each app group, each a volume of its own "
            + "(the kernel refuses a write past it: ENOSPC); now:"
          : "    storage: \(budget.description) for the container and for each app group (every file, folder and link "
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
  package struct Report: Sendable, Encodable {
    package var name: String
    package var bundleIdentifier: String
    /// "app", "Intents extension" or "Intents UI extension".
    package var kind: String
    package var execute: [String]
    package var read: [String]
    package var readWrite: [String]
    /// uid, gid and groups when the host runs as root; absent otherwise (the host's user).
    package var identity: Identity?
    package var limits: Limits
    package var storage: [Storage]
    /// Seconds per phase; extensions only.
    package var deadlines: [String: Double]?
    /// Whether this run applies it (false with --no-sandbox).
    package var enforced: Bool
    /// The interpreter of a script; absent (null) for an ELF executable.
    package var interpreter: Interpreter? = nil
    /// `{"client", "server"}`: the network entitlements it has.
    package var network: Network = Network(client: false, server: false)
    /// The paths its entitlements' temporary exception grants: `{"entitled", "path", "scope"}`, as written, as
    /// granted (the real path), and what of it: `file`, `contents` (a folder and everything in it; both also in
    /// `read`) or `listing` (a folder's listing only, not in `read`).
    package var readExceptions: [ReadOnlyException] = []

    enum CodingKeys: String, CodingKey {
      case name, bundleIdentifier, kind, execute, read, readWrite, identity, limits, storage, deadlines, enforced
      case interpreter, network, readExceptions
    }

    /// Every key, `null` where there is no value (an app has no deadlines; a host that is not root, no identity).
    package func encode(to encoder: any Encoder) throws {
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
  package struct Interpreter: Sendable, Encodable {
    /// The `#!` line, after `#!`.
    package var shebang: String
    /// The interpreter as named (or found by `env` at install): argv[0].
    package var path: String
    /// The program executed and granted.
    package var realPath: String
    package var argument: String?
    /// Whether `#!/usr/bin/env NAME` was looked up at install.
    package var resolvedAtInstall: Bool
    package var libraryFolders: [String]
    package var libraryFiles: [String]
  }
  package struct Network: Sendable, Encodable {
    package var client: Bool
    package var server: Bool
  }
  package struct Identity: Sendable, Encodable {
    package var uid: UInt32
    package var gid: UInt32
    package var groups: [UInt32]
  }
  package struct Limits: Sendable, Encodable {
    package var memoryBytes: Int
    package var cpuSeconds: Int
    package var threads: Int
    package var openFiles: Int
    package var fileSizeBytes: Int
    package var dataBytes: Int
  }
  package struct Storage: Sendable, Encodable {
    package var what: String
    package var path: String
    package var bytes: Int?
    package var entries: Int?
    package var budgetBytes: Int
    package var budgetEntries: Int
    package var over: Bool
    /// "checked" (measured before each launch) or "volumes" (a volume of its own).
    package var enforcement: String
  }

  package func report(deadlines: Deadlines?, sandboxed: Bool) -> Report {
    Report(
      name: name, bundleIdentifier: bundleIdentifier, kind: kind.rawValue, execute: executePaths,
      read: readPaths + readExceptions.filter { $0.scope != .listing }.map(\.path), readWrite: writePaths,
      identity: identity.map { Identity(uid: $0.uid, gid: $0.gid, groups: $0.groups) },
      limits: Limits(
        memoryBytes: limits.memory, cpuSeconds: limits.cpuSeconds, threads: limits.threads,
        openFiles: limits.openFiles, fileSizeBytes: limits.fileSize, dataBytes: limits.data),
      storage: storage.map {
        Storage(
          what: $0.what, path: $0.path, bytes: $0.usage?.bytes ?? $0.volume?.usedBytes,
          entries: $0.usage?.entries ?? $0.volume?.usedEntries,
          budgetBytes: $0.budget.bytes, budgetEntries: $0.budget.entries, over: $0.isOver,
          enforcement: storageEnforcement.rawValue)
      },
      deadlines: deadlines.map { deadlines in
        Dictionary(
          uniqueKeysWithValues: Phase.allCases.map { phase in (phase.rawValue, deadlines[phase].inSeconds) })
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
  /// `/dev/urandom` and `/dev/random`, read by every process as on iOS, whose sandbox lets every app read them.
  /// Foundation's `UUID()` reads `/dev/urandom` (not `getrandom`): without it every UUID an extension made in the
  /// sandbox was 00000000-0000-4000-8000-000000000000, silently (found by the FuelOrder example, issue 27).
  static let randomnessDevices = ["/dev/urandom", "/dev/random"]

  /// The profile for launching `target` with `policy`: its own bundle (read), its executable and ELF interpreter
  /// (execute), the library files the loader needs (`LibraryGrants`), `/usr/share/zoneinfo`, `/proc` and the
  /// randomness devices (read), its container and each app group its entitlements list (read and write).
  /// - Parameter recordingIdentity: as root, allocate and record the app's uid and the groups' gids (a launch);
  ///   without it, read what is recorded and make nothing (`sandbox-profile`, a read-only command).
  /// - Throws: `HostError(.refused)` when its ELF headers ask for libraries or a loader outside the folders the
  ///   sandbox trusts.
  func sandboxProfile(
    name: String, bundleIdentifier: String, bundlePath: String, executable: String, kind: SandboxPolicy.Kind,
    container: URL, appGroups: [AppGroupLocation], entitlements: Entitlements, appIdentifier: String,
    policy: SandboxPolicy, storage settings: StorageSettings, recordingIdentity: Bool
  ) throws -> SandboxProfile {
    // An extension's .appex lies in its app's PlugIns folder (an App Intents extension's in Extensions); it may load
    // libraries from anywhere in the app.
    let parent = (bundlePath as NSString).deletingLastPathComponent
    let appBundle =
      ["PlugIns", AppIntentsExtensionBundle.folderName].contains((parent as NSString).lastPathComponent)
      ? (parent as NSString).deletingLastPathComponent : bundlePath
    let grants = LibraryGrants.resolve(executable: executable, appBundle: appBundle)
    if let refusal = grants.refusal {
      throw HostError(.refused, "\(name) (\(bundleIdentifier)) cannot be sandboxed: \(refusal); it was not run")
    }
    var read = [bundlePath] + grants.libraries.filter { !isInside($0, [realPath(bundlePath) ?? bundlePath]) }
    read += ["/usr/share/zoneinfo", "/proc"] + Self.randomnessDevices
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
    let (budget, source) = StorageBudget.effective(run: policy.storageLimit, home: settings.budget)
    let enforcement: StorageEnforcement = settings.enforcement == .volumes && source != .run ? .volumes : .checked
    let folders =
      [try containerFolder(container.lastPathComponent)] + (try appGroups.map { try appGroupFolder($0.identifier) })
    let storage = folders.map { storageUsage(of: $0, budget: budget, enforcement: enforcement) }
    var profile = SandboxProfile(
      kind: kind, name: name, bundleIdentifier: bundleIdentifier, executePaths: execute, readPaths: read,
      writePaths: writable, identity: identity.map { (uid: $0.0, gid: $0.1, groups: $0.2) },
      identityRecorded: recorded, limits: policy.limits[kind] ?? SandboxPolicy().limits[kind]!, storage: storage,
      interpreter: script)
    // The exceptions its entitlements ask for, checked again at each launch: the installed copy or the file system
    // may have changed since install.
    profile.network = NetworkAccess(entitlements)
    profile.simulatedKernel = policy.simulatedKernel
    profile.storageBudget = budget
    profile.storageSource = source
    profile.storageEnforcement = enforcement
    // (The rules read the user database: only when there is something to check.)
    profile.readExceptions =
      entitlements.readOnlyPaths.isEmpty
      ? [] : try ReadOnlyPathRules(home: self).grants(for: entitlements, launch: "\(name) (\(bundleIdentifier))")
    return profile
  }
}

extension AssistantHome {
  /// The profile an app (`extensionNamed` nil) or one of its extensions gets. It reads and makes nothing: as root,
  /// identities not recorded yet are shown as the first launch would allocate them (`identityRecorded` false).
  package func profile(of app: AppBundle, extensionNamed: String?, policy: SandboxPolicy) throws -> SandboxProfile {
    let ext = extensionNamed.flatMap { name in app.extensions.first { $0.name == name } }
    let appIntents = extensionNamed.flatMap { name in app.appIntentsExtensions.first { $0.name == name } }
    let target =
      ext.map { SessionTarget($0, app: app) } ?? appIntents.map { SessionTarget($0, app: app) }
      ?? SessionTarget(app: app)
    return try sandboxProfile(
      name: target.name, bundleIdentifier: target.bundleIdentifier, bundlePath: target.bundlePath,
      executable: target.executable, kind: target.sandboxKind, container: try container(for: target.bundleIdentifier),
      appGroups: try grantedAppGroups(target.entitlements, home: self), entitlements: target.entitlements,
      appIdentifier: target.appIdentifier, policy: policy, storage: try storageSettings(), recordingIdentity: false)
  }

  /// What `folder` holds against `budget`: with volumes, what its mounted volume says (the kernel holds it to the
  /// budget: it is never over, nor walked); otherwise, or while its volume is not mounted, a bounded walk.
  package func storageUsage(of folder: StorageFolder, budget: StorageBudget, enforcement: StorageEnforcement)
    -> StorageUsage
  {
    if enforcement == .volumes, case .mounted(let usage)? = try? volume(of: folder).state() {
      return StorageUsage(what: folder.what, path: folder.path, usage: nil, budget: budget, volume: usage)
    }
    return StorageUsage.measure(folder.what, path: folder.path, budget: budget)
  }
}
