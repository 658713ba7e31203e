import Foundation
import TestSupport
import Testing

/// One fixture per validation rule: the example Rooms.app (which validates clean, the control) with one mistake
/// made in it, checked through the real `assistant validate --json`.
@Suite(.serialized)
struct ValidationTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var rule: String
    var severity: String
    /// The file the diagnostic must name, relative to the bundle.
    var file: String
    var mutate: @Sendable (URL) throws -> Void
    var testDescription: String { rule }
  }

  static let appex = "PlugIns/RoomsIntents.appex"

  static func edit(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
    var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as! [String: Any]
    change(&plist)
    try writePlist(plist, to: url)
  }

  static func editExtension(_ app: URL, _ change: (inout [String: Any]) -> Void) throws {
    try edit(app.appendingPathComponent("\(appex)/Info.plist")) { plist in
      var ext = plist["NSExtension"] as! [String: Any]
      var attributes = ext["NSExtensionAttributes"] as? [String: Any] ?? [:]
      ext["NSExtensionAttributes"] = attributes
      plist["NSExtension"] = ext
      change(&attributes)
      ext["NSExtensionAttributes"] = attributes
      plist["NSExtension"] = ext
    }
  }

  static func editIntent(_ app: URL, _ change: (inout [String: Any]) -> Void) throws {
    try edit(app.appendingPathComponent("Base.lproj/Intents.intentdefinition")) { plist in
      var intents = plist["INIntents"] as! [[String: Any]]
      change(&intents[0])
      plist["INIntents"] = intents
    }
  }

  static func addUIExtension(_ app: URL, supporting intents: [String]) throws {
    let ui = app.appendingPathComponent("PlugIns/MoreUI.appex")
    try FileManager.default.createDirectory(at: ui, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: app.appendingPathComponent("\(appex)/RoomsIntents"), to: ui.appendingPathComponent("MoreUI"))
    try writePlist(
      [
        "CFBundleIdentifier": "com.example.rooms.MoreUI", "CFBundleExecutable": "MoreUI", "CFBundlePackageType": "XPC!",
        "NSExtension": [
          "NSExtensionPointIdentifier": "com.apple.intents-ui-service", "NSExtensionMainStoryboard": "MainInterface",
          "NSExtensionAttributes": ["IntentsSupported": intents],
        ] as [String: Any],
      ], to: ui.appendingPathComponent("Info.plist"))
  }

  static let cases: [Case] = [
    Case(rule: "bundle-id-prefix", severity: "error", file: "\(appex)/Info.plist") { app in
      try edit(app.appendingPathComponent("\(appex)/Info.plist")) {
        $0["CFBundleIdentifier"] = "com.other.RoomsIntents"
      }
    },
    Case(rule: "extension-point-unknown", severity: "error", file: "\(appex)/Info.plist") { app in
      try edit(app.appendingPathComponent("\(appex)/Info.plist")) { plist in
        var ext = plist["NSExtension"] as! [String: Any]
        ext["NSExtensionPointIdentifier"] = "com.apple.widgetkit-extension"
        plist["NSExtension"] = ext
      }
    },
    Case(rule: "restricted-not-supported", severity: "error", file: "\(appex)/Info.plist") { app in
      try editExtension(app) { $0["IntentsRestrictedWhileLocked"] = ["INSendPaymentIntent"] }
    },
    Case(rule: "app-group-identifier", severity: "error", file: "Rooms.entitlements") { app in
      try edit(app.appendingPathComponent("Rooms.entitlements")) {
        $0["com.apple.security.application-groups"] = ["com.example.rooms"]
      }
    },
    Case(rule: "app-group-not-shared", severity: "warning", file: "\(appex)/RoomsIntents.entitlements") { app in
      try edit(app.appendingPathComponent("\(appex)/RoomsIntents.entitlements")) {
        $0["com.apple.security.application-groups"] = ["group.com.example.rooms", "group.com.example.other"]
      }
    },
    Case(rule: "executable-missing-file", severity: "error", file: "\(appex)/Info.plist") { app in
      try FileManager.default.removeItem(at: app.appendingPathComponent("\(appex)/RoomsIntents"))
    },
    Case(rule: "executable-not-executable", severity: "error", file: "Info.plist") { app in
      try FileManager.default.setAttributes(
        [.posixPermissions: 0o644], ofItemAtPath: app.appendingPathComponent("rooms").path)
    },
    Case(rule: "intent-undefined", severity: "error", file: "\(appex)/Info.plist") { app in
      try editExtension(app) { $0["IntentsSupported"] = ["BookRoomIntent", "BookDeskIntent"] }
    },
    Case(rule: "ui-extension-unhandled-intent", severity: "error", file: "PlugIns/MoreUI.appex/Info.plist") { app in
      try addUIExtension(app, supporting: ["BookRoomIntent", "INStartWorkoutIntent"])
    },
    Case(rule: "intent-phrases-missing", severity: "warning", file: "\(appex)/Info.plist") { app in
      try FileManager.default.removeItem(at: app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist"))
    },
    Case(rule: "vocabulary-unknown-intent", severity: "warning", file: "Base.lproj/AppIntentVocabulary.plist") { app in
      try edit(app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist")) { plist in
        var phrases = plist["IntentPhrases"] as! [[String: Any]]
        phrases.append(["IntentName": "INStartWorkoutIntent", "IntentExamples": ["Start a run with Rooms"]])
        plist["IntentPhrases"] = phrases
      }
    },
    Case(rule: "vocabulary-empty", severity: "warning", file: "Base.lproj/AppIntentVocabulary.plist") { app in
      try writePlist(
        ["IntentPhrases": [["IntentName": "", "IntentExamples": [""]]]],
        to: app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist"))
    },
    Case(rule: "duplicate-definition", severity: "error", file: "\(appex)/Base.lproj/Intents.intentdefinition") { app in
      var plist =
        try PropertyListSerialization.propertyList(
          from: Data(contentsOf: app.appendingPathComponent("Base.lproj/Intents.intentdefinition")), format: nil)
        as! [String: Any]
      var intents = plist["INIntents"] as! [[String: Any]]
      intents[0]["INIntentParameters"] = [] as [Any]
      plist["INIntents"] = intents
      try writePlist(plist, to: app.appendingPathComponent("\(appex)/Base.lproj/Intents.intentdefinition"))
    },
    Case(rule: "intent-supported-twice", severity: "error", file: "\(appex)/Info.plist") { app in
      let more = app.appendingPathComponent("PlugIns/MoreIntents.appex")
      try FileManager.default.copyItem(at: app.appendingPathComponent(appex), to: more)
      try FileManager.default.moveItem(
        at: more.appendingPathComponent("RoomsIntents"), to: more.appendingPathComponent("MoreIntents"))
      try FileManager.default.removeItem(at: more.appendingPathComponent("RoomsIntents.entitlements"))
      try edit(more.appendingPathComponent("Info.plist")) {
        $0["CFBundleIdentifier"] = "com.example.rooms.MoreIntents"
        $0["CFBundleExecutable"] = "MoreIntents"
      }
    },
    Case(rule: "intent-listed-twice", severity: "warning", file: "\(appex)/Info.plist") { app in
      try editExtension(app) { $0["IntentsSupported"] = ["BookRoomIntent", "BookRoomIntent"] }
    },
    Case(rule: "build-setting-unresolved", severity: "error", file: "\(appex)/Info.plist") { app in
      try edit(app.appendingPathComponent("\(appex)/Info.plist")) {
        $0["CFBundleIdentifier"] = "$(PRODUCT_BUNDLE_IDENTIFIER)"
      }
    },
    Case(rule: "bundle-id-missing", severity: "error", file: "Info.plist") { app in
      try edit(app.appendingPathComponent("Info.plist")) { $0["CFBundleIdentifier"] = nil }
    },
    Case(rule: "package-type", severity: "warning", file: "\(appex)/Info.plist") { app in
      try edit(app.appendingPathComponent("\(appex)/Info.plist")) { $0["CFBundlePackageType"] = "APPL" }
    },
    Case(rule: "siri-usage-description", severity: "warning", file: "Info.plist") { app in
      try edit(app.appendingPathComponent("Info.plist")) { $0["NSSiriUsageDescription"] = nil }
    },
    Case(rule: "enum-undefined", severity: "error", file: "Base.lproj/Intents.intentdefinition") { app in
      try editIntent(app) { intent in
        var parameters = intent["INIntentParameters"] as! [[String: Any]]
        parameters[0]["INIntentParameterEnumType"] = "Floor"
        intent["INIntentParameters"] = parameters
      }
    },
    Case(rule: "type-undefined", severity: "error", file: "Base.lproj/Intents.intentdefinition") { app in
      try editIntent(app) { intent in
        var parameters = intent["INIntentParameters"] as! [[String: Any]]
        parameters[1]["INIntentParameterType"] = "Object"
        parameters[1]["INIntentParameterObjectType"] = "Person2"
        intent["INIntentParameters"] = parameters
      }
    },
    Case(rule: "relationship-parent", severity: "error", file: "Base.lproj/Intents.intentdefinition") { app in
      try editIntent(app) { intent in
        var parameters = intent["INIntentParameters"] as! [[String: Any]]
        parameters[1]["INIntentParameterRelationship"] = [
          "INIntentParameterRelationshipParentName": "floor",
          "INIntentParameterRelationshipPredicateName": "EnumHasExactValue",
        ]
        intent["INIntentParameters"] = parameters
      }
    },
    Case(rule: "duplicate-parameter", severity: "error", file: "Base.lproj/Intents.intentdefinition") { app in
      try editIntent(app) { intent in
        var parameters = intent["INIntentParameters"] as! [[String: Any]]
        parameters.append(parameters[0])
        intent["INIntentParameters"] = parameters
      }
    },
    Case(rule: "combination-unknown-parameter", severity: "error", file: "Base.lproj/Intents.intentdefinition") { app in
      try editIntent(app) { intent in
        intent["INIntentParameterCombinations"] = [
          "roomNumber,floor": ["INIntentParameterCombinationTitle": "Book ${roomNumber}"]
        ]
      }
    },
    Case(rule: "template-unknown-name", severity: "warning", file: "Base.lproj/Intents.intentdefinition") { app in
      try editIntent(app) { intent in
        var response = intent["INIntentResponse"] as! [String: Any]
        var codes = response["INIntentResponseCodes"] as! [[String: Any]]
        codes[0]["INIntentResponseCodeFormatString"] = "Room ${roomNumber} is on floor ${floor}."
        response["INIntentResponseCodes"] = codes
        intent["INIntentResponse"] = response
      }
    },
    Case(rule: "response-codes", severity: "warning", file: "Base.lproj/Intents.intentdefinition") { app in
      try editIntent(app) { intent in
        var response = intent["INIntentResponse"] as! [String: Any]
        let codes = response["INIntentResponseCodes"] as! [[String: Any]]
        response["INIntentResponseCodes"] = codes.filter { $0["INIntentResponseCodeName"] as? String != "failure" }
        intent["INIntentResponse"] = response
      }
    },
    Case(rule: "strings-stale-key", severity: "note", file: "fr.lproj/Intents.strings") { app in
      try FileManager.default.createDirectory(
        at: app.appendingPathComponent("fr.lproj"), withIntermediateDirectories: true)
      try "\"zzzzzz\" = \"Réserver\";\n".write(
        to: app.appendingPathComponent("fr.lproj/Intents.strings"), atomically: true, encoding: .utf8)
    },
  ]

  struct Report: Decodable {
    struct Item: Decodable {
      var severity: String
      var rule: String
      var file: String
      var keyPath: String
      var message: String
      var fix: String?
    }
    var errors: Int
    var warnings: Int
    var diagnostics: [Item]
  }

  /// `assistant --json validate` of `app`, decoded; waits off the cooperative pool.
  func validate(_ app: URL, host: HostFixture) async throws -> (CommandResult, Report) {
    let result = try await host.assistant(["--json", "validate", app.path])
    let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
    return (result, report)
  }

  /// The control: the example bundle breaks no rule.
  @Test func theExampleBundleIsClean() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    let (result, report) = try await validate(app, host: host)
    #expect(result.code == 0)
    #expect(report.diagnostics.isEmpty, "\(report.diagnostics.map { "\($0.rule): \($0.message)" })")
  }

  @Test(arguments: cases)
  func eachRuleHasItsDiagnostic(_ rule: Case) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    try rule.mutate(app)
    let (result, report) = try await validate(app, host: host)
    let found = report.diagnostics.filter { $0.rule == rule.rule }
    #expect(!found.isEmpty, "\(report.diagnostics.map { "\($0.rule): \($0.message)" })")
    #expect(found.allSatisfy { $0.severity == rule.severity })
    #expect(found.contains { $0.file == app.appendingPathComponent(rule.file).path }, "\(found.map(\.file))")
    #expect(found.allSatisfy { !$0.message.isEmpty && $0.fix?.isEmpty == false || $0.severity == "note" })
    #expect(result.code == (rule.severity == "error" ? 65 : 0), "\(result)")
    if rule.severity == "error" {
      // install refuses with the same diagnostic
      let install = try await host.assistant(["install", app.path])
      #expect(install.code == 65)
      #expect(install.stderr.contains("[\(rule.rule)]"), "\(install)")
    }
  }

  @Test(arguments: [
    ("<?xml version=\"1.0\"?><plist><dict><key>CFBundleIdentifier</key></plist>", "is not a valid property list"),
    (
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n\t<key>CFBundleIdentifier</key>\n\t<str",
      "is not a valid property list"
    ),
    ("", "is empty"),
    (
      "<?xml version=\"1.0\"?><plist><array><string>a</string></array></plist>",
      "has an array at its root, expected a dictionary"
    ),
    (
      "<?xml version=\"1.0\"?><plist><dict><key>CFBundleIdentifier</key><integer>7</integer></dict></plist>",
      "CFBundleIdentifier: error: is a number, expected a string"
    ),
  ])
  func brokenFilesGetAClearErrorNotACrash(text: String, expected: String) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    try Data(text.utf8).write(to: app.appendingPathComponent("Info.plist"))
    let result = try await host.assistant(["validate", app.path])
    #expect(result.code == 65, "\(result)")
    #expect(result.stdout.contains(app.appendingPathComponent("Info.plist").path), "\(result)")
    #expect(result.stdout.contains(expected), "\(result)")
    let single = try await host.assistant(["validate", app.appendingPathComponent("Info.plist").path])
    #expect(single.code == 65, "\(single)")
  }

  @Test func aBinaryInfoPlistIsRead() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    let url = app.appendingPathComponent("\(Self.appex)/Info.plist")
    let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil)
    try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: url)
    #expect(try Data(contentsOf: url).prefix(6) == Data("bplist".utf8))
    let (result, report) = try await validate(app, host: host)
    #expect(result.code == 0)
    #expect(report.diagnostics.isEmpty)
    #expect(try await host.assistant(["install", app.path]).code == 0)
    #expect(try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=3", "bookedBy=Ada"]).code == 0)
  }

  @Test func aSourceFolderIsCheckedAsAProject() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let result = try await host.assistant([
      "validate", PackagePaths.root.appendingPathComponent("Sources/Examples").path,
    ])
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout.hasPrefix("0 errors, 0 warnings"), "\(result)")
  }
}
