import Foundation

/// A JSON value as the host's own JSON lines hold it: a transcript's lines (`TranscriptEntry`, the messages sent to
/// and from extensions) and `IntentOutcome.json()`.
///
/// Their text is pinned to what Foundation's `JSONSerialization` writes (the transcripts already recorded, and the
/// `--json` output scripts read), which `AppGroupStore.JSONValue` cannot give: its numbers are `Int` or `Double` only
/// (JSONSerialization keeps 12345678901234567890 and 1e21-sized integers whole), and its text sorts keys as
/// `JSONEncoder` does, by UTF-8 bytes. So `text` writes as JSONSerialization does: keys in its order (numeric,
/// case-insensitive: "a9" before "a10", "b" before "C"), its escapes, its numbers. Parsing (`init(parsing:)`) is
/// JSONSerialization itself, the one place an `Any` is seen.
package enum JSON: Sendable, Hashable {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSON])
  case object([String: JSON])
}

/// A JSON number, kept as the text JSONSerialization writes for it: `12`, `-0`, `0.5`, `1e-07`, `1e+21`,
/// `12345678901234567890`.
package struct JSONNumber: Sendable, Hashable {
  package let text: String

  private init(text: String) { self.text = text }

  package init(_ value: Int) { text = String(value) }

  /// A finite number as JSONSerialization writes a `Double`: its shortest form, without a trailing `.0`. Nil for
  /// infinities and NaN, which JSON has no form for.
  package init?(_ value: Double) {
    guard value.isFinite else { return nil }
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    self.text = text
  }

  /// A number JSONSerialization parsed (an integer, a `Double`, or a `Decimal` for what neither holds), as it writes
  /// it; nil for what it cannot write.
  fileprivate init?(parsed number: NSNumber) {
    // An integer (ids, the common case) is its digits; anything else is written by JSONSerialization itself.
    switch String(cString: number.objCType) {
    case "q", "l", "i", "s":
      text = String(number.int64Value)
      return
    case "Q", "L", "I", "S":
      text = String(number.uint64Value)
      return
    default: break
    }
    guard let data = try? JSONSerialization.data(withJSONObject: number, options: [.fragmentsAllowed]) else {
      return nil
    }
    text = String(decoding: data, as: UTF8.self)
  }

  /// The number as an `Int`, when it is a whole number that fits.
  package var integer: Int? { Int(text) }

  /// The number as a `Double` (the closest one).
  package var double: Double? { Double(text) }
}

extension JSON {
  package init(_ value: Int) { self = .number(JSONNumber(value)) }

  /// The value of `key` when this is an object.
  package subscript(key: String) -> JSON? {
    if case .object(let object) = self { return object[key] }
    return nil
  }

  /// Parses JSON text, as JSONSerialization does (any value, not only objects: `fragmentsAllowed`).
  /// - Throws: JSONSerialization's error (its `NSDebugDescriptionErrorKey` says why: "Too many nested arrays or
  ///   dictionaries", a syntax error).
  package init(parsing data: Data) throws {
    let value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    guard let json = JSON(foundation: value) else {
      throw CocoaError(.propertyListReadCorrupt, userInfo: [NSDebugDescriptionErrorKey: "an unknown kind of value"])
    }
    self = json
  }

  /// What `encoder` makes of `value`, read back as JSON: a Codable value (a shortcut's presets, a view) inside a line.
  /// - Throws: what the encoder throws (a non-finite number).
  package init(encoding value: some Encodable) throws {
    try self.init(parsing: try JSONEncoder().encode(value))
  }

  /// A value JSONSerialization parsed; nil for anything it does not make.
  private init?(foundation value: Any) {
    switch value {
    case is NSNull: self = .null
    case let string as String: self = .string(string)
    case let number as NSNumber:
      // A JSON boolean is an NSNumber with the type of a C `char`, which no JSON number parses to.
      if String(cString: number.objCType) == "c" {
        self = .bool(number.boolValue)
      } else {
        guard let parsed = JSONNumber(parsed: number) else { return nil }
        self = .number(parsed)
      }
    case let array as [Any]:
      var items: [JSON] = []
      items.reserveCapacity(array.count)
      for item in array {
        guard let json = JSON(foundation: item) else { return nil }
        items.append(json)
      }
      self = .array(items)
    case let object as [String: Any]:
      var members: [String: JSON] = [:]
      members.reserveCapacity(object.count)
      for (key, item) in object {
        guard let json = JSON(foundation: item) else { return nil }
        members[key] = json
      }
      self = .object(members)
    default:
      return nil
    }
  }

  /// One line of JSON, as JSONSerialization writes it with `.sortedKeys` and `.withoutEscapingSlashes`.
  package var text: String {
    var text = ""
    write(to: &text)
    return text
  }

  private func write(to text: inout String) {
    switch self {
    case .null: text += "null"
    case .bool(let value): text += value ? "true" : "false"
    case .number(let number): text += number.text
    case .string(let string): Self.write(string, to: &text)
    case .array(let items):
      text += "["
      for (index, item) in items.enumerated() {
        if index > 0 { text += "," }
        item.write(to: &text)
      }
      text += "]"
    case .object(let members):
      text += "{"
      for (index, (key, value)) in members.sorted(by: { Self.precedes($0.key, $1.key) }).enumerated() {
        if index > 0 { text += "," }
        Self.write(key, to: &text)
        text += ":"
        value.write(to: &text)
      }
      text += "}"
    }
  }

  /// The order of JSONSerialization's `.sortedKeys`: numeric, case-insensitive, then by code points.
  private static func precedes(_ a: String, _ b: String) -> Bool {
    a.compare(
      b, options: [.numeric, .caseInsensitive, .forcedOrdering], range: a.startIndex..<a.endIndex,
      locale: NSLocale.system as Locale) == .orderedAscending
  }

  /// A string with JSONSerialization's escapes: `"` and `\`, the short forms of the controls that have one, `\u00xx`
  /// (lowercase hex) for the other controls below U+0020; everything else as it is.
  private static func write(_ string: String, to text: inout String) {
    text += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "\u{8}": text += "\\b"
      case "\u{C}": text += "\\f"
      case "\n": text += "\\n"
      case "\r": text += "\\r"
      case "\t": text += "\\t"
      case "\u{0}"..."\u{F}": text += "\\u000" + String(scalar.value, radix: 16)
      case "\u{10}"..."\u{1F}": text += "\\u00" + String(scalar.value, radix: 16)
      default: text.unicodeScalars.append(scalar)
      }
    }
    text += "\""
  }
}

extension JSON: Codable {
  package init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int.self) {
      self = JSON(value)
    } else if let value = try? container.decode(Double.self), let number = JSONNumber(value) {
      self = .number(number)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSON].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSON].self))
    }
  }

  /// Through a Codable encoder a number is an `Int` when it is one, else the closest `Double`; `text` is the exact
  /// form.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let number):
      if let integer = number.integer {
        try container.encode(integer)
      } else {
        try container.encode(number.double ?? 0)
      }
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }
}
