// The metadata an App Intents extension declares, as Xcode would write it: what `--emit-appintents-metadata` writes
// and what `initialize` reports the digest of.
import AppIntentsMetadata
import ExtensionProtocol

private typealias Localized = MetadataDocument.LocalizedText

extension AppIntentsExtension {
  /// The `Metadata.appintents` document of this extension's intents, enums, entities, queries and shortcuts.
  /// - Throws: `AppIntentsUsageError.invalidName` when a type or a parameter's name cannot be an identifier.
  public static func metadataDocument() throws -> MetadataDocument {
    try MetadataBuilder(
      intents: allIntents, shortcuts: shortcuts?.appShortcuts ?? [],
      negativePhrases: shortcuts?.negativePhrases.templates ?? []
    ).document
  }
}

struct MetadataBuilder {
  var document = MetadataDocument()

  init(intents: [any AppIntent.Type], shortcuts: [AppShortcut], negativePhrases: [String] = []) throws {
    for type in intents { try add(type) }
    document.negativePhrases = negativePhrases.map { Localized($0) }
    for shortcut in shortcuts {
      document.autoShortcuts.append(
        MetadataDocument.AutoShortcut(
          actionIdentifier: try Self.identifier(shortcut.intentType.identifier),
          phraseTemplates: shortcut.phraseTemplates.map { Localized($0) },
          shortTitle: Localized(shortcut.shortTitle.key),
          systemImageName: shortcut.systemImageName))
    }
  }

  static func identifier(_ text: String) throws -> MetadataIdentifier {
    guard let identifier = MetadataIdentifier(validating: text) else {
      throw AppIntentsUsageError.invalidName(text, problem: MetadataIdentifier.problem(text) ?? "not a name")
    }
    return identifier
  }

  mutating func add(_ type: any AppIntent.Type) throws {
    let identifier = try Self.identifier(type.identifier)
    var parameters: [MetadataDocument.Parameter] = []
    for parameter in intentParameters(of: type.init()) {
      parameters.append(try self.parameter(parameter))
    }
    let description = type.description
    document.actions[identifier] = MetadataDocument.Action(
      identifier: identifier, title: Localized(type.title.key),
      description: description.descriptionText.key.isEmpty
        ? nil
        : MetadataDocument.DescriptionMetadata(
          descriptionText: Localized(description.descriptionText.key),
          categoryName: description.categoryName.map { Localized($0.key) },
          searchKeywords: description.searchKeywords.map { Localized($0.key) }),
      parameters: parameters, openAppWhenRun: type.openAppWhenRun,
      authenticationPolicy: MetadataDocument.AuthenticationPolicy(rawValue: type.authenticationPolicy.rawValue)
        ?? .none,
      isDiscoverable: type.isDiscoverable)
  }

  mutating func parameter(_ parameter: any AnyIntentParameter) throws -> MetadataDocument.Parameter {
    var optional = false
    var type = parameter.valueType
    if case .optional(let wrapped) = type {
      optional = true
      type = wrapped
    }
    if let enumType = parameter.enumType { try add(enumType) }
    if let entityType = parameter.entityType { try add(entityType) }
    var specific = MetadataDocument.TypeSpecificMetadata()
    if let value = parameter.defaultIntentValue, let json = Self.defaultJSON(value) {
      specific.entries.append(.init(key: MetadataDocument.TypeSpecificMetadata.defaultValueKey, value: json))
    }
    let dialogs = MetadataDocument.ParameterDialogs(
      requestValueDialog: parameter.requestValueDialog.map { Localized($0.resource.key) },
      requestDisambiguationDialog: parameter.requestDisambiguationDialog.map { Localized($0.resource.key) })
    return MetadataDocument.Parameter(
      name: try Self.identifier(parameter.name), title: Localized(parameter.title.key), isOptional: optional,
      valueType: try Self.valueType(type), typeSpecificMetadata: specific,
      dynamicOptionsSupport: parameter.options != nil || parameter.entityType != nil ? 2 : nil,
      intentHost: dialogs.requestValueDialog == nil && dialogs.requestDisambiguationDialog == nil ? nil : dialogs)
  }

  static func valueType(_ type: IntentValueType) throws -> MetadataDocument.ValueType {
    switch type {
    case .string: .primitive(.string)
    case .bool: .primitive(.bool)
    case .int: .primitive(.int)
    case .double: .primitive(.double)
    case .date: .primitive(.date)
    case .url: .primitive(.url)
    case .duration: .duration
    case .enumeration(let name): .enumeration(try identifier(name))
    case .entity(let name): .entity(try identifier(name))
    case .array(let element): .array(try valueType(element))
    case .optional(let wrapped): try valueType(wrapped)
    }
  }

  /// A default as Xcode writes it: `{"TAG": {"wrapper": VALUE}}`; an enum's default is its case as a string.
  static func defaultJSON(_ value: ParameterValue) -> MetadataJSON? {
    let tagged: (String, MetadataJSON)? =
      switch value {
      case .string(let text): ("string", .string(text))
      case .integer(let number): ("int", .integer(number))
      case .decimal(let number): ("double", .number(number))
      case .boolean(let flag): ("bool", .bool(flag))
      case .enumCase(let name): ("string", .string(name))
      default: nil
      }
    return tagged.map { .object([$0.0: .object(["wrapper": $0.1])]) }
  }

  mutating func add(_ type: any AppEnum.Type) throws {
    let identifier = try Self.identifier(String(describing: type))
    guard !document.enums.contains(where: { $0.identifier == identifier }) else { return }
    document.enums.append(
      MetadataDocument.Enumeration(
        identifier: identifier, displayTypeName: Localized(type.typeDisplayRepresentation.name.key),
        cases: try type.caseMetadata()))
  }

  mutating func add(_ type: any AppEntity.Type) throws {
    let identifier = try Self.identifier(String(describing: type))
    guard document.entities[identifier] == nil else { return }
    let query = try Self.identifier(type.defaultQueryTypeName)
    let module = String(reflecting: type).split(separator: ".").first.map(String.init) ?? "App"
    let qualified = QualifiedName(validating: module + "." + query.rawValue)
    document.entities[identifier] = MetadataDocument.Entity(
      typeName: identifier, displayTypeName: Localized(type.typeDisplayRepresentation.name.key),
      defaultQueryIdentifier: qualified)
    document.queries[query] = MetadataDocument.Query(
      identifier: query, entityType: identifier, fullyQualifiedIdentifier: qualified, isDefaultQueryForEntity: true,
      answers: type.queryKinds)
  }
}

extension AppEnum {
  static func caseMetadata() throws -> [MetadataDocument.Enumeration.Case] {
    try allCases.map { value in
      let shown = value.displayRepresentation
      return MetadataDocument.Enumeration.Case(
        identifier: try MetadataBuilder.identifier(value.caseIdentifier), title: Localized(shown.title.key),
        subtitle: shown.subtitle.map { Localized($0.key) }, synonyms: shown.synonyms.map { Localized($0.key) })
    }
  }
}

extension AppEntity {
  static var defaultQueryTypeName: String { String(describing: DefaultQuery.self) }
  static var queryKinds: [MetadataDocument.QueryKind] {
    var kinds: [MetadataDocument.QueryKind] = [.identifiers, .suggested]
    if defaultQuery is any EntityStringQuery { kinds.append(.string) }
    if defaultQuery is any EnumerableEntityQuery { kinds.append(.all) }
    return kinds
  }
}
