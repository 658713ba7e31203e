import AssistantHost
import BundleManifest
import ExtensionProtocol
import Foundation
import TestSupport

/// Edits of the manifests of the example Rooms bundle (or its sources), one mistake at a time.
enum Edit {
  static let appex = "PlugIns/RoomsIntents.appex"

  static func read(_ url: URL) throws -> [String: Any] {
    try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as! [String: Any]
  }

  /// Rewrites a property list (as XML) after `change`.
  static func plist(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
    var plist = try read(url)
    change(&plist)
    try writePlist(plist, to: url)
  }

  /// `NSExtension` of an extension's Info.plist.
  static func extensionInfo(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
    try plist(url) { plist in
      var ext = plist["NSExtension"] as! [String: Any]
      change(&ext)
      plist["NSExtension"] = ext
    }
  }

  /// `NSExtension.NSExtensionAttributes` of an extension's Info.plist.
  static func attributes(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
    try extensionInfo(url) { ext in
      var attributes = ext["NSExtensionAttributes"] as? [String: Any] ?? [:]
      change(&attributes)
      ext["NSExtensionAttributes"] = attributes
    }
  }

  /// The first intent (BookRoom) of a definition.
  static func intent(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
    try plist(url) { plist in
      var intents = plist["INIntents"] as! [[String: Any]]
      change(&intents[0])
      plist["INIntents"] = intents
    }
  }

  /// The parameters of the first intent: roomNumber, bookedBy, isCancellationOfBooking.
  static func parameters(_ url: URL, _ change: (inout [[String: Any]]) -> Void) throws {
    try intent(url) { intent in
      var parameters = intent["INIntentParameters"] as! [[String: Any]]
      change(&parameters)
      intent["INIntentParameters"] = parameters
    }
  }

  /// The response codes of the first intent: success, failure, successCancelledBooking, failureCancelledBooking.
  static func responseCodes(_ url: URL, _ change: (inout [[String: Any]]) -> Void) throws {
    try intent(url) { intent in
      var response = intent["INIntentResponse"] as! [String: Any]
      var codes = response["INIntentResponseCodes"] as! [[String: Any]]
      change(&codes)
      response["INIntentResponseCodes"] = codes
      intent["INIntentResponse"] = response
    }
  }
}

/// The example Rooms bundle, loaded in-process (stand-in executables; nothing runs).
enum Rooms {
  /// Rooms.app loaded from a temporary directory that is gone when this returns (routing reads no file).
  static func app() throws -> AppBundle {
    let directory = try TemporaryDirectory("assistanthost-rooms")
    defer { directory.remove() }
    return try AppBundle.load(from: TestBundles.roomsManifests(in: directory.url))
  }

  /// Rooms.app and the bundles `others` build (each given the folder to build in) installed into a fresh
  /// assistant home, as that home lists them (sorted by bundle folder name). The home is gone when this returns.
  /// Installs off the cooperative pool (an install locks and syncs the owner record).
  static func installed(with others: [@Sendable (URL) throws -> URL] = []) async throws -> [AppBundle] {
    let directory = try TemporaryDirectory("assistanthost-home")
    defer { directory.remove() }
    let home = try AssistantHome(root: directory.file("home").path, environment: [:])
    try await home.install(from: TestBundles.roomsManifests(in: directory.file("bundles")))
    for build in others {
      try await home.install(from: build(directory.file("bundles")))
    }
    return try home.installedApps()
  }
}

/// A minimal app bundle with one Intents extension, written in-process: `<name>.app` (bundle id `identifier`, by
/// default `com.example.<lowercased name without spaces>`) whose extension supports `intents`, each defined with one
/// String parameter `value` and the title `title` (a Shortcuts title, `${value}` allowed), and Apple's
/// `systemIntents` (which need no definition). `appGroups` go into the app's entitlements.
enum SmallApp {
  static func build(
    name: String, identifier: String? = nil, intents: [(name: String, title: String)], systemIntents: [String] = [],
    alternativeNames: [String] = [], appGroups: [String] = [], in directory: URL
  ) throws -> URL {
    let identifier = identifier ?? "com.example." + name.lowercased().filter { $0.isLetter || $0.isNumber }
    let executable = name.filter { !$0.isWhitespace }.lowercased()
    let app = directory.appendingPathComponent("\(name).app")
    let appex = app.appendingPathComponent("PlugIns/\(executable)Intents.appex")
    try FileManager.default.createDirectory(at: appex, withIntermediateDirectories: true)
    try TestBundles.writeStandInExecutable(to: app.appendingPathComponent(executable))
    if !appGroups.isEmpty {
      try writePlist(
        ["com.apple.security.application-groups": appGroups],
        to: app.appendingPathComponent("\(executable).entitlements"))
    }
    try TestBundles.writeStandInExecutable(to: appex.appendingPathComponent("\(executable)Intents"))
    try writePlist(
      [
        "CFBundleIdentifier": identifier, "CFBundleExecutable": executable, "CFBundleName": name,
        "CFBundlePackageType": "APPL", "NSSiriUsageDescription": "\(name) answers Siri.",
        "INAlternativeAppNames": alternativeNames.map { ["INAlternativeAppName": $0] },
      ], to: app.appendingPathComponent("Info.plist"))
    try writePlist(
      [
        "CFBundleIdentifier": "\(identifier).\(executable)Intents", "CFBundleExecutable": "\(executable)Intents",
        "CFBundlePackageType": "XPC!",
        "NSExtension": [
          "NSExtensionPointIdentifier": "com.apple.intents-service",
          "NSExtensionAttributes": ["IntentsSupported": intents.map { $0.name + "Intent" } + systemIntents],
        ] as [String: Any],
      ], to: appex.appendingPathComponent("Info.plist"))
    try writePlist(
      [
        "IntentPhrases": intents.map {
          [
            "IntentName": $0.name + "Intent",
            "IntentExamples": [$0.title.replacingOccurrences(of: "${value}", with: "it") + " with \(name)"],
          ]
        }
      ], to: app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist"))
    try writePlist(
      [
        "INIntentDefinitionModelVersion": "1.2", "INEnums": [Any](), "INTypes": [Any](),
        "INIntents": intents.map { intent in
          [
            "INIntentName": intent.name, "INIntentTitle": intent.title,
            "INIntentParameterCombinations": ["value": ["INIntentParameterCombinationTitle": intent.title]],
            "INIntentParameters": [["INIntentParameterName": "value", "INIntentParameterType": "String"]],
            "INIntentResponse": [
              "INIntentResponseCodes": [
                ["INIntentResponseCodeName": "success", "INIntentResponseCodeSuccess": true],
                ["INIntentResponseCodeName": "failure"],
              ]
            ],
          ] as [String: Any]
        },
      ], to: app.appendingPathComponent("Base.lproj/Intents.intentdefinition"))
    return app
  }
}

/// The skeleton of a test app with one Intents extension: `<Name>.app` with the stand-in executable `executable`
/// and its Info.plist, and `PlugIns/<Extension>Intents.appex` (`Extension` is `executable` capitalized) listing
/// `intents`. The callers add definitions, vocabularies and entitlements.
enum AppSkeleton {
  static func write(
    name: String, executable: String, identifier: String, intents: [String], in directory: URL
  ) throws -> (app: URL, appex: URL) {
    let extensionName = executable.prefix(1).uppercased() + executable.dropFirst() + "Intents"
    let app = directory.appendingPathComponent("\(name).app")
    let appex = app.appendingPathComponent("PlugIns/\(extensionName).appex")
    try FileManager.default.createDirectory(at: appex, withIntermediateDirectories: true)
    try TestBundles.writeStandInExecutable(to: app.appendingPathComponent(executable))
    try TestBundles.writeStandInExecutable(to: appex.appendingPathComponent(extensionName))
    try writePlist(
      [
        "CFBundleIdentifier": identifier, "CFBundleExecutable": executable, "CFBundleName": name,
        "CFBundlePackageType": "APPL", "NSSiriUsageDescription": "\(name) answers Siri.",
      ], to: app.appendingPathComponent("Info.plist"))
    try writePlist(
      [
        "CFBundleIdentifier": "\(identifier).\(extensionName)", "CFBundleExecutable": extensionName,
        "CFBundlePackageType": "XPC!",
        "NSExtension": [
          "NSExtensionPointIdentifier": "com.apple.intents-service",
          "NSExtensionAttributes": ["IntentsSupported": intents],
        ] as [String: Any],
      ], to: appex.appendingPathComponent("Info.plist"))
    return (app, appex)
  }
}

/// Literals for the tables: `12`, `"Ada"`, `true`.
extension ParameterValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
  ExpressibleByBooleanLiteral
{
  public init(integerLiteral value: Int) { self = .integer(value) }
  public init(stringLiteral value: String) { self = .string(value) }
  public init(booleanLiteral value: Bool) { self = .boolean(value) }
}
