#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// An object value, as Xcode's custom types and `INObject`: a stable identifier, what to show the user, and the
/// custom type's own properties (what a template's `${orderDetails.total}` reads).
public struct ObjectValue: Codable, Sendable, Hashable {
  public var identifier: String
  public var displayString: String
  /// The custom type's properties by name (`INTypeProperties`); nil on the wire when absent.
  public var properties: [String: ParameterValue]?

  public init(identifier: String, displayString: String, properties: [String: ParameterValue]? = nil) {
    self.identifier = identifier
    self.displayString = displayString
    self.properties = properties
  }

  private enum CodingKeys: String, CodingKey, CaseIterable { case identifier, displayString, properties }

  /// The shape of an object value on the wire, for error messages.
  public static let wireShape =
    #"{"identifier": "…", "displayString": "…", "properties": {"NAME": {"type": …, "value": …}}}"#

  /// Decodes exactly `{"identifier", "displayString", "properties"}`: any other key is an error naming the shape, so
  /// that a property sent beside them (`{"identifier": …, "displayString": …, "total": …}`) is not silently dropped
  /// (a template's `${order.total}` would then be said as empty text).
  public init(from decoder: any Decoder) throws {
    try checkKeys(
      of: decoder, allowed: CodingKeys.allCases.map(\.rawValue), shape: "an object value",
      Self.wireShape + #" ("properties" optional)"#)
    let container = try decoder.container(keyedBy: CodingKeys.self)
    identifier = try container.decode(String.self, forKey: .identifier)
    displayString = try container.decode(String.self, forKey: .displayString)
    properties = try container.decodeIfPresent([String: ParameterValue].self, forKey: .properties)
  }
}

/// Any key of a JSON object, to list the keys a message has.
private struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

/// Throws when what `decoder` holds is not a JSON object, or has a key outside `allowed`, saying what `shape` is.
/// - Throws: `DecodingError.dataCorrupted` at the decoder's coding path.
private func checkKeys(of decoder: any Decoder, allowed: [String], shape: String, _ wire: String) throws {
  let keys: [String]
  do {
    keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
  } catch {
    throw DecodingError.dataCorrupted(
      DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not a JSON object; \(shape) is \(wire)"))
  }
  if let unknown = keys.sorted().first(where: { !allowed.contains($0) }) {
    let quoted = unknown.count > 40 ? String(unknown.prefix(40)) + "…" : unknown
    throw DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: decoder.codingPath,
        debugDescription: "\"\(quoted)\" is not a key of \(shape), which is \(wire)"))
  }
}

/// A typed parameter value. On the wire: `{"type":"integer","value":12}`.
public indirect enum ParameterValue: Sendable, Hashable, Codable, CustomStringConvertible {
  case string(String)
  case integer(Int)
  case decimal(Double)
  case boolean(Bool)
  /// A point in time; on the wire an ISO 8601 string in UTC, e.g. "2026-11-21T09:30:00Z".
  case date(Date)
  /// An enum case, by its name in the intent definition (`INEnumValueName`), e.g. "delivery".
  case enumCase(String)
  case object(ObjectValue)
  case array([ParameterValue])

  /// The type tag used on the wire.
  public var typeName: String {
    switch self {
    case .string: return "string"
    case .integer: return "integer"
    case .decimal: return "decimal"
    case .boolean: return "boolean"
    case .date: return "date"
    case .enumCase: return "enum"
    case .object: return "object"
    case .array: return "array"
    }
  }

  private enum CodingKeys: String, CodingKey { case type, value }

  /// The shape of a value on the wire, for error messages.
  public static let wireShape = #"{"type": TYPE, "value": …}"#

  /// Decodes exactly `{"type", "value"}`: any other key is an error naming the shape (docs/PROTOCOL.md, "Values and
  /// intents").
  public init(from decoder: Decoder) throws {
    try checkKeys(of: decoder, allowed: ["type", "value"], shape: "a value", Self.wireShape)
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let type = try container.decode(String.self, forKey: .type)
    switch type {
    case "string": self = .string(try container.decode(String.self, forKey: .value))
    case "integer":
      do {
        self = .integer(try container.decode(Int.self, forKey: .value))
      } catch  where (try? container.decode(Double.self, forKey: .value)) != nil {
        // A number that is not an integer (1.5), or one past Int's range (1e300): Foundation's decoder would say the
        // data is "not valid JSON"; say what it is. (Anything else, a string, keeps the decoder's own error.)
        throw DecodingError.dataCorruptedError(
          forKey: .value, in: container,
          debugDescription: "the value is not an integer (a whole number from \(Int.min) to \(Int.max))")
      }
    case "decimal": self = .decimal(try container.decode(Double.self, forKey: .value))
    case "boolean": self = .boolean(try container.decode(Bool.self, forKey: .value))
    case "date":
      let text = try container.decode(String.self, forKey: .value)
      guard let date = ParameterValue.parseDate(text) else {
        throw DecodingError.dataCorruptedError(
          forKey: .value, in: container, debugDescription: "\"\(text)\" is not an ISO 8601 date-time")
      }
      self = .date(date)
    case "enum": self = .enumCase(try container.decode(String.self, forKey: .value))
    case "object": self = .object(try container.decode(ObjectValue.self, forKey: .value))
    case "array": self = .array(try container.decode([ParameterValue].self, forKey: .value))
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: container,
        debugDescription: "unknown value type \"\(type)\" (expected string, integer, decimal, boolean, date, enum, "
          + "object or array)")
    }
  }

  public func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(typeName, forKey: .type)
    switch self {
    case .string(let v): try container.encode(v, forKey: .value)
    case .integer(let v): try container.encode(v, forKey: .value)
    case .decimal(let v): try container.encode(v, forKey: .value)
    case .boolean(let v): try container.encode(v, forKey: .value)
    case .date(let v): try container.encode(ParameterValue.formatDate(v), forKey: .value)
    case .enumCase(let v): try container.encode(v, forKey: .value)
    case .object(let v): try container.encode(v, forKey: .value)
    case .array(let v): try container.encode(v, forKey: .value)
    }
  }

  /// Formats a date as ISO 8601 in UTC with whole seconds.
  public static func formatDate(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
  }

  /// Parses an ISO 8601 date-time ("2026-11-21T09:30:00Z", with or without fractional seconds).
  public static func parseDate(_ text: String) -> Date? {
    if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(timeZone: .gmt)) { return date }
    return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
  }

  /// A plain rendering for logs: `12`, `"Ada"`, `[1, 2]`.
  public var description: String {
    switch self {
    case .string(let v): return "\"\(v)\""
    case .integer(let v): return String(v)
    case .decimal(let v): return String(v)
    case .boolean(let v): return v ? "true" : "false"
    case .date(let v): return ParameterValue.formatDate(v)
    case .enumCase(let v): return v
    case .object(let v): return v.displayString
    case .array(let v): return "[" + v.map(\.description).joined(separator: ", ") + "]"
    }
  }
}

/// An intent: its class name as listed in `IntentsSupported` (e.g. "BookRoomIntent") and its parameter values.
/// A parameter with no value is absent from `parameters`.
public struct Intent: Codable, Sendable, Hashable {
  /// The intent's class, e.g. "BookRoomIntent" or "INStartWorkoutIntent".
  public var name: String
  /// A unique id for this request, stable across its resolve, confirm and handle phases.
  public var identifier: String
  /// The values by parameter name; a parameter without a value is absent.
  public var parameters: [String: ParameterValue]

  public init(name: String, identifier: String, parameters: [String: ParameterValue] = [:]) {
    self.name = name
    self.identifier = identifier
    self.parameters = parameters
  }

  /// The value of `parameter`, nil when it has none; setting nil removes it.
  public subscript(parameter: String) -> ParameterValue? {
    get { parameters[parameter] }
    set { parameters[parameter] = newValue }
  }
}
