/// `Metadata.appintents/extract.actionsdata` as IntentHost reads it: the subset of the file Xcode writes that the
/// host needs (docs/APPINTENTS.md lists it), in Xcode's shape: `actions`, `entities` and `queries` are maps keyed by
/// identifier, `enums` and `autoShortcuts` lists.
///
/// Made by `MetadataReader.read` from untrusted bytes (every identifier checked) or by code (the SDK); written by
/// `canonicalEncoding()`, which the reader reads back to an equal document. Defaults are filled in where the file may
/// leave a key out (`openAppWhenRun` false, `isDiscoverable` true, `isOptional` false, empty lists), so a file that
/// omits them and one that spells them out are the same document, with the same `digest`.
public struct MetadataDocument: Sendable, Hashable {
  /// The only `version` of `extract.actionsdata` IntentHost knows (Xcode 15 to 26 write 1).
  public static let knownVersion = 1

  /// `version`: the format of the file, read first.
  public var version: Int
  /// `actions`: the app's intents, by identifier.
  public var actions: [MetadataIdentifier: Action]
  /// `entities`: the app's `AppEntity` types, by type name.
  public var entities: [MetadataIdentifier: Entity]
  /// `queries`: the entities' queries, by identifier.
  public var queries: [MetadataIdentifier: Query]
  /// `enums`: the app's `AppEnum` types.
  public var enums: [Enumeration]
  /// `autoShortcuts`: the App Shortcuts of the app's one `AppShortcutsProvider`.
  public var autoShortcuts: [AutoShortcut]
  /// `autoShortcutProviderMangledName`: the provider's type, as Swift mangles it (not interpreted).
  public var autoShortcutProviderMangledName: String?
  /// `negativePhrases`: phrases that must never reach the app (iOS 17's `NegativeAppShortcutPhrases`), each read
  /// as a localized string like a phrase template.
  public var negativePhrases: [LocalizedText]

  public init(
    version: Int = MetadataDocument.knownVersion, actions: [MetadataIdentifier: Action] = [:],
    entities: [MetadataIdentifier: Entity] = [:], queries: [MetadataIdentifier: Query] = [:],
    enums: [Enumeration] = [], autoShortcuts: [AutoShortcut] = [], autoShortcutProviderMangledName: String? = nil,
    negativePhrases: [LocalizedText] = []
  ) {
    self.version = version
    self.actions = actions
    self.entities = entities
    self.queries = queries
    self.enums = enums
    self.autoShortcuts = autoShortcuts
    self.autoShortcutProviderMangledName = autoShortcutProviderMangledName
    self.negativePhrases = negativePhrases
  }

  /// The enum with `identifier`, if the file declares one.
  public func enumeration(_ identifier: MetadataIdentifier) -> Enumeration? {
    enums.first { $0.identifier == identifier }
  }
}

extension MetadataDocument {
  /// A localized string as Xcode writes it: `{"key": "Order Fuel", "alternatives": []}`. `key` is usually the text in
  /// the development language, sometimes an unresolved `.strings` key.
  public struct LocalizedText: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var key: String
    public var alternatives: [String]

    public init(_ key: String, alternatives: [String] = []) {
      self.key = key
      self.alternatives = alternatives
    }

    public init(stringLiteral key: String) { self.init(key) }

    public var description: String { key }
  }

  /// An intent: one entry of `actions`.
  public struct Action: Sendable, Hashable {
    /// `identifier`: the intent's type name, also its key in `actions`.
    public var identifier: MetadataIdentifier
    /// `title`; nil when the file has none (the `app-intents-title-missing` rule).
    public var title: LocalizedText?
    /// `descriptionMetadata`.
    public var description: DescriptionMetadata?
    /// `parameters`, in declaration order (the order the host asks for them).
    public var parameters: [Parameter]
    /// `openAppWhenRun`: the app comes to the foreground to run it (false when absent).
    public var openAppWhenRun: Bool
    /// `supportedModes`: iOS 26's `IntentModes`, an undocumented bit set (1, 2 and 4 seen); nil when absent.
    public var supportedModes: Int?
    /// `authenticationPolicy` (none when absent).
    public var authenticationPolicy: AuthenticationPolicy
    /// `visibilityMetadata.isDiscoverable`: listed and searchable (true when absent); an undiscoverable intent still
    /// runs.
    public var isDiscoverable: Bool
    /// `actionConfiguration` (the `parameterSummary`), kept as written and not interpreted.
    public var actionConfiguration: MetadataJSON?

    public init(
      identifier: MetadataIdentifier, title: LocalizedText?, description: DescriptionMetadata? = nil,
      parameters: [Parameter] = [], openAppWhenRun: Bool = false, supportedModes: Int? = nil,
      authenticationPolicy: AuthenticationPolicy = .none, isDiscoverable: Bool = true,
      actionConfiguration: MetadataJSON? = nil
    ) {
      self.identifier = identifier
      self.title = title
      self.description = description
      self.parameters = parameters
      self.openAppWhenRun = openAppWhenRun
      self.supportedModes = supportedModes
      self.authenticationPolicy = authenticationPolicy
      self.isDiscoverable = isDiscoverable
      self.actionConfiguration = actionConfiguration
    }

    /// The parameter named `name`.
    public func parameter(_ name: String) -> Parameter? { parameters.first { $0.name.rawValue == name } }
  }

  /// `descriptionMetadata`: `IntentDescription(_:categoryName:searchKeywords:)`.
  public struct DescriptionMetadata: Sendable, Hashable {
    /// `descriptionText`.
    public var descriptionText: LocalizedText
    /// `categoryName`: the group `list` shows it in.
    public var categoryName: LocalizedText?
    /// `searchKeywords`.
    public var searchKeywords: [LocalizedText]

    public init(
      descriptionText: LocalizedText, categoryName: LocalizedText? = nil, searchKeywords: [LocalizedText] = []
    ) {
      self.descriptionText = descriptionText
      self.categoryName = categoryName
      self.searchKeywords = searchKeywords
    }
  }

  /// `authenticationPolicy`: what the device must be before the intent runs.
  ///
  /// Apple does not document the integers. IntentHost's mapping (docs/APPINTENTS.md): 0 `alwaysAllowed` (Apple's
  /// default, seen everywhere), 1 `requiresAuthentication` (seen once in another app's metadata test, inferred),
  /// 2 `requiresLocalDeviceAuthentication` (in the order of Apple's declaration). Any other integer is refused when
  /// read: an unknown policy is never taken for a weaker one.
  public enum AuthenticationPolicy: Int, Sendable, Hashable, CaseIterable {
    /// `.alwaysAllowed`: runs on a locked device.
    case none = 0
    /// `.requiresAuthentication`: the user must be authenticated (the device unlocked, or within its grace period).
    case requiresAuthentication = 1
    /// `.requiresLocalDeviceAuthentication`: the device itself must be unlocked now.
    case requiresLocalDeviceAuthentication = 2

    /// Apple's name of the policy.
    public var appleName: String {
      switch self {
      case .none: return "alwaysAllowed"
      case .requiresAuthentication: return "requiresAuthentication"
      case .requiresLocalDeviceAuthentication: return "requiresLocalDeviceAuthentication"
      }
    }
  }

  /// A parameter of an action: `@Parameter`.
  public struct Parameter: Sendable, Hashable {
    /// `name`: the Swift property's name, which phrase templates and summaries use (`${location}`).
    public var name: MetadataIdentifier
    /// `title`; nil when the file has none (the `app-intents-title-missing` rule).
    public var title: LocalizedText?
    /// `parameterDescription`.
    public var description: LocalizedText?
    /// `isOptional` (false when absent).
    public var isOptional: Bool
    /// `valueType`.
    public var valueType: ValueType
    /// `typeSpecificMetadata`, among which the default value.
    public var typeSpecificMetadata: TypeSpecificMetadata
    /// `dynamicOptionsSupport`: an undocumented integer (0 none, 2 seen with an entity query); nil when absent.
    public var dynamicOptionsSupport: Int?
    /// `intenthost`: IntentHost's own key, the dialogs Xcode's file does not carry.
    public var intentHost: ParameterDialogs?

    public init(
      name: MetadataIdentifier, title: LocalizedText?, description: LocalizedText? = nil, isOptional: Bool = false,
      valueType: ValueType, typeSpecificMetadata: TypeSpecificMetadata = TypeSpecificMetadata(),
      dynamicOptionsSupport: Int? = nil, intentHost: ParameterDialogs? = nil
    ) {
      self.name = name
      self.title = title
      self.description = description
      self.isOptional = isOptional
      self.valueType = valueType
      self.typeSpecificMetadata = typeSpecificMetadata
      self.dynamicOptionsSupport = dynamicOptionsSupport
      self.intentHost = intentHost
    }
  }

  /// A parameter's `"intenthost": {"requestValueDialog": ..., "requestDisambiguationDialog": ...}`: the dialogs of
  /// `@Parameter(requestValueDialog:requestDisambiguationDialog:)`, which Apple keeps in the running app and Xcode's
  /// file does not carry. IntentHost's key, so that `validate` and extensions in other languages see them; a dialog an
  /// extension sends at run time wins over it.
  public struct ParameterDialogs: Sendable, Hashable {
    /// The key of this object in a parameter.
    public static let key = "intenthost"

    /// `requestValueDialog`: the question asked for a missing value ("Where should the order be?").
    public var requestValueDialog: LocalizedText?
    /// `requestDisambiguationDialog`: the question asked to choose among candidates.
    public var requestDisambiguationDialog: LocalizedText?

    public init(requestValueDialog: LocalizedText? = nil, requestDisambiguationDialog: LocalizedText? = nil) {
      self.requestValueDialog = requestValueDialog
      self.requestDisambiguationDialog = requestDisambiguationDialog
    }
  }

  /// `valueType`: a one-key tagged union, `{"primitive": {"wrapper": {"typeIdentifier": 0}}}`.
  public indirect enum ValueType: Sendable, Hashable {
    /// `primitive`: a value of a built-in type.
    case primitive(PrimitiveType)
    /// `entity`: an `AppEntity`, by its type name.
    case entity(MetadataIdentifier)
    /// `linkEnumeration`: an `AppEnum`, by its identifier.
    case enumeration(MetadataIdentifier)
    /// `array`: a list of `memberValueType`.
    case array(ValueType)
    /// `measurement`: a `Measurement`, its wrapper kept as written.
    case measurement(MetadataJSON)
    /// `intents`: one of Apple's Intents types by `typeIdentifier` (12 is a file, inferred by correlation).
    case intents(Int)
    /// A tag IntentHost does not know, kept with its content (the reader reports it).
    case unknown(tag: String, content: MetadataJSON)

    /// The tags IntentHost reads.
    public static let knownTags = ["primitive", "entity", "linkEnumeration", "array", "measurement", "intents"]

    /// A `Measurement<UnitDuration>`, and the AppIntents SDK's `Duration`: `{"measurement": {"wrapper":
    /// {"unitType": "UnitDuration"}}}`. IntentHost's spelling (the unit key of Xcode's own files is not documented);
    /// on the wire the value is a number of seconds.
    public static let duration = ValueType.measurement(
      .object(["wrapper": .object(["unitType": .string("UnitDuration")])]))

    /// Whether it is a duration (`duration`).
    public var isDuration: Bool { self == .duration }

    /// Whether a phrase may name a parameter of this type: an `AppEntity` or an `AppEnum`.
    public var isEntityOrEnum: Bool {
      switch self {
      case .entity, .enumeration: return true
      default: return false
      }
    }
  }

  /// A primitive's `typeIdentifier`: 0 String, 1 Bool, 2 Int, 7 Double, 8 Date, 11 URL (IntentBench's reading of
  /// Apple's files); any other is kept as `other` (10 a placemark and 12 attributed text are seen).
  public enum PrimitiveType: Sendable, Hashable {
    case string, bool, int, double, date, url
    case other(Int)

    public init(typeIdentifier: Int) {
      switch typeIdentifier {
      case 0: self = .string
      case 1: self = .bool
      case 2: self = .int
      case 7: self = .double
      case 8: self = .date
      case 11: self = .url
      default: self = .other(typeIdentifier)
      }
    }

    public var typeIdentifier: Int {
      switch self {
      case .string: return 0
      case .bool: return 1
      case .int: return 2
      case .double: return 7
      case .date: return 8
      case .url: return 11
      case .other(let identifier): return identifier
      }
    }
  }

  /// `typeSpecificMetadata`: a flat list alternating a key and its value,
  /// `["LNValueTypeSpecificMetadataKeyDefaultValue", {"string": {"wrapper": "top"}}]`, kept in its order.
  public struct TypeSpecificMetadata: Sendable, Hashable {
    /// The key of a parameter's default value.
    public static let defaultValueKey = "LNValueTypeSpecificMetadataKeyDefaultValue"

    public struct Entry: Sendable, Hashable {
      public var key: String
      public var value: MetadataJSON

      public init(key: String, value: MetadataJSON) {
        self.key = key
        self.value = value
      }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry] = []) { self.entries = entries }

    /// The default value, from the entry under `defaultValueKey`: a one-key tagged union whose `wrapper` is the value
    /// (`{"string": {"wrapper": "top"}}`; an enum's default is its case identifier as a `string`).
    public var defaultValue: DefaultValue? {
      guard let value = entries.first(where: { $0.key == Self.defaultValueKey })?.value else { return nil }
      guard case .object(let union) = value, union.count == 1, let (tag, content) = union.first else {
        return DefaultValue(tag: "", value: value)
      }
      if case .object(let wrapper) = content, wrapper.count == 1, let inner = wrapper["wrapper"] {
        return DefaultValue(tag: tag, value: inner)
      }
      return DefaultValue(tag: tag, value: content)
    }

    /// A default value: its tag (`string`, ...) and its value.
    public struct DefaultValue: Sendable, Hashable {
      public var tag: String
      public var value: MetadataJSON

      /// The value when it is a string (an enum case's identifier for an enum parameter).
      public var string: String? {
        if case .string(let text) = value { return text }
        return nil
      }
    }
  }

  /// An `AppEntity` type: one entry of `entities`.
  public struct Entity: Sendable, Hashable {
    /// `typeName`, also its key in `entities`.
    public var typeName: MetadataIdentifier
    /// `displayTypeName`; nil when the file has none (the `app-intents-title-missing` rule).
    public var displayTypeName: LocalizedText?
    /// `defaultQueryIdentifier`: its `defaultQuery`, a key of `queries` or a query's `fullyQualifiedIdentifier`.
    public var defaultQueryIdentifier: QualifiedName?
    /// `properties`: its `@Property`s.
    public var properties: [Property]

    public init(
      typeName: MetadataIdentifier, displayTypeName: LocalizedText?, defaultQueryIdentifier: QualifiedName?,
      properties: [Property] = []
    ) {
      self.typeName = typeName
      self.displayTypeName = displayTypeName
      self.defaultQueryIdentifier = defaultQueryIdentifier
      self.properties = properties
    }

    /// A property of an entity: `@Property(title:)`.
    public struct Property: Sendable, Hashable {
      /// `identifier`.
      public var identifier: MetadataIdentifier
      /// `title`.
      public var title: LocalizedText?
      /// `isOptional` (false when absent).
      public var isOptional: Bool
      /// `valueType`.
      public var valueType: ValueType

      public init(identifier: MetadataIdentifier, title: LocalizedText?, isOptional: Bool = false, valueType: ValueType)
      {
        self.identifier = identifier
        self.title = title
        self.isOptional = isOptional
        self.valueType = valueType
      }
    }
  }

  /// An entity query: one entry of `queries`.
  public struct Query: Sendable, Hashable {
    /// Its key in `queries` (Xcode also writes it as `identifier`).
    public var identifier: MetadataIdentifier
    /// `entityType`: the entity it finds.
    public var entityType: MetadataIdentifier
    /// `fullyQualifiedIdentifier` (`Weather.LocationSearchEntityQuery`), which `defaultQueryIdentifier` may name.
    public var fullyQualifiedIdentifier: QualifiedName?
    /// `defaultQueryForEntity` (false when absent).
    public var isDefaultQueryForEntity: Bool
    /// `"intenthost": {"answers": [...]}`: IntentHost's own key, what the query answers; nil when the file does not
    /// say (Xcode's `capabilities` is an undocumented bit set).
    public var answers: [QueryKind]?

    public init(
      identifier: MetadataIdentifier, entityType: MetadataIdentifier, fullyQualifiedIdentifier: QualifiedName? = nil,
      isDefaultQueryForEntity: Bool = false, answers: [QueryKind]? = nil
    ) {
      self.identifier = identifier
      self.entityType = entityType
      self.fullyQualifiedIdentifier = fullyQualifiedIdentifier
      self.isDefaultQueryForEntity = isDefaultQueryForEntity
      self.answers = answers
    }

    /// Whether `name` (an entity's `defaultQueryIdentifier`) names this query: its key, its
    /// `fullyQualifiedIdentifier`, or its key qualified by a module (`Weather.LocationSearchEntityQuery`).
    public func isNamed(_ name: QualifiedName) -> Bool {
      name.rawValue == identifier.rawValue || name == fullyQualifiedIdentifier
        || (fullyQualifiedIdentifier == nil && name.lastComponent == identifier.rawValue)
    }
  }

  /// What an entity query answers, by the protocols it adopts (the `by` of the host's `entity/query`).
  public enum QueryKind: String, Sendable, Hashable, CaseIterable {
    /// `EntityQuery.entities(for:)`: entities by identifier.
    case identifiers
    /// `EntityQuery.suggestedEntities()`: the entities to offer.
    case suggested
    /// `EntityStringQuery.entities(matching:)`: entities matching what the user said.
    case string
    /// `EnumerableEntityQuery.allEntities()`: every entity.
    case all
    /// `EntityPropertyQuery`: entities by their properties.
    case properties
  }

  /// An `AppEnum` type: one element of `enums`.
  public struct Enumeration: Sendable, Hashable {
    /// `identifier`: its type name.
    public var identifier: MetadataIdentifier
    /// `displayTypeName`: `typeDisplayRepresentation`.
    public var displayTypeName: LocalizedText?
    /// `cases`, in declaration order.
    public var cases: [Case]

    public init(identifier: MetadataIdentifier, displayTypeName: LocalizedText?, cases: [Case] = []) {
      self.identifier = identifier
      self.displayTypeName = displayTypeName
      self.cases = cases
    }

    /// A case of an `AppEnum`, with its `caseDisplayRepresentations` entry (`displayRepresentation` in the file).
    public struct Case: Sendable, Hashable {
      /// `identifier`: the Swift case's name (`home`).
      public var identifier: MetadataIdentifier
      /// `displayRepresentation.title`.
      public var title: LocalizedText?
      /// `displayRepresentation.subtitle`.
      public var subtitle: LocalizedText?
      /// `displayRepresentation.synonyms`: other words for it, which the phrase matcher takes too.
      public var synonyms: [LocalizedText]

      public init(
        identifier: MetadataIdentifier, title: LocalizedText?, subtitle: LocalizedText? = nil,
        synonyms: [LocalizedText] = []
      ) {
        self.identifier = identifier
        self.title = title
        self.subtitle = subtitle
        self.synonyms = synonyms
      }
    }
  }

  /// An App Shortcut: one element of `autoShortcuts`, `AppShortcut(intent:phrases:shortTitle:systemImageName:)`.
  public struct AutoShortcut: Sendable, Hashable {
    /// `actionIdentifier`: the intent it runs.
    public var actionIdentifier: MetadataIdentifier
    /// `phraseTemplates`: its phrases, with `${applicationName}` and `${parameter}` slots.
    public var phraseTemplates: [LocalizedText]
    /// `shortTitle`.
    public var shortTitle: LocalizedText?
    /// `systemImageName`: an SF Symbol's name.
    public var systemImageName: String?

    public init(
      actionIdentifier: MetadataIdentifier, phraseTemplates: [LocalizedText], shortTitle: LocalizedText? = nil,
      systemImageName: String? = nil
    ) {
      self.actionIdentifier = actionIdentifier
      self.phraseTemplates = phraseTemplates
      self.shortTitle = shortTitle
      self.systemImageName = systemImageName
    }

    /// The phrases, parsed.
    public var phrases: [PhraseTemplate] { phraseTemplates.map { PhraseTemplate(parsing: $0.key) } }
  }
}

/// `Metadata.appintents/version.json`: `{"version": "3.0", "toolsVersion": "17E6107"}`.
public struct MetadataVersion: Sendable, Hashable {
  /// `version`: the folder's format.
  public var version: String
  /// `toolsVersion`: the Xcode build that wrote it.
  public var toolsVersion: String?

  public init(version: String, toolsVersion: String? = nil) {
    self.version = version
    self.toolsVersion = toolsVersion
  }
}
