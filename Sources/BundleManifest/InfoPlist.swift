import Foundation

/// The extension points IntentHost knows.
public enum ExtensionPoint: String, Sendable, CaseIterable {
  case intentsService = "com.apple.intents-service"
  case intentsUIService = "com.apple.intents-ui-service"
}

/// An app's or extension's `Info.plist`, as far as Siri cares.
public struct InfoPlist: Sendable, Equatable {
  public var file: String
  public var bundleIdentifier: String
  public var executable: String
  public var name: String?
  public var displayName: String?
  public var spokenName: String?
  public var packageType: String?
  public var alternativeAppNames: [String]
  /// `INAlternativeAppNames` `INAlternativeAppNamePronunciationHint`s: how the alternative names sound, in words.
  public var alternativeAppNamePronunciations: [String] = []
  /// `INIntentsSupported`: intents the app itself handles.
  public var appIntentsSupported: [String]
  /// `INIntentsRestrictedWhileLocked`: intents that need an unlocked device.
  public var appIntentsRestrictedWhileLocked: [String]
  /// `INIntentsRestrictedWhileProtectedDataUnavailable`: intents that need protected data.
  public var appIntentsRestrictedWhileProtectedDataUnavailable: [String]
  public var userActivityTypes: [String]
  public var siriUsageDescription: String?
  public var extensionInfo: ExtensionInfo?
  /// `EXAppExtensionAttributes.EXExtensionPointIdentifier`: the point of an ExtensionKit extension (in an app's
  /// `Extensions/`), such as `com.apple.appintents-extension`; nil when absent.
  public var appExtensionPointIdentifier: String? = nil
  /// What loading found that is not a parse error: unresolved build settings, keys taken from settings.
  public var diagnostics: [Diagnostic]

  /// The name a user calls the bundle by: display name, then bundle name, then executable.
  public var userFacingName: String { displayName ?? name ?? executable }

  /// `NSExtension`.
  public struct ExtensionInfo: Sendable, Equatable {
    public var pointIdentifier: String
    public var principalClass: String?
    public var mainStoryboard: String?
    public var intentsSupported: [String]
    public var intentsRestrictedWhileLocked: [String]
    public var intentsRestrictedWhileProtectedDataUnavailable: [String]
    /// `IntentHostIntentsRestrictedWhileLockedAfterQuestions` (IntentHost's own key, Apple's conditional rule for
    /// `INAppendToNoteIntent` made available to any intent): intents that need an unlocked device before handle
    /// when resolving a parameter asked the user to choose (disambiguation) or to confirm a value.
    public var intentsRestrictedWhileLockedAfterQuestions: [String]

    /// The key of `intentsRestrictedWhileLockedAfterQuestions`.
    public static let restrictedAfterQuestionsKey = "IntentHostIntentsRestrictedWhileLockedAfterQuestions"

    /// The point as a known case, nil for points IntentHost does not run.
    public var point: ExtensionPoint? { ExtensionPoint(rawValue: pointIdentifier) }
  }

  /// Loads an Info.plist, expanding build settings.
  /// - Throws: `ManifestError` for a file that does not parse or a key of the wrong type.
  public static func load(
    contentsOf url: URL, settings: BuildSettings = BuildSettings(), unresolved: Diagnostic.Severity = .error
  ) throws -> InfoPlist {
    try InfoPlist(PlistDictionary.load(contentsOf: url), settings: settings, unresolved: unresolved)
  }

  /// - Parameters:
  ///   - settings: the values for `$(NAME)` and `${NAME}` references.
  ///   - unresolved: the severity of a reference `settings` cannot resolve (an error in a bundle; a warning for a
  ///     lone source file, which Xcode would expand at build time).
  public init(
    _ plist: PlistDictionary, settings: BuildSettings = BuildSettings(), unresolved: Diagnostic.Severity = .error
  )
    throws
  {
    file = plist.file
    var diagnostics: [Diagnostic] = []
    func expand(_ dictionary: PlistDictionary, _ key: String, _ value: String?) -> String? {
      guard let value else { return nil }
      let expansion = settings.expand(value)
      if !expansion.unresolved.isEmpty {
        let names = expansion.unresolved.map { "$(\($0))" }.joined(separator: ", ")
        let whole =
          expansion.unresolved.count == 1
          && (value == "$(\(expansion.unresolved[0]))" || value == "${\(expansion.unresolved[0])}")
        diagnostics.append(
          Diagnostic(
            unresolved, .buildSettingUnresolved, file: plist.file, keyPath: dictionary.keyPath(key),
            whole
              ? "is \(value), a build setting with no value" : "\"\(value)\" refers to \(names), which has no value",
            fix: "define \(expansion.unresolved.joined(separator: ", ")) in \(BuildSettings.fileName) beside the "
              + "bundle's Info.plist, or pass --setting \(expansion.unresolved[0])=VALUE"))
      }
      return expansion.value
    }
    func strings(_ dictionary: PlistDictionary?, _ key: String) throws -> [String] {
      try dictionary?.strings(key).map { expand(dictionary!, key, $0) ?? $0 } ?? []
    }
    if let identifier = expand(plist, "CFBundleIdentifier", try plist.string("CFBundleIdentifier")), !identifier.isEmpty
    {
      bundleIdentifier = identifier
    } else if let identifier = settings.values["PRODUCT_BUNDLE_IDENTIFIER"] {
      bundleIdentifier = settings.expand(identifier).value
      diagnostics.append(
        Diagnostic(
          .note, .bundleIDFromSettings, file: plist.file, keyPath: "CFBundleIdentifier",
          "is not in the file; using PRODUCT_BUNDLE_IDENTIFIER (\(bundleIdentifier)), as Xcode's generated Info.plist does"
        ))
    } else {
      bundleIdentifier = ""
      diagnostics.append(
        Diagnostic(
          unresolved == .error ? .error : .warning, .bundleIDMissing, file: plist.file,
          keyPath: "CFBundleIdentifier", "is missing",
          fix: "add CFBundleIdentifier (a reverse-DNS name such as com.example.rooms), or PRODUCT_BUNDLE_IDENTIFIER in "
            + BuildSettings.fileName))
    }
    // The grammar, unless a build setting left unresolved already explains the value.
    func unresolvedReference(_ key: String) -> Bool {
      diagnostics.contains { $0.rule == .buildSettingUnresolved && $0.keyPath == key }
    }
    if !bundleIdentifier.isEmpty && !unresolvedReference("CFBundleIdentifier"),
      let problem = NameRules.identifierSyntax(bundleIdentifier, file: plist.file)
    {
      diagnostics.append(problem)
    }
    if let executable = expand(plist, "CFBundleExecutable", try plist.string("CFBundleExecutable")), !executable.isEmpty
    {
      self.executable = executable
    } else if let executable = settings.values["EXECUTABLE_NAME"] {
      self.executable = settings.expand(executable).value
      diagnostics.append(
        Diagnostic(
          .note, .executableFromSettings, file: plist.file, keyPath: "CFBundleExecutable",
          "is not in the file; using EXECUTABLE_NAME (\(self.executable))"))
    } else {
      self.executable = ""
      diagnostics.append(
        Diagnostic(
          unresolved == .error ? .error : .warning, .executableMissing, file: plist.file,
          keyPath: "CFBundleExecutable", "is missing",
          fix: "name the executable file inside the bundle"))
    }
    if !executable.isEmpty && !unresolvedReference("CFBundleExecutable"),
      let problem = NameRules.executableName(executable, file: plist.file)
    {
      diagnostics.append(problem)
    }
    name = expand(plist, "CFBundleName", try plist.string("CFBundleName"))
    displayName = expand(plist, "CFBundleDisplayName", try plist.string("CFBundleDisplayName"))
    spokenName = expand(plist, "CFBundleSpokenName", try plist.string("CFBundleSpokenName"))
    packageType = expand(plist, "CFBundlePackageType", try plist.string("CFBundlePackageType"))
    alternativeAppNames = try plist.dictionaries("INAlternativeAppNames").compactMap {
      try $0.string("INAlternativeAppName")
    }
    alternativeAppNamePronunciations = try plist.dictionaries("INAlternativeAppNames").compactMap {
      try $0.string("INAlternativeAppNamePronunciationHint")
    }
    appIntentsSupported = try strings(plist, "INIntentsSupported")
    appIntentsRestrictedWhileLocked = try strings(plist, "INIntentsRestrictedWhileLocked")
    appIntentsRestrictedWhileProtectedDataUnavailable = try strings(
      plist, "INIntentsRestrictedWhileProtectedDataUnavailable")
    userActivityTypes = try strings(plist, "NSUserActivityTypes")
    siriUsageDescription = try plist.string("NSSiriUsageDescription")
    if let ext = try plist.dictionary("NSExtension") {
      let attributes = try ext.dictionary("NSExtensionAttributes")
      let point = expand(ext, "NSExtensionPointIdentifier", try ext.string("NSExtensionPointIdentifier"))
      if point == nil || point!.isEmpty {
        diagnostics.append(
          Diagnostic(
            .error, .extensionPointMissing, file: plist.file, keyPath: ext.keyPath("NSExtensionPointIdentifier"),
            "is missing", fix: "use com.apple.intents-service or com.apple.intents-ui-service"))
      }
      extensionInfo = ExtensionInfo(
        pointIdentifier: point ?? "",
        principalClass: expand(ext, "NSExtensionPrincipalClass", try ext.string("NSExtensionPrincipalClass")),
        mainStoryboard: try ext.string("NSExtensionMainStoryboard"),
        intentsSupported: try strings(attributes, "IntentsSupported"),
        intentsRestrictedWhileLocked: try strings(attributes, "IntentsRestrictedWhileLocked"),
        intentsRestrictedWhileProtectedDataUnavailable:
          try strings(attributes, "IntentsRestrictedWhileProtectedDataUnavailable"),
        intentsRestrictedWhileLockedAfterQuestions:
          try strings(attributes, ExtensionInfo.restrictedAfterQuestionsKey))
    } else {
      extensionInfo = nil
    }
    if let attributes = try plist.dictionary("EXAppExtensionAttributes") {
      appExtensionPointIdentifier = expand(
        attributes, "EXExtensionPointIdentifier", try attributes.string("EXExtensionPointIdentifier"))
    }
    diagnostics.addMisspeltKeys(of: plist)
    self.diagnostics = diagnostics
  }
}

/// A `.entitlements` file.
public struct Entitlements: Sendable, Equatable {
  public var file: String?
  /// `com.apple.security.application-groups`.
  public var applicationGroups: [String]
  /// `com.apple.developer.siri`.
  public var siri: Bool
  /// `com.apple.developer.team-identifier`: the team that owns the app's identifiers and groups (`Team`).
  public var teamIdentifier: String?
  /// `com.apple.security.network.client`: outgoing network connections (docs/SANDBOX.md, "Network").
  public var networkClient = false
  /// `com.apple.security.network.server`: listening for incoming connections (docs/SANDBOX.md, "Network").
  public var networkServer = false
  /// `com.apple.security.temporary-exception.files.absolute-path.read-only`: paths the sandbox lets it read, as
  /// written: with Apple's meaning, a path ending in `/` is a folder and everything in it (`/usr/share/`), one
  /// without is that one file or folder (`/etc/hostname`; of a folder, its listing). Each is checked here for its
  /// form (`readOnlyPathProblem`) and by the host, by its real path, at install and at every launch (docs/SANDBOX.md,
  /// "Exceptions from entitlements").
  public var readOnlyPaths: [String] = []
  /// Unresolved build settings, names that break the grammar (`app-group-identifier`, `team-identifier`), read-only
  /// paths of the wrong form (`entitlement-read-only-path`), and `com.apple.security.` keys the sandbox does not
  /// read (`entitlement-unsupported`, `entitlement-unknown`).
  public var diagnostics: [Diagnostic] = []

  public init(
    file: String? = nil, applicationGroups: [String] = [], siri: Bool = false, teamIdentifier: String? = nil
  ) {
    self.file = file
    self.applicationGroups = applicationGroups
    self.siri = siri
    self.teamIdentifier = teamIdentifier
  }

  /// Loads a `.entitlements` file, expanding build settings in its group and team identifiers, and checks each of
  /// them against the grammar (`NameGrammar`).
  public static func load(
    contentsOf url: URL, settings: BuildSettings = BuildSettings(), unresolved: Diagnostic.Severity = .error
  ) throws -> Entitlements {
    try Entitlements(PlistDictionary.load(contentsOf: url), settings: settings, unresolved: unresolved)
  }

  /// Reads an entitlements property list (see `load(contentsOf:settings:unresolved:)`).
  public init(
    _ plist: PlistDictionary, settings: BuildSettings = BuildSettings(), unresolved: Diagnostic.Severity = .error
  ) throws {
    var entitlements = Entitlements(file: plist.file, siri: try plist.bool("com.apple.developer.siri"))
    // The value with build settings expanded, and whether every one had a value (else a diagnostic says which).
    func expand(_ value: String, keyPath: String, example: String) -> (value: String, resolved: Bool) {
      let expansion = settings.expand(value)
      if !expansion.unresolved.isEmpty {
        entitlements.diagnostics.append(
          Diagnostic(
            unresolved, .buildSettingUnresolved, file: plist.file, keyPath: keyPath,
            "\"\(value)\" refers to \(expansion.unresolved.map { "$(\($0))" }.joined(separator: ", ")), which has no value",
            fix: "define \(expansion.unresolved[0]) in \(BuildSettings.fileName), or pass --setting "
              + "\(expansion.unresolved[0])=\(example)"))
      }
      return (expansion.value, expansion.unresolved.isEmpty)
    }
    for (index, group) in try plist.strings("com.apple.security.application-groups").enumerated() {
      let (value, resolved) = expand(
        group, keyPath: "com.apple.security.application-groups[\(index)]", example: "group.com.example.app")
      if resolved, let problem = NameRules.groupSyntax(value, index: index, file: plist.file) {
        entitlements.diagnostics.append(problem)
      }
      entitlements.applicationGroups.append(value)
    }
    entitlements.networkClient = try plist.bool(Self.networkClientKey)
    entitlements.networkServer = try plist.bool(Self.networkServerKey)
    entitlements.readOnlyPaths = try plist.strings(Self.readOnlyPathsKey)
    entitlements.diagnostics += Self.sandboxKeyFindings(plist, readOnlyPaths: entitlements.readOnlyPaths)
    if let team = try plist.string("com.apple.developer.team-identifier") {
      let (value, resolved) = expand(team, keyPath: "com.apple.developer.team-identifier", example: "A1B2C3D4E5")
      if resolved, let problem = NameRules.teamSyntax(value, file: plist.file) {
        entitlements.diagnostics.append(problem)
      }
      entitlements.teamIdentifier = value
    }
    entitlements.diagnostics.addMisspeltKeys(of: plist)
    self = entitlements
  }
}

extension Entitlements {
  public static let appSandboxKey = "com.apple.security.app-sandbox"
  public static let applicationGroupsKey = "com.apple.security.application-groups"
  public static let networkClientKey = "com.apple.security.network.client"
  public static let networkServerKey = "com.apple.security.network.server"
  public static let readOnlyPathsKey = "com.apple.security.temporary-exception.files.absolute-path.read-only"
  /// The most read-only paths one entitlements file may list, and the longest each may be, in bytes.
  public static let readOnlyPathsLimit = 32
  public static let readOnlyPathLengthLimit = 1024

  /// The `com.apple.security.` keys the sandbox reads (docs/SANDBOX.md, "Exceptions from entitlements").
  public static let sandboxKeys: Set<String> = [
    appSandboxKey, applicationGroupsKey, networkClientKey, networkServerKey, readOnlyPathsKey,
  ]

  /// Apple's App Sandbox and hardened-runtime keys that mean nothing here: devices, personal data, user-selected
  /// files, other exceptions. Each gets `entitlement-unsupported` (a warning): the key is ignored.
  public static let unsupportedKeys: [String: String] = {
    var keys: [String: String] = [:]
    for key in [
      "files.user-selected.read-only", "files.user-selected.read-write", "files.user-selected.executable",
      "files.downloads.read-only", "files.downloads.read-write", "files.bookmarks.app-scope",
      "files.bookmarks.document-scope", "assets.movies.read-only", "assets.movies.read-write",
      "assets.music.read-only", "assets.music.read-write", "assets.pictures.read-only", "assets.pictures.read-write",
    ] {
      keys["com.apple.security." + key] = "there is no user-selected file or media library on this host"
    }
    for key in [
      "device.camera", "device.microphone", "device.audio-input", "device.usb", "device.bluetooth", "device.serial",
      "print", "personal-information.addressbook", "personal-information.calendars",
      "personal-information.location", "personal-information.photos-library",
    ] {
      keys["com.apple.security." + key] = "the sandbox grants no device or personal data"
    }
    for key in [
      "temporary-exception.files.absolute-path.read-write", "temporary-exception.files.home-relative-path.read-only",
      "temporary-exception.files.home-relative-path.read-write", "temporary-exception.mach-lookup.global-name",
      "temporary-exception.mach-register.global-name", "temporary-exception.shared-preference.read-only",
      "temporary-exception.shared-preference.read-write", "temporary-exception.apple-events",
      "temporary-exception.iokit-user-client-class", "temporary-exception.sbpl",
    ] {
      keys["com.apple.security." + key] =
        "the only exceptions are " + readOnlyPathsKey + " and the network entitlements"
    }
    for key in [
      "cs.allow-jit", "cs.allow-unsigned-executable-memory", "cs.allow-dyld-environment-variables",
      "cs.disable-library-validation", "cs.disable-executable-page-protection", "cs.debugger", "get-task-allow",
      "inherit",
    ] {
      keys["com.apple.security." + key] = "it is about macOS code signing, which Linux does not have"
    }
    return keys
  }()

  /// Why `path`, an entry of the read-only exception, is not an absolute path the host can check; nil when it is.
  /// It must be absolute, at most `readOnlyPathLengthLimit` bytes, not `/` alone (the whole file system), with no
  /// empty component but the one a trailing `/` makes (a folder and everything in it, as Apple writes it: `/usr/bin/`),
  /// no `.` or `..` component and no control character.
  public static func readOnlyPathProblem(_ path: String) -> String? {
    if path.isEmpty { return "is empty" }
    if path.utf8.count > readOnlyPathLengthLimit {
      return "is \(path.utf8.count) bytes long, more than the \(readOnlyPathLengthLimit) a path may have here"
    }
    if path.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
      return "contains a control character"
    }
    guard path.hasPrefix("/") else { return "is not an absolute path" }
    if path == "/" { return rootProblem }
    let components = readOnlyPathNamedItem(path).split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    if components.contains("") { return "has an empty component (a //)" }
    if components.contains(where: { $0 == "." || $0 == ".." }) { return "has a . or .. component" }
    return nil
  }

  /// Why `/` alone is refused, as a phrase after the path.
  public static let rootProblem =
    "is / alone, which would grant the whole file system (every file the system owns, and every folder's listing); "
    + "name the folders the app reads instead, each ending in / (/usr/share/)"

  /// Whether `path`, an entry of the read-only exception, names a folder and everything in it: it ends in `/`
  /// (`/usr/share/`), Apple's form. Without the `/`, it names that one file or folder.
  public static func readOnlyPathNamesContents(_ path: String) -> Bool { path.count > 1 && path.hasSuffix("/") }

  /// `path` without the trailing `/` that makes it name a folder's contents: the file or folder it names.
  public static func readOnlyPathNamedItem(_ path: String) -> String {
    readOnlyPathNamesContents(path) ? String(path.dropLast()) : path
  }

  /// The findings about the sandbox's keys: each read-only path of the wrong form, too many of them, and every
  /// `com.apple.security.` key the sandbox does not read.
  static func sandboxKeyFindings(_ plist: PlistDictionary, readOnlyPaths: [String]) -> [Diagnostic] {
    var findings: [Diagnostic] = []
    if readOnlyPaths.count > readOnlyPathsLimit {
      findings.append(
        Diagnostic(
          .error, .entitlementReadOnlyPath, file: plist.file, keyPath: readOnlyPathsKey,
          "lists \(readOnlyPaths.count) paths, more than the \(readOnlyPathsLimit) the sandbox takes",
          fix: "list the folders that hold the files rather than each file"))
    }
    for (index, path) in readOnlyPaths.enumerated() {
      guard let problem = readOnlyPathProblem(path) else { continue }
      findings.append(
        Diagnostic(
          .error, .entitlementReadOnlyPath, file: plist.file, keyPath: "\(readOnlyPathsKey)[\(index)]",
          "\"\(path)\" \(problem)",
          fix: "write it from /, with no // and no . or .. component: a folder and everything in it ends in / "
            + "(/usr/share/), one file or folder does not (/etc/hostname)"))
    }
    for key in plist.values.keys.sorted() where key.hasPrefix("com.apple.security.") && !sandboxKeys.contains(key) {
      if let reason = unsupportedKeys[key] {
        findings.append(
          Diagnostic(
            .warning, .entitlementUnsupported, file: plist.file, keyPath: key,
            "is not supported by IntentHost's sandbox on Linux (\(reason)); it is ignored",
            fix: "remove it, or keep it for macOS: it grants nothing here"))
      } else {
        findings.append(
          Diagnostic(
            .warning, .entitlementUnknown, file: plist.file, keyPath: key,
            "is not an entitlement IntentHost knows; it is ignored on Linux",
            fix: "check its spelling; the sandbox reads " + sandboxKeys.sorted().joined(separator: ", ")))
      }
    }
    return findings
  }
}
