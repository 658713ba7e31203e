import BundleManifest
import Foundation
import NameSuggestions
import Understanding

extension Validator {
  /// A project's vocabularies: each on its own (`vocabularyFileRules`), then `vocabulary-unknown-intent` (its
  /// phrases are for intents the app or its extensions handle, as `handledBy` lists them).
  func vocabularyRules(_ project: Project, handledBy: [String: String]) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    for vocabulary in project.vocabularies {
      diagnostics += vocabularyFileRules(vocabulary)
      for className in vocabulary.intentPhrases.keys.sorted() where handledBy[className] == nil {
        diagnostics.append(
          Diagnostic(
            .warning, .vocabularyUnknownIntent, file: vocabulary.file, keyPath: "IntentPhrases",
            "has phrases for \(className), which neither the app nor its extensions handle",
            fix: "remove the entry, or add \(className) to an Intents extension's IntentsSupported"))
      }
      diagnostics += exampleSpellingRules(vocabulary, in: project)
    }
    return diagnostics
  }

  /// `intent-phrase-misspelt-value`: a word of an `IntentExamples` phrase that is one edit from a word of a value
  /// of the intent's parameters (a case of its enum, by name or display name, or a vocabulary synonym of the
  /// parameter) and is not itself a word of one, nor that word with a plural's `s` or `es`, is named with the value
  /// it likely means ("lattte" for "latte"). Words of fewer than four letters are left alone (`hot`, `not`).
  func exampleSpellingRules(_ vocabulary: Vocabulary, in project: Project) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let words = { (text: String) in
      text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }
    for className in vocabulary.intentPhrases.keys.sorted() {
      guard
        let (definition, intent) = project.definitions.lazy.compactMap({ definition in
          definition.intent(named: className).map { (definition, $0) }
        }).first
      else { continue }
      // Each value word, with what it is a word of ("latte", a case of Drink).
      var values: [(word: String, value: String, of: String)] = []
      for parameter in intent.parameters {
        if let enumType = parameter.enumType, let enumeration = definition.enumeration(named: enumType) {
          for value in enumeration.values where value.name != "unknown" {
            for text in [value.name, value.displayName].compactMap({ $0 }) {
              for word in words(text) { values.append((word, text, "a case of \(enumType)")) }
            }
          }
        }
        for vocabulary in project.vocabularies {
          for phrase in vocabulary.synonyms(intentClass: intent.className, parameter: parameter.name).values.joined() {
            for word in words(phrase) { values.append((word, phrase, "a synonym of \(parameter.name)")) }
          }
        }
      }
      let known = Set(values.map(\.word))
      for example in vocabulary.intentPhrases[className] ?? [] {
        for word in words(example) where word.count >= 4 && !known.contains(word) {
          let near = values.filter {
            $0.word.count >= 4 && word != $0.word + "s" && word != $0.word + "es"
              && abs($0.word.count - word.count) <= 1 && editDistance(word, $0.word) == 1
          }
          guard let meant = near.first else { continue }
          diagnostics.append(
            Diagnostic(
              .warning, .intentPhraseMisspeltValue, file: vocabulary.file,
              keyPath: "IntentPhrases (\(className)).IntentExamples",
              "\"\(example)\" says \"\(word)\", which is no value of \(intent.className): did you mean "
                + "\"\(meant.word)\" (\(meant.value == meant.word ? "" : "of \"\(meant.value)\", ")\(meant.of))?",
              fix: "write \"\(meant.word)\" in the example, so that it teaches the value"))
        }
      }
    }
    return diagnostics
  }

  /// `vocabulary-empty`: a vocabulary has some phrase or parameter vocabulary (not Xcode's unfilled template).
  func vocabularyFileRules(_ vocabulary: Vocabulary) -> [Diagnostic] {
    if vocabulary.intentPhrases.isEmpty && vocabulary.items.isEmpty {
      return vocabulary.diagnostics + [
        Diagnostic(
          .warning, .vocabularyEmpty, file: vocabulary.file,
          "has no intent phrases and no parameter vocabulary (Xcode's unfilled template?)",
          fix: "add IntentPhrases with IntentExamples, or delete the file")
      ]
    }
    return vocabulary.diagnostics
  }
}
