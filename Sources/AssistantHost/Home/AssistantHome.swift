import BundleManifest
import Foundation
import IntentHostSystem

/// The host's home: installed bundles, private containers, logs and host state.
///
/// Layout: `Applications/<Name>.app`, `Containers/<bundle id>/{Documents,Library,tmp}`, `Logs/<bundle id>.log`,
/// `State/`; app-group containers under `AppGroup/<group id>` unless `appGroupsRoot` says otherwise.
///
/// Making one computes paths only: nothing is created until a command that writes calls `prepare()` (install, a
/// launch, `defaults write`), so a read-only command (`list`, `sandbox-profile`, `defaults read`) on a home that does
/// not exist reads it as empty and leaves no trace. `exists` tells the two apart for messages.
package struct AssistantHome: Sendable {
  package let root: URL
  package let appGroupsRoot: URL

  package var applications: URL { root.appendingPathComponent("Applications") }
  package var containers: URL { root.appendingPathComponent("Containers") }
  package var logs: URL { root.appendingPathComponent("Logs") }
  package var state: URL { root.appendingPathComponent("State") }

  /// Computes the home's paths; makes nothing (see `prepare()`).
  /// - Parameters:
  ///   - root: `--home`, else `ASSISTANT_HOME`, else `$XDG_DATA_HOME/intenthost`, else `~/.local/share/intenthost`.
  ///   - appGroupsRoot: `ASSISTANT_APP_GROUPS`, else `<root>/AppGroup`.
  /// - Throws: `HostError(.usage)` when none of these names a home.
  package init(root: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
    let rootPath: String
    if let root, !root.isEmpty {
      rootPath = root
    } else if let home = environment["ASSISTANT_HOME"], !home.isEmpty {
      rootPath = home
    } else if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
      rootPath = data + "/intenthost"
    } else if let home = environment["HOME"], !home.isEmpty {
      rootPath = home + "/.local/share/intenthost"
    } else {
      throw HostError(.usage, "no home: pass --home DIR or set ASSISTANT_HOME")
    }
    self.root = URL(fileURLWithPath: rootPath).standardizedFileURL
    if let groups = environment["ASSISTANT_APP_GROUPS"], !groups.isEmpty {
      appGroupsRoot = URL(fileURLWithPath: groups).standardizedFileURL
    } else {
      appGroupsRoot = self.root.appendingPathComponent("AppGroup")
    }
  }

  /// Whether the home's root is a directory (a link to one counts, as the user may keep the home elsewhere). False
  /// for a home no command has written yet: `list` says so instead of "no apps installed", without making it.
  package var exists: Bool {
    var info = stat()
    return stat(root.path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  /// Makes the home's folders that do not exist yet (`root`, `Applications`, `Containers`, `Logs`, `State` and the
  /// app groups' root), as `mkdir -p` does, mode 0777 less the umask: what every command that writes needs first.
  /// The library's writers call it themselves (`install`, every launch, `appGroupContainer`); a command line calls
  /// it early to report an uncreatable home before doing anything else. Cheap when the folders exist (one
  /// `stat` each).
  /// - Throws: `HostError(.cannotCreate)` naming the folder that cannot be made, why (a regular file in the way, no
  ///   permission, a read-only file system) and the fix.
  package func prepare() throws {
    for folder in [root, applications, containers, logs, state, appGroupsRoot] {
      try Self.makeFolder(folder.path, partOf: folder == appGroupsRoot ? "app groups' folder" : "home")
    }
  }

  /// `prepare()` off the cooperative pool (its `mkdir`s wait on the disk).
  package func prepare() async throws {
    try await offloaded { () throws in try prepare() }
  }

  /// `mkdir -p path`, reporting the first component that cannot be made (or is not a folder). A folder that is
  /// there already costs one `stat`.
  private static func makeFolder(_ path: String, partOf what: String) throws {
    var info = stat()
    if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return }
    var current = ""
    for component in path.split(separator: "/") {
      current += "/" + component
      if mkdir(current, 0o777) == 0 { continue }
      let error = SystemError.current("mkdir", current)
      var info = stat()
      if error.code == EEXIST, stat(current, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
      let reason = error.code == EEXIST ? "\(current) exists and is not a folder" : "\(error)"
      let fix =
        what == "home"
        ? "pass --home DIR (or set ASSISTANT_HOME) with a folder you can create and write"
        : "set ASSISTANT_APP_GROUPS to a folder you can create and write, or unset it"
      throw HostError(.cannotCreate, "cannot create the \(what) \(path): \(reason); \(fix)")
    }
  }

  /// Where the private container of a bundle is, `Containers/<bundle id>`. Nothing is made: a launch makes it
  /// (`prepareDirectories`), with its final owner and mode.
  /// - Throws: `HostError(.dataError)` when the identifier is not one path component.
  package func container(for bundleIdentifier: String) throws -> URL {
    containers.appendingPathComponent(try Self.pathComponent(bundleIdentifier, "bundle identifier"))
  }

  /// Where the shared container of an app group is, `<app groups>/<group id>`. Nothing is made.
  /// - Throws: `HostError(.dataError)` when the identifier is not one path component.
  package func appGroupLocation(_ identifier: String) throws -> URL {
    appGroupsRoot.appendingPathComponent(try Self.pathComponent(identifier, "app group identifier"))
  }

  /// The shared container of an app group, made on first use with its final owner and mode (see
  /// `prepareAppGroup`), and mounted as its volume when the home's folders are volumes, for `defaults write`; the
  /// home is prepared first (`prepare()`).
  /// - Important: it writes; a command that only reads uses `appGroupLocation(_:)`.
  /// - Throws: `HostError` when the identifier is not one path component or the folder cannot be made.
  package func appGroupContainer(_ identifier: String) throws -> URL {
    _ = try appGroupLocation(identifier)  // before anything is allocated for it
    try prepare()
    let settings = try storageSettings()
    let gid = geteuid() == 0 ? try groupIDs([identifier])[0] : nil
    return try prepareAppGroup(
      identifier, gid: gid, volume: settings.enforcement == .volumes ? settings.effectiveBudget : nil)
  }

  /// `identifier`, checked to be exactly one path component: not empty, not `.` or `..`, no `/` and no NUL.
  /// BundleManifest validates identifiers where they are parsed; this is the last check before one becomes part of a
  /// path.
  /// - Throws: `HostError(.dataError)` naming the identifier.
  static func pathComponent(_ identifier: String, _ what: String) throws -> String {
    guard !identifier.isEmpty, identifier != ".", identifier != "..", !identifier.contains("/"),
      !identifier.utf8.contains(0)
    else {
      throw HostError(
        .dataError, "the \(what) \"\(identifier)\" is not a single path component; refusing to build a path from it")
    }
    return identifier
  }

  package func logFile(for bundleIdentifier: String) -> URL {
    logs.appendingPathComponent(bundleIdentifier + ".log")
  }

  /// Every installed app, sorted by name; none when `Applications` or the home does not exist (a home not yet
  /// written: see `exists`). Makes nothing.
  /// - Throws: `HostError(.dataError)` naming the first bundle that no longer loads; `.ioError` when `Applications`
  ///   exists but cannot be read.
  package func installedApps() throws -> [AppBundle] {
    let names: [String]
    do throws(SystemError) {
      let folder = try DirectoryDescriptor.openTrusted(applications.path)
      defer { folder.close() }
      names = try folder.entries()
    } catch {
      // Missing, or the home's root is not a folder (then `exists` is false): nothing is installed.
      guard error.code == ENOENT || (error.code == ENOTDIR && !exists) else {
        throw HostError(.ioError, "cannot list the installed apps in \(applications.path): \(error)")
      }
      names = []
    }
    return try names.filter { $0.hasSuffix(".app") && !$0.hasPrefix(".") }.sorted().map { name in
      do {
        return try AppBundle.load(from: applications.appendingPathComponent(name))
      } catch let error as ManifestError {
        throw HostError(
          .dataError,
          "installed app \(name) is invalid: \(error); reinstall it with `assistant install`, or remove it with "
            + "`assistant uninstall \(name)`")
      } catch let error as InvalidBundleNames {
        // Only a bundle put there by hand: install refuses it. The host never acts on its names.
        throw HostError(
          .dataError,
          "installed app \(name) is invalid, and is not used: \(error)\nremove it with `assistant uninstall \(name)`, or "
            + "reinstall it with `assistant install`"
        )
      }
    }
  }
}
