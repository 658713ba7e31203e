import BundleManifest
import Foundation
import IntentHostSystem
import UntrustedText

/// What a launch may do on the network, from its entitlements (docs/SANDBOX.md, "Network").
public struct NetworkAccess: Sendable, Equatable {
  /// `com.apple.security.network.client`: outgoing TCP and UDP, to any host and port.
  public var client = false
  /// `com.apple.security.network.server`: TCP bind and listen, on any port an unprivileged user may bind.
  public var server = false

  public init(client: Bool = false, server: Bool = false) {
    self.client = client
    self.server = server
  }

  public init(_ entitlements: Entitlements) {
    self.init(client: entitlements.networkClient, server: entitlements.networkServer)
  }

  /// The least Landlock ABI that can hold it: 4 (TCP rules) for `server` without `client`, where only Landlock
  /// refuses the connects that a listening socket's family allows; 1 otherwise (seccomp alone refuses the rest).
  public var landlockABINeeded: Int32 { server && !client ? 4 : 1 }

  /// Why a launch with this access is refused on a kernel offering Landlock ABI `abi`; nil when it can be held.
  public func refusal(abi: Int32) -> String? {
    guard abi < landlockABINeeded else { return nil }
    return "its entitlement \(Entitlements.networkServerKey) needs Landlock ABI 4 (Linux 6.7 or later) to allow "
      + "listening while refusing outgoing TCP connects, and this kernel offers ABI \(abi); the sandbox would "
      + "have to allow every connect, so the launch is refused. Add \(Entitlements.networkClientKey) as well if "
      + "it may connect out, or run it on a newer kernel"
  }

  /// The `network:` line of `assistant sandbox-profile`.
  public var summary: String {
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

/// One path of the read-only exception, as the entitlements wrote it and as granted: its real path.
public struct ReadOnlyException: Sendable, Equatable, Encodable {
  /// The path as written in the entitlements.
  public var entitled: String
  /// Its real path (links resolved), which is what the rules check and the sandbox grants.
  public var path: String

  public init(entitled: String, path: String) {
    self.entitled = entitled
    self.path = path
  }
}

/// The rules for `com.apple.security.temporary-exception.files.absolute-path.read-only` (docs/SANDBOX.md,
/// "Exceptions from entitlements"), checked by `install` and `validate` and again at every launch: each path is
/// checked by its real path (a link is resolved, and the result is what is checked and granted), which must be a
/// regular file or a folder, not be, lie inside or contain a protected folder (the user's home, root's home, the
/// assistant's home, the containers, the app groups; `/proc`, `/sys` and `/dev`, which only they may contain), and
/// neither it nor a folder above it may belong to anyone but root or the user running the host, nor be writable by
/// its group or others (a folder above it may be, when it is root's and sticky, as `/tmp` is).
public struct ReadOnlyPathRules: Sendable {
  /// A folder no exception may reach.
  public struct Protected: Sendable, Equatable {
    /// What it is, for messages: "the home of the user running assistant".
    public var what: String
    /// Its paths, as named and real.
    public var paths: [String]
    /// Whether an exception may contain it (an ancestor, e.g. `/`): false for the folders of the system, which
    /// hold nothing of the host's or another app's.
    public var refuseAncestors: Bool
  }

  public var protected: [Protected]
  /// Owners besides root whose files may be granted: the user running the host.
  public var trustedOwners: Set<uid_t>

  /// The rules for a host with `home` (nil when none can be named: the user's and root's homes are still protected)
  /// run with `environment`.
  public init(home: AssistantHome?, environment: [String: String] = ProcessInfo.processInfo.environment) {
    var protected: [Protected] = []
    func add(_ what: String, _ path: String?, refuseAncestors: Bool = true) {
      guard let path, path.hasPrefix("/") else { return }
      let named = URL(fileURLWithPath: path).standardizedFileURL.path
      let paths = [named] + (realPath(named).map { [$0] } ?? [])
      protected.append(Protected(what: what, paths: Array(Set(paths)).sorted(), refuseAncestors: refuseAncestors))
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
    for system in ["/proc", "/sys", "/dev"] {
      add("\(system), which the sandbox grants only as it lists", system, refuseAncestors: false)
    }
    self.protected = protected
    trustedOwners = [0, geteuid()]
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
  public enum Outcome: Sendable, Equatable {
    /// It may be granted: its real path.
    case granted(String)
    /// It does not exist (a warning at install; skipped at launch).
    case missing
    /// It may not: why, as a phrase after the path ("is inside root's home (/root)").
    case refused(String)
  }

  /// Checks `path`, an entry of the read-only exception (see the type's rules).
  public func check(_ path: String) -> Outcome {
    if let problem = Entitlements.readOnlyPathProblem(path) { return .refused(problem) }
    guard let real = Self.resolve(path) else {
      let error = errno
      guard error == ENOENT || error == ENOTDIR else {
        return .refused("cannot be resolved: \(String(cString: strerror(error)))")
      }
      // Missing: where it would be (its deepest existing folder resolved) must not be protected either.
      let (folder, rest) = Self.deepestExisting(path)
      let would = folder == "/" ? "/" + rest : folder + "/" + rest
      let subject = would == path ? "" : "would resolve to \(would), which "
      return protectedProblem(would, subject: subject).map { .refused("does not exist, and " + $0) } ?? .missing
    }
    // "is inside …" or "resolves to /real, which is inside …": what is checked is the real path.
    let subject = real == path ? "" : "resolves to \(real), which "
    if real == "/" { return .refused("\(subject)is / itself, the whole file system") }
    if let problem = protectedProblem(real, subject: subject) { return .refused(problem) }
    return ownership(real, subject: subject)
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
    if real == "/" { return "\(subject)is / itself, the whole file system" }
    for folder in protected {
      for protectedPath in folder.paths where real == protectedPath || real.hasPrefix(protectedPath + "/") {
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
    // From / down to the path itself: each owned by root or the host's user, none writable by others (but a
    // sticky folder of root's above it, as /tmp).
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
      if !trustedOwners.contains(status.st_uid) {
        return .refused(
          "\(place)belongs to uid \(status.st_uid), neither root nor the user running assistant (who could put "
            + "anything there)")
      }
      let writable = status.st_mode & (S_IWGRP | S_IWOTH) != 0
      let stickyRootFolder = !isTarget && status.st_mode & S_ISVTX != 0 && status.st_uid == 0
      if writable && !stickyRootFolder {
        return .refused(
          "\(place)is writable by \(status.st_mode & S_IWOTH != 0 ? "others" : "its group") (mode "
            + "\(String(status.st_mode & 0o7777, radix: 8)))")
      }
    }
    return .granted(real)
  }

  /// The findings of `install` and `validate` for one entitlements file: each refused path an error, each missing
  /// one a warning (rules `entitlement-read-only-path`, `entitlement-read-only-path-missing`). Paths of the wrong
  /// form are the manifest model's findings already (`Entitlements.diagnostics`).
  public func diagnostics(for entitlements: Entitlements) -> [Diagnostic] {
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
            .warning, "entitlement-read-only-path-missing", file: file, keyPath: keyPath,
            "\"\(path)\" does not exist on this host; each launch skips it until it does",
            fix: "check the path, or remove it if the app does not need it"))
      case .refused(let reason):
        findings.append(
          Diagnostic(
            .error, "entitlement-read-only-path", file: file, keyPath: keyPath, "\"\(path)\" \(reason)",
            fix: Self.fix))
      }
    }
    return findings
  }

  static let fix =
    "grant a system file or folder owned by root (or you) that no one else can write; an app keeps its own files "
    + "in its bundle, its container or an app group, which it has already"

  /// The exceptions a launch gets: each path that exists, by its real path.
  /// - Throws: `HostError(.refused)` naming the launch, the path, the reason and the rule, for the first path the
  ///   rules refuse (the installed copy's entitlements, or the file system, changed since install).
  public func grants(for entitlements: Entitlements, launch: String) throws -> [ReadOnlyException] {
    if entitlements.readOnlyPaths.count > Entitlements.readOnlyPathsLimit {
      throw HostError(
        .refused,
        "\(launch) cannot be sandboxed: \(Entitlements.readOnlyPathsKey) lists \(entitlements.readOnlyPaths.count) "
          + "paths, more than \(Entitlements.readOnlyPathsLimit) [entitlement-read-only-path]; it was not run")
    }
    var grants: [ReadOnlyException] = []
    for path in entitlements.readOnlyPaths {
      switch check(path) {
      case .granted(let real): grants.append(ReadOnlyException(entitled: path, path: real))
      case .missing: continue
      case .refused(let reason):
        throw HostError(
          .refused,
          "\(launch) cannot be sandboxed: \(Entitlements.readOnlyPathsKey) \"\(Untrusted.shown(path))\" "
            + "\(Untrusted.shown(reason)) [entitlement-read-only-path]; \(Self.fix); it was not run")
      }
    }
    return grants
  }
}
