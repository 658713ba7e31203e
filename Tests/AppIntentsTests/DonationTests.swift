import ExtensionProtocol
import TestSupport
import Testing

@testable import AppIntents

/// `IntentDonationManager` and `AppIntent.donate()`: an intent is donated as its identifier with the values its
/// parameters have, through the request being answered; with no way to the host, it is refused, never dropped
/// silently. (The host's side, over real pipes: FuelOrderVoiceTests and AppIntentsPythonTests.)
struct IntentDonationTests {
  @Test func anIntentIsDonatedAsItsIdentifierAndItsValues() async throws {
    let intent = FillIntent()
    try await intent.$car.setIntentValue(
      .object(ObjectValue(identifier: "AB-1", displayString: "the red car")))
    let instance = IntentDonationManager.instance(of: intent)
    #expect(instance.identifier == "FillIntent")
    // A parameter without a value is absent.
    #expect(Array(instance.parameters.keys) == ["car"])
    #expect(instance.parameters["car"] == .object(ObjectValue(identifier: "AB-1", displayString: "the red car")))
  }

  @Test func withNoWayToTheHostADonationIsRefused() async throws {
    // In a request whose context has no host connection.
    let context = ExtensionContext(
      bundleIdentifier: "com.example.fuel.FuelIntents", extensionPoint: "com.apple.appintents-extension",
      bundlePath: "/apps/Fuel.app/Extensions/FuelIntents.appex", containerPath: "/containers/fuel", locale: "en_US",
      appGroups: [])
    let inRequest = await #expect(throws: ResponseError.self) {
      try await ExtensionContext.$answering.withValue(context) { _ = try await FillIntent().donate() }
    }
    #expect(inRequest?.code == .notAllowedNow)
    // Outside any request, in a process the host did not launch.
    let outside = await #expect(throws: ResponseError.self) {
      try await IntentDonationManager.shared.deleteDonations(matching: .intentType(FillIntent.self))
    }
    #expect(outside?.code == .notAllowedNow)
    #expect(IntentDonationMatchingPredicate.intentType(FillIntent.self).selection == .intentType("FillIntent"))
    #expect(
      IntentDonationMatchingPredicate.donationIdentifier(IntentDonationIdentifier(rawValue: "d3")).selection
        == .identifiers(["d3"]))
  }
}
