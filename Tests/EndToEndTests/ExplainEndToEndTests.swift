import Foundation
import TestSupport
import Testing

/// `assistant explain`: for each lock rule, the rule that applies to an intent (named with its file), its condition,
/// and what a run asks now and when locked. One Rooms bundle carries every rule, each on an intent of its own.
@Suite(.serialized)
struct ExplainEndToEndTests {
  struct Report: Decodable {
    struct Rule: Decodable, Equatable {
      var need: String
      var name: String
      var source: String
      var condition: String
      var knownUpFront: Bool
    }
    var intent: String
    var rules: [Rule]
    var now: String
    var whenLocked: String
  }

  /// One row: an intent, the rule it comes under (besides continueInApp's, which every intent has), and the
  /// decisions when unlocked and when locked.
  struct Row: Sendable, CustomStringConvertible {
    var intent: String
    var name: String?
    var need = "unlockedDevice"
    var source = ""
    var condition = "always"
    var whenLocked = "unlockWithPasscode"
    var description: String { intent }
  }

  static let rows: [Row] = [
    Row(
      intent: "BookRoomIntent", name: "extension-restricted-while-locked",
      source: "BookRoomIntent is listed in IntentsRestrictedWhileLocked of RoomsIntents.appex/Info.plist"),
    Row(
      intent: "INSendMessageIntent", name: "app-restricted-while-locked",
      source: "INSendMessageIntent is listed in INIntentsRestrictedWhileLocked of Rooms.app/Info.plist"),
    Row(
      intent: "INStartWorkoutIntent", name: "system-intent-always-unlocked",
      source: "INStartWorkoutIntent always needs an unlocked device (SiriKit)"),
    Row(
      intent: "INSearchForMessagesIntent", name: "extension-restricted-while-protected-data-unavailable",
      need: "protectedData",
      source:
        "INSearchForMessagesIntent is listed in IntentsRestrictedWhileProtectedDataUnavailable of "
        + "RoomsIntents.appex/Info.plist",
      whenLocked: "protectedDataUnavailable"),
    Row(
      intent: "INSetMessageAttributeIntent", name: "app-restricted-while-protected-data-unavailable",
      need: "protectedData",
      source:
        "INSetMessageAttributeIntent is listed in INIntentsRestrictedWhileProtectedDataUnavailable of "
        + "Rooms.app/Info.plist",
      whenLocked: "protectedDataUnavailable"),
    Row(
      intent: "INPauseWorkoutIntent", name: "restricted-while-locked-after-questions",
      source:
        "INPauseWorkoutIntent is listed in IntentHostIntentsRestrictedWhileLockedAfterQuestions of "
        + "RoomsIntents.appex/Info.plist",
      condition: "afterQuestions", whenLocked: "allowed"),
    Row(
      intent: "INAppendToNoteIntent", name: "restricted-while-locked-after-questions",
      source: "INAppendToNoteIntent needs an unlocked device when resolving asks to choose or confirm (SiriKit)",
      condition: "afterQuestions", whenLocked: "allowed"),
    Row(intent: "INEndWorkoutIntent", name: nil, whenLocked: "allowed"),
  ]

  /// A home with Rooms installed, its manifests carrying every rule of `rows`, and a passcode.
  static func host() async throws -> HostFixture {
    let host = try HostFixture()
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    let extensionInfo = app.appendingPathComponent("PlugIns/RoomsIntents.appex/Info.plist")
    let appInfo = app.appendingPathComponent("Info.plist")
    try await offThePool {
      var plist =
        try PropertyListSerialization.propertyList(from: Data(contentsOf: extensionInfo), format: nil)
        as! [String: Any]
      var ext = plist["NSExtension"] as! [String: Any]
      var attributes = ext["NSExtensionAttributes"] as! [String: Any]
      attributes["IntentsSupported"] = ["BookRoomIntent"] + rows.map(\.intent).filter { $0.hasPrefix("IN") }
      attributes["IntentsRestrictedWhileLocked"] = ["BookRoomIntent"]
      attributes["IntentsRestrictedWhileProtectedDataUnavailable"] = ["INSearchForMessagesIntent"]
      attributes["IntentHostIntentsRestrictedWhileLockedAfterQuestions"] = ["INPauseWorkoutIntent"]
      ext["NSExtensionAttributes"] = attributes
      plist["NSExtension"] = ext
      try writePlist(plist, to: extensionInfo)
      var appPlist =
        try PropertyListSerialization.propertyList(from: Data(contentsOf: appInfo), format: nil) as! [String: Any]
      appPlist["INIntentsRestrictedWhileLocked"] = ["INSendMessageIntent"]
      appPlist["INIntentsRestrictedWhileProtectedDataUnavailable"] = ["INSetMessageAttributeIntent"]
      try writePlist(appPlist, to: appInfo)
    }
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
    return host
  }

  static func explain(_ host: HostFixture, _ intent: String) async throws -> Report {
    let result = try await host.assistant(["explain", "Rooms", intent, "--json"])
    #expect(result.code == 0, "\(result)")
    return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
  }

  @Test func eachRuleIsNamedWithItsFileAndCondition() async throws {
    let host = try await Self.host()
    defer { host.directory.remove() }
    for row in Self.rows {
      let report = try await Self.explain(host, row.intent)
      var expected: [Report.Rule] = []
      if let name = row.name {
        expected.append(
          Report.Rule(
            need: row.need, name: name, source: row.source, condition: row.condition,
            knownUpFront: row.condition == "always"))
      }
      expected.append(
        Report.Rule(
          need: "unlockedDevice", name: "continue-in-app", source: "continueInApp brings Rooms to the foreground",
          condition: "continueInApp", knownUpFront: false))
      #expect(report.rules == expected, "\(row)")
      #expect(report.now == "allowed", "\(row)")
      #expect(report.whenLocked == row.whenLocked, "\(row)")
    }

    // Locked now: the up-front rules ask for the passcode (protected data is still there for 10 s).
    #expect(try await host.assistant(["lock"]).code == 0)
    #expect(try await Self.explain(host, "BookRoomIntent").now == "unlockWithPasscode")
    #expect(try await Self.explain(host, "INSearchForMessagesIntent").now == "allowed")
    #expect(try await Self.explain(host, "INEndWorkoutIntent").now == "allowed")

    // The text form says the same, with each condition.
    let text = try await host.assistant(["explain", "Rooms", "BookRoom"])
    #expect(text.stdout.contains("needs an unlocked device: BookRoomIntent is listed in IntentsRestrictedWhileLocked"))
    #expect(text.stdout.contains("now: the passcode is asked first"), "\(text)")
    let conditional = try await host.assistant(["explain", "Rooms", "INAppendToNoteIntent"])
    #expect(conditional.stdout.contains("if resolving asks to choose or confirm, needs an unlocked device"))
    #expect(conditional.stdout.contains("no rule applies up front"))
  }
}
