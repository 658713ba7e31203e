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

  /// Loads and checks the keys IntentHost needs.
  /// - Throws: `ManifestError` naming the file and key.
  public static func load(contentsOf url: URL) throws -> InfoPlist {
    try InfoPlist(PlistDictionary.load(contentsOf: url))
  }

  public init(_ plist: PlistDictionary) throws {
    file = plist.file
    func resolved(_ key: String, _ value: String?) throws -> String? {
      guard let value else { return nil }
      if value.contains("$(") || value.contains("${") {
        throw plist.error(
          key, "holds the unresolved build setting \"\(value)\"",
          fix: "write the real value; IntentHost does not run Xcode's build-setting expansion here")
      }
      return value
    }
    bundleIdentifier = try resolved("CFBundleIdentifier", plist.requiredString(
      "CFBundleIdentifier", fix: "add a reverse-DNS identifier such as com.example.rooms"))!
    executable = try resolved("CFBundleExecutable", plist.requiredString(
      "CFBundleExecutable", fix: "name the executable file inside the bundle"))!
    name = try resolved("CFBundleName", plist.string("CFBundleName"))
    displayName = try resolved("CFBundleDisplayName", plist.string("CFBundleDisplayName"))
    spokenName = try plist.string("CFBundleSpokenName")
    packageType = try plist.string("CFBundlePackageType")
    alternativeAppNames = try plist.dictionaries("INAlternativeAppNames").compactMap {
      try $0.string("INAlternativeAppName")
    }
    appIntentsSupported = try plist.strings("INIntentsSupported")
    appIntentsRestrictedWhileLocked = try plist.strings("INIntentsRestrictedWhileLocked")
    userActivityTypes = try plist.strings("NSUserActivityTypes")
    siriUsageDescription = try plist.string("NSSiriUsageDescription")
    if let ext = try plist.dictionary("NSExtension") {
      let attributes = try ext.dictionary("NSExtensionAttributes")
      extensionInfo = ExtensionInfo(
        pointIdentifier: try ext.requiredString(
          "NSExtensionPointIdentifier", fix: "use com.apple.intents-service or com.apple.intents-ui-service"),
        principalClass: try ext.string("NSExtensionPrincipalClass"),
        mainStoryboard: try ext.string("NSExtensionMainStoryboard"),
        intentsSupported: try attributes?.strings("IntentsSupported") ?? [],
        intentsRestrictedWhileLocked: try attributes?.strings("IntentsRestrictedWhileLocked") ?? [],
        intentsRestrictedWhileProtectedDataUnavailable:
          try attributes?.strings("IntentsRestrictedWhileProtectedDataUnavailable") ?? [])
    } else {
      extensionInfo = nil
    }
  }
}

/// A `.entitlements` file.
public struct Entitlements: Sendable, Equatable {
  public var file: String?
  /// `com.apple.security.application-groups`.
  public var applicationGroups: [String]
  /// `com.apple.developer.siri`.
  public var siri: Bool

  public init(file: String? = nil, applicationGroups: [String] = [], siri: Bool = false) {
    self.file = file
    self.applicationGroups = applicationGroups
    self.siri = siri
  }

  public static func load(contentsOf url: URL) throws -> Entitlements {
    let plist = try PlistDictionary.load(contentsOf: url)
    return Entitlements(
      file: plist.file, applicationGroups: try plist.strings("com.apple.security.application-groups"),
      siri: try plist.bool("com.apple.developer.siri"))
  }
}
