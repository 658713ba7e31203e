// The seed's commands: each use case is one piece of business logic behind one `execute()`, which the app's
// commands and the App Intents extension's `perform()` compose.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A command of seed 000 ("Patterns: Command + Siri"): everything it needs is given to its initializer, and
/// `execute()` runs it.
///
/// ```swift
/// let fuel = try await GetFuelTypeForVehicleUsecase(store: store).execute().get()
/// ```
public protocol AsyncUsecase: Sendable {
  associatedtype Success: Sendable
  func execute() async -> Result<Success, BusinessError>
}

extension AsyncUsecase {
  /// Runs `body`, turning a store's failure into a `BusinessError` the user can hear.
  func running(_ body: () async throws -> Success) async -> Result<Success, BusinessError> {
    do {
      return .success(try await body())
    } catch let error as BusinessError {
      return .failure(error)
    } catch {
      return .failure(BusinessError("FuelOrder's data cannot be used: \(error)"))
    }
  }
}

/// Sets where the next order is delivered (the seed's step 1).
public struct UpdateUserAddressUsecase: AsyncUsecase {
  public let newAddress: AddressType
  public let store: FuelStore

  public init(newAddress: AddressType, store: FuelStore) {
    self.newAddress = newAddress
    self.store = store
  }

  public func execute() async -> Result<Void, BusinessError> {
    await running { try await store.update { $0.address = newAddress } }
  }
}

/// The fuel type of the first selected vehicle (the seed's step 2).
public struct GetFuelTypeForVehicleUsecase: AsyncUsecase {
  public let store: FuelStore

  public init(store: FuelStore) { self.store = store }

  public func execute() async -> Result<FuelType, BusinessError> {
    await GetSelectedVehicleUsecase(store: store).execute().map(\.fuelType)
  }
}

/// The first selected vehicle (the seed's step 3, `session.selectedVehicles.first`).
public struct GetSelectedVehicleUsecase: AsyncUsecase {
  public let store: FuelStore

  public init(store: FuelStore) { self.store = store }

  public func execute() async -> Result<Vehicle, BusinessError> {
    await running {
      guard let vehicle = try await store.read().selectedVehicles.first else { throw BusinessError.noSelectedVehicle }
      return vehicle
    }
  }
}

/// The nearest delivery slot for a fuel variant (the seed's step 6): the first hour starting on a half hour at least
/// 30 minutes from now that no placed order at the same address has taken, within the next 24 hours.
public struct NearestTimeSlotUseCase: AsyncUsecase {
  public let variantId: String
  public let store: FuelStore

  public init(variantId: String, store: FuelStore) {
    self.variantId = variantId
    self.store = store
  }

  public func execute() async -> Result<TimeSlot, BusinessError> {
    await running {
      let document = try await store.read()
      let address = document.address ?? .home
      let taken = Set(
        document.orders.filter { $0.status == .placed && $0.address == address }.map(\.timeSlot.start))
      let halfHour: TimeInterval = 30 * 60
      let earliest = store.now().addingTimeInterval(halfHour).timeIntervalSince1970
      var start = Date(timeIntervalSince1970: (earliest / halfHour).rounded(.up) * halfHour)
      let last = store.now().addingTimeInterval(24 * 60 * 60)
      while start <= last {
        if !taken.contains(start) { return TimeSlot(start: start, end: start.addingTimeInterval(2 * halfHour)) }
        start = start.addingTimeInterval(halfHour)
      }
      throw BusinessError.noSlot(variantId)
    }
  }
}

/// Creates the order for the first selected vehicle, a full tank at the chosen address (with its saved street
/// address) in `timeSlot` (the seed's steps 5 and 7): a draft to be confirmed, which replaces an earlier unplaced draft for the same vehicle (a
/// perform that runs again, or a confirmation declined, leaves no pile of drafts).
public struct CreateOrderUsecase: AsyncUsecase {
  public let timeSlot: TimeSlot
  public let store: FuelStore

  public init(timeSlot: TimeSlot, store: FuelStore) {
    self.timeSlot = timeSlot
    self.store = store
  }

  public func execute() async -> Result<Order, BusinessError> {
    let now = store.now()
    let id = UUID().uuidString
    return await running {
      try await store.update { document in
        guard let vehicle = document.selectedVehicles.first else { throw BusinessError.noSelectedVehicle }
        let address = document.address ?? .home
        let order = Order(
          id: id, vehicle: vehicle, quantity: .fullTank, address: address, street: document.street(of: address),
          timeSlot: timeSlot, createdAt: now)
        document.orders.removeAll { $0.status == .created && $0.vehicle.id == vehicle.id }
        document.orders.append(order)
        return order
      }
    }
  }
}

/// Places a created order (the seed's step 9), once the user has confirmed it.
public struct PlaceOrderUsecase: AsyncUsecase {
  public let orderID: String
  public let store: FuelStore

  public init(orderID: String, store: FuelStore) {
    self.orderID = orderID
    self.store = store
  }

  public func execute() async -> Result<Order, BusinessError> {
    let now = store.now()
    return await running {
      try await store.update { document in
        guard let index = document.orders.firstIndex(where: { $0.id == orderID }) else {
          throw BusinessError("There is no order \(orderID)")
        }
        guard document.orders[index].status == .created else {
          throw BusinessError("That order was already placed")
        }
        document.orders[index].status = .placed
        document.orders[index].placedAt = now
        return document.orders[index]
      }
    }
  }
}

/// The places offered when an order's location is asked for (the seed's `SiriIntentLocationOptionsProvider`), home
/// before work.
public struct SavedLocationsUsecase: AsyncUsecase {
  public let store: FuelStore

  public init(store: FuelStore) { self.store = store }

  public func execute() async -> Result<[SavedLocation], BusinessError> {
    await running {
      let locations = try await store.read().locations
      return AddressType.allCases.compactMap { type in locations.first { $0.type == type } }
    }
  }
}

// MARK: - The app's own commands

/// Registers a vehicle, or changes the one with the same plate; the first one registered is selected.
public struct AddVehicleUsecase: AsyncUsecase {
  public let vehicle: Vehicle
  public let store: FuelStore

  public init(vehicle: Vehicle, store: FuelStore) {
    self.vehicle = vehicle
    self.store = store
  }

  public func execute() async -> Result<Vehicle, BusinessError> {
    await running {
      if let problem = Vehicle.plateProblem(vehicle.id) {
        throw BusinessError("Invalid plate \(vehicle.id): \(problem)")
      }
      let name = vehicle.name.trimmedWhitespace
      guard (1...60).contains(name.count), !name.contains(where: \.isNewline) else {
        throw BusinessError("A vehicle's name has 1 to 60 characters on one line")
      }
      var added = vehicle
      added.name = name
      return try await store.update { [added] document in
        if let index = document.vehicles.firstIndex(where: { $0.id == added.id }) {
          document.vehicles[index] = added
        } else {
          document.vehicles.append(added)
        }
        if document.selectedVehicleIDs.isEmpty { document.selectedVehicleIDs = [added.id] }
        return added
      }
    }
  }
}

/// Selects the vehicle with this plate for the next order (the others are unselected).
public struct SelectVehicleUsecase: AsyncUsecase {
  public let plate: String
  public let store: FuelStore

  public init(plate: String, store: FuelStore) {
    self.plate = plate
    self.store = store
  }

  public func execute() async -> Result<Vehicle, BusinessError> {
    await running {
      try await store.update { document in
        guard let vehicle = document.vehicles.first(where: { $0.id.lowercased() == plate.lowercased() }) else {
          throw BusinessError("There is no vehicle \(plate); add it first")
        }
        document.selectedVehicleIDs = [vehicle.id]
        return vehicle
      }
    }
  }
}

/// Removes the vehicle with this plate (and its selection); its orders stay.
public struct RemoveVehicleUsecase: AsyncUsecase {
  public let plate: String
  public let store: FuelStore

  public init(plate: String, store: FuelStore) {
    self.plate = plate
    self.store = store
  }

  public func execute() async -> Result<Void, BusinessError> {
    await running {
      try await store.update { document in
        guard document.vehicles.contains(where: { $0.id.lowercased() == plate.lowercased() }) else {
          throw BusinessError("There is no vehicle \(plate)")
        }
        document.vehicles.removeAll { $0.id.lowercased() == plate.lowercased() }
        document.selectedVehicleIDs.removeAll { $0.lowercased() == plate.lowercased() }
      }
    }
  }
}

/// The registered vehicles, in the order they were added.
public struct ListVehiclesUsecase: AsyncUsecase {
  public let store: FuelStore

  public init(store: FuelStore) { self.store = store }

  public func execute() async -> Result<[Vehicle], BusinessError> {
    await running { try await store.read().vehicles }
  }
}

/// Saves the street address of home or work, replacing the one saved before.
public struct SaveLocationUsecase: AsyncUsecase {
  public let location: SavedLocation
  public let store: FuelStore

  public init(location: SavedLocation, store: FuelStore) {
    self.location = location
    self.store = store
  }

  public func execute() async -> Result<SavedLocation, BusinessError> {
    await running {
      var saved = location
      saved.address = location.address.trimmedWhitespace
      guard (1...SavedLocation.maximumAddressLength).contains(saved.address.count),
        !saved.address.contains(where: \.isNewline)
      else {
        throw BusinessError("An address has 1 to \(SavedLocation.maximumAddressLength) characters on one line")
      }
      return try await store.update { [saved] document in
        document.locations.removeAll { $0.type == saved.type }
        document.locations.append(saved)
        return saved
      }
    }
  }
}

/// The orders, oldest first: the drafts waiting for a confirmation and those placed.
public struct ListOrdersUsecase: AsyncUsecase {
  public let store: FuelStore

  public init(store: FuelStore) { self.store = store }

  public func execute() async -> Result<[Order], BusinessError> {
    await running { try await store.read().orders }
  }
}

/// Gives a group with no FuelOrder document yet `FuelDocument.sample` (a vehicle, selected, and both places), so
/// that the extension can take an order before the app was ever opened; a group in use is left as it is. The app and
/// the extension run it before their first command.
public struct SeedSampleDataUsecase: AsyncUsecase {
  public let store: FuelStore

  public init(store: FuelStore) { self.store = store }

  /// - Returns: whether it wrote the sample.
  public func execute() async -> Result<Bool, BusinessError> {
    await running { try await store.create(.sample) }
  }
}
