import BundleManifest
import ExtensionProtocol
import Foundation

/// Turns what a user typed or said into typed parameter values, and values back into words.
///
/// A parameter's vocabulary synonyms and enum cases are looked up by their words in an index built the first time
/// the parameter is read (`SpokenIndex`), so reading a value costs the same with 20,000 synonyms as with two. Copies
/// of an interpreter share the index.
package struct ValueInterpreter: Sendable {
  /// The intent whose parameters it reads (a vocabulary's `Intent.parameter` keys name it).
  package let intentClass: String
  /// The definition of the intent's enums and prompt translations; nil for a system intent without one.
  package let definition: IntentDefinition?
  /// The app's vocabularies, whose synonyms are values too.
  package let vocabularies: [Vocabulary]
  private let index = SpokenIndex()

  /// An interpreter of `intentClass`'s values under `definition`, with the synonyms of `vocabularies`.
  package init(intentClass: String, definition: IntentDefinition?, vocabularies: [Vocabulary]) {
    self.intentClass = intentClass
    self.definition = definition
    self.vocabularies = vocabularies
  }

  /// How many phrases (synonyms, case names, display names, system synonyms) the index has split into words so far:
  /// each once, however many values are read (for tests that count work).
  var normalizations: Int { index.normalizations }

  /// Parses `text` as a value of `parameter`.
  /// - Returns: nil when the text is not a value of that type; `problem` then says what is expected.
  package func parse(_ text: String, for parameter: ParameterSpec) -> ParameterValue? {
    parse(text, for: parameter, synonyms: true)
  }

  /// Parses `text`, trying the vocabularies' synonyms first when `synonyms` is true. A synonym's identifier is parsed
  /// without them: an item whose identifier is also one of its phrases ("wall climb" for "wall climb", as Ascent's
  /// vocabulary has) would otherwise be looked up again, for ever.
  private func parse(_ text: String, for parameter: ParameterSpec, synonyms: Bool) -> ParameterValue? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if trimmed.isEmpty { return nil }
    if parameter.supportsMultipleValues {
      let items = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      var values: [ParameterValue] = []
      var single = parameter
      single.supportsMultipleValues = false
      for item in items where !item.isEmpty {
        guard let value = parse(item, for: single, synonyms: synonyms) else { return nil }
        values.append(value)
      }
      return values.isEmpty ? nil : .array(values)
    }
    if synonyms, let synonym = synonymValue(trimmed, for: parameter) { return synonym }
    if let enumName = parameter.enumType, EnumSpec.named(enumName, in: definition) != nil {
      return entry(for: parameter).enumCase(trimmed).map { .enumCase($0) }
    }
    switch parameter.type {
    case .integer:
      return parseInteger(trimmed).map { .integer($0) }
    case .decimal, .double, .currency:
      return parseDecimal(trimmed).map { .decimal($0) }
    case .duration:
      return parseDuration(trimmed).map { .decimal($0) }
    case .boolean:
      // The display names as words, as titles are compared: "réserver" and "Réserver." are "Réserver".
      let words = normalizedWords(trimmed)
      if let display = parameter.trueDisplayName, !words.isEmpty, normalizedWords(display) == words {
        return .boolean(true)
      }
      if let display = parameter.falseDisplayName, !words.isEmpty, normalizedWords(display) == words {
        return .boolean(false)
      }
      return parseYesNo(trimmed).map { .boolean($0) }
    case .date, .dateComponents:
      return ParameterValue.parseDate(trimmed).map { .date($0) }
    case .object:
      return .object(ObjectValue(identifier: trimmed, displayString: trimmed))
    default:
      return .string(trimmed)
    }
  }

  /// A vocabulary synonym (AppIntentVocabulary.plist ParameterVocabularies) for a value of `parameter`.
  /// Of several items with a synonym of these words, the first in manifest order (vocabulary after vocabulary).
  private func synonymValue(_ text: String, for parameter: ParameterSpec) -> ParameterValue? {
    guard let identifier = entry(for: parameter).synonymIdentifier(text) else { return nil }
    var literal = parameter
    literal.trueDisplayName = nil
    literal.falseDisplayName = nil
    return parse(identifier, for: literal, synonyms: false)
  }

  /// The index of `parameter`'s spoken values, built on first use.
  private func entry(for parameter: ParameterSpec) -> SpokenIndex.Entry {
    index.entry(for: parameter) {
      SpokenIndex.Entry(
        parameter: parameter, intentClass: intentClass, definition: definition, vocabularies: vocabularies)
    }
  }

  /// The value `text` says for `parameter` when its words are exactly one of the parameter's spoken values (what
  /// `UtteranceMatcher` makes a slot of in an `IntentPhrases` example): a vocabulary synonym of it
  /// (`ParameterVocabularies`, "wall climb" for `INStartWorkoutIntent.workoutName`), or a case of its enum as said:
  /// the case's display name, or its name in words when it has none, or a system enum's synonym ("minute",
  /// "minutes", "outdoor", "outside"). Never the `unknown` case, and never a bare case name that has a display name
  /// (INPlaybackRepeatMode's `all` is said "repeat all"). Words are compared as `normalizedWords` gives them, little
  /// words included: "a wall climb" is not "wall climb".
  /// - Parameter words: `normalizedWords(text)`, when the caller has them.
  package func spokenValue(_ text: String, for parameter: ParameterSpec, words: [String]? = nil) -> ParameterValue? {
    let words = words ?? normalizedWords(text)
    guard !words.isEmpty else { return nil }
    let entry = entry(for: parameter)
    if entry.synonymWords.contains(words) { return parse(text, for: parameter) }
    return entry.spokenCases[words].map { .enumCase($0) }
  }

  /// Whether `parameter` has spoken values (`spokenValue(_:for:)`): vocabulary synonyms, or an enum's cases.
  func hasSpokenValues(_ parameter: ParameterSpec) -> Bool {
    vocabularies.contains { !$0.synonyms(intentClass: intentClass, parameter: parameter.name).isEmpty }
      || parameter.enumType.flatMap { EnumSpec.named($0, in: definition) } != nil
  }

  /// The longest spoken value of `parameter`, in words (0 when it has none): a run of more words is none of them.
  func longestSpokenValue(_ parameter: ParameterSpec) -> Int {
    entry(for: parameter).longest
  }

  /// A prompt translated for one value (`PROMPTID-VALUEID` in the strings table), e.g. a confirmation worded for
  /// the enum case or boolean the user picked; nil when the table has none.
  package func variant(of prompt: ParameterSpec.PromptDialog?, for value: ParameterValue, parameter: ParameterSpec)
    -> String?
  {
    guard let promptID = prompt?.textID, let definition else { return nil }
    var valueID: String? = nil
    switch value {
    case .enumCase(let name):
      valueID =
        parameter.enumType.flatMap { EnumSpec.named($0, in: definition) }?.values.first { $0.name == name }?
        .displayNameID
    case .boolean(let flag):
      valueID = flag ? parameter.trueDisplayNameID : parameter.falseDisplayNameID
    default:
      break
    }
    return valueID.flatMap { definition.variants["\(promptID)-\($0)"] }
  }

  /// The type `parameter` takes, as a message names it: its enum, by the definition's name for it (or Apple's, for a
  /// system enum), with its display name where that says more ("enum Size (\"Soup size\")", "enum OrderType"), and
  /// otherwise its type as the definition spells it ("Integer"). An enum parameter's stored type (Xcode writes
  /// "Integer") is no name for what it takes.
  package func typeName(of parameter: ParameterSpec) -> String {
    guard let enumName = parameter.enumType, let spec = EnumSpec.named(enumName, in: definition) else {
      return parameter.type.description
    }
    let squeezed = { (text: String) in text.lowercased().filter { !$0.isWhitespace } }
    guard let display = spec.displayName, squeezed(display) != squeezed(spec.name) else { return "enum \(spec.name)" }
    return "enum \(spec.name) (\"\(display)\")"
  }

  /// What a value of `parameter` looks like, for error messages.
  /// - Parameter caseNames: for an enum, list its cases by the names `run` and `--json` use, each followed by its
  ///   display name in parentheses where that differs ("kiloCalorie (kilocalories)"); otherwise by what is said
  ///   (the display name, "kilocalories").
  package func expectation(for parameter: ParameterSpec, caseNames: Bool = false) -> String {
    if let enumName = parameter.enumType, let spec = EnumSpec.named(enumName, in: definition) {
      // Xcode's `unknown` case stands for no value: it is not one to give.
      let cases = spec.values.filter { $0.name != "unknown" }.map { value in
        guard caseNames else { return value.displayName ?? value.name }
        guard let display = value.displayName, display != value.name else { return value.name }
        return "\(value.name) (\(display))"
      }
      return "one of " + cases.joined(separator: ", ")
    }
    switch parameter.type {
    case .integer: return "a whole number"
    case .decimal, .double, .currency: return "a number"
    case .boolean:
      let yes = parameter.trueDisplayName.map { "\($0)/" } ?? ""
      let no = parameter.falseDisplayName.map { "\($0)/" } ?? ""
      return "\(yes)yes or \(no)no"
    case .date, .dateComponents: return "an ISO 8601 date-time such as 2026-11-21T09:30:00Z"
    case .duration: return "a duration such as 30 minutes or 1 hour"
    default: return "some text"
    }
  }

  /// A value in words, as Siri would say it in a template.
  package func words(
    for value: ParameterValue, parameterType: (trueName: String?, falseName: String?, enumType: String?)? = nil
  )
    -> String
  {
    switch value {
    case .string(let s): return s
    case .integer(let i): return String(i)
    case .decimal(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    case .boolean(let b):
      return b ? (parameterType?.trueName ?? "yes") : (parameterType?.falseName ?? "no")
    case .date(let d): return ParameterValue.formatDate(d)
    case .enumCase(let name):
      if let enumType = parameterType?.enumType, let spec = EnumSpec.named(enumType, in: definition),
        let match = spec.values.first(where: { $0.name == name })
      {
        return match.displayName ?? name
      }
      return name
    case .object(let o): return o.displayString
    case .array(let items): return items.map { words(for: $0, parameterType: parameterType) }.joined(separator: ", ")
    }
  }
}
