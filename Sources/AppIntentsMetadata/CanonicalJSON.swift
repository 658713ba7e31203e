/// The canonical encoding of a `MetadataJSON`: the bytes the metadata writer writes and the digest is taken of.
///
/// No white space; object keys sorted by their Unicode scalars (the order of their UTF-8 bytes); in strings only `"`,
/// `\` and the control characters below U+0020 escaped (`\b \f \n \r \t`, else `\u00XX` in lower case), everything
/// else as UTF-8; integers in decimal, other numbers in Swift's shortest form that reads back the same (`0.5`,
/// `1e-05`). It is what Python writes with `json.dumps(value, sort_keys=True, separators=(",", ":"),
/// ensure_ascii=False)` for the same value, so an extension in another language can make the same bytes.
enum CanonicalJSON {
  /// The canonical bytes of `value`.
  static func encode(_ value: MetadataJSON) -> [UInt8] {
    var output: [UInt8] = []
    write(value, to: &output)
    return output
  }

  private static func write(_ value: MetadataJSON, to output: inout [UInt8]) {
    switch value {
    case .null: output += Array("null".utf8)
    case .bool(let bool): output += Array((bool ? "true" : "false").utf8)
    case .integer(let integer): output += Array(String(integer).utf8)
    case .number(let number): output += Array(numberText(number).utf8)
    case .string(let string): write(string, to: &output)
    case .array(let elements):
      output.append(UInt8(ascii: "["))
      for (position, element) in elements.enumerated() {
        if position > 0 { output.append(UInt8(ascii: ",")) }
        write(element, to: &output)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let fields):
      output.append(UInt8(ascii: "{"))
      for (position, key) in sortedKeys(fields).enumerated() {
        if position > 0 { output.append(UInt8(ascii: ",")) }
        write(key, to: &output)
        output.append(UInt8(ascii: ":"))
        write(fields[key]!, to: &output)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  /// The keys in the order of their UTF-8 bytes (which is the order of their scalars), not `String`'s `<`, which
  /// compares by grapheme and would differ from other languages' sort for some keys.
  static func sortedKeys(_ fields: [String: MetadataJSON]) -> [String] {
    fields.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// A double as Swift's shortest text that reads back the same: `1.0`, `0.5`, `1e-05`, `1e+16`; always with a `.`
  /// or an exponent, so that it reads back as a number and not an integer (Python's `repr` gives the same text).
  static func numberText(_ number: Double) -> String { "\(number)" }

  private static func write(_ string: String, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    for byte in string.utf8 {
      switch byte {
      case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
      case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
      case 0x08: output += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
      case 0x0C: output += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
      case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case 0..<0x20:
        let digits = Array(String(byte, radix: 16).utf8)
        output += Array("\\u00".utf8) + (digits.count == 1 ? [UInt8(ascii: "0")] : []) + digits
      default: output.append(byte)
      }
    }
    output.append(UInt8(ascii: "\""))
  }
}
