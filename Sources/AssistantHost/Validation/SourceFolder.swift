import BundleManifest
import Foundation
import IntentHostSystem
import Understanding

extension Validator {
  /// A folder of sources: each app Info.plist in it is checked as a project (app, extensions, definitions,
  /// vocabularies, entitlements, strings, and the rules between them, but not executables), with the extensions
  /// whose bundle identifiers it prefixes and the other files in its folders; with one app, every file is its own.
  /// Without an app, and for files in no app's folders, each file on its own. A file is a manifest by its name, or else by its content (`ManifestKind`).
  package func validateSources(in folder: URL) -> [Diagnostic] {
    var (files, diagnostics) = sourceFiles(in: folder)
    if files.isEmpty {
      return diagnostics + [
        Diagnostic(
          .error, .nothingToValidate, file: folder.path,
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
        diagnostics.append(Diagnostic(.error, .plist, file: file.url.path, "\(error)"))
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
        diagnostics.append(Diagnostic(.error, .plist, file: url.path, "\(error)"))
      }
    }
    return (files.sorted { $0.url.path < $1.url.path }, diagnostics)
  }
}
