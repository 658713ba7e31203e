/// A name the metadata gives a type or a member: an action's identifier (`OrderFuelIntent`), a parameter's name
/// (`location`), an enum's or an entity's type name, an enum case's identifier (`home`), a query's identifier.
///
/// Checked where it is parsed, so no layer above gets an unchecked one: like a Swift identifier, a letter or `_`
/// then letters, digits and `_` (Unicode's XID_Start and XID_Continue, as Swift's grammar), at most
/// `maximumLength` bytes of UTF-8, with no control, format (invisible or bidi), private-use or unassigned character.
public struct MetadataIdentifier: CheckedName {
  /// The longest identifier, in bytes of UTF-8.
  public static let maximumLength = 255

  public let rawValue: String

  /// nil when `text` breaks the grammar (`problem(_:)` says why).
  public init?(validating text: String) {
    guard Self.problem(text) == nil else { return nil }
    rawValue = text
  }

  /// What is wrong with `text` as an identifier, in words that follow the quoted name ("is empty", "contains
  /// U+0000, ..."); nil when it is one.
  public static func problem(_ text: String) -> String? {
    if let problem = lengthProblem(text) { return problem }
    for (position, scalar) in text.unicodeScalars.enumerated() {
      if isUnsafe(scalar) { return "contains \(describe(scalar)), a control or invisible character" }
      let allowed =
        position == 0
        ? scalar == "_" || scalar.properties.isXIDStart
        : scalar.properties.isXIDContinue
      if !allowed {
        return position == 0
          ? "starts with \(describe(scalar)); an identifier starts with a letter or \"_\""
          : "contains \(describe(scalar)); an identifier has only letters, digits and \"_\""
      }
    }
    return nil
  }

  /// Control, format (zero-width, bidi), separator, private-use, surrogate and unassigned code points.
  static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
    default: return false
    }
  }

  /// `"-" (U+002D)` for a printable ASCII character, `U+0430` for any other.
  static func describe(_ scalar: Unicode.Scalar) -> String {
    let code = "U+" + JSONParser.hex(scalar.value)
    if scalar.value >= 0x21 && scalar.value < 0x7F { return "\"\(Character(scalar))\" (\(code))" }
    return code
  }
}

/// A module-qualified name, identifiers joined by dots: a query's `fullyQualifiedIdentifier` and an entity's
/// `defaultQueryIdentifier` (`Weather.LocationSearchEntityQuery`). Each component follows `MetadataIdentifier`'s
/// grammar; the whole is at most `maximumLength` bytes.
public struct QualifiedName: CheckedName {
  /// The longest qualified name, in bytes of UTF-8.
  public static let maximumLength = 1024

  public let rawValue: String

  /// nil when `text` breaks the grammar (`problem(_:)` says why).
  public init?(validating text: String) {
    guard Self.problem(text) == nil else { return nil }
    rawValue = text
  }

  /// What is wrong with `text` as a qualified name, in words that follow the quoted name; nil when it is one.
  public static func problem(_ text: String) -> String? {
    if let problem = lengthProblem(text) { return problem }
    for component in text.split(separator: ".", omittingEmptySubsequences: false) {
      if component.isEmpty { return "has an empty component (a leading, trailing or doubled \".\")" }
      if let problem = MetadataIdentifier.problem(String(component)) {
        return "has a component \(JSONParser.quoted(String(component))) that \(problem)"
      }
    }
    return nil
  }

  /// The last component: the type's own name (`LocationSearchEntityQuery`).
  public var lastComponent: String { String(rawValue.split(separator: ".").last ?? "") }
}

/// A name made only through its grammar's check (each type's `init?(validating:)` is the one way in, so a value is
/// always valid), shown as it is and ordered by its UTF-8 bytes.
public protocol CheckedName: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The longest such name, in bytes of UTF-8.
  static var maximumLength: Int { get }
  var rawValue: String { get }
  /// What is wrong with `text` as such a name, in words that follow the quoted name; nil when it is one.
  static func problem(_ text: String) -> String?
}

extension CheckedName {
  /// "is empty", or "is N bytes long; the limit is M"; nil when `text` has 1 to `maximumLength` bytes.
  static func lengthProblem(_ text: String) -> String? {
    let length = text.utf8.count
    if length == 0 { return "is empty" }
    return length > maximumLength ? "is \(length) bytes long; the limit is \(maximumLength)" : nil
  }

  public static func < (a: Self, b: Self) -> Bool { a.rawValue.utf8.lexicographicallyPrecedes(b.rawValue.utf8) }

  public var description: String { rawValue }
}
