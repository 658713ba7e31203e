import Foundation

/// App Intents metadata for tests: Apple's Weather file as the reference (../shared/reference/app-intents.md §2.3) shows it, and
/// seed 000's FuelOrder, with the phrases a test chooses; and an app bundle with an App Intents extension.
public enum AppIntentsFixtures {
  /// The seed's own phrases, written as the metadata writes `"Fuel my car"` and `"Fuel my car at \(.$location)"`:
  /// neither says the app's name, so both break Apple's rule.
  public static let seedPhrases = ["Fuel my car", "Fuel my car at ${location}"]
  /// The corrected phrases the example ships.
  public static let correctedPhrases = [
    "Fuel my car with ${applicationName}", "Fuel my car at ${location} with ${applicationName}",
  ]

  /// Apple's Weather.app metadata, verbatim from the reference (§2.3, abridged by it from IntentBench's fixture).
  public static let weather = """
    { "version": 1, "generator": {"name": "xcode-tools", "version": "17E6107"},
      "actions": { "OpenMoonIntent": {
          "identifier": "OpenMoonIntent", "fullyQualifiedTypeName": "Weather.OpenMoonIntent",
          "mangledTypeName": "7Weather14OpenMoonIntentV", "title": {"key": "Open Moon Details", "alternatives": []},
          "descriptionMetadata": {"descriptionText": {"key": "Opens Weather and shows moon details", "alternatives": []}},
          "openAppWhenRun": false, "supportedModes": 1, "authenticationPolicy": 0, "outputFlags": 8,
          "visibilityMetadata": {"assistantOnly": false, "isDiscoverable": true},
          "actionConfiguration": {"actionSummary": {"wrapper": {"summaryString":
              {"formatString": "Open moon details for ${location}", "parameterIdentifiers": ["location"]}}}},
          "parameters": [{ "name": "location", "isOptional": false, "title": {"key": "Location", "alternatives": []},
              "valueType": {"entity": {"wrapper": {"typeName": "LocationSearchEntity"}}},
              "dynamicOptionsSupport": 2, "typeSpecificMetadata": [] }] } },
      "entities": { "LocationSearchEntity": { "typeName": "LocationSearchEntity",
          "displayTypeName": {"key": "Location", "alternatives": []},
          "defaultQueryIdentifier": "Weather.LocationSearchEntityQuery",
          "properties": [{"identifier": "name", "isOptional": false, "title": {"key": "Name", "alternatives": []},
                          "valueType": {"primitive": {"wrapper": {"typeIdentifier": 0}}}}] } },
      "queries": { "LocationSearchEntityQuery": { "entityType": "LocationSearchEntity", "defaultQueryForEntity": true,
          "parameters": [{"propertyIdentifier": "name", "comparators": [{"comparatorTypeValue": 6}]}] } },
      "enums": [ { "identifier": "AirQualityPosition", "displayTypeName": {"key": "Position", "alternatives": []},
          "cases": [{"identifier": "top", "displayRepresentation": {"title": {"key": "Top", "alternatives": []}, "synonyms": []}}] } ],
      "autoShortcuts": [], "negativePhrases": [], "assistantIntents": [], "assistantEntities": [], "shortcutTileColor": 14 }
    """

  /// Seed 000's FuelOrder as an App Intents extension's `extract.actionsdata`: `OrderFuelIntent` (title, description,
  /// `requiresLocalDeviceAuthentication`, the parameter `location: Location` with its `requestValueDialog`),
  /// `Location: AppEnum` (home with the synonym "my house", work) and one App Shortcut with `phrases`.
  public static func fuelOrder(phrases: [String]) -> String {
    let templates = phrases.map { "{\"key\": \(quoted($0)), \"alternatives\": []}" }.joined(separator: ", ")
    return """
      {"version": 1,
       "actions": {"OrderFuelIntent": {"identifier": "OrderFuelIntent",
         "title": {"key": "Order Fuel", "alternatives": []},
         "descriptionMetadata": {"descriptionText": {"key": "Quickly make a Fuel Order", "alternatives": []},
           "categoryName": {"key": "Fuel Ordering", "alternatives": []},
           "searchKeywords": [{"key": "fuel", "alternatives": []}, {"key": "order", "alternatives": []}]},
         "openAppWhenRun": false, "authenticationPolicy": 2, "visibilityMetadata": {"isDiscoverable": true},
         "parameters": [{"name": "location", "title": {"key": "Location", "alternatives": []}, "isOptional": false,
           "valueType": {"linkEnumeration": {"wrapper": {"identifier": "Location"}}}, "typeSpecificMetadata": [],
           "intenthost": {"requestValueDialog": {"key": "Where should the order be?", "alternatives": []}}}]}},
       "entities": {}, "queries": {},
       "enums": [{"identifier": "Location", "displayTypeName": {"key": "Order Location", "alternatives": []},
         "cases": [
           {"identifier": "home", "displayRepresentation": {"title": {"key": "Home", "alternatives": []},
             "synonyms": [{"key": "my house", "alternatives": []}]}},
           {"identifier": "work", "displayRepresentation": {"title": {"key": "Work", "alternatives": []},
             "synonyms": []}}]}],
       "autoShortcuts": [{"actionIdentifier": "OrderFuelIntent", "phraseTemplates": [\(templates)],
         "shortTitle": {"key": "Order Fuel", "alternatives": []}, "systemImageName": "fuelpump"}],
       "autoShortcutProviderMangledName": "9FuelOrder21SiriShortcutsProviderV",
       "negativePhrases": []}
      """
  }

  /// `"text"` as a JSON or `.strings` string.
  public static func quoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }

  /// An `en.lproj/AppShortcuts.strings` whose keys are `phrases`, each translated as itself.
  public static func shortcutsStrings(_ phrases: [String]) -> String {
    phrases.map { "\(quoted($0)) = \(quoted($0));\n" }.joined()
  }
}

extension TestBundles {
  /// A `FuelOrder.app` (com.example.fuel, its executable a copy of FaultyExtension) with the App Intents extension
  /// `Extensions/FuelOrderIntents.appex` (`EXExtensionPointIdentifier` `com.apple.appintents-extension`), whose
  /// `Metadata.appintents` is `AppIntentsFixtures.fuelOrder(phrases:)` with its `version.json`, and whose
  /// `en.lproj/AppShortcuts.strings` has `phrases` as keys.
  public static func fuelOrder(phrases: [String], in directory: URL) throws -> URL {
    let app = directory.appendingPathComponent("FuelOrder.app")
    let fm = FileManager.default
    try? fm.removeItem(at: app)
    let appex = app.appendingPathComponent("Extensions/FuelOrderIntents.appex")
    let metadata = appex.appendingPathComponent("Metadata.appintents")
    try fm.createDirectory(at: metadata, withIntermediateDirectories: true)
    try fm.createDirectory(at: appex.appendingPathComponent("en.lproj"), withIntermediateDirectories: true)
    // Copies, not links: a bundle holds only regular files and folders.
    try fm.copyItem(
      atPath: PackagePaths.executable("FaultyExtension"), toPath: app.appendingPathComponent("fuelorder").path)
    try fm.copyItem(
      atPath: PackagePaths.executable("FaultyExtension"), toPath: appex.appendingPathComponent("FuelOrderIntents").path)
    try writePlist(
      [
        "CFBundleIdentifier": "com.example.fuel", "CFBundleExecutable": "fuelorder", "CFBundleName": "FuelOrder",
        "CFBundlePackageType": "APPL",
      ], to: app.appendingPathComponent("Info.plist"))
    try writePlist(
      [
        "CFBundleIdentifier": "com.example.fuel.FuelOrderIntents", "CFBundleExecutable": "FuelOrderIntents",
        "CFBundlePackageType": "XPC!",
        "EXAppExtensionAttributes": ["EXExtensionPointIdentifier": "com.apple.appintents-extension"],
      ], to: appex.appendingPathComponent("Info.plist"))
    try Data(AppIntentsFixtures.fuelOrder(phrases: phrases).utf8).write(
      to: metadata.appendingPathComponent("extract.actionsdata"))
    try Data(#"{"version": "3.0", "toolsVersion": "17E6107"}"#.utf8).write(
      to: metadata.appendingPathComponent("version.json"))
    try Data(AppIntentsFixtures.shortcutsStrings(phrases).utf8).write(
      to: appex.appendingPathComponent("en.lproj/AppShortcuts.strings"))
    return app
  }
}
