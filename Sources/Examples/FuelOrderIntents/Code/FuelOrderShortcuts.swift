import AppIntents

/// The phrases that run the intents with no setup. The seed's own ("Fuel my car", "Fuel my car at \(.$location)")
/// do not say the app's name, which Apple requires once in every phrase, and `assistant validate` refuses them
/// (Tests/TestSupport/AppIntentsFixtures.swift keeps them, for the test that shows it).
struct FuelOrderShortcuts: AppShortcutsProvider {
  static var appShortcuts: [AppShortcut] {
    AppShortcut(
      intent: OrderFuelIntent(),
      phrases: [
        "Fuel my car with \(.applicationName)", "Fuel my car at \(\.$location) with \(.applicationName)",
        "Order fuel in \(.applicationName)",
      ],
      shortTitle: "Order Fuel", systemImageName: "fuelpump")
    AppShortcut(
      intent: SelectVehicleIntent(),
      phrases: ["Select a vehicle in \(.applicationName)", "Select \(\.$vehicle) in \(.applicationName)"],
      shortTitle: "Select Vehicle", systemImageName: "car")
  }
}
