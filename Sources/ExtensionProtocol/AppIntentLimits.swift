/// The bounds of the App Intents messages (docs/PROTOCOL.md, "App Intents"). Each message checks them where it is
/// decoded, so that no layer above meets a name, a text or a list outside them: a request to the host that breaks
/// one is answered `invalidParams`, an answer to the host that breaks one is a protocol fault, and the message says
/// which field and why. Lengths are in Unicode scalars.
public enum AppIntentLimits {
  /// The longest name: an intent's identifier, a parameter's, an entity type's, an enum case's, a property's.
  public static let maximumNameLength = 200
  /// The longest text the host says or shows: a dialog, a section's title, a thrown error's text, a snippet's text.
  public static let maximumTextLength = 1000
  /// The longest entity identifier (`ObjectValue.identifier` in an App Intents message), and a query's string.
  public static let maximumIdentifierLength = 1000
  /// The most items of one list: an intent's parameters, options (all sections together), entities, candidates,
  /// identifiers asked for, the items of an array value, the nodes of a snippet.
  public static let maximumItems = 500

  /// What is wrong with `name`, the value of `field`, or nil: a name is 1 to `maximumNameLength` Unicode scalars, a
  /// letter or `_` and then letters, digits and `_` (Unicode's identifier characters, XID, as Swift's own names): the
  /// names App Intents gives an intent, a parameter, an entity type, an enum case and a property are Swift names.
  public static func nameProblem(_ name: String, field: String) -> String? {
    let scalars = name.unicodeScalars
    guard let first = scalars.first else { return "\(field) is empty" }
    if scalars.count > maximumNameLength {
      return "\(field) is \(scalars.count) Unicode scalars long; the limit is \(maximumNameLength)"
    }
    if !(first == "_" || first.properties.isXIDStart) || !scalars.dropFirst().allSatisfy(\.properties.isXIDContinue) {
      return "\(field) is not a name (a letter or \"_\", then letters, digits and \"_\"): \(quoted(name))"
    }
    return nil
  }

  /// What is wrong with `text`, the value of `field`, or nil: not blank, at most `maximumTextLength` Unicode scalars.
  /// Control characters are not refused: the host shows them escaped, as everywhere.
  public static func textProblem(_ text: String, field: String) -> String? {
    if text.unicodeScalars.allSatisfy(\.properties.isWhitespace) { return "\(field) is blank" }
    return lengthProblem(text, field: field, limit: maximumTextLength)
  }

  /// What is wrong with an entity identifier (or a query's string) in `field`, or nil: 1 to
  /// `maximumIdentifierLength` Unicode scalars, no control characters (`DonationLimits.isControl`).
  public static func identifierProblem(_ identifier: String, field: String) -> String? {
    if identifier.isEmpty { return "\(field) is empty" }
    if let problem = lengthProblem(identifier, field: field, limit: maximumIdentifierLength) { return problem }
    if identifier.unicodeScalars.contains(where: DonationLimits.isControl) {
      return "\(field) contains a control character"
    }
    return nil
  }

  /// What is wrong with a list of `count` items in `field`, or nil: from `minimum` to `maximumItems`.
  public static func countProblem(_ count: Int, field: String, minimum: Int = 0) -> String? {
    if count < minimum { return "\(field) has \(count) items; give at least \(minimum)" }
    if count > maximumItems { return "\(field) has \(count) items; the limit is \(maximumItems)" }
    return nil
  }

  /// What is wrong with `value` in `field`, or nil: an enum case is a name (the AppEnum case's identifier); an
  /// object (an AppEntity) has an identifier as `identifierProblem` wants, a display string of at most
  /// `maximumTextLength`, and properties named as `nameProblem` wants, each value checked the same way; an array has
  /// at most `maximumItems` items. Strings, numbers and dates are bounded by the message's size alone.
  public static func valueProblem(_ value: ParameterValue, field: String) -> String? {
    switch value {
    case .string, .integer, .decimal, .boolean, .date: return nil
    case .enumCase(let name): return nameProblem(name, field: "\(field).value")
    case .object(let object): return objectProblem(object, field: "\(field).value")
    case .array(let items):
      if let problem = countProblem(items.count, field: "\(field).value") { return problem }
      for (index, item) in items.enumerated() {
        if let problem = valueProblem(item, field: "\(field).value[\(index)]") { return problem }
      }
      return nil
    }
  }

  /// What is wrong with an object value (an AppEntity) in `field`, or nil (see `valueProblem`).
  public static func objectProblem(_ object: ObjectValue, field: String) -> String? {
    if let problem = identifierProblem(object.identifier, field: "\(field).identifier") { return problem }
    if let problem = lengthProblem(object.displayString, field: "\(field).displayString", limit: maximumTextLength) {
      return problem
    }
    return propertiesProblem(object.properties ?? [:], field: "\(field).properties")
  }

  /// What is wrong with values by name in `field` (an intent's parameters, an entity's properties), or nil: at most
  /// `maximumItems`, each named as `nameProblem` wants, each value as `valueProblem` wants.
  public static func propertiesProblem(_ values: [String: ParameterValue], field: String) -> String? {
    if let problem = countProblem(values.count, field: field) { return problem }
    for (name, value) in values.sorted(by: { $0.key < $1.key }) {
      if let problem = nameProblem(name, field: "the key \(quoted(name)) of \(field)") { return problem }
      if let problem = valueProblem(value, field: "\(field).\(name)") { return problem }
    }
    return nil
  }

  /// What is wrong with a snippet in `field`, or nil: at most `maximumItems` nodes, each text, label and value at
  /// most `maximumTextLength` Unicode scalars.
  public static func snippetProblem(_ snippet: SnippetNode, field: String) -> String? {
    var nodes = 0
    var pending = [snippet]
    while let node = pending.popLast() {
      nodes += 1
      if nodes > maximumItems { return "\(field) has more than \(maximumItems) nodes" }
      switch node {
      case .text(let text):
        if let problem = lengthProblem(text, field: "\(field): a text", limit: maximumTextLength) { return problem }
      case .row(let label, let value):
        for text in [label, value] {
          if let problem = lengthProblem(text, field: "\(field): a row", limit: maximumTextLength) { return problem }
        }
      case .stack(let children): pending += children
      }
    }
    return nil
  }

  private static func lengthProblem(_ text: String, field: String, limit: Int) -> String? {
    let length = text.unicodeScalars.count
    return length > limit ? "\(field) is \(length) Unicode scalars long; the limit is \(limit)" : nil
  }

  /// `text` in quotes for a message, cut at 40 characters.
  static func quoted(_ text: String) -> String {
    "\"" + (text.count > 40 ? String(text.prefix(40)) + "…" : text) + "\""
  }
}

extension KeyedDecodingContainer {
  /// Throws `problem`, when there is one, as `DecodingError.dataCorrupted` at this container's path.
  func refuse(_ problem: String?) throws {
    if let problem { throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: problem)) }
  }

  /// Decodes the name at `key`, refusing what `AppIntentLimits.nameProblem` refuses.
  func decodeName(forKey key: Key) throws -> String {
    let name = try decode(String.self, forKey: key)
    try refuse(AppIntentLimits.nameProblem(name, field: key.stringValue))
    return name
  }

  /// Decodes the text at `key` if present, refusing what `AppIntentLimits.textProblem` refuses.
  func decodeTextIfPresent(forKey key: Key) throws -> String? {
    guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
    try refuse(AppIntentLimits.textProblem(text, field: key.stringValue))
    return text
  }

  /// Decodes the value at `key`, refusing what `AppIntentLimits.valueProblem` refuses.
  func decodeValue(forKey key: Key) throws -> ParameterValue {
    let value = try decode(ParameterValue.self, forKey: key)
    try refuse(AppIntentLimits.valueProblem(value, field: key.stringValue))
    return value
  }

  /// Decodes the value at `key` if present (and not null), as `decodeValue`.
  func decodeValueIfPresent(forKey key: Key) throws -> ParameterValue? {
    guard contains(key), try !decodeNil(forKey: key) else { return nil }
    return try decodeValue(forKey: key)
  }

  /// Decodes the values at `key`, `minimum` to `AppIntentLimits.maximumItems` of them, each as `decodeValue`.
  func decodeValues(forKey key: Key, minimum: Int = 0) throws -> [ParameterValue] {
    let values = try decode([ParameterValue].self, forKey: key)
    try refuse(AppIntentLimits.countProblem(values.count, field: key.stringValue, minimum: minimum))
    for (index, value) in values.enumerated() {
      try refuse(AppIntentLimits.valueProblem(value, field: "\(key.stringValue)[\(index)]"))
    }
    return values
  }

  /// Decodes the snippet at `key` if present, refusing what `AppIntentLimits.snippetProblem` refuses.
  func decodeSnippetIfPresent(forKey key: Key) throws -> SnippetNode? {
    guard let snippet = try decodeIfPresent(SnippetNode.self, forKey: key) else { return nil }
    try refuse(AppIntentLimits.snippetProblem(snippet, field: key.stringValue))
    return snippet
  }

  /// Decodes the name of a closed set at `key`: an unknown name is refused listing the set, as `what` ("a perform
  /// mode").
  func decodeCase<Name: RawRepresentable<String> & CaseIterable>(
    _ type: Name.Type, forKey key: Key, as what: String
  ) throws -> Name {
    let raw = try decode(String.self, forKey: key)
    guard let name = Name(rawValue: raw) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: self, debugDescription: unknownName(raw, of: Name.self, as: what))
    }
    return name
  }
}

/// "\"purchase\" is not a confirmation action name; it is one of add, addData, …".
func unknownName<Name: RawRepresentable<String> & CaseIterable>(_ raw: String, of type: Name.Type, as what: String)
  -> String
{
  "\(AppIntentLimits.quoted(raw)) is not \(what); it is one of \(Name.allCases.map(\.rawValue).joined(separator: ", "))"
}
