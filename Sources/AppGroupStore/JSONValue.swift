#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Any JSON value: what `defaults` reads and writes, and what `SharedDefaults` stores.
public enum JSONValue: Codable, Sendable, Equatable {
  case null
  case bool(Bool)
  case integer(Int)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int.self) {
      self = .integer(value)
    } else if let value = try? container.decode(Double.self) {
      self = .double(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .integer(let value): try container.encode(value)
    case .double(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// Parses JSON text (any value, not only objects).
  /// - Throws: `DecodingError` when `text` is not JSON.
  public init(parsing text: String) throws {
    self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
  }

  /// JSON text: compact on one line, or pretty-printed with sorted keys.
  public func jsonText(pretty: Bool = false) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting =
      pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(self) else { return "null" }
    let text = String(decoding: data, as: UTF8.self)
    // Foundation prints an empty object or array over lines when pretty ("{\n\n}"): `{}` and `[]`. Only a bracket
    // followed by a line break is matched, which no JSON string holds (its line breaks are escaped).
    return pretty ? text.replacing(/\{\n[ \n]*\}/, with: "{}").replacing(/\[\n[ \n]*\]/, with: "[]") : text
  }

  /// The value of `key` when this is an object.
  public subscript(key: String) -> JSONValue? {
    if case .object(let object) = self { return object[key] }
    return nil
  }
}

/// The content of any document, whatever its schema: read as JSON and written back with the schema version it was
/// read with (a new document gets version 1). What the `defaults` command uses.
public struct AnyDocumentContent: DocumentContent, Equatable {
  /// Any version is read; writing keeps the version read.
  public static var schemaVersion: Int { Int.max }
  public var value: JSONValue
  public private(set) var storedSchemaVersion = 1

  public init() { value = .object([:]) }

  public init(from decoder: any Decoder) throws {
    value = try JSONValue(from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try value.encode(to: encoder)
  }

  public mutating func loaded(schemaVersion: Int) { storedSchemaVersion = schemaVersion }
}
