import AppIntentsMetadata
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A bundle's `Metadata.appintents` folder, read: what the host learns of the App Intents of the app or of the App
/// Intents extension that holds it, without running any code (docs/APPINTENTS.md).
///
/// Reading never throws: a file that cannot be read is kept as its `MetadataError`, so that `assistant validate`
/// lists it with every other finding. Nothing is read through a symbolic link, nothing but a regular file is read,
/// and no file past `MetadataLimits.standard`'s size.
public struct AppIntentsMetadataFolder: Sendable, Equatable {
  /// The `Metadata.appintents` folder.
  public let url: URL
  /// The bundle that holds it (the `.app`, or an `.appex` of `Extensions/`): where its intents run.
  public let bundleURL: URL
  /// `extract.actionsdata`, or why it cannot be read.
  public let document: Result<MetadataDocument, MetadataError>
  /// `version.json`, or why it cannot be read; nil when the folder has none.
  public let version: Result<MetadataVersion, MetadataError>?
  /// What reading found besides: a note for each key IntentHost does not read, a warning for an unknown version.
  public let readingFindings: [MetadataFinding]
  /// The bundle's `LANG.lproj/AppShortcuts.strings` tables (and any other App Shortcuts table or catalog in it).
  public let shortcutsStrings: [AppShortcutsStrings]

  /// `extract.actionsdata`'s path.
  public var actionsDataFile: String { url.appendingPathComponent(MetadataReader.actionsDataName).path }

  /// The document when it was read.
  public var readDocument: MetadataDocument? {
    if case .success(let document) = document { return document }
    return nil
  }

  /// The digest of the document (`MetadataDocument.digest`), which an extension reports in `initialize`; nil when
  /// it could not be read.
  public var digest: String? { readDocument?.digest }

  /// Every finding about the folder and its tables: reading's notes, a file that cannot be read, then
  /// `MetadataValidator`'s rules, in order; without Apple's closing line (`AppBundle.appIntentsDiagnostics` adds it).
  public var findings: [MetadataFinding] {
    var findings = readingFindings
    if case .failure(let error) = version { findings.append(error.finding) }
    switch document {
    case .success(let document):
      findings += MetadataValidator.validate(document, file: actionsDataFile, strings: shortcutsStrings)
    case .failure(let error):
      findings.append(error.finding)
      // The tables' own rules still hold.
      findings += MetadataValidator.validate(MetadataDocument(), file: actionsDataFile, strings: shortcutsStrings)
    }
    return findings
  }

  /// Reads `bundle/Metadata.appintents` and the bundle's App Shortcuts tables; nil when the bundle has no such
  /// folder.
  /// - Throws: `ManifestError` for an `AppShortcuts.strings` that does not parse, as for every `.strings` table.
  static func load(in bundle: URL) throws -> AppIntentsMetadataFolder? {
    let url = bundle.appendingPathComponent(MetadataReader.folderName)
    var status = stat()
    guard lstat(url.path, &status) == 0 else { return nil }
    return try load(folder: url, bundle: bundle)
  }

  /// Reads the metadata folder `url` (`extract.actionsdata` and `version.json` in it) and the App Shortcuts tables
  /// of `bundle`, the folder that holds it: what `assistant validate` does with a `Metadata.appintents` folder given
  /// on its own.
  /// - Throws: `ManifestError` for an `AppShortcuts.strings` that does not parse, as for every `.strings` table.
  public static func load(folder url: URL, bundle: URL) throws -> AppIntentsMetadataFolder {
    try load(folder: url, bundle: bundle, cache: .shared)
  }

  /// `load(folder:bundle:)` with the readings kept in `cache`.
  package static func load(
    folder url: URL, bundle: URL, cache: MetadataReadingCache
  ) throws -> AppIntentsMetadataFolder {
    var status = stat()
    let file = url.appendingPathComponent(MetadataReader.actionsDataName).path
    let strings = try shortcutsTables(in: bundle)
    guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
      let kind =
        status.st_mode & S_IFMT == S_IFLNK ? "a symbolic link, which IntentHost does not follow" : "not a folder"
      return AppIntentsMetadataFolder(
        url: url, bundleURL: bundle,
        document: .failure(
          MetadataError(file: url.path, problem: "is \(kind)", fix: "make it a folder holding extract.actionsdata")),
        version: nil, readingFindings: [], shortcutsStrings: strings)
    }
    var findings: [MetadataFinding] = []
    let document: Result<MetadataDocument, MetadataError>
    do throws(MetadataError) {
      // Parsed once per file as long as the process lives (`MetadataReadingCache`), by the identity of the file
      // opened, not by its path.
      let reading = try withBundleFile(file, required: true) { descriptor, status throws(MetadataError) in
        try cache.reading(of: file, file: .init(status)) { () throws(MetadataError) in
          try MetadataReader.read(
            try readAll(descriptor, status: status, path: file, limit: MetadataLimits.standard.maximumBytes),
            file: file)
        }
      }!
      findings += reading.findings
      document = .success(reading.document)
    } catch {
      document = .failure(error)
    }
    let versionFile = url.appendingPathComponent(MetadataReader.versionName).path
    var version: Result<MetadataVersion, MetadataError>? = nil
    do throws(MetadataError) {
      if let bytes = try readBundleFile(versionFile, limit: MetadataLimits.standard.maximumBytes, required: false) {
        let (read, versionFindings) = try MetadataReader.readVersion(bytes, file: versionFile)
        findings += versionFindings
        version = .success(read)
      }
    } catch {
      version = .failure(error)
    }
    return AppIntentsMetadataFolder(
      url: url, bundleURL: bundle, document: document, version: version, readingFindings: findings,
      shortcutsStrings: strings)
  }

  /// The bundle's App Shortcuts tables: `AppShortcuts.strings` in each `LANG.lproj` and at the top, and any
  /// `AppShortcuts.xcstrings` (whose strings are not read).
  static func shortcutsTables(in bundle: URL) throws -> [AppShortcutsStrings] {
    let names = [AppShortcutsStrings.fileName, AppShortcutsStrings.catalogName]
    var tables: [AppShortcutsStrings] = []
    func add(_ url: URL, language: String?) throws {
      if url.lastPathComponent == AppShortcutsStrings.catalogName {
        tables.append(AppShortcutsStrings(file: url.path, language: language, strings: [:]))
        return
      }
      guard let bytes = try readManifestFile(url.path, required: false) else { return }
      let table = try StringsTable.parse(Data(bytes), url: url)
      tables.append(AppShortcutsStrings(file: url.path, language: language, strings: table.strings))
    }
    let entries = ((try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? []).sorted()
    for name in entries where names.contains(name) { try add(bundle.appendingPathComponent(name), language: nil) }
    for folder in entries where folder.hasSuffix(".lproj") && isFolder(bundle.appendingPathComponent(folder)) {
      let language = String(folder.dropLast(".lproj".count))
      for name in names where exists(bundle.appendingPathComponent(folder).appendingPathComponent(name)) {
        try add(bundle.appendingPathComponent(folder).appendingPathComponent(name), language: language)
      }
    }
    return tables
  }
}

/// An App Intents extension: `<App>.app/Extensions/<Name>.appex` whose Info.plist names the point
/// `EXAppExtensionAttributes.EXExtensionPointIdentifier` `com.apple.appintents-extension` (an ExtensionKit bundle,
/// as Xcode embeds it). The intents its `Metadata.appintents` declares run in it.
///
/// Its names passed the grammar when it was loaded, as a `PlugIns` extension's do (`NameRules.bundleNames`).
public struct AppIntentsExtensionBundle: Sendable, Equatable {
  /// The extension point of App Intents extensions.
  public static let extensionPoint = "com.apple.appintents-extension"
  /// The folder of ExtensionKit extensions in an app bundle.
  public static let folderName = "Extensions"

  public internal(set) var url: URL
  public internal(set) var info: InfoPlist
  /// `CFBundleIdentifier`, checked: its app's identifier plus one component.
  public let identifier: BundleIdentifier
  public internal(set) var entitlements: Entitlements
  public var settings: BuildSettings
  /// Its `Metadata.appintents`; nil when it has none (a warning: it declares no intent).
  public internal(set) var metadata: AppIntentsMetadataFolder?

  public var executableURL: URL { url.appendingPathComponent(info.executable) }
  /// The bundle's name without `.appex`, used in messages ("FuelOrderIntents").
  public var name: String { url.deletingPathExtension().lastPathComponent }
}

extension AppBundle {
  /// Every `Metadata.appintents` of the app: its own, then its App Intents extensions', in name order.
  public var allAppIntentsMetadata: [AppIntentsMetadataFolder] {
    (appIntentsMetadata.map { [$0] } ?? []) + appIntentsExtensions.compactMap(\.metadata)
  }

  /// The App Intents findings of the app, as `assistant validate` and `install` report them: each folder's
  /// (`AppIntentsMetadataFolder.findings`), an App Intents extension without metadata, App Shortcuts in more than one
  /// folder, an intent declared in more than one; then, when one is an error, Apple's `At least one halting error produced.` naming the bundle.
  public var appIntentsDiagnostics: [Diagnostic] {
    var diagnostics = allAppIntentsMetadata.flatMap(\.findings).map(Diagnostic.init)
    for ext in appIntentsExtensions where ext.metadata == nil {
      diagnostics.append(
        Diagnostic(
          .warning, .appIntentsExtensionEmpty, file: ext.url.path,
          "is an App Intents extension without \(MetadataReader.folderName): it declares no intent, so nothing runs in it",
          fix: "build its Metadata.appintents into it (docs/APPINTENTS.md), or remove the extension"))
    }
    let providers = allAppIntentsMetadata.filter { !($0.readDocument?.autoShortcuts.isEmpty ?? true) }
    for folder in providers.dropFirst() {
      diagnostics.append(
        Diagnostic(
          .error, .appShortcutsProviderTwice, file: folder.actionsDataFile, keyPath: "autoShortcuts",
          "declares App Shortcuts, as \(providers[0].actionsDataFile) does: an app has one AppShortcutsProvider (Apple "
            + "keeps one and drops the others without a word)",
          fix: "declare every App Shortcut of the app in one provider, in the app or in one extension"))
    }
    // An intent runs where it is declared: declared twice, the app and `run` would find one, a phrase the other.
    var declared: [MetadataIdentifier: String] = [:]
    for folder in allAppIntentsMetadata {
      for identifier in (folder.readDocument?.actions.keys.sorted { $0.rawValue < $1.rawValue }) ?? [] {
        guard let first = declared[identifier] else {
          declared[identifier] = folder.actionsDataFile
          continue
        }
        diagnostics.append(
          Diagnostic(
            .error, .appIntentsActionTwice, file: folder.actionsDataFile, keyPath: "actions.\(identifier)",
            "declares \(identifier), as \(first) does: an intent runs in the one bundle that declares it, and "
              + "declared twice it would run in one or the other, depending on how it is asked for",
            fix: "declare \(identifier) in one place: the app, or one App Intents extension"))
      }
    }
    diagnostics += duplicateTitlesAcrossFolders
    if diagnostics.hasErrors { diagnostics.append(Diagnostic(MetadataValidator.haltingFinding(file: url.path))) }
    return diagnostics
  }

  /// `app-intents-duplicate-title` across the app's `Metadata.appintents` (the validator finds it within one): an
  /// intent whose title an intent of an earlier folder has, as `assistant run APP TITLE` looks in every folder.
  private var duplicateTitlesAcrossFolders: [Diagnostic] {
    var found: [Diagnostic] = []
    var earlier: [[String]: (identifier: MetadataIdentifier, file: String)] = [:]
    for folder in allAppIntentsMetadata {
      var here: [[String]: (identifier: MetadataIdentifier, file: String)] = [:]
      for action in (folder.readDocument?.actions.values.sorted { $0.identifier.rawValue < $1.identifier.rawValue })
        ?? []
      {
        guard let title = action.title?.key, case let words = MetadataValidator.titleWords(title), !words.isEmpty
        else { continue }
        // The same intent declared again is `app-intents-action-twice`'s.
        if let first = earlier[words], first.identifier != action.identifier {
          found.append(
            Diagnostic(
              MetadataValidator.duplicateTitle(
                title, of: action.identifier, as: "\(first.identifier) in \(first.file)", file: folder.actionsDataFile,
                path: "actions.\(action.identifier)")))
        } else if earlier[words] == nil, here[words] == nil {
          here[words] = (action.identifier, folder.actionsDataFile)
        }
      }
      earlier.merge(here) { first, _ in first }
    }
    return found
  }

  /// The App Intents extensions in `app/Extensions`, read; an `.appex` there of another point is not IntentHost's
  /// and is left out. Nothing is read through a link: a link or a file where a folder should be is refused.
  /// - Throws: `ManifestError` for a link, an Info.plist that does not parse, or an `AppShortcuts.strings` that does
  ///   not parse.
  static func loadAppIntentsExtensions(in app: URL, explicit: [String: String]) throws -> [(
    url: URL, info: InfoPlist, entitlements: Entitlements, settings: BuildSettings, metadata: AppIntentsMetadataFolder?
  )] {
    let folder = app.appendingPathComponent(AppIntentsExtensionBundle.folderName)
    var status = stat()
    guard lstat(folder.path, &status) == 0 else { return [] }
    guard status.st_mode & S_IFMT == S_IFDIR else {
      throw ManifestError(
        file: folder.path, problem: "is not a folder (a link is not followed)",
        fix: "make Extensions a folder holding the app's .appex bundles")
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().filter {
      $0.hasSuffix(".appex")
    }
    return try names.compactMap { name in
      let url = folder.appendingPathComponent(name)
      guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
        throw ManifestError(
          file: url.path, problem: "is not a folder (a link is not followed)", fix: "make it the extension's bundle")
      }
      let infoURL = url.appendingPathComponent("Info.plist")
      let settings = try BuildSettings.forBundle(at: url, explicit: explicit)
      let bytes = try readManifestFile(infoURL.path, required: true)!
      let info = try InfoPlist(PlistDictionary.parse(Data(bytes), file: infoURL.path), settings: settings)
      guard info.appExtensionPointIdentifier == AppIntentsExtensionBundle.extensionPoint else { return nil }
      return (
        url, info, try loadEntitlements(in: url, settings: settings), settings,
        try AppIntentsMetadataFolder.load(in: url)
      )
    }
  }
}

/// Whether `url` is a folder, not through a link.
private func isFolder(_ url: URL) -> Bool {
  var status = stat()
  return lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
}

/// Whether something is at `url` (a link counts, and is refused when read).
private func exists(_ url: URL) -> Bool {
  var status = stat()
  return lstat(url.path, &status) == 0
}

/// `readBundleFile` for a property list of the bundle (at most 16 MiB, `PlistDictionary.load`'s limit), its failure
/// as a `ManifestError`.
func readManifestFile(_ path: String, required: Bool) throws -> [UInt8]? {
  do throws(MetadataError) {
    return try readBundleFile(path, limit: 16 << 20, required: required)
  } catch {
    throw ManifestError(file: error.file, problem: error.problem, fix: error.fix)
  }
}

/// The bytes of a file of a bundle, read without following a link (`O_NOFOLLOW`), without waiting on a FIFO
/// (`O_NONBLOCK`), only from a regular file and at most `limit` bytes.
/// - Returns: nil when the file does not exist and is not `required`.
/// - Throws: `MetadataError` naming the file: missing (when required), a link, not a regular file, too large, or
///   unreadable.
func readBundleFile(_ path: String, limit: Int, required: Bool) throws(MetadataError) -> [UInt8]? {
  try withBundleFile(path, required: required) { descriptor, status throws(MetadataError) in
    try readAll(descriptor, status: status, path: path, limit: limit)
  }
}

/// Runs `body` with a file of a bundle opened for reading, without following a link (`O_NOFOLLOW`), without
/// waiting on a FIFO (`O_NONBLOCK`), and only when it is a regular file: its descriptor, closed after `body`, and
/// its `fstat`.
/// - Returns: `body`'s result; nil when the file does not exist and is not `required`.
/// - Throws: `MetadataError` naming the file: missing (when required), a link, not a regular file, or unreadable;
///   or what `body` throws.
func withBundleFile<Result>(
  _ path: String, required: Bool, _ body: (Int32, stat) throws(MetadataError) -> Result
) throws(MetadataError) -> Result? {
  let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
  guard descriptor >= 0 else {
    let code = errno
    switch code {
    case ENOENT where !required: return nil
    case ENOENT:
      throw MetadataError(
        file: path, problem: "is missing",
        fix: "write it: docs/APPINTENTS.md describes the file, and `assistant validate` checks it")
    case ELOOP:
      throw MetadataError(
        file: path, problem: "is a symbolic link, which IntentHost does not follow in a bundle",
        fix: "put the file itself there")
    default:
      throw MetadataError(file: path, problem: "cannot be read: \(String(cString: strerror(code)))")
    }
  }
  defer { close(descriptor) }
  var status = stat()
  guard fstat(descriptor, &status) == 0 else {
    throw MetadataError(file: path, problem: "cannot be read: \(String(cString: strerror(errno)))")
  }
  guard status.st_mode & S_IFMT == S_IFREG else {
    throw MetadataError(file: path, problem: "is not a regular file, so it is not read", fix: "make it a file")
  }
  return try body(descriptor, status)
}

/// The bytes of the open regular file `descriptor` (`status` its `fstat`), at most `limit`.
/// - Throws: `MetadataError` naming `path` when the file is larger than `limit` (or grows past it) or a read fails.
func readAll(_ descriptor: Int32, status: stat, path: String, limit: Int) throws(MetadataError) -> [UInt8] {
  let tooLarge = MetadataError(
    file: path, problem: "is larger than the \(limit)-byte limit",
    fix: "keep the metadata to the app's own intents, entities, enums and shortcuts")
  if status.st_size > limit { throw tooLarge }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if count < 0 {
      if errno == EINTR { continue }
      throw MetadataError(file: path, problem: "cannot be read: \(String(cString: strerror(errno)))")
    }
    if count == 0 { return bytes }
    bytes += buffer[..<count]
    // The file may have grown since fstat.
    if bytes.count > limit { throw tooLarge }
  }
}
