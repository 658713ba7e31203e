import BundleManifest
import Foundation
import Synchronization

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
