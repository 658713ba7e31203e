/// The limits the reader holds untrusted metadata to.
public struct MetadataLimits: Sendable, Hashable {
  /// The largest file, in bytes (Apple's own apps' files are tens of kilobytes).
  public var maximumBytes: Int
  /// The most arrays and objects nested in each other (Apple's deepest, a `parameterSummary` with a `When` and a
  /// `Switch`, is 17).
  public var maximumDepth: Int

  public init(maximumBytes: Int, maximumDepth: Int) {
    self.maximumBytes = maximumBytes
    self.maximumDepth = maximumDepth
  }

  /// 8 MiB, nested 64 deep.
  public static let standard = MetadataLimits(maximumBytes: 8 << 20, maximumDepth: 64)

  /// The most parameters of one action: the protocol's limit on an intent's parameters (`AppIntentLimits.maximumItems`
  /// in ExtensionProtocol, docs/PROTOCOL.md), so that every intent the reader lets through can be sent to perform.
  public static let maximumParameters = 500
}

/// What the reader made of `extract.actionsdata`: the document, and a finding for every key, value type and
/// primitive type it does not read (notes) and for a `version` it does not know (a warning).
public struct MetadataReading: Sendable, Hashable {
  public var document: MetadataDocument
  public var findings: [MetadataFinding]

  public init(document: MetadataDocument, findings: [MetadataFinding] = []) {
    self.document = document
    self.findings = findings
  }
}

/// Reads `Metadata.appintents/extract.actionsdata` and `version.json` from untrusted bytes.
///
/// The bytes are refused when they are larger than the limit, nested deeper than the limit, not strict JSON, or when
/// a key IntentHost reads has another type than Xcode writes or an identifier breaks `MetadataIdentifier`'s grammar:
/// the `MetadataError` names the file, the JSON path and the fix. Keys IntentHost does not read are reported, one
/// note each with its path, and dropped, except the ones docs/APPINTENTS.md lists as Apple's and not needed, which
/// are dropped without a word. It never traps, whatever the bytes.
public enum MetadataReader {
  /// The folder Xcode writes at a bundle's top.
  public static let folderName = "Metadata.appintents"
  /// The metadata file in it.
  public static let actionsDataName = "extract.actionsdata"
  /// The version file beside it.
  public static let versionName = "version.json"

  /// Reads `extract.actionsdata`.
  /// - Parameters:
  ///   - file: the file's path, for messages.
  ///   - limits: the largest file and the deepest nesting accepted.
  /// - Returns: the document, with a note for each key it does not read.
  /// - Throws: `MetadataError` naming the file, the JSON path, what is wrong and the fix.
  public static func read(
    _ bytes: some Collection<UInt8>, file: String, limits: MetadataLimits = .standard
  ) throws(MetadataError) -> MetadataReading {
    var reader = Reader(file: file)
    let root = try reader.parse(bytes, limits: limits)
    let document = try reader.document(root)
    return MetadataReading(document: document, findings: reader.allFindings)
  }

  /// Reads `version.json` (`{"version": "3.0", "toolsVersion": "17E6107"}`).
  /// - Returns: the version, with a note for each key it does not read.
  /// - Throws: `MetadataError` naming the file, the JSON path, what is wrong and the fix.
  public static func readVersion(
    _ bytes: some Collection<UInt8>, file: String, limits: MetadataLimits = .standard
  ) throws(MetadataError) -> (version: MetadataVersion, findings: [MetadataFinding]) {
    var reader = Reader(file: file)
    var fields = try reader.fields(try reader.parse(bytes, limits: limits), at: .root)
    let version = MetadataVersion(
      version: try fields.requiredString("version", fix: "write {\"version\": \"3.0\"}, as Xcode does"),
      toolsVersion: try fields.string("toolsVersion"))
    reader.finish(fields)
    return (version, reader.allFindings)
  }
}

private typealias Document = MetadataDocument
private typealias LocalizedText = MetadataDocument.LocalizedText

/// One reading of one file: its path for messages and the findings so far.
private struct Reader {
  /// The most notes one file gets; past them, one note says how many more there were (a hostile file could have a
  /// million unknown keys).
  static let maximumNotes = 100

  let file: String
  private(set) var findings: [MetadataFinding] = []
  private var notesLeftOut = 0

  init(file: String) { self.file = file }

  /// Adds a finding about a key, a value type or the version, unless the file has had `maximumNotes` already.
  mutating func note(_ finding: MetadataFinding) {
    if findings.count < Self.maximumNotes { findings.append(finding) } else { notesLeftOut += 1 }
  }

  /// The findings, with one more note for those left out.
  var allFindings: [MetadataFinding] {
    guard notesLeftOut > 0 else { return findings }
    return findings + [
      MetadataFinding(
        .note, .unknownKey, file: file,
        "has \(notesLeftOut) more keys or types IntentHost does not read, not listed",
        fix: "check the file against docs/APPINTENTS.md")
    ]
  }

  func error(_ path: JSONPath, _ problem: String, fix: String? = nil) -> MetadataError {
    MetadataError(file: file, path: path.description, problem: problem, fix: fix)
  }

  mutating func parse(_ bytes: some Collection<UInt8>, limits: MetadataLimits) throws(MetadataError) -> MetadataJSON {
    if bytes.count > limits.maximumBytes {
      throw error(
        .root, "is \(bytes.count) bytes, larger than the \(limits.maximumBytes)-byte limit",
        fix: "keep the metadata to the app's own intents, entities, enums and shortcuts")
    }
    if bytes.isEmpty { throw error(.root, "is empty", fix: "write the metadata's JSON object into it") }
    do {
      return try JSONParser.parse(Array(bytes), maximumDepth: limits.maximumDepth)
    } catch {
      throw self.error(
        .root, "is not valid JSON: \(error.description)",
        fix: "correct it there (the file is plain UTF-8 JSON), then check it again with `assistant validate`")
    }
  }

  func fields(_ value: MetadataJSON, at path: JSONPath) throws(MetadataError) -> Fields {
    guard case .object(let values) = value else {
      throw error(path, "is \(value.kindDescription), expected an object")
    }
    return Fields(values: values, path: path, file: file)
  }

  /// A note for each key of `fields` that was not read and is not one of Apple's that IntentHost leaves aside.
  mutating func finish(_ fields: Fields, appleKeys: Set<String> = []) {
    for key in fields.values.keys.sorted() where !fields.read.contains(key) && !appleKeys.contains(key) {
      note(
        MetadataFinding(
          .note, .unknownKey, file: file, path: fields.path.appending(key).description,
          "is a key IntentHost does not read; it is ignored",
          fix: "check its spelling against docs/APPINTENTS.md, or remove it"))
    }
  }

  // MARK: - The document

  mutating func document(_ root: MetadataJSON) throws(MetadataError) -> Document {
    var fields = try fields(root, at: .root)
    // The version first: what the rest means depends on it.
    guard let version = try fields.integer("version") else {
      throw error(
        JSONPath.root.appending("version"), "is missing",
        fix: "add \"version\": \(Document.knownVersion) at the top of the file, as Xcode writes it")
    }
    if version != Document.knownVersion {
      note(
        MetadataFinding(
          .warning, .version, file: file, path: "version",
          "is \(version); IntentHost reads version \(Document.knownVersion), and reports what it does not know",
          fix: "write the file as version \(Document.knownVersion) (docs/APPINTENTS.md)"))
    }
    var document = Document(version: version)
    document.actions = try map(&fields, "actions", identifiers: "action identifiers") {
      reader, value, key, path throws(MetadataError) in
      try reader.action(value, key: key, at: path)
    }
    document.entities = try map(&fields, "entities", identifiers: "entity type names") {
      reader, value, key, path throws(MetadataError) in
      try reader.entity(value, key: key, at: path)
    }
    document.queries = try map(&fields, "queries", identifiers: "query identifiers") {
      reader, value, key, path throws(MetadataError) in
      try reader.query(value, key: key, at: path)
    }
    document.enums = try list(&fields, "enums") { reader, value, path throws(MetadataError) in
      try reader.enumeration(value, at: path)
    }
    document.autoShortcuts = try list(&fields, "autoShortcuts") { reader, value, path throws(MetadataError) in
      try reader.autoShortcut(value, at: path)
    }
    document.autoShortcutProviderMangledName = try fields.string("autoShortcutProviderMangledName")
    document.negativePhrases = try list(&fields, "negativePhrases") { reader, value, path throws(MetadataError) in
      try reader.localized(value, at: path)
    }
    finish(
      fields,
      appleKeys: [
        "generator", "shortcutTileColor", "assistantIntents", "assistantEntities", "assistantIntentNegativePhrases",
        "examplePhrases",
      ])
    return document
  }

  /// The object under `key` read as a map from identifiers to `element`s; absent is empty.
  mutating func map<Element>(
    _ fields: inout Fields, _ key: String, identifiers: String,
    _ element: (inout Reader, MetadataJSON, MetadataIdentifier, JSONPath) throws(MetadataError) -> Element
  ) throws(MetadataError) -> [MetadataIdentifier: Element] {
    guard let value = fields.take(key) else { return [:] }
    let path = fields.path.appending(key)
    guard case .object(let members) = value else {
      throw error(path, "is \(value.kindDescription), expected an object keyed by \(identifiers)")
    }
    var result: [MetadataIdentifier: Element] = [:]
    for name in members.keys.sorted() {
      let identifier = try self.identifier(name, at: path.appending(name), isKey: true)
      result[identifier] = try element(&self, members[name]!, identifier, path.appending(name))
    }
    return result
  }

  /// The array under `key`, each element read as an `element`; absent is empty.
  /// - Parameter limit: the most elements, with what they are and the fix, for the error past it.
  mutating func list<Element>(
    _ fields: inout Fields, _ key: String, limit: (count: Int, what: String, fix: String)? = nil,
    _ element: (inout Reader, MetadataJSON, JSONPath) throws(MetadataError) -> Element
  ) throws(MetadataError) -> [Element] {
    guard let values = try fields.array(key) else { return [] }
    if let limit, values.count > limit.count {
      throw error(
        fields.path.appending(key), "has \(values.count) \(limit.what); the limit is \(limit.count)", fix: limit.fix)
    }
    var result: [Element] = []
    for (index, value) in values.enumerated() {
      result.append(try element(&self, value, fields.path.appending(key).appending(index)))
    }
    return result
  }

  // MARK: - Names and texts

  func identifier(_ text: String, at path: JSONPath, isKey: Bool = false) throws(MetadataError) -> MetadataIdentifier {
    guard let identifier = MetadataIdentifier(validating: text) else {
      throw error(
        path,
        "\(isKey ? "is a key" : "is") \(JSONParser.quoted(text)), not an identifier: it "
          + (MetadataIdentifier.problem(text) ?? ""),
        fix: "use the Swift name of the type or member, such as OrderFuelIntent or location")
    }
    return identifier
  }

  mutating func requiredIdentifier(_ fields: inout Fields, _ key: String) throws(MetadataError) -> MetadataIdentifier {
    try identifier(try fields.requiredString(key), at: fields.path.appending(key))
  }

  mutating func qualifiedName(_ fields: inout Fields, _ key: String) throws(MetadataError) -> QualifiedName? {
    guard let text = try fields.string(key) else { return nil }
    guard let name = QualifiedName(validating: text) else {
      throw error(
        fields.path.appending(key),
        "is \(JSONParser.quoted(text)), not a type name: it " + (QualifiedName.problem(text) ?? ""),
        fix: "use the query's Swift name, such as LocationQuery or Weather.LocationQuery")
    }
    return name
  }

  /// `{"key": "text", "alternatives": []}`.
  mutating func localized(_ value: MetadataJSON, at path: JSONPath) throws(MetadataError) -> LocalizedText {
    guard case .object = value else {
      throw error(
        path, "is \(value.kindDescription), expected a localized string",
        fix: "write {\"key\": \"the text\", \"alternatives\": []}, as Xcode does")
    }
    var fields = try fields(value, at: path)
    let text = LocalizedText(
      try fields.requiredString("key", allowEmpty: true, fix: "write {\"key\": \"the text\", \"alternatives\": []}"),
      alternatives: try fields.strings("alternatives"))
    finish(fields)
    return text
  }

  mutating func localized(_ fields: inout Fields, _ key: String) throws(MetadataError) -> LocalizedText? {
    guard let value = fields.take(key) else { return nil }
    return try localized(value, at: fields.path.appending(key))
  }

  mutating func localizedList(_ fields: inout Fields, _ key: String) throws(MetadataError) -> [LocalizedText] {
    try list(&fields, key) { reader, value, path throws(MetadataError) in try reader.localized(value, at: path) }
  }

  // MARK: - Actions and parameters

  mutating func action(_ value: MetadataJSON, key: MetadataIdentifier, at path: JSONPath) throws(MetadataError)
    -> Document.Action
  {
    var fields = try fields(value, at: path)
    try checkSame(&fields, "identifier", as: key)
    var action = Document.Action(identifier: key, title: try localized(&fields, "title"))
    if var description = try fields.object("descriptionMetadata") {
      guard let text = try localized(&description, "descriptionText") else {
        throw error(
          description.path.appending("descriptionText"), "is missing",
          fix: "write the description as {\"key\": \"the text\", \"alternatives\": []}")
      }
      action.description = Document.DescriptionMetadata(
        descriptionText: text, categoryName: try localized(&description, "categoryName"),
        searchKeywords: try localizedList(&description, "searchKeywords"))
      finish(description)
    }
    let most = MetadataLimits.maximumParameters
    action.parameters = try list(
      &fields, "parameters",
      limit: (
        most, "parameters",
        "give \(key) at most \(most) parameters (the protocol's limit on an intent's parameters): split it into "
          + "intents that each take fewer, or group related values in an AppEntity"
      )
    ) { reader, value, path throws(MetadataError) in try reader.parameter(value, at: path) }
    action.openAppWhenRun = try fields.bool("openAppWhenRun") ?? false
    action.supportedModes = try fields.integer("supportedModes")
    if let policy = try fields.integer("authenticationPolicy") {
      guard let known = Document.AuthenticationPolicy(rawValue: policy) else {
        throw error(
          path.appending("authenticationPolicy"),
          "is \(policy), not a policy IntentHost knows (0 alwaysAllowed, 1 requiresAuthentication, "
            + "2 requiresLocalDeviceAuthentication); an unknown policy is not taken for a weaker one",
          fix: "write 0, 1 or 2 (docs/APPINTENTS.md)")
      }
      action.authenticationPolicy = known
    }
    // Xcode writes the flag twice, in `visibilityMetadata` and beside it; the first wins.
    let besides = try fields.bool("isDiscoverable")
    if var visibility = try fields.object("visibilityMetadata") {
      action.isDiscoverable = try visibility.bool("isDiscoverable") ?? besides ?? true
      finish(visibility, appleKeys: ["assistantOnly"])
    } else {
      action.isDiscoverable = besides ?? true
    }
    action.actionConfiguration = fields.take("actionConfiguration")
    finish(
      fields,
      appleKeys: [
        "fullyQualifiedTypeName", "mangledTypeName", "mangledTypeNameV2", "mangledTypeNameByBundleIdentifier",
        "mangledTypeNameByBundleIdentifierV2", "outputFlags", "outputType", "presentationStyle",
        "assistantDefinedSchemas", "assistantDefinedSchemaTraits", "availabilityAnnotations",
        "effectiveBundleIdentifiers", "isAuthPolExplicit", "requiredCapabilities", "systemProtocolMetadata",
        "systemProtocolMetadataV2", "systemProtocols", "typeSpecificMetadata",
      ])
    return action
  }

  /// A key that repeats the object's key in its map (`identifier`, `typeName`) must be the same.
  mutating func checkSame(_ fields: inout Fields, _ key: String, as name: MetadataIdentifier) throws(MetadataError) {
    guard let text = try fields.string(key) else { return }
    if text != name.rawValue {
      throw error(
        fields.path.appending(key), "is \(JSONParser.quoted(text)), but the object's key is \"\(name)\"",
        fix: "make them the same: the key of an object in this map is its \(key)")
    }
  }

  mutating func parameter(_ value: MetadataJSON, at path: JSONPath) throws(MetadataError) -> Document.Parameter {
    var fields = try fields(value, at: path)
    let name = try requiredIdentifier(&fields, "name")
    var parameter = Document.Parameter(
      name: name, title: try localized(&fields, "title"),
      description: try localized(&fields, "parameterDescription"), isOptional: try fields.bool("isOptional") ?? false,
      valueType: try requiredValueType(&fields))
    parameter.typeSpecificMetadata = try typeSpecificMetadata(&fields)
    parameter.dynamicOptionsSupport = try fields.integer("dynamicOptionsSupport")
    if var dialogs = try fields.object(Document.ParameterDialogs.key) {
      parameter.intentHost = Document.ParameterDialogs(
        requestValueDialog: try localized(&dialogs, "requestValueDialog"),
        requestDisambiguationDialog: try localized(&dialogs, "requestDisambiguationDialog"))
      finish(dialogs)
    }
    finish(fields, appleKeys: ["capabilities", "inputConnectionBehavior", "isInput", "resolvableInputTypes"])
    return parameter
  }

  /// `[key, value, key, value, ...]`; absent is empty.
  mutating func typeSpecificMetadata(_ fields: inout Fields) throws(MetadataError) -> Document.TypeSpecificMetadata {
    guard let values = try fields.array("typeSpecificMetadata") else { return Document.TypeSpecificMetadata() }
    let path = fields.path.appending("typeSpecificMetadata")
    guard values.count % 2 == 0 else {
      throw error(
        path, "has \(values.count) elements; it alternates a key and its value, so it has an even number",
        fix: "write [\"\(Document.TypeSpecificMetadata.defaultValueKey)\", {\"string\": {\"wrapper\": \"home\"}}]")
    }
    var entries: [Document.TypeSpecificMetadata.Entry] = []
    for index in stride(from: 0, to: values.count, by: 2) {
      guard case .string(let key) = values[index] else {
        throw error(
          path.appending(index), "is \(values[index].kindDescription), expected a key (a string)",
          fix: "alternate a key and its value")
      }
      entries.append(.init(key: key, value: values[index + 1]))
    }
    return Document.TypeSpecificMetadata(entries)
  }

  // MARK: - Value types

  /// The `valueType` of a parameter or a property, which it must have.
  mutating func requiredValueType(_ fields: inout Fields) throws(MetadataError) -> Document.ValueType {
    let path = fields.path.appending("valueType")
    guard let type = fields.take("valueType") else {
      throw error(
        path, "is missing",
        fix: "give its type, such as {\"primitive\": {\"wrapper\": {\"typeIdentifier\": 0}}} for a String")
    }
    return try valueType(type, at: path)
  }

  mutating func valueType(_ value: MetadataJSON, at path: JSONPath) throws(MetadataError) -> Document.ValueType {
    guard case .object(let union) = value, union.count == 1, let (tag, content) = union.first else {
      let shape: String
      if case .object(let union) = value {
        shape = "an object with \(union.count) keys"
      } else {
        shape = value.kindDescription
      }
      throw error(
        path, "is \(shape), expected an object with one key, the kind of value",
        fix: "write one of " + Document.ValueType.knownTags.map { "{\"\($0)\": ...}" }.joined(separator: ", "))
    }
    let tagPath = path.appending(tag)
    switch tag {
    case "primitive":
      var wrapper = try self.wrapper(content, at: tagPath)
      let identifier = try required(try wrapper.integer("typeIdentifier"), wrapper.path.appending("typeIdentifier"))
      finish(wrapper)
      let primitive = Document.PrimitiveType(typeIdentifier: identifier)
      if case .other = primitive {
        note(
          MetadataFinding(
            .note, .unknownKey, file: file, path: wrapper.path.appending("typeIdentifier").description,
            "is \(identifier), a primitive type IntentHost does not know (0 String, 1 Bool, 2 Int, 7 Double, 8 Date, "
              + "11 URL); its values are passed on as they are",
            fix: "use one of those types if the parameter is one"))
      }
      return .primitive(primitive)
    case "entity":
      var wrapper = try self.wrapper(content, at: tagPath)
      let name = try requiredIdentifier(&wrapper, "typeName")
      finish(wrapper)
      return .entity(name)
    case "linkEnumeration":
      var wrapper = try self.wrapper(content, at: tagPath)
      let name = try requiredIdentifier(&wrapper, "identifier")
      finish(wrapper)
      return .enumeration(name)
    case "array":
      var wrapper = try self.wrapper(content, at: tagPath)
      guard let member = wrapper.take("memberValueType") else {
        throw error(wrapper.path.appending("memberValueType"), "is missing", fix: "give the type of the elements")
      }
      let type = try valueType(member, at: wrapper.path.appending("memberValueType"))
      finish(wrapper, appleKeys: ["capabilities"])
      return .array(type)
    case "measurement":
      return .measurement(content)
    case "intents":
      var wrapper = try self.wrapper(content, at: tagPath)
      let identifier = try required(try wrapper.integer("typeIdentifier"), wrapper.path.appending("typeIdentifier"))
      finish(wrapper)
      return .intents(identifier)
    default:
      note(
        MetadataFinding(
          .note, .unknownKey, file: file, path: tagPath.description,
          "is a kind of value IntentHost does not know; the parameter's values are passed on as they are",
          fix: "use one of " + Document.ValueType.knownTags.joined(separator: ", ")))
      return .unknown(tag: tag, content: content)
    }
  }

  /// `{"wrapper": {...}}`, the content of a value type's tag.
  mutating func wrapper(_ content: MetadataJSON, at path: JSONPath) throws(MetadataError) -> Fields {
    var outer = try fields(content, at: path)
    guard let inner = try outer.object("wrapper") else {
      throw error(path.appending("wrapper"), "is missing", fix: "write the kind's details inside {\"wrapper\": {...}}")
    }
    finish(outer)
    return inner
  }

  func required<Value>(_ value: Value?, _ path: JSONPath) throws(MetadataError) -> Value {
    guard let value else { throw error(path, "is missing") }
    return value
  }

  // MARK: - Entities, queries, enums, shortcuts

  mutating func entity(_ value: MetadataJSON, key: MetadataIdentifier, at path: JSONPath) throws(MetadataError)
    -> Document.Entity
  {
    var fields = try fields(value, at: path)
    try checkSame(&fields, "typeName", as: key)
    var entity = Document.Entity(
      typeName: key, displayTypeName: try localized(&fields, "displayTypeName"),
      defaultQueryIdentifier: try qualifiedName(&fields, "defaultQueryIdentifier"))
    entity.properties = try list(&fields, "properties") { reader, value, path throws(MetadataError) in
      var property = try reader.fields(value, at: path)
      let result = Document.Entity.Property(
        identifier: try reader.requiredIdentifier(&property, "identifier"),
        title: try reader.localized(&property, "title"), isOptional: try property.bool("isOptional") ?? false,
        valueType: try reader.requiredValueType(&property))
      reader.finish(property, appleKeys: ["capabilities"])
      return result
    }
    finish(
      fields,
      appleKeys: [
        "assistantDefinedSchemas", "availabilityAnnotations", "effectiveBundleIdentifiers", "fullyQualifiedTypeName",
        "mangledTypeName", "mangledTypeNameByBundleIdentifier", "requiredCapabilities", "systemProtocolMetadata",
        "systemProtocolMetadataV2", "transient", "visibilityMetadata",
      ])
    return entity
  }

  mutating func query(_ value: MetadataJSON, key: MetadataIdentifier, at path: JSONPath) throws(MetadataError)
    -> Document.Query
  {
    var fields = try fields(value, at: path)
    try checkSame(&fields, "identifier", as: key)
    var query = Document.Query(
      identifier: key, entityType: try requiredIdentifier(&fields, "entityType"),
      fullyQualifiedIdentifier: try qualifiedName(&fields, "fullyQualifiedIdentifier"),
      isDefaultQueryForEntity: try fields.bool("defaultQueryForEntity") ?? false)
    if var extensionKey = try fields.object(Document.ParameterDialogs.key) {
      if let answers = try extensionKey.array("answers") {
        query.answers = try answers.enumerated().map { (index, value) throws(MetadataError) in
          guard case .string(let name) = value, let kind = Document.QueryKind(rawValue: name) else {
            let shown: String
            if case .string(let name) = value { shown = JSONParser.quoted(name) } else { shown = value.kindDescription }
            throw error(
              extensionKey.path.appending("answers").appending(index), "is \(shown), not a kind of query",
              fix: "write some of " + Document.QueryKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
          }
          return kind
        }
      }
      finish(extensionKey)
    }
    finish(
      fields,
      appleKeys: [
        "availabilityAnnotations", "capabilities", "effectiveBundleIdentifiers", "mangledTypeName",
        "mangledTypeNameByBundleIdentifier", "parameters", "queryType", "resultValueType", "sortingOptions",
        "visibilityMetadata",
      ])
    return query
  }

  mutating func enumeration(_ value: MetadataJSON, at path: JSONPath) throws(MetadataError) -> Document.Enumeration {
    var fields = try fields(value, at: path)
    var enumeration = Document.Enumeration(
      identifier: try requiredIdentifier(&fields, "identifier"),
      displayTypeName: try localized(&fields, "displayTypeName"))
    enumeration.cases = try list(&fields, "cases") { reader, value, path throws(MetadataError) in
      var fields = try reader.fields(value, at: path)
      var enumCase = Document.Enumeration.Case(
        identifier: try reader.requiredIdentifier(&fields, "identifier"), title: nil)
      if var display = try fields.object("displayRepresentation") {
        enumCase.title = try reader.localized(&display, "title")
        enumCase.subtitle = try reader.localized(&display, "subtitle")
        enumCase.synonyms = try reader.localizedList(&display, "synonyms")
        reader.finish(display, appleKeys: ["image", "imageV2"])
      }
      reader.finish(fields)
      return enumCase
    }
    finish(
      fields,
      appleKeys: [
        "assistantDefinedSchemas", "availabilityAnnotations", "effectiveBundleIdentifiers", "fullyQualifiedTypeName",
        "isSystem", "mangledTypeName", "mangledTypeNameByBundleIdentifier", "visibilityMetadata",
      ])
    return enumeration
  }

  mutating func autoShortcut(_ value: MetadataJSON, at path: JSONPath) throws(MetadataError) -> Document.AutoShortcut {
    var fields = try fields(value, at: path)
    let shortcut = Document.AutoShortcut(
      actionIdentifier: try requiredIdentifier(&fields, "actionIdentifier"),
      phraseTemplates: try localizedList(&fields, "phraseTemplates"), shortTitle: try localized(&fields, "shortTitle"),
      systemImageName: try fields.string("systemImageName"))
    finish(fields, appleKeys: ["parameterPresentation", "availabilityAnnotations"])
    return shortcut
  }
}

/// One JSON object being read: its members, its path, and which keys were read (the rest are reported).
private struct Fields {
  let values: [String: MetadataJSON]
  let path: JSONPath
  let file: String
  private(set) var read: Set<String> = []

  init(values: [String: MetadataJSON], path: JSONPath, file: String) {
    self.values = values
    self.path = path
    self.file = file
  }

  private func error(_ path: JSONPath, _ problem: String, fix: String? = nil) -> MetadataError {
    MetadataError(file: file, path: path.description, problem: problem, fix: fix)
  }

  /// The value under `key`, marked as read; nil when absent. `null` is absent too.
  mutating func take(_ key: String) -> MetadataJSON? {
    read.insert(key)
    guard let value = values[key], value != .null else { return nil }
    return value
  }

  private func mismatch(_ key: String, _ value: MetadataJSON, expected: String) -> MetadataError {
    error(path.appending(key), "is \(value.kindDescription), expected \(expected)")
  }

  mutating func string(_ key: String) throws(MetadataError) -> String? {
    guard let value = take(key) else { return nil }
    guard case .string(let text) = value else { throw mismatch(key, value, expected: "a string") }
    return text
  }

  mutating func requiredString(_ key: String, allowEmpty: Bool = false, fix: String? = nil) throws(MetadataError)
    -> String
  {
    guard let text = try string(key) else { throw error(path.appending(key), "is missing", fix: fix) }
    if text.isEmpty && !allowEmpty { throw error(path.appending(key), "is empty", fix: fix) }
    return text
  }

  mutating func bool(_ key: String) throws(MetadataError) -> Bool? {
    guard let value = take(key) else { return nil }
    guard case .bool(let flag) = value else { throw mismatch(key, value, expected: "true or false") }
    return flag
  }

  mutating func integer(_ key: String) throws(MetadataError) -> Int? {
    guard let value = take(key) else { return nil }
    guard case .integer(let number) = value else { throw mismatch(key, value, expected: "an integer") }
    return number
  }

  mutating func array(_ key: String) throws(MetadataError) -> [MetadataJSON]? {
    guard let value = take(key) else { return nil }
    guard case .array(let elements) = value else { throw mismatch(key, value, expected: "an array") }
    return elements
  }

  mutating func object(_ key: String) throws(MetadataError) -> Fields? {
    guard let value = take(key) else { return nil }
    guard case .object(let members) = value else { throw mismatch(key, value, expected: "an object") }
    return Fields(values: members, path: path.appending(key), file: file)
  }

  /// An array of strings; absent is empty.
  mutating func strings(_ key: String) throws(MetadataError) -> [String] {
    guard let elements = try array(key) else { return [] }
    return try elements.enumerated().map { (index, element) throws(MetadataError) in
      guard case .string(let text) = element else {
        throw error(path.appending(key).appending(index), "is \(element.kindDescription), expected a string")
      }
      return text
    }
  }
}
