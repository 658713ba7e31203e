import Foundation
import TestSupport
import Testing

/// `assistant validate` and `install` as a user runs them: the example Rooms.app (which validates clean, the control),
/// an error and a warning through `--json`, a broken file, a binary plist, a source folder. Every rule has its own
/// fixture in-process, in AssistantHostTests/ValidatorTests.swift; here only what needs the command line.
@Suite(.serialized, .tags(.endToEnd))
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

  static let cases: [Case] = [
    Case(rule: "restricted-not-supported", severity: "error", file: "\(appex)/Info.plist") { app in
      try editExtension(app) { $0["IntentsRestrictedWhileLocked"] = ["INSendPaymentIntent"] }
    },
    Case(rule: "app-group-not-shared", severity: "warning", file: "\(appex)/RoomsIntents.entitlements") { app in
      try edit(app.appendingPathComponent("\(appex)/RoomsIntents.entitlements")) {
        $0["com.apple.security.application-groups"] = ["group.com.example.rooms", "group.com.example.other"]
      }
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
  func aRuleIsReportedAndInstallRefusesItsErrors(_ rule: Case) async throws {
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
    ("", "is empty"),
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

  /// An Info.plist named as Xcode's `INFOPLIST_FILE` allows is validated as one: by its name (`MyApp-Info.plist`) or,
  /// when the name does not say, by its content; its mistakes are found, with exit 65.
  @Test(arguments: ["MyApp-Info.plist", "MyApp.plist", "Intents.xml"])
  func anInfoPlistUnderAnotherNameIsValidated(_ name: String) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let examples = PackagePaths.root.appendingPathComponent("Sources/Examples")
    let app = host.directory.file("app/\(name)")
    try FileManager.default.createDirectory(at: app.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: examples.appendingPathComponent("Rooms/Info.plist"), to: app)
    let clean = try await host.assistant(["validate", app.path])
    #expect(clean.code == 0, "\(clean)")
    #expect(clean.stdout == "0 errors, 0 warnings in \(app.path)\n", "\(clean)")

    let ext = host.directory.file("ext/\(name)")
    try FileManager.default.createDirectory(at: ext.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: examples.appendingPathComponent("RoomsIntents/Info.plist"), to: ext)
    try Self.edit(ext) { plist in
      var extensionInfo = plist["NSExtension"] as! [String: Any]
      var attributes = extensionInfo["NSExtensionAttributes"] as! [String: Any]
      attributes["IntentsRestrictedWhileLocked"] = ["INSendPaymentIntent"]
      extensionInfo["NSExtensionAttributes"] = attributes
      plist["NSExtension"] = extensionInfo
    }
    let result = try await host.assistant(["validate", ext.path])
    #expect(result.code == 65, "\(result)")
    #expect(
      result.stdout.contains("\(ext.path): NSExtension.NSExtensionAttributes.IntentsRestrictedWhileLocked[0]: error: "))
    #expect(result.stdout.contains("[restricted-not-supported]"), "\(result)")
    #expect(!result.stdout.contains("unknown-file"), "\(result)")
  }

  /// `install` and `validate` of a path that does not exist say the same (the `file-missing` finding: the path,
  /// "does not exist", "check the path") and exit 66 (EX_NOINPUT).
  @Test func aMissingPathIsTheSameForInstallAndValidate() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let sentence = "/nonexistent/X.app: error: does not exist [file-missing]"
    let install = try await host.assistant(["install", "/nonexistent/X.app"])
    let validate = try await host.assistant(["validate", "/nonexistent/X.app"])
    #expect(install.stderr.contains(sentence + "\n"), "\(install)")
    #expect(install.stderr.contains("fix: check the path\n"), "\(install)")
    #expect(validate.stdout.hasPrefix(sentence + "\n    fix: check the path\n"), "\(validate)")
    #expect(install.code == 66, "\(install)")
    #expect(validate.code == 66, "\(validate)")
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
