import BundleManifest
import ExtensionProtocol
import Foundation
import Synchronization

/// Turns what a user typed or said into typed parameter values, and values back into words.
///
/// A parameter's vocabulary synonyms and enum cases are looked up by their words in an index built the first time
/// the parameter is read (`SpokenIndex`), so reading a value costs the same with 20,000 synonyms as with two. Copies
/// of an interpreter share the index.
struct ValueInterpreter: Sendable {
  let intentClass: String
  let definition: IntentDefinition?
  let vocabularies: [Vocabulary]
  private let index = SpokenIndex()

  init(intentClass: String, definition: IntentDefinition?, vocabularies: [Vocabulary]) {
    self.intentClass = intentClass
    self.definition = definition
    self.vocabularies = vocabularies
  }

  /// How many phrases (synonyms, case names, display names, system synonyms) the index has split into words so far:
  /// each once, however many values are read (for tests that count work).
  var normalizations: Int { index.normalizations }

  /// Parses `text` as a value of `parameter`.
  /// - Returns: nil when the text is not a value of that type; `problem` then says what is expected.
  func parse(_ text: String, for parameter: ParameterSpec) -> ParameterValue? {
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
    case "Integer":
      return parseInteger(trimmed).map { .integer($0) }
    case "Decimal", "Double", "Currency":
      return parseDecimal(trimmed).map { .decimal($0) }
    case "Duration":
      return parseDuration(trimmed).map { .decimal($0) }
    case "Boolean":
      // The display names as words, as titles are compared: "réserver" and "Réserver." are "Réserver".
      let words = normalizedWords(trimmed)
      if let display = parameter.trueDisplayName, !words.isEmpty, normalizedWords(display) == words {
        return .boolean(true)
      }
      if let display = parameter.falseDisplayName, !words.isEmpty, normalizedWords(display) == words {
        return .boolean(false)
      }
      return parseYesNo(trimmed).map { .boolean($0) }
    case "Date", "DateComponents":
      return ParameterValue.parseDate(trimmed).map { .date($0) }
    case "Object":
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
  func spokenValue(_ text: String, for parameter: ParameterSpec, words: [String]? = nil) -> ParameterValue? {
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
  func variant(of prompt: ParameterSpec.PromptDialog?, for value: ParameterValue, parameter: ParameterSpec) -> String? {
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

  /// What a value of `parameter` looks like, for error messages.
  /// - Parameter caseNames: for an enum, list its cases by the names `run` and `--json` use, each followed by its
  ///   display name in parentheses where that differs ("kiloCalorie (kilocalories)"); otherwise by what is said
  ///   (the display name, "kilocalories").
  func expectation(for parameter: ParameterSpec, caseNames: Bool = false) -> String {
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
    case "Integer": return "a whole number"
    case "Decimal", "Double", "Currency": return "a number"
    case "Boolean":
      let yes = parameter.trueDisplayName.map { "\($0)/" } ?? ""
      let no = parameter.falseDisplayName.map { "\($0)/" } ?? ""
      return "\(yes)yes or \(no)no"
    case "Date", "DateComponents": return "an ISO 8601 date-time such as 2026-11-21T09:30:00Z"
    case "Duration": return "a duration such as 30 minutes or 1 hour"
    default: return "some text"
    }
  }

  /// A value in words, as Siri would say it in a template.
  func words(
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

/// The spoken values of an intent's parameters by their words, one `Entry` per parameter, each built the first time
/// the parameter is read and then shared by every copy of the `ValueInterpreter` that made it. Building an entry
/// splits each of the parameter's phrases into words once; a lookup is then one dictionary access.
final class SpokenIndex: Sendable {
  /// Entries by parameter name and enum type (two parameters of one name are the same parameter of one intent;
  /// the enum type is in the key in case a definition gives one name two types).
  private let entries = Mutex<[String: Entry]>([:])
  private let counted = Mutex(0)

  var normalizations: Int { counted.withLock { $0 } }

  func entry(for parameter: ParameterSpec, build: () -> Entry) -> Entry {
    let key = parameter.name + "\u{0}" + (parameter.enumType ?? "")
    if let found = entries.withLock({ $0[key] }) { return found }
    // Built outside the lock: two readers may build the same entry once each, and keep either (they are equal).
    let built = build()
    counted.withLock { $0 += built.normalizations }
    return entries.withLock { table in
      if let found = table[key] { return found }
      table[key] = built
      return built
    }
  }

  /// One parameter's spoken values.
  struct Entry: Sendable {
    /// The words of every vocabulary synonym of the parameter (`spokenValue`: exact words, little words included).
    var synonymWords: Set<[String]> = []
    /// A synonym's words, and its words without the little words (`sameWords`: "my booking of" is "booking"), to
    /// the order of the first item that has it and that item's identifier (`parse`).
    var synonymItems: [[String]: (order: Int, identifier: String)] = [:]
    var synonymCores: [[String]: (order: Int, identifier: String)] = [:]
    /// An enum case by the words a user says for it (`spokenValue`): its display name (or its name in words when it
    /// has none) and a system enum's synonyms; never `unknown`. The first case in the enum's order wins.
    var spokenCases: [[String]: String] = [:]
    /// An enum case by anything `parse` reads for it: its name in any case, its name as words, its display name, a
    /// system enum's synonym. The first case in the enum's order wins.
    var parsedCaseNames: [String: (order: Int, name: String)] = [:]
    var parsedCases: [[String]: (order: Int, name: String)] = [:]
    /// The most words of any spoken value.
    var longest = 0
    /// How many phrases were split into words to build this entry.
    var normalizations = 0

    init(parameter: ParameterSpec, intentClass: String, definition: IntentDefinition?, vocabularies: [Vocabulary]) {
      var order = 0
      for vocabulary in vocabularies {
        let key = "\(intentClass).\(parameter.name)"
        for item in vocabulary.items where item.parameterNames.contains(key) {
          order += 1
          for synonym in item.synonyms {
            let words = normalizedWords(synonym.phrase)
            normalizations += 1
            synonymWords.insert(words)
            longest = max(longest, words.count)
            if synonymItems[words] == nil { synonymItems[words] = (order, item.identifier) }
            let core = words.filter { !sameWordsFiller.contains($0) }
            if !core.isEmpty, synonymCores[core] == nil { synonymCores[core] = (order, item.identifier) }
          }
        }
      }
      guard let enumName = parameter.enumType, let spec = EnumSpec.named(enumName, in: definition) else { return }
      let synonyms = SystemEnum.named(enumName)?.synonyms ?? [:]
      func words(_ text: String) -> [String] {
        normalizations += 1
        return normalizedWords(text)
      }
      for (order, value) in spec.values.enumerated() {
        let systemSynonyms = (synonyms[value.name] ?? []).map(words)
        if parsedCaseNames[value.name.lowercased()] == nil {
          parsedCaseNames[value.name.lowercased()] = (order, value.name)
        }
        let nameWords = words(value.name)
        let displayWords = value.displayName.map(words)
        for said in [nameWords] + [displayWords].compactMap({ $0 }) + systemSynonyms where parsedCases[said] == nil {
          parsedCases[said] = (order, value.name)
        }
        guard value.name != "unknown" else { continue }
        let spoken = [displayWords ?? words(ParameterSpec.words(of: value.name))] + systemSynonyms
        for said in spoken where !said.isEmpty {
          if spokenCases[said] == nil { spokenCases[said] = value.name }
          longest = max(longest, said.count)
        }
      }
    }

    /// The identifier of the first item with a synonym of the same words as `text` (`sameWords`).
    func synonymIdentifier(_ text: String) -> String? {
      let words = normalizedWords(text)
      let exact = synonymItems[words]
      let core = words.filter { !sameWordsFiller.contains($0) }
      let loose = core.isEmpty ? nil : synonymCores[core]
      switch (exact, loose) {
      case (let exact?, let loose?): return exact.order <= loose.order ? exact.identifier : loose.identifier
      case (let exact?, nil): return exact.identifier
      case (nil, let loose?): return loose.identifier
      case (nil, nil): return nil
      }
    }

    /// The case `text` names as `parse` reads it (the first in the enum's order, by its name or by its words).
    func enumCase(_ text: String) -> String? {
      let found = [parsedCaseNames[text.lowercased()], parsedCases[normalizedWords(text)]].compactMap { $0 }
      return found.min { $0.order < $1.order }?.name
    }
  }
}

/// Fills `${name}` placeholders from `values`, which gets the whole name (a dotted path such as `${order.total}`
/// reaches into an object's properties).
/// Unknown placeholders become empty text and are reported in `missing`.
func renderTemplate(_ template: String, values: (String) -> String?) -> (text: String, missing: [String]) {
  var output = ""
  var missing: [String] = []
  var rest = Substring(template)
  while let start = rest.range(of: "${") {
    output += rest[..<start.lowerBound]
    guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
      output += rest[start.lowerBound...]
      rest = ""
      break
    }
    let name = String(rest[start.upperBound..<end])
    if let value = values(name) {
      output += value
    } else {
      missing.append(name)
    }
    rest = rest[rest.index(after: end)...]
  }
  output += rest
  return (output, missing)
}

private let numberWords: [String: Int] = [
  "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
  "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
  "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
  "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
]

/// "12", "-3", "twelve", "twenty one", "twenty-one", "a hundred and five", "two thousand twenty six".
func parseInteger(_ text: String) -> Int? {
  if let value = Int(text) { return value }
  return parseNumberWords(text).flatMap { $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil }
}

/// "2.5", "2,5" is not a number; "two and a half", "three point five", "a quarter", "twelve".
func parseDecimal(_ text: String) -> Double? {
  if let value = Double(text), value.isFinite { return value }
  return parseNumberWords(text)
}

/// A number said in English words: units, tens, "hundred", "thousand", "million", "and", "minus", "point" followed
/// by digits, and the fractions "and a half" / "and a quarter" / "and three quarters" (or "a half" alone).
func parseNumberWords(_ text: String) -> Double? {
  var words = text.lowercased().replacingOccurrences(of: "-", with: " ").split(separator: " ").map(String.init)
  guard !words.isEmpty, words.count <= 12 else { return nil }
  var sign = 1.0
  if words.first == "minus" || words.first == "negative" {
    sign = -1
    words.removeFirst()
  }
  var fraction = 0.0
  let fractions: [([String], Double)] = [
    (["and", "a", "half"], 0.5), (["and", "a", "quarter"], 0.25), (["and", "three", "quarters"], 0.75),
    (["a", "half"], 0.5), (["a", "quarter"], 0.25), (["half"], 0.5),
  ]
  for (tail, value) in fractions where words.count >= tail.count && Array(words.suffix(tail.count)) == tail {
    fraction = value
    words.removeLast(tail.count)
    break
  }
  var decimals = ""
  if let point = words.firstIndex(of: "point") {
    for word in words[(point + 1)...] {
      guard let digit = numberWords[word], digit < 10 else { return nil }
      decimals += String(digit)
    }
    guard !decimals.isEmpty else { return nil }
    words = Array(words[..<point])
  }
  if words.isEmpty {
    return fraction > 0 || !decimals.isEmpty ? sign * (fraction + (Double("0." + decimals) ?? 0)) : nil
  }
  var total = 0
  var current = 0
  var sawNumber = false
  var lastWasTens = false
  for (index, word) in words.enumerated() {
    if word == "and", index > 0, index < words.count - 1 { continue }
    if word == "a" || word == "an", index == 0, words.count > 1 {
      current = 1
      continue
    }
    if let value = numberWords[word] {
      // Below a hundred: a unit, a teen or ten, a tens word, or a tens word then a unit ("twenty one", never "one
      // two", "ten ten" or "five twenty").
      let below = current % 100
      let fits = below == 0 || (below >= 20 && below % 10 == 0 && value < 10 && value > 0 && lastWasTens)
      guard fits else { return nil }
      lastWasTens = value >= 20
      current += value
      sawNumber = true
    } else if word == "hundred" {
      guard current < 10 else { return nil }
      lastWasTens = false
      current = Swift.max(current, 1) * 100
      sawNumber = true
    } else if let scale = ["thousand": 1000, "million": 1_000_000][word] {
      guard total == 0 || total >= scale * 1000 else { return nil }
      total += Swift.max(current, 1) * scale
      current = 0
      lastWasTens = false
      sawNumber = true
    } else {
      return nil
    }
  }
  guard sawNumber else { return nil }
  let whole = Double(total + current)
  return sign * (whole + fraction + (decimals.isEmpty ? 0 : Double("0." + decimals)!))
}

/// A duration in seconds: "30 minute", "30 minutes", "an hour", "a minute", "half an hour", "a quarter of an hour",
/// "an hour and a half", "one and a half hours", "1 hour 30 minutes", "2 hours and 15 minutes", "90 seconds",
/// "90 s"; a bare number is minutes, a bare unit is one of it ("hour").
func parseDuration(_ text: String) -> Double? {
  let units: [String: Double] = [
    "second": 1, "seconds": 1, "sec": 1, "secs": 1, "s": 1, "minute": 60, "minutes": 60, "min": 60, "mins": 60,
    "hour": 3600, "hours": 3600, "h": 3600, "hr": 3600, "hrs": 3600, "day": 86400, "days": 86400,
  ]
  let words = normalizedWords(text)
  guard !words.isEmpty else { return nil }
  if let minutes = parseDecimal(words.joined(separator: " ")) { return minutes * 60 }
  var total = 0.0
  var lastUnit: Double? = nil
  var pending: [String] = []
  for word in words {
    if let unit = units[word] {
      guard let amount = durationAmount(pending) else { return nil }
      total += amount * unit
      lastUnit = unit
      pending = []
    } else {
      pending.append(word)
    }
  }
  // "an hour and a half": a fraction of the last unit.
  if !pending.isEmpty {
    guard let lastUnit, pending.first == "and", let fraction = parseDecimal(pending.dropFirst().joined(separator: " ")),
      fraction > 0, fraction < 1
    else { return nil }
    total += fraction * lastUnit
  }
  return total > 0 ? total : nil
}

/// How many of a unit the words before it say: none or "a"/"an" is one; "half an", "a quarter of an" a fraction;
/// otherwise a number ("two and a half"). A leading "and" (between two amounts) is dropped.
private func durationAmount(_ words: [String]) -> Double? {
  var words = words
  if words.first == "and" { words.removeFirst() }
  if words.isEmpty || words == ["a"] || words == ["an"] { return 1 }
  if let last = words.last, last == "a" || last == "an" {
    words.removeLast()
    if words.last == "of" { words.removeLast() }
    guard !words.isEmpty, let fraction = parseDecimal(words.joined(separator: " ")), fraction > 0, fraction < 1
    else { return nil }
    return fraction
  }
  return parseDecimal(words.joined(separator: " "))
}

/// The little words `sameWords` ignores.
let sameWordsFiller: Set<String> = ["a", "an", "the", "my", "of"]

/// Whether two phrases are the same words, ignoring the little words people add or drop ("cancel booking" is
/// "cancel my booking of"), and case and punctuation.
func sameWords(_ a: String, _ b: String) -> Bool {
  let filler = sameWordsFiller
  let left = normalizedWords(a)
  let right = normalizedWords(b)
  if left == right { return true }
  let leftCore = left.filter { !filler.contains($0) }
  return !leftCore.isEmpty && leftCore == right.filter { !filler.contains($0) }
}

/// Lower-cased words without punctuation, for matching speech (`spokenWords(_:)`).
func normalizedWords(_ text: String) -> [String] {
  spokenWords(text).map { $0.lowercased() }
}

/// Words without punctuation, case kept (names keep their capitals), in Unicode compatibility form (NFKC: `Ｒｏｏｍｓ`
/// is `Rooms`, `１２` is `12`, `ﬁ` is `fi`). A word is a run of letters and digits. An apostrophe (`'`, or a
/// typographic `’`, `‘`, `ʼ`) between two letters or digits is dropped, the word going on: "room's" is the word
/// "rooms", "O’Brien" is "OBrien"; anywhere else it ends a word, as a quotation mark does. A hyphen or a slash
/// separates words ("Book-room", "book/cancel", "Ada-Lovelace" are two words each), except in a number, a time or a
/// date, which stays one word: a `-` between two digits (`2026-11-21`) or starting a number (`-3`) is kept, a `.` or
/// `:` between two digits is kept (`2.5`, `09:30`), and so is the `+` of an ISO 8601 date-time's offset
/// (`2026-11-21T09:30:00+02:00`). Default-ignorable
/// code points (U+00AD soft hyphen, U+200B–U+200D zero-width space and joiners, U+2060 word joiner, U+FEFF, variation
/// selectors …; not the bidirectional controls) are dropped: "Book\u{00AD}room" is the word "Bookroom", as it is
/// shown. Any other character ends a word, so "Rooms, book room 12." is four words.
func spokenWords(_ text: String) -> [String] {
  spokenWordRanges(text).map(\.word)
}

/// The words of `text` (`spokenWords(_:)`), each with where it is in `text`, so that what lies between two words
/// (punctuation, symbols, emoji) can be read as it was written.
func spokenWordRanges(_ text: String) -> [(range: Range<String.Index>, word: String)] {
  // Each character as the words see it: in compatibility form, a typographic apostrophe as "'".
  // Default-ignorable code points (a soft hyphen, a zero-width space or joiner, a word joiner, a byte order mark, a
  // variation selector) are invisible: they are dropped, neither part of a word nor the end of one.
  let characters: [(index: String.Index, folded: String)] = text.indices.compactMap { index in
    let character = text[index]
    if ["’", "‘", "ʼ"].contains(character) { return (index, "'") }
    if character.isASCII { return (index, String(character)) }
    // (Not the bidirectional controls: those end a word, as other controls do.)
    let visible = character.unicodeScalars.filter {
      !$0.properties.isDefaultIgnorableCodePoint || DonationLimits.isControl($0)
    }
    guard !visible.isEmpty else { return nil }
    return (index, String(String.UnicodeScalarView(visible)).precomposedStringWithCompatibilityMapping)
  }
  var words: [(range: Range<String.Index>, word: String)] = []
  var word = ""
  var start = text.startIndex
  func isDigit(_ index: Int) -> Bool {
    characters.indices.contains(index) && !characters[index].folded.isEmpty
      && characters[index].folded.allSatisfy(\.isNumber)
  }
  func isLetterOrDigit(_ index: Int) -> Bool {
    characters.indices.contains(index) && !characters[index].folded.isEmpty
      && characters[index].folded.allSatisfy { $0.isLetter || $0.isNumber }
  }
  for (index, (position, folded)) in characters.enumerated() {
    let kept: Bool
    if folded == "'" {
      // "room's" is "rooms": inside a word the apostrophe is dropped, the word goes on.
      if !word.isEmpty, isLetterOrDigit(index - 1), isLetterOrDigit(index + 1) { continue }
      kept = false
    } else if !folded.isEmpty, folded.allSatisfy({ $0.isLetter || $0.isNumber }) {
      kept = true
    } else if folded == "-" {
      // A date ("2026-11-21") or a negative number ("-3"); "Book-room" is two words.
      kept = isDigit(index + 1) && (word.isEmpty || isDigit(index - 1))
    } else if folded == "." || folded == ":" {
      kept = !word.isEmpty && isDigit(index - 1) && isDigit(index + 1)
    } else if folded == "+" {
      kept = isDigit(index - 1) && isDigit(index + 1) && startsWithDateAndTime(word)
    } else {
      kept = false
    }
    if kept {
      if word.isEmpty { start = position }
      word += folded
    } else if !word.isEmpty {
      words.append((start..<position, word))
      word = ""
    }
  }
  if !word.isEmpty { words.append((start..<text.endIndex, word)) }
  return words
}

/// A value as the user wrote it (`UtteranceMatcher` takes a `String` slot's text this way): without the spaces
/// around it, the punctuation that ends a sentence or a clause after it (`.` `?` `!` `,` `;` `:` `…`), a `,` `;` or
/// `:` before it, and a pair of quotation marks around the whole. Everything else is kept: case, inner punctuation,
/// symbols, emoji and invisible characters (the sanitizer escapes those when the value is shown).
func writtenValue(_ text: Substring) -> String {
  var text = text
  func trim(_ characters: Set<Character>, leading: Bool) {
    while let first = text.first, leading, first.isWhitespace || characters.contains(first) { text.removeFirst() }
    while let last = text.last, !leading, last.isWhitespace || characters.contains(last) { text.removeLast() }
  }
  trim([",", ";", ":"], leading: true)
  trim([".", "?", "!", ",", ";", ":", "…"], leading: false)
  let pairs: [Character: Character] = ["\"": "\"", "'": "'", "“": "”", "‘": "’", "«": "»"]
  if text.count > 2, let first = text.first, let close = pairs[first], text.last == close {
    text = text.dropFirst().dropLast()
    trim([], leading: true)
    trim([], leading: false)
  }
  return String(text)
}

/// Whether `word` starts as an ISO 8601 date-time does: `YYYY-MM-DDT`.
private func startsWithDateAndTime(_ word: String) -> Bool {
  let characters = Array(word.prefix(11))
  guard characters.count == 11 else { return false }
  return characters.enumerated().allSatisfy { index, character in
    switch index {
    case 4, 7: return character == "-"
    case 10: return character == "T" || character == "t"
    default: return character.isASCII && character.isNumber
    }
  }
}

/// The first of `parameters` (a response's) that `declared` types as an object (`Object`, or a custom type of the
/// definition's `INTypes`) but that is not an object value (an array of them for a parameter with multiple values),
/// described for a protocol fault; nil when every one fits. A value of another shape would leave the template's
/// `${order.total}` empty without a word, so it is refused instead (docs/PROTOCOL.md, "Values and intents").
func objectShapeProblem(in parameters: [String: ParameterValue], declared: [ResponseParameterSpec]) -> String? {
  for spec in declared where spec.type == "Object" || spec.objectType != nil {
    guard let value = parameters[spec.name] else { continue }
    let items: [ParameterValue]
    if spec.supportsMultipleValues, case .array(let list) = value { items = list } else { items = [value] }
    guard let wrong = items.first(where: { if case .object = $0 { false } else { true } }) else { continue }
    let kind = spec.objectType.map { "an object of the custom type \($0)" } ?? "an object"
    let given =
      wrong.typeName == "enum" ? "an enum" : (wrong.typeName == "integer" ? "an integer" : "a \(wrong.typeName)")
    let many = spec.supportsMultipleValues ? " (an array of them: it has multiple values)" : ""
    return "the response parameter \(spec.name) is \(given), but the intent definition declares it as \(kind)"
      + "\(many): send {\"type\": \"object\", \"value\": \(ObjectValue.wireShape)}"
  }
  return nil
}

/// The wire types a value of a response parameter declared as `spec` may have, one item of it for a parameter with
/// multiple values (docs/PROTOCOL.md, "Which type each parameter has"; the table `DonationRules` holds a donation's
/// values to): an enum's `enum`; `Integer`'s `integer`; a number's (`Decimal`, `Double`, `Currency`, `Duration`)
/// `decimal` or `integer`; `Boolean`'s `boolean`; a date's `date`; `String`'s and `SpeakableString`'s `string`; any
/// other system type's (`Person`, `Placemark`, `CurrencyAmount`, …) `string` or `object`. Nil for an object
/// (`objectShapeProblem` checks those).
func wireTypes(of spec: ResponseParameterSpec) -> [String]? {
  if spec.type == "Object" || spec.objectType != nil { return nil }
  if spec.enumType != nil || spec.type == "Enum" { return ["enum"] }
  switch spec.type {
  case "Integer": return ["integer"]
  case "Decimal", "Double", "Currency", "Duration": return ["decimal", "integer"]
  case "Boolean": return ["boolean"]
  case "Date", "DateComponents": return ["date"]
  case "String", "SpeakableString": return ["string"]
  default: return ["string", "object"]
  }
}

/// The first of `parameters` (a response's), in the order `declared` lists them, whose value is not of a wire type
/// its declaration allows (`wireTypes(of:)`; for a parameter with multiple values, an array of such values or one
/// such value), described for a protocol fault; nil when every one fits. A string sent for an `Integer` would reach
/// a UI extension that counts with it, and a template, as text (docs/PROTOCOL.md, "Values and intents").
func responseTypeProblem(in parameters: [String: ParameterValue], declared: [ResponseParameterSpec]) -> String? {
  func withArticle(_ type: String) -> String {
    ["integer", "enum", "array", "object"].contains(type) ? "an \(type)" : "a \(type)"
  }
  for spec in declared {
    guard let value = parameters[spec.name], let allowed = wireTypes(of: spec) else { continue }
    let items: [ParameterValue]
    if spec.supportsMultipleValues, case .array(let list) = value { items = list } else { items = [value] }
    guard let wrong = items.first(where: { !allowed.contains($0.typeName) }) else { continue }
    let declaredType = spec.enumType.map { "the enum \($0)" } ?? spec.type
    let many = spec.supportsMultipleValues ? " with multiple values (an array of them, or one)" : ""
    let given =
      wrong == value ? "is \(withArticle(wrong.typeName))" : "has an item that is \(withArticle(wrong.typeName))"
    let sample = allowed[0] == "enum" ? "CASE NAME" : "…"
    return "the response parameter \(spec.name) \(given), but the intent definition declares it as \(declaredType)"
      + "\(many): send {\"type\": \"\(allowed[0])\", \"value\": \(sample)}"
      + (allowed.count > 1 ? " (or \(allowed.dropFirst().map { "\"\($0)\"" }.joined(separator: ", ")))" : "")
  }
  return nil
}

extension IntentDriver {
  /// Refuses a response whose object parameters have another shape (`objectShapeProblem`), or whose other parameters
  /// another wire type than their declarations allow (`responseTypeProblem`), as a protocol fault of `session`
  /// (exit 70), naming the parameter, the extension, the type given and the type expected.
  func checkResponseValues(_ response: IntentResponse, spec: IntentSpec?, session: ExtensionSession, what: String)
    throws
  {
    guard let declared = spec?.response?.parameters else { return }
    if let problem = objectShapeProblem(in: response.parameters, declared: declared) {
      throw session.violation("answered \(what) with a value of the wrong shape: \(problem)")
    }
    if let problem = responseTypeProblem(in: response.parameters, declared: declared) {
      throw session.violation("answered \(what) with a value of the wrong type: \(problem)")
    }
  }
}
