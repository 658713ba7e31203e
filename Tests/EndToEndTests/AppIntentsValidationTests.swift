import Foundation
import TestSupport
import Testing

/// `assistant validate` and `install` on an app whose App Intents extension ships seed 000's `Metadata.appintents`:
/// with the seed's own phrases, every error is printed (the code's phrases and the strings table's), then Apple's
/// closing line, and the exit status is 65; with the corrected phrases, the bundle validates and installs (the
/// control). Every rule has its fixture in-process, in AppIntentsMetadataTests.
@Suite(.serialized, .tags(.endToEnd))
struct AppIntentsValidationTests {
  static let appex = "Extensions/FuelOrderIntents.appex"

  @Test func theSeedsPhrasesAreEachReportedAndTheBundleIsRefused() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fuelOrder(phrases: AppIntentsFixtures.seedPhrases, in: host.directory.file("bundles"))
    let metadata = app.appendingPathComponent("\(Self.appex)/Metadata.appintents/extract.actionsdata").path
    let strings = app.appendingPathComponent("\(Self.appex)/en.lproj/AppShortcuts.strings").path
    let apple = "error: Invalid Utterance. Every App Shortcut utterance should have one '${applicationName}' in it."

    let result = try await host.assistant(["validate", app.path])
    #expect(result.code == 65, "\(result)")
    let errors = result.stdout.split(separator: "\n").filter { $0.contains(": error: ") }.map(String.init)
    #expect(
      errors == [
        "\(metadata): autoShortcuts[0].phraseTemplates[0]: \(apple) (\"Fuel my car\" has none) [app-shortcut-utterance]",
        "\(metadata): autoShortcuts[0].phraseTemplates[1]: \(apple) (\"Fuel my car at ${location}\" has none) "
          + "[app-shortcut-utterance]",
        "\(strings): Fuel my car: \(apple) (\"Fuel my car\" has none) [app-shortcut-utterance]",
        "\(strings): Fuel my car at ${location}: \(apple) (\"Fuel my car at ${location}\" has none) "
          + "[app-shortcut-utterance]",
        "\(app.path): error: At least one halting error produced. [app-intents-halting-error]",
      ], "\(result)")
    #expect(result.stdout.contains("    fix: add ${applicationName} where the app's name is said"), "\(result)")
    #expect(result.stdout.hasSuffix("5 errors, 0 warnings in \(app.path)\n"), "\(result)")

    // install refuses the bundle with the same errors, and installs nothing.
    let install = try await host.assistant(["install", app.path])
    #expect(install.code == 65, "\(install)")
    #expect(install.stderr.components(separatedBy: "[app-shortcut-utterance]").count == 5, "\(install)")
    #expect(install.stderr.contains("At least one halting error produced."), "\(install)")
    #expect(!FileManager.default.fileExists(atPath: host.directory.file("home/Applications/FuelOrder.app").path))
  }

  @Test func theCorrectedPhrasesValidateAndInstall() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fuelOrder(
      phrases: AppIntentsFixtures.correctedPhrases, in: host.directory.file("bundles"))
    let result = try await host.assistant(["validate", app.path])
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == "0 errors, 0 warnings in \(app.path)\n", "\(result)")
    let install = try await host.assistant(["install", app.path])
    #expect(install.code == 0, "\(install)")
  }

  /// `--json` names each rule, and the metadata folder validates on its own (as an extension written by hand is
  /// checked before it is built into a bundle), with the same findings.
  @Test func theJSONReportAndTheFolderOnItsOwn() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fuelOrder(phrases: AppIntentsFixtures.seedPhrases, in: host.directory.file("bundles"))
    let json = try await host.assistant(["--json", "validate", app.path])
    #expect(json.code == 65, "\(json)")
    struct Report: Decodable {
      struct Item: Decodable {
        var severity: String
        var rule: String
      }
      var errors: Int
      var diagnostics: [Item]
    }
    let report = try JSONDecoder().decode(Report.self, from: Data(json.stdout.utf8))
    #expect(report.errors == 5)
    #expect(
      report.diagnostics.map(\.rule) == Array(repeating: "app-shortcut-utterance", count: 4) + [
        "app-intents-halting-error"
      ])

    let folder = app.appendingPathComponent("\(Self.appex)/Metadata.appintents")
    let alone = try await host.assistant(["validate", folder.path])
    #expect(alone.code == 65, "\(alone)")
    #expect(alone.stdout.components(separatedBy: "[app-shortcut-utterance]").count == 5, "\(alone)")
    #expect(alone.stdout.contains("At least one halting error produced."), "\(alone)")
  }

  /// A metadata file that cannot be read is one error naming the file, the JSON path and the fix, not a crash.
  @Test func anUnreadableFileIsAnError() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fuelOrder(
      phrases: AppIntentsFixtures.correctedPhrases, in: host.directory.file("bundles"))
    let metadata = app.appendingPathComponent("\(Self.appex)/Metadata.appintents/extract.actionsdata")
    let text = try String(contentsOf: metadata, encoding: .utf8)
    try Data(text.replacingOccurrences(of: #""authenticationPolicy": 2"#, with: #""authenticationPolicy": 9"#).utf8)
      .write(to: metadata)
    let result = try await host.assistant(["validate", app.path])
    #expect(result.code == 65, "\(result)")
    #expect(
      result.stdout.contains(
        "\(metadata.path): actions.OrderFuelIntent.authenticationPolicy: error: is 9, not a policy IntentHost knows"),
      "\(result)")
    #expect(result.stdout.contains("[app-intents-metadata]"), "\(result)")
  }
}
