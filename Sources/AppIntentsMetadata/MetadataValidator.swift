/// A `LANG.lproj/AppShortcuts.strings` table of a bundle (or a table or catalog elsewhere in it): its phrases in
/// another language, keyed by the development language's phrase.
public struct AppShortcutsStrings: Sendable, Hashable {
  /// The file's path.
  public var file: String
  /// The language of the `LANG.lproj` folder that holds it; nil for a file outside one.
  public var language: String?
  /// Its entries: a phrase as the code has it, and the phrase in `language`.
  public var strings: [String: String]

  public init(file: String, language: String?, strings: [String: String]) {
    self.file = file
    self.language = language
    self.strings = strings
  }

  /// The table's name.
  public static let fileName = "AppShortcuts.strings"
  /// The string catalog Xcode compiles into the tables.
  public static let catalogName = "AppShortcuts.xcstrings"

  /// Whether it is a string catalog (`AppShortcuts.xcstrings`), which IntentHost does not read.
  public var isCatalog: Bool { file.hasSuffix(".xcstrings") }
}

/// Apple's build-time rules for App Intents metadata and App Shortcut phrases, in Apple's words where Apple has them
/// (docs/VALIDATION.md, "App Intents"). Every finding is listed, not only the first.
public enum MetadataValidator {
  /// The most App Shortcuts an app may have (WWDC22 10170: "your app can have a maximum of 10 app shortcuts").
  public static let maximumShortcuts = 10

  /// Apple's message for a phrase without exactly one `${applicationName}`.
  public static let utteranceMessage =
    "Invalid Utterance. Every App Shortcut utterance should have one '${applicationName}' in it."
  /// Apple's message for an App Shortcut without phrases.
  public static let noPhraseMessage = "App Shortcuts should have at least one phrase"
  /// Apple's message for a phrase parameter that is neither an `AppEntity` nor an `AppEnum`, before the name.
  public static let parameterTypeMessage =
    "Invalid parameter type. AppEntity and AppEnum are the only allowed types for"
  /// Apple's line after the errors.
  public static let haltingMessage = "At least one halting error produced."

  /// Checks a document and the bundle's `AppShortcuts.strings` tables.
  /// - Parameters:
  ///   - file: the path of the document's `extract.actionsdata`, for the findings.
  ///   - strings: the bundle's App Shortcut tables (and catalogs), each with its language.
  /// - Returns: every finding, in the order of the file, then of the tables; without the closing line
  ///   (`haltingFinding(file:)`), which follows every error of a bundle's metadata.
  public static func validate(
    _ document: MetadataDocument, file: String, strings: [AppShortcutsStrings] = []
  ) -> [MetadataFinding] {
    var check = Check(document: document, file: file)
    check.shortcuts()
    check.actions()
    check.entities()
    check.enums()
    check.tables(strings)
    return check.findings
  }

  /// The words of an intent's title as a person names it, case and punctuation aside: two titles with the same
  /// words name the same intent for `assistant run APP TITLE`.
  public static func titleWords(_ title: String) -> [String] {
    title.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
  }

  /// The warning `app-intents-duplicate-title`: the action `identifier` at `path` (`actions.ID`) of `file` has the
  /// title `title`, as `first` has (an action's identifier, and where it is declared when in another file).
  public static func duplicateTitle(
    _ title: String, of identifier: MetadataIdentifier, as first: String, file: String, path: String
  ) -> MetadataFinding {
    MetadataFinding(
      .warning, .duplicateTitle, file: file, path: path + ".title",
      "is \(JSONParser.quoted(title)), as the title of \(first) is: a person who names the intent by its title "
        + "(`assistant run APP TITLE`, Shortcuts' list) cannot tell the two apart",
      fix: "give \(identifier) a title of its own")
  }

  /// Apple's closing line, `At least one halting error produced.`, to follow the errors of the App Intents metadata
  /// of a bundle when there is one.
  /// - Parameter file: what it names: the bundle, or the metadata file.
  public static func haltingFinding(file: String) -> MetadataFinding {
    MetadataFinding(
      .error, .haltingError, file: file, haltingMessage,
      fix: "fix the errors above: as Xcode exports no App Shortcut while one remains, IntentHost installs no bundle "
        + "with one")
  }
}

private typealias Document = MetadataDocument

/// One run of the rules over one document.
private struct Check {
  let document: Document
  let file: String
  var findings: [MetadataFinding] = []

  init(document: Document, file: String) {
    self.document = document
    self.file = file
  }

  mutating func error(_ rule: MetadataRule, _ path: String, _ message: String, fix: String?, file: String? = nil) {
    findings.append(MetadataFinding(.error, rule, file: file ?? self.file, path: path, message, fix: fix))
  }

  static func listed(_ names: [String]) -> String {
    names.isEmpty ? "none" : names.prefix(8).joined(separator: ", ") + (names.count > 8 ? ", ..." : "")
  }

  // MARK: - App Shortcuts

  mutating func shortcuts() {
    let shortcuts = document.autoShortcuts
    if shortcuts.count > MetadataValidator.maximumShortcuts {
      error(
        .tooManyShortcuts, "autoShortcuts",
        "has \(shortcuts.count) App Shortcuts; an app has at most \(MetadataValidator.maximumShortcuts) (WWDC22 "
          + "10170: \"your app can have a maximum of 10 app shortcuts\"), and Xcode refuses the 11th",
        fix: "keep the \(MetadataValidator.maximumShortcuts) most useful; the others can stay intents that people add "
          + "in Shortcuts")
    }
    for (index, shortcut) in shortcuts.enumerated() {
      let path = "autoShortcuts[\(index)]"
      let action = document.actions[shortcut.actionIdentifier]
      if action == nil {
        error(
          .actionUnknown, path + ".actionIdentifier",
          "names \(shortcut.actionIdentifier), which is not an action of the file",
          fix: "name one of its actions (" + Self.listed(document.actions.keys.sorted().map(\.rawValue))
            + "), or add \(shortcut.actionIdentifier) to actions")
      }
      if shortcut.phraseTemplates.isEmpty {
        error(
          .phraseMissing, path + ".phraseTemplates", MetadataValidator.noPhraseMessage,
          fix: "give it a phrase that says the app's name, such as \""
            + (shortcut.shortTitle.map(\.key).flatMap { $0.isEmpty ? nil : $0 } ?? "Do it")
            + " with ${applicationName}\"")
      }
      for (position, phrase) in shortcut.phraseTemplates.enumerated() {
        let phrasePath = "\(path).phraseTemplates[\(position)]"
        utterance(phrase.key, path: phrasePath, file: file)
        parameters(PhraseTemplate(parsing: phrase.key), of: action, named: shortcut.actionIdentifier, path: phrasePath)
      }
    }
  }

  /// `app-shortcut-utterance`: exactly one `${applicationName}`.
  mutating func utterance(_ text: String, path: String, file: String, translation: Bool = false) {
    let phrase = PhraseTemplate(parsing: text)
    let count = phrase.applicationNameCount
    guard count != 1 else { return }
    let shown = JSONParser.quoted(text)
    let suggestion =
      count == 0
      ? "add ${applicationName} where the app's name is said, such as \""
        + (text.isEmpty ? "Do it" : text.trimmingSuffix(".")) + " with ${applicationName}\""
      : "keep one ${applicationName}: Siri says the app's name once"
    error(
      .utterance, path,
      MetadataValidator.utteranceMessage + " (" + (translation ? "its translation " : "") + "\(shown) has "
        + (count == 0 ? "none" : "\(count)") + ")",
      fix: suggestion, file: file)
  }

  /// `app-shortcut-parameter-count`, `app-shortcut-parameter-unknown`, `app-shortcut-parameter-type`.
  mutating func parameters(
    _ phrase: PhraseTemplate, of action: Document.Action?, named identifier: MetadataIdentifier, path: String
  ) {
    let names = phrase.parameterNames
    // Slots, not names: one parameter said twice is two slots ("${thing} ${thing} ... with ..."), each a reading.
    let slots = phrase.segments.compactMap { segment -> String? in
      if case .parameter(let name) = segment { return name }
      return nil
    }
    if slots.count > 1 {
      error(
        .parameterCount, path,
        (names.count == slots.count
          ? "names \(names.count) parameters (" + names.map { "${\($0)}" }.joined(separator: ", ") + ")"
          : "has \(slots.count) parameter slots (" + slots.map { "${\($0)}" }.joined(separator: ", ") + ")")
          + "; a phrase has at most one",
        fix: "keep one parameter in the phrase, once: Siri asks for the others with their requestValueDialog")
    }
    guard let action else { return }
    for name in names {
      guard let parameter = action.parameter(name) else {
        let known = action.parameters.map(\.name.rawValue)
        error(
          .parameterUnknown, path, "names ${\(name)}, which is not a parameter of \(identifier)",
          fix: known.isEmpty
            ? "take ${\(name)} out: \(identifier) has no parameters"
            : "name one of its parameters (" + Self.listed(known.map { "${\($0)}" })
              + "), or write ${applicationName} for the app's name")
        continue
      }
      if !parameter.valueType.isEntityOrEnum {
        error(
          .parameterType, path, "\(MetadataValidator.parameterTypeMessage) \(name)",
          fix: "make \(name) an AppEnum or an AppEntity (it is \(Self.describe(parameter.valueType))), or take "
            + "${\(name)} out of the phrase: Siri then asks for it")
      }
    }
  }

  static func describe(_ type: Document.ValueType) -> String {
    switch type {
    case .primitive(let primitive):
      switch primitive {
      case .string: return "a String"
      case .bool: return "a Bool"
      case .int: return "an Int"
      case .double: return "a Double"
      case .date: return "a Date"
      case .url: return "a URL"
      case .other(let identifier): return "a primitive of type \(identifier)"
      }
    case .entity(let name): return "the entity \(name)"
    case .enumeration(let name): return "the enum \(name)"
    case .array(let member):
      return "an array of " + describe(member).replacingPrefix("a ", "").replacingPrefix("an ", "")
    case .measurement: return "a measurement"
    case .intents(let identifier): return "an Intents type (\(identifier))"
    case .unknown(let tag, _): return "a value of kind \(tag)"
    }
  }

  // MARK: - Actions, entities, enums

  mutating func titleMissing(_ text: Document.LocalizedText?, _ path: String, what: String, fix: String) {
    guard text?.key.isEmpty ?? true else { return }
    error(
      .titleMissing, path, text == nil ? "is missing: \(what) needs a title" : "is empty: \(what) needs a title",
      fix: fix)
  }

  mutating func actions() {
    /// The first action of each title, its words case and punctuation aside.
    var titles: [[String]: MetadataIdentifier] = [:]
    for (identifier, action) in document.actions.sorted(by: { $0.key < $1.key }) {
      let path = "actions.\(identifier)"
      if let title = action.title, case let words = MetadataValidator.titleWords(title.key), !words.isEmpty {
        if let first = titles[words] {
          findings.append(
            MetadataValidator.duplicateTitle(title.key, of: identifier, as: "\(first)", file: file, path: path))
        } else {
          titles[words] = identifier
        }
      }
      titleMissing(
        action.title, path + ".title", what: "an intent",
        fix: "give \(identifier) a title: static var title: LocalizedStringResource = \"...\"")
      for (index, parameter) in action.parameters.enumerated() {
        let parameterPath = "\(path).parameters[\(index)]"
        titleMissing(
          parameter.title, parameterPath + ".title", what: "a parameter",
          fix: "give \(parameter.name) a title: @Parameter(title: \"...\")")
        defaultValue(parameter, path: parameterPath)
        typeDefined(
          parameter.valueType, of: "the parameter \(parameter.name) of \(identifier)", named: parameter.name.rawValue,
          path: parameterPath + ".valueType")
      }
    }
  }

  /// `app-intents-type-unknown`: the `AppEntity` or `AppEnum` a value type names (itself, or as an array's member)
  /// is one the file defines, as Swift finds every type a declaration names; otherwise the host would fail when it
  /// reads or asks for the value.
  mutating func typeDefined(_ type: Document.ValueType, of owner: String, named name: String, path: String) {
    switch type {
    case .array(let member): typeDefined(member, of: owner, named: name, path: path)
    case .entity(let typeName) where document.entities[typeName] == nil:
      error(
        .typeUnknown, path,
        "cannot find type '\(typeName)' in scope: \(owner) is the entity \(typeName), which entities does not define",
        fix: "add \(typeName) to entities, with its default query, or make \(name) one of the file's entities ("
          + Self.listed(document.entities.keys.sorted().map(\.rawValue)) + ")")
    case .enumeration(let identifier) where document.enumeration(identifier) == nil:
      error(
        .typeUnknown, path,
        "cannot find type '\(identifier)' in scope: \(owner) is the enum \(identifier), which enums does not define",
        fix: "add an enum with the identifier \(identifier) to enums, with its cases, or make \(name) one of the "
          + "file's enums (" + Self.listed(document.enums.map(\.identifier.rawValue)) + ")")
    default: return
    }
  }

  /// `app-intents-default-value`: an enum parameter's default is a case of its enum.
  mutating func defaultValue(_ parameter: Document.Parameter, path: String) {
    guard case .enumeration(let enumIdentifier) = parameter.valueType,
      let defaultValue = parameter.typeSpecificMetadata.defaultValue,
      let enumeration = document.enumeration(enumIdentifier)
    else { return }
    let cases = enumeration.cases.map(\.identifier.rawValue)
    if let text = defaultValue.string, cases.contains(text) { return }
    let shown =
      defaultValue.string.map { JSONParser.quoted($0) }
      ?? "not a case identifier (\(defaultValue.value.kindDescription))"
    error(
      .defaultValue, path + ".typeSpecificMetadata",
      "the default value of \(parameter.name) is \(shown), which is not a case of \(enumIdentifier) ("
        + Self.listed(cases) + ")",
      fix: "make the default one of \(enumIdentifier)'s cases, as {\"string\": {\"wrapper\": \""
        + (cases.first ?? "case") + "\"}}")
  }

  mutating func entities() {
    for (typeName, entity) in document.entities.sorted(by: { $0.key < $1.key }) {
      let path = "entities.\(typeName)"
      titleMissing(
        entity.displayTypeName, path + ".displayTypeName", what: "an entity",
        fix: "give \(typeName) a typeDisplayRepresentation")
      for (index, property) in entity.properties.enumerated() {
        titleMissing(
          property.title, "\(path).properties[\(index)].title", what: "a property",
          fix: "give \(property.identifier) a title: @Property(title: \"...\")")
        typeDefined(
          property.valueType, of: "the property \(property.identifier) of \(typeName)",
          named: property.identifier.rawValue, path: "\(path).properties[\(index)].valueType")
      }
      let queries = document.queries.keys.sorted().map(\.rawValue)
      guard let name = entity.defaultQueryIdentifier else {
        error(
          .defaultQuery, path + ".defaultQueryIdentifier",
          "default query is missing: \(typeName) names no defaultQuery, so its values cannot be found",
          fix: "give \(typeName) a static var defaultQuery and name it here (queries: \(Self.listed(queries)))")
        continue
      }
      if !document.queries.values.contains(where: { $0.isNamed(name) }) {
        error(
          .defaultQuery, path + ".defaultQueryIdentifier",
          "default query is missing: \(name) is not a query of the file",
          fix: "add \(name.lastComponent) to queries, or name one of them (\(Self.listed(queries)))")
      }
    }
  }

  mutating func enums() {
    let enums = document.enums
    let repeated = Dictionary(uniqueKeysWithValues: Self.repeats(enums.map(\.identifier)))
    for (index, enumeration) in enums.enumerated() {
      let path = "enums[\(index)]"
      if let first = repeated[index] {
        error(
          .duplicateIdentifier, "\(path).identifier",
          "is \(enumeration.identifier), as enums[\(first)] is: each enum is declared once",
          fix: "remove one of them, or merge their cases")
      }
      titleMissing(
        enumeration.displayTypeName, path + ".displayTypeName", what: "an enum",
        fix: "give \(enumeration.identifier) a typeDisplayRepresentation")
      for (position, first) in Self.repeats(enumeration.cases.map(\.identifier)) {
        error(
          .duplicateIdentifier, "\(path).cases[\(position)].identifier",
          "is \(enumeration.cases[position].identifier), as cases[\(first)] of \(enumeration.identifier) is: case "
            + "identifiers are unique",
          fix: "rename or remove one of them")
      }
      for (position, enumCase) in enumeration.cases.enumerated() {
        titleMissing(
          enumCase.title, "\(path).cases[\(position)].displayRepresentation.title", what: "an enum case",
          fix: "give .\(enumCase.identifier) a title in caseDisplayRepresentations")
      }
    }
  }

  /// The index of each identifier that repeats an earlier one, with the earlier one's index.
  static func repeats(_ identifiers: [MetadataIdentifier]) -> [(index: Int, first: Int)] {
    var seen: [MetadataIdentifier: Int] = [:]
    var found: [(index: Int, first: Int)] = []
    for (index, identifier) in identifiers.enumerated() {
      if let first = seen[identifier] { found.append((index, first)) } else { seen[identifier] = index }
    }
    return found
  }

  // MARK: - AppShortcuts.strings

  mutating func tables(_ tables: [AppShortcutsStrings]) {
    // One set of tables: LANG.lproj/AppShortcuts.strings, one per language; anything else is a second set.
    let lproj = tables.filter { $0.language != nil && !$0.isCatalog }
    let others = tables.filter { $0.language == nil || $0.isCatalog }
    for (index, table) in others.enumerated() where !lproj.isEmpty || index > 0 {
      let first = lproj.first?.file ?? others[0].file
      error(
        .stringsFiles, "",
        "is a second set of App Shortcut phrases beside \(first): a bundle has one (Xcode validates the phrases "
          + "only when there is one such file, and skips them without a word when there are two)",
        fix: table.isCatalog
          ? "ship the LANG.lproj/AppShortcuts.strings tables Xcode compiles from the catalog, not the catalog"
          : "move it into its language's LANG.lproj folder, or remove it",
        file: table.file)
    }
    if lproj.isEmpty, others.count == 1, others[0].isCatalog {
      findings.append(
        MetadataFinding(
          .warning, .stringsFiles, file: others[0].file,
          "is a string catalog, which IntentHost does not read: its phrases are not used",
          fix: "ship the LANG.lproj/AppShortcuts.strings tables Xcode compiles from it"))
    }
    var languages: [String: String] = [:]
    for table in lproj {
      let language = String(table.language!.lowercased().map { $0 == "_" ? "-" : $0 })
      if let other = languages[language] {
        error(
          .stringsFiles, "", "is a second AppShortcuts.strings for the language of \(other)",
          fix: "keep one table per language", file: table.file)
      } else {
        languages[language] = table.file
      }
    }
    // Each key and its translation, as Xcode checks the phrases of the code and of the tables together: a key that
    // repeats a bad phrase of the code is reported in both files, since both must change.
    for table in tables where !table.isCatalog {
      for (key, value) in table.strings.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
        utterance(key, path: key, file: table.file)
        if value != key { utterance(value, path: key, file: table.file, translation: true) }
      }
    }
  }
}

extension String {
  fileprivate func trimmingSuffix(_ suffix: String) -> String {
    hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
  }

  fileprivate func replacingPrefix(_ prefix: String, _ replacement: String) -> String {
    hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
  }
}
