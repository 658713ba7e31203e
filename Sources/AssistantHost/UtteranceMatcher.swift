import BundleManifest
import ExtensionProtocol
import Foundation

/// A first phrase matcher: "Book room 12 for Ada with Rooms".
///
/// 1. The app: the utterance ends with "with|using|in|on APP", or starts with "APP," / "ask APP to"; APP is a name
///    of the app, or its bundle id (`... with com.example.rooms`). When the best way of naming names several apps
///    (two apps called "Rooms"), none is picked: the error lists them by bundle id.
/// 2. The intent and values: the rest is matched against the Shortcuts titles of the app's intents
///    (`INIntentParameterCombinations`, e.g. "${isCancellationOfBooking} room ${roomNumber} for ${bookedBy}"):
///    literal words must match (articles are optional), each `${parameter}` takes one or more words that parse as
///    that parameter's type (booleans by their display names and vocabulary synonyms). A match may stop after any
///    word of the title, so "Book room 12" leaves the rest to be asked for. The match covering most of the
///    utterance and the title wins.
public struct UtteranceMatcher: Sendable {
  public let apps: [AppBundle]

  public init(apps: [AppBundle]) { self.apps = apps }

  public struct Match: Sendable {
    public var app: AppBundle
    public var intentClass: String
    public var values: [String: ParameterValue]
  }

  /// - Throws: `HostError(.noMatch)` saying what was not understood.
  public func match(_ utterance: String) throws -> Match {
    let original = spokenWords(utterance)
    let words = original.map { $0.lowercased() }
    guard !words.isEmpty else { throw HostError(.usage, "say something, e.g. \"Book room 12 for Ada with Rooms\"") }
    guard let (app, range) = try findApp(words, in: utterance) else {
      // "... with Roms": the words after the last "with" are the name the user meant.
      if let with = words.lastIndex(where: { ["with", "using", "via"].contains($0) }), with < words.count - 1 {
        let named = original[(with + 1)...].joined(separator: " ")
        throw HostError(
          .noMatch,
          "\"\(utterance)\": no installed app is called \"\(named)\""
            + suggestion(named, among: apps.flatMap(\.names)) + "; installed: \(installedNames(apps))")
      }
      throw HostError(
        .noMatch,
        "no installed app is named in \"\(utterance)\"; end it with \"with APP\" "
          + "(installed: \(installedNames(apps)))")
    }
    let rest = Array(words[range])
    let restOriginal = Array(original[range])
    var best: (score: Int, match: Match)? = nil
    for className in app.supportedIntents {
      guard let (spec, definition) = app.runnableSpec(className: className) else { continue }
      let interpreter = ValueInterpreter(intentClass: className, definition: definition, vocabularies: app.vocabularies)
      var titles = spec.combinations.compactMap { combination in combination.title.map { ($0, combination.parameters) }
      }
      if let title = spec.title { titles.append((title, [])) }
      for (title, _) in titles {
        let pattern = tokens(title)
        for candidate in matches(pattern, rest, original: restOriginal, spec: spec, interpreter: interpreter) {
          // Cover the whole utterance; prefer longer titles and more values.
          let score = candidate.consumedPattern * 10 + candidate.values.count
          if best == nil || score > best!.score {
            best = (score, Match(app: app, intentClass: className, values: candidate.values))
          }
        }
      }
    }
    guard let best else {
      let examples = Self.examplePhrases(of: app)
      throw HostError(
        .noMatch,
        "\(app.name) has no intent matching \"\(rest.joined(separator: " "))\""
          + (examples.isEmpty ? "" : "; try: " + examples.map { "\"\($0)\"" }.joined(separator: ", ")))
    }
    return best.match
  }

  /// Up to `limit` example phrases of `app` (its vocabularies' `IntentExamples`), one intent after another so that
  /// each gets a turn: the first phrase of each intent its Intents extensions support, in manifest order, then the
  /// second of each, and so on. Phrases of an intent the app does not support are left out.
  static func examplePhrases(of app: AppBundle, limit: Int = 3) -> [String] {
    let phrases = app.supportedIntents.map { name in app.vocabularies.flatMap { $0.intentPhrases[name] ?? [] } }
    var examples: [String] = []
    var index = 0
    while examples.count < limit, phrases.contains(where: { index < $0.count }) {
      for list in phrases where index < list.count && examples.count < limit { examples.append(list[index]) }
      index += 1
    }
    return examples
  }

  /// How an utterance names an app, best first: by its bundle id written out, then "... with APP" (the name ends
  /// it), "ask APP to ...", "APP, ...".
  private enum Mention: Int, Comparable {
    case identifier, end, ask, start
    static func < (a: Mention, b: Mention) -> Bool { a.rawValue < b.rawValue }
  }

  /// The app named in `words` (those of `utterance`), and the range of the words that remain. The best way of
  /// naming wins (bundle id, "... with APP", "ask APP to", "APP, ..."); when that names more than one app (the same
  /// name, or one name ending another: "Rooms" and "Study Rooms"), none is picked. One app named by two of its names
  /// takes the longer.
  /// - Throws: `HostError(.noMatch)` listing the apps by bundle id when the best naming names several apps.
  private func findApp(_ words: [String], in utterance: String) throws -> (AppBundle, Range<Int>)? {
    let written = Set(
      utterance.split(whereSeparator: \.isWhitespace).map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: ",;:!?\"'()").union(.whitespaces))
          .trimmingCharacters(in: CharacterSet(charactersIn: "."))
      })
    var found: [(app: AppBundle, range: Range<Int>, mention: Mention, length: Int)] = []
    for app in apps {
      var names = app.names.map { ($0, false) }
      if written.contains(app.identifier.rawValue) { names.insert((app.identifier.rawValue, true), at: 0) }
      for (name, isIdentifier) in names {
        let nameWords = normalizedWords(name)
        guard !nameWords.isEmpty, words.count > nameWords.count else { continue }
        var range: Range<Int>
        var mention: Mention
        if Array(words.suffix(nameWords.count)) == nameWords {
          range = 0..<(words.count - nameWords.count)
          if let last = range.last, ["with", "using", "in", "on", "via"].contains(words[last]) {
            range = range.lowerBound..<last
          }
          mention = .end
        } else if Array(words.prefix(nameWords.count)) == nameWords {
          range = nameWords.count..<words.count
          mention = .start
        } else if words.first == "ask", Array(words.dropFirst().prefix(nameWords.count)) == nameWords {
          range = (1 + nameWords.count)..<words.count
          mention = .ask
        } else {
          continue
        }
        if range.first.map({ words[$0] == "to" }) == true { range = (range.lowerBound + 1)..<range.upperBound }
        found.append((app, range, isIdentifier ? .identifier : mention, nameWords.count))
      }
    }
    guard let best = found.min(by: { ($0.mention, -$0.length) < ($1.mention, -$1.length) }) else { return nil }
    // Every app named in the best way is a candidate, whatever the length of its name: an app called "12 for Ada
    // with Rooms" must not take "Book room 12 for Ada with Rooms" from Rooms, so when one app's name ends another's,
    // the user is asked to say which (by bundle id) rather than the longer name winning.
    let tied = found.filter { $0.mention == best.mention }
    var apps: [AppBundle] = []
    for candidate in tied where !apps.contains(where: { $0.url == candidate.app.url }) { apps.append(candidate.app) }
    if apps.count > 1 {
      throw Router.ambiguous(
        "\"\(utterance)\" names", apps,
        example: "\"\(spokenWords(utterance)[best.range].joined(separator: " ")) with BUNDLE-ID\"")
    }
    return (best.app, best.range)
  }

  private enum Token: Equatable {
    case word(String)
    case slot(String)
  }

  private func tokens(_ title: String) -> [Token] {
    var result: [Token] = []
    var rest = Substring(title)
    while let start = rest.range(of: "${") {
      result += normalizedWords(String(rest[..<start.lowerBound])).map(Token.word)
      guard let end = rest[start.upperBound...].firstIndex(of: "}") else { break }
      result.append(.slot(String(rest[start.upperBound..<end])))
      rest = rest[rest.index(after: end)...]
    }
    result += normalizedWords(String(rest)).map(Token.word)
    return result
  }

  private struct Candidate {
    var consumedPattern: Int
    var values: [String: ParameterValue]
  }

  private static let optionalWords: Set<String> = ["a", "an", "the", "my"]

  /// All ways `pattern` (or a prefix of it) can consume all of `words`.
  private func matches(
    _ pattern: [Token], _ words: [String], original: [String], spec: IntentSpec, interpreter: ValueInterpreter
  ) -> [Candidate] {
    var results: [Candidate] = []
    func walk(_ p: Int, _ w: Int, _ values: [String: ParameterValue]) {
      if w == words.count {
        if p > 0 { results.append(Candidate(consumedPattern: p, values: values)) }
        return
      }
      if w < words.count, Self.optionalWords.contains(words[w]) { walk(p, w + 1, values) }
      guard p < pattern.count else { return }
      switch pattern[p] {
      case .word(let word):
        if words[w] == word { walk(p + 1, w + 1, values) }
        if Self.optionalWords.contains(word) { walk(p + 1, w, values) }
      case .slot(let name):
        guard let parameter = spec.parameter(named: name) else { return }
        for end in (w + 1)...min(words.count, w + 8) {
          let text = original[w..<end].joined(separator: " ")
          guard let value = interpreter.parse(text, for: parameter) else { continue }
          if parameter.type == "String", Self.optionalWords.contains(words[w]) { continue }
          var next = values
          next[name] = value
          walk(p + 1, end, next)
        }
      }
    }
    walk(0, 0, [:])
    return results
  }
}
