import BundleManifest
import Foundation
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
    }
    return diagnostics
  }

  /// `vocabulary-empty`: a vocabulary has some phrase or parameter vocabulary (not Xcode's unfilled template).
  func vocabularyFileRules(_ vocabulary: Vocabulary) -> [Diagnostic] {
    if vocabulary.intentPhrases.isEmpty && vocabulary.items.isEmpty {
      return [
        Diagnostic(
          .warning, .vocabularyEmpty, file: vocabulary.file,
          "has no intent phrases and no parameter vocabulary (Xcode's unfilled template?)",
          fix: "add IntentPhrases with IntentExamples, or delete the file")
      ]
    }
    return []
  }
}
