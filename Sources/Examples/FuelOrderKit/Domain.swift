// The FuelOrder domain of seed 000: vehicles, addresses, fuel, time slots and orders, as plain values.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Where an order is delivered: the user's saved addresses (the seed's `AddressType`, which the App Intents
/// `Location` enum maps onto).
public enum AddressType: String, Codable, Sendable, CaseIterable {
  case home, work
}

/// The fuel a vehicle takes (the seed's "98, 95, Diesel, or EV").
public enum FuelType: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
  case gas98 = "98"
  case gas95 = "95"
  case diesel
  case electric

  /// The product variant the time-slot service schedules (the seed's `fuelType.variantId`).
  public var variantId: String {
    switch self {
    case .gas98: "fuel-98"
    case .gas95: "fuel-95"
    case .diesel: "fuel-diesel"
    case .electric: "charge-ev"
    }
  }

  /// How a person says it: "98", "95", "diesel", "a charge".
  public var description: String {
    switch self {
    case .gas98: "98"
    case .gas95: "95"
    case .diesel: "diesel"
    case .electric: "a charge"
    }
  }
}

/// A place the user saved: home or work, and its street address ("12 Harbour Road").
public struct SavedLocation: Codable, Sendable, Equatable {
  public var type: AddressType
  public var address: String

  public init(type: AddressType, address: String) {
    self.type = type
    self.address = address
  }

  /// The longest street address kept, in characters.
  public static let maximumAddressLength = 100
}

/// A vehicle the user registered in the app.
public struct Vehicle: Codable, Sendable, Equatable, Identifiable {
  /// Its licence plate, which identifies it: letters, digits and dashes, 2 to 12 of them (`Vehicle.plateProblem`).
  public var id: String
  /// What the user calls it ("the red car").
  public var name: String
  public var fuelType: FuelType

  public init(id: String, name: String, fuelType: FuelType) {
    self.id = id
    self.name = name
    self.fuelType = fuelType
  }

  /// Why `plate` cannot identify a vehicle, or nil when it can.
  public static func plateProblem(_ plate: String) -> String? {
    guard (2...12).contains(plate.count) else { return "a plate has 2 to 12 characters" }
    guard plate.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }) else {
      return "a plate has only letters, digits and dashes"
    }
    return nil
  }
}

/// How much fuel an order asks for. Siri orders are always a full tank (the seed's step 5).
public enum Quantity: Codable, Sendable, Equatable, CustomStringConvertible {
  case fullTank
  case litres(Int)

  public var description: String {
    switch self {
    case .fullTank: "a full tank"
    case .litres(let litres): "\(litres) litres"
    }
  }
}

/// An hour in which the fuel is delivered, its start on the hour or half hour.
public struct TimeSlot: Codable, Sendable, Equatable, CustomStringConvertible {
  public var start: Date
  public var end: Date

  public init(start: Date, end: Date) {
    self.start = start
    self.end = end
  }

  /// "14:30-15:30" (UTC, so that a test reads the same everywhere).
  public var description: String { "\(Self.clock(start))-\(Self.clock(end))" }

  static func clock(_ date: Date) -> String {
    let minutes = Int(date.timeIntervalSince1970 / 60) % (24 * 60)
    let hour = minutes / 60
    let minute = minutes % 60
    return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
  }
}

/// An order's life: created (a draft shown to the user for confirmation), then placed.
public enum OrderStatus: String, Codable, Sendable {
  case created, placed
}

/// A fuel order.
public struct Order: Codable, Sendable, Equatable, Identifiable {
  public var id: String
  public var vehicle: Vehicle
  public var quantity: Quantity
  public var address: AddressType
  /// The street address saved for `address` when the order was created, if one was.
  public var street: String?
  public var timeSlot: TimeSlot
  public var status: OrderStatus
  public var createdAt: Date
  public var placedAt: Date?

  public init(
    id: String, vehicle: Vehicle, quantity: Quantity, address: AddressType, street: String? = nil,
    timeSlot: TimeSlot, status: OrderStatus = .created, createdAt: Date, placedAt: Date? = nil
  ) {
    self.id = id
    self.vehicle = vehicle
    self.quantity = quantity
    self.address = address
    self.street = street
    self.timeSlot = timeSlot
    self.status = status
    self.createdAt = createdAt
    self.placedAt = placedAt
  }

  /// What is delivered: "Full tank of 98".
  public var product: String {
    (quantity == .fullTank ? "Full tank" : "\(quantity)".capitalizedFirst) + " of \(vehicle.fuelType)"
  }

  /// Where: "home", or "home (12 Harbour Road)" when a street address was saved.
  public var place: String { address.rawValue + (street.map { " (\($0))" } ?? "") }

  /// One line: "Full tank of 98 for the red car (AB-123) at home (12 Harbour Road), 14:30-15:30".
  public var summary: String { "\(product) for \(vehicle.name) (\(vehicle.id)) at \(place), \(timeSlot)" }
}

extension String {
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }

  /// Without the white space at either end.
  var trimmedWhitespace: String {
    String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }
}

/// Why a use case failed, in words a user can hear (the seed's `BusinessError.errorMessage`).
public struct BusinessError: Error, Sendable, Equatable, CustomStringConvertible {
  public var errorMessage: String

  public init(_ errorMessage: String) { self.errorMessage = errorMessage }

  public var description: String { errorMessage }

  /// The seed's reason when no vehicle is selected.
  public static let noSelectedVehicle = BusinessError("Couldn't find your selected vehicle")
  static func noSlot(_ variant: String) -> BusinessError {
    BusinessError("There is no delivery slot for \(variant) in the next 24 hours")
  }
}
