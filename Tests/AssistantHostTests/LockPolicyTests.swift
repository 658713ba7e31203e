import AssistantHost
import BundleManifest
import Foundation
import TestSupport
import Testing

/// `LockPolicy`: which rule applies to an intent, from its manifests and the catalog, and what it asks of the
/// device in each state.
@Suite(.tags(.unit)) struct LockPolicyTests {
  /// Rooms with `change` made to its manifests (the extension's attributes, or the app's Info.plist).
  static func rooms(
    extensionAttributes: ((inout [String: Any]) -> Void)? = nil, app: ((inout [String: Any]) -> Void)? = nil
  ) throws -> AppBundle {
    let directory = try TemporaryDirectory("assistanthost-lockpolicy")
    defer { directory.remove() }
    let bundle = try TestBundles.roomsManifests(in: directory.url)
    if let extensionAttributes {
      try Edit.attributes(bundle.appendingPathComponent(Edit.appex + "/Info.plist"), extensionAttributes)
    }
    if let app { try Edit.plist(bundle.appendingPathComponent("Info.plist"), app) }
    return try AppBundle.load(from: bundle)
  }

  /// The rules that apply before anything runs.
  static func upFront(_ intent: String, _ app: AppBundle) -> [LockPolicy.Rule] {
    LockPolicy.rules(for: intent, of: app).filter(\.knownUpFront)
  }

  @Test func anUnrestrictedIntentHasOnlyTheContinueInAppRule() throws {
    let rules = LockPolicy.rules(for: "BookRoomIntent", of: try Self.rooms())
    #expect(rules.map(\.name) == ["continue-in-app"])
    #expect(rules.map(\.condition) == [.continueInApp])
  }

  @Test func eachManifestRuleIsNamedWithItsFile() throws {
    let byExtension = try Self.rooms(extensionAttributes: { $0["IntentsRestrictedWhileLocked"] = ["BookRoomIntent"] })
    #expect(
      Self.upFront("BookRoomIntent", byExtension).map(\.source) == [
        "BookRoomIntent is listed in IntentsRestrictedWhileLocked of RoomsIntents.appex/Info.plist"
      ])
    let byApp = try Self.rooms(app: { $0["INIntentsRestrictedWhileLocked"] = ["BookRoomIntent"] })
    #expect(Self.upFront("BookRoomIntent", byApp).map(\.name) == ["app-restricted-while-locked"])
    let protected = try Self.rooms(extensionAttributes: {
      $0["IntentsRestrictedWhileProtectedDataUnavailable"] = ["BookRoomIntent"]
    })
    #expect(Self.upFront("BookRoomIntent", protected).map(\.need) == [.protectedData])
    let appProtected = try Self.rooms(app: {
      $0["INIntentsRestrictedWhileProtectedDataUnavailable"] = ["BookRoomIntent"]
    })
    #expect(
      Self.upFront("BookRoomIntent", appProtected).map(\.source) == [
        "BookRoomIntent is listed in INIntentsRestrictedWhileProtectedDataUnavailable of Rooms.app/Info.plist"
      ])
  }

  /// The conditional rule applies only after a question during resolution, and only to a marked intent.
  @Test func theConditionalRuleAppliesOnlyAfterAQuestion() throws {
    let marked = try Self.rooms(extensionAttributes: {
      $0["IntentHostIntentsRestrictedWhileLockedAfterQuestions"] = ["BookRoomIntent"]
    })
    let rules = LockPolicy.rules(for: "BookRoomIntent", of: marked)
    #expect(rules.first?.condition == .afterQuestions)
    #expect(
      rules.first?.source
        == "BookRoomIntent is listed in IntentHostIntentsRestrictedWhileLockedAfterQuestions of "
        + "RoomsIntents.appex/Info.plist")
    var locked = DeviceRecord()
    locked.lock(at: 1000)
    #expect(LockPolicy.decide(rules, device: locked, at: 1001) == .allowed)
    let chose = LockPolicy.History(disambiguated: ["roomNumber"])
    #expect(LockPolicy.decide(rules, device: locked, at: 1001, after: chose) == .unlock(rules[0], passcode: false))
    let confirmed = LockPolicy.History(confirmed: ["bookedBy"])
    #expect(LockPolicy.decide(rules, device: locked, at: 1001, after: confirmed) == .unlock(rules[0], passcode: false))
    // Control: the same history without the mark asks nothing.
    let unmarked = LockPolicy.rules(for: "BookRoomIntent", of: try Self.rooms())
    #expect(LockPolicy.decide(unmarked, device: locked, at: 1001, after: chose) == .allowed)
    // Apple's own: INAppendToNoteIntent.
    let note = LockPolicy.rules(for: "INAppendToNoteIntent", of: try Self.rooms())
    #expect(note.map(\.name) == ["restricted-while-locked-after-questions", "continue-in-app"])
    #expect(LockPolicy.decide(note, device: locked, at: 1001, after: chose) != .allowed)
  }

  @Test func continueInAppNeedsAnUnlockedDevice() throws {
    let rules = LockPolicy.rules(for: "BookRoomIntent", of: try Self.rooms())
    var locked = DeviceRecord()
    locked.lock(at: 1000)
    #expect(LockPolicy.decide(rules, device: locked, at: 1001) == .allowed)
    let continuing = LockPolicy.History(continuingInApp: true)
    #expect(
      LockPolicy.decide(rules, device: locked, at: 1001, after: continuing)
        == .unlock(LockPolicy.continueInApp(try Self.rooms()), passcode: false))
    #expect(LockPolicy.decide(rules, device: DeviceRecord(), at: 1001, after: continuing) == .allowed)
  }

  @Test func aSystemIntentThatAlwaysNeedsAnUnlockedDeviceSaysSoUpFront() throws {
    let rules = Self.upFront("INStartWorkoutIntent", try Self.rooms())
    #expect(rules.map(\.name) == ["system-intent-always-unlocked"])
    #expect(Self.upFront("INPauseWorkoutIntent", try Self.rooms()).isEmpty)
  }

  /// The decision over the device's states: unlocked, locked within the grace period, locked past it, and protected
  /// data gone (locked with a passcode more than 10 s ago).
  @Test func theDecisionFollowsTheDeviceState() throws {
    let unlock = LockPolicy.Rule(need: .unlockedDevice, name: "u", source: "s")
    let data = LockPolicy.Rule(need: .protectedData, name: "p", source: "s")
    var record = DeviceRecord()
    record.passcodeSet = true
    record.autoLock = nil
    #expect(LockPolicy.decide([unlock, data], device: record, at: 1000) == .allowed)
    record.lock(at: 1000)
    #expect(LockPolicy.decide([unlock], device: record, at: 1001) == .unlock(unlock, passcode: true))
    #expect(LockPolicy.decide([data], device: record, at: 1005) == .allowed)
    #expect(LockPolicy.decide([data], device: record, at: 1011) == .protectedDataUnavailable(data))
    record.gracePeriod = 60
    #expect(LockPolicy.decide([unlock], device: record, at: 1030) == .unlock(unlock, passcode: false))
    #expect(LockPolicy.decide([], device: record, at: 5000) == .allowed)
  }

  /// How a decision is met, the one answer the driver acts on and `explain` reports.
  @Test func howAnUnlockIsMet() throws {
    let rule = LockPolicy.Rule(need: .unlockedDevice, name: "u", source: "s")
    var record = DeviceRecord()
    record.autoLock = nil
    #expect(LockPolicy.unlocking(.allowed, device: record, at: 1000) == .notNeeded)
    record.lock(at: 1000)
    let decision = LockPolicy.decide([rule], device: record, at: 1001)
    #expect(LockPolicy.unlocking(decision, device: record, at: 1001) == .confirmation)
    record.passcodeSet = true
    record.gracePeriod = 60
    #expect(LockPolicy.unlocking(decision, device: record, at: 1010) == .withinGracePeriod(left: 50))
    #expect(LockPolicy.unlocking(decision, device: record, at: 1070) == .passcode)
    for _ in 1...5 { record.recordFailure(at: 1070) }
    #expect(LockPolicy.unlocking(decision, device: record, at: 1080) == .lockedOut(left: 50))
  }
}
