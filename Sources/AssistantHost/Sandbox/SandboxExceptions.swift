import BundleManifest
import Foundation
import IntentHostSystem
import UntrustedText

/// What a launch may do on the network, from its entitlements (docs/SANDBOX.md, "Network").
package struct NetworkAccess: Sendable, Equatable {
  /// `com.apple.security.network.client`: outgoing TCP and UDP, to any host and port.
  package var client = false
  /// `com.apple.security.network.server`: TCP bind and listen, on any port an unprivileged user may bind.
  package var server = false

  package init(client: Bool = false, server: Bool = false) {
    self.client = client
    self.server = server
  }

  package init(_ entitlements: Entitlements) {
    self.init(client: entitlements.networkClient, server: entitlements.networkServer)
  }

  /// The least Landlock ABI that can hold it: 4 (TCP rules) for `server` without `client`, where only Landlock
  /// refuses the connects that a listening socket's family allows; 1 otherwise (seccomp alone refuses the rest).
  package var landlockABINeeded: Int32 { server && !client ? 4 : 1 }

  /// Why a launch with this access is refused on a kernel offering Landlock ABI `abi`; nil when it can be held.
  package func refusal(abi: Int32) -> String? {
    guard abi < landlockABINeeded else { return nil }
    return "its entitlement \(Entitlements.networkServerKey) needs Landlock ABI 4 (Linux 6.7 or later) to allow "
      + "listening while refusing outgoing TCP connects, and this kernel offers ABI \(abi); the sandbox would "
      + "have to allow every connect, so the launch is refused. Add \(Entitlements.networkClientKey) as well if "
      + "it may connect out, or run it on a newer kernel"
  }

  /// The `network:` line of `assistant sandbox-profile`.
  package var summary: String {
    let unix = "no unix-domain, netlink or raw sockets"
    switch (client, server) {
    case (false, false):
      return "denied (no sockets; TCP bind and connect refused by Landlock)"
    case (true, false):
      return "outgoing TCP and UDP to any host and port (\(Entitlements.networkClientKey)); bind and listen refused "
        + "(seccomp, and Landlock for TCP bind); \(unix)"
    case (false, true):
      return "incoming TCP: bind to any port from 1024 and listen (\(Entitlements.networkServerKey)); outgoing TCP "
        + "connect refused (Landlock); no UDP; \(unix)"
    case (true, true):
      return "outgoing TCP and UDP to any host and port, bind to any port from 1024 and listen "
        + "(\(Entitlements.networkClientKey), \(Entitlements.networkServerKey)); \(unix)"
    }
  }
}

/// One path of the read-only exception, as the entitlements wrote it and as granted: its real path, and what of it.
package struct ReadOnlyException: Sendable, Equatable, Encodable {
  /// What an entry grants, by how it is written and what it is (Apple's meaning of a trailing `/`).
  package enum Scope: String, Sendable, Encodable {
    /// A file, written without a trailing `/`: that file.
    case file
    /// A folder written without a trailing `/`: that folder alone, which is its listing (the names in it). Landlock's
    /// read-dir right reaches the listings of the folders below it too; no file in it can be read.
    case listing
    /// A folder written with a trailing `/`: the folder and everything in it.
    case contents
  }

  /// The path as written in the entitlements.
  package var entitled: String
  /// Its real path (links resolved), which is what the rules check and the sandbox grants.
  package var path: String
  package var scope: Scope

  package init(entitled: String, path: String, scope: Scope) {
    self.entitled = entitled
    self.path = path
    self.scope = scope
  }
}

/// The rules for `com.apple.security.temporary-exception.files.absolute-path.read-only` (docs/SANDBOX.md,
/// "Exceptions from entitlements"), checked by `install` and `validate` and again at every launch. An exception can
/// only reach what the system (root) owns. Each path is checked by its real path (a link is resolved, and the result
/// is what is checked and granted), which must be a regular file or a folder; it must not be, lie inside or contain
/// a protected folder: the user's home, root's home, every home of the user database (each account from uid 1000,
/// or whose home is under `/home`) and `/home`, `$XDG_RUNTIME_DIR` and `/run/user`, the assistant's home, its
/// containers and app groups; nor lie in or be another IntentHost home (a folder with `State/identities.json`,
/// `State/owners.json`, or `State/` beside `Containers/`), nor hold one directly; not be `/etc` itself or
/// `/etc/ld.so.cache`, nor `/proc`, `/sys`, `/dev` or anything in them. It and every folder above it must belong to
/// root and be writable by neither group nor others (so nothing in a sticky world-writable folder such as `/tmp`).
package struct ReadOnlyPathRules: Sendable {
  /// A folder (or file) no exception may reach.
  package struct Protected: Sendable, Equatable {
    /// What it is, for messages: "the home of the user running assistant".
    package var what: String
    /// Its paths, as named and real.
    package var paths: [String]
    /// Whether an exception may contain it (an ancestor, e.g. `/`): false for the folders of the system, which
    /// hold nothing of the host's or another app's.
    package var refuseAncestors: Bool
    /// Whether an exception inside it is refused: false for `/etc`, whose files may be granted one by one.
    package var refuseInside = true
  }

  package var protected: [Protected]

  /// At most this many accounts of the user database are read (a bound on what one check costs).
  static let accountsLimit = 10_000
  /// At most this many entries of a granted folder are looked at for another IntentHost home directly inside.
  static let childrenLimit = 4_096
  /// Homes of the user database that are system folders, not a person's: never protected as a home.
  static let systemHomes: Set<String> = [
    "/", "/bin", "/sbin", "/usr", "/usr/bin", "/usr/sbin", "/usr/local", "/usr/lib", "/usr/share", "/lib", "/etc",
    "/var", "/var/lib", "/var/run", "/run", "/tmp", "/dev/null", "/nonexistent", "/proc", "/sys", "/dev",
  ]

  /// The rules for a host with `home` (nil when none can be named: the homes of the users are still protected)
  /// run with `environment`, protecting the homes `passwd` (the user database file) lists.
  /// - Important: it reads the user database (a file): call it off the cooperative pool.
  package init(
    home: AssistantHome?, environment: [String: String] = ProcessInfo.processInfo.environment,
    passwd: String = "/etc/passwd"
  ) {
    var protected: [Protected] = []
    func add(_ what: String, _ path: String?, refuseAncestors: Bool = true, refuseInside: Bool = true) {
      guard let path, path.hasPrefix("/") else { return }
      let named = URL(fileURLWithPath: path).standardizedFileURL.path
      guard named != "/" else { return }
      let paths = [named] + (realPath(named).map { [$0] } ?? [])
      protected.append(
        Protected(
          what: what, paths: Array(Set(paths)).sorted(), refuseAncestors: refuseAncestors, refuseInside: refuseInside))
    }
    add("the home of the user running assistant ($HOME)", environment["HOME"])
    add("the home of the user running assistant", Self.homeFolder(of: geteuid()))
    add("root's home", Self.homeFolder(of: 0) ?? "/root")
    if let home {
      // The most particular first, for the message.
      add("the containers of apps and extensions", home.containers.path)
      add("the app groups", home.appGroupsRoot.path)
      add("the assistant's home", home.root.path)
    }
    add("the runtime folder of the user running assistant ($XDG_RUNTIME_DIR)", environment["XDG_RUNTIME_DIR"])
    add("/run/user, the users' runtime folders", "/run/user")
    for account in Self.accounts(passwd) {
      add("the home of user \(account.name) (uid \(account.uid))", account.home)
    }
    add("/home, the users' homes", "/home")
    add("/etc/ld.so.cache, which the sandbox keeps unreadable so that the loader does not use it", "/etc/ld.so.cache")
    add("/etc itself (its files and folders may be granted one by one)", "/etc", refuseInside: false)
    for system in ["/proc", "/sys", "/dev"] {
      add("\(system), which the sandbox grants only as it lists", system, refuseAncestors: false)
    }
    self.protected = protected
  }

  /// The accounts of the user database file `passwd` whose homes are protected: each from uid 1000 or whose home is
  /// under `/home`, with a home that is not a system folder (`systemHomes`). Accounts only a directory service
  /// (NSS, LDAP) knows are not listed; the running user's home is protected by `getpwuid_r` either way.
  static func accounts(_ passwd: String) -> [(name: String, uid: UInt32, home: String)] {
    // An unreadable database protects no account's home beyond the running user's and root's, which are protected
    // apart (by `getpwuid_r`); nothing else depends on it, so its error is not the launch's.
    guard let file = FileHandle(forReadingAtPath: passwd) else { return [] }
    defer { try? file.close() }  // read-only: closing cannot lose anything
    guard let data = try? file.read(upToCount: 4 << 20) else { return [] }
    var accounts: [(name: String, uid: UInt32, home: String)] = []
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n").prefix(accountsLimit) {
      let fields = line.split(separator: ":", omittingEmptySubsequences: false)
      guard fields.count >= 7, let uid = UInt32(fields[2]) else { continue }
      let home = String(fields[5])
      guard home.hasPrefix("/"), !systemHomes.contains(home) else { continue }
      if uid >= 1000 || home.hasPrefix("/home/") { accounts.append((String(fields[0]), uid, home)) }
    }
    return accounts
  }

  /// The home folder of `uid` in the user database, if any.
  static func homeFolder(of uid: uid_t) -> String? {
    // getpwuid_r, not getpwuid, whose static result another launch's thread may be overwriting.
    var buffer = [CChar](repeating: 0, count: 4096)
    let path = buffer.withUnsafeMutableBufferPointer { storage -> String? in
      var entry = passwd()
      var found: UnsafeMutablePointer<passwd>? = nil
      guard getpwuid_r(uid, &entry, storage.baseAddress!, storage.count, &found) == 0, found != nil,
        let directory = entry.pw_dir
      else { return nil }
      return String(cString: directory)
    }
    return path?.isEmpty == false ? path : nil
  }

  /// What checking one path found.
  package enum Outcome: Sendable, Equatable {
    /// It may be granted: its real path.
    case granted(String)
    /// It does not exist (a warning at install; skipped at launch).
    case missing
    /// It may not: why, as a phrase after the path ("is inside root's home (/root)"), and the fix when it is
    /// not `ReadOnlyPathRules.fix`.
    case refused(String, fix: String? = nil)
  }

  /// Checks `path`, an entry of the read-only exception (see the type's rules). A trailing `/` says "this folder and
  /// everything in it": the folder is what is resolved and checked, and a file so written is refused, with the fix.
  package func check(_ path: String) -> Outcome {
    if let problem = Entitlements.readOnlyPathProblem(path) { return .refused(problem) }
    let named = Entitlements.readOnlyPathNamedItem(path)
    guard let real = Self.resolve(named) else {
      let error = errno
      guard error == ENOENT || error == ENOTDIR else {
        return .refused("cannot be resolved: \(String(cString: strerror(error)))")
      }
      // Missing: where it would be (its deepest existing folder resolved) must not be protected either.
      let (folder, rest) = Self.deepestExisting(named)
      let would = folder == "/" ? "/" + rest : folder + "/" + rest
      let subject = would == named ? "" : "would resolve to \(would), which "
      // (Another IntentHost home is looked for only where the rest passes: it is the last rule, as for a path that
      // exists.)
      let problem =
        protectedProblem(would, subject: subject)
        ?? (ownership(folder, subject: subject) == .granted(folder)
          ? Self.otherHomeProblem(folder, subject: subject) : nil)
      return problem.map { .refused("does not exist, and " + $0) } ?? .missing
    }
    // "is inside …" or "resolves to /real, which is inside …": what is checked is the real path.
    let subject = real == named ? "" : "resolves to \(real), which "
    if real == "/" { return .refused("\(subject)\(Entitlements.rootProblem)") }
    if Entitlements.readOnlyPathNamesContents(path), Self.kind(real) == S_IFREG {
      return .refused(
        "ends with /, which grants a folder and everything in it, but \(real) is a file",
        fix: "write \"\(named)\", without the trailing /, to grant that one file")
    }
    if let problem = protectedProblem(real, subject: subject) { return .refused(problem) }
    let owned = ownership(real, subject: subject)
    guard case .granted = owned else { return owned }
    return Self.otherHomeProblem(real, subject: subject, children: true).map { .refused($0) } ?? owned
  }

  /// The type bits of `real`'s mode (`S_IFREG`, `S_IFDIR`, …), without following a link; 0 when it cannot be read.
  static func kind(_ real: String) -> mode_t {
    var status = stat()
    return lstat(real, &status) == 0 ? status.st_mode & S_IFMT : 0
  }

  /// The canonical path of `path` (links resolved), or nil with `errno` set.
  static func resolve(_ path: String) -> String? {
    guard let resolved = Glibc.realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The real path of the deepest folder of `path` that exists, and the components below it.
  static func deepestExisting(_ path: String) -> (folder: String, rest: String) {
    var components = path.split(separator: "/").map(String.init)
    var rest: [String] = []
    while let last = components.popLast() {
      rest.insert(last, at: 0)
      if let folder = resolve("/" + components.joined(separator: "/")) {
        return (folder, rest.joined(separator: "/"))
      }
    }
    return ("/", rest.joined(separator: "/"))
  }

  /// Why `real` may not be granted for where it is: `/`, or a protected folder, inside one, or holding one.
  func protectedProblem(_ real: String, subject: String) -> String? {
    if real == "/" { return "\(subject)\(Entitlements.rootProblem)" }
    for folder in protected {
      for protectedPath in folder.paths
      where real == protectedPath || (folder.refuseInside && real.hasPrefix(protectedPath + "/")) {
        return "\(subject)is \(real == protectedPath ? "" : "inside ")\(folder.what) (\(protectedPath))"
      }
    }
    for folder in protected where folder.refuseAncestors {
      for protectedPath in folder.paths where protectedPath.hasPrefix(real + "/") {
        return "\(subject)contains \(folder.what) (\(protectedPath))"
      }
    }
    return nil
  }

  /// `real` granted, or refused for who can change it or what it is (missing if it went away since `realpath`).
  func ownership(_ real: String, subject: String) -> Outcome {
    // From / down to the path itself: each owned by root, none writable by its group or others (not even a sticky
    // folder such as /tmp, where a file of root's may have been made for anyone to find, and where the user's own
    // files, a Kerberos ticket /tmp/krb5cc_UID, lie).
    let components = real.split(separator: "/").map(String.init)
    for depth in 0...components.count {
      let current = "/" + components.prefix(depth).joined(separator: "/")
      var status = stat()
      guard lstat(current, &status) == 0 else {
        let error = errno
        if error == ENOENT || error == ENOTDIR { return .missing }  // removed since realpath
        return .refused("cannot be checked: \(current): \(String(cString: strerror(error)))")
      }
      let isTarget = depth == components.count
      let kind = status.st_mode & S_IFMT
      if isTarget && kind != S_IFREG && kind != S_IFDIR {
        return .refused("\(subject)is \(FileKind(mode: status.st_mode)), not a file or a folder")
      }
      if !isTarget && kind != S_IFDIR { return .refused("cannot be checked: \(current) is not a folder") }
      // "belongs to …", or "lies in /folder, which belongs to …" for a folder above it.
      let place = isTarget ? subject : "\(subject)lies in \(current), which "
      if status.st_uid != 0 {
        return .refused(
          "\(place)belongs to uid \(status.st_uid), not root: an exception only reaches what the system owns")
      }
      if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
        return .refused(
          "\(place)is writable by \(status.st_mode & S_IWOTH != 0 ? "others" : "its group") (mode "
            + "\(String(status.st_mode & 0o7777, radix: 8)))")
      }
    }
    return .granted(real)
  }

  /// Whether `folder` looks like an IntentHost home (`AssistantHome`): `State/identities.json` or
  /// `State/owners.json` in it, or `State/` beside `Containers/`. Another home's apps may have the uids this home
  /// gives its own (each home allocates from the same first uid), so nothing of it may be granted.
  static func looksLikeAssistantHome(_ folder: String) -> Bool {
    func exists(_ path: String, folder: Bool) -> Bool {
      var status = stat()
      guard lstat(path, &status) == 0 else { return false }
      return !folder || status.st_mode & S_IFMT == S_IFDIR
    }
    let state = folder == "/" ? "/State" : folder + "/State"
    return exists(state + "/identities.json", folder: false) || exists(state + "/owners.json", folder: false)
      || (exists(state, folder: true) && exists((folder == "/" ? "" : folder) + "/Containers", folder: true))
  }

  /// Why `real` may not be granted for another IntentHost home: it is one, lies in one, or (with `children`, when it
  /// is a folder) holds one directly. A home deeper inside a granted folder is not looked for (docs/SANDBOX.md, "What
  /// is not covered").
  static func otherHomeProblem(_ real: String, subject: String, children: Bool = false) -> String? {
    let components = real.split(separator: "/").map(String.init)
    for depth in stride(from: components.count, through: 1, by: -1) {
      let folder = "/" + components.prefix(depth).joined(separator: "/")
      if looksLikeAssistantHome(folder) {
        return "\(subject)\(folder == real ? "is" : "is inside") another IntentHost home (\(folder)), whose apps may "
          + "have the uids of this home's"
      }
    }
    guard children, let directory = opendir(real) else { return nil }
    defer { closedir(directory) }
    var seen = 0
    while seen < childrenLimit, let entry = readdir(directory) {
      seen += 1
      let name = entry.name
      guard name != "." && name != "..", entry.isDirectoryOrUnknown else { continue }
      let child = real == "/" ? "/" + name : real + "/" + name
      if looksLikeAssistantHome(child) {
        return "\(subject)contains another IntentHost home (\(child)), whose apps may have the uids "
          + "of this home's"
      }
    }
    return nil
  }

  /// The findings of `install` and `validate` for one entitlements file: each refused path an error, each missing
  /// one a warning (rules `entitlement-read-only-path`, `entitlement-read-only-path-missing`). Paths of the wrong
  /// form are the manifest model's findings already (`Entitlements.diagnostics`).
  package func diagnostics(for entitlements: Entitlements) -> [Diagnostic] {
    let file = entitlements.file ?? "entitlements"
    var findings: [Diagnostic] = []
    for (index, path) in entitlements.readOnlyPaths.enumerated()
    where Entitlements.readOnlyPathProblem(path) == nil {
      let keyPath = "\(Entitlements.readOnlyPathsKey)[\(index)]"
      switch check(path) {
      case .granted: break
      case .missing:
        findings.append(
          Diagnostic(
            .warning, .entitlementReadOnlyPathMissing, file: file, keyPath: keyPath,
            "\"\(path)\" does not exist on this host; each launch skips it until it does",
            fix: "check the path, or remove it if the app does not need it"))
      case .refused(let reason, let fix):
        findings.append(
          Diagnostic(
            .error, .entitlementReadOnlyPath, file: file, keyPath: keyPath, "\"\(path)\" \(reason)",
            fix: fix ?? Self.fix))
      }
    }
    return findings
  }

  static let fix =
    "grant a system file or folder that root owns and no one else can write (an exception only reaches what the "
    + "system owns); to give an extension a file of yours, put it in its container or an app group"

  /// The exceptions a launch gets: each path that exists, by its real path, with what of it (`Scope`).
  /// - Throws: `HostError(.refused)` naming the launch, the path, the reason and the rule, for the first path the
  ///   rules refuse (the installed copy's entitlements, or the file system, changed since install).
  package func grants(for entitlements: Entitlements, launch: String) throws -> [ReadOnlyException] {
    if entitlements.readOnlyPaths.count > Entitlements.readOnlyPathsLimit {
      throw HostError(
        .refused,
        "\(launch) cannot be sandboxed: \(Entitlements.readOnlyPathsKey) lists \(entitlements.readOnlyPaths.count) "
          + "paths, more than \(Entitlements.readOnlyPathsLimit) [entitlement-read-only-path]; it was not run")
    }
    var grants: [ReadOnlyException] = []
    for path in entitlements.readOnlyPaths {
      switch check(path) {
      case .granted(let real):
        let scope: ReadOnlyException.Scope =
          Entitlements.readOnlyPathNamesContents(path) ? .contents : Self.kind(real) == S_IFDIR ? .listing : .file
        grants.append(ReadOnlyException(entitled: path, path: real, scope: scope))
      case .missing: continue
      case .refused(let reason, let fix):
        throw HostError(
          .refused,
          "\(launch) cannot be sandboxed: \(Entitlements.readOnlyPathsKey) \"\(Untrusted.shown(path))\" "
            + "\(Untrusted.shown(reason)) [entitlement-read-only-path]; \(Untrusted.shown(fix ?? Self.fix)); it was not "
            + "run")
      }
    }
    return grants
  }
}
