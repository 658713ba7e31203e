// The bundles and helpers the matcher's tests build on, without TestSupport: TestSupport links the C sandbox (through
// IntentHostSystem), and these tests run no process. `PackagePaths`, `TemporaryDirectory`, `writePlist` and
// `TestBundles` are copies of TestSupport's (`TemporaryDirectory` throws a `POSIXError`); `Edit`, `Rooms`, `SmallApp`,
// `AppSkeleton`, `AscentManifests` and the `ParameterValue` literals are copies of the engine tests' fixtures
// (AssistantHostTests), `Edit.addExample` of `ValidatorTests.addExample`; `Meters` moved here with its tests.
import BundleManifest
import ExtensionProtocol
import Foundation

/// Where the package is.
enum PackagePaths {
  /// The package root (the folder with Package.swift).
  static let root: URL = {
    var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
      url.deleteLastPathComponent()
    }
    return url
  }()

  /// `../shared/corpus/real-xcode` beside the clone, if present.
  static var corpus: URL { root.deletingLastPathComponent().appendingPathComponent("shared/corpus/real-xcode") }
}

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory: Sendable {
  let url: URL
  var path: String { url.path }

  /// - Parameter base: the folder to make it in (the system's temporary folder by default).
  /// - Throws: `POSIXError` when the folder cannot be made.
  init(_ prefix: String = "intenthost-test", under base: String = NSTemporaryDirectory()) throws {
    var template = Array((base + "/\(prefix)-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    url = URL(fileURLWithPath: String(cString: made)).standardizedFileURL
  }

  func remove() { try? FileManager.default.removeItem(at: url) }

  func file(_ relative: String) -> URL { url.appendingPathComponent(relative) }
}

/// Writes a property list (XML) from a dictionary.
func writePlist(_ value: [String: Any], to url: URL) throws {
  let data = try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)
  try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try data.write(to: url)
}

/// Builds app bundles for tests.
enum TestBundles {
  /// The example Rooms.app assembled in-process from the manifests in `Sources/Examples`, laid out as
  /// `assistant build` lays it out, but with stand-in executables (a one-line shell script each, mode 0755)
  /// instead of the built ones. Enough to load, validate, install and route the bundle without a build or a child
  /// process; not enough to run it (TestSupport's `rooms(in:)` assembles one that runs).
  /// - Returns: `directory/Rooms.app`.
  static func roomsManifests(in directory: URL) throws -> URL {
    let examples = PackagePaths.root.appendingPathComponent("Sources/Examples")
    let app = directory.appendingPathComponent("Rooms.app")
    let fm = FileManager.default
    if fm.fileExists(atPath: app.path) { try fm.removeItem(at: app) }
    try fm.createDirectory(at: app, withIntermediateDirectories: true)
    let source = examples.appendingPathComponent("Rooms")
    for name in ["Info.plist", "Rooms.entitlements", "Base.lproj", "fr.lproj"] {
      try fm.copyItem(at: source.appendingPathComponent(name), to: app.appendingPathComponent(name))
    }
    try writeStandInExecutable(to: app.appendingPathComponent("rooms"))
    for (name, entitlements) in [("RoomsIntents", true), ("RoomsUI", false)] {
      let appex = app.appendingPathComponent("PlugIns/\(name).appex")
      try fm.createDirectory(at: appex, withIntermediateDirectories: true)
      let source = examples.appendingPathComponent(name)
      try fm.copyItem(at: source.appendingPathComponent("Info.plist"), to: appex.appendingPathComponent("Info.plist"))
      if entitlements {
        try fm.copyItem(
          at: source.appendingPathComponent("\(name).entitlements"),
          to: appex.appendingPathComponent("\(name).entitlements"))
      }
      try writeStandInExecutable(to: appex.appendingPathComponent(name))
    }
    return app
  }

  /// An executable file that only exits 70, for bundles that are validated or routed but never run.
  static func writeStandInExecutable(to url: URL) throws {
    try Data("#!/bin/sh\nexit 70\n".utf8).write(to: url)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
  }
}

/// Edits of the manifests of the example Rooms bundle, one mistake at a time.
enum Edit {
  /// A property list file as a dictionary.
  static func read(_ url: URL) throws -> [String: Any] {
    try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as! [String: Any]
  }

  /// Rewrites a property list (as XML) after `change`.
  static func plist(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
    var plist = try read(url)
    change(&plist)
    try writePlist(plist, to: url)
  }

  /// Adds `example` to the `IntentExamples` of the `index`th `IntentPhrases` entry (0 BookRoomIntent, 1 OpenDoorIntent).
  static func addExample(_ example: String, to index: Int, in root: URL) throws {
    try plist(root.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist")) { plist in
      var phrases = plist["IntentPhrases"] as! [[String: Any]]
      phrases[index]["IntentExamples"] = (phrases[index]["IntentExamples"] as! [String]) + [example]
      plist["IntentPhrases"] = phrases
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

/// `Meters.app` (com.example.meters), an app whose titles have slots that are said as one word with punctuation in
/// it: `LogReadingIntent` with a Decimal `amount`, a Date `at` and a Duration `length`, and the combination titles
/// "Log ${amount} litres at ${at}" and "Log ${amount} litres over ${length}". With `impossibleTitle`, also
/// `CalibrateIntent`, whose title "Calibrate in ${mode} mode" has a slot no one can fill: `mode`'s enum has only
/// Xcode's `unknown` case.
enum Meters {
  static func build(impossibleTitle: Bool = false, in directory: URL) throws -> URL {
    let (app, _) = try AppSkeleton.write(
      name: "Meters", executable: "meters", identifier: "com.example.meters",
      intents: ["LogReadingIntent"] + (impossibleTitle ? ["CalibrateIntent"] : []), in: directory)
    func parameter(_ name: String, _ type: String, _ more: [String: Any] = [:]) -> [String: Any] {
      ["INIntentParameterName": name, "INIntentParameterType": type].merging(more) { $1 }
    }
    let response: [String: Any] = [
      "INIntentResponseCodes": [
        ["INIntentResponseCodeName": "success", "INIntentResponseCodeSuccess": true],
        ["INIntentResponseCodeName": "failure"],
      ]
    ]
    var intents: [[String: Any]] = [
      [
        "INIntentName": "LogReading", "INIntentTitle": "Log Reading",
        "INIntentParameterCombinations": [
          "amount,at": ["INIntentParameterCombinationTitle": "Log ${amount} litres at ${at}"],
          "amount,length": ["INIntentParameterCombinationTitle": "Log ${amount} litres over ${length}"],
        ],
        "INIntentParameters": [
          parameter("amount", "Decimal"), parameter("at", "Date"), parameter("length", "Duration"),
        ],
        "INIntentResponse": response,
      ]
    ]
    if impossibleTitle {
      intents.append([
        "INIntentName": "Calibrate", "INIntentTitle": "Calibrate",
        "INIntentParameterCombinations": [
          "mode": ["INIntentParameterCombinationTitle": "Calibrate in ${mode} mode"]
        ],
        "INIntentParameters": [parameter("mode", "Integer", ["INIntentParameterEnumType": "Mode"])],
        "INIntentResponse": response,
      ])
    }
    try writePlist(
      [
        "INIntentDefinitionModelVersion": "1.2", "INTypes": [Any](), "INIntents": intents,
        "INEnums": [
          [
            "INEnumName": "Mode",
            "INEnumValues": [["INEnumValueName": "unknown", "INEnumValueIndex": 0]],
          ] as [String: Any]
        ],
      ], to: app.appendingPathComponent("Base.lproj/Intents.intentdefinition"))
    return app
  }
}

/// Ascent.app from `Sources/Examples`' real `AppIntentVocabulary.plist` ("wall climb", "boulder climb" and the
/// seed's example phrases), with stand-in executables and an Intents extension supporting the five workout intents.
enum AscentManifests {
  static let workoutIntents = [
    "INStartWorkoutIntent", "INPauseWorkoutIntent", "INResumeWorkoutIntent", "INEndWorkoutIntent",
    "INCancelWorkoutIntent",
  ]

  static func build(in directory: URL) throws -> URL {
    let app = try SmallApp.build(
      name: "Ascent", intents: [], systemIntents: workoutIntents, in: directory)
    let vocabulary = app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist")
    try FileManager.default.removeItem(at: vocabulary)
    try FileManager.default.copyItem(
      at: PackagePaths.root.appendingPathComponent("Sources/Examples/Ascent/Base.lproj/AppIntentVocabulary.plist"),
      to: vocabulary)
    return app
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
