import AppGroupStore
import Foundation
import FuelOrderKit
import TestSupport
import Testing

/// Seed 000's advice, taken: each use case tested on its own, without Siri, against a real app-group document in a
/// temporary folder and a fixed clock.
@Suite(.tags(.unit))
struct FuelOrderUsecaseTests {
  /// 2026-03-01 14:10 UTC.
  static let now = Date(timeIntervalSince1970: 1_772_374_200)
  let directory: TemporaryDirectory
  let store: FuelStore

  init() throws {
    directory = try TemporaryDirectory("intenthost-fuelorder")
    store = FuelStore(
      container: try AppGroupContainer(identifier: FuelStore.appGroupIdentifier, path: directory.file("group").path),
      now: { Self.now })
  }

  func addRedCar() async throws {
    _ = try await AddVehicleUsecase(vehicle: Vehicle(id: "AB-123", name: "the red car", fuelType: .gas98), store: store)
      .execute().get()
  }

  @Test func theFirstVehicleAddedIsSelectedAndGivesTheFuelType() async throws {
    defer { directory.remove() }
    try await addRedCar()
    _ = try await AddVehicleUsecase(vehicle: Vehicle(id: "EV-1", name: "the van", fuelType: .electric), store: store)
      .execute().get()
    #expect(try await GetFuelTypeForVehicleUsecase(store: store).execute().get() == .gas98)
    _ = try await SelectVehicleUsecase(plate: "ev-1", store: store).execute().get()
    #expect(try await GetFuelTypeForVehicleUsecase(store: store).execute().get() == .electric)
  }

  /// The seed's error, heard by the user as its reason.
  @Test func withoutASelectedVehicleTheSeedsErrorIsReturned() async throws {
    defer { directory.remove() }
    let fuel = await GetFuelTypeForVehicleUsecase(store: store).execute()
    #expect(fuel == .failure(BusinessError("Couldn't find your selected vehicle")))
    try await addRedCar()
    _ = try await RemoveVehicleUsecase(plate: "AB-123", store: store).execute().get()
    let slot = try await NearestTimeSlotUseCase(variantId: "fuel-98", store: store).execute().get()
    #expect(
      await CreateOrderUsecase(timeSlot: slot, store: store).execute().map(\.id)
        == .failure(BusinessError("Couldn't find your selected vehicle")))
  }

  @Test func badPlatesAndNamesAreRefused() async throws {
    defer { directory.remove() }
    for (plate, name) in [("A", "car"), ("AB 123", "car"), ("AB-123", ""), ("AB-123", "two\nlines")] {
      let result = await AddVehicleUsecase(vehicle: Vehicle(id: plate, name: name, fuelType: .diesel), store: store)
        .execute()
      #expect(throws: BusinessError.self) { try result.get() }
    }
    #expect(try await store.read().vehicles.isEmpty)
  }

  /// 14:10 → the first half hour at least 30 minutes on is 14:40 → 15:00; a slot a placed order at the same address
  /// took is skipped, one at the other address is not.
  @Test func theNearestSlotSkipsTakenOnes() async throws {
    defer { directory.remove() }
    try await addRedCar()
    let first = try await NearestTimeSlotUseCase(variantId: "fuel-98", store: store).execute().get()
    #expect(first.description == "15:00-16:00")
    let order = try await CreateOrderUsecase(timeSlot: first, store: store).execute().get()
    _ = try await PlaceOrderUsecase(orderID: order.id, store: store).execute().get()
    #expect(
      try await NearestTimeSlotUseCase(variantId: "fuel-98", store: store).execute().get().description == "15:30-16:30")
    _ = try await UpdateUserAddressUsecase(newAddress: .work, store: store).execute().get()
    #expect(try await NearestTimeSlotUseCase(variantId: "fuel-98", store: store).execute().get() == first)
  }

  /// The seed's order of steps: the order is created before the confirmation and placed after it. A second perform
  /// (needsValue, or a declined confirmation then a new request) replaces the draft instead of piling up drafts, and a
  /// draft is never placed twice.
  @Test func anOrderIsCreatedThenPlacedOnce() async throws {
    defer { directory.remove() }
    try await addRedCar()
    _ = try await UpdateUserAddressUsecase(newAddress: .work, store: store).execute().get()
    let slot = try await NearestTimeSlotUseCase(variantId: "fuel-98", store: store).execute().get()
    let draft = try await CreateOrderUsecase(timeSlot: slot, store: store).execute().get()
    let again = try await CreateOrderUsecase(timeSlot: slot, store: store).execute().get()
    var orders = try await store.read().orders
    #expect(orders.map(\.id) == [again.id] && orders[0].status == .created)
    #expect(again.summary == "Full tank of 98 for the red car (AB-123) at work, 15:00-16:00")
    let replaced = await PlaceOrderUsecase(orderID: draft.id, store: store).execute()
    #expect(replaced.map(\.id) == .failure(BusinessError("There is no order \(draft.id)")))
    let placed = try await PlaceOrderUsecase(orderID: again.id, store: store).execute().get()
    #expect(placed.status == .placed && placed.placedAt == Self.now)
    let twice = await PlaceOrderUsecase(orderID: again.id, store: store).execute()
    #expect(twice.map(\.id) == .failure(BusinessError("That order was already placed")))
    orders = try await store.read().orders
    #expect(orders.count == 1 && orders[0].status == .placed)
  }

  /// Saved places are offered home first; saving one again replaces it; an order records the street of its place.
  @Test func savedLocationsAreOfferedAndRecordedInTheOrder() async throws {
    defer { directory.remove() }
    #expect(try await SavedLocationsUsecase(store: store).execute().get() == [])
    _ = try await SaveLocationUsecase(location: SavedLocation(type: .work, address: " 1 Market Square "), store: store)
      .execute().get()
    _ = try await SaveLocationUsecase(location: SavedLocation(type: .home, address: "3 Old Lane"), store: store)
      .execute().get()
    _ = try await SaveLocationUsecase(location: SavedLocation(type: .home, address: "12 Harbour Road"), store: store)
      .execute().get()
    #expect(
      try await SavedLocationsUsecase(store: store).execute().get() == [
        SavedLocation(type: .home, address: "12 Harbour Road"), SavedLocation(type: .work, address: "1 Market Square"),
      ])
    try await addRedCar()
    _ = try await UpdateUserAddressUsecase(newAddress: .work, store: store).execute().get()
    let slot = try await NearestTimeSlotUseCase(variantId: "fuel-98", store: store).execute().get()
    let order = try await CreateOrderUsecase(timeSlot: slot, store: store).execute().get()
    #expect(order.summary == "Full tank of 98 for the red car (AB-123) at work (1 Market Square), 15:00-16:00")
    #expect(try await ListOrdersUsecase(store: store).execute().get() == [order])
  }

  @Test func badAddressesAreRefused() async throws {
    defer { directory.remove() }
    for address in ["", "   ", "two\nlines", String(repeating: "x", count: 101)] {
      let result = await SaveLocationUsecase(location: SavedLocation(type: .home, address: address), store: store)
        .execute()
      #expect(result == .failure(BusinessError("An address has 1 to 100 characters on one line")))
    }
    #expect(try await store.read().locations.isEmpty)
  }

  @Test func theSelectedVehicleIsTheFirstStillRegistered() async throws {
    defer { directory.remove() }
    #expect(await GetSelectedVehicleUsecase(store: store).execute() == .failure(.noSelectedVehicle))
    try await addRedCar()
    let van = Vehicle(id: "EV-1", name: "the van", fuelType: .electric)
    _ = try await AddVehicleUsecase(vehicle: van, store: store).execute().get()
    #expect(try await ListVehiclesUsecase(store: store).execute().get().map(\.id) == ["AB-123", "EV-1"])
    #expect(try await GetSelectedVehicleUsecase(store: store).execute().get().id == "AB-123")
    _ = try await SelectVehicleUsecase(plate: "EV-1", store: store).execute().get()
    #expect(try await GetSelectedVehicleUsecase(store: store).execute().get() == van)
  }

  /// A new group gets the sample once; a group in use, even one emptied by its user, is never seeded again.
  @Test func theSampleIsWrittenOnFirstUseOnly() async throws {
    defer { directory.remove() }
    #expect(try await SeedSampleDataUsecase(store: store).execute().get())
    #expect(try await store.read() == FuelDocument.sample)
    #expect(try await GetSelectedVehicleUsecase(store: store).execute().get().name == "the red car")
    #expect(try await SavedLocationsUsecase(store: store).execute().get().map(\.type) == [.home, .work])
    _ = try await RemoveVehicleUsecase(plate: "AB-123", store: store).execute().get()
    try await store.update { $0.locations = [] }
    #expect(try await SeedSampleDataUsecase(store: store).execute().get() == false)
    #expect(try await store.read().vehicles.isEmpty)
  }

  /// The control: a group that already has a document (the app added a vehicle first) is not seeded.
  @Test func aGroupInUseIsNotSeeded() async throws {
    defer { directory.remove() }
    let van = Vehicle(id: "EV-1", name: "the van", fuelType: .electric)
    _ = try await AddVehicleUsecase(vehicle: van, store: store).execute().get()
    #expect(try await SeedSampleDataUsecase(store: store).execute().get() == false)
    #expect(try await store.read().vehicles == [van])
  }
}
