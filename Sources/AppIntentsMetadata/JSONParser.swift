/// A strict JSON parser (RFC 8259) for untrusted bytes, with a nesting limit: the reader's first step.
///
/// Foundation's `JSONSerialization` is not used: on Linux it gives booleans and numbers as `NSNumber`s that cast into
/// each other, keeps one of two equal keys without a word, and has no nesting limit of ours. This one gives typed
/// values, refuses a key given twice in one object, text that is not UTF-8, a control character inside a string, a
/// lone surrogate escape and numbers out of `Double`'s range, and never recurses deeper than `maximumDepth`.
struct JSONParser {
  /// Why the bytes are not JSON, and where.
  struct Failure: Error, Sendable, Equatable {
    var line: Int
    var column: Int
    var problem: String

    var description: String { "line \(line), column \(column): \(problem)" }
  }

  /// The longest number token, in bytes: a longer one is refused rather than converted.
  static let maximumNumberLength = 400

  private let bytes: [UInt8]
  private let maximumDepth: Int
  private var index = 0

  private init(bytes: [UInt8], maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  /// Parses one JSON value that fills `bytes` (white space around it allowed, a UTF-8 byte-order mark at the start
  /// skipped).
  /// - Parameter maximumDepth: the most arrays and objects nested in each other; deeper is refused.
  /// - Throws: `Failure` naming the line, the column and what is wrong.
  static func parse(_ bytes: [UInt8], maximumDepth: Int) throws(Failure) -> MetadataJSON {
    var parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
    parser.skipWhiteSpace()
    let value = try parser.value(depth: 0)
    parser.skipWhiteSpace()
    if parser.index < bytes.count { throw parser.failure("unexpected \(parser.describeCurrent()) after the value") }
    return value
  }

  // MARK: - Values

  private mutating func value(depth: Int) throws(Failure) -> MetadataJSON {
    guard index < bytes.count else { throw failure("unexpected end of the file, expected a value") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try object(depth: depth + 1)
    case UInt8(ascii: "["): return try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    default: throw failure("unexpected \(describeCurrent()), expected a value")
    }
  }

  private mutating func object(depth: Int) throws(Failure) -> MetadataJSON {
    try checkDepth(depth)
    index += 1
    var fields: [String: MetadataJSON] = [:]
    skipWhiteSpace()
    if try consume(UInt8(ascii: "}")) { return .object(fields) }
    while true {
      skipWhiteSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw failure("unexpected \(describeCurrent()), expected a key in quotes")
      }
      let keyStart = index
      let key = try string()
      skipWhiteSpace()
      guard try consume(UInt8(ascii: ":")) else { throw failure("unexpected \(describeCurrent()), expected \":\"") }
      skipWhiteSpace()
      let member = try value(depth: depth)
      if fields.updateValue(member, forKey: key) != nil {
        index = keyStart
        throw failure("the key \(Self.quoted(key)) is given twice in one object")
      }
      skipWhiteSpace()
      if try consume(UInt8(ascii: "}")) { return .object(fields) }
      guard try consume(UInt8(ascii: ",")) else {
        throw failure("unexpected \(describeCurrent()), expected \",\" or \"}\"")
      }
    }
  }

  private mutating func array(depth: Int) throws(Failure) -> MetadataJSON {
    try checkDepth(depth)
    index += 1
    var elements: [MetadataJSON] = []
    skipWhiteSpace()
    if try consume(UInt8(ascii: "]")) { return .array(elements) }
    while true {
      skipWhiteSpace()
      elements.append(try value(depth: depth))
      skipWhiteSpace()
      if try consume(UInt8(ascii: "]")) { return .array(elements) }
      guard try consume(UInt8(ascii: ",")) else {
        throw failure("unexpected \(describeCurrent()), expected \",\" or \"]\"")
      }
    }
  }

  private func checkDepth(_ depth: Int) throws(Failure) {
    if depth > maximumDepth {
      throw failure("arrays and objects are nested more than \(maximumDepth) deep")
    }
  }

  private mutating func literal(_ word: String, _ value: MetadataJSON) throws(Failure) -> MetadataJSON {
    let expected = Array(word.utf8)
    guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
      throw failure("unexpected \(describeCurrent()), expected a value")
    }
    index += expected.count
    return value
  }

  private mutating func number() throws(Failure) -> MetadataJSON {
    let start = index
    var isInteger = true
    func digits() -> Int {
      let first = index
      while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
      return index - first
    }
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    let integerStart = index
    let integerDigits = digits()
    if integerDigits == 0 { throw failure("a number needs a digit after \"-\"") }
    if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") {
      index = integerStart
      throw failure("a number does not start with 0 unless it is 0")
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      isInteger = false
      index += 1
      if digits() == 0 { throw failure("a number needs a digit after \".\"") }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      if digits() == 0 { throw failure("a number needs a digit in its exponent") }
    }
    if index - start > Self.maximumNumberLength {
      index = start
      throw failure("a number is longer than \(Self.maximumNumberLength) characters")
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    if isInteger, let integer = Int(text) { return .integer(integer) }
    guard let double = Double(text), double.isFinite else {
      index = start
      throw failure("the number \(text.prefix(40)) is out of range")
    }
    return .number(double)
  }

  // MARK: - Strings

  private mutating func string() throws(Failure) -> String {
    index += 1
    // The string's UTF-8 so far, kept as bytes: runs of the file's bytes, each checked where it ends, and the
    // escapes. Not a `String.UnicodeScalarView`: its `append(contentsOf:)` builds a new string each time, so a
    // string of many escapes took time in the square of its length (a 6 MB "a\n" string, over a minute).
    var utf8: [UInt8] = []
    var run = index
    // Adds the file's bytes from `run` up to `index`, refusing ill-formed UTF-8.
    func flush(_ parser: JSONParser) throws(Failure) {
      guard run < parser.index else { return }
      let slice = parser.bytes[run..<parser.index]
      guard slice.allSatisfy({ $0 < 0x80 }) || String(validating: slice, as: UTF8.self) != nil else {
        throw parser.failure("a string holds bytes that are not UTF-8")
      }
      utf8.append(contentsOf: slice)
    }
    while true {
      guard index < bytes.count else { throw failure("a string is not closed: the file ends inside it") }
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        if utf8.isEmpty {
          // No escape: the file's bytes as they are.
          guard let text = String(validating: bytes[run..<index], as: UTF8.self) else {
            throw failure("a string holds bytes that are not UTF-8")
          }
          index += 1
          return text
        }
        try flush(self)
        index += 1
        return String(decoding: utf8, as: UTF8.self)
      }
      if byte < 0x20 {
        throw failure("a string holds the control character U+\(Self.hex(UInt32(byte))); write it as \\u escape")
      }
      if byte != UInt8(ascii: "\\") {
        index += 1
        continue
      }
      try flush(self)
      index += 1
      guard index < bytes.count else { throw failure("a string is not closed: the file ends inside it") }
      let escape = bytes[index]
      index += 1
      switch escape {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
      case UInt8(ascii: "b"): utf8.append(0x08)
      case UInt8(ascii: "f"): utf8.append(0x0C)
      case UInt8(ascii: "n"): utf8.append(0x0A)
      case UInt8(ascii: "r"): utf8.append(0x0D)
      case UInt8(ascii: "t"): utf8.append(0x09)
      case UInt8(ascii: "u"): utf8.append(contentsOf: String(try unicodeEscape()).utf8)
      default:
        index -= 2
        throw failure("a string holds the unknown escape \\\(Character(Unicode.Scalar(escape)))")
      }
      run = index
    }
  }

  /// The scalar of a `\uXXXX` escape (the `\u` read), with its low surrogate's escape when it is a high surrogate.
  private mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
    let start = index - 2
    let first = try hexQuad()
    var value = first
    if (0xD800...0xDBFF).contains(first) {
      guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
        index = start
        throw failure("a string holds a lone surrogate escape \\u\(Self.hex(first))")
      }
      index += 2
      let second = try hexQuad()
      guard (0xDC00...0xDFFF).contains(second) else {
        index = start
        throw failure("a string holds a lone surrogate escape \\u\(Self.hex(first))")
      }
      value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
    }
    guard let scalar = Unicode.Scalar(value) else {
      index = start
      throw failure("a string holds a lone surrogate escape \\u\(Self.hex(first))")
    }
    return scalar
  }

  private mutating func hexQuad() throws(Failure) -> UInt32 {
    guard bytes.count - index >= 4 else { throw failure("a \\u escape needs four hexadecimal digits") }
    var value: UInt32 = 0
    for byte in bytes[index..<index + 4] {
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("a \\u escape needs four hexadecimal digits")
      }
      value = value << 4 | UInt32(digit)
    }
    index += 4
    return value
  }

  // MARK: - Helpers

  private mutating func skipWhiteSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  private mutating func consume(_ byte: UInt8) throws(Failure) -> Bool {
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  /// What is at `index`, for a message: `"x"`, a byte in hexadecimal, or the end of the file.
  private func describeCurrent() -> String {
    guard index < bytes.count else { return "end of the file" }
    let byte = bytes[index]
    if byte > 0x20 && byte < 0x7F { return "\"\(Character(Unicode.Scalar(byte)))\"" }
    return "byte 0x\(String(byte, radix: 16, uppercase: true))"
  }

  /// A failure at `index`, with its line and column (both from 1; the column counts bytes).
  private func failure(_ problem: String) -> Failure {
    let end = min(index, bytes.count)
    var line = 1
    var lineStart = 0
    for position in 0..<end where bytes[position] == 0x0A {
      line += 1
      lineStart = position + 1
    }
    return Failure(line: line, column: end - lineStart + 1, problem: problem)
  }

  static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// `text` in quotes, cut to 60 characters, control characters escaped: a key or a name in a message.
  static func quoted(_ text: String) -> String {
    let shown = text.count <= 60 ? text : String(text.prefix(57)) + "…"
    var result = "\""
    for scalar in shown.unicodeScalars {
      if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\"" || scalar == "\\" {
        result += scalar == "\"" ? "\\\"" : scalar == "\\" ? "\\\\" : "\\u" + hex(scalar.value)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
