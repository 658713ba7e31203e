import AppIntents
import FuelOrderKit

/// A vehicle the user registered in the app, as the assistant offers it: its name, with its plate and fuel.
struct VehicleEntity: AppEntity {
  static let typeDisplayRepresentation: TypeDisplayRepresentation = "Vehicle"
  static let defaultQuery = VehicleQuery()

  /// Its licence plate.
  let id: String
  let name: String
  let fuelType: FuelType

  init(_ vehicle: Vehicle) {
    id = vehicle.id
    name = vehicle.name
    fuelType = vehicle.fuelType
  }

  var displayRepresentation: DisplayRepresentation {
    DisplayRepresentation(title: "\(name)", subtitle: "\(id), \(fuelType.rawValue)")
  }
}

/// The vehicles of the app group: by plate, all of them as suggestions, or those whose name or plate holds what the
/// user said.
struct VehicleQuery: EntityStringQuery {
  func entities(for identifiers: [String]) async throws -> [VehicleEntity] {
    try await vehicles().filter { identifiers.contains($0.id) }
  }

  func suggestedEntities() async throws -> [VehicleEntity] {
    try await vehicles()
  }

  func entities(matching string: String) async throws -> [VehicleEntity] {
    let wanted = string.lowercased()
    return try await vehicles().filter { $0.name.lowercased().contains(wanted) || $0.id.lowercased() == wanted }
  }

  private func vehicles() async throws -> [VehicleEntity] {
    let store = try await FuelStore.granted()
    return try await ListVehiclesUsecase(store: store).execute().mapError(SiriIntentError.logging).get()
      .map(VehicleEntity.init)
  }
}
