import Foundation

/// An extension bundle: `<App>.app/PlugIns/<Name>.appex`.
public struct ExtensionBundle: Sendable, Equatable {
  public var url: URL
  public var info: InfoPlist
  public var extensionInfo: InfoPlist.ExtensionInfo
  public var entitlements: Entitlements
  public var definitions: [IntentDefinition]

  public var executableURL: URL { url.appendingPathComponent(info.executable) }
  /// The bundle's name without `.appex`, used in messages ("RoomsIntents").
  public var name: String { url.deletingPathExtension().lastPathComponent }
}

/// An app bundle: `<Name>.app` with `Info.plist`, its executable, `*.entitlements`, intent definitions and
/// vocabularies (at the root or in `*.lproj`), and extensions in `PlugIns/`.
public struct AppBundle: Sendable, Equatable {
  public var url: URL
  public var info: InfoPlist
  public var entitlements: Entitlements
  public var definitions: [IntentDefinition]
  public var vocabularies: [Vocabulary]
  public var extensions: [ExtensionBundle]

  public var executableURL: URL { url.appendingPathComponent(info.executable) }
  /// The name the user calls the app by.
  public var name: String { info.userFacingName }

  /// Every name the app answers to: display name, bundle name, spoken name, alternative names, executable.
  public var names: [String] {
    var result: [String] = []
    for name in [info.displayName, info.name, info.spokenName].compactMap({ $0 }) + info.alternativeAppNames
      + [info.executable]
    where !result.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
      result.append(name)
    }
    return result
  }

  /// All intent definitions of the app and its extensions.
  public var allDefinitions: [IntentDefinition] { definitions + extensions.flatMap(\.definitions) }

  /// The definition of an intent class, searching the app's and its extensions' definitions.
  public func intentSpec(className: String) -> (IntentSpec, IntentDefinition)? {
    for definition in allDefinitions {
      if let spec = definition.intents.first(where: { $0.className == className }) { return (spec, definition) }
    }
    return nil
  }

  /// The Intents extension that lists `className` in `IntentsSupported`.
  public func intentsExtension(for className: String) -> ExtensionBundle? {
    extensions.first {
      $0.extensionInfo.point == .intentsService && $0.extensionInfo.intentsSupported.contains(className)
    }
  }

  /// Every intent class the app's Intents extensions support, in manifest order.
  public var supportedIntents: [String] {
    var result: [String] = []
    for ext in extensions where ext.extensionInfo.point == .intentsService {
      for name in ext.extensionInfo.intentsSupported where !result.contains(name) { result.append(name) }
    }
    return result
  }

  /// Loads an app bundle directory.
  /// - Throws: `ManifestError` naming the file and key of the first problem.
  public static func load(from url: URL) throws -> AppBundle {
    let url = url.standardizedFileURL
    let fm = FileManager.default
    var isDirectory: ObjCBool = false
    guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw ManifestError(file: url.path, problem: "is not a bundle directory", fix: "point at a .app folder")
    }
    let infoURL = url.appendingPathComponent("Info.plist")
    guard fm.fileExists(atPath: infoURL.path) else {
      throw ManifestError(file: infoURL.path, problem: "is missing", fix: "every bundle needs an Info.plist")
    }
    let info = try InfoPlist.load(contentsOf: infoURL)
    if info.extensionInfo != nil {
      throw ManifestError(
        file: infoURL.path, keyPath: "NSExtension", problem: "describes an extension, not an app",
        fix: "install the containing .app; extensions live in its PlugIns folder")
    }
    let app = AppBundle(
      url: url, info: info, entitlements: try loadEntitlements(in: url),
      definitions: try findFiles(in: url, extension: "intentdefinition").map(IntentDefinition.load),
      vocabularies: try findFiles(in: url, named: "AppIntentVocabulary.plist").map(Vocabulary.load),
      extensions: try loadExtensions(in: url))
    try app.checkExecutables()
    return app
  }

  private static func loadExtensions(in app: URL) throws -> [ExtensionBundle] {
    let plugins = app.appendingPathComponent("PlugIns")
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: plugins.path) else { return [] }
    return try names.sorted().filter { $0.hasSuffix(".appex") }.map { name in
      let url = plugins.appendingPathComponent(name)
      let infoURL = url.appendingPathComponent("Info.plist")
      let info = try InfoPlist.load(contentsOf: infoURL)
      guard let extensionInfo = info.extensionInfo else {
        throw ManifestError(
          file: infoURL.path, keyPath: "NSExtension", problem: "is missing",
          fix: "an .appex needs NSExtension with NSExtensionPointIdentifier")
      }
      return ExtensionBundle(
        url: url, info: info, extensionInfo: extensionInfo, entitlements: try loadEntitlements(in: url),
        definitions: try findFiles(in: url, extension: "intentdefinition").map(IntentDefinition.load))
    }
  }

  private static func loadEntitlements(in bundle: URL) throws -> Entitlements {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: bundle.path))?.filter {
      $0.hasSuffix(".entitlements")
    }.sorted() ?? []
    guard let first = files.first else { return Entitlements() }
    if files.count > 1 {
      throw ManifestError(
        file: bundle.path, problem: "has \(files.count) .entitlements files (\(files.joined(separator: ", ")))",
        fix: "keep exactly one")
    }
    return try Entitlements.load(contentsOf: bundle.appendingPathComponent(first))
  }

  /// Files at the bundle root and in its `.lproj` folders (Base first), not descending into PlugIns.
  private static func findFiles(in bundle: URL, extension ext: String? = nil, named: String? = nil) -> [URL] {
    let fm = FileManager.default
    func matches(_ name: String) -> Bool {
      if let named { return name == named }
      return name.hasSuffix("." + (ext ?? ""))
    }
    var result: [URL] = []
    let entries = ((try? fm.contentsOfDirectory(atPath: bundle.path)) ?? []).sorted {
      ($0 == "Base.lproj" ? "" : $0) < ($1 == "Base.lproj" ? "" : $1)
    }
    for name in entries where matches(name) { result.append(bundle.appendingPathComponent(name)) }
    for folder in entries where folder.hasSuffix(".lproj") {
      let url = bundle.appendingPathComponent(folder)
      for name in ((try? fm.contentsOfDirectory(atPath: url.path)) ?? []).sorted() where matches(name) {
        result.append(url.appendingPathComponent(name))
      }
      // One copy of a definition is enough: Base.lproj wins over language folders.
      if ext == "intentdefinition" && !result.isEmpty { break }
    }
    return result
  }

  private func checkExecutables() throws {
    let fm = FileManager.default
    for (path, infoFile) in [(executableURL.path, info.file)] + extensions.map({ ($0.executableURL.path, $0.info.file) })
    where !fm.isExecutableFile(atPath: path) {
      throw ManifestError(
        file: infoFile, keyPath: "CFBundleExecutable",
        problem: "names \(path), which is \(fm.fileExists(atPath: path) ? "not executable" : "missing")",
        fix: "build the executable into the bundle (Scripts/assemble-bundles does this for the examples)")
    }
  }
}
