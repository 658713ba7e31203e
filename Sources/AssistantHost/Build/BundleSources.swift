import BundleManifest
import Foundation
import IntentHostSystem
import UntrustedText

/// The bundles a source folder declares, as Xcode's targets do: every folder below it that holds an `Info.plist`
/// is one bundle's folder (its manifests: the Info.plist, entitlements, definitions, `.lproj` folders, a static
/// `Metadata.appintents`), and the bundle's executable is either a file in that folder (a script) or the package's
/// product of that name (`CFBundleExecutable`).
///
/// An extension belongs to the app whose bundle identifier prefixes its own followed by a dot (Apple's rule for an
/// embedded extension: `com.example.rooms.RoomsIntents` is embedded in `com.example.rooms`). An Intents or Intents UI
/// extension goes into the app's `PlugIns`, an App Intents extension into its `Extensions`.
///
/// ```
/// Coffee/                      an app: Info.plist, Coffee.entitlements, Base.lproj/Intents.intentdefinition
/// CoffeeIntents/               its Intents extension: Info.plist (NSExtension), CoffeeIntents.entitlements
/// CoffeeIntents/Code/*.swift   the extension's Swift target (never copied into the bundle)
/// ```
package struct BundleSources: Sendable {
  /// One bundle's folder in the sources.
  package struct Source: Sendable, Equatable {
    /// How the bundle is embedded.
    package enum Kind: String, Sendable, Codable {
      /// A containing app: `NAME.app`.
      case app
      /// An Intents or Intents UI extension: `APP.app/PlugIns/NAME.appex`.
      case plugIn
      /// An App Intents extension: `APP.app/Extensions/NAME.appex`.
      case appIntentsExtension
    }

    /// The folder of its manifests.
    package var folder: URL
    /// The bundle's name: the folder's (`Rooms` makes `Rooms.app`).
    package var name: String
    package var kind: Kind
    package var bundleIdentifier: String
    /// `CFBundleExecutable`.
    package var executable: String
    /// Whether the executable is a file in the folder (a script), rather than a product to build.
    package var executableInFolder: Bool
  }

  /// An app and the extensions embedded in it.
  package struct App: Sendable, Equatable {
    package var app: Source
    package var extensions: [Source]

    /// Every bundle of it, the app first.
    package var all: [Source] { [app] + extensions }
  }

  /// The folder searched.
  package var root: URL
  /// The Swift package the sources belong to (the nearest folder at or above `root` with a `Package.swift`); nil
  /// for sources whose executables are all scripts.
  package var package: URL?
  /// The apps found, by name.
  package var apps: [App]

  /// The products to build: every executable that is not a file in its folder, in order, once each.
  package var products: [String] {
    var seen = Set<String>()
    return apps.flatMap(\.all).filter { !$0.executableInFolder }.map(\.executable).filter { seen.insert($0).inserted }
  }

  /// How deep below the root a bundle folder may be.
  static let maximumDepth = 6
  /// The most folders looked at.
  static let maximumFolders = 10_000

  /// Finds the bundles below `root`: folders that hold an `Info.plist`, not descending into one, nor into hidden
  /// folders, `.build`, assembled bundles (`.app`, `.appex`) or links.
  /// - Throws: `HostError(.noInput)` when `root` does not exist; `.dataError` naming the file and the fix for an
  ///   Info.plist that does not parse, a name that cannot name a bundle, an extension no app embeds, two bundles of
  ///   one name, or no bundle at all.
  package static func find(in root: URL) throws -> BundleSources {
    let root = root.standardizedFileURL
    var status = stat()
    guard stat(root.path, &status) == 0 else {
      throw HostError(.noInput, "cannot build \(root.path): \(SystemError.current("stat"))")
    }
    guard FileKind(mode: status.st_mode) == .directory else {
      throw HostError(.dataError, "cannot build \(root.path): it is not a folder (give the package's folder)")
    }
    var folders: [URL] = []
    var visited = 0
    func search(_ folder: URL, depth: Int) throws {
      visited += 1
      guard visited <= maximumFolders else {
        throw HostError(
          .dataError,
          "cannot build \(root.path): more than \(maximumFolders) folders to search; give the package's folder")
      }
      if isRegularFile(folder.appendingPathComponent("Info.plist")) {
        folders.append(folder)
        return
      }
      guard depth < maximumDepth else { return }
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      for name in names.sorted() where !name.hasPrefix(".") && !name.hasSuffix(".app") && !name.hasSuffix(".appex") {
        let child = folder.appendingPathComponent(name)
        var status = stat()
        guard lstat(child.path, &status) == 0, FileKind(mode: status.st_mode) == .directory else { continue }
        try search(child, depth: depth + 1)
      }
    }
    try search(root, depth: 0)
    let sources = try folders.map(source(in:))
    return BundleSources(root: root, package: packageFolder(at: root), apps: try embed(sources, root: root))
  }

  /// Reads one bundle folder's Info.plist.
  static func source(in folder: URL) throws -> Source {
    let file = folder.appendingPathComponent("Info.plist")
    let info: InfoPlist
    do {
      let settings = try BuildSettings.forBundle(at: folder, explicit: [:])
      info = try InfoPlist.load(contentsOf: file, settings: settings, unresolved: .warning)
    } catch let error as ManifestError {
      throw HostError(.dataError, "cannot build \(folder.path):\n" + Diagnostic(error).shown)
    }
    let name = folder.lastPathComponent
    if let problem = bundleNameProblem(name) {
      throw HostError(
        .dataError, "cannot build \(Untrusted.shown(folder.path)): the folder's name \(problem); rename the folder")
    }
    if let problem = bundleNameProblem(info.executable) {
      throw HostError(
        .dataError,
        "cannot build \(Untrusted.shown(folder.path)): \(file.path): CFBundleExecutable \(problem); name the "
          + "executable product, or the script in the folder")
    }
    let kind: Source.Kind =
      info.extensionInfo != nil
      ? .plugIn
      : info.appExtensionPointIdentifier == AppIntentsExtensionBundle.extensionPoint ? .appIntentsExtension : .app
    return Source(
      folder: folder, name: name, kind: kind, bundleIdentifier: info.bundleIdentifier, executable: info.executable,
      executableInFolder: isRegularFile(folder.appendingPathComponent(info.executable)))
  }

  /// Why `name` cannot name a bundle or an executable in one (a file name of letters, digits, `.`, `_`, `-` and
  /// spaces, not starting with a dot), or nil.
  static func bundleNameProblem(_ name: String) -> String? {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._- ")
    if name.isEmpty { return "is empty" }
    if name.hasPrefix(".") { return "\"\(Untrusted.shown(name))\" starts with a dot" }
    if name.count > 255 { return "is longer than 255 characters" }
    if !name.allSatisfy({ allowed.contains($0) }) {
      return "\"\(Untrusted.shown(name))\" has a character other than letters, digits, '.', '_', '-' and spaces"
    }
    return nil
  }

  /// Puts each extension in the app whose bundle identifier, followed by a dot, is the longest prefix of its own.
  static func embed(_ sources: [Source], root: URL) throws -> [App] {
    var apps = sources.filter { $0.kind == .app }.map { App(app: $0, extensions: []) }
    guard !apps.isEmpty else {
      let found = sources.isEmpty ? "no folder with an Info.plist" : "extensions but no app"
      throw HostError(
        .dataError,
        "cannot build \(root.path): it has \(found); an app is a folder with an Info.plist without NSExtension, its "
          + "extensions folders beside it (`assistant new app NAME` writes one)")
    }
    var names = Set<String>()
    for source in sources where !names.insert(source.name).inserted {
      let folders = sources.filter { $0.name == source.name }.map(\.folder.path)
      throw HostError(
        .dataError,
        "cannot build \(root.path): two bundles are named \(Untrusted.shown(source.name)) (\(Untrusted.shown(folders.joined(separator: ", ")))); rename one folder"
      )
    }
    for source in sources where source.kind != .app {
      let owners = apps.indices.filter { source.bundleIdentifier.hasPrefix(apps[$0].app.bundleIdentifier + ".") }
      guard let owner = owners.max(by: { apps[$0].app.bundleIdentifier.count < apps[$1].app.bundleIdentifier.count })
      else {
        let identifiers = apps.map(\.app.bundleIdentifier).joined(separator: ", ")
        throw HostError(
          .dataError,
          "cannot build \(root.path): \(Untrusted.shown(source.folder.path))/Info.plist: the extension's "
            + "CFBundleIdentifier \(Untrusted.shown(source.bundleIdentifier)) does not start with an app's bundle "
            + "identifier and a dot (the apps: \(Untrusted.shown(identifiers))); an extension's identifier is its "
            + "app's, a dot, and its own name")
      }
      apps[owner].extensions.append(source)
    }
    return apps
  }

  /// The nearest folder at or above `folder` with a `Package.swift`.
  static func packageFolder(at folder: URL) -> URL? {
    var current = folder
    while true {
      if isRegularFile(current.appendingPathComponent("Package.swift")) { return current }
      let parent = current.deletingLastPathComponent()
      if parent.path == current.path || current.path == "/" { return nil }
      current = parent
    }
  }

  static func isRegularFile(_ url: URL) -> Bool {
    var status = stat()
    return lstat(url.path, &status) == 0 && FileKind(mode: status.st_mode) == .regular
  }
}
