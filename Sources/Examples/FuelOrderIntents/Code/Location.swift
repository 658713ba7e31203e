import AppIntents
import FuelOrderKit

/// Where an order is delivered, as the assistant offers it (the seed's `Location`), with the other words people say
/// for each place.
enum Location: String, CaseIterable, AppEnum {
  case home = "Home"
  case work = "Work"

  static let typeDisplayRepresentation = TypeDisplayRepresentation(name: "Order Location")
  static let caseDisplayRepresentations: [Location: DisplayRepresentation] = [
    .home: DisplayRepresentation(title: "Home", synonyms: ["house", "my place"]),
    .work: DisplayRepresentation(title: "Work", synonyms: ["office", "my office"]),
  ]
}

extension Location {
  /// The domain's address (the seed's `mapToDomainModel()`): FuelOrderKit never sees a type of App Intents.
  func mapToDomainModel() -> AddressType {
    switch self {
    case .home: .home
    case .work: .work
    }
  }

  init(_ address: AddressType) {
    switch address {
    case .home: self = .home
    case .work: self = .work
    }
  }
}
