/// Where a value is in a JSON file, as messages name it: `actions.OrderFuelIntent.parameters[0].title`. A key that
/// is not a plain name (empty, with a dot, a bracket, a quote, a space or a control character) is written in
/// brackets and quotes, escaped: `actions["Order Fuel"]`.
struct JSONPath: Sendable, Hashable, CustomStringConvertible {
  enum Component: Sendable, Hashable {
    case key(String)
    case index(Int)
  }

  private(set) var components: [Component] = []

  static let root = JSONPath()

  func appending(_ key: String) -> JSONPath {
    var path = self
    path.components.append(.key(key))
    return path
  }

  func appending(_ index: Int) -> JSONPath {
    var path = self
    path.components.append(.index(index))
    return path
  }

  var description: String {
    var text = ""
    for component in components {
      switch component {
      case .index(let index): text += "[\(index)]"
      case .key(let key) where Self.isPlain(key): text += (text.isEmpty ? "" : ".") + key
      case .key(let key): text += "[\(JSONParser.quoted(key))]"
      }
    }
    return text
  }

  /// Whether `key` can be written bare: letters, digits, `_`, `-` and `$` of ASCII, not empty, at most 100 bytes.
  private static func isPlain(_ key: String) -> Bool {
    !key.isEmpty && key.utf8.count <= 100
      && key.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
          || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "$")
      }
  }
}
