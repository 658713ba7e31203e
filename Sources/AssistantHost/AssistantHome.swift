import BundleManifest
import Foundation
import IntentHostSystem

/// The host's home: installed bundles, private containers, logs and host state.
///
/// Layout: `Applications/<Name>.app`, `Containers/<bundle id>/{Documents,Library,tmp}`, `Logs/<bundle id>.log`,
/// `State/`; app-group containers under `AppGroup/<group id>` unless `appGroupsRoot` says otherwise.
public struct AssistantHome: Sendable {
  public let root: URL
  public let appGroupsRoot: URL

  public var applications: URL { root.appendingPathComponent("Applications") }
  public var containers: URL { root.appendingPathComponent("Containers") }
  public var logs: URL { root.appendingPathComponent("Logs") }
  public var state: URL { root.appendingPathComponent("State") }

  /// - Parameters:
  ///   - root: `--home`, else `ASSISTANT_HOME`, else `$XDG_DATA_HOME/intenthost`, else `~/.local/share/intenthost`.
  ///   - appGroupsRoot: `ASSISTANT_APP_GROUPS`, else `<root>/AppGroup`.
  public init(root: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
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
    for url in [applications, containers, logs, state, appGroupsRoot] {
      do {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      } catch {
        throw HostError(.refused, "cannot create \(url.path): \((error as NSError).localizedDescription)")
      }
    }
  }

  /// Where the private container of a bundle is, `Containers/<bundle id>`. Nothing is made: a launch makes it
  /// (`prepareDirectories`), with its final owner and mode.
  /// - Throws: `HostError(.dataError)` when the identifier is not one path component.
  public func container(for bundleIdentifier: String) throws -> URL {
    containers.appendingPathComponent(try Self.pathComponent(bundleIdentifier, "bundle identifier"))
  }

  /// Where the shared container of an app group is, `<app groups>/<group id>`. Nothing is made.
  /// - Throws: `HostError(.dataError)` when the identifier is not one path component.
  public func appGroupLocation(_ identifier: String) throws -> URL {
    appGroupsRoot.appendingPathComponent(try Self.pathComponent(identifier, "app group identifier"))
  }

  /// The shared container of an app group, made on first use with its final owner and mode (see
  /// `prepareAppGroup`), for `assistant defaults`.
  /// - Throws: `HostError` when the identifier is not one path component or the folder cannot be made.
  public func appGroupContainer(_ identifier: String) throws -> URL {
    _ = try appGroupLocation(identifier)  // before anything is allocated for it
    let gid = geteuid() == 0 ? try groupIDs([identifier])[0] : nil
    return try prepareAppGroup(identifier, gid: gid)
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

  public var exists: Bool { FileManager.default.fileExists(atPath: root.path) }
  public func prepare() throws {}

  public func logFile(for bundleIdentifier: String) -> URL {
    logs.appendingPathComponent(bundleIdentifier + ".log")
  }

  /// Every installed app, sorted by name.
  /// - Throws: `HostError(.dataError)` naming the first bundle that no longer loads.
  public func installedApps() throws -> [AppBundle] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: applications.path)) ?? []
    return try names.filter { $0.hasSuffix(".app") && !$0.hasPrefix(".") }.sorted().map { name in
      do {
        return try AppBundle.load(from: applications.appendingPathComponent(name))
      } catch let error as ManifestError {
        throw HostError(
          .dataError, "installed app \(name) is invalid: \(error); reinstall it with `assistant install`")
      } catch let error as InvalidBundleNames {
        // Only a bundle put there by hand: install refuses it. The host never acts on its names.
        throw HostError(
          .dataError,
          "installed app \(name) is invalid, and is not used: \(error)\nremove it, or reinstall it with `assistant install`"
        )
      }
    }
  }
}
