/// Swift spellings of names read from an intent definition, which is hostile input: identifiers that are always
/// valid Swift, and string literals that always say exactly the name.
enum SwiftIdentifier {
  /// The words that must be written in backticks to be an identifier, and the contextual keywords, which backticks
  /// never hurt.
  static let keywords: Set<String> = [
    "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
    "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private", "precedencegroup",
    "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch",
    "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
    "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super",
    "throws", "true", "try", "actor", "any", "async", "convenience", "didSet", "dynamic", "each", "final", "get",
    "indirect", "infix", "isolated", "lazy", "macro", "mutating", "nonmutating", "optional", "override", "package",
    "postfix", "prefix", "required", "set", "some", "unowned", "weak", "willSet", "consume", "copy", "discard",
    "sending", "then", "Type", "Protocol",
  ]

  /// Names no declaration of ours may take, even in backticks: they mean something else in the positions the
  /// generated code uses them (`x.self`, `T.Type`, `init`), or they are the modules the generated code names.
  static let unusable: Set<String> = [
    "_", "self", "Self", "Type", "Protocol", "init", "deinit", "subscript", "Any", "Swift", "ExtensionSDK",
    "Foundation", "FoundationEssentials",
  ]

  /// `name` made an identifier: ASCII letters, digits and underscores are kept; any other character separates words,
  /// and the letter after it is capitalised ("room number" → "roomNumber", "x-y" → "xY"); a leading digit gets an
  /// underscore. Empty when `name` has no letter, digit or underscore at all.
  static func mangled(_ name: String) -> String {
    var result = ""
    var capitalizeNext = false
    for scalar in name.unicodeScalars {
      if isIdentifierCharacter(scalar) {
        let character = Character(scalar)
        result.append(capitalizeNext && !result.isEmpty ? Character(character.uppercased()) : character)
        capitalizeNext = false
      } else {
        capitalizeNext = true
      }
    }
    if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { result = "_" + result }
    return result
  }

  /// Whether `name` is already an identifier as `mangled` makes them (so that mangling left it as it was).
  static func isPlain(_ name: String) -> Bool { mangled(name) == name }

  /// `identifier` as written in a declaration or a use: in backticks when it is a keyword.
  static func escaped(_ identifier: String) -> String {
    keywords.contains(identifier) ? "`\(identifier)`" : identifier
  }

  /// `identifier` with its first letter capitalised, to follow a prefix ("roomNumber" → "RoomNumber" in
  /// `resolveRoomNumber`).
  static func capitalized(_ identifier: String) -> String {
    guard let first = identifier.first else { return identifier }
    return first.uppercased() + identifier.dropFirst()
  }

  /// A Swift string literal that is `text` exactly: quotes, backslashes and every character outside printable ASCII
  /// are escapes, so no name can end the literal, interpolate, or put a control character in the generated file.
  static func literal(_ text: String) -> String {
    "\"" + escapedText(text) + "\""
  }

  /// `text` as the inside of a Swift string literal (see `literal`): printable ASCII only, for a comment too.
  static func escapedText(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case " "..."~": result.unicodeScalars.append(scalar)
      default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      }
    }
    return result
  }

  private static func isIdentifierCharacter(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
  }
}
