import AppIntentsMetadata
import Foundation

/// An extension bundle: `<App>.app/PlugIns/<Name>.appex`.
///
/// Its names (folder, identifier, executable, groups) passed the grammar when it was loaded (`NameGrammar`).
public struct ExtensionBundle: Sendable, Equatable {
  public internal(set) var url: URL
  public internal(set) var info: InfoPlist
  /// `CFBundleIdentifier`, checked: its app's identifier plus one component.
  public let identifier: BundleIdentifier
  public internal(set) var extensionInfo: InfoPlist.ExtensionInfo
  public internal(set) var entitlements: Entitlements
  public var definitions: [IntentDefinition]
  public var settings: BuildSettings

  public var executableURL: URL { url.appendingPathComponent(info.executable) }
  /// The bundle's name without `.appex`, used in messages ("RoomsIntents").
  public var name: String { url.deletingPathExtension().lastPathComponent }
}

/// An app bundle: `<Name>.app` with `Info.plist`, its executable, `*.entitlements`, intent definitions and
/// vocabularies (at the root or in `*.lproj`), and extensions in `PlugIns/`.
///
/// Only `load(from:settings:)` makes one, and it refuses a bundle whose names break the grammar (`NameGrammar`):
/// the folder names, every `CFBundleIdentifier` and `CFBundleExecutable`, every app group and team identifier of an
/// `AppBundle` are valid, so the host may build paths from them.
public struct AppBundle: Sendable, Equatable {
  public internal(set) var url: URL
  public internal(set) var info: InfoPlist
  /// `CFBundleIdentifier`, checked.
  public let identifier: BundleIdentifier
  /// Who owns the app's identifiers and groups: its entitlements' team identifier, else derived from `identifier`.
  public let team: Team
  public internal(set) var entitlements: Entitlements
  public var definitions: [IntentDefinition]
  public var vocabularies: [Vocabulary]
  /// `<lang>.lproj/*.strings` translations of the definitions.
  public var stringsTables: [StringsTable]
  public internal(set) var extensions: [ExtensionBundle]
  public var settings: BuildSettings
  /// The app's own `Metadata.appintents` (intents that run in the app); nil when it has none.
  public internal(set) var appIntentsMetadata: AppIntentsMetadataFolder? = nil
  /// Its App Intents extensions, in `Extensions/` (intents that run in them), in name order.
  public internal(set) var appIntentsExtensions: [AppIntentsExtensionBundle] = []
  /// What loading found (unresolved build settings, keys taken from settings), from every file of the bundle.
  public var loadDiagnostics: [Diagnostic] {
    info.diagnostics + entitlements.diagnostics
      + extensions.flatMap { $0.info.diagnostics + $0.entitlements.diagnostics }
      + appIntentsExtensions.flatMap { $0.info.diagnostics + $0.entitlements.diagnostics }
  }

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

  /// Every app group the app and its extensions (App Intents extensions included) list, each once, in order.
  public var applicationGroups: [AppGroupIdentifier] {
    var result: [AppGroupIdentifier] = []
    for text in entitlements.applicationGroups + extensions.flatMap(\.entitlements.applicationGroups)
      + appIntentsExtensions.flatMap(\.entitlements.applicationGroups)
    {
      if let group = AppGroupIdentifier(validating: text), !result.contains(group) { result.append(group) }
    }
    return result
  }

  /// The identifiers of the app and of its extensions (App Intents extensions included).
  public var allIdentifiers: [BundleIdentifier] {
    [identifier] + extensions.map(\.identifier) + appIntentsExtensions.map(\.identifier)
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

  /// What the host needs to run `className`: the app's definition of it, else Apple's system intent from the
  /// catalog. A definition entry customising a system intent (`INIntentType` System, which carries no response)
  /// gets the catalog's response codes, and keeps Siri's confirmation step where Siri always asks (payments): a
  /// definition can add the step, never take it away.
  public func runnableSpec(className: String) -> (spec: IntentSpec, definition: IntentDefinition?)? {
    let system = SystemIntent.named(className)?.spec
    if case (var spec, let definition)? = intentSpec(className: className) {
      if spec.response == nil, let response = system?.response { spec.response = response }
      if system?.userConfirmationRequired == true { spec.userConfirmationRequired = true }
      return (spec, definition)
    }
    return system.map { ($0, nil) }
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

  /// Loads an app bundle directory. Build settings come from each bundle's `BuildSettings.xcconfig`, what the
  /// bundle implies, and `settings`.
  /// - Throws: `ManifestError` naming the file and key of the first file that does not parse; `InvalidBundleNames`
  ///   with a diagnostic for each name that breaks the grammar (`NameRules.bundleNames`).
  public static func load(from url: URL, settings explicit: [String: String] = [:]) throws -> AppBundle {
    try load(from: url, settings: explicit, checkingNames: true)
  }

  /// For tests only: `load(from:settings:)` with `checkingNames` false loads a bundle whose names break the grammar,
  /// as the model did before it checked them, to show what the host would do with them (the controls of the name
  /// tests). Nothing but a test may do this.
  @_spi(Testing) public static func load(
    from url: URL, settings explicit: [String: String] = [:], checkingNames: Bool
  ) throws -> AppBundle {
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
    let settings = try BuildSettings.forBundle(at: url, explicit: explicit)
    let info = try InfoPlist.load(contentsOf: infoURL, settings: settings)
    if info.extensionInfo != nil {
      throw ManifestError(
        file: infoURL.path, keyPath: "NSExtension", problem: "describes an extension, not an app",
        fix: "install the containing .app; extensions live in its PlugIns folder")
    }
    let entitlements = try loadEntitlements(in: url, settings: settings)
    let parts = try loadExtensions(in: url, explicit: explicit)
    let appIntentsParts = try loadAppIntentsExtensions(in: url, explicit: explicit)
    let problems = NameRules.bundleNames(
      app: (url, info, entitlements),
      extensions: parts.map { ($0.url, $0.info, $0.entitlements) }
        + appIntentsParts.map { ($0.url, $0.info, $0.entitlements) })
    func checked(_ text: String) throws -> BundleIdentifier {
      if !checkingNames { return BundleIdentifier(unchecked: text) }
      guard problems.isEmpty, let identifier = BundleIdentifier(validating: text) else {
        throw InvalidBundleNames(bundle: url.path, diagnostics: problems)
      }
      return identifier
    }
    let identifier = try checked(info.bundleIdentifier)
    let extensions = try parts.map { part in
      let extensionIdentifier = try checked(part.info.bundleIdentifier)
      return ExtensionBundle(
        url: part.url, info: part.info, identifier: extensionIdentifier, extensionInfo: part.extensionInfo,
        entitlements: part.entitlements, definitions: part.definitions, settings: part.settings)
    }
    let appIntentsExtensions = try appIntentsParts.map { part in
      AppIntentsExtensionBundle(
        url: part.url, info: part.info, identifier: try checked(part.info.bundleIdentifier),
        entitlements: part.entitlements, settings: part.settings, metadata: part.metadata)
    }
    return AppBundle(
      url: url, info: info, identifier: identifier, team: Team(app: identifier, declared: entitlements.teamIdentifier),
      entitlements: entitlements,
      definitions: try findFiles(in: url, extension: "intentdefinition").map(IntentDefinition.load),
      vocabularies: try findFiles(in: url, named: "AppIntentVocabulary.plist").map(Vocabulary.load),
      // App Shortcut phrases are the App Intents model's (`appIntentsMetadata`), not translations of definitions.
      stringsTables: try findFiles(in: url, extension: "strings", languagesOnly: true).filter {
        $0.lastPathComponent != AppShortcutsStrings.fileName
      }.map(StringsTable.load),
      extensions: extensions, settings: settings, appIntentsMetadata: try AppIntentsMetadataFolder.load(in: url),
      appIntentsExtensions: appIntentsExtensions)
  }

  /// An extension as read, before its names are checked.
  private struct ExtensionParts {
    var url: URL
    var info: InfoPlist
    var extensionInfo: InfoPlist.ExtensionInfo
    var entitlements: Entitlements
    var definitions: [IntentDefinition]
    var settings: BuildSettings
  }

  private static func loadExtensions(in app: URL, explicit: [String: String]) throws -> [ExtensionParts] {
    let plugins = app.appendingPathComponent("PlugIns")
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: plugins.path) else { return [] }
    return try names.sorted().filter { $0.hasSuffix(".appex") }.map { name in
      let url = plugins.appendingPathComponent(name)
      let infoURL = url.appendingPathComponent("Info.plist")
      let settings = try BuildSettings.forBundle(at: url, explicit: explicit)
      let info = try InfoPlist.load(contentsOf: infoURL, settings: settings)
      guard let extensionInfo = info.extensionInfo else {
        throw ManifestError(
          file: infoURL.path, keyPath: "NSExtension", problem: "is missing",
          fix: "an .appex needs NSExtension with NSExtensionPointIdentifier")
      }
      return ExtensionParts(
        url: url, info: info, extensionInfo: extensionInfo,
        entitlements: try loadEntitlements(in: url, settings: settings),
        definitions: try findFiles(in: url, extension: "intentdefinition").map(IntentDefinition.load),
        settings: settings)
    }
  }

  static func loadEntitlements(in bundle: URL, settings: BuildSettings) throws -> Entitlements {
    let files =
      (try? FileManager.default.contentsOfDirectory(atPath: bundle.path))?.filter {
        $0.hasSuffix(".entitlements")
      }.sorted() ?? []
    guard let first = files.first else { return Entitlements() }
    if files.count > 1 {
      throw ManifestError(
        file: bundle.path, problem: "has \(files.count) .entitlements files (\(files.joined(separator: ", ")))",
        fix: "keep exactly one")
    }
    return try Entitlements.load(contentsOf: bundle.appendingPathComponent(first), settings: settings)
  }

  /// Files at the bundle root and in its `.lproj` folders (Base first), not descending into PlugIns.
  private static func findFiles(
    in bundle: URL, extension ext: String? = nil, named: String? = nil, languagesOnly: Bool = false
  ) -> [URL] {
    let fm = FileManager.default
    func matches(_ name: String) -> Bool {
      if let named { return name == named }
      return name.hasSuffix("." + (ext ?? ""))
    }
    var result: [URL] = []
    let entries = ((try? fm.contentsOfDirectory(atPath: bundle.path)) ?? []).sorted {
      ($0 == "Base.lproj" ? "" : $0) < ($1 == "Base.lproj" ? "" : $1)
    }
    for name in entries where matches(name) && !languagesOnly { result.append(bundle.appendingPathComponent(name)) }
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

}
