import BundleManifest
import ExtensionProtocol
import Foundation
import TestSupport
import Testing

@testable import AssistantHost

/// The lock rules in the driver, in-process (`Rig`): every device state × every kind of rule × every way the user
/// answers the passcode question, with the outcome, the exit status and the device state after; then the rules that
/// depend on the conversation (a question during resolution, `continueInApp`), no passcode set, and a lockout.
@Suite(.serialized, .tags(.process))
struct LockMatrixTests {
  enum DeviceCase: String, CaseIterable, Sendable {
    case unlocked
    /// Locked 5 s ago with a 60 s grace period.
    case lockedWithinGrace
    /// Locked 5 s ago, passcode required immediately (protected data still available for 5 s more).
    case locked
    /// Locked 60 s ago: protected data unavailable.
    case protectedDataUnavailable
  }

  enum RuleCase: String, CaseIterable, Sendable {
    case notRestricted, byExtension, byApp, systemIntent, protectedData
  }

  enum Input: String, CaseIterable, Sendable {
    case rightPasscode, wrongPasscode, noInput
  }

  struct Case: Sendable, CustomStringConvertible {
    var device: DeviceCase
    var rule: RuleCase
    var input: Input
    var description: String { "\(device.rawValue) × \(rule.rawValue) × \(input.rawValue)" }
  }

  static let cases: [Case] = DeviceCase.allCases.flatMap { device in
    RuleCase.allCases.flatMap { rule in Input.allCases.map { Case(device: device, rule: rule, input: $0) } }
  }

  /// What a case must end with.
  struct Expected: Equatable, CustomStringConvertible {
    var status: AssistantHost.ExitStatus
    var asksPasscode: Bool
    var endsLocked: Bool
    var failedAttempts: Int
    var description: String {
      "exit \(status.rawValue), \(asksPasscode ? "asks" : "does not ask"), "
        + "\(endsLocked ? "locked" : "unlocked") after, \(failedAttempts) failed"
    }
  }

  /// The table's rule, written once: an unlock rule needs the device unlocked, the protected-data rule needs it
  /// only once protected data is gone; within the grace period no passcode is asked; otherwise the right passcode
  /// unlocks, a wrong one is refused (77) and counted, no input is refused and not counted.
  static func expected(_ c: Case) -> Expected {
    let locked = c.device != .unlocked
    let needsUnlock: Bool
    switch c.rule {
    case .notRestricted: needsUnlock = false
    case .protectedData: needsUnlock = c.device == .protectedDataUnavailable
    case .byExtension, .byApp, .systemIntent: needsUnlock = locked
    }
    if !needsUnlock { return Expected(status: .success, asksPasscode: false, endsLocked: locked, failedAttempts: 0) }
    if c.device == .lockedWithinGrace {
      return Expected(status: .success, asksPasscode: false, endsLocked: false, failedAttempts: 0)
    }
    switch c.input {
    case .rightPasscode: return Expected(status: .success, asksPasscode: true, endsLocked: false, failedAttempts: 0)
    case .wrongPasscode: return Expected(status: .refused, asksPasscode: true, endsLocked: true, failedAttempts: 1)
    case .noInput: return Expected(status: .refused, asksPasscode: true, endsLocked: true, failedAttempts: 0)
    }
  }

  /// The source each rule names in a refusal.
  static func source(_ rule: RuleCase) -> String {
    switch rule {
    case .notRestricted: ""
    case .byExtension: "BookRoomIntent is listed in IntentsRestrictedWhileLocked of RoomsIntents.appex/Info.plist"
    case .byApp: "BookRoomIntent is listed in INIntentsRestrictedWhileLocked of Rooms.app/Info.plist"
    case .systemIntent: "INResumeWorkoutIntent always needs an unlocked device (SiriKit)"
    case .protectedData:
      "BookRoomIntent is listed in IntentsRestrictedWhileProtectedDataUnavailable of RoomsIntents.appex/Info.plist"
    }
  }

  static func ruleName(_ rule: RuleCase) -> String {
    switch rule {
    case .notRestricted: ""
    case .byExtension: "extension-restricted-while-locked"
    case .byApp: "app-restricted-while-locked"
    case .systemIntent: "system-intent-always-unlocked"
    case .protectedData: "extension-restricted-while-protected-data-unavailable"
    }
  }

  static let passcode = "2468"

  /// A rig whose manifests carry `rule`, and a device in `state` (its clock `offset` seconds after the lock).
  static func rig(_ rule: RuleCase, behaviour: Behaviour = Behaviour(missingIsNotRequired: true)) async throws -> Rig {
    try await Rig(behaviour: behaviour) { bundle in
      let extensionInfo = bundle.appendingPathComponent(Edit.appex + "/Info.plist")
      switch rule {
      case .notRestricted: break
      case .byExtension:
        try Edit.attributes(extensionInfo) { $0["IntentsRestrictedWhileLocked"] = ["BookRoomIntent"] }
      case .byApp:
        try Edit.plist(bundle.appendingPathComponent("Info.plist")) {
          $0["INIntentsRestrictedWhileLocked"] = ["BookRoomIntent"]
        }
      case .systemIntent:
        try Edit.attributes(extensionInfo) {
          $0["IntentsSupported"] = ($0["IntentsSupported"] as? [String] ?? []) + ["INResumeWorkoutIntent"]
        }
      case .protectedData:
        try Edit.attributes(extensionInfo) {
          $0["IntentsRestrictedWhileProtectedDataUnavailable"] = ["BookRoomIntent"]
        }
      }
    }
  }

  /// Puts the device of `home` in `state` and returns the state as the run sees it (its clock after the lock).
  static func device(_ state: DeviceCase, home: AssistantHome) throws -> DeviceState {
    // Stopped clocks: the lock at `t`, the run 5 or 60 s later however long each step takes.
    let t = 1_800_000_000.0
    let setup = DeviceState(home: home, clock: .stopped(at: t))
    #expect(try setup.setPasscode(passcode, old: nil) == .accepted)
    switch state {
    case .unlocked:
      return setup
    case .lockedWithinGrace:
      try setup.setGracePeriod(60)
      try setup.lock()
      return DeviceState(home: home, clock: .stopped(at: t + 5))
    case .locked:
      try setup.lock()
      return DeviceState(home: home, clock: .stopped(at: t + 5))
    case .protectedDataUnavailable:
      try setup.lock()
      return DeviceState(home: home, clock: .stopped(at: t + 60))
    }
  }

  @Test(arguments: cases)
  func theMatrix(_ c: Case) async throws {
    let rig = try await Self.rig(c.rule)
    defer { rig.remove() }
    let device = try Self.device(c.device, home: rig.home)
    let passcodes: [PasscodeAnswer]? =
      switch c.input {
      case .rightPasscode: [.entered(Self.passcode)]
      case .wrongPasscode: [.entered("1111")]
      case .noInput: nil
      }
    let conversation = ScriptedConversation(answers: [], passcodes: passcodes)
    var driver = rig.driver(conversation)
    driver.device = device
    let invocation =
      c.rule == .systemIntent
      ? try rig.invocation([:], intent: "INResumeWorkoutIntent")
      : try rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")])
    let expected = Self.expected(c)

    var status = AssistantHost.ExitStatus.success
    var message = ""
    do {
      let outcome = try await driver.run(invocation)
      #expect(outcome.isSuccess)
    } catch let error as HostError {
      status = error.status
      message = error.message
    }
    let after = try device.status()
    let seen = Expected(
      status: status, asksPasscode: conversation.asked.contains("[passcode] Passcode"), endsLocked: after.locked,
      failedAttempts: after.failedAttempts)
    #expect(seen == expected, "\(c): \(message)")
    if expected.status == .refused {
      // Refused before anything started, naming the rule and its file.
      #expect(message.contains(Self.source(c.rule)), "\(message)")
      #expect(rig.launcher.launched.isEmpty)
      #expect(conversation.said.first == "You need to unlock your device first.")
      if c.input == .noInput { #expect(message.contains("or run `assistant unlock` first"), "\(message)") }
      #expect(message.contains("[\(Self.ruleName(c.rule))]"), "\(message)")
      if c.input == .wrongPasscode { #expect(message.contains("wrong passcode (1 failed attempt"), "\(message)") }
    } else {
      #expect(rig.launcher.transcript("RoomsIntents").contains("intent/handle"))
    }
  }

  /// The table can fail: without the device (the rules not checked), a restricted intent runs while locked.
  @Test func controlWithoutTheDeviceARestrictedIntentRunsWhileLocked() async throws {
    let rig = try await Self.rig(.byExtension)
    defer { rig.remove() }
    _ = try Self.device(.locked, home: rig.home)
    let outcome = try await rig.driver(ScriptedConversation(answers: [])).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.isSuccess)
    #expect(Self.expected(Case(device: .locked, rule: .byExtension, input: .noInput)).status == .refused)
  }

  /// With no passcode set, unlocking is a yes/no question.
  @Test(arguments: [("yes", AssistantHost.ExitStatus.success), ("no", .refused), ("", .refused)])
  func withoutAPasscodeUnlockingIsAConfirmation(_ answer: String, _ status: AssistantHost.ExitStatus) async throws {
    let rig = try await Self.rig(.byExtension)
    defer { rig.remove() }
    let device = DeviceState(home: rig.home, clock: HostClock())
    try device.lock()
    let conversation = ScriptedConversation(answers: answer.isEmpty ? [] : [answer], passcodes: [])
    var driver = rig.driver(conversation)
    driver.device = device
    var seen = AssistantHost.ExitStatus.success
    var message = ""
    do {
      _ = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    } catch let error as HostError {
      seen = error.status
      message = error.message
    }
    #expect(seen == status, "\(message)")
    #expect(conversation.asked.first == "Unlock it?")
    #expect(!conversation.asked.contains("[passcode] Passcode"))
    #expect(try device.status().locked == (status != .success))
    if answer.isEmpty { #expect(message.contains("--answer yes"), "\(message)") }
  }

  /// During a lockout the passcode is not even asked, and the message says how long is left.
  @Test func aLockoutRefusesWithoutAsking() async throws {
    let rig = try await Self.rig(.byExtension)
    defer { rig.remove() }
    let device = try Self.device(.locked, home: rig.home)
    for _ in 1...5 { _ = try device.unlock(passcode: "0000") }
    let conversation = ScriptedConversation(answers: [], passcodes: [.entered(Self.passcode)])
    var driver = rig.driver(conversation)
    driver.device = device
    do {
      _ = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
      Issue.record("the run should have been refused")
    } catch let error as HostError {
      #expect(error.status == .refused)
      #expect(error.message.contains("too many wrong passcodes: try again in"), "\(error.message)")
    }
    #expect(!conversation.asked.contains("[passcode] Passcode"))
    #expect(try device.status().failedAttempts == 5)
  }

  /// The conditional rule: a marked intent runs while locked, unless resolving asked the user to choose; then the
  /// device must be unlocked before handle (the extension has started; handle is never sent when refused).
  @Test func aQuestionDuringResolutionNeedsAnUnlockBeforeHandle() async throws {
    func run(disambiguate: String?, passcodes: [PasscodeAnswer]?) async throws -> (Rig, HostError?, DeviceState) {
      let rig = try await Rig(behaviour: Behaviour(disambiguate: disambiguate)) { bundle in
        try Edit.attributes(bundle.appendingPathComponent(Edit.appex + "/Info.plist")) {
          $0["IntentHostIntentsRestrictedWhileLockedAfterQuestions"] = ["BookRoomIntent"]
        }
      }
      let device = try Self.device(.locked, home: rig.home)
      var driver = rig.driver(ScriptedConversation(answers: ["1"], passcodes: passcodes))
      driver.device = device
      do {
        _ = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
        return (rig, nil, device)
      } catch let error as HostError {
        return (rig, error, device)
      }
    }
    let (asked, refusal, _) = try await run(disambiguate: "roomNumber", passcodes: nil)
    defer { asked.remove() }
    #expect(refusal?.status == .refused)
    #expect(
      refusal?.message.contains(
        "BookRoomIntent was not handled: the device is locked and BookRoomIntent is listed in "
          + "IntentHostIntentsRestrictedWhileLockedAfterQuestions of RoomsIntents.appex/Info.plist, and resolving "
          + "roomNumber asked to choose") == true, "\(String(describing: refusal))")
    let transcript = asked.launcher.transcript("RoomsIntents")
    #expect(transcript.contains("intent/confirm") && !transcript.contains("intent/handle"))
    #expect(asked.launcher.allEnded)

    // Control: no question, no unlock.
    let (quiet, none, stillLocked) = try await run(disambiguate: nil, passcodes: nil)
    defer { quiet.remove() }
    #expect(none == nil)
    #expect(try stillLocked.status().locked)

    // The right passcode unlocks, then handle runs.
    let (unlocked, ok, device) = try await run(disambiguate: "roomNumber", passcodes: [.entered(Self.passcode)])
    defer { unlocked.remove() }
    #expect(ok == nil)
    #expect(try !device.status().locked)
    #expect(unlocked.launcher.transcript("RoomsIntents").contains("intent/handle"))
  }

  /// `continueInApp` brings the app to the foreground: refused while locked, after the extension answered.
  @Test func continueInAppNeedsAnUnlockedDevice() async throws {
    let rig = try await Rig(handle: { _ in IntentResponse(code: .continueInApp) })
    defer { rig.remove() }
    let device = try Self.device(.locked, home: rig.home)
    var driver = rig.driver(ScriptedConversation(answers: [], passcodes: nil))
    driver.device = device
    do {
      _ = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
      Issue.record("the run should have been refused")
    } catch let error as HostError {
      #expect(error.status == .refused)
      #expect(
        error.message.hasPrefix(
          "Rooms was not opened (continueInApp): the device is locked and continueInApp brings Rooms to the "
            + "foreground"), "\(error.message)")
    }
    #expect(rig.launcher.allEnded)
    // Unlocked: the answer stands.
    try device.unlock(passcode: Self.passcode)
    let outcome = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.code == .continueInApp)
  }

  /// Payments: the unlock is asked before anything starts, and the payment is always confirmed before handle, also
  /// when the app's definition customises the system intent and does not ask for the confirmation step.
  @Test(arguments: [false, true])
  func aPaymentIsUnlockedFirstAndAlwaysConfirmed(customised: Bool) async throws {
    let rig = try await Rig(behaviour: Behaviour(missingIsNotRequired: true)) { bundle in
      try Edit.attributes(bundle.appendingPathComponent(Edit.appex + "/Info.plist")) {
        $0["IntentsSupported"] = ($0["IntentsSupported"] as? [String] ?? []) + ["INSendPaymentIntent"]
      }
      if customised {
        try Edit.plist(bundle.appendingPathComponent("Base.lproj/Intents.intentdefinition")) {
          $0["INIntents"] =
            ($0["INIntents"] as? [[String: Any]] ?? []) + [
              [
                "INIntentName": "SendPayment", "INIntentClassName": "INSendPaymentIntent", "INIntentType": "System",
                "INIntentCategory": "generic", "INIntentUserConfirmationRequired": false,
              ]
            ]
        }
      }
    }
    defer { rig.remove() }
    let device = try Self.device(.locked, home: rig.home)
    let conversation = ScriptedConversation(answers: ["no"], passcodes: [.entered(Self.passcode)])
    var driver = rig.driver(conversation)
    driver.device = device
    let outcome = try await driver.run(rig.invocation([:], intent: "INSendPaymentIntent"))
    #expect(conversation.asked == ["[passcode] Passcode", "Do you want to send this payment?"])
    #expect(outcome.code == "cancelledByUser")
    #expect(!rig.launcher.transcript("RoomsIntents").contains("intent/handle"))
  }
}
