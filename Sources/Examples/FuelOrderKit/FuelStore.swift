// The FuelOrder data the app and its App Intents extension share: one document in their app group.
import AppGroupStore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `fuel.json` in the FuelOrder app group: the user's vehicles and choices (the seed's `Session`) and the orders.
public struct FuelDocument: DocumentContent, Equatable {
  public static let schemaVersion = 1
  public var vehicles: [Vehicle] = []
  /// The vehicles the user selected for the next order, by plate, in the order selected.
  public var selectedVehicleIDs: [String] = []
  /// Where the next order is delivered; nil until an address is chosen.
  public var address: AddressType? = nil
  /// The places the user saved (at most one of each type), offered when an order's location is asked for.
  public var locations: [SavedLocation] = []
  public var orders: [Order] = []

  public init() {}

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    vehicles = try container.decodeIfPresent([Vehicle].self, forKey: .vehicles) ?? []
    selectedVehicleIDs = try container.decodeIfPresent([String].self, forKey: .selectedVehicleIDs) ?? []
    address = try container.decodeIfPresent(AddressType.self, forKey: .address)
    locations = try container.decodeIfPresent([SavedLocation].self, forKey: .locations) ?? []
    orders = try container.decodeIfPresent([Order].self, forKey: .orders) ?? []
  }

  /// The selected vehicles that are still registered, in the order selected.
  public var selectedVehicles: [Vehicle] {
    selectedVehicleIDs.compactMap { id in vehicles.first { $0.id == id } }
  }

  /// The street address saved for `type`, if any.
  public func street(of type: AddressType) -> String? {
    locations.first { $0.type == type }?.address
  }

  /// What a FuelOrder group holds on its first use (`SeedSampleDataUsecase`), so that "Fuel my car with FuelOrder"
  /// works before the app was ever opened: the red car (AB-123, 98), selected, and both places saved.
  public static let sample: FuelDocument = {
    var document = FuelDocument()
    document.vehicles = [Vehicle(id: "AB-123", name: "the red car", fuelType: .gas98)]
    document.selectedVehicleIDs = ["AB-123"]
    document.locations = [
      SavedLocation(type: .home, address: "12 Harbour Road"), SavedLocation(type: .work, address: "1 Market Square"),
    ]
    return document
  }()
}

/// The FuelOrder data of one app group, read and changed under the group's file lock (AppGroupStore), so that the
/// app and the extension never lose each other's changes. Every use case takes one (dependency injection: a test
/// gives it a temporary folder).
///
/// ```swift
/// let store = FuelStore(container: try AppGroupContainer(identifier: FuelStore.appGroupIdentifier, path: path))
/// let vehicles = try await store.read().vehicles
/// ```
public struct FuelStore: Sendable {
  /// The app group the app and its App Intents extension are entitled to.
  public static let appGroupIdentifier = "group.com.example.fuelorder"

  private let document: Document<FuelDocument>
  /// What "now" is: the wall clock, or a fixed time in a test.
  public let now: @Sendable () -> Date

  public init(container: AppGroupContainer, now: @escaping @Sendable () -> Date = { Date() }) {
    document = container.document("fuel.json")
    self.now = now
  }

  /// The document as it is.
  /// - Throws: `StoreError` when it cannot be read.
  public func read() async throws -> FuelDocument {
    try await document.read()
  }

  /// Writes `content` as the document when there is none yet; leaves a document that exists as it is (even one
  /// another process wrote between the check and the write).
  /// - Returns: whether it wrote.
  /// - Throws: `StoreError` when the document cannot be read or written.
  public func create(_ content: FuelDocument) async throws -> Bool {
    guard try await document.snapshot().sequence == 0 else { return false }
    return try await document.update { document in
      guard document == FuelDocument() else { return false }
      document = content
      return true
    }
  }

  /// Changes the document under its lock; what `body` throws leaves it unchanged.
  @discardableResult
  public func update<T: Sendable>(_ body: @Sendable @escaping (inout FuelDocument) throws -> T) async throws -> T {
    try await document.update(body)
  }
}
