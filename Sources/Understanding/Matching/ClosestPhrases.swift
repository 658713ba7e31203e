import BundleManifest
import Foundation
import NameSuggestions

/// What to suggest when an utterance matches nothing: the phrases of the installed apps closest to what was said.
///
/// The candidates are an app's phrases as `assistant phrases` lists them (`PhraseBook.entries`: its `IntentPhrases`
/// examples first, then its combination titles and system phrases), each in a form the user can say: an example as
/// written (with "with APP" added when it does not name the app); a title with its slots filled the way the phrase
/// lint fills them (`PhraseBook.exampleUtterance`) and "with APP"; a system phrase without a slot, capitalised, and
/// "with APP" (a system phrase with a slot has no example value of its own, and every system intent has a phrase
/// without one). Two candidates with the same words (app name, case and little words aside) are one, the first.
///
/// Closeness is judged on the words, the app's name left out, lower-cased, numbers (digits or words, "twenty one")
/// each one `#` so that "room 7" is as close to "room 12" as "room 12" is:
/// 1. the words shared, counted once each, the little words ("a", "the", "for", ...) left out: an equal word counts
///    two, a misspelt one ("bok" for "book", at most a third of its letters edited) one;
/// 2. then the fewest edits turning what was said into the phrase, word by word, little words included: inserting,
///    deleting or replacing a word costs two, replacing it with its misspelling one;
/// 3. then the app's order (apps in the order given, each app's phrases in `PhraseBook.entries` order).
/// A phrase sharing no word is never suggested.
package enum ClosestPhrases {
  /// A phrase to suggest: what to say, and the app.
  package struct Suggestion: Sendable, Equatable {
    package var said: String
    package var appIdentifier: String
    /// For one of the user's shortcuts: its identifier (`k3`); the phrase is said as it is.
    package var shortcut: String? = nil
  }

  /// One of the user's active shortcuts, a candidate too: its phrase as the user typed it, its identifier and its
  /// app's bundle identifier.
  package struct ShortcutCandidate: Sendable, Equatable {
    package var phrase: String
    package var identifier: String
    package var app: String

    package init(phrase: String, identifier: String, app: String) {
      self.phrase = phrase
      self.identifier = identifier
      self.app = app
    }
  }

  /// How close a phrase is to what was said (greater is closer).
  package struct Closeness: Sendable, Comparable {
    /// Twice the words shared (a misspelt word counts half).
    package var shared: Int
    /// The word edits between what was said and the phrase (twice the number of words inserted, deleted or replaced).
    package var edits: Int

    package static func < (a: Closeness, b: Closeness) -> Bool {
      (a.shared, -a.edits) < (b.shared, -b.edits)
    }
  }

  /// Words that say little about what the user wants: not counted as shared.
  static let littleWords: Set<String> = [
    "a", "an", "the", "my", "of", "for", "to", "in", "on", "at", "with", "me", "i", "please", "and", "some",
  ]

  /// The phrases of `app` to suggest, in `PhraseBook.entries` order: each as said, and its words for comparing (the
  /// app's name left out, `words(_:)`). `names` are the app's names (`UtteranceMatcher.names(of:)`).
  package static func candidates(of app: AppBundle, names: [String]) -> [(said: String, words: [String])] {
    let nameWords = names.map(normalizedWords)
    var result: [(said: String, words: [String])] = []
    var seen: Set<[String]> = []
    for line in PhraseBook.entries([app])[0].phrases {
      var said: String
      switch line.source {
      case .example:
        said = line.phrase
      case .title:
        guard let filled = PhraseBook.exampleUtterance(line.phrase, intentClass: line.intent, app: app) else {
          continue
        }
        said = filled
      case .system, .appShortcut:
        guard !line.phrase.contains("${") else { continue }
        said = line.phrase.prefix(1).uppercased() + line.phrase.dropFirst()
      }
      let (request, named) = withoutAppName(normalizedWords(said), names: nameWords)
      if !named { said += " with \(app.name)" }
      let words = Self.words(request)
      guard !words.isEmpty, seen.insert(words.filter { !littleWords.contains($0) }).inserted else { continue }
      result.append((said, words))
    }
    return result
  }

  /// `words` (normalised) without the app's name: "... with Rooms", "Rooms, ...", "ask Rooms to ...", and whether a
  /// name was found.
  static func withoutAppName(_ words: [String], names: [[String]]) -> (words: [String], named: Bool) {
    var words = words
    for name in names where !name.isEmpty && words.count > name.count {
      if Array(words.suffix(name.count)) == name {
        words.removeLast(name.count)
        if let last = words.last, ["with", "using", "in", "on", "via"].contains(last) { words.removeLast() }
        return (words, true)
      }
      if Array(words.prefix(name.count)) == name {
        words.removeFirst(name.count)
        return (words, true)
      }
      if words.first == "ask", Array(words.dropFirst().prefix(name.count)) == name {
        words.removeFirst(name.count + 1)
        if words.first == "to" { words.removeFirst() }
        return (words, true)
      }
    }
    return (words, false)
  }

  /// Normalised words for comparing: each run of number words ("twenty one", "one hundred and five", "12") one `#`.
  static func words(_ normalized: [String]) -> [String] {
    var result: [String] = []
    for word in normalized {
      let isNumber = !["a", "and", "point", "minus", "negative"].contains(word) && parseDecimal(word) != nil
      if isNumber {
        if result.last == "#" { continue }
        // "one hundred and five": the "and" between two numbers is part of the number.
        if result.last == "and", result.dropLast().last == "#" {
          result.removeLast()
          continue
        }
        result.append("#")
      } else {
        result.append(word)
      }
    }
    return result
  }

  /// Whether `a` is a misspelling of `b` (or `b` of `a`): not equal, neither a number, at most a third of the letters
  /// of the longer edited (one for short words).
  static func misspelt(_ a: String, _ b: String) -> Bool {
    guard a != b, a != "#", b != "#" else { return false }
    let limit = max(1, max(a.count, b.count) / 3)
    // The distance is at least the difference in length: no table for words that cannot be close.
    return abs(a.count - b.count) <= limit && editDistance(a, b) <= limit
  }

  /// How close `phrase` is to `said` (both `words(_:)`).
  package static func closeness(of phrase: [String], to said: [String]) -> Closeness {
    // 1. Shared words, each counted once: equal ones first, then misspellings among what is left.
    var left = phrase.filter { !littleWords.contains($0) }
    var unmatched: [String] = []
    var shared = 0
    for word in said where !littleWords.contains(word) {
      if let index = left.firstIndex(of: word) {
        shared += 2
        left.remove(at: index)
      } else {
        unmatched.append(word)
      }
    }
    for word in unmatched {
      if let index = left.firstIndex(where: { misspelt(word, $0) }) {
        shared += 1
        left.remove(at: index)
      }
    }
    // 2. Word edits.
    var row = Array(stride(from: 0, through: phrase.count * 2, by: 2))
    for (i, word) in said.enumerated() {
      var next = [(i + 1) * 2]
      for (j, other) in phrase.enumerated() {
        let replace = word == other ? 0 : misspelt(word, other) ? 1 : 2
        next.append(min(row[j + 1] + 2, next[j] + 2, row[j] + replace))
      }
      row = next
    }
    return Closeness(shared: shared, edits: row[phrase.count])
  }

  /// The phrases of `apps` and the user's `shortcuts` closest to `said` (normalised words, the app's name left out),
  /// best first, at most `limit`, each sharing at least `minimumShared` (`Closeness.shared`) and no more than one word
  /// less than the best. Ties go to a shortcut (in the order given), then the earlier app, then the earlier phrase. A
  /// shortcut's phrase is compared without its app's name when it names it, and suggested as it is.
  /// - Parameter names: an app's names (`UtteranceMatcher.names(of:)`).
  static func closest(
    to said: [String], in apps: [AppBundle], names: (AppBundle) -> [String], shortcuts: [ShortcutCandidate] = [],
    minimumShared: Int = 1, limit: Int = 3
  ) -> [Suggestion] {
    let said = words(said)
    var scored: [(closeness: Closeness, order: Int, suggestion: Suggestion)] = []
    for shortcut in shortcuts {
      let appNames = apps.first { $0.identifier.rawValue == shortcut.app }.map(names) ?? []
      let phrase = words(withoutAppName(normalizedWords(shortcut.phrase), names: appNames.map(normalizedWords)).words)
      let closeness = closeness(of: phrase, to: said)
      guard closeness.shared >= max(1, minimumShared) else { continue }
      scored.append(
        (
          closeness, scored.count,
          Suggestion(said: shortcut.phrase, appIdentifier: shortcut.app, shortcut: shortcut.identifier)
        ))
    }
    for app in apps {
      for candidate in candidates(of: app, names: names(app)) {
        let closeness = closeness(of: candidate.words, to: said)
        guard closeness.shared >= max(1, minimumShared) else { continue }
        scored.append(
          (closeness, scored.count, Suggestion(said: candidate.said, appIdentifier: app.identifier.rawValue)))
      }
    }
    guard let best = scored.map(\.closeness.shared).max() else { return [] }
    return
      scored
      .filter { $0.closeness.shared >= best - 2 }
      .sorted { ($0.closeness, -$0.order) > ($1.closeness, -$1.order) }
      .prefix(limit).map(\.suggestion)
  }

  /// `"A"`, `"A" or "B"`, `"A", "B" or "C"`; a shortcut's phrase followed by `(your shortcut k3)`.
  static func quotedList(_ suggestions: [Suggestion], lastSeparator: String) -> String {
    let quoted = suggestions.map { "\"\($0.said)\"" + ($0.shortcut.map { " (your shortcut \($0))" } ?? "") }
    guard quoted.count > 1 else { return quoted.first ?? "" }
    return quoted.dropLast().joined(separator: ", ") + lastSeparator + quoted.last!
  }
}
