import AppGroupStore
import BundleManifest
import Foundation
import IntentHostSystem
import Understanding
import UntrustedText

/// Apple's rules for SiriKit manifests, checked on a bundle, a folder of sources, or single files. Each finding is a
/// `Diagnostic` naming the file, the key path, the severity, the rule and the fix; docs/VALIDATION.md lists the rules.
public struct Validator: Sendable {
  /// Build settings given on the command line (`--setting NAME=VALUE`), over each bundle's own.
  public var settings: [String: String]
  /// The home whose folders no read-only exception may reach (`entitlement-read-only-path`); nil: the one the
  /// environment names (`ASSISTANT_HOME`, ...), if any.
  public var home: AssistantHome?

  public init(settings: [String: String] = [:], home: AssistantHome? = nil) {
    self.settings = settings
    self.home = home
  }

  // MARK: - Entry points

  /// Validates what `path` is: an `.app` bundle, a folder of sources, or one file.
  public func validate(path: String) -> [Diagnostic] {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      return [Self.missing(url.path)]
    }
    if !isDirectory.boolValue { return validateFile(url) }
    if url.pathExtension == "app" { return validateBundle(at: url) }
    return validateSources(in: url)
  }

  /// The finding for a path that does not exist: what `validate` reports and `install` refuses with, both with
  /// exit status 66 (`ExitStatus.noInput`).
  public static func missing(_ path: String) -> Diagnostic {
    Diagnostic(.error, "file-missing", file: path, "does not exist", fix: "check the path")
  }

  /// The exit status of `assistant validate` for its findings: 66 (`noInput`) when a path does not exist, else 65
  /// (`dataError`) when there is an error, else 0 (warnings and notes only).
  public static func exitStatus(for diagnostics: [Diagnostic]) -> ExitStatus {
    if diagnostics.contains(where: { $0.rule == "file-missing" }) { return .noInput }
    return diagnostics.hasErrors ? .dataError : .success
  }

  /// Validates an app bundle as `assistant install` does.
  public func validateBundle(at url: URL) -> [Diagnostic] {
    // Only regular files and folders, as install requires: nothing is read through a link or from a FIFO.
    do {
      try BundleTree.check(url)
    } catch let problem as BundleTreeProblem {
      return [
        Diagnostic(
          .error, "bundle-file-kind", file: problem.file, problem.problem, fix: BundleTreeProblem.fix)
      ]
    } catch {
      return [Diagnostic(.error, "bundle-file-kind", file: url.path, "\(error)")]
    }
    do {
      return validate(try AppBundle.load(from: url, settings: settings))
    } catch let error as InvalidBundleNames {
      // The model refuses a bundle with a bad name: those are the findings, until they are fixed.
      return error.diagnostics
    } catch let error as ManifestError {
      return [Diagnostic(error)]
    } catch {
      return [Diagnostic(.error, "plist", file: url.path, "\(error)")]
    }
  }

  /// Every rule for a loaded bundle, executables included.
  public func validate(_ app: AppBundle) -> [Diagnostic] {
    var diagnostics = app.loadDiagnostics
    let fm = FileManager.default
    for (url, info) in [(app.executableURL, app.info)] + app.extensions.map({ ($0.executableURL, $0.info) })
    where !info.executable.isEmpty && !ScriptInterpreter.isExecutableFile(url.path) {
      let exists = fm.fileExists(atPath: url.path)
      // A folder is "executable" to FileManager (searchable): the kernel refuses to run it.
      let regular = ((try? fm.attributesOfItem(atPath: url.path)[.type]) as? FileAttributeType) != .typeDirectory
      diagnostics.append(
        Diagnostic(
          .error, exists ? "executable-not-executable" : "executable-missing-file", file: info.file,
          keyPath: "CFBundleExecutable",
          "names \(url.lastPathComponent), which is "
            + (exists ? (regular ? "not executable" : "a folder, not a file") : "not in the bundle"),
          fix: exists && regular
            ? "chmod +x \(url.path)" : "build the executable into \(url.deletingLastPathComponent().path)"))
    }
    if app.info.packageType != nil && app.info.packageType != "APPL" {
      diagnostics.append(
        Diagnostic(
          .warning, "package-type", file: app.info.file, keyPath: "CFBundlePackageType",
          "is \"\(app.info.packageType!)\"; an app's is APPL", fix: "set it to APPL"))
    }
    for ext in app.extensions where ext.info.packageType != nil && ext.info.packageType != "XPC!" {
      diagnostics.append(
        Diagnostic(
          .warning, "package-type", file: ext.info.file, keyPath: "CFBundlePackageType",
          "is \"\(ext.info.packageType!)\"; an extension's is XPC!", fix: "set it to XPC!"))
    }
    for url in [app.executableURL] + app.extensions.map(\.executableURL)
    where ScriptInterpreter.isExecutableFile(url.path) {
      diagnostics += libraryRules(executable: url.path, app: app.url.path)
      diagnostics += scriptRules(executable: url.path, app: app.url.path)
    }
    diagnostics += readOnlyPathRules(app)
    diagnostics += rules(Project(app))
    // The phrases reach their intents (`PhraseBook.check`), once the definitions they use are sound.
    // Warnings here, so install does not refuse an app whose phrases are worded badly; `phrases --check` makes
    // them errors (exit 65). Notes (`phrase-reads-text`) stay notes.
    if diagnostics.errors.isEmpty {
      diagnostics += PhraseBook.check(app).map {
        var warning = $0
        if warning.severity == .error { warning.severity = .warning }
        return warning
      }
    }
    return diagnostics
  }

  /// The sandbox's rules for an executable's ELF headers (docs/SANDBOX.md, "What it may touch"): its loader in the
  /// system library folders, its RUNPATH/RPATH folders and libraries named by path in the trusted library folders
  /// or the app bundle, the executable itself a file of the bundle. A launch refuses what breaks them.
  func libraryRules(executable: String, app: String) -> [Diagnostic] {
    LibraryGrants.resolve(executable: executable, appBundle: app).problems.map { problem in
      Diagnostic(
        .error, problem.rule, file: problem.file, keyPath: problem.entry,
        "\"\(Untrusted.sanitized(problem.value))\" \(problem.reason), so the sandbox would not grant it",
        fix: problem.fix)
    }
  }

  /// The sandbox's rule for a script's interpreter (docs/SANDBOX.md, "Interpreted extensions"): its `#!` line names
  /// a program of the system (by its absolute path, or `/usr/bin/env NAME` found in the fixed PATH), not one of the
  /// bundle or of a writable folder, not another script, and one the sandbox knows how to grant. A launch refuses
  /// what breaks it.
  func scriptRules(executable: String, app: String) -> [Diagnostic] {
    do {
      _ = try ScriptInterpreter.inspect(executable: executable, appBundle: app)
      return []
    } catch {
      return [error.diagnostic(executable: executable)]
    }
  }

  /// The sandbox's rules for the read-only paths each entitlements file of `app` asks for (docs/SANDBOX.md,
  /// "Exceptions from entitlements"), checked on this host as a launch checks them again.
  func readOnlyPathRules(_ app: AppBundle) -> [Diagnostic] {
    ([app.entitlements] + app.extensions.map(\.entitlements)).flatMap(readOnlyPathRules)
  }

  /// The same rules for one entitlements file (a source folder's, or a file validated on its own).
  func readOnlyPathRules(_ entitlements: Entitlements) -> [Diagnostic] {
    guard !entitlements.readOnlyPaths.isEmpty else { return [] }
    // Without a home named, the rules still protect the user's and root's homes and the system's folders.
    return ReadOnlyPathRules(home: home ?? (try? AssistantHome())).diagnostics(for: entitlements)
  }

  /// A folder of sources: each app Info.plist in it is checked as a project (app, extensions, definitions,
  /// vocabularies, entitlements, strings, and the rules between them, but not executables), with the extensions
  /// whose bundle identifiers it prefixes and the other files in its folders; with one app, every file is its own.
  /// Without an app, and for files in no app's folders, each file on its own. A file is a manifest by its name, or else by its content (`ManifestKind`).
  public func validateSources(in folder: URL) -> [Diagnostic] {
    var (files, diagnostics) = sourceFiles(in: folder)
    if files.isEmpty {
      return diagnostics + [
        Diagnostic(
          .error, "nothing-to-validate", file: folder.path,
          "holds no Info.plist, .intentdefinition, AppIntentVocabulary.plist, .entitlements or .strings file, "
            + "and no property list whose content is one",
          fix: "validate the folder that holds the manifests (" + ManifestKind.recognisableContent + ")")
      ]
    }
    var infos: [InfoPlist] = []
    var entitlementsByFolder: [String: Entitlements] = [:]
    var definitions: [IntentDefinition] = []
    var vocabularies: [Vocabulary] = []
    var strings: [StringsTable] = []
    for file in files {
      do {
        switch try load(file) {
        case .info(let info): infos.append(info)
        case .entitlements(let entitlements):
          entitlementsByFolder[file.url.deletingLastPathComponent().path] = entitlements
          diagnostics += entitlements.diagnostics + readOnlyPathRules(entitlements)
        case .definition(let definition): definitions.append(definition)
        case .vocabulary(let vocabulary): vocabularies.append(vocabulary)
        case .strings(let table): strings.append(table)
        }
      } catch let error as ManifestError {
        diagnostics.append(Diagnostic(error))
      } catch {
        diagnostics.append(Diagnostic(.error, "plist", file: file.url.path, "\(error)"))
      }
    }
    let apps = infos.filter { $0.extensionInfo == nil }
    guard !apps.isEmpty else {
      for info in infos {
        diagnostics += info.diagnostics + fileRules(info)
      }
      for definition in definitions { diagnostics += definitionRules(definition) }
      for vocabulary in vocabularies { diagnostics += vocabularyFileRules(vocabulary) }
      return diagnostics
    }
    let folderOf = { (file: String) in URL(fileURLWithPath: file).deletingLastPathComponent().path }
    // Each extension belongs to the app whose bundle identifier prefixes its own (the longest); else (an identifier missing or
    // wrong, which `bundle-id-prefix` and `bundle-id-missing` report) to the app whose folder's name starts its
    // folder's name, as Xcode names targets ("Rooms", "RoomsIntents"); else to the app sharing the longest start of
    // an identifier with it.
    let extensions = infos.filter { $0.extensionInfo != nil }
    func owner(of ext: InfoPlist) -> Int {
      // The longest such identifier: com.example.rooms.pro's extension is not com.example.rooms'.
      let prefixing = apps.indices.filter {
        !apps[$0].bundleIdentifier.isEmpty && ext.bundleIdentifier.hasPrefix(apps[$0].bundleIdentifier + ".")
      }
      if let index = prefixing.max(by: { apps[$0].bundleIdentifier.count < apps[$1].bundleIdentifier.count }) {
        return index
      }
      let folderName = { (file: String) in URL(fileURLWithPath: folderOf(file)).lastPathComponent }
      let named = apps.indices.filter { folderName(ext.file).hasPrefix(folderName(apps[$0].file)) }
      if let index = named.max(by: { folderName(apps[$0].file).count < folderName(apps[$1].file).count }) {
        return index
      }
      let shared = apps.map { zip($0.bundleIdentifier, ext.bundleIdentifier).prefix { $0 == $1 }.count }
      return shared.indices.max { shared[$0] < shared[$1] || (shared[$0] == shared[$1] && $0 > $1) } ?? 0
    }
    var projects = apps.map { app in
      Project(
        app: app, appEntitlements: entitlementsByFolder[folderOf(app.file)] ?? Entitlements(), extensions: [],
        definitions: [], vocabularies: [], strings: [])
    }
    var folders = apps.map { [folderOf($0.file)] }
    for info in extensions {
      let index = owner(of: info)
      let folder = folderOf(info.file)
      projects[index].extensions.append(
        .init(
          name: URL(fileURLWithPath: folder).lastPathComponent, info: info,
          entitlements: entitlementsByFolder[folder] ?? Entitlements()))
      folders[index].append(folder)
    }
    // Definitions, vocabularies and strings belong to the app whose folders (its own and its extensions') hold them
    // most closely; with one app, all of them are its own.
    func project(holding file: String) -> Int? {
      if apps.count == 1 { return 0 }
      let path = folderOf(file)
      var best: (index: Int, length: Int)? = nil
      for (index, list) in folders.enumerated() {
        for folder in list where path == folder || path.hasPrefix(folder + "/") {
          if folder.count > best?.length ?? -1 { best = (index, folder.count) }
        }
      }
      return best?.index
    }
    for definition in definitions {
      if let index = project(holding: definition.file) {
        projects[index].definitions.append(definition)
      } else {
        diagnostics += definitionRules(definition)
      }
    }
    for vocabulary in vocabularies {
      if let index = project(holding: vocabulary.file) {
        projects[index].vocabularies.append(vocabulary)
      } else {
        diagnostics += vocabularyFileRules(vocabulary)
      }
    }
    for table in strings {
      if let index = project(holding: table.file) { projects[index].strings.append(table) }
    }
    diagnostics += infos.flatMap(\.diagnostics)
    for project in projects { diagnostics += rules(project) }
    return diagnostics
  }

  /// One file on its own: it must parse, and the rules that need no other file apply. Build settings that cannot be
  /// resolved are notes here (errors in a bundle), since Xcode expands them at build time. A file whose name does
  /// not say what it is (`ManifestKind(fileName:)`) is read, at most `maximumManifestSize` bytes and never through a
  /// link, and recognised by its content; one that is no manifest is `unknown-file`, saying what content would be.
  public func validateFile(_ file: URL) -> [Diagnostic] {
    do {
      let source: SourceFile
      if let kind = ManifestKind(fileName: file.lastPathComponent) {
        source = SourceFile(url: file, kind: kind)
      } else {
        let plist = try PlistDictionary.parse(
          Data(try Self.readContent(of: file) { _, all in try all() }), file: file.path)
        guard let kind = ManifestKind(recognising: plist) else {
          return [
            Diagnostic(
              .warning, "unknown-file", file: file.path,
              "is a property list, but neither its name nor its content says which manifest it is",
              fix: "name it \(ManifestKind.recognisedNames); or give it the keys of its kind: "
                + ManifestKind.recognisableContent)
          ]
        }
        source = SourceFile(url: file, kind: kind, plist: plist)
      }
      switch try load(source) {
      case .info(let info): return info.diagnostics + fileRules(info)
      case .entitlements(let entitlements): return entitlements.diagnostics + readOnlyPathRules(entitlements)
      case .definition(let definition): return definitionRules(definition)
      case .vocabulary(let vocabulary): return vocabularyFileRules(vocabulary)
      case .strings: return []
      }
    } catch let error as ManifestError {
      return [Diagnostic(error)]
    } catch {
      return [Diagnostic(.error, "plist", file: file.path, "\(error)")]
    }
  }

  // MARK: - Files

  /// The most bytes a manifest recognised by its content may have (`PlistDictionary.load`'s limit).
  static let maximumManifestSize = 16 << 20

  /// A manifest file of a source folder or given on its own: what it is, and its property list when its content
  /// said so (it is then read once, not again by name).
  struct SourceFile {
    var url: URL
    var kind: ManifestKind
    var plist: PlistDictionary?
  }

  /// A loaded manifest.
  enum Manifest {
    case info(InfoPlist)
    case entitlements(Entitlements)
    case definition(IntentDefinition)
    case vocabulary(Vocabulary)
    case strings(StringsTable)
  }

  /// Loads a source file as its kind, expanding build settings (`--setting`, the folder's BuildSettings.xcconfig)
  /// in an Info.plist or entitlements; a reference without a value is a note.
  /// - Throws: `ManifestError` for a file that does not parse or a key of the wrong type.
  func load(_ source: SourceFile) throws -> Manifest {
    let file = source.url
    func settings() throws -> BuildSettings {
      try BuildSettings.forBundle(at: file.deletingLastPathComponent(), explicit: self.settings)
    }
    func plist() throws -> PlistDictionary { try source.plist ?? PlistDictionary.load(contentsOf: file) }
    switch source.kind {
    case .infoPlist: return .info(try InfoPlist(plist(), settings: settings(), unresolved: .note))
    case .entitlements: return .entitlements(try Entitlements(plist(), settings: settings(), unresolved: .note))
    case .intentDefinition: return .definition(try IntentDefinition(plist()))
    case .vocabulary: return .vocabulary(try Vocabulary(plist()))
    case .strings: return .strings(try StringsTable.load(contentsOf: file))
    }
  }

  /// Opens `file` to read its content, without following a link (`O_NOFOLLOW`) and without waiting on a FIFO
  /// (`O_NONBLOCK`), and refuses it unless it is a regular file; `body` gets up to its first 4 KiB, and a function
  /// that reads the whole file (those bytes and the rest), at most `maximumManifestSize` bytes.
  /// - Throws: `ManifestError` naming the file: a link, not a regular file, too large, or unreadable; what `body`
  ///   throws.
  static func readContent<Result>(
    of file: URL, _ body: (_ head: [UInt8], _ whole: () throws -> [UInt8]) throws -> Result
  ) throws -> Result {
    let path = file.path
    let tooLarge = "larger than the \(maximumManifestSize)-byte limit"
    func refusal(_ error: SystemError) -> ManifestError {
      switch error.code {
      case ELOOP:
        return ManifestError(
          file: path, problem: "is a symbolic link, and a file is recognised by its content only when it is not one",
          fix: "validate the file it points to, or name it \(ManifestKind.recognisedNames)")
      case EFBIG:
        return ManifestError(file: path, problem: "is \(tooLarge)")
      default:
        return ManifestError(file: path, problem: "cannot be read: \(error)")
      }
    }
    let descriptor: FileDescriptor
    let status: FileStatus
    do throws(SystemError) {
      descriptor = try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    } catch {
      throw refusal(error)
    }
    defer { descriptor.close() }
    do throws(SystemError) { status = try descriptor.status() } catch { throw refusal(error) }
    guard status.kind == .regular else {
      throw ManifestError(
        file: path, problem: "is \(status.kind), not a regular file, so its content is not read",
        fix: "validate a regular file")
    }
    var head = [UInt8](repeating: 0, count: 4096)
    do throws(SystemError) {
      head.removeSubrange(try descriptor.read(into: &head)...)
    } catch {
      throw refusal(error)
    }
    return try body(head) {
      if status.size > maximumManifestSize {
        throw ManifestError(file: path, problem: "is \(status.size) bytes, \(tooLarge)")
      }
      do throws(SystemError) {
        let whole = head + (try descriptor.readAll(limit: maximumManifestSize))
        // The file may have grown since fstat.
        guard whole.count <= maximumManifestSize else { throw SystemError(code: EFBIG, operation: "read") }
        return whole
      } catch {
        throw refusal(error)
      }
    }
  }

  /// Whether bytes begin as a property list: a binary one (`bplist`), or XML (after a byte-order mark and white
  /// space) whose start names `<plist` or its DOCTYPE. Old-style (text) property lists are `.strings` tables, which
  /// only their name makes manifests.
  static func looksLikePropertyList(_ head: [UInt8]) -> Bool {
    if head.starts(with: Array("bplist".utf8)) { return true }
    var text = Substring(decoding: head, as: UTF8.self)
    if text.first == "\u{FEFF}" { text = text.dropFirst() }
    guard text.drop(while: \.isWhitespace).first == "<" else { return false }
    return text.contains("<plist") || text.contains("DOCTYPE plist")
  }

  /// The manifests below `folder` (not in hidden folders), sorted: by name, or, for the other regular files that
  /// begin as a property list, by content. A property list that does not parse is a `plist` error, since its
  /// content cannot say it is no manifest; links and special files are not read.
  private func sourceFiles(in folder: URL) -> (files: [SourceFile], diagnostics: [Diagnostic]) {
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return ([], []) }
    var files: [SourceFile] = []
    var diagnostics: [Diagnostic] = []
    while let relative = enumerator.nextObject() as? String {
      let name = (relative as NSString).lastPathComponent
      if name.hasPrefix(".") || name == ".build" { enumerator.skipDescendants(); continue }
      let url = folder.appendingPathComponent(relative)
      if let kind = ManifestKind(fileName: name) {
        files.append(SourceFile(url: url, kind: kind))
        continue
      }
      // Only regular files (lstat(2): a link is not followed); `readContent` refuses anything else again.
      var status = stat()
      guard lstat(url.path, &status) == 0, FileKind(mode: status.st_mode) == .regular else { continue }
      do {
        let bytes = try Self.readContent(of: url) { head, all in Self.looksLikePropertyList(head) ? try all() : nil }
        guard let bytes else { continue }
        let plist = try PlistDictionary.parse(Data(bytes), file: url.path)
        if let kind = ManifestKind(recognising: plist) { files.append(SourceFile(url: url, kind: kind, plist: plist)) }
      } catch let error as ManifestError {
        diagnostics.append(Diagnostic(error))
      } catch {
        diagnostics.append(Diagnostic(.error, "plist", file: url.path, "\(error)"))
      }
    }
    return (files.sorted { $0.url.path < $1.url.path }, diagnostics)
  }

  // MARK: - Rules

  /// What the cross-file rules look at, from a bundle or from a folder of sources.
  struct Project {
    struct Extension {
      var name: String
      var info: InfoPlist
      var entitlements: Entitlements
      var point: InfoPlist.ExtensionInfo { info.extensionInfo! }
    }

    var app: InfoPlist
    var appEntitlements: Entitlements
    var extensions: [Extension]
    var definitions: [IntentDefinition]
    var vocabularies: [Vocabulary]
    var strings: [StringsTable]

    init(
      app: InfoPlist, appEntitlements: Entitlements, extensions: [Extension], definitions: [IntentDefinition],
      vocabularies: [Vocabulary], strings: [StringsTable]
    ) {
      self.app = app
      self.appEntitlements = appEntitlements
      self.extensions = extensions
      self.definitions = definitions
      self.vocabularies = vocabularies
      self.strings = strings
    }

    init(_ bundle: AppBundle) {
      self.init(
        app: bundle.info, appEntitlements: bundle.entitlements,
        extensions: bundle.extensions.map { Extension(name: $0.name, info: $0.info, entitlements: $0.entitlements) },
        definitions: bundle.allDefinitions, vocabularies: bundle.vocabularies, strings: bundle.stringsTables)
    }
  }

  func rules(_ project: Project) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let app = project.app
    let resolved = { (identifier: String) in
      !identifier.isEmpty && !identifier.contains("$(") && !identifier.contains("${")
    }

    // Definitions: each on its own, then duplicates across files.
    var definedAt: [String: (IntentSpec, String)] = [:]
    for definition in project.definitions {
      diagnostics += definitionRules(definition)
      for intent in definition.intents {
        if let (earlier, file) = definedAt[intent.className] {
          let conflicting =
            earlier.parameters.map(\.name) != intent.parameters.map(\.name)
            || earlier.response?.codes.map(\.name) != intent.response?.codes.map(\.name)
          diagnostics.append(
            Diagnostic(
              conflicting ? .error : .warning, "duplicate-definition", file: definition.file,
              keyPath: "INIntents[\(intent.name)]",
              "defines \(intent.className) again (also in \(file))"
                + (conflicting ? " with other parameters or response codes" : ""),
              fix: "keep one definition of each intent: remove it from one of the files (targets can share one)"))
        } else {
          definedAt[intent.className] = (intent, definition.file)
        }
      }
    }
    func isDefined(_ className: String) -> Bool {
      definedAt[className] != nil || SystemIntent.named(className) != nil
    }

    if !project.extensions.isEmpty && app.siriUsageDescription == nil {
      diagnostics.append(
        Diagnostic(
          .warning, "siri-usage-description", file: app.file, keyPath: "NSSiriUsageDescription",
          "is missing; iOS needs it to ask the user to allow Siri for the app",
          fix: "add NSSiriUsageDescription with a sentence saying what Siri does with the app"))
    }

    var handledBy: [String: String] = [:]
    for className in app.appIntentsSupported { handledBy[className] = app.file }
    for ext in project.extensions {
      let info = ext.info
      diagnostics += fileRules(info)
      // Names between files (AppBundle.load checks the same for a bundle, and refuses it).
      if let problem = NameRules.extensionIdentifier(info, named: ext.name, app: app) { diagnostics.append(problem) }
      if let problem = NameRules.extensionTeam(
        ext.entitlements, app: project.appEntitlements, extensionFile: info.file)
      {
        diagnostics.append(problem)
      }
      for group in ext.entitlements.applicationGroups
      where !project.appEntitlements.applicationGroups.contains(group) && resolved(group) {
        diagnostics.append(
          Diagnostic(
            .warning, "app-group-not-shared", file: ext.entitlements.file ?? info.file,
            keyPath: "com.apple.security.application-groups",
            "lists \(group), which the app's entitlements do not: the app cannot see what \(ext.name) writes there",
            fix: "add \(group) to the app's entitlements too"))
      }
      if ext.point.point == .intentsService {
        for className in ext.point.intentsSupported {
          if let other = handledBy[className], other != app.file, other != info.file {
            diagnostics.append(
              Diagnostic(
                .error, "intent-supported-twice", file: info.file,
                keyPath: "NSExtension.NSExtensionAttributes.IntentsSupported",
                "lists \(className), which \(other) also lists: Siri cannot tell which extension handles it",
                fix: "list each intent in one Intents extension"))
          }
          handledBy[className] = info.file
        }
      }
    }
    // Supported intents must be defined; UI extensions need a handler; phrases are expected.
    let phrases = project.vocabularies.reduce(into: [String: [String]]()) { result, vocabulary in
      for (name, examples) in vocabulary.intentPhrases { result[name, default: []] += examples }
    }
    for ext in project.extensions {
      let key = "NSExtension.NSExtensionAttributes.IntentsSupported"
      for (index, className) in ext.point.intentsSupported.enumerated() where !isDefined(className) {
        diagnostics.append(
          Diagnostic(
            .error, "intent-undefined", file: ext.info.file, keyPath: "\(key)[\(index)]",
            "lists \(className), which no intent definition of the app defines and which is not a system intent",
            fix: intentFix(className, definedAt.keys)))
      }
      if ext.point.point == .intentsUIService {
        for className in ext.point.intentsSupported where handledBy[className] == nil {
          diagnostics.append(
            Diagnostic(
              .error, "ui-extension-unhandled-intent", file: ext.info.file, keyPath: key,
              "draws \(className), which no Intents extension of the app handles",
              fix: "add \(className) to the IntentsSupported of the app's Intents extension, or remove it here"))
        }
      } else if ext.point.point == .intentsService {
        for className in ext.point.intentsSupported where (phrases[className] ?? []).isEmpty {
          diagnostics.append(
            Diagnostic(
              .warning, "intent-phrases-missing", file: ext.info.file, keyPath: key,
              "\(className) has no example phrases in AppIntentVocabulary.plist",
              fix:
                "add an IntentPhrases entry for \(className) with IntentExamples such as \"… with \(app.userFacingName)\""
            ))
        }
      }
    }
    for (index, className) in app.appIntentsSupported.enumerated() where !isDefined(className) {
      diagnostics.append(
        Diagnostic(
          .error, "intent-undefined", file: app.file, keyPath: "INIntentsSupported[\(index)]",
          "lists \(className), which no intent definition of the app defines and which is not a system intent",
          fix: intentFix(className, definedAt.keys)))
    }
    // The app's restriction lists name intents the app or one of its Intents extensions handles.
    for (list, key) in [
      (app.appIntentsRestrictedWhileLocked, "INIntentsRestrictedWhileLocked"),
      (app.appIntentsRestrictedWhileProtectedDataUnavailable, "INIntentsRestrictedWhileProtectedDataUnavailable"),
    ] {
      for (index, className) in list.enumerated() where handledBy[className] == nil {
        diagnostics.append(
          Diagnostic(
            .warning, "restricted-not-supported", file: app.file, keyPath: "\(key)[\(index)]",
            "lists \(className), which neither the app (INIntentsSupported) nor its Intents extensions handle, so "
              + "the restriction applies to nothing",
            fix: "add \(className) to INIntentsSupported or an extension's IntentsSupported, or remove it from \(key)"))
      }
    }
    for vocabulary in project.vocabularies {
      diagnostics += vocabularyFileRules(vocabulary)
      for className in vocabulary.intentPhrases.keys.sorted() where handledBy[className] == nil {
        diagnostics.append(
          Diagnostic(
            .warning, "vocabulary-unknown-intent", file: vocabulary.file, keyPath: "IntentPhrases",
            "has phrases for \(className), which neither the app nor its extensions handle",
            fix: "remove the entry, or add \(className) to an Intents extension's IntentsSupported"))
      }
    }
    let ids = project.definitions.reduce(into: Set<String>()) { $0.formUnion($1.localizationIDs) }
    for table in project.strings where table.file.hasSuffix("Intents.strings") || table.file.hasSuffix(".strings") {
      let stale = table.strings.keys.filter { !ids.contains(String($0.split(separator: "-").first ?? "")) }.sorted()
      if !stale.isEmpty && !ids.isEmpty {
        diagnostics.append(
          Diagnostic(
            .note, "strings-stale-key", file: table.file, keyPath: stale.prefix(5).joined(separator: ", "),
            "\(stale.count) key\(stale.count == 1 ? "" : "s") match no ID of the intent definitions (left over?)",
            fix: "remove them, or rename each to the ID it translates (the definitions' …ID keys)"))
      }
    }
    diagnostics += missingTranslations(project)
    return diagnostics
  }

  /// `strings-missing-key`: per `<lang>.lproj/NAME.strings` table of a `NAME.intentdefinition`, the keys of the
  /// definition's texts the table lacks (iOS then shows the definition's own text), counted, the first few named.
  func missingTranslations(_ project: Project) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let definitionsByTable = Dictionary(grouping: project.definitions) { definition in
      URL(fileURLWithPath: definition.file).deletingPathExtension().lastPathComponent + ".strings"
    }
    for table in project.strings.sorted(by: { $0.file < $1.file }) where !table.language.isEmpty {
      let name = URL(fileURLWithPath: table.file).lastPathComponent
      guard let definitions = definitionsByTable[name] else { continue }
      var keys: [String] = []
      var seen = Set<String>()
      for definition in definitions {
        for string in definition.localizableStrings where seen.insert(string.key).inserted { keys.append(string.key) }
      }
      let missing = keys.filter { table.strings[$0] == nil }
      guard !missing.isEmpty else { continue }
      let shown = missing.prefix(5).joined(separator: ", ") + (missing.count > 5 ? ", ..." : "")
      diagnostics.append(
        Diagnostic(
          .warning, "strings-missing-key", file: table.file, keyPath: shown,
          "\(table.language) lacks \(missing.count) of the \(keys.count) key\(keys.count == 1 ? "" : "s") of "
            + "\(name.dropLast(8)).intentdefinition: those texts stay untranslated",
          fix: "translate them: `assistant strings export FOLDER --locale \(table.language)` adds each with its "
            + "source text, marked NEW"))
    }
    return diagnostics
  }

  private func intentFix(_ className: String, _ defined: Dictionary<String, (IntentSpec, String)>.Keys) -> String {
    if className.hasSuffix("Intent"), defined.contains(className + "Intent") {
      return "the definition names it \(className)Intent (its INIntentName ends in \"Intent\" already)"
    }
    if !className.hasSuffix("Intent") {
      return "class names end in \"Intent\": INIntentName \(className) is listed as \(className)Intent"
    }
    return "define it in an Intents.intentdefinition (INIntentName \(className.dropLast(6))), or fix the name"
  }

  /// The rules one Info.plist can be checked against alone.
  func fileRules(_ info: InfoPlist) -> [Diagnostic] {
    guard let ext = info.extensionInfo else { return [] }
    var diagnostics: [Diagnostic] = []
    let key = "NSExtension.NSExtensionAttributes"
    if !ext.pointIdentifier.isEmpty && ext.point == nil {
      diagnostics.append(
        Diagnostic(
          .error, "extension-point-unknown", file: info.file, keyPath: "NSExtension.NSExtensionPointIdentifier",
          "is \"\(ext.pointIdentifier)\", which is not an extension point IntentHost runs",
          fix: "use com.apple.intents-service (Intents) or com.apple.intents-ui-service (Intents UI)"))
    }
    let supported = Set(ext.intentsSupported)
    for (list, name) in [
      (ext.intentsRestrictedWhileLocked, "IntentsRestrictedWhileLocked"),
      (ext.intentsRestrictedWhileProtectedDataUnavailable, "IntentsRestrictedWhileProtectedDataUnavailable"),
      (ext.intentsRestrictedWhileLockedAfterQuestions, InfoPlist.ExtensionInfo.restrictedAfterQuestionsKey),
    ] {
      for (index, className) in list.enumerated() where !supported.contains(className) {
        diagnostics.append(
          Diagnostic(
            .error, "restricted-not-supported", file: info.file, keyPath: "\(key).\(name)[\(index)]",
            "lists \(className), which is not in IntentsSupported (Apple: "
              + "INIntentError.restrictedIntentsNotSupportedByExtension)",
            fix: "add \(className) to IntentsSupported, or remove it from \(name)"))
      }
    }
    var seen = Set<String>()
    for className in ext.intentsSupported where !seen.insert(className).inserted {
      diagnostics.append(
        Diagnostic(
          .warning, "intent-listed-twice", file: info.file, keyPath: "\(key).IntentsSupported",
          "lists \(className) more than once", fix: "list it once"))
    }
    return diagnostics
  }

  /// The rules within one intent definition.
  func definitionRules(_ definition: IntentDefinition) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let file = definition.file
    let synthetic: Set<String> = ["count", "displayName", "minimumValue", "maximumValue"]
    var classNames = Set<String>()
    for (index, intent) in definition.intents.enumerated() {
      let at = "INIntents[\(index)] (\(intent.name))"
      if !classNames.insert(intent.className).inserted {
        diagnostics.append(
          Diagnostic(
            .error, "duplicate-definition", file: file, keyPath: at, "defines \(intent.className) twice",
            fix: "remove one of them"))
      }
      var names = Set<String>()
      let parameterNames = Set(intent.parameters.map(\.name))
      for parameter in intent.parameters {
        let here = "\(at).\(parameter.name)"
        if !names.insert(parameter.name).inserted {
          diagnostics.append(
            Diagnostic(.error, "duplicate-parameter", file: file, keyPath: here, "is defined twice", fix: "rename one"))
        }
        if let enumType = parameter.enumType, parameter.enumNamespace != "System",
          definition.enumeration(named: enumType) == nil
        {
          diagnostics.append(
            Diagnostic(
              .error, "enum-undefined", file: file, keyPath: "\(here).INIntentParameterEnumType",
              "names the enum \(enumType), which INEnums does not define",
              fix: "define \(enumType) or pick another enum"))
        }
        if let objectType = parameter.objectType, parameter.objectNamespace != "System",
          definition.type(named: objectType) == nil
        {
          diagnostics.append(
            Diagnostic(
              .error, "type-undefined", file: file, keyPath: "\(here).INIntentParameterObjectType",
              "names the type \(objectType), which INTypes does not define", fix: "define \(objectType) in INTypes"))
        }
        if let relationship = parameter.relationship {
          if let parent = intent.parameter(named: relationship.parent) {
            if let value = relationship.value, let enumType = parent.enumType,
              let enumeration = EnumSpec.named(enumType, in: definition),
              !enumeration.values.contains(where: { $0.name == value })
            {
              diagnostics.append(
                Diagnostic(
                  .error, "relationship-value", file: file, keyPath: "\(here).INIntentParameterRelationship",
                  "depends on \(parent.name) being \"\(value)\", which is not a case of \(enumType)",
                  fix: "use one of \(enumeration.values.map(\.name).joined(separator: ", "))"))
            }
          } else {
            diagnostics.append(
              Diagnostic(
                .error, "relationship-parent", file: file, keyPath: "\(here).INIntentParameterRelationship",
                "depends on \"\(relationship.parent)\", which is not a parameter of \(intent.name)",
                fix: "name one of \(intent.parameters.map(\.name).joined(separator: ", "))"))
          }
        }
        for prompt in parameter.promptDialogs {
          for name in placeholders(prompt.text ?? "") where !parameterNames.contains(name) && !synthetic.contains(name)
          {
            diagnostics.append(
              Diagnostic(
                .warning, "template-unknown-name", file: file, keyPath: "\(here) \(prompt.type) prompt",
                "refers to ${\(name)}, which is not a parameter of \(intent.name)",
                fix: "use one of \(intent.parameters.map { "${\($0.name)}" }.joined(separator: ", "))"))
          }
        }
      }
      for combination in intent.combinations + intent.managedCombinations {
        for name in combination.parameters where !parameterNames.contains(name) {
          diagnostics.append(
            Diagnostic(
              .error, "combination-unknown-parameter", file: file,
              keyPath: "\(at).INIntentParameterCombinations[\"\(combination.key)\"]",
              "names \(name), which is not a parameter of \(intent.name)",
              fix: "remove it from the combination, or add the parameter"))
        }
      }
      if let response = intent.response {
        let codes = Set(response.codes.map(\.name))
        if !intent.isSystem && !(codes.contains("success") && codes.contains("failure")) {
          diagnostics.append(
            Diagnostic(
              .warning, "response-codes", file: file, keyPath: "\(at).INIntentResponse.INIntentResponseCodes",
              "lacks \(codes.contains("success") ? "failure" : "success"); Xcode gives every custom intent both",
              fix: "add the success and failure codes"))
        }
        let responseNames = Set(response.parameters.map(\.name))
        for code in response.codes {
          for template in [code.template, code.conciseTemplate].compactMap({ $0 }) {
            for name in placeholders(template) where !responseNames.contains(String(name.split(separator: ".")[0])) {
              diagnostics.append(
                Diagnostic(
                  .warning, "template-unknown-name", file: file, keyPath: "\(at).INIntentResponse.\(code.name)",
                  "refers to ${\(name)}, which is not a response parameter (templates use response parameters)",
                  fix: "add a response parameter \(name.split(separator: ".")[0]) and set it in handle"))
            }
          }
        }
      } else if !intent.isSystem {
        diagnostics.append(
          Diagnostic(
            .warning, "response-codes", file: file, keyPath: at, "has no INIntentResponse",
            fix: "add INIntentResponse with INIntentResponseCodes success and failure"))
      }
    }
    return diagnostics
  }

  func vocabularyFileRules(_ vocabulary: Vocabulary) -> [Diagnostic] {
    if vocabulary.intentPhrases.isEmpty && vocabulary.items.isEmpty {
      return [
        Diagnostic(
          .warning, "vocabulary-empty", file: vocabulary.file,
          "has no intent phrases and no parameter vocabulary (Xcode's unfilled template?)",
          fix: "add IntentPhrases with IntentExamples, or delete the file")
      ]
    }
    return []
  }
}
