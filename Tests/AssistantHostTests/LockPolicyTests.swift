import AssistantHost
import BundleManifest
import Foundation
import TestSupport
import Testing

/// `LockPolicy`: which rule applies to an intent, from its manifests and the catalog, and what it asks of the
/// device in each state.
@Suite struct LockPolicyTests {
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

  @Test func anUnrestrictedIntentHasNoRule() throws {
    #expect(LockPolicy.rules(for: "BookRoomIntent", of: try Self.rooms()).isEmpty)
  }

  @Test func eachManifestRuleIsNamedWithItsFile() throws {
    let byExtension = try Self.rooms(extensionAttributes: { $0["IntentsRestrictedWhileLocked"] = ["BookRoomIntent"] })
    #expect(
      LockPolicy.rules(for: "BookRoomIntent", of: byExtension).map(\.source) == [
        "BookRoomIntent is listed in IntentsRestrictedWhileLocked of RoomsIntents.appex/Info.plist"
      ])
    let byApp = try Self.rooms(app: { $0["INIntentsRestrictedWhileLocked"] = ["BookRoomIntent"] })
    #expect(LockPolicy.rules(for: "BookRoomIntent", of: byApp).map(\.name) == ["app-restricted-while-locked"])
    let protected = try Self.rooms(extensionAttributes: {
      $0["IntentsRestrictedWhileProtectedDataUnavailable"] = ["BookRoomIntent"]
    })
    let rules = LockPolicy.rules(for: "BookRoomIntent", of: protected)
    #expect(rules.map(\.need) == [.protectedData])
  }

  @Test func aSystemIntentThatAlwaysNeedsAnUnlockedDeviceSaysSoUpFront() throws {
    let rules = LockPolicy.rules(for: "INStartWorkoutIntent", of: try Self.rooms())
    #expect(rules.map(\.name) == ["system-intent-always-unlocked"])
    #expect(rules.allSatisfy { $0.knownUpFront })
    #expect(LockPolicy.rules(for: "INPauseWorkoutIntent", of: try Self.rooms()).isEmpty)
  }

  /// The decision over the device's states: unlocked, locked within the grace period, locked past it, and protected
  /// data gone (locked with a passcode more than 10 s ago).
  @Test func theDecisionFollowsTheDeviceState() throws {
    let unlock = LockPolicy.Rule(need: .unlockedDevice, name: "u", source: "s", knownUpFront: true)
    let data = LockPolicy.Rule(need: .protectedData, name: "p", source: "s", knownUpFront: true)
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
}
