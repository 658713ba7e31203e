import BundleManifest

/// An intent to write into an intent definition (`assistant new`), as Xcode's editor writes one: its parameters with
/// their prompts, a success and a failure response code whose dialogs say the parameters, and the enums its enum
/// parameters take.
package struct NewIntent: Sendable, Equatable {
  /// A parameter's type.
  package enum Kind: Sendable, Equatable {
    case integer, decimal, boolean, string
    /// An enum of the definition, named after the parameter (`drink` makes `Drink`), with these cases.
    case enumeration([String])
  }

  package struct Parameter: Sendable, Equatable {
    package var name: String
    package var kind: Kind

    package init(name: String, kind: Kind) {
      self.name = name
      self.kind = kind
    }

    /// Its type's keys in a definition, each key `prefix` + `Type` (`INIntentParameterType`) or `EnumType`: an enum
    /// is stored as an Integer, as Xcode writes it.
    func typeKeys(prefix: String) -> [String: PlistValue] {
      switch kind {
      case .integer: [prefix + "Type": .string("Integer")]
      case .decimal: [prefix + "Type": .string("Decimal")]
      case .boolean: [prefix + "Type": .string("Boolean")]
      case .string: [prefix + "Type": .string("String")]
      case .enumeration: [prefix + "Type": .string("Integer"), prefix + "EnumType": .string(enumName)]
      }
    }

    /// The enum's name: the parameter's, capitalized.
    package var enumName: String { name.prefix(1).uppercased() + name.dropFirst() }
    /// "Drink", "Quantity", "Customer name".
    package var displayName: String { Self.words(name) }

    /// `customerName` → "Customer name".
    static func words(_ identifier: String) -> String {
      var text = ""
      for character in identifier {
        if character.isUppercase && !text.isEmpty {
          text += " " + character.lowercased()
        } else {
          text.append(character)
        }
      }
      return text.prefix(1).uppercased() + text.dropFirst()
    }
  }

  /// `INIntentName`, without `Intent`: "OrderCoffee".
  package var name: String
  package var parameters: [Parameter]
  /// The primary parameter combination's title, which is also how the intent is said with every value
  /// (`Order ${quantity} ${size} for ${customer}`); by default the intent's title, then each parameter.
  package var phrase: String?
  /// The success response's dialog; by default "Done: " and each parameter.
  package var successDialog: String?

  package init(name: String, parameters: [Parameter], phrase: String? = nil, successDialog: String? = nil) {
    self.name = name
    self.parameters = parameters
    self.phrase = phrase
    self.successDialog = successDialog
  }

  /// The success response's dialog template: `successDialog`, or "Done:" and each parameter.
  package var successTemplate: String {
    successDialog ?? "Done: " + parameters.map { "${\($0.name)}" }.joined(separator: " ") + "."
  }

  /// The phrase with a sample value for each parameter, said to `app`.
  package func samplePhrase(app: String) -> String {
    var text = phraseTemplate
    for (parameter, sample) in samples { text = text.replacingOccurrences(of: "${\(parameter.name)}", with: sample) }
    return "\(text) with \(app)"
  }

  /// A sample value of each parameter, as said.
  var samples: [(Parameter, String)] {
    parameters.map { parameter in
      switch parameter.kind {
      case .integer: (parameter, "2")
      case .decimal: (parameter, "1.5")
      case .boolean: (parameter, "yes")
      case .string: (parameter, "Ada")
      case .enumeration(let cases): (parameter, cases.last ?? "unknown")
      }
    }
  }

  /// The phrase with every value: `phrase`, or the title and each parameter.
  package var phraseTemplate: String {
    phrase ?? ([Parameter.words(name)] + parameters.map { "${\($0.name)}" }).joined(separator: " ")
  }

  /// An intent's name as given (`CancelOrder` or `CancelOrderIntent`), without `Intent`.
  /// - Parameter subject: how the message names what was given (`--intent X`).
  /// - Throws: `HostError(.usage)` for a name that is not UpperCamelCase letters and digits.
  package static func intentName(_ text: String, as subject: String) throws -> String {
    var name = text
    if name.hasSuffix("Intent") && name.count > "Intent".count { name.removeLast("Intent".count) }
    guard isIdentifier(name), name.first!.isUppercase else {
      throw HostError(.usage, "\(subject): give an UpperCamelCase intent name of letters and digits, e.g. CancelOrder")
    }
    return name
  }

  /// The parameters of `--param` values, each once.
  /// - Throws: `HostError(.usage)` for a malformed one or one given twice.
  package static func parameters(_ texts: [String]) throws -> [Parameter] {
    let parameters = try texts.map(parameter)
    var seen = Set<String>()
    for parameter in parameters where !seen.insert(parameter.name).inserted {
      throw HostError(.usage, "--param \(parameter.name) is given twice; give each parameter once")
    }
    return parameters
  }

  /// Reads `NAME:TYPE` (`drink:enum(espresso,latte)`, `quantity:integer`, `note:string`, `price:decimal`,
  /// `iced:boolean`).
  /// - Throws: `HostError(.usage)` naming the form and the fix.
  package static func parameter(_ text: String) throws -> Parameter {
    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
    guard parts.count == 2, let name = parts.first, isIdentifier(name) else {
      throw HostError(
        .usage,
        "--param \(text): give NAME:TYPE, NAME a lowerCamelCase identifier (letters and digits), e.g. quantity:integer")
    }
    let type = parts[1]
    switch type {
    case "integer": return Parameter(name: name, kind: .integer)
    case "decimal": return Parameter(name: name, kind: .decimal)
    case "boolean": return Parameter(name: name, kind: .boolean)
    case "string": return Parameter(name: name, kind: .string)
    default:
      guard type.hasPrefix("enum("), type.hasSuffix(")") else {
        throw HostError(
          .usage,
          "--param \(text): the type \(type) is not one of integer, decimal, boolean, string, enum(CASE,CASE...)")
      }
      let cases = type.dropFirst(5).dropLast().split(separator: ",", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard !cases.isEmpty, cases.allSatisfy(isIdentifier), Set(cases).count == cases.count, !cases.contains("unknown")
      else {
        throw HostError(
          .usage,
          "--param \(text): an enum's cases are distinct lowerCamelCase identifiers, not `unknown` (Xcode's case 0), "
            + "e.g. enum(espresso,latte)")
      }
      return Parameter(name: name, kind: .enumeration(cases))
    }
  }

  /// Whether `text` is an identifier a definition, Swift and Python all take: a letter, then letters and digits, and
  /// no keyword of either language (the generated `intent.default` would not compile).
  package static func isIdentifier(_ text: String) -> Bool {
    guard let first = text.first, first.isASCII, first.isLetter, text.count <= 64 else { return false }
    return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } && !keywords.contains(text)
  }

  /// Swift's and Python's keywords, and the names generated code gives members of its own.
  static let keywords: Set<String> = [
    "Any", "Self", "Type", "actor", "and", "any", "as", "associatedtype", "async", "await", "break", "case", "catch",
    "class", "continue", "def", "default", "defer", "deinit", "del", "do", "elif", "else", "enum", "except",
    "extension", "fallthrough", "false", "fileprivate", "finally", "for", "from", "func", "global", "guard",
    "identifier",
    "if", "import", "in", "init", "inout", "internal", "is", "lambda", "let", "nil", "none", "nonlocal", "not",
    "open", "operator", "or", "package", "pass", "precedencegroup", "private", "protocol", "public", "raise",
    "repeat", "rethrows", "return", "self", "some", "static", "struct", "subscript", "super", "switch", "throw",
    "throws", "true", "try", "typealias", "untyped", "var", "where", "while", "with", "yield", "code",
  ]

  /// The `INIntents` entry.
  package var definitionEntry: PlistValue {
    var entries: [PlistValue] = []
    for (index, parameter) in parameters.enumerated() {
      var entry: [String: PlistValue] = [
        "INIntentParameterDisplayName": .string(parameter.displayName),
        "INIntentParameterDisplayNameID": .string("\(name)-p\(index)"),
        "INIntentParameterDisplayPriority": .integer(index + 1),
        "INIntentParameterName": .string(parameter.name),
        "INIntentParameterPromptDialogs": .array([
          .dictionary([
            "INIntentParameterPromptDialogCustom": .boolean(true),
            "INIntentParameterPromptDialogType": .string("Configuration"),
          ]),
          .dictionary([
            "INIntentParameterPromptDialogCustom": .boolean(true),
            "INIntentParameterPromptDialogFormatString": .string(Self.prompt(for: parameter)),
            "INIntentParameterPromptDialogFormatStringID": .string("\(name)-q\(index)"),
            "INIntentParameterPromptDialogType": .string("Primary"),
          ]),
        ]),
        "INIntentParameterSupportsResolution": .boolean(true),
        "INIntentParameterTag": .integer(index + 2),
      ]
      entry.merge(parameter.typeKeys(prefix: "INIntentParameter")) { $1 }
      entries.append(.dictionary(entry))
    }
    var responseParameters: [PlistValue] = []
    for (index, parameter) in (parameters + [Parameter(name: "reason", kind: .string)]).enumerated() {
      var entry: [String: PlistValue] = [
        "INIntentResponseParameterDisplayName": .string(parameter.displayName),
        "INIntentResponseParameterDisplayNameID": .string("\(name)-r\(index)"),
        "INIntentResponseParameterDisplayPriority": .integer(index),
        "INIntentResponseParameterName": .string(parameter.name),
        "INIntentResponseParameterTag": .integer(index + 1),
      ]
      entry.merge(parameter.typeKeys(prefix: "INIntentResponseParameter")) { $1 }
      responseParameters.append(.dictionary(entry))
    }
    let title = Parameter.words(name)
    return .dictionary([
      "INIntentCategory": .string("generic"),
      "INIntentConfigurable": .boolean(true),
      "INIntentDescription": .string("\(title)."),
      "INIntentDescriptionID": .string("\(name)-d"),
      "INIntentLastParameterTag": .integer(parameters.count + 1),
      "INIntentName": .string(name),
      "INIntentParameterCombinations": .dictionary([
        parameters.map(\.name).joined(separator: ","): .dictionary([
          "INIntentParameterCombinationIsPrimary": .boolean(true),
          "INIntentParameterCombinationSupportsBackgroundExecution": .boolean(true),
          "INIntentParameterCombinationTitle": .string(phraseTemplate),
          "INIntentParameterCombinationTitleID": .string("\(name)-c"),
        ])
      ]),
      "INIntentParameters": .array(entries),
      "INIntentResponse": .dictionary([
        "INIntentResponseCodes": .array([
          .dictionary([
            "INIntentResponseCodeFormatString": .string(successTemplate),
            "INIntentResponseCodeFormatStringID": .string("\(name)-ok"),
            "INIntentResponseCodeName": .string("success"),
            "INIntentResponseCodeSuccess": .boolean(true),
          ]),
          .dictionary([
            "INIntentResponseCodeFormatString": .string("Sorry, that did not work: ${reason}."),
            "INIntentResponseCodeFormatStringID": .string("\(name)-ko"),
            "INIntentResponseCodeName": .string("failure"),
          ]),
        ]),
        "INIntentResponseLastParameterTag": .integer(parameters.count + 1),
        "INIntentResponseParameters": .array(responseParameters),
      ]),
      "INIntentTitle": .string(title),
      "INIntentTitleID": .string("\(name)-t"),
      "INIntentType": .string("Custom"),
      "INIntentVerb": .string("Do"),
    ])
  }

  /// The `INEnums` entries of its enum parameters.
  package var enumEntries: [PlistValue] {
    parameters.compactMap { parameter in
      guard case .enumeration(let cases) = parameter.kind else { return nil }
      let values: [PlistValue] =
        [.dictionary(["INEnumValueDisplayName": .string("unknown"), "INEnumValueName": .string("unknown")])]
        + cases.enumerated().map { index, name in
          .dictionary([
            "INEnumValueDisplayName": .string(name),
            "INEnumValueDisplayNameID": .string("\(parameter.enumName)-\(index + 1)"),
            "INEnumValueIndex": .integer(index + 1),
            "INEnumValueName": .string(name),
          ])
        }
      return .dictionary([
        "INEnumDisplayName": .string(parameter.displayName),
        "INEnumDisplayNameID": .string("\(parameter.enumName)-e"),
        "INEnumName": .string(parameter.enumName),
        "INEnumValues": .array(values),
      ])
    }
  }

  /// A whole definition holding this intent alone.
  package var definition: PlistValue {
    .dictionary([
      "INEnums": .array(enumEntries),
      "INIntentDefinitionModelVersion": .string("1.2"),
      "INIntentDefinitionNamespace": .string("IntentHost"),
      "INIntentDefinitionSystemVersion": .string("23F79"),
      "INIntentDefinitionToolsBuildVersion": .string("15F31d"),
      "INIntentDefinitionToolsVersion": .string("15.4"),
      "INIntents": .array([definitionEntry]),
      "INTypes": .array([]),
    ])
  }

  /// What the assistant asks for a parameter's value ("How many?", "Which size?").
  static func prompt(for parameter: Parameter) -> String {
    switch parameter.kind {
    case .integer, .decimal: "How many?"
    case .boolean: "\(parameter.displayName)?"
    case .string, .enumeration: "Which \(parameter.displayName.lowercased())?"
    }
  }
}
