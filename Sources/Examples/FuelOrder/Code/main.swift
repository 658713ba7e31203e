import ExtensionSDK
import FuelOrderKit

// The FuelOrder app (seed 000): the vehicles and saved places its App Intents extension orders fuel with, and the
// orders placed. Launched by the assistant (`assistant open FuelOrder -- ARGS`), which gives it its container and the
// FuelOrder app group; the extension reads and writes the same document (FuelOrderKit's `FuelStore`). Each command
// is one use case of FuelOrderKit, the same the extension's perform() composes.
#if canImport(Glibc)
  import Glibc
#endif

let usage = """
  usage: fuelorder vehicles
         fuelorder add-vehicle PLATE FUEL NAME...   (FUEL: 98, 95, diesel or electric)
         fuelorder select-vehicle PLATE
         fuelorder remove-vehicle PLATE
         fuelorder locations
         fuelorder set-location home|work ADDRESS...
         fuelorder orders
  """

func fail(_ message: String, _ code: Int32) -> Never {
  let line = Array("fuelorder: \(message)\n".utf8)
  _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  exit(code)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail("no command\n\(usage)", 64) }
if command == "--help" || command == "-h" || command == "help" {
  print(usage)
  exit(0)
}

/// The command's arguments after its name: exactly `count` of them, or at least `count` when `rest` (the last one
/// then takes every word left, joined by spaces).
func operands(_ count: Int, rest: Bool = false) -> [String] {
  let given = Array(arguments.dropFirst())
  guard rest ? given.count >= count : given.count == count else {
    fail("\(command) takes \(rest ? "at least " : "")\(count) argument\(count == 1 ? "" : "s")\n\(usage)", 64)
  }
  guard rest else { return given }
  return given.prefix(count - 1) + [given.dropFirst(count - 1).joined(separator: " ")]
}

let store: FuelStore
do {
  store = FuelStore(container: try AppContext.current().appGroup(FuelStore.appGroupIdentifier))
} catch let error as AppContext.Missing {
  fail("\(error)", 78)
} catch {
  fail("\(error)", 77)
}

/// Runs the command: what it prints, or the business error it met.
func run(_ command: String) async -> Result<[String], BusinessError> {
  switch command {
  case "vehicles":
    _ = operands(0)
    // No vehicle selected is no mark; a store that cannot be read fails the listing below.
    var selected: Vehicle? = nil
    if case .success(let vehicle) = await GetSelectedVehicleUsecase(store: store).execute() { selected = vehicle }
    return await ListVehiclesUsecase(store: store).execute().map { vehicles in
      vehicles.isEmpty
        ? ["No vehicles yet: add one with `fuelorder add-vehicle PLATE FUEL NAME`."]
        : vehicles.map { "\($0.id): \($0.name), \($0.fuelType.rawValue)\($0 == selected ? " (selected)" : "")" }
    }
  case "add-vehicle":
    let words = operands(3, rest: true)
    guard let fuel = FuelType(rawValue: words[1].lowercased()) else {
      fail("unknown fuel \"\(words[1])\": say 98, 95, diesel or electric", 64)
    }
    return await AddVehicleUsecase(vehicle: Vehicle(id: words[0], name: words[2], fuelType: fuel), store: store)
      .execute().map { ["Added \($0.name) (\($0.id), \($0.fuelType.rawValue))."] }
  case "select-vehicle":
    return await SelectVehicleUsecase(plate: operands(1)[0], store: store).execute()
      .map { ["Selected \($0.name) (\($0.id)) for the next order."] }
  case "remove-vehicle":
    let plate = operands(1)[0]
    return await RemoveVehicleUsecase(plate: plate, store: store).execute().map { ["Removed \(plate)."] }
  case "locations":
    _ = operands(0)
    return await SavedLocationsUsecase(store: store).execute().map { locations in
      locations.isEmpty
        ? ["No saved places yet: save one with `fuelorder set-location home|work ADDRESS`."]
        : locations.map { "\($0.type.rawValue): \($0.address)" }
    }
  case "set-location":
    let words = operands(2, rest: true)
    guard let type = AddressType(rawValue: words[0].lowercased()) else {
      fail("unknown place \"\(words[0])\": say home or work", 64)
    }
    return await SaveLocationUsecase(location: SavedLocation(type: type, address: words[1]), store: store).execute()
      .map { ["Saved \($0.type.rawValue): \($0.address)."] }
  case "orders":
    _ = operands(0)
    return await ListOrdersUsecase(store: store).execute().map { orders in
      orders.isEmpty ? ["No orders yet."] : orders.map { "\($0.status.rawValue): \($0.summary)" }
    }
  default:
    fail("unknown command \"\(command)\"\n\(usage)", 64)
  }
}

// A group's first use (the app opened before the extension ever ran) gets the sample vehicle and places.
if case .failure(let error) = await SeedSampleDataUsecase(store: store).execute() { fail("\(error)", 1) }
switch await run(command) {
case .success(let lines): for line in lines { print(line) }
case .failure(let error): fail("\(error)", 1)
}
