import BundleManifest
import Foundation
import IntentHostSystem
import UntrustedText

/// `assistant strings export`: writes `<lang>.lproj/<Table>.strings` (and an XLIFF file) beside each intent
/// definition of a bundle, a source folder or one `.intentdefinition` file, keeping the table's translations.
///
/// The folder the user names is trusted (it may be reached through a link of their own); everything beneath it is
/// untrusted bundle content, reached through a `DirectoryDescriptor` that follows no symbolic link: a `fr.lproj`
/// or an `Intents.strings` planted as a link out of the folder is refused (exit 77), never written through. Each
/// file is written to a temporary name in its folder, flushed, then renamed over the old one.
package enum StringsExporter {
  /// What one table became: `assistant strings export --json` prints it.
  package struct Report: Sendable, Equatable, Encodable {
    /// The `.strings` file written.
    package var file: String
    package var locale: String
    /// The definition's keys in the table.
    package var keys: Int
    /// Keys the table lacked, added with their source text.
    package var new: Int
    /// Keys the definition no longer has, kept at the end.
    package var stale: Int
    /// Keys whose translation was kept.
    package var translated: Int
    /// The XLIFF file written: under `--xliff`, or because one was already there (it is kept up to date).
    package var xliff: String?
    /// The table the translations were taken from when LANG.lproj had none: the language's own table beside it
    /// (`fr.lproj/Intents.strings` for `fr_FR`), as a region falls back to its language.
    package var seededFrom: String?
  }

  /// The most bytes a strings table (or a definition) may have, to be read or to be written: a table export writes
  /// can always be read back.
  package static let maximumTableSize = 16 << 20
  /// How deep a folder is searched for definitions.
  static let maximumDepth = 8

  /// Whether `locale` can name a `.lproj` folder: a language ("fr"), optionally with a script or region
  /// ("pt-BR", "zh-Hans", "fr_FR").
  package static func isValidLocale(_ locale: String) -> Bool {
    let parts = locale.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "_" }
    guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(\.isASCII),
      language.allSatisfy(\.isLetter)
    else { return false }
    return parts.dropFirst().allSatisfy { part in
      (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
  }

  /// Exports every definition found at `path`. Blocking: call it off the cooperative pool.
  /// - Throws: `HostError`: 64 for a locale that cannot name a folder, 66 for a path that does not exist, 65 for a
  ///   folder without definitions or a file that does not parse, 77 for a symbolic link beneath the named folder,
  ///   73 when a file cannot be written; 65 for a table or definition over `maximumTableSize` bytes, or a table that
  ///   would be written larger than that (naming the file and the limit).
  package static func export(path: String, locale: String, xliff: Bool) throws -> [Report] {
    try export(path: path, locale: locale, xliff: xliff, limit: maximumTableSize)
  }

  /// `export(path:locale:xliff:)` with another size limit for the tables (tests; a definition may still have
  /// `maximumTableSize` bytes).
  static func export(path: String, locale: String, xliff: Bool, limit: Int) throws -> [Report] {
    guard isValidLocale(locale) else {
      throw HostError(
        .usage,
        "--locale \"\(Untrusted.shown(locale))\" does not name a language folder; give a language code such as fr, "
          + "pt-BR or zh-Hans")
    }
    var status = stat()
    guard stat(path, &status) == 0 else {
      throw HostError(
        .noInput, "\(Untrusted.shown(path)) does not exist; give a bundle, a source folder or an .intentdefinition file"
      )
    }
    // The trusted folder, and the definitions' paths beneath it.
    let rootPath: String
    var definitions: [String]
    if FileKind(mode: status.st_mode) == .directory {
      rootPath = path
      definitions = []
    } else {
      guard path.hasSuffix(".intentdefinition") else {
        throw HostError(
          .dataError, "\(Untrusted.shown(path)) is not an .intentdefinition file, a bundle or a source folder")
      }
      // Xcode keeps Intents.intentdefinition in Base.lproj and its translations in the lproj folders beside it.
      let url = URL(fileURLWithPath: path)
      let folder = url.deletingLastPathComponent()
      if folder.lastPathComponent.hasSuffix(".lproj") {
        rootPath = folder.deletingLastPathComponent().path
        definitions = [folder.lastPathComponent + "/" + url.lastPathComponent]
      } else {
        rootPath = folder.path
        definitions = [url.lastPathComponent]
      }
    }
    let root: DirectoryDescriptor
    do { root = try DirectoryDescriptor.openTrusted(rootPath) } catch { throw hostError(error, writing: false) }
    defer { root.close() }
    do {
      if definitions.isEmpty { definitions = try findDefinitions(in: root) }
      guard !definitions.isEmpty else {
        throw HostError(
          .dataError,
          "\(Untrusted.shown(path)) holds no .intentdefinition file; give the bundle or folder that holds one")
      }
      return try definitions.map { try export(definition: $0, in: root, locale: locale, xliff: xliff, limit: limit) }
    } catch let error as SystemError {
      throw hostError(error, writing: true)
    } catch let error as ManifestError {
      throw HostError(.dataError, "cannot export: " + Diagnostic(error).shown)
    }
  }

  /// The `.intentdefinition` files beneath `root`, not following links nor entering hidden folders; where a
  /// folder has one in `Base.lproj` and copies in language folders, `Base.lproj`'s.
  static func findDefinitions(in root: DirectoryDescriptor) throws -> [String] {
    var found: [String] = []
    func walk(_ relative: String, depth: Int) throws {
      let directory = relative.isEmpty ? root : try root.openDirectory(relative)
      defer { if !relative.isEmpty { directory.close() } }
      var names = try directory.entries().filter { !$0.hasPrefix(".") }
      names.sort { ($0 == "Base.lproj" ? "" : $0) < ($1 == "Base.lproj" ? "" : $1) }
      var tables = Set<String>()
      for name in names {
        let child = relative.isEmpty ? name : relative + "/" + name
        guard let kind = try directory.status(of: name)?.kind else { continue }
        if kind == .regular && name.hasSuffix(".intentdefinition") {
          found.append(child)
        } else if kind == .directory && name.hasSuffix(".lproj") {
          let inside = try root.openDirectory(child)
          defer { inside.close() }
          for file in try inside.entries().sorted() where file.hasSuffix(".intentdefinition") {
            guard try inside.status(of: file)?.kind == .regular, tables.insert(file).inserted else { continue }
            found.append(child + "/" + file)
          }
        } else if kind == .directory && depth < maximumDepth {
          try walk(child, depth: depth + 1)
        }
      }
    }
    try walk("", depth: 0)
    return found
  }

  /// Exports one definition (`relative` beneath `root`) to `<lang>.lproj/<name>.strings` beside it.
  static func export(
    definition relative: String, in root: DirectoryDescriptor, locale: String, xliff: Bool, limit: Int
  ) throws -> Report {
    var components = relative.split(separator: "/").map(String.init)
    let fileName = components.removeLast()
    if components.last?.hasSuffix(".lproj") == true { components.removeLast() }
    let folder = components.joined(separator: "/")
    let definitionPath = root.path(of: relative)
    let plist = try PlistDictionary.parse(
      Data(read(relative, in: root, limit: max(limit, maximumTableSize))), file: definitionPath)
    let definition = try IntentDefinition(plist)
    let base = String(fileName.dropLast(".intentdefinition".count))
    let lproj = (folder.isEmpty ? "" : folder + "/") + locale + ".lproj"
    let (directory, _) = try root.makeDirectory(lproj, mode: 0o755)
    defer { directory.close() }
    let tableName = base + ".strings"
    var existing: [String: String] = [:]
    var untranslated = Set<String>()
    var seededFrom: String?
    func load(_ name: String, in folder: DirectoryDescriptor) throws {
      let url = URL(fileURLWithPath: folder.path(of: name))
      let bytes = try read(name, in: folder, limit: limit)
      existing = try StringsTable.parse(Data(bytes), url: url).strings
      untranslated = StringsExport.markedNew(in: String(decoding: bytes, as: UTF8.self))
    }
    if try directory.status(of: tableName) != nil {
      try load(tableName, in: directory)
    } else if let language = languageFolder(of: locale) {
      // A new region table starts from its language's, which it replaces when the locale is asked for.
      let fallback = (folder.isEmpty ? "" : folder + "/") + language
      if try root.status(of: fallback)?.kind == .directory {
        let languageDirectory = try root.openDirectory(fallback)
        defer { languageDirectory.close() }
        if try languageDirectory.status(of: tableName) != nil {
          try load(tableName, in: languageDirectory)
          seededFrom = languageDirectory.path(of: tableName)
        }
      }
    }
    let export = StringsExport(
      definition: definition, definitionName: relative, locale: locale, existing: existing,
      untranslated: untranslated)
    let table = export.stringsFile
    let size = table.utf8.count
    guard size <= limit else {
      throw HostError(
        .dataError,
        "\(Untrusted.shown(directory.path(of: tableName))) would be \(size) bytes, over the limit of \(limit) bytes a "
          + "table may have (it could not be read back); it was left as it is: remove stale keys from it (\(export.staleCount) "
          + "are kept at its end), or translate into a new file")
    }
    try write(table, to: tableName, in: directory)
    var report = Report(
      file: directory.path(of: tableName), locale: locale, keys: export.keyCount, new: export.newCount,
      stale: export.staleCount, translated: export.translatedCount, seededFrom: seededFrom)
    // An XLIFF file already there is rewritten too, so that it never disagrees with the table.
    let xliffName = base + ".xliff"
    if try xliff || directory.status(of: xliffName) != nil {
      try write(export.xliff(), to: xliffName, in: directory)
      report.xliff = directory.path(of: xliffName)
    }
    return report
  }

  /// The language's own folder for a locale with a region or script ("fr.lproj" for "fr_FR", "pt.lproj" for
  /// "pt-BR"), or nil for a bare language.
  static func languageFolder(of locale: String) -> String? {
    guard let separator = locale.firstIndex(where: { $0 == "-" || $0 == "_" }) else { return nil }
    return String(locale[..<separator]) + ".lproj"
  }

  /// The regular file `relative` beneath `directory`, following no link, of at most `limit` bytes.
  /// - Throws: `HostError(.dataError)` naming the file and the limit when it is larger.
  static func read(_ relative: String, in directory: DirectoryDescriptor, limit: Int) throws -> [UInt8] {
    let file = try directory.openFile(relative, O_RDONLY)
    defer { file.close() }
    let tooLarge = HostError(
      .dataError,
      "\(Untrusted.shown(directory.path(of: relative))) is over the limit of \(limit) bytes a table or definition may "
        + "have; it was left as it is: make it smaller (remove stale keys), or move it aside")
    let bytes: [UInt8]
    do {
      bytes = try file.readAll(limit: limit + 1)
    } catch {
      if error.code == EFBIG { throw tooLarge }
      throw error
    }
    guard bytes.count <= limit else { throw tooLarge }
    return bytes
  }

  /// Writes `text` to `name` in `directory` atomically: a new temporary file, flushed, renamed over `name` (a link
  /// planted there is replaced, never followed).
  static func write(_ text: String, to name: String, in directory: DirectoryDescriptor) throws {
    let temporary = ".\(name).\(getpid()).tmp"
    let file = try directory.openFile(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
    do {
      defer { file.close() }
      try file.writeAll(Array(text.utf8))
      if fsync(file.rawValue) != 0 { throw SystemError.current("fsync", directory.path(of: temporary)) }
      try directory.rename(temporary, to: name)
      try directory.synchronize()
    } catch {
      do { try directory.removeFile(temporary) } catch {
        if error.code != ENOENT {
          throw HostError(.cannotCreate, "\(error); the temporary file could not be removed either")
        }
      }
      throw error
    }
  }

  static func hostError(_ error: SystemError, writing: Bool) -> HostError {
    if error.isUnsafeFileRefusal {
      return HostError(
        .refused,
        "refused: \(Untrusted.shown(error.subject)) \(error.reason); the folder named is used as it is, but nothing "
          + "beneath it is followed out of it")
    }
    if error.code == ENOTDIR && writing {
      return HostError(
        .cannotCreate,
        "cannot \(error.operation) \(Untrusted.shown(error.subject)): \(error.reason); a file is where a folder must "
          + "be: move it aside")
    }
    if error.code == ENOENT || error.code == ENOTDIR {
      return HostError(.noInput, "\(Untrusted.shown(error.subject)): \(error.reason)")
    }
    return HostError(
      writing ? .cannotCreate : .ioError, "cannot \(error.operation) \(Untrusted.shown(error.subject)): \(error.reason)"
    )
  }
}
