import AppGroupStore
import ExtensionProtocol
import IntentHostTesting
import TestSupport
import Testing

/// The FuelOrder example (App Intents, seed 000) through the test harness: the location is a choice, the order's
/// summary is drawn by the App Intents extension, and the confirmation places the order, or declines it.
@Suite(.serialized, .tags(.process))
struct FuelOrderFlowTests {
  /// The orders in the FuelOrder group's `fuel.json`, each its `status`.
  static func orderStatuses(_ host: TestHost) async throws -> [String] {
    let document = try await host.appGroup("group.com.example.fuelorder").document("fuel.json")
    guard case .array(let orders)? = document["orders"] else { return [] }
    return orders.map { order in
      guard case .object(let fields) = order, case .string(let status)? = fields["status"] else { return "?" }
      return status
    }
  }

  @Test func theLocationIsChosenAndTheOrderConfirmed() async throws {
    try await withTestHost { host in
      try await host.installExample("FuelOrder")
      let result = try await host.conversation("Fuel my car with FuelOrder") { siri in
        try await siri.expect("Choose 1-2:", kind: .choice)
        try await siri.answer("2")
        try await siri.expect("Order? (yes/no)", kind: .yesNo)
        try await siri.confirm()
        return try await siri.result()
      }
      #expect(result.status == .success, "\(result.transcript)")
      #expect(result.app == "FuelOrder")
      #expect(result.intent == "OrderFuelIntent")
      #expect(result.explanations.prefix(3) == ["Where should the order be?", "  1. Home", "  2. Work"])
      #expect(result.views.first?.extensionName == "FuelOrderIntents")
      #expect(result.views.first?.lines.contains("Location: Work, 1 Market Square") == true, "\(result.views)")
      #expect(result.dialog.last == "Awesome! Your fuel order has been placed.")
      #expect(try await Self.orderStatuses(host) == ["placed"])
    }
  }

  @Test func aDeclinedOrderIsNotPlaced() async throws {
    try await withTestHost { host in
      try await host.installExample("FuelOrder")
      let declined = try await host.say("Fuel my car at home with FuelOrder", answers: ["no"])
      #expect(declined.status == .failureResponse, "\(declined.transcript)")
      #expect(declined.questions == ["Order? (yes/no)"])
      #expect(declined.dialog.last == "OK, I won't.")
      #expect(try await Self.orderStatuses(host).allSatisfy { $0 != "placed" })
    }
  }
}
