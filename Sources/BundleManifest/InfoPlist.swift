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
  /// `INIntentsSupported`: intents the app itself handles.
  public var appIntentsSupported: [String]
  public var appIntentsRestrictedWhileLocked: [String]
  public var userActivityTypes: [String]
  public var siriUsageDescription: String?
  public var extensionInfo: ExtensionInfo?
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
            unresolved, "build-setting-unresolved", file: plist.file, keyPath: dictionary.keyPath(key),
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
          .note, "bundle-id-from-settings", file: plist.file, keyPath: "CFBundleIdentifier",
          "is not in the file; using PRODUCT_BUNDLE_IDENTIFIER (\(bundleIdentifier)), as Xcode's generated Info.plist does"
        ))
    } else {
      bundleIdentifier = ""
      diagnostics.append(
        Diagnostic(
          unresolved == .error ? .error : .warning, "bundle-id-missing", file: plist.file,
          keyPath: "CFBundleIdentifier", "is missing",
          fix: "add CFBundleIdentifier (a reverse-DNS name such as com.example.rooms), or PRODUCT_BUNDLE_IDENTIFIER in "
            + BuildSettings.fileName))
    }
    if let executable = expand(plist, "CFBundleExecutable", try plist.string("CFBundleExecutable")), !executable.isEmpty
    {
      self.executable = executable
    } else if let executable = settings.values["EXECUTABLE_NAME"] {
      self.executable = settings.expand(executable).value
      diagnostics.append(
        Diagnostic(
          .note, "executable-from-settings", file: plist.file, keyPath: "CFBundleExecutable",
          "is not in the file; using EXECUTABLE_NAME (\(self.executable))"))
    } else {
      self.executable = ""
      diagnostics.append(
        Diagnostic(
          unresolved == .error ? .error : .warning, "executable-missing", file: plist.file,
          keyPath: "CFBundleExecutable", "is missing",
          fix: "name the executable file inside the bundle"))
    }
    name = expand(plist, "CFBundleName", try plist.string("CFBundleName"))
    displayName = expand(plist, "CFBundleDisplayName", try plist.string("CFBundleDisplayName"))
    spokenName = expand(plist, "CFBundleSpokenName", try plist.string("CFBundleSpokenName"))
    packageType = expand(plist, "CFBundlePackageType", try plist.string("CFBundlePackageType"))
    alternativeAppNames = try plist.dictionaries("INAlternativeAppNames").compactMap {
      try $0.string("INAlternativeAppName")
    }
    appIntentsSupported = try strings(plist, "INIntentsSupported")
    appIntentsRestrictedWhileLocked = try strings(plist, "INIntentsRestrictedWhileLocked")
    userActivityTypes = try strings(plist, "NSUserActivityTypes")
    siriUsageDescription = try plist.string("NSSiriUsageDescription")
    if let ext = try plist.dictionary("NSExtension") {
      let attributes = try ext.dictionary("NSExtensionAttributes")
      let point = expand(ext, "NSExtensionPointIdentifier", try ext.string("NSExtensionPointIdentifier"))
      if point == nil || point!.isEmpty {
        diagnostics.append(
          Diagnostic(
            .error, "extension-point-missing", file: plist.file, keyPath: ext.keyPath("NSExtensionPointIdentifier"),
            "is missing", fix: "use com.apple.intents-service or com.apple.intents-ui-service"))
      }
      extensionInfo = ExtensionInfo(
        pointIdentifier: point ?? "",
        principalClass: expand(ext, "NSExtensionPrincipalClass", try ext.string("NSExtensionPrincipalClass")),
        mainStoryboard: try ext.string("NSExtensionMainStoryboard"),
        intentsSupported: try strings(attributes, "IntentsSupported"),
        intentsRestrictedWhileLocked: try strings(attributes, "IntentsRestrictedWhileLocked"),
        intentsRestrictedWhileProtectedDataUnavailable:
          try strings(attributes, "IntentsRestrictedWhileProtectedDataUnavailable"))
    } else {
      extensionInfo = nil
    }
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
  /// Unresolved build settings.
  public var diagnostics: [Diagnostic] = []

  public init(file: String? = nil, applicationGroups: [String] = [], siri: Bool = false) {
    self.file = file
    self.applicationGroups = applicationGroups
    self.siri = siri
  }

  /// Loads a `.entitlements` file, expanding build settings in its group identifiers.
  public static func load(
    contentsOf url: URL, settings: BuildSettings = BuildSettings(), unresolved: Diagnostic.Severity = .error
  ) throws -> Entitlements {
    let plist = try PlistDictionary.load(contentsOf: url)
    var entitlements = Entitlements(file: plist.file, siri: try plist.bool("com.apple.developer.siri"))
    for (index, group) in try plist.strings("com.apple.security.application-groups").enumerated() {
      let expansion = settings.expand(group)
      if !expansion.unresolved.isEmpty {
        entitlements.diagnostics.append(
          Diagnostic(
            unresolved, "build-setting-unresolved", file: plist.file,
            keyPath: "com.apple.security.application-groups[\(index)]",
            "\"\(group)\" refers to \(expansion.unresolved.map { "$(\($0))" }.joined(separator: ", ")), which has no value",
            fix: "define \(expansion.unresolved[0]) in \(BuildSettings.fileName), or pass --setting "
              + "\(expansion.unresolved[0])=group.com.example.app"))
      }
      entitlements.applicationGroups.append(expansion.value)
    }
    return entitlements
  }
}
