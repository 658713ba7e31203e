import Foundation

/// An `Intents.intentdefinition` file (model versions 1.0 to 1.2).
public struct IntentDefinition: Sendable, Equatable {
  public var file: String
  public var modelVersion: String?
  public var namespace: String?
  public var intents: [IntentSpec]
  public var enums: [EnumSpec]

  /// The intent whose class name (`INIntentName` + "Intent") or bare name matches, case-insensitively.
  public func intent(named name: String) -> IntentSpec? {
    intents.first { $0.className.caseInsensitiveCompare(name) == .orderedSame }
      ?? intents.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
  }

  public func enumeration(named name: String) -> EnumSpec? { enums.first { $0.name == name } }

  public static func load(contentsOf url: URL) throws -> IntentDefinition {
    try IntentDefinition(PlistDictionary.load(contentsOf: url))
  }

  public init(_ plist: PlistDictionary) throws {
    file = plist.file
    modelVersion = try plist.string("INIntentDefinitionModelVersion")
    namespace = try plist.string("INIntentDefinitionNamespace")
    guard plist.has("INIntents") else {
      throw plist.error(
        "INIntents", "is missing: this is not an intent definition", fix: "create the file with Xcode's intent editor")
    }
    intents = try plist.dictionaries("INIntents").map(IntentSpec.init)
    enums = try plist.dictionaries("INEnums").map(EnumSpec.init)
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
  public var title: String?
  public var description: String?
  public var parameters: [ParameterSpec]
  public var response: ResponseSpec?
  /// `INIntentParameterCombinations`: comma-separated parameter names to the Shortcuts title.
  public var combinations: [Combination]
  public var userConfirmationRequired: Bool
  public var configurable: Bool

  public struct Combination: Sendable, Equatable {
    public var parameters: [String]
    public var title: String?
    public var subtitle: String?
    public var isPrimary: Bool
  }

  public func parameter(named name: String) -> ParameterSpec? { parameters.first { $0.name == name } }

  init(_ plist: PlistDictionary) throws {
    name = try plist.requiredString("INIntentName", fix: "give the intent a name in Xcode's intent editor")
    className = try plist.string("INIntentClassName") ?? name + "Intent"
    type = try plist.string("INIntentType")
    category = try plist.string("INIntentCategory")
    title = try plist.string("INIntentTitle")
    description = try plist.string("INIntentDescription")
    parameters = try plist.dictionaries("INIntentParameters").map(ParameterSpec.init)
    response = try plist.dictionary("INIntentResponse").map(ResponseSpec.init)
    userConfirmationRequired = try plist.bool("INIntentUserConfirmationRequired")
    configurable = try plist.bool("INIntentConfigurable")
    var combinations: [Combination] = []
    if let dictionary = try plist.dictionary("INIntentParameterCombinations") {
      for key in dictionary.values.keys.sorted() {
        guard let entry = try dictionary.dictionary(key) else { continue }
        combinations.append(
          Combination(
            parameters: key.split(separator: ",").map(String.init),
            title: try entry.string("INIntentParameterCombinationTitle"),
            subtitle: try entry.string("INIntentParameterCombinationSubtitle"),
            isPrimary: try entry.bool("INIntentParameterCombinationIsPrimary")))
      }
    }
    self.combinations = combinations
  }
}

/// One parameter of an intent.
public struct ParameterSpec: Sendable, Equatable {
  public var name: String
  /// `INIntentParameterType`: String, Integer, Decimal, Boolean, Object, Person, …
  public var type: String
  public var displayName: String?
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

  /// What the user is asked for this parameter.
  public var label: String { displayName ?? name }

  init(_ plist: PlistDictionary) throws {
    name = try plist.requiredString("INIntentParameterName")
    type = try plist.string("INIntentParameterType") ?? "String"
    displayName = try plist.string("INIntentParameterDisplayName")
    supportsMultipleValues = try plist.bool("INIntentParameterSupportsMultipleValues")
    supportsResolution = try plist.bool("INIntentParameterSupportsResolution")
    enumType = try plist.string("INIntentParameterEnumType")
    objectType = try plist.string("INIntentParameterObjectType")
    var prompts: [String: String] = [:]
    for dialog in try plist.dictionaries("INIntentParameterPromptDialogs") {
      if let type = try dialog.string("INIntentParameterPromptDialogType"),
        let text = try dialog.string("INIntentParameterPromptDialogFormatString"), prompts[type] == nil
      {
        prompts[type] = text
      }
    }
    self.prompts = prompts
    let metadata = try plist.dictionary("INIntentParameterMetadata")
    trueDisplayName = try metadata?.string("INIntentParameterMetadataTrueDisplayName")
    falseDisplayName = try metadata?.string("INIntentParameterMetadataFalseDisplayName")
    defaultValue = metadata?.scalarText("INIntentParameterMetadataDefaultValue")
    minimumValue = metadata?.scalarText("INIntentParameterMetadataMinimumValue").flatMap(Double.init)
    maximumValue = metadata?.scalarText("INIntentParameterMetadataMaximumValue").flatMap(Double.init)
    var reasons: [String: String] = [:]
    for reason in try plist.dictionaries("INIntentParameterUnsupportedReasons") {
      if let code = try reason.string("INIntentParameterUnsupportedReasonCode") {
        reasons[code] = try reason.string("INIntentParameterUnsupportedReasonFormatString") ?? ""
      }
    }
    unsupportedReasons = reasons
  }
}

/// `INIntentResponse`.
public struct ResponseSpec: Sendable, Equatable {
  public var codes: [ResponseCodeSpec]
  public var parameters: [ResponseParameterSpec]

  public func code(named name: String) -> ResponseCodeSpec? { codes.first { $0.name == name } }

  init(_ plist: PlistDictionary) throws {
    codes = try plist.dictionaries("INIntentResponseCodes").map { code in
      ResponseCodeSpec(
        name: try code.requiredString("INIntentResponseCodeName"),
        isSuccess: try code.bool("INIntentResponseCodeSuccess"),
        template: try code.string("INIntentResponseCodeFormatString"),
        conciseTemplate: try code.string("INIntentResponseCodeConciseFormatString"))
    }
    parameters = try plist.dictionaries("INIntentResponseParameters").map { parameter in
      let metadata = try parameter.dictionary("INIntentResponseParameterMetadata")
      return ResponseParameterSpec(
        name: try parameter.requiredString("INIntentResponseParameterName"),
        type: try parameter.string("INIntentResponseParameterType") ?? "String",
        displayName: try parameter.string("INIntentResponseParameterDisplayName"),
        enumType: try parameter.string("INIntentResponseParameterEnumType"),
        trueDisplayName: try metadata?.string("INIntentResponseParameterMetadataTrueDisplayName"),
        falseDisplayName: try metadata?.string("INIntentResponseParameterMetadataFalseDisplayName"))
    }
  }
}

public struct ResponseCodeSpec: Sendable, Equatable {
  public var name: String
  public var isSuccess: Bool
  public var template: String?
  public var conciseTemplate: String?
}

public struct ResponseParameterSpec: Sendable, Equatable {
  public var name: String
  public var type: String
  public var displayName: String?
  public var enumType: String?
  public var trueDisplayName: String?
  public var falseDisplayName: String?
}

/// `INEnums[i]`.
public struct EnumSpec: Sendable, Equatable {
  public var name: String
  public var displayName: String?
  public var values: [Value]

  public struct Value: Sendable, Equatable {
    public var name: String
    public var displayName: String?
    public var index: Int
  }

  init(_ plist: PlistDictionary) throws {
    name = try plist.requiredString("INEnumName")
    displayName = try plist.string("INEnumDisplayName")
    values = try plist.dictionaries("INEnumValues").map { value in
      Value(
        name: try value.requiredString("INEnumValueName"), displayName: try value.string("INEnumValueDisplayName"),
        index: try value.integer("INEnumValueIndex") ?? 0)
    }
  }
}

/// `AppIntentVocabulary.plist`: example phrases per intent.
public struct Vocabulary: Sendable, Equatable {
  public var file: String
  /// Intent class name to example phrases.
  public var intentPhrases: [String: [String]]
  /// "IntentClass.parameter" to vocabulary item identifier to its synonym phrases.
  public var parameterVocabulary: [String: [String: [String]]]

  /// Synonyms of the values of `parameter` of `intentClass`: item identifier to phrases.
  public func synonyms(intentClass: String, parameter: String) -> [String: [String]] {
    parameterVocabulary["\(intentClass).\(parameter)"] ?? [:]
  }

  public static func load(contentsOf url: URL) throws -> Vocabulary {
    let plist = try PlistDictionary.load(contentsOf: url)
    var phrases: [String: [String]] = [:]
    for entry in try plist.dictionaries("IntentPhrases") {
      guard let name = try entry.string("IntentName"), !name.isEmpty else { continue }
      phrases[name, default: []] += try entry.strings("IntentExamples").filter { !$0.isEmpty }
    }
    var vocabulary: [String: [String: [String]]] = [:]
    for entry in try plist.dictionaries("ParameterVocabularies") {
      let names = try entry.strings("ParameterNames").filter { !$0.isEmpty }
      for item in try entry.dictionaries("ParameterVocabulary") {
        guard let identifier = try item.string("VocabularyItemIdentifier"), !identifier.isEmpty else { continue }
        let synonyms = try item.dictionaries("VocabularyItemSynonyms").compactMap {
          try $0.string("VocabularyItemPhrase")
        }.filter { !$0.isEmpty }
        for name in names { vocabulary[name, default: [:]][identifier, default: []] += synonyms }
      }
    }
    return Vocabulary(file: plist.file, intentPhrases: phrases, parameterVocabulary: vocabulary)
  }
}
