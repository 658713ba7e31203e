/// A property list value, written as Xcode writes XML property lists: keys sorted, tabs, the Apple DOCTYPE.
package indirect enum PlistValue: Sendable, Equatable {
  case string(String)
  case integer(Int)
  case real(Double)
  case boolean(Bool)
  case array([PlistValue])
  case dictionary([String: PlistValue])

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
