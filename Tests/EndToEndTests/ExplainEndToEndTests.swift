import Foundation
import TestSupport
import Testing

/// `assistant explain`: for each lock rule, the rule that applies to an intent (named with its file), its condition,
/// and what a run asks now and when locked. One Rooms bundle carries every rule, each on an intent of its own.
@Suite(.serialized, .tags(.endToEnd))
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

  /// A home with Rooms installed, its manifests carrying every rule of `rows`, and the passcode 2468 unless
  /// `passcode` is false.
  static func host(passcode: Bool = true) async throws -> HostFixture {
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
    if passcode {
      #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
    }
    return host
  }

  /// `INTENTHOST_CLOCK_OFFSET=offset`: the host's clock `offset` seconds ahead.
  static func clock(_ offset: Int) -> [String: String] { ["INTENTHOST_CLOCK_OFFSET": String(offset)] }

  /// Locks the device; returns the time just after, which `offset(_:after:)` counts from.
  static func lock(_ host: HostFixture) async throws -> Date {
    #expect(try await host.assistant(["lock"]).code == 0)
    return Date()
  }

  /// The clock offset that puts the host's "now" at least `seconds` after a lock that ended at `lock`, and at most a
  /// few seconds more (the next command's start): the real time since `lock` is taken off, so a loaded machine that
  /// is slow between two commands does not leave a window of the device state ("within the 10 s").
  static func offset(_ seconds: Int, after lock: Date) -> Int {
    seconds - Int(Date().timeIntervalSince(lock))
  }

  static func explain(_ host: HostFixture, _ intent: String, offset: Int = 0) async throws -> Report {
    let result = try await host.assistant(["explain", "Rooms", intent, "--json"], environment: clock(offset))
    #expect(result.code == 0, "\(result)")
    return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
  }

  /// The text form's "now: ..." and "when locked: ..." sentences.
  static func sentences(_ host: HostFixture, _ intent: String, offset: Int = 0) async throws -> (
    now: String, whenLocked: String
  ) {
    let result = try await host.assistant(["explain", "Rooms", intent], environment: clock(offset))
    #expect(result.code == 0, "\(result)")
    let lines = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    func line(_ prefix: String) -> String {
      lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) } ?? "(no \(prefix) line)"
    }
    return (line("now: "), line("when locked: "))
  }

  /// What a run of `intent` does now: it is refused or asks before the extension starts, so no value is needed.
  static func run(_ host: HostFixture, _ intent: String, offset: Int = 0, input: String? = nil) async throws
    -> CommandResult
  {
    try await host.assistant(
      ["run", "Rooms", intent] + (input == nil ? [] : ["--passcode-stdin"]), input: input,
      environment: clock(offset))
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
    let locked = try await Self.lock(host)
    #expect(try await Self.explain(host, "BookRoomIntent").now == "unlockWithPasscode")
    #expect(
      try await Self.explain(host, "INSearchForMessagesIntent", offset: Self.offset(0, after: locked)).now == "allowed")
    #expect(try await Self.explain(host, "INEndWorkoutIntent").now == "allowed")

    // The text form says the same, with each condition.
    let text = try await host.assistant(["explain", "Rooms", "BookRoom"])
    #expect(text.stdout.contains("needs an unlocked device: BookRoomIntent is listed in IntentsRestrictedWhileLocked"))
    #expect(text.stdout.contains("now: the passcode is asked first"), "\(text)")
    let conditional = try await host.assistant(["explain", "Rooms", "INAppendToNoteIntent"])
    #expect(conditional.stdout.contains("if resolving asks to choose or confirm, needs an unlocked device"))
    #expect(conditional.stdout.contains("no rule applies up front"))
  }

  /// Protected data unavailable (10 s after locking with a passcode): the run asks the passcode to unlock, it does
  /// not simply refuse; explain says so. Within the 10 s the intent runs (the control).
  @Test func protectedDataUnavailableAsksThePasscode() async throws {
    let host = try await Self.host()
    defer { host.directory.remove() }
    let locked = try await Self.lock(host)
    for intent in ["INSearchForMessagesIntent", "INSetMessageAttributeIntent"] {
      #expect(try await Self.explain(host, intent, offset: Self.offset(0, after: locked)).now == "allowed", "\(intent)")
      let report = try await Self.explain(host, intent, offset: 11)
      #expect(report.now == "protectedDataUnavailable", "\(intent)")
      #expect(report.whenLocked == "protectedDataUnavailable", "\(intent)")
      let text = try await Self.sentences(host, intent, offset: 11)
      #expect(text.now.hasPrefix("the passcode is asked first: protected data is unavailable"), "\(text)")
      #expect(text.whenLocked == text.now)
    }
    // The run: asked to unlock, the passcode is needed (none given here), not a plain refusal.
    let run = try await Self.run(host, "INSearchForMessagesIntent", offset: 11)
    #expect(run.code == 77, "\(run)")
    #expect((run.stdout + run.stderr).contains("You need to unlock your device first."), "\(run)")
    #expect(run.stderr.contains("protected data is unavailable"), "\(run)")
    #expect(run.stderr.contains("the passcode is needed"), "\(run)")
  }

  /// During a lockout a run that would ask the passcode refuses without asking (77): "lockedOut", with the time
  /// left, for an unlock and for protected data, now and when locked. Once it is over, the passcode is asked again.
  @Test func lockoutIsRefusedWithTheTimeLeft() async throws {
    let host = try await Self.host()
    defer { host.directory.remove() }
    #expect(try await host.assistant(["lock"]).code == 0)
    for _ in 1...5 {
      #expect(try await host.assistant(["unlock", "--passcode-stdin"], input: "1111\n").code == 77)
    }
    let locked = try await Self.explain(host, "BookRoomIntent")
    #expect(locked.now == "lockedOut" && locked.whenLocked == "lockedOut", "\(locked)")
    let text = try await Self.sentences(host, "BookRoomIntent")
    #expect(text.now.hasPrefix("it is refused: too many wrong passcodes, try again in "), "\(text)")
    #expect(text.whenLocked.hasPrefix("it is refused: too many wrong passcodes, try again in "), "\(text)")
    let protected = try await Self.explain(host, "INSearchForMessagesIntent", offset: 11)
    #expect(protected.now == "lockedOut", "\(protected)")
    // Nothing asks the passcode for an unrestricted intent, so the lockout does not matter to it.
    #expect(try await Self.explain(host, "INEndWorkoutIntent").now == "allowed")
    // The run: refused with the time left, although the right passcode is on stdin (nothing is asked).
    let run = try await Self.run(host, "BookRoomIntent", input: "2468\n")
    #expect(run.code == 77, "\(run)")
    #expect(run.stderr.contains("too many wrong passcodes: try again in"), "\(run)")

    // After the minute: the passcode is asked again.
    let after = try await Self.explain(host, "BookRoomIntent", offset: 61)
    #expect(after.now == "unlockWithPasscode" && after.whenLocked == "unlockWithPasscode", "\(after)")
    #expect(try await Self.sentences(host, "BookRoomIntent", offset: 61).now == "the passcode is asked first")
  }

  /// No passcode set: unlocking is a yes/no confirmation (`--answer yes` in a script), now when locked and in
  /// "when locked" when not.
  @Test func noPasscodeAsksToConfirmTheUnlock() async throws {
    let host = try await Self.host(passcode: false)
    defer { host.directory.remove() }
    let unlocked = try await Self.explain(host, "BookRoomIntent")
    #expect(unlocked.now == "allowed" && unlocked.whenLocked == "unlock", "\(unlocked)")
    // Without a passcode protected data never becomes unavailable.
    #expect(try await Self.explain(host, "INSearchForMessagesIntent", offset: 11).whenLocked == "allowed")

    #expect(try await host.assistant(["lock"]).code == 0)
    let locked = try await Self.explain(host, "BookRoomIntent")
    #expect(locked.now == "unlock" && locked.whenLocked == "unlock", "\(locked)")
    let text = try await Self.sentences(host, "BookRoomIntent")
    #expect(text.now.hasPrefix("the user is asked to confirm the unlock"), "\(text)")
    #expect(text.now.contains("--answer yes"), "\(text)")
    #expect(text.whenLocked == text.now)
    // The run: the confirmation cannot be asked without a terminal or --answer.
    let run = try await Self.run(host, "BookRoomIntent")
    #expect(run.code == 77, "\(run)")
    #expect(run.stderr.contains("answer it with --answer yes (or --answer no)"), "\(run)")
  }

  /// Within the "require passcode" grace period the device unlocks without the passcode (and protected data stays
  /// available until its end); "when locked" is past it. After the grace period, the passcode (the control).
  @Test func withinTheGracePeriodNoPasscodeIsAsked() async throws {
    let host = try await Self.host()
    defer { host.directory.remove() }
    let settings = try await host.assistant(
      ["passcode", "settings", "--require-passcode", "60", "--passcode-stdin"], input: "2468\n")
    #expect(settings.code == 0, "\(settings)")
    let locked = try await Self.lock(host)
    let within = try await Self.explain(host, "BookRoomIntent", offset: Self.offset(30, after: locked))
    #expect(within.now == "unlock" && within.whenLocked == "unlockWithPasscode", "\(within)")
    let text = try await Self.sentences(host, "BookRoomIntent", offset: Self.offset(30, after: locked))
    #expect(text.now.hasPrefix("the device is unlocked without the passcode: it is within its grace period"))
    #expect(text.whenLocked == "the passcode is asked first", "\(text)")
    #expect(
      try await Self.explain(host, "INSearchForMessagesIntent", offset: Self.offset(30, after: locked)).now
        == "allowed")

    let after = try await Self.explain(host, "BookRoomIntent", offset: 61)
    #expect(after.now == "unlockWithPasscode", "\(after)")
    #expect(try await Self.explain(host, "INSearchForMessagesIntent", offset: 61).now == "protectedDataUnavailable")

    // The run within the grace period: unlocked without the passcode (then it stops at the first value it needs).
    let run = try await Self.run(host, "BookRoomIntent", offset: Self.offset(30, after: locked))
    #expect((run.stdout + run.stderr).contains("Unlocked without the passcode"), "\(run)")
    let status = try await host.assistant(["status", "--json"], environment: Self.clock(30))
    #expect(status.stdout.contains("\"locked\":false"), "\(status)")
  }

  /// `list` marks an intent from LockPolicy's up-front rules: "restricted while locked" for the extension's list,
  /// the app's INIntentsRestrictedWhileLocked and a system intent that always needs an unlock; "needs protected
  /// data" for either protected-data list; neither for the conditional rule or none.
  @Test func listMarksTheUpFrontRules() async throws {
    let host = try await Self.host(passcode: false)
    defer { host.directory.remove() }
    struct Listing: Decodable {
      struct App: Decodable { var extensions: [Extension] }
      struct Extension: Decodable {
        var name: String
        var intents: [Intent]
      }
      struct Intent: Decodable {
        var className: String
        var restrictedWhileLocked: Bool
        /// Optional here so that a listing without it still shows what `restrictedWhileLocked` says.
        var restrictedWhileProtectedDataUnavailable: Bool?
      }
      var apps: [App]
    }
    let expected: [String: (locked: Bool, protectedData: Bool)] = [
      "BookRoomIntent": (true, false),
      "INSendMessageIntent": (true, false),
      "INStartWorkoutIntent": (true, false),
      "INSearchForMessagesIntent": (false, true),
      "INSetMessageAttributeIntent": (false, true),
      "INPauseWorkoutIntent": (false, false),
      "INAppendToNoteIntent": (false, false),
      "INEndWorkoutIntent": (false, false),
    ]
    let json = try await host.assistant(["list", "--json"])
    #expect(json.code == 0, "\(json)")
    let listing = try JSONDecoder().decode(Listing.self, from: Data(json.stdout.utf8))
    let intents = listing.apps.flatMap(\.extensions).filter { $0.name == "RoomsIntents" }.flatMap(\.intents)
    #expect(Set(intents.map(\.className)) == Set(expected.keys))
    for intent in intents {
      let want = expected[intent.className]
      #expect(intent.restrictedWhileLocked == want?.locked, "\(intent.className)")
      #expect(intent.restrictedWhileProtectedDataUnavailable == want?.protectedData, "\(intent.className)")
    }

    let text = try await host.assistant(["list"])
    #expect(text.code == 0, "\(text)")
    for (className, want) in expected {
      let line = text.stdout.split(separator: "\n").first { $0.hasPrefix("    \(className)") } ?? ""
      #expect(line.hasSuffix(", restricted while locked") == want.locked, "\(line)")
      #expect(line.hasSuffix(", needs protected data") == want.protectedData, "\(line)")
    }
  }
}
