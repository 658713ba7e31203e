/// What a manifest file is: by its name when the name says (`Info.plist`, `*.intentdefinition`, ...), else by its
/// content (Xcode's `INFOPLIST_FILE` and target settings allow any name, e.g. `MyApp-Info.plist` or
/// `Definitions.xml`).
public enum ManifestKind: String, Sendable, CaseIterable, CustomStringConvertible {
  case infoPlist
  case entitlements
  case intentDefinition
  case vocabulary
  case strings

  /// The kind a file name says; nil when it says none. The name wins over the content.
  public init?(fileName name: String) {
    if name.hasSuffix(".intentdefinition") {
      self = .intentDefinition
    } else if name.hasSuffix(".entitlements") {
      self = .entitlements
    } else if name.hasSuffix(".strings") {
      self = .strings
    } else if name.hasSuffix("AppIntentVocabulary.plist") {
      self = .vocabulary
    } else if name.hasSuffix("Info.plist") {
      self = .infoPlist
    } else {
      return nil
    }
  }

  /// The kind a property list's top-level keys say; nil when they say none (`recognisableContent` lists them).
  ///
  /// In order: `INIntentDefinitionModelVersion` makes an intent definition; `IntentPhrases` or
  /// `ParameterVocabularies` a vocabulary; a `CFBundle…` key or `NSExtension` an Info.plist; and keys that are all
  /// entitlements (`com.apple.…`, at least one, beside the few Apple entitlements without that prefix) an
  /// entitlements file. A `.strings` table has no keys of its own, so only its name says what it is.
  public init?(recognising plist: PlistDictionary) {
    let keys = plist.values.keys
    if plist.has("INIntentDefinitionModelVersion") {
      self = .intentDefinition
    } else if plist.has("IntentPhrases") || plist.has("ParameterVocabularies") {
      self = .vocabulary
    } else if plist.has("NSExtension") || keys.contains(where: { $0.hasPrefix("CFBundle") }) {
      self = .infoPlist
    } else if keys.contains(where: { $0.hasPrefix("com.apple.") })
      && keys.allSatisfy({ $0.hasPrefix("com.apple.") || Self.unprefixedEntitlements.contains($0) })
    {
      self = .entitlements
    } else {
      return nil
    }
  }

  /// Apple's entitlements whose keys do not start with `com.apple.`.
  static let unprefixedEntitlements: Set<String> = [
    "application-identifier", "aps-environment", "beta-reports-active", "get-task-allow", "keychain-access-groups",
  ]

  /// What content makes a property list recognised, for messages about one that is not.
  public static let recognisableContent =
    "CFBundle… or NSExtension keys make an Info.plist, INIntentDefinitionModelVersion an intent definition, "
    + "IntentPhrases or ParameterVocabularies a vocabulary, only com.apple.… entitlement keys an entitlements file"

  /// The names that say what a file is, for messages.
  public static let recognisedNames =
    "Info.plist (or NAME-Info.plist), *.intentdefinition, AppIntentVocabulary.plist, *.entitlements or *.strings"

  /// "an Info.plist", "an intent definition", ... for messages.
  public var description: String {
    switch self {
    case .infoPlist: return "an Info.plist"
    case .entitlements: return "an entitlements file"
    case .intentDefinition: return "an intent definition"
    case .vocabulary: return "a vocabulary"
    case .strings: return "a strings table"
    }
  }
}
