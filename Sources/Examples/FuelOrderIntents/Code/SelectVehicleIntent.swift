import AppIntents
import FuelOrderKit

/// Selects the vehicle the next fuel orders are for.
struct SelectVehicleIntent: AppIntent {
  static let title: LocalizedStringResource = "Select Vehicle"
  static let description = IntentDescription(
    "Chooses the vehicle your next fuel orders are for", categoryName: "Fuel Ordering",
    searchKeywords: ["vehicle", "car"])

  @Parameter(title: "Vehicle", requestValueDialog: "Which vehicle?")
  var vehicle: VehicleEntity

  func perform() async throws -> some IntentResult & ProvidesDialog {
    let store = try await FuelStore.granted()
    let selected = try await SelectVehicleUsecase(plate: vehicle.id, store: store)
      .execute()
      .mapError(SiriIntentError.logging)
      .get()
    return .result(dialog: "Your next fuel orders are for \(selected.name).")
  }
}
