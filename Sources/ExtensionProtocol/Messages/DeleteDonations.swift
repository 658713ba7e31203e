/// Extension or app → host: deletes the app's donations, by identifier, by group, or all (SiriKit's
/// `INInteraction.delete(with:)`, `delete(with groupIdentifier:)`, `deleteAll`). See docs/PROTOCOL.md, "Requests to
/// the host: donations and vocabulary".
public struct DeleteDonationsRequest: RequestMessage, Equatable {
  public static let method = "host/deleteDonations"
  public typealias Response = DeleteDonationsResult

  public var selection: DonationSelection

  public init(_ selection: DonationSelection) { self.selection = selection }

  public init(from decoder: any Decoder) throws { selection = try DonationSelection(from: decoder) }
  public func encode(to encoder: any Encoder) throws { try selection.encode(to: encoder) }
}

/// Which donations: on the wire exactly one of `{"identifiers": [...]}`, `{"groupIdentifier": "..."}`,
/// `{"intentType": "..."}`, `{"all": true}`.
public enum DonationSelection: Codable, Sendable, Hashable {
  /// The donations with these identifiers (1 to `DonationLimits.maximumDeletedIdentifiers`).
  case identifiers([String])
  /// The donations of this group.
  case group(String)
  /// The donations of this intent: a SiriKit intent's class or an App Intent's identifier (App Intents'
  /// `deleteDonations(matching: .intentType(OrderFuelIntent.self))`).
  case intentType(String)
  /// Every donation of the app.
  case all

  private enum CodingKeys: String, CodingKey { case identifiers, groupIdentifier, intentType, all }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let keys = Set(container.allKeys)
    guard keys.count == 1, let key = keys.first else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "give exactly one of identifiers, groupIdentifier, intentType and all"))
    }
    switch key {
    case .identifiers: self = .identifiers(try container.decode([String].self, forKey: .identifiers))
    case .groupIdentifier: self = .group(try container.decode(String.self, forKey: .groupIdentifier))
    case .intentType: self = .intentType(try container.decode(String.self, forKey: .intentType))
    case .all:
      guard try container.decode(Bool.self, forKey: .all) else {
        throw DecodingError.dataCorruptedError(
          forKey: .all, in: container, debugDescription: "all must be true when given")
      }
      self = .all
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .identifiers(let identifiers): try container.encode(identifiers, forKey: .identifiers)
    case .group(let group): try container.encode(group, forKey: .groupIdentifier)
    case .intentType(let name): try container.encode(name, forKey: .intentType)
    case .all: try container.encode(true, forKey: .all)
    }
  }
}

/// The host's answer to `host/deleteDonations`: how many donations were deleted.
public struct DeleteDonationsResult: Codable, Sendable, Equatable {
  public var deleted: Int

  public init(deleted: Int) { self.deleted = deleted }
}
