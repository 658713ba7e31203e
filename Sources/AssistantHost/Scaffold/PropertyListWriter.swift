import Foundation

/// A property list value, written as Xcode writes XML property lists: keys sorted, tabs, the Apple DOCTYPE.
package indirect enum PlistValue: Sendable, Equatable {
  case string(String)
  case integer(Int)
  case real(Double)
  case boolean(Bool)
  case array([PlistValue])
  case dictionary([String: PlistValue])

  /// The value `PropertyListSerialization` read, or nil when it holds a date or data (which no manifest `assistant
  /// new` rewrites holds).
  package init?(propertyList value: Any) {
    switch value {
    case let flag as Bool where type(of: value) == Bool.self: self = .boolean(flag)
    case let text as String: self = .string(text)
    case let number as Int: self = .integer(number)
    case let number as Double: self = .real(number)
    case let list as [Any]:
      var values: [PlistValue] = []
      for item in list {
        guard let value = PlistValue(propertyList: item) else { return nil }
        values.append(value)
      }
      self = .array(values)
    case let dictionary as [String: Any]:
      var values: [String: PlistValue] = [:]
      for (key, item) in dictionary {
        guard let value = PlistValue(propertyList: item) else { return nil }
        values[key] = value
      }
      self = .dictionary(values)
    default: return nil
    }
  }

  /// Reads an XML or binary property list.
  /// - Throws: `HostError(.dataError)` naming the file when it does not parse or holds a date or data.
  package static func read(_ file: URL) throws -> PlistValue {
    do {
      let data = try Data(contentsOf: file)
      let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
      guard let value = PlistValue(propertyList: object) else {
        throw HostError(
          .dataError, "\(file.path): holds a date or data value, which assistant new does not rewrite; edit it in Xcode"
        )
      }
      return value
    } catch let error as HostError {
      throw error
    } catch {
      throw HostError(.dataError, "\(file.path): is not a property list (\(error)); fix or restore the file")
    }
  }

  /// The dictionary's value for `key`, if this is a dictionary.
  package subscript(key: String) -> PlistValue? {
    get {
      guard case .dictionary(let values) = self else { return nil }
      return values[key]
    }
    set {
      guard case .dictionary(var values) = self else { return }
      values[key] = newValue
      self = .dictionary(values)
    }
  }

  /// The array's items, if this is an array.
  package var items: [PlistValue]? {
    if case .array(let values) = self { return values }
    return nil
  }

  /// The text, if this is a string.
  package var text: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The whole file: the XML declaration, the DOCTYPE, `<plist version="1.0">`, this value, a final newline.
  package var xmlDocument: String {
    var text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">

      """
    write(into: &text, depth: 0)
    return text + "</plist>\n"
  }

  private func write(into text: inout String, depth: Int) {
    let indent = String(repeating: "\t", count: depth)
    switch self {
    case .string(let value): text += "\(indent)<string>\(Self.escaped(value))</string>\n"
    case .integer(let value): text += "\(indent)<integer>\(value)</integer>\n"
    case .real(let value): text += "\(indent)<real>\(value)</real>\n"
    case .boolean(let value): text += "\(indent)<\(value ? "true" : "false")/>\n"
    case .array(let values):
      if values.isEmpty {
        text += "\(indent)<array/>\n"
        return
      }
      text += "\(indent)<array>\n"
      for value in values { value.write(into: &text, depth: depth + 1) }
      text += "\(indent)</array>\n"
    case .dictionary(let values):
      if values.isEmpty {
        text += "\(indent)<dict/>\n"
        return
      }
      text += "\(indent)<dict>\n"
      for key in values.keys.sorted() {
        text += "\(indent)\t<key>\(Self.escaped(key))</key>\n"
        values[key]!.write(into: &text, depth: depth + 1)
      }
      text += "\(indent)</dict>\n"
    }
  }

  private static func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }
}
