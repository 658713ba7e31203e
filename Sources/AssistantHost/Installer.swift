import AppGroupStore
import BundleManifest
import Foundation

extension AssistantHome {
  /// Installs (or replaces) an app bundle: validates it with `Validator` (the same rules as
  /// `assistant validate`), then copies it into `Applications/` atomically.
  /// - Returns: the installed bundle, and the warnings and notes found (errors refuse the install).
  /// - Throws: `HostError(.dataError)` listing every error found; `.refused` when the copy fails.
  @discardableResult
  public func install(from source: URL) throws -> (app: AppBundle, diagnostics: [Diagnostic]) {
    let app: AppBundle
    do {
      app = try AppBundle.load(from: source)
    } catch let error as ManifestError {
      throw HostError(.dataError, "cannot install \(source.path):\n" + Diagnostic(error).shown)
    }
    let diagnostics = Validator().validate(app)
    if diagnostics.hasErrors {
      throw HostError(
        .dataError,
        "cannot install \(source.path): \(diagnostics.errors.count) error\(diagnostics.errors.count == 1 ? "" : "s")\n"
          + diagnostics.errors.map(\.shown).joined(separator: "\n"))
    }
    let fm = FileManager.default
    let others = try installedApps().filter { $0.info.bundleIdentifier != app.info.bundleIdentifier }
    let destination = applications.appendingPathComponent(source.standardizedFileURL.lastPathComponent)
    if let clash = others.first(where: { $0.url.lastPathComponent == destination.lastPathComponent }) {
      throw HostError(
        .dataError,
        "cannot install \(source.path): \(clash.info.bundleIdentifier) is already installed as "
          + "\(destination.lastPathComponent); uninstall it first")
    }
    let staging = applications.appendingPathComponent(".install-\(getpid())-\(destination.lastPathComponent)")
    let old = applications.appendingPathComponent(".old-\(getpid())-\(destination.lastPathComponent)")
    do {
      try? fm.removeItem(at: staging)
      try fm.copyItem(at: source, to: staging)
      // Remove any other installed copy of the same bundle id (it may have another folder name).
      for stale in try installedApps()
      where stale.info.bundleIdentifier == app.info.bundleIdentifier
        && stale.url.lastPathComponent != destination.lastPathComponent
      {
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
      throw HostError(.refused, "cannot install \(source.path): \(describe(error))")
    }
    do {
      return (try AppBundle.load(from: destination), diagnostics)
    } catch {
      throw HostError(.dataError, "installed \(destination.path) does not load: \(error)")
    }
  }

  /// Uninstalls the app with this bundle identifier or name. Its containers and app groups are kept.
  /// - Returns: the removed bundle.
  public func uninstall(_ identifierOrName: String) throws -> AppBundle {
    guard
      let app = try installedApps().first(where: {
        $0.info.bundleIdentifier == identifierOrName || $0.names.contains(identifierOrName)
      })
    else {
      throw HostError(.noMatch, "no installed app is called \(identifierOrName); `assistant list` shows them")
    }
    do {
      try FileManager.default.removeItem(at: app.url)
    } catch {
      throw HostError(.refused, "cannot remove \(app.url.path): \((error as NSError).localizedDescription)")
    }
    return app
  }
}

/// A file-system error with the path it concerns.
func describe(_ error: any Error) -> String {
  let ns = error as NSError
  let path = ns.userInfo[NSFilePathErrorKey] as? String ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
  let reason = (ns.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? ns.localizedDescription
  return path.map { "\($0): \(reason)" } ?? reason
}
