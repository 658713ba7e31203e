import Foundation

/// An `Intents.intentdefinition` file (model versions 1.0 to 1.2).
public struct IntentDefinition: Sendable, Equatable {
  public var file: String
  public var modelVersion: String?
  public var namespace: String?
  public var toolsVersion: String?
  public var intents: [IntentSpec]
  public var enums: [EnumSpec]
  /// `INTypes`: custom object types.
  public var types: [TypeSpec]
  /// Translations worded for one value (`PROMPTID-VALUEID` keys of a strings table), once localized.
  public var variants: [String: String] = [:]
  /// What loading found that is not a parse error: keys that are likely misspellings (`key-misspelt`).
  public var diagnostics: [Diagnostic] = []

  /// The intent whose class name (`INIntentName` + "Intent") or bare name matches, case-insensitively.
  public func intent(named name: String) -> IntentSpec? {
    intents.first { $0.className.caseInsensitiveCompare(name) == .orderedSame }
      ?? intents.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
  }

  public func enumeration(named name: String) -> EnumSpec? { enums.first { $0.name == name } }

  public func type(named name: String) -> TypeSpec? { types.first { $0.name == name } }

  /// Every localisation ID the definition uses (`…ID` keys), for checking `.strings` files.
  public var localizationIDs: Set<String> {
    var ids = Set<String>()
    func add(_ id: String?) { if let id, !id.isEmpty { ids.insert(id) } }
    for intent in intents {
      add(intent.titleID)
      add(intent.descriptionID)
      for combination in intent.combinations {
        add(combination.titleID)
        add(combination.subtitleID)
      }
      for parameter in intent.parameters {
        add(parameter.displayNameID)
        add(parameter.trueDisplayNameID)
        add(parameter.falseDisplayNameID)
        for prompt in parameter.promptDialogs { add(prompt.textID) }
        for reason in parameter.unsupportedReasonSpecs { add(reason.textID) }
      }
      for code in intent.response?.codes ?? [] {
        add(code.templateID)
        add(code.conciseTemplateID)
      }
      for parameter in intent.response?.parameters ?? [] { add(parameter.displayNameID) }
    }
    for enumeration in enums {
      add(enumeration.displayNameID)
      for value in enumeration.values { add(value.displayNameID) }
    }
    for type in types {
      add(type.displayNameID)
      for property in type.properties { add(property.displayNameID) }
    }
    return ids
  }

  public static func load(contentsOf url: URL) throws -> IntentDefinition {
    try IntentDefinition(PlistDictionary.load(contentsOf: url))
  }

  public init(_ plist: PlistDictionary) throws {
    file = plist.file
    modelVersion = try plist.string("INIntentDefinitionModelVersion")
    namespace = try plist.string("INIntentDefinitionNamespace")
    toolsVersion = try plist.string("INIntentDefinitionToolsVersion")
    guard plist.has("INIntents") else {
      if let typo = plist.misspelling(of: "INIntents") {
        throw plist.error(
          "INIntents", "is missing, and the file has \(typo), which IntentHost does not read",
          fix: "rename \(typo) to INIntents")
      }
      throw plist.error(
        "INIntents", "is missing: this is not an intent definition",
        fix: "add INIntents: an array with one dictionary per intent, each with INIntentName, INIntentParameters "
          + "and INIntentResponse")
    }
    intents = try plist.dictionaries("INIntents").map(IntentSpec.init)
    enums = try plist.dictionaries("INEnums").map(EnumSpec.init)
    types = try plist.dictionaries("INTypes").map(TypeSpec.init)
    diagnostics.addMisspeltKeys(of: plist)
  }
}

/// One intent of a definition.
public struct IntentSpec: Sendable, Equatable {
  /// `INIntentName`, e.g. "BookRoom".
  public var name: String
  /// What `IntentsSupported` lists: `INIntentClassName` for system intents, else name + "Intent".
  public var className: String
  public var type: String?
  public var category: String?
  public var verb: String?
  public var title: String?
  public var titleID: String?
  public var description: String?
  public var descriptionID: String?
  /// `INIntentDomain` of a customised system intent ("Messaging").
  public var domain: String?
  public var keyParameter: String?
  /// `INIntentInput`: the parameter that takes Shortcuts input.
  public var inputParameter: String?
  /// `INIntentRestrictions`, opaque (0 or 1 seen).
  public var restrictions: Int?
  public var eligibleForWidgets: Bool
  public var parameters: [ParameterSpec]
  public var response: ResponseSpec?
  /// `INIntentParameterCombinations`: comma-separated parameter names to the Shortcuts title.
  public var combinations: [Combination]
  /// `INIntentManagedParameterCombinations` (configurable intents).
  public var managedCombinations: [Combination]
  public var userConfirmationRequired: Bool
  public var configurable: Bool

  /// Whether this entry customises an Apple intent (`INIntentType` = System).
  public var isSystem: Bool { type == "System" }

  public struct Combination: Sendable, Equatable {
    /// The combination's key: parameter names in author order ("" for an intent without parameters).
    public var key: String
    public var parameters: [String]
    public var title: String?
    public var titleID: String?
    public var subtitle: String?
    public var subtitleID: String?
    public var isPrimary: Bool
    public var supportsBackgroundExecution: Bool

    init(key: String, _ entry: PlistDictionary) throws {
      self.key = key
      parameters = key.split(separator: ",").map(String.init)
      title = try entry.string("INIntentParameterCombinationTitle")
      titleID = try entry.string("INIntentParameterCombinationTitleID")
      subtitle = try entry.string("INIntentParameterCombinationSubtitle")
      subtitleID = try entry.string("INIntentParameterCombinationSubtitleID")
      isPrimary = try entry.bool("INIntentParameterCombinationIsPrimary")
      supportsBackgroundExecution = try entry.bool("INIntentParameterCombinationSupportsBackgroundExecution")
    }
  }

  public func parameter(named name: String) -> ParameterSpec? { parameters.first { $0.name == name } }

  init(_ plist: PlistDictionary) throws {
    name = try plist.requiredString(
      "INIntentName", fix: "add INIntentName, the intent's name (BookRoom for BookRoomIntent)")
    className = try plist.string("INIntentClassName") ?? name + "Intent"
    type = try plist.string("INIntentType")
    category = try plist.string("INIntentCategory")
    verb = try plist.string("INIntentVerb")
    title = try plist.string("INIntentTitle")
    titleID = try plist.string("INIntentTitleID")
    description = try plist.string("INIntentDescription")
    descriptionID = try plist.string("INIntentDescriptionID")
    domain = try plist.string("INIntentDomain")
    keyParameter = try plist.string("INIntentKeyParameter")
    inputParameter = try plist.string("INIntentInput")
    restrictions = try plist.integer("INIntentRestrictions")
    eligibleForWidgets = try plist.bool("INIntentEligibleForWidgets")
    parameters = try plist.dictionaries("INIntentParameters").map(ParameterSpec.init)
    response = try plist.dictionary("INIntentResponse").map(ResponseSpec.init)
    userConfirmationRequired = try plist.bool("INIntentUserConfirmationRequired")
    configurable = try plist.bool("INIntentConfigurable")
    func combinations(_ key: String) throws -> [Combination] {
      guard let dictionary = try plist.dictionary(key) else { return [] }
      return try dictionary.values.keys.sorted().compactMap { key in
        try dictionary.dictionary(key).map { try Combination(key: key, $0) }
      }
    }
    self.combinations = try combinations("INIntentParameterCombinations")
    managedCombinations = try combinations("INIntentManagedParameterCombinations")
  }
}

/// One parameter of an intent.
public struct ParameterSpec: Sendable, Equatable {
  public var name: String
  /// `INIntentParameterType`: String, Integer, Decimal, Boolean, Object, Person, …
  public var type: ParameterType
  public var tag: Int?
  public var displayName: String?
  public var displayNameID: String?
  public var displayPriority: Int?
  public var configurable: Bool
  public var customDisambiguation: Bool
  public var supportsDynamicEnumeration: Bool
  public var enumNamespace: String?
  public var objectNamespace: String?
  /// `INIntentParameterMetadataType`: Field, Slider, Name, Contact, Custom.
  public var metadataType: String?
  /// `INIntentParameterFixedSizeArray` (written as an integer flag).
  public var fixedSizeArray: Bool
  /// Every prompt dialog in file order, with its localisation ID.
  public var promptDialogs: [PromptDialog]
  public var unsupportedReasonSpecs: [UnsupportedReason]
  public var relationship: Relationship?
  public var trueDisplayNameID: String?
  public var falseDisplayNameID: String?
  public var supportsMultipleValues: Bool
  public var supportsResolution: Bool
  public var enumType: String?
  public var objectType: String?
  /// Prompt texts by dialog type ("Primary", "Confirmation", "DisambiguationIntroduction", …).
  public var prompts: [String: String]
  /// `INIntentParameterMetadataTrueDisplayName` / `…FalseDisplayName` of a Boolean.
  public var trueDisplayName: String?
  public var falseDisplayName: String?
  /// `INIntentParameterMetadataDefaultValue`, as text.
  public var defaultValue: String?
  public var minimumValue: Double?
  public var maximumValue: Double?
  /// Unsupported-reason code to its template.
  public var unsupportedReasons: [String: String]

  /// What the user is asked for this parameter: its display name, or else its name in words ("roomNumber" →
  /// "room number"), never the raw identifier.
  public var label: String { displayName ?? ParameterSpec.words(of: name) }

  /// An identifier in words: "roomNumber" → "room number", "isOpenEnded" → "is open ended", "URLString" → "URL
  /// string".
  public static func words(of identifier: String) -> String {
    var words: [String] = []
    let characters = Array(identifier)
    for (index, character) in characters.enumerated() {
      if character == "_" || character == "-" || character == " " {
        words.append("")
        continue
      }
      let previous = index > 0 ? characters[index - 1] : nil
      let next = index + 1 < characters.count ? characters[index + 1] : nil
      let startsWord =
        words.isEmpty
        || (character.isUppercase
          && (previous?.isLowercase == true || previous?.isNumber == true
            || (previous?.isUppercase == true && next?.isLowercase == true)))
        || (character.isNumber && previous?.isLetter == true)
      if startsWord { words.append("") }
      words[words.count - 1].append(character)
    }
    return words.filter { !$0.isEmpty }.map { word in
      // An acronym stays as it is ("URL"); a capitalised word is lowered ("Number" → "number").
      word.count > 1 && word.allSatisfy(\.isUppercase) ? word : word.lowercased()
    }.joined(separator: " ")
  }

  /// `INIntentParameterPromptDialogs[i]`.
  public struct PromptDialog: Sendable, Equatable {
    /// Primary, Configuration, Confirmation, DisambiguationIntroduction, DisambiguationSelection, Concise.
    public var type: String
    /// nil: Siri's default prompt.
    public var text: String?
    public var textID: String?
  }

  /// `INIntentParameterUnsupportedReasons[i]`.
  public struct UnsupportedReason: Sendable, Equatable {
    public var code: String
    public var text: String?
    public var textID: String?
    /// A built-in reason (negativeNumbersNotSupported, …) rather than the developer's own.
    public var isDefault: Bool
  }

  /// `INIntentParameterRelationship`: ask for this parameter only when `parent` has `value`.
  public struct Relationship: Sendable, Equatable {
    public var parent: String
    /// Only `EnumHasExactValue` is seen.
    public var predicate: String?
    public var value: String?
  }

  /// The prompt of `type` (the first with text), and its localisation ID.
  public func prompt(_ type: String) -> PromptDialog? {
    promptDialogs.first { $0.type == type && $0.text != nil }
  }

  init(_ plist: PlistDictionary) throws {
    name = try plist.requiredString("INIntentParameterName")
    type = try plist.string("INIntentParameterType").map(ParameterType.init(rawValue:)) ?? .string
    tag = try plist.integer("INIntentParameterTag")
    displayName = try plist.string("INIntentParameterDisplayName")
    displayNameID = try plist.string("INIntentParameterDisplayNameID")
    displayPriority = try plist.integer("INIntentParameterDisplayPriority")
    configurable = try plist.bool("INIntentParameterConfigurable")
    customDisambiguation = try plist.bool("INIntentParameterCustomDisambiguation")
    supportsDynamicEnumeration = try plist.bool("INIntentParameterSupportsDynamicEnumeration")
    supportsMultipleValues = try plist.bool("INIntentParameterSupportsMultipleValues")
    supportsResolution = try plist.bool("INIntentParameterSupportsResolution")
    fixedSizeArray = try plist.bool("INIntentParameterFixedSizeArray")
    enumType = try plist.string("INIntentParameterEnumType")
    enumNamespace = try plist.string("INIntentParameterEnumTypeNamespace")
    objectType = try plist.string("INIntentParameterObjectType")
    objectNamespace = try plist.string("INIntentParameterObjectTypeNamespace")
    promptDialogs = try plist.dictionaries("INIntentParameterPromptDialogs").map { dialog in
      PromptDialog(
        type: try dialog.string("INIntentParameterPromptDialogType") ?? "Primary",
        text: try dialog.string("INIntentParameterPromptDialogFormatString"),
        textID: try dialog.string("INIntentParameterPromptDialogFormatStringID"))
    }
    var prompts: [String: String] = [:]
    for dialog in promptDialogs where prompts[dialog.type] == nil {
      if let text = dialog.text { prompts[dialog.type] = text }
    }
    self.prompts = prompts
    let metadata = try plist.dictionary("INIntentParameterMetadata")
    metadataType = try metadata?.string("INIntentParameterMetadataType")
    trueDisplayName = try metadata?.string("INIntentParameterMetadataTrueDisplayName")
    trueDisplayNameID = try metadata?.string("INIntentParameterMetadataTrueDisplayNameID")
    falseDisplayName = try metadata?.string("INIntentParameterMetadataFalseDisplayName")
    falseDisplayNameID = try metadata?.string("INIntentParameterMetadataFalseDisplayNameID")
    defaultValue = metadata?.scalarText("INIntentParameterMetadataDefaultValue")
    minimumValue = metadata?.scalarText("INIntentParameterMetadataMinimumValue").flatMap(Double.init)
    maximumValue = metadata?.scalarText("INIntentParameterMetadataMaximumValue").flatMap(Double.init)
    unsupportedReasonSpecs = try plist.dictionaries("INIntentParameterUnsupportedReasons").compactMap { reason in
      guard let code = try reason.string("INIntentParameterUnsupportedReasonCode") else { return nil }
      return UnsupportedReason(
        code: code, text: try reason.string("INIntentParameterUnsupportedReasonFormatString"),
        textID: try reason.string("INIntentParameterUnsupportedReasonFormatStringID"),
        isDefault: try reason.bool("INIntentParameterUnsupportedReasonDefault"))
    }
    var reasons: [String: String] = [:]
    for reason in unsupportedReasonSpecs { reasons[reason.code] = reason.text ?? "" }
    unsupportedReasons = reasons
    relationship = try plist.dictionary("INIntentParameterRelationship").map { relation in
      Relationship(
        parent: try relation.string("INIntentParameterRelationshipParentName") ?? "",
        predicate: try relation.string("INIntentParameterRelationshipPredicateName"),
        value: relation.scalarText("INIntentParameterRelationshipPredicateValue"))
    }
  }
}

/// `INIntentResponse`.
public struct ResponseSpec: Sendable, Equatable {
  public var codes: [ResponseCodeSpec]
  public var parameters: [ResponseParameterSpec]
  /// `INIntentResponseOutput`: the response parameter Shortcuts gets as output.
  public var output: String?

  public func code(named name: String) -> ResponseCodeSpec? { codes.first { $0.name == name } }

  init(_ plist: PlistDictionary) throws {
    output = try plist.string("INIntentResponseOutput")
    codes = try plist.dictionaries("INIntentResponseCodes").map { code in
      ResponseCodeSpec(
        name: try code.requiredString("INIntentResponseCodeName"),
        isSuccess: try code.bool("INIntentResponseCodeSuccess"),
        template: try code.string("INIntentResponseCodeFormatString"),
        templateID: try code.string("INIntentResponseCodeFormatStringID"),
        conciseTemplate: try code.string("INIntentResponseCodeConciseFormatString"),
        conciseTemplateID: try code.string("INIntentResponseCodeConciseFormatStringID"))
    }
    parameters = try plist.dictionaries("INIntentResponseParameters").map { parameter in
      let metadata = try parameter.dictionary("INIntentResponseParameterMetadata")
      return ResponseParameterSpec(
        name: try parameter.requiredString("INIntentResponseParameterName"),
        type: try parameter.string("INIntentResponseParameterType").map(ParameterType.init(rawValue:)) ?? .string,
        displayName: try parameter.string("INIntentResponseParameterDisplayName"),
        displayNameID: try parameter.string("INIntentResponseParameterDisplayNameID"),
        supportsMultipleValues: try parameter.bool("INIntentResponseParameterSupportsMultipleValues"),
        enumType: try parameter.string("INIntentResponseParameterEnumType"),
        objectType: try parameter.string("INIntentResponseParameterObjectType"),
        trueDisplayName: try metadata?.string("INIntentResponseParameterMetadataTrueDisplayName"),
        falseDisplayName: try metadata?.string("INIntentResponseParameterMetadataFalseDisplayName"))
    }
  }
}

public struct ResponseCodeSpec: Sendable, Equatable {
  public var name: String
  public var isSuccess: Bool
  public var template: String?
  public var templateID: String?
  public var conciseTemplate: String?
  public var conciseTemplateID: String?

  public init(
    name: String, isSuccess: Bool, template: String? = nil, templateID: String? = nil,
    conciseTemplate: String? = nil, conciseTemplateID: String? = nil
  ) {
    self.name = name
    self.isSuccess = isSuccess
    self.template = template
    self.templateID = templateID
    self.conciseTemplate = conciseTemplate
    self.conciseTemplateID = conciseTemplateID
  }
}

public struct ResponseParameterSpec: Sendable, Equatable {
  public var name: String
  /// `INIntentResponseParameterType`.
  public var type: ParameterType
  public var displayName: String?
  public var displayNameID: String?
  public var supportsMultipleValues: Bool
  public var enumType: String?
  public var objectType: String?
  public var trueDisplayName: String?
  public var falseDisplayName: String?
}

/// `INEnums[i]`.
public struct EnumSpec: Sendable, Equatable {
  public var name: String
  public var displayName: String?
  public var displayNameID: String?
  public var values: [Value]

  public struct Value: Sendable, Equatable {
    public var name: String
    public var displayName: String?
    public var displayNameID: String?
    /// `INEnumValueIndex`; absent means 0 (the `unknown` value of 1.1+ files).
    public var index: Int
  }

  init(_ plist: PlistDictionary) throws {
    name = try plist.requiredString("INEnumName")
    displayName = try plist.string("INEnumDisplayName")
    displayNameID = try plist.string("INEnumDisplayNameID")
    values = try plist.dictionaries("INEnumValues").map { value in
      Value(
        name: try value.requiredString("INEnumValueName"), displayName: try value.string("INEnumValueDisplayName"),
        displayNameID: try value.string("INEnumValueDisplayNameID"),
        index: try value.integer("INEnumValueIndex") ?? 0)
    }
  }
}

/// `INTypes[i]`: a custom object type.
public struct TypeSpec: Sendable, Equatable {
  public var name: String
  public var displayName: String?
  public var displayNameID: String?
  public var properties: [Property]

  public struct Property: Sendable, Equatable {
    public var name: String
    /// `INTypePropertyType`.
    public var type: ParameterType
    public var tag: Int?
    public var displayName: String?
    public var displayNameID: String?
    public var supportsMultipleValues: Bool
    /// One of the four built-in properties (identifier, displayString, pronunciationHint,
    /// alternativeSpeakableMatches).
    public var isDefault: Bool
  }

  init(_ plist: PlistDictionary) throws {
    name = try plist.requiredString("INTypeName")
    displayName = try plist.string("INTypeDisplayName")
    displayNameID = try plist.string("INTypeDisplayNameID")
    properties = try plist.dictionaries("INTypeProperties").map { property in
      Property(
        name: try property.requiredString("INTypePropertyName"),
        type: try property.string("INTypePropertyType").map(ParameterType.init(rawValue:)) ?? .string,
        tag: try property.integer("INTypePropertyTag"),
        displayName: try property.string("INTypePropertyDisplayName"),
        displayNameID: try property.string("INTypePropertyDisplayNameID"),
        supportsMultipleValues: try property.bool("INTypePropertySupportsMultipleValues"),
        isDefault: try property.bool("INTypePropertyDefault"))
    }
  }
}

/// `AppIntentVocabulary.plist`: example phrases per intent, and vocabulary for parameter values.
public struct Vocabulary: Sendable, Equatable {
  public var file: String
  /// Intent class name to example phrases.
  public var intentPhrases: [String: [String]]
  /// "IntentClass.parameter" to vocabulary item identifier to its synonym phrases.
  public var parameterVocabulary: [String: [String: [String]]]
  /// Every vocabulary item, with pronunciations and examples.
  public var items: [Item]
  /// What loading found that is not a parse error: keys that are likely misspellings (`key-misspelt`).
  public var diagnostics: [Diagnostic] = []

  public struct Item: Sendable, Equatable {
    /// "IntentClass.parameter" names the item applies to.
    public var parameterNames: [String]
    public var identifier: String
    public var synonyms: [Synonym]
  }

  public struct Synonym: Sendable, Equatable {
    public var phrase: String
    public var pronunciation: String?
    public var examples: [String]
  }

  /// Synonyms of the values of `parameter` of `intentClass`: item identifier to phrases.
  public func synonyms(intentClass: String, parameter: String) -> [String: [String]] {
    parameterVocabulary["\(intentClass).\(parameter)"] ?? [:]
  }

  public static func load(contentsOf url: URL) throws -> Vocabulary {
    try Vocabulary(PlistDictionary.load(contentsOf: url))
  }

  /// Reads the plist. Entries left empty (Xcode's unfilled template) are skipped.
  public init(_ plist: PlistDictionary) throws {
    var phrases: [String: [String]] = [:]
    for entry in try plist.dictionaries("IntentPhrases") {
      guard let name = try entry.string("IntentName"), !name.isEmpty else { continue }
      phrases[name, default: []] += try entry.strings("IntentExamples").filter { !$0.isEmpty }
    }
    var vocabulary: [String: [String: [String]]] = [:]
    var items: [Item] = []
    for entry in try plist.dictionaries("ParameterVocabularies") {
      let names = try entry.strings("ParameterNames").filter { !$0.isEmpty }
      for item in try entry.dictionaries("ParameterVocabulary") {
        guard let identifier = try item.string("VocabularyItemIdentifier"), !identifier.isEmpty else { continue }
        let synonyms = try item.dictionaries("VocabularyItemSynonyms").compactMap { synonym -> Synonym? in
          guard let phrase = try synonym.string("VocabularyItemPhrase"), !phrase.isEmpty else { return nil }
          return Synonym(
            phrase: phrase, pronunciation: try synonym.string("VocabularyItemPronunciation"),
            examples: try synonym.strings("VocabularyItemExamples"))
        }
        items.append(Item(parameterNames: names, identifier: identifier, synonyms: synonyms))
        for name in names { vocabulary[name, default: [:]][identifier, default: []] += synonyms.map(\.phrase) }
      }
    }
    file = plist.file
    intentPhrases = phrases
    parameterVocabulary = vocabulary
    self.items = items
    diagnostics.addMisspeltKeys(of: plist)
  }
}

/// A `<lang>.lproj/Intents.strings` file: translations of a definition's strings, keyed by their IDs (and
/// `ID-valueID` for per-value variants).
public struct StringsTable: Sendable, Equatable {
  public var file: String
  /// The folder's language, e.g. "fr" for fr.lproj.
  public var language: String
  public var strings: [String: String]

  public static func load(contentsOf url: URL) throws -> StringsTable {
    try StringsTable(PlistDictionary.load(contentsOf: url), url: url)
  }

  /// The table in `data`, the content of the file at `url` (read by the caller, e.g. without following links).
  public static func parse(_ data: Data, url: URL) throws -> StringsTable {
    try StringsTable(PlistDictionary.parse(data, file: url.path), url: url)
  }
}

extension StringsTable {
  init(_ plist: PlistDictionary, url: URL) throws {
    var strings: [String: String] = [:]
    for (key, value) in plist.values {
      guard let text = value as? String else {
        throw plist.error(
          key, "is \(withArticle(typeName(of: value))), expected a string", fix: "write \"\(key)\" = \"text\";")
      }
      strings[key] = text
    }
    let folder = url.deletingLastPathComponent().lastPathComponent
    let language = folder.hasSuffix(".lproj") ? String(folder.dropLast(6)) : ""
    self.init(file: plist.file, language: language, strings: strings)
  }
}
