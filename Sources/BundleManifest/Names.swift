/// The grammar of the names the host builds paths and identities from, checked where manifests are parsed.
///
/// A bundle is hostile input: its `CFBundleIdentifier` becomes `Containers/<id>` and `Logs/<id>.log`, its app groups
/// become `AppGroup/<group>`, its `CFBundleExecutable` is joined to its folder and run. So every such name is
/// checked here, once, and a bundle whose names break the grammar does not load (`AppBundle.load` throws
/// `InvalidBundleNames`): no layer above can get an unchecked name from the model. docs/VALIDATION.md states the
/// grammar and its rules.
public enum NameGrammar {
  /// The longest bundle or app-group identifier, in bytes. The host makes file names of identifiers
  /// (`Containers/<id>`, `Logs/<id>.log`, `Library/Preferences/<group>.json`, and beside a document the store's
  /// `.<name>.journal`, `.<name>.lock`, `.<name>.tmp-…`); with 200 every one of them stays within Linux's NAME_MAX
  /// (255 bytes).
  public static let maximumIdentifierLength = 200
  /// The longest file name (an executable, a bundle folder), in bytes: Linux's NAME_MAX.
  public static let maximumFileNameLength = 255
  /// The longest `com.apple.developer.team-identifier` (Apple's are 10 characters).
  public static let maximumTeamIdentifierLength = 64

  /// The characters of one reverse-DNS component: ASCII letters, digits and `-` (Apple: "alphanumeric characters
  /// (A–Z, a–z, and 0–9), hyphens (-), and periods (.)").
  static func isComponentCharacter(_ byte: UInt8) -> Bool {
    (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
  }

  /// nil when `text` is a reverse-DNS name (components of ASCII letters, digits and `-`, separated by single dots,
  /// none empty or starting with `-`) of at least `minimumComponents` components and at most
  /// `maximumIdentifierLength` bytes; else what is wrong, in words that follow the quoted name.
  static func reverseDNSProblem(_ text: String, minimumComponents: Int) -> String? {
    let bytes = Array(text.utf8)
    if bytes.isEmpty { return "is empty" }
    if bytes.count > maximumIdentifierLength {
      return "is \(bytes.count) bytes long; the limit is \(maximumIdentifierLength)"
    }
    if let bad = text.unicodeScalars.first(where: {
      !$0.isASCII || ($0 != "." && !isComponentCharacter(UInt8($0.value)))
    }) {
      return "contains \(describe(bad)); only ASCII letters, digits, \"-\" and \".\" are allowed"
    }
    let components = text.split(separator: ".", omittingEmptySubsequences: false)
    if components.contains(where: \.isEmpty) {
      return "has an empty component (a leading, trailing or doubled \".\")"
    }
    if let dash = components.first(where: { $0.hasPrefix("-") }) {
      return "has a component starting with \"-\" (\"\(dash)\")"
    }
    if components.count < minimumComponents {
      return "has \(components.count) component\(components.count == 1 ? "" : "s"); at least \(minimumComponents) "
        + "are needed"
    }
    return nil
  }

  /// nil when `name` is one safe path component: 1 to 255 bytes of UTF-8, not starting with `.` (so neither `.`,
  /// `..` nor a hidden file), without `/`, NUL, control characters (C0, DEL, C1), Unicode format characters (bidi
  /// controls, zero-width characters) or line and paragraph separators; else what is wrong.
  public static func fileNameProblem(_ name: String) -> String? {
    let count = name.utf8.count
    if count == 0 { return "is empty" }
    if count > maximumFileNameLength { return "is \(count) bytes long; the limit is \(maximumFileNameLength)" }
    if name == "." || name == ".." { return "is \"\(name)\", which names a folder, not a file in it" }
    if name.contains("/") { return "contains \"/\": it must be one name, not a path" }
    if name.hasPrefix(".") { return "starts with \".\" (a hidden file)" }
    if let bad = name.unicodeScalars.first(where: isUnsafeInFileName) {
      return "contains \(describe(bad)), a control or invisible character"
    }
    return nil
  }

  static func isUnsafeInFileName(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
    default: return false
    }
  }

  /// `"/" (U+002F)` for a printable ASCII character, `U+0430` for anything else.
  static func describe(_ scalar: Unicode.Scalar) -> String {
    let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
    if scalar.value >= 0x21 && scalar.value < 0x7F { return "\"\(Character(scalar))\" (\(code))" }
    return code
  }

  /// `text` in quotes, cut to 60 characters: an identifier in a message, however long it is.
  static func quoted(_ text: String) -> String {
    text.count <= 60 ? "\"\(text)\"" : "\"\(text.prefix(57))…\" (\(text.utf8.count) bytes)"
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}

/// A name the grammar refuses, with what is wrong.
public struct InvalidName: Error, Sendable, Equatable, CustomStringConvertible {
  /// What the name is: "bundle identifier", "app group identifier", "team identifier", "file name".
  public var kind: String
  public var text: String
  /// What is wrong, in words that follow the quoted name ("has an empty component ...").
  public var problem: String

  public var description: String { "\(NameGrammar.quoted(text)) is not a valid \(kind): it \(problem)" }
}

/// A `CFBundleIdentifier` that follows the grammar: a reverse-DNS name of at least two components of ASCII letters,
/// digits and `-` (not starting with `-`), at most 200 bytes, such as `com.example.rooms`. The only way to make one
/// is through the check, so a value of this type is always safe to make a file name of.
public struct BundleIdentifier: Sendable, Hashable, Comparable, CustomStringConvertible {
  public let rawValue: String

  /// - Throws: `InvalidName` saying what is wrong.
  public init(_ text: String) throws(InvalidName) {
    if let problem = Self.problem(text) {
      throw InvalidName(kind: "bundle identifier", text: text, problem: problem)
    }
    rawValue = text
  }

  /// nil when `text` breaks the grammar.
  public init?(validating text: String) {
    guard Self.problem(text) == nil else { return nil }
    rawValue = text
  }

  /// Only for `AppBundle.load(from:settings:checkingNames: false)`, which tests use to show the harm of a bad name.
  init(unchecked text: String) { rawValue = text }

  /// nil when `text` is a valid bundle identifier, else what is wrong (words that follow the quoted identifier).
  public static func problem(_ text: String) -> String? {
    NameGrammar.reverseDNSProblem(text, minimumComponents: 2)
  }

  public var components: [Substring] { rawValue.split(separator: ".") }

  /// Whether this is `app`'s identifier plus exactly one more component (`com.example.rooms.RoomsIntents` of
  /// `com.example.rooms`): what an extension's identifier must be.
  public func isExtensionIdentifier(of app: BundleIdentifier) -> Bool {
    rawValue.hasPrefix(app.rawValue + ".") && !rawValue.dropFirst(app.rawValue.count + 1).contains(".")
  }

  /// Whether the two are the same identifier apart from letter case (Apple compares bundle identifiers that way).
  public func isSame(as other: BundleIdentifier) -> Bool {
    rawValue.lowercased() == other.rawValue.lowercased()
  }

  public var description: String { rawValue }
  public static func < (a: BundleIdentifier, b: BundleIdentifier) -> Bool { a.rawValue < b.rawValue }
}

/// An entry of `com.apple.security.application-groups` that follows the grammar: `group.` followed by a reverse-DNS
/// name of at least two components (the bundle-identifier grammar), at most 200 bytes in all, such as
/// `group.com.example.rooms`.
public struct AppGroupIdentifier: Sendable, Hashable, Comparable, CustomStringConvertible {
  public let rawValue: String

  /// - Throws: `InvalidName` saying what is wrong.
  public init(_ text: String) throws(InvalidName) {
    if let problem = Self.problem(text) {
      throw InvalidName(kind: "app group identifier", text: text, problem: problem)
    }
    rawValue = text
  }

  public init?(validating text: String) {
    guard Self.problem(text) == nil else { return nil }
    rawValue = text
  }

  /// nil when `text` is a valid app-group identifier, else what is wrong, as a whole sentence that starts with the
  /// quoted identifier. (AppGroupStore's `AppGroupContainer.identifierProblem`, which the SDK and the store check,
  /// is the same grammar; a test holds them together.)
  public static func problem(_ text: String) -> String? {
    let quoted = NameGrammar.quoted(text)
    guard text.hasPrefix("group.") else { return "\(quoted) does not start with \"group.\"" }
    if text.utf8.count > NameGrammar.maximumIdentifierLength {
      return "\(quoted) is \(text.utf8.count) bytes long; the limit is \(NameGrammar.maximumIdentifierLength)"
    }
    if let problem = NameGrammar.reverseDNSProblem(String(text.dropFirst("group.".count)), minimumComponents: 2) {
      return "\(quoted) is not \"group.\" followed by a reverse-DNS name such as com.example.app: what follows "
        + "\"group.\" \(problem)"
    }
    return nil
  }

  public var description: String { rawValue }
  public static func < (a: AppGroupIdentifier, b: AppGroupIdentifier) -> Bool { a.rawValue < b.rawValue }
}

/// Who owns bundle identifiers and app groups on a host: the entitlements' `com.apple.developer.team-identifier`
/// when the app's entitlements give one, else the app's bundle identifier without its last component
/// (`com.example` for `com.example.rooms`), or the whole identifier when that would leave a single component (so
/// `com.example` and `com.other` are not one team `com`). IntentHost has no code signing: a team is what the bundle
/// says, and the host holds it to that (README, "Installing").
public struct Team: Sendable, Hashable, Codable, CustomStringConvertible {
  public enum Source: String, Sendable, Codable {
    /// `com.apple.developer.team-identifier` in the app's entitlements.
    case teamIdentifier = "team-identifier"
    /// Derived from the app's bundle identifier.
    case bundleIdentifier = "bundle-identifier"
  }

  public var identifier: String
  public var source: Source

  public init(identifier: String, source: Source) {
    self.identifier = identifier
    self.source = source
  }

  /// The team of an app with identifier `app` whose entitlements declare `declared` (nil when they do not).
  public init(app: BundleIdentifier, declared: String?) {
    if let declared {
      self.init(identifier: declared, source: .teamIdentifier)
    } else {
      let components = app.components
      let prefix = components.count >= 3 ? components.dropLast().joined(separator: ".") : app.rawValue
      self.init(identifier: prefix, source: .bundleIdentifier)
    }
  }

  /// nil when `text` is a valid team identifier (1 to 64 ASCII letters and digits), else what is wrong.
  public static func problem(_ text: String) -> String? {
    if text.isEmpty { return "is empty" }
    if text.utf8.count > NameGrammar.maximumTeamIdentifierLength {
      return "is \(text.utf8.count) bytes long; the limit is \(NameGrammar.maximumTeamIdentifierLength)"
    }
    if let bad = text.unicodeScalars.first(where: {
      !$0.isASCII || $0 == "-" || !NameGrammar.isComponentCharacter(UInt8($0.value))
    }) {
      return "contains \(NameGrammar.describe(bad)); a team identifier is ASCII letters and digits"
    }
    return nil
  }

  /// "team A1B2C3D4E5" or "team com.example (from the bundle identifier)".
  public var description: String {
    source == .teamIdentifier ? "team \(identifier)" : "team \(identifier) (from the bundle identifier)"
  }
}
