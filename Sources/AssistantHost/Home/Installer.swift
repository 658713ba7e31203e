import AppGroupStore
import BundleManifest
import Foundation
import IntentHostSystem
import Understanding
import UntrustedText

extension AssistantHome {
  /// Installs (or updates) an app bundle: validates it with `Validator` (the same rules as `assistant validate`),
  /// checks that its team owns its identifiers and groups and records them (`OwnerTable`, `State/owners.json`), then
  /// copies it into `Applications/` atomically, all under the owner record's lock.
  ///
  /// The bundle goes to `Applications/<its folder name>`, or to `Applications/<bundle id>.app` when another app holds
  /// that folder name, so two apps with the same name are both kept.
  /// Blocks on a file lock and on the disk: call it off the cooperative pool (the async overload does).
  /// - Parameter sharing: app groups another team owns that the user lets this bundle use (`--share-group`).
  /// - Returns: the installed bundle, and the warnings and notes found (errors refuse the install).
  /// - Throws: `HostError(.dataError)` listing every error found; `.refused` naming the owner when an identifier or a
  ///   group belongs to another team; `.cannotCreate` when the home cannot be made (`prepare()`, called first);
  ///   `.ioError` when the owner record cannot be used or the copy fails.
  @discardableResult
  package func install(from source: URL, sharing: Set<String> = []) throws -> (
    app: AppBundle, diagnostics: [Diagnostic]
  ) {
    try Self.checkIsBundleFolder(source)
    // Nothing but regular files and folders: no link can change a manifest after install or point the host
    // outside the bundle, and no FIFO can hang the copy.
    do {
      try BundleTree.check(source)
    } catch let problem as BundleTreeProblem {
      throw HostError(.dataError, "cannot install \(Untrusted.shown(source.path)): \(problem)")
    }
    let app: AppBundle
    do {
      app = try AppBundle.load(from: source)
    } catch let error as InvalidBundleNames {
      let count = error.diagnostics.count
      throw HostError(
        .dataError,
        "cannot install \(source.path): \(count) error\(count == 1 ? "" : "s")\n"
          + error.diagnostics.map(\.description).joined(separator: "\n"))
    } catch let error as ManifestError {
      throw HostError(.dataError, "cannot install \(source.path):\n" + Diagnostic(error).shown)
    }
    let diagnostics = Validator(home: self).validate(app)
    if diagnostics.hasErrors {
      throw HostError(
        .dataError,
        "cannot install \(source.path): \(diagnostics.errors.count) error\(diagnostics.errors.count == 1 ? "" : "s")\n"
          + diagnostics.errors.map(\.shown).joined(separator: "\n"))
    }
    // A script's interpreter is looked up and asked for its library folders once, here (docs/SANDBOX.md,
    // "Interpreted extensions"); each launch checks the installed script against the record.
    let interpreters = try scriptInterpreters(of: app)
    try prepare()
    let (destination, others) = try updatingOwners { table in
      let installed = try installedApps()
      try table.claim(app, installed: installed, sharing: sharing, source: source.path)
      let destination = try copy(app, from: source, installed: installed)
      try recordInterpreters(interpreters)
      return (destination, installed.filter { $0.identifier != app.identifier })
    }
    do {
      return (try AppBundle.load(from: destination), diagnostics + Self.sharedNames(app, others: others))
    } catch {
      throw HostError(.dataError, "installed \(destination.path) does not load: \(error)")
    }
  }

  /// Refuses a path that does not exist, as `assistant validate` does (the same `file-missing` finding, exit 66), and
  /// one that is not a folder (a file, a link), naming what it is.
  /// - Throws: `HostError(.noInput)` for a missing path, `HostError(.dataError)` for anything but a folder.
  static func checkIsBundleFolder(_ source: URL) throws {
    let path = source.standardizedFileURL.path
    var status = stat()
    guard lstat(path, &status) == 0 else {
      let error = SystemError.current("lstat", path)
      if error.code == ENOENT || error.code == ENOTDIR {
        throw HostError(.noInput, "cannot install \(path):\n" + Validator.missing(path).shown)
      }
      throw HostError(.dataError, "cannot install \(path): \(error)")
    }
    let kind = FileKind(mode: status.st_mode)
    guard kind == .directory else {
      let hint: String
      switch kind {
      case .regular: hint = "; `assistant validate \(shellQuoted(path))` checks a single manifest file"
      case .symbolicLink: hint = "; install the folder it points to"
      default: hint = ""
      }
      throw HostError(
        .dataError,
        "cannot install \(path): it is \(kind), not a bundle folder (an .app folder with its Info.plist at the top)"
          + hint)
    }
  }

  /// A warning (`app-name-shared`) for each name `app` answers to (`UtteranceMatcher.names(of:)`: its display name,
  /// bundle name, alternative names, executable's name) that an installed app answers to as well: an utterance that
  /// says it names both, and is asked which (by bundle id).
  static func sharedNames(_ app: AppBundle, others: [AppBundle]) -> [Diagnostic] {
    let matcher = UtteranceMatcher(apps: [])
    return matcher.names(of: app).compactMap { name in
      let words = normalizedWords(name)
      let sharing = others.filter { other in matcher.names(of: other).contains { normalizedWords($0) == words } }
      guard !sharing.isEmpty else { return nil }
      let key =
        name == app.info.displayName
        ? "CFBundleDisplayName"
        : name == app.info.name
          ? "CFBundleName"
          : name == app.info.executable
            ? "CFBundleExecutable" : app.info.alternativeAppNames.contains(name) ? "INAlternativeAppNames" : ""
      return Diagnostic(
        .warning, .appNameShared, file: app.info.file, keyPath: key,
        "answers to \"\(name)\", as " + sharing.map(\.identifier.rawValue).joined(separator: ", ")
          + " does: an utterance that says it will ask which app it means",
        fix: "say the app by its bundle id (\"... with \(app.identifier.rawValue)\"), or rename one of them")
    }
  }

  /// `install(from:sharing:)` off the cooperative pool.
  @discardableResult
  package func install(from source: URL, sharing: Set<String> = []) async throws -> (
    app: AppBundle, diagnostics: [Diagnostic]
  ) {
    try await offloaded { try install(from: source, sharing: sharing) }
  }

  /// Copies a checked bundle into `Applications/`, replacing any installed copy of the same app in its folder.
  /// - Returns: where it is installed.
  private func copy(_ app: AppBundle, from source: URL, installed: [AppBundle]) throws -> URL {
    let fm = FileManager.default
    let others = installed.filter { $0.identifier != app.identifier }
    var destination = applications.appendingPathComponent(source.standardizedFileURL.lastPathComponent)
    // An update keeps the folder the app is installed in, whatever the source folder is called.
    if let current = installed.first(where: { $0.identifier == app.identifier }) { destination = current.url }
    if others.contains(where: { $0.url.lastPathComponent == destination.lastPathComponent }) {
      // Another app has this folder name (the same name, most likely): keep both, this one under its identifier.
      destination = applications.appendingPathComponent("\(app.identifier).app")
    }
    if let clash = others.first(where: { $0.url.lastPathComponent == destination.lastPathComponent }) {
      throw HostError(
        .dataError,
        "cannot install \(source.path): \(clash.identifier) is already installed as "
          + "\(destination.lastPathComponent); uninstall it first")
    }
    let staging = applications.appendingPathComponent(".install-\(getpid())-\(destination.lastPathComponent)")
    let old = applications.appendingPathComponent(".old-\(getpid())-\(destination.lastPathComponent)")
    do {
      try? fm.removeItem(at: staging)
      try BundleTree.copy(source, to: staging)
      // Remove any other installed copy of the same bundle id (it may have another folder name).
      for stale in installed
      where stale.identifier == app.identifier && stale.url.lastPathComponent != destination.lastPathComponent {
        try fm.removeItem(at: stale.url)
      }
      if fm.fileExists(atPath: destination.path) {
        try fm.moveItem(at: destination, to: old)
      }
      try fm.moveItem(at: staging, to: destination)
      try? fm.removeItem(at: old)
    } catch {
      try? fm.removeItem(at: staging)
      if fm.fileExists(atPath: old.path) && !fm.fileExists(atPath: destination.path) {
        try? fm.moveItem(at: old, to: destination)
      }
      if let problem = error as? BundleTreeProblem {
        // Changed since the check (a race with whoever writes the bundle): the bundle's fault, as at the check.
        throw HostError(.dataError, "cannot install \(Untrusted.shown(source.path)): \(problem)")
      }
      // The host's own writing failed (a full disk, a permission): an I/O error, not a refusal.
      let reason = (error as? HostError)?.message ?? describe(error)
      throw HostError(.ioError, "cannot install \(source.path): \(reason)")
    }
    return destination
  }

  /// Uninstalls the app with this bundle identifier or name (`Router.app(named:)`: a name two apps share is refused,
  /// listing their identifiers). Its containers and app groups are kept, and so is its team's ownership of its
  /// identifiers and groups (`OwnerTable`): another team still cannot install a bundle with them. Its donations,
  /// suggested shortcuts and vocabulary are forgotten (`DonationStore.forget`); the user's shortcuts of it are kept,
  /// inactive until it is installed again. A donations, suggestions or vocabulary document that cannot be used
  /// (corrupt, planted) does not fail the uninstall: the bundle is gone, and what could not be forgotten is returned.
  /// - Returns: the removed bundle, and what could not be forgotten, one sentence each naming the files to move aside
  ///   (`DonationStore.forget`).
  package func uninstall(_ identifierOrName: String) throws -> (app: AppBundle, unforgotten: [String]) {
    let apps: [AppBundle]
    do {
      apps = try installedApps()
    } catch let error as HostError {
      // An installed bundle that no longer loads must not keep the user from removing it: by its folder name.
      try removeInvalid(identifierOrName, because: error)
      throw InvalidBundleRemoved(
        folder: identifierOrName.hasSuffix(".app") ? identifierOrName : identifierOrName + ".app")
    }
    // Its folder in Applications (`Rooms.app`, `com.example.rooms.app`, or that folder's path) names it too.
    let folder = (identifierOrName as NSString).lastPathComponent
    let inApplications =
      !identifierOrName.contains("/")
      || URL(fileURLWithPath: identifierOrName).standardizedFileURL.deletingLastPathComponent().path
        == applications.standardizedFileURL.path
    let byFolder = apps.filter { inApplications && folder.hasSuffix(".app") && $0.url.lastPathComponent == folder }
    let app: AppBundle
    do {
      app = try byFolder.first ?? Router(apps: apps).app(named: identifierOrName)
    } catch let error as UnderstandingError {
      throw HostError(error)
    }
    let identifiers = app.allIdentifiers.map(\.rawValue)
    // Its containers, and the app groups no other installed app lists, stay as plain folders: their volumes (if the
    // home has them) are folded back first, so that a volume in use (a running extension or app, a shell inside it)
    // or mounted elsewhere refuses the uninstall with the app still installed (`HostError(.refused)`, 77).
    let others = apps.filter { $0.url != app.url }
    let stillUsed = Set(others.flatMap { $0.applicationGroups.map(\.rawValue) })
    var folders = identifiers.compactMap { try? containerFolder($0) }
    folders += app.applicationGroups.map(\.rawValue).filter { !stillUsed.contains($0) }.compactMap {
      try? appGroupFolder($0)
    }
    for folder in folders {
      do {
        try volume(of: folder).foldBack()
      } catch let error as HostError {
        throw HostError(error.status, "cannot uninstall \(app.name), which stays installed: \(error.message)")
      }
    }
    do {
      try FileManager.default.removeItem(at: app.url)
    } catch {
      throw HostError(.ioError, "cannot remove \(app.url.path): \(describe(error))")
    }
    // Its donations, suggested shortcuts and vocabulary go with it; the user's shortcuts stay (inactive).
    var unforgotten = DonationStore(home: self).forget(app.identifier.rawValue)
    // So do the interpreters recorded for its scripts.
    do {
      try recordInterpreters(Dictionary(uniqueKeysWithValues: identifiers.map { ($0, nil) }))
    } catch {
      unforgotten.append((error as? HostError)?.message ?? "\(error)")
    }
    return (app, unforgotten)
  }
}

/// `uninstall` removed a bundle that no longer loaded (by its folder name): a success, with no bundle to return.
package struct InvalidBundleRemoved: Error, Sendable {
  package var folder: String
}

extension AssistantHome {
  /// Removes `Applications/<name>.app` when it is the bundle that does not load (`error` names it), else rethrows.
  fileprivate func removeInvalid(_ name: String, because error: HostError) throws {
    let folder = name.hasSuffix(".app") ? name : name + ".app"
    guard !folder.contains("/"), folder != ".app", error.message.contains(folder) else { throw error }
    do {
      try FileManager.default.removeItem(at: applications.appendingPathComponent(folder))
    } catch {
      throw HostError(.ioError, "cannot remove \(applications.path)/\(folder): \(describe(error))")
    }
  }
}

/// A file-system error with the path it concerns.
func describe(_ error: any Error) -> String {
  let ns = error as NSError
  let path = ns.userInfo[NSFilePathErrorKey] as? String ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
  let reason = (ns.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? ns.localizedDescription
  return path.map { "\($0): \(reason)" } ?? reason
}
