/// Host → App Intents extension: asks the default query of an AppEntity type for entities (`EntityQuery`'s
/// `entities(for:)` and `suggestedEntities()`, `EntityStringQuery`'s `entities(matching:)`, `EnumerableEntityQuery`'s
/// `allEntities()`). On the wire `{"entityType", "by", "identifiers"?, "string"?}`. See docs/PROTOCOL.md, "App
/// Intents".
public struct EntityQueryRequest: RequestMessage, Equatable {
  public static let method = "entity/query"
  public typealias Response = EntityQueryResult

  /// The AppEntity type (its name in `Metadata.appintents`' `entities`).
  public var entityType: String
  /// Which entities.
  public var lookup: EntityLookup

  public init(entityType: String, lookup: EntityLookup) {
    self.entityType = entityType
    self.lookup = lookup
  }

  private enum CodingKeys: String, CodingKey { case entityType, by, identifiers, string }

  /// Decodes and checks the request: `identifiers` (1 to `AppIntentLimits.maximumItems` of them) with `by`
  /// `identifiers` and only then, `string` with `by` `string` and only then.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    entityType = try container.decodeName(forKey: .entityType)
    let by = try container.decodeCase(EntityLookup.Kind.self, forKey: .by, as: "a kind of entity query")
    for key in [CodingKeys.identifiers, .string] where key.stringValue != by.rawValue && container.contains(key) {
      try container.refuse("\(key.stringValue) is given only with by \"\(key.stringValue)\", not \"\(by.rawValue)\"")
    }
    switch by {
    case .identifiers:
      let identifiers = try container.decode([String].self, forKey: .identifiers)
      try container.refuse(AppIntentLimits.countProblem(identifiers.count, field: "identifiers", minimum: 1))
      for (index, identifier) in identifiers.enumerated() {
        try container.refuse(AppIntentLimits.identifierProblem(identifier, field: "identifiers[\(index)]"))
      }
      lookup = .identifiers(identifiers)
    case .suggested: lookup = .suggested
    case .string:
      let string = try container.decode(String.self, forKey: .string)
      try container.refuse(
        AppIntentLimits.textProblem(string, field: "string")
          ?? AppIntentLimits.identifierProblem(string, field: "string"))
      lookup = .matching(string)
    case .all: lookup = .all
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(entityType, forKey: .entityType)
    try container.encode(lookup.kind.rawValue, forKey: .by)
    switch lookup {
    case .identifiers(let identifiers): try container.encode(identifiers, forKey: .identifiers)
    case .matching(let string): try container.encode(string, forKey: .string)
    case .suggested, .all: break
    }
  }
}

/// Which entities an `entity/query` asks for.
public enum EntityLookup: Sendable, Hashable {
  /// `entities(for:)`: those with these identifiers; one that no longer exists is left out of the answer.
  case identifiers([String])
  /// `suggestedEntities()`: those the app suggests (what the host offers when it asks for the parameter).
  case suggested
  /// `entities(matching:)` (`EntityStringQuery`): those matching what the user said.
  case matching(String)
  /// `allEntities()` (`EnumerableEntityQuery`): every one.
  case all

  /// The kinds, as `by` names them on the wire.
  public enum Kind: String, Sendable, CaseIterable {
    case identifiers, suggested, string, all
  }

  public var kind: Kind {
    switch self {
    case .identifiers: .identifiers
    case .suggested: .suggested
    case .matching: .string
    case .all: .all
    }
  }
}

/// The answer to `entity/query`: `{"entities": [{"identifier", "displayString", "properties"?}]}`, at most
/// `AppIntentLimits.maximumItems`, each an entity as `AppIntentLimits.objectProblem` wants.
public struct EntityQueryResult: Codable, Sendable, Hashable {
  public var entities: [ObjectValue]

  public init(entities: [ObjectValue]) { self.entities = entities }

  private enum CodingKeys: String, CodingKey { case entities }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    entities = try container.decode([ObjectValue].self, forKey: .entities)
    try container.refuse(AppIntentLimits.countProblem(entities.count, field: "entities"))
    for (index, entity) in entities.enumerated() {
      try container.refuse(AppIntentLimits.objectProblem(entity, field: "entities[\(index)]"))
    }
  }

  /// What is wrong with this answer to `request`, or nil: an entity given twice (by identifier), or, for
  /// `identifiers`, one that was not asked for. (Leaving out an identifier that no longer exists is right: Apple's
  /// "If the entity for a provided identifier is no longer available, omit it".)
  public func problem(answering request: EntityQueryRequest) -> String? {
    var seen: Set<String> = []
    let asked: Set<String>? = if case .identifiers(let identifiers) = request.lookup { Set(identifiers) } else { nil }
    for entity in entities {
      if !seen.insert(entity.identifier).inserted {
        return "the entity \(AppIntentLimits.quoted(entity.identifier)) is given twice"
      }
      if let asked, !asked.contains(entity.identifier) {
        return "the entity \(AppIntentLimits.quoted(entity.identifier)) was not asked for"
      }
    }
    return nil
  }
}
