import BundleManifest
import ExtensionProtocol
import Foundation

/// The terms one app registered for the user (`host/setVocabulary`, SiriKit's `INVocabulary`), as the matcher uses
/// them: a slot of a parameter that has a vocabulary type (`types(of:intentClass:)`) whose words are those of one of
/// the app's terms of that type takes the term as the app spelled it, and that reading wins over readings without a
/// term (docs/CONVERSATION.md, "The user's vocabulary"). Terms are per app: another app's never count.
package struct UserVocabulary: Sendable, Equatable {
  /// The terms by type, most important first, as registered.
  package let terms: [VocabularyStringType: [String]]
  /// Each type's terms as words (`normalizedWords`), the first term kept where two have the same words.
  private let byWords: [VocabularyStringType: [[String]: String]]
  /// The most words a term of each type has.
  private let longest: [VocabularyStringType: Int]

  package init(terms: [VocabularyStringType: [String]]) {
    self.terms = terms
    var byWords: [VocabularyStringType: [[String]: String]] = [:]
    var longest: [VocabularyStringType: Int] = [:]
    for (type, list) in terms {
      for term in list {
        let words = normalizedWords(term)
        guard !words.isEmpty, byWords[type]?[words] == nil else { continue }
        byWords[type, default: [:]][words] = term
        longest[type] = max(longest[type] ?? 0, words.count)
      }
    }
    self.byWords = byWords
    self.longest = longest
  }

  /// The terms of a vocabulary document (`VocabularyRecord.types`); a type IntentHost does not know is left out.
  package init(record types: [String: [String]]) {
    var terms: [VocabularyStringType: [String]] = [:]
    for (name, list) in types {
      if let type = VocabularyStringType(rawValue: name) { terms[type] = list }
    }
    self.init(terms: terms)
  }

  package var isEmpty: Bool { byWords.isEmpty }

  /// Which vocabulary types a parameter's values may be terms of, best first (IntentHost's table, as
  /// docs/CONVERSATION.md gives it): for a system intent of the catalog, by parameter (`payee`, `recipients`,
  /// `contacts` … are contact names, `workoutName` a workout activity name, `targetNote` a note title, …); for a
  /// parameter of an app's own definition, `Person` is a contact name. Every other parameter has none.
  package static func types(of parameter: ParameterSpec, intentClass: String) -> [VocabularyStringType] {
    if SystemIntent.named(intentClass) != nil {
      return systemTypes["\(intentClass).\(parameter.name)"] ?? systemTypes[parameter.name] ?? []
    }
    return parameter.type == .person ? [.contactName] : []
  }

  /// The vocabulary types of the parameters of the system intents, by parameter name, or by "Class.parameter" where
  /// one intent's parameter differs from the others' of that name.
  static let systemTypes: [String: [VocabularyStringType]] = [
    // Workouts
    "workoutName": [.workoutActivityName],
    // Payments
    "payee": [.contactName], "payer": [.contactName],
    "accountNickname": [.paymentsAccountNickname], "organizationName": [.paymentsOrganizationName],
    "fromAccount": [.paymentsAccountNickname], "toAccount": [.paymentsAccountNickname],
    // Messaging and calls
    "recipients": [.contactName], "sender": [.contactName], "senders": [.contactName], "contacts": [.contactName],
    "speakableGroupName": [.contactGroupName], "speakableGroupNames": [.contactGroupName],
    // Notes
    "targetNote": [.notebookItemTitle],
    // Media
    "mediaItems": [
      .mediaPlaylistTitle, .mediaMusicArtistName, .mediaAudiobookTitle, .mediaAudiobookAuthorName, .mediaShowTitle,
    ],
    "mediaContainer": [.mediaPlaylistTitle, .mediaAudiobookTitle, .mediaShowTitle],
    // Photos
    "albumName": [.photoAlbumName], "INSearchForPhotosIntent.searchTerms": [.photoTag],
    // Cars
    "carName": [.carName],
  ]

  /// The most words a term of `types` has (0 without terms): how far a slot may reach for one.
  func longestTerm(of types: [VocabularyStringType]) -> Int {
    types.map { longest[$0] ?? 0 }.max() ?? 0
  }

  /// The term of `types` whose words are `text`'s (compared as the matcher compares words: case, punctuation and
  /// spacing aside); failing that, whose words are `text`'s without the little words it starts with ("my Mom" is
  /// "Mom"). The first type, then the first term registered, wins.
  func term(for text: String, types: [VocabularyStringType]) -> String? {
    let words = normalizedWords(text)
    guard !words.isEmpty else { return nil }
    let trimmed = Array(words.drop { Self.littleWords.contains($0) })
    for candidate in [words, trimmed] where !candidate.isEmpty {
      for type in types {
        if let term = byWords[type]?[candidate] { return term }
      }
    }
    return nil
  }

  /// `value` with each text that is a term of `types` spelled as the term (one string, or each item of an array),
  /// and how many terms it holds.
  func spelled(_ value: ParameterValue, types: [VocabularyStringType]) -> (value: ParameterValue, terms: Int) {
    guard !types.isEmpty else { return (value, 0) }
    switch value {
    case .string(let text):
      return term(for: text, types: types).map { (.string($0), 1) } ?? (value, 0)
    case .array(let items):
      var count = 0
      var result: [ParameterValue] = []
      for item in items {
        let (value, terms) = self.spelled(item, types: types)
        count += terms
        result.append(value)
      }
      return (.array(result), count)
    default:
      return (value, 0)
    }
  }

  private static let littleWords: Set<String> = ["a", "an", "the", "my"]
}
