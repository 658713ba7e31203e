/// A JSON value as the metadata reader parses it and the writer writes it: the parts of `extract.actionsdata` that
/// IntentHost keeps without interpreting (an action's `actionConfiguration`, an unknown `valueType`, a default value)
/// and the tree the canonical encoding is made from.
///
/// A number written without a fraction or an exponent is an `integer` (when it fits in `Int`), any other a `number`,
/// so that a value read, written and read again is the same value.
public enum MetadataJSON: Sendable, Hashable {
  case null
  case bool(Bool)
  case integer(Int)
  case number(Double)
  case string(String)
  case array([MetadataJSON])
  case object([String: MetadataJSON])

  /// The JSON type's name, for messages: "a string", "an object".
  public var kindDescription: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .integer, .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}
