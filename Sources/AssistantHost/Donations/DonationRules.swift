import AppIntentsMetadata
import BundleManifest
import ExtensionProtocol
import Understanding

/// The checks on what an app or an extension sends to donate, to register terms or to suggest shortcuts
/// (docs/PROTOCOL.md, "Requests to
/// the host: donations and vocabulary"). The sender is untrusted: the intent must be one of the app's definitions or
/// the system catalog, every value typed as declared, every string bounded.
struct DonationRules: Sendable {
  /// The app's intent definitions (the app's and its extensions').
  var definitions: [IntentDefinition]
  /// The app's App Intents metadata (the app's and its App Intents extensions'): what it may donate of App Intents.
  var appIntents: [AppIntentsMetadataFolder] = []

  /// What is wrong with an App Intent's donation, or nil when it may be kept: the identifiers bounded as a SiriKit
  /// donation's, the intent one the app's `Metadata.appintents` declare, each value one of its parameters' with a
  /// value of the declared type (`appIntentValueProblem`).
  func problem(_ request: DonateAppIntentRequest) -> String? {
    if let problem = Self.namesProblem(request.identifier, request.groupIdentifier) { return problem }
    let intent = request.appIntent
    guard let (_, document, action) = appIntent(intent.identifier) else {
      return "appIntent.identifier: \(intent.identifier) is not an App Intent of the app's Metadata.appintents"
    }
    return appIntentValuesProblem(intent.parameters, of: action, in: document, field: "appIntent.parameters")
  }

  /// What is wrong with `values` as values of `action`'s parameters, or nil: each names one of its parameters and has
  /// a value of its type.
  func appIntentValuesProblem(
    _ values: [String: ParameterValue], of action: MetadataDocument.Action, in document: MetadataDocument,
    field: String
  ) -> String? {
    for name in values.keys.sorted() {
      let field = "\(field).\(name)"
      guard let parameter = action.parameter(name) else {
        return "\(field): \(action.identifier.rawValue) has no parameter \(name)"
      }
      if let problem = appIntentValueProblem(values[name]!, parameter.valueType, in: document, field: field) {
        return problem
      }
    }
    return nil
  }

  /// The App Intent `identifier` names exactly in the app's metadata, with the folder and the document that declare
  /// it; nil when none does. The one lookup of a kept identifier (a donation's, a shortcut's).
  func appIntent(_ identifier: String) -> (
    folder: AppIntentsMetadataFolder, document: MetadataDocument, action: MetadataDocument.Action
  )? {
    guard let name = MetadataIdentifier(validating: identifier) else { return nil }
    for folder in appIntents {
      if let document = folder.readDocument, let action = document.actions[name] { return (folder, document, action) }
    }
    return nil
  }

  /// What is wrong with `value` as a value of an App Intent parameter of type `type`, or nil: a String or URL a
  /// string, an Int an integer, a Double a number, a Bool a boolean, a Date a date, an AppEnum one of its cases, an
  /// AppEntity an object, an array a list of its member type; a type IntentHost does not model takes a string or an
  /// object. Strings are bounded as a SiriKit donation's.
  func appIntentValueProblem(
    _ value: ParameterValue, _ type: MetadataDocument.ValueType, in document: MetadataDocument, field: String
  ) -> String? {
    if case .array(let member) = type {
      return itemsProblem(value, field: field) { appIntentValueProblem($0, member, in: document, field: $1) }
    }
    if let problem = lengthProblem(value, field: field) { return problem }
    let expected: String
    let fits: Bool
    switch (type, value) {
    case (.enumeration(let name), .enumCase(let identifier)):
      let cases = document.enumeration(name)?.cases.map(\.identifier.rawValue) ?? []
      if cases.contains(identifier) { return nil }
      return "\(field): \(identifier.prefix(60)) is not a case of the AppEnum \(name.rawValue) (its cases: "
        + (cases.isEmpty ? "none" : cases.joined(separator: ", ")) + ")"
    case (.enumeration(let name), _): (expected, fits) = ("a case of the AppEnum \(name.rawValue)", false)
    case (.entity(let name), .object(let object)):
      // Only the properties the entity declares: nothing else is sent on to the extension.
      let declared = Set(document.entities[name]?.properties.map(\.identifier.rawValue) ?? [])
      if let stray = (object.properties ?? [:]).keys.sorted().first(where: { !declared.contains($0) }) {
        return "\(field).properties.\(stray.prefix(60)): the AppEntity \(name.rawValue) declares no property "
          + "\(stray.prefix(60))"
      }
      (expected, fits) = ("an AppEntity \(name.rawValue)", true)
    case (.entity(let name), _): (expected, fits) = ("an AppEntity \(name.rawValue)", false)
    case (.primitive(.string), .string), (.primitive(.url), .string), (.primitive(.int), .integer),
      (.primitive(.double), .decimal), (.primitive(.double), .integer), (.primitive(.bool), .boolean),
      (.primitive(.date), .date):
      (expected, fits) = ("", true)
    case (.primitive(.string), _), (.primitive(.url), _): (expected, fits) = ("a string", false)
    case (.primitive(.int), _): (expected, fits) = ("an integer", false)
    case (.primitive(.double), _): (expected, fits) = ("a number", false)
    case (.primitive(.bool), _): (expected, fits) = ("a boolean", false)
    case (.primitive(.date), _): (expected, fits) = ("a date", false)
    case (.measurement, .decimal), (.measurement, .integer): (expected, fits) = ("", true)
    case (.measurement, _): (expected, fits) = (type.isDuration ? "a number of seconds" : "a number", false)
    case (_, .string), (_, .object): (expected, fits) = ("", true)
    default: (expected, fits) = ("a string or an object", false)
    }
    return fits
      ? nil : "\(field): expected \(expected), not \(Self.article(value.typeName)) \(value.typeName)"
  }

  /// "an" before a vowel, else "a": "an integer", "a string".
  static func article(_ word: String) -> String { "aeiou".contains(word.first ?? "x") ? "an" : "a" }

  /// What is wrong with a donation's `identifier` and `groupIdentifier` (`DonationLimits`), or nil.
  static func namesProblem(_ identifier: String?, _ group: String?) -> String? {
    if let identifier, let problem = DonationLimits.donationIdentifierProblem(identifier) { return problem }
    if let group, let problem = DonationLimits.identifierProblem(group, field: "groupIdentifier") { return problem }
    return nil
  }

  /// What is wrong with `request`, or nil when it may be kept.
  func problem(_ request: DonateRequest) -> String? {
    if let problem = Self.namesProblem(request.identifier, request.groupIdentifier) { return problem }
    let intent = request.interaction.intent
    if let problem = intentProblem(intent, field: "interaction.intent") { return problem }
    guard let response = request.interaction.response, let (spec, definition) = lookUp(intent.name) else {
      return nil
    }
    let code = response.code
    let declared = spec.response?.code(named: code.rawValue) != nil
    guard declared || (ResponseCode.standard.contains(code) && code != .ready) else {
      return
        "interaction.response.code: \(code.rawValue) is neither a standard code (but ready) nor one \(intent.name) "
        + "declares"
    }
    for name in response.parameters.keys.sorted() {
      let field = "interaction.response.parameters.\(name)"
      guard let parameter = spec.response?.parameters.first(where: { $0.name == name }) else {
        return "\(field): the response of \(intent.name) has no parameter \(name)"
      }
      let type = DeclaredType(
        type: parameter.type, enumType: parameter.enumType, objectType: parameter.objectType,
        multiple: parameter.supportsMultipleValues)
      if let problem = valueProblem(response.parameters[name]!, type, definition: definition, field: field) {
        return problem
      }
    }
    return nil
  }

  /// What is wrong with suggested shortcuts, or nil: at most `DonationLimits.maximumSuggestions`, each intent as a
  /// donation's (`intentProblem`), each phrase bounded (`DonationLimits.phraseProblem`) with a word in it.
  func problem(_ request: SetShortcutSuggestionsRequest) -> String? {
    if request.suggestions.count > DonationLimits.maximumSuggestions {
      return "suggestions has \(request.suggestions.count) items; the limit is \(DonationLimits.maximumSuggestions)"
    }
    for (index, suggestion) in request.suggestions.enumerated() {
      let field = "suggestions[\(index)]"
      if let problem = DonationLimits.phraseProblem(suggestion.phrase, field: "\(field).phrase") { return problem }
      if spokenWords(suggestion.phrase).isEmpty {
        return "\(field).phrase has no word (a letter or a digit) to say"
      }
      if let problem = intentProblem(suggestion.intent, field: "\(field).intent") { return problem }
    }
    return nil
  }

  /// What is wrong with `intent` (the field `field` of a request), or nil: its class one of the app's definitions or
  /// the system catalog, its identifier bounded, each parameter one the class declares with a value of its type.
  func intentProblem(_ intent: Intent, field: String) -> String? {
    guard let (spec, definition) = lookUp(intent.name) else {
      return "\(field).name: \(intent.name) is neither an intent of the app's definitions nor a system intent"
    }
    if intent.identifier.unicodeScalars.count > DonationLimits.maximumIdentifierLength {
      return "\(field).identifier is longer than \(DonationLimits.maximumIdentifierLength) Unicode scalars"
    }
    for name in intent.parameters.keys.sorted() {
      let field = "\(field).parameters.\(name)"
      guard let parameter = spec.parameters.first(where: { $0.name == name }) else {
        return "\(field): \(intent.name) has no parameter \(name)"
      }
      let type = DeclaredType(
        type: parameter.type, enumType: parameter.enumType, objectType: parameter.objectType,
        multiple: parameter.supportsMultipleValues)
      if let problem = valueProblem(intent.parameters[name]!, type, definition: definition, field: field) {
        return problem
      }
    }
    return nil
  }

  /// What is wrong with a vocabulary request, or nil.
  static func problem(_ request: SetVocabularyRequest) -> String? {
    guard VocabularyStringType(rawValue: request.type) != nil else {
      let known = VocabularyStringType.allCases.map(\.rawValue).joined(separator: ", ")
      return "type: \(request.type.unicodeScalars.count > 60 ? "the type" : request.type) is not a vocabulary type; "
        + "use one of \(known)"
    }
    if request.strings.count > DonationLimits.maximumVocabularyStrings {
      return "strings has \(request.strings.count) terms; the limit is \(DonationLimits.maximumVocabularyStrings)"
    }
    for (index, string) in request.strings.enumerated() {
      if let problem = DonationLimits.vocabularyStringProblem(string, index: index) { return problem }
    }
    return nil
  }

  /// What is wrong with a deletion, or nil.
  static func problem(_ selection: DonationSelection) -> String? {
    switch selection {
    case .identifiers(let identifiers):
      if identifiers.isEmpty { return "identifiers is empty" }
      if identifiers.count > DonationLimits.maximumDeletedIdentifiers {
        return "identifiers has \(identifiers.count) items; the limit is \(DonationLimits.maximumDeletedIdentifiers)"
      }
      for (index, identifier) in identifiers.enumerated() {
        if let problem = DonationLimits.identifierProblem(identifier, field: "identifiers[\(index)]") {
          return problem
        }
      }
      return nil
    case .group(let group): return DonationLimits.identifierProblem(group, field: "groupIdentifier")
    case .intentType(let name): return DonationLimits.identifierProblem(name, field: "intentType")
    case .all: return nil
    }
  }

  /// What is wrong with `value` as the parameter `name` of `intentClass`, by the rules a donation's values follow
  /// (the declared type, enum cases, lengths), or nil; nil too when the intent or the parameter is unknown.
  /// - Returns: the problem, with the parameter's declared type in words ("Integer", "a list of String", "the enum
  ///   BookingKind").
  func valueProblem(_ value: ParameterValue, parameter name: String, of intentClass: String) -> (
    problem: String, declared: String
  )? {
    guard let (spec, definition) = lookUp(intentClass),
      let parameter = spec.parameters.first(where: { $0.name == name })
    else { return nil }
    let type = DeclaredType(
      type: parameter.type, enumType: parameter.enumType, objectType: parameter.objectType,
      multiple: parameter.supportsMultipleValues)
    guard let problem = valueProblem(value, type, definition: definition, field: name) else { return nil }
    let single =
      parameter.enumType.map { "the enum \($0)" } ?? parameter.objectType.map { "the object \($0)" }
      ?? parameter.type.rawValue
    return (problem, parameter.supportsMultipleValues ? "a list of \(single)" : single)
  }

  /// The intent of class `name`: the app's definitions first, then the system catalog.
  private func lookUp(_ name: String) -> (IntentSpec, IntentDefinition?)? {
    for definition in definitions {
      if let spec = definition.intents.first(where: { $0.className == name }) { return (spec, definition) }
    }
    return SystemIntent.named(name).map { ($0.spec, nil) }
  }

  private struct DeclaredType {
    var type: ParameterType
    var enumType: String?
    var objectType: String?
    var multiple: Bool
  }

  private func valueProblem(
    _ value: ParameterValue, _ declared: DeclaredType, definition: IntentDefinition?, field: String
  ) -> String? {
    if declared.multiple {
      var single = declared
      single.multiple = false
      return itemsProblem(value, field: field) { valueProblem($0, single, definition: definition, field: $1) }
    }
    if let problem = lengthProblem(value, field: field) { return problem }
    let expected: String
    let fits: Bool
    if let enumName = declared.enumType {
      expected = "an enum case of \(enumName)"
      if case .enumCase(let name) = value {
        // A system intent's enums are Apple's (`SystemEnum`); an enum IntentHost does not know: any bounded case name.
        fits = EnumSpec.named(enumName, in: definition).map { $0.values.contains { $0.name == name } } ?? true
      } else {
        fits = false
      }
    } else if declared.objectType != nil || declared.type == .object {
      expected = "an object"
      if case .object = value { fits = true } else { fits = false }
    } else {
      switch (declared.type, value) {
      case (.integer, .integer): (expected, fits) = ("", true)
      case (.integer, _): (expected, fits) = ("an integer", false)
      case (.decimal, .decimal), (.decimal, .integer), (.double, .decimal), (.double, .integer),
        (.currency, .decimal), (.currency, .integer), (.duration, .decimal), (.duration, .integer):
        (expected, fits) = ("", true)
      case (.decimal, _), (.double, _), (.currency, _), (.duration, _): (expected, fits) = ("a number", false)
      case (.boolean, .boolean): (expected, fits) = ("", true)
      case (.boolean, _): (expected, fits) = ("a boolean", false)
      case (.date, .date), (.dateComponents, .date): (expected, fits) = ("", true)
      case (.date, _), (.dateComponents, _): (expected, fits) = ("a date", false)
      case (.string, .string), (.speakableString, .string): (expected, fits) = ("", true)
      case (.string, _), (.speakableString, _): (expected, fits) = ("a string", false)
      // Other system types (Person, Placemark, CurrencyAmount …): a string or an object.
      case (_, .string), (_, .object): (expected, fits) = ("", true)
      default: (expected, fits) = ("a string or an object", false)
      }
    }
    return fits
      ? nil : "\(field): expected \(expected), not \(Self.article(value.typeName)) \(value.typeName)"
  }

  /// What is wrong with `value` as a list: not an array, more than `DonationLimits.maximumArrayCount` items, or the
  /// first item `problem` (given the item and its field, `field[N]`) finds wrong; nil when none.
  private func itemsProblem(
    _ value: ParameterValue, field: String, _ problem: (ParameterValue, String) -> String?
  ) -> String? {
    guard case .array(let items) = value else { return "\(field): expected an array of values" }
    if items.count > DonationLimits.maximumArrayCount {
      return "\(field) has \(items.count) items; the limit is \(DonationLimits.maximumArrayCount)"
    }
    for (index, item) in items.enumerated() {
      if let found = problem(item, "\(field)[\(index)]") { return found }
    }
    return nil
  }

  /// Strings past `DonationLimits.maximumStringValueLength`, anywhere in `value`.
  private func lengthProblem(_ value: ParameterValue, field: String) -> String? {
    let limit = DonationLimits.maximumStringValueLength
    func tooLong(_ text: String) -> Bool { text.unicodeScalars.count > limit }
    switch value {
    case .string(let text), .enumCase(let text):
      return tooLong(text) ? "\(field) is longer than \(limit) Unicode scalars" : nil
    case .object(let object):
      if tooLong(object.identifier) || tooLong(object.displayString) {
        return "\(field) has a string longer than \(limit) Unicode scalars"
      }
      for (key, property) in object.properties ?? [:] {
        if tooLong(key) { return "\(field) has a property name longer than \(limit) Unicode scalars" }
        if let problem = lengthProblem(property, field: "\(field).\(key.prefix(40))") { return problem }
      }
      return nil
    case .array(let items):
      if items.count > DonationLimits.maximumArrayCount {
        return "\(field) has \(items.count) items; the limit is \(DonationLimits.maximumArrayCount)"
      }
      for (index, item) in items.enumerated() {
        if let problem = lengthProblem(item, field: "\(field)[\(index)]") { return problem }
      }
      return nil
    case .integer, .decimal, .boolean, .date: return nil
    }
  }
}
