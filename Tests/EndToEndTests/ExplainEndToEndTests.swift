import Foundation
import TestSupport
import Testing

/// `assistant explain`: the rule that applies to an intent and what it asks, now and when locked.
@Suite(.serialized)
struct ExplainEndToEndTests {
  struct Report: Decodable {
    struct Rule: Decodable {
      var need: String
      var name: String
      var source: String
    }
    var rules: [Rule]
    var now: String
    var whenLocked: String
  }

  @Test func aRestrictedIntentNamesItsRuleAndWhatItNeeds() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    let info = app.appendingPathComponent("PlugIns/RoomsIntents.appex/Info.plist")
    try await offThePool {
      var plist =
        try PropertyListSerialization.propertyList(from: Data(contentsOf: info), format: nil) as! [String: Any]
      var ext = plist["NSExtension"] as! [String: Any]
      var attributes = ext["NSExtensionAttributes"] as! [String: Any]
      attributes["IntentsRestrictedWhileLocked"] = ["BookRoomIntent"]
      ext["NSExtensionAttributes"] = attributes
      plist["NSExtension"] = ext
      try writePlist(plist, to: info)
    }
    #expect(try await host.assistant(["install", app.path]).code == 0)
    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)

    func explain() async throws -> Report {
      let result = try await host.assistant(["explain", "Rooms", "BookRoom", "--json"])
      #expect(result.code == 0, "\(result)")
      return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
    }
    let unlocked = try await explain()
    #expect(unlocked.rules.map(\.name) == ["extension-restricted-while-locked", "continue-in-app"])
    #expect(
      unlocked.rules.first?.source
        == "BookRoomIntent is listed in IntentsRestrictedWhileLocked of RoomsIntents.appex/Info.plist")
    #expect(unlocked.now == "allowed" && unlocked.whenLocked == "unlockWithPasscode")
    #expect(try await host.assistant(["lock"]).code == 0)
    #expect(try await explain().now == "unlockWithPasscode")

    let text = try await host.assistant(["explain", "Rooms", "BookRoom"])
    #expect(text.stdout.contains("needs an unlocked device: BookRoomIntent is listed in IntentsRestrictedWhileLocked"))
  }
}
