// AppEntity and its queries: values the app looks up (a vehicle, a contact) rather than a fixed set of cases.
import ExtensionProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// An identifier an entity can have: a string, an integer or a UUID. On the wire it is a string.
public protocol EntityIdentifierConvertible: Hashable, Sendable {
  var entityIdentifierString: String { get }
  static func entityIdentifier(for entityIdentifierString: String) -> Self?
}

extension String: EntityIdentifierConvertible {
  public var entityIdentifierString: String { self }
  public static func entityIdentifier(for entityIdentifierString: String) -> String? { entityIdentifierString }
}

extension Int: EntityIdentifierConvertible {
  public var entityIdentifierString: String { String(self) }
  public static func entityIdentifier(for entityIdentifierString: String) -> Int? { Int(entityIdentifierString) }
}

extension UUID: EntityIdentifierConvertible {
  public var entityIdentifierString: String { uuidString }
  public static func entityIdentifier(for entityIdentifierString: String) -> UUID? {
    UUID(uuidString: entityIdentifierString)
  }
}

/// A value the app finds with a query: the assistant lists the query's suggestions, matches what the user says
/// against their names, and sends the chosen one's identifier, which the extension looks up again
/// (`defaultQuery.entities(for:)`). On the wire: `{"type":"object","value":{"identifier":…,"displayString":…}}`.
///
/// ```swift
/// struct VehicleEntity: AppEntity {
///   static let typeDisplayRepresentation: TypeDisplayRepresentation = "Vehicle"
///   static let defaultQuery = VehicleQuery()
///   let id: String
///   let name: String
///   var displayRepresentation: DisplayRepresentation { "\(name)" }
/// }
/// ```
public protocol AppEntity: _IntentValue, Identifiable where ID: EntityIdentifierConvertible {
  associatedtype DefaultQuery: EntityQuery where DefaultQuery.Entity == Self
  static var typeDisplayRepresentation: TypeDisplayRepresentation { get }
  static var defaultQuery: DefaultQuery { get }
  var displayRepresentation: DisplayRepresentation { get }
}

extension AppEntity {
  public static var intentValueType: IntentValueType { .entity(String(describing: Self.self)) }

  public var intentValue: ParameterValue {
    .object(
      ObjectValue(
        identifier: id.entityIdentifierString, displayString: displayRepresentation.title.defaultValue))
  }

  /// Looks the entity up by the identifier the host sent; nil when the query no longer has it (Apple: "omit it").
  public static func fromIntentValue(_ value: ParameterValue) async throws -> Self? {
    guard case .object(let object) = value, let id = ID.entityIdentifier(for: object.identifier) else { return nil }
    return try await defaultQuery.entities(for: [id]).first { $0.id == id }
  }
}

/// Finds entities: by identifier (required), and the suggestions offered when the user is asked for one.
public protocol EntityQuery: Sendable {
  associatedtype Entity: AppEntity
  /// The entities with these identifiers; those that no longer exist are left out.
  func entities(for identifiers: [Entity.ID]) async throws -> [Entity]
  /// The entities offered when the user is asked to pick one (none by default).
  func suggestedEntities() async throws -> [Entity]
}

extension EntityQuery {
  public func suggestedEntities() async throws -> [Entity] { [] }
}

/// An entity query that also finds entities by what the user said.
public protocol EntityStringQuery: EntityQuery {
  func entities(matching string: String) async throws -> [Entity]
}

/// Offers the values of a parameter when the user is asked for it (`@Parameter(optionsProvider:)`).
///
/// ```swift
/// struct LocationOptionsProvider: DynamicOptionsProvider {
///   func results() async throws -> [Location] { try await SavedLocationsUsecase(store: .shared).execute().get() }
/// }
/// ```
public protocol DynamicOptionsProvider: Sendable {
  associatedtype DefaultValue: _IntentValue
  func results() async throws -> [DefaultValue]
  /// The value chosen when the user gives none; nil asks.
  func defaultResult() async -> DefaultValue?
}

extension DynamicOptionsProvider {
  public func defaultResult() async -> DefaultValue? { nil }
}

/// An entity query that can list every entity.
public protocol EnumerableEntityQuery: EntityQuery {
  func allEntities() async throws -> [Entity]
}

/// An entity type's lookups, as the runtime answers `entity/query` (its default query, opened).
extension AppEntity {
  static func lookUp(_ lookup: EntityLookup) async throws -> [Self]? {
    let query = defaultQuery
    switch lookup {
    case .identifiers(let identifiers):
      return try await query.entities(for: identifiers.compactMap { ID.entityIdentifier(for: $0) })
    case .suggested:
      return try await query.suggestedEntities()
    case .matching(let string):
      guard let query = query as? any EntityStringQuery else { return nil }
      return try await matching(query, string)
    case .all:
      guard let query = query as? any EnumerableEntityQuery else { return nil }
      return try await all(query)
    }
  }

  private static func matching<Query: EntityStringQuery>(_ query: Query, _ string: String) async throws -> [Self] {
    try await query.entities(matching: string).compactMap { $0 as? Self }
  }

  private static func all<Query: EnumerableEntityQuery>(_ query: Query) async throws -> [Self] {
    try await query.allEntities().compactMap { $0 as? Self }
  }
}
