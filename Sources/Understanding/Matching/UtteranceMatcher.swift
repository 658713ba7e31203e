import BundleManifest
import ExtensionProtocol
import Foundation
import NameSuggestions
import Synchronization

/// A first phrase matcher: "Book room 12 for Ada with Rooms".
///
/// 0. A wake phrase that starts the utterance ("Hey Siri, ...", "Siri, ...") is no part of it (`WakePhrase`).
/// 1. The app: the utterance ends with "with|using|in|on APP", or starts with "APP," / "ask APP to" / "tell APP to" /
///    "use APP to" / "open APP and" (`addressingVerbs`); APP is a name of the app, or its bundle id (`... with
///    com.example.rooms`). When the best way of naming names several apps (two apps called "Rooms"), none is picked:
///    the error lists them by bundle id.
/// 2. The intent and values: the rest is matched against the app's phrases (`phrases(of:)`): the Shortcuts titles
///    of its intents (`INIntentParameterCombinations`, e.g. "${isCancellationOfBooking} room ${roomNumber} for
///    ${bookedBy}"), its vocabulary's `IntentPhrases` examples, each a template for its own intent (a value of one
///    of the intent's parameters in it becomes a slot of that parameter: a `ParameterVocabularies` synonym of the
///    parameter, a case of one of its enums, the definition's or Apple's `SystemEnum`, as said, or a number, for the
///    next number parameter; `exampleTokens`), and the built-in phrases of the system intents it supports
///    (`SystemPhrases`):
///    literal words must match (articles are optional), each `${parameter}` takes one or more words that parse as
///    that parameter's type (booleans by their display names and vocabulary synonyms); a text parameter's slot
///    takes the user's text between its neighbouring words as written (`writtenValue`), articles, symbols and all.
///    A match may stop after any word of the title, so "Book room 12" leaves the rest to be asked for. The match
///    covering most of the utterance and the title wins. When that is an example's, the intent takes the values of its
///    best reading of a whole phrase that fills every parameter the example fills and more: the example "Add buy milk
///    to Home" (all words: free text is no slot of an example) gives the values of the title `Add ${text} to
///    ${notebook}`.
/// 3. The user's vocabulary: a slot of a parameter with a vocabulary type whose words are one of the terms the app
///    registered for it (`UserVocabulary`) takes the term as spelled, and a reading with more such slots wins over
///    every reading with fewer.
package struct UtteranceMatcher: Sendable {
  package let apps: [AppBundle]
  /// The user's language: the apps' `InfoPlist.strings` names for it are names too.
  package let locale: String?
  /// The terms each app registered, by bundle identifier (the engine reads them from its donation store).
  package let vocabulary: [String: UserVocabulary]
  /// The user's active shortcuts: never matched here (the caller tries them first), but suggested among the closest
  /// phrases when nothing matches (`ClosestPhrases`).
  package let shortcuts: [ClosestPhrases.ShortcutCandidate]
  /// What reading the apps' phrases costs is paid once per matcher (`Readers`): `PhraseBook.check` says every example
  /// with one matcher.
  let readers = Readers()
  /// Whether an example that wins for an intent gives the values of a fuller reading of a whole phrase of that intent
  /// (`bestMatches`). Off only in the control of the tests that show the values an example said as written loses.
  var examplesTakeFullerValues = true

  /// How many `IntentPhrases` examples of an app are phrases: the first 128, in manifest order (vocabulary after
  /// vocabulary, intent after intent as the app supports them). `PhraseBook.check` warns about the rest.
  package static let maximumExamples = 128
  /// How many of an intent's parameters with spoken values (vocabulary synonyms, enum cases) an example's words are
  /// read as: the first 32, in the definition's order.
  package static let maximumSpokenParameters = 32
  /// How many words an utterance may have: 64 (a request is a sentence; the reading of phrases is bounded by it).
  package static let maximumUtteranceWords = 64
  /// How many words and slots a title may have and be a phrase: 32, as an example (a longer one is not said).
  package static let maximumTitleTokens = 32
  /// How many words (the app's name left out) an `IntentPhrases` example may have and be a phrase: 32.
  /// `PhraseBook.check` warns about a longer one.
  package static let maximumExampleWords = 32

  package init(
    apps: [AppBundle], locale: String? = nil, vocabulary: [String: UserVocabulary] = [:],
    shortcuts: [ClosestPhrases.ShortcutCandidate] = []
  ) {
    self.apps = apps
    self.locale = locale
    self.vocabulary = vocabulary
    self.shortcuts = shortcuts
  }

  /// How a reading ranks: first by how many slots hold one of the app's terms (`UserVocabulary`), then by `points`:
  /// 20 for each word or slot of the phrase used, 3 for a whole phrase, 2 for each value.
  struct Score: Comparable, Sendable {
    var terms = 0
    var points = 0
    static func < (a: Score, b: Score) -> Bool { (a.terms, a.points) < (b.terms, b.points) }
  }

  package struct Match: Sendable {
    package var app: AppBundle
    package var intentClass: String
    package var values: [String: ParameterValue]
    /// The phrase that matched, as written in the manifest (or the system phrase).
    package var phrase: String = ""
    /// The words of the utterance that were matched (the app's name left out), as said.
    package var request: String = ""
  }

  /// Where a phrase comes from.
  package enum PhraseSource: String, Sendable, Codable {
    /// `appShortcut`: an App Shortcut phrase of the app's `Metadata.appintents` (App Intents; `AppShortcutMatcher`
    /// matches them, never this matcher).
    case title, example, system, appShortcut
  }

  /// A phrase an app answers to.
  package struct Phrase: Sendable, Equatable {
    package var intentClass: String
    package var text: String
    package var source: PhraseSource
    /// For a title translated by the app's `Intents.strings`: the locale it was translated for (its slots are read
    /// with the translated definition: "Réserver" is a boolean's false display name in French). Nil otherwise.
    package var locale: String? = nil

    /// A phrase of `intentClass` as written, from `source` (`locale` only for a translated title).
    package init(intentClass: String, text: String, source: PhraseSource, locale: String? = nil) {
      self.intentClass = intentClass
      self.text = text
      self.source = source
      self.locale = locale
    }
  }

  /// Every phrase of `app`, intent after intent in manifest order: its vocabularies' examples (as written, app name
  /// included); under `locale`, the titles its `Intents.strings` translates for that locale (those that differ from
  /// the definition's own); its combination titles and intent title; and, for a system intent of the catalog, Siri's
  /// phrases for it (`SystemPhrases`), whether or not a definition gives that intent titles too.
  package static func phrases(of app: AppBundle, locale: String? = nil) -> [Phrase] {
    var result: [Phrase] = []
    func add(_ phrase: Phrase) {
      if !result.contains(where: { $0.intentClass == phrase.intentClass && $0.text == phrase.text }) {
        result.append(phrase)
      }
    }
    func titles(_ spec: IntentSpec) -> [String] {
      spec.combinations.compactMap(\.title) + [spec.title].compactMap { $0 }
    }
    let translated = locale.flatMap { locale in app.strings(for: locale).isEmpty ? nil : app.localized(for: locale) }
    let examples = Set(readExamples(of: app).map { "\($0.intentClass)\u{0}\($0.text)" })
    for className in app.supportedIntents {
      for vocabulary in app.vocabularies {
        for example in vocabulary.intentPhrases[className] ?? [] where examples.contains("\(className)\u{0}\(example)")
        {
          add(Phrase(intentClass: className, text: example, source: .example))
        }
      }
      guard let (spec, definition) = app.runnableSpec(className: className) else { continue }
      if definition != nil {
        let own = titles(spec)
        if let translated, let (localized, _) = translated.runnableSpec(className: className) {
          for title in titles(localized) where !own.contains(title) {
            add(Phrase(intentClass: className, text: title, source: .title, locale: locale))
          }
        }
        for title in own { add(Phrase(intentClass: className, text: title, source: .title)) }
      }
      for phrase in SystemPhrases.catalog[className] ?? [] {
        add(Phrase(intentClass: className, text: phrase, source: .system))
      }
    }
    return result
  }

  /// The `IntentPhrases` examples of `app` that are phrases (`maximumExamples`, `maximumExampleWords`), and those
  /// that are not, each with its intent, in manifest order (intent after intent as the app supports them).
  static func readExamples(of app: AppBundle) -> [(intentClass: String, text: String)] {
    sortedExamples(of: app).read
  }

  static func sortedExamples(of app: AppBundle) -> (
    read: [(intentClass: String, text: String)], tooLong: [(intentClass: String, text: String)],
    beyond: [(intentClass: String, text: String)]
  ) {
    var read: [(intentClass: String, text: String)] = []
    var tooLong: [(intentClass: String, text: String)] = []
    var beyond: [(intentClass: String, text: String)] = []
    let names = UtteranceMatcher(apps: [app]).names(of: app).map(normalizedWords)
    for className in app.supportedIntents {
      for vocabulary in app.vocabularies {
        for example in vocabulary.intentPhrases[className] ?? [] {
          let words = ClosestPhrases.withoutAppName(normalizedWords(example), names: names).words
          if words.count > maximumExampleWords {
            tooLong.append((className, example))
          } else if read.count >= maximumExamples {
            beyond.append((className, example))
          } else {
            read.append((className, example))
          }
        }
      }
    }
    return (read, tooLong, beyond)
  }

  /// Every name of `app` the user may say: `AppBundle.names`, the pronunciation hints of its alternative names, and
  /// under `locale` the names its `InfoPlist.strings` gives.
  package func names(of app: AppBundle) -> [String] {
    var result = app.names + app.info.alternativeAppNamePronunciations
    if let locale { result += app.localizedNames(for: locale) }
    var seen: Set<[String]> = []
    return result.filter { !normalizedWords($0).isEmpty && seen.insert(normalizedWords($0)).inserted }
  }

  /// The one match of `utterance`.
  /// - Throws: `UnderstandingError(.noMatch)` saying what was not understood, or listing the candidates when several apps or
  ///   intents match equally well (`understand(_:)` returns them instead).
  package func match(_ utterance: String) throws -> Match {
    let found = try understand(utterance)
    if found.count == 1 { return found[0] }
    let apps = found.reduce(into: [AppBundle]()) { list, match in
      if !list.contains(where: { $0.url == match.app.url }) { list.append(match.app) }
    }
    if apps.count > 1 {
      throw Router.ambiguous("\"\(utterance)\" names", apps, example: (found[0].request, found[0].app))
    }
    throw UnderstandingError(
      .noMatch,
      "\"\(utterance)\" matches \(found.count) intents of \(apps[0].name): "
        + found.map(\.intentClass).joined(separator: ", ") + "; say more to tell them apart")
  }

  /// The best matches of `utterance`: one when it is understood, several (best first, each app and intent once)
  /// when several apps or intents match it equally well, so the caller can ask which one. A wake phrase that starts
  /// it is left out first (`WakePhrase`).
  /// - Throws: `UnderstandingError(.noMatch)` saying what was not understood.
  package func understand(_ utterance: String) throws -> [Match] {
    let utterance = WakePhrase.removed(from: utterance)
    let spoken = spokenWordRanges(utterance)
    let original = spoken.map(\.word)
    let words = original.map { $0.lowercased() }
    guard !words.isEmpty else {
      throw UnderstandingError(.usage, "say something, e.g. \"Book room 12 for Ada with Rooms\"")
    }
    // What is understood is bounded: a request is a sentence, and every reading's cost (and depth) grows with it.
    guard words.count <= Self.maximumUtteranceWords else {
      throw UnderstandingError(
        .usage,
        "the utterance has \(words.count) words; the assistant understands at most \(Self.maximumUtteranceWords): "
          + "say one request at a time")
    }
    guard let named = try findApp(words, in: utterance) else {
      let allNames = apps.flatMap(names(of:))
      func notInstalled(_ named: String) -> UnderstandingError {
        UnderstandingError(
          .noMatch,
          "\"\(utterance)\": no installed app is called \"\(named)\""
            + suggestion(named, among: allNames) + "; installed: \(installedNames(apps))")
      }
      // "... in Roms", "... on Roms": "in" and "on" are ordinary words too ("Book a room in the morning"), so the
      // words after the last of them are taken for a name only when they are close to an installed app's name.
      let with = words.lastIndex { ["with", "using", "via"].contains($0) }
      if let on = words.lastIndex(where: { ["in", "on"].contains($0) }), on < words.count - 1, on > with ?? -1 {
        let named = original[(on + 1)...].joined(separator: " ")
        if !closestNames(to: named, among: allNames).isEmpty { throw notInstalled(named) }
      }
      // "Roms, book ...", "ask Roms to book ...", "use Roms to book ...", "open Roms and book ...": the words before
      // the first comma (at most four), or between an addressing verb and the word after the name ("to", "and"), are
      // taken for a name when they are close to an installed app's name, as after "in" and "on".
      let comma = (0..<min(4, spoken.count)).first { index in
        let end = index + 1 < spoken.count ? spoken[index + 1].range.lowerBound : utterance.endIndex
        return utterance[spoken[index].range.upperBound..<end].contains(",")
      }
      let joiner = words.first.flatMap { Self.addressingVerbs[$0] }.map { $0 ?? "to" }
      let to = joiner.flatMap { joiner in words.prefix(6).firstIndex(of: joiner).flatMap { $0 > 1 ? $0 : nil } }
      for leading in [comma.map { 0..<($0 + 1) }, to.map { 1..<$0 }] {
        guard let leading else { continue }
        let named = original[leading].joined(separator: " ")
        if !closestNames(to: named, among: allNames).isEmpty { throw notInstalled(named) }
      }
      // "... with Roms": the words after the last "with" are the name the user meant, or the first of them when
      // those are close to an installed app's name and values follow ("... with Ascnt for 30 minutes").
      if let with, with < words.count - 1 {
        let after = original[(with + 1)...]
        let close = (1...after.count).reversed().first { count in
          !closestNames(to: after.prefix(count).joined(separator: " "), among: allNames).isEmpty
        }
        throw notInstalled(after.prefix(close ?? after.count).joined(separator: " "))
      }
      // "Book room 12 for Ada": when the words are close to phrases of installed apps (at least two words and half
      // of those said shared), those phrases, with their apps' names.
      let shared = max(4, words.filter { !ClosestPhrases.littleWords.contains($0) }.count)
      let close = ClosestPhrases.closest(
        to: words, in: apps, names: names(of:), shortcuts: shortcuts, minimumShared: shared)
      if !close.isEmpty {
        throw UnderstandingError(
          .noMatch,
          "no installed app is named in \"\(utterance)\"; did you mean "
            + ClosestPhrases.quotedList(close, lastSeparator: " or ") + "?")
      }
      throw UnderstandingError(
        .noMatch,
        "no installed app is named in \"\(utterance)\"; end it with \"with APP\" "
          + "(installed: \(installedNames(apps)))")
    }
    var matches: [(score: Score, match: Match)] = []
    var firstFailure: UnderstandingError? = nil
    for (app, range, after) in named {
      do {
        // "Rooms,", "with Rooms", "ask Rooms to", "use Rooms to": the app named, nothing asked.
        if range.isEmpty && after.isEmpty { throw namedOnly(app) }
        // The words that remain: those before the app's name, then those after it ("Start a wall climb with Ascent
        // for 30 minutes").
        let indices = Array(range) + Array(after)
        // A slot's text as written: from the end of the word before it to the start of the word after it; a slot
        // on both sides of the app's name is the two parts as written, the name left out.
        let written = { (span: Range<Int>) -> String in
          var runs: [Range<Int>] = []
          for index in span.map({ indices[$0] }) {
            if let last = runs.last, last.upperBound == index {
              runs[runs.count - 1] = last.lowerBound..<(index + 1)
            } else {
              runs.append(index..<(index + 1))
            }
          }
          return runs.map { run in
            let start = run.lowerBound > 0 ? spoken[run.lowerBound - 1].range.upperBound : utterance.startIndex
            let end = run.upperBound < spoken.count ? spoken[run.upperBound].range.lowerBound : utterance.endIndex
            return writtenValue(utterance[start..<end])
          }.joined(separator: " ")
        }
        matches += try bestMatches(
          in: app, words: indices.map { words[$0] }, original: indices.map { original[$0] }, written: written
        ).map {
          var found = $0
          found.match.request = indices.map { original[$0] }.joined(separator: " ")
          return found
        }
      } catch let error as UnderstandingError {
        if firstFailure == nil { firstFailure = error }
      }
    }
    guard let top = matches.map(\.score).max() else { throw firstFailure! }
    // Several apps named the same way, and only one understands the rest: the user says which by bundle id, e.g. the
    // words that one understood with its bundle id (another app's words may still hold part of its name).
    if named.count > 1, matches.count < 2 {
      throw Router.ambiguous(
        "\"\(utterance)\" names", named.map(\.app), example: (matches[0].match.request, matches[0].match.app))
    }
    // Apps named equally well are all candidates, whatever their scores: the user says which.
    return matches.filter { named.count > 1 || $0.score == top }.sorted { $0.score > $1.score }.map(\.match)
  }

  /// The refusal of an utterance that names `app` and asks nothing ("with Rooms", "Rooms,", "ask Rooms to"): what
  /// to ask it, as the suggestions say it: up to three of its `IntentExamples` (`examplePhrases(of:)`), or, for an app
  /// without any, its first phrases in a form that can be said (`ClosestPhrases.candidates`).
  private func namedOnly(_ app: AppBundle) -> UnderstandingError {
    var phrases = Self.examplePhrases(of: app)
    if phrases.isEmpty { phrases = ClosestPhrases.candidates(of: app, names: names(of: app)).prefix(3).map(\.said) }
    return UnderstandingError(
      .noMatch,
      "you named \(app.name) but did not say what to do"
        + (phrases.isEmpty ? "" : "; try: " + phrases.map { "\"\($0)\"" }.joined(separator: ", ")))
  }

  /// The best-scoring intents of `app` for `words`, one match each (several when they tie).
  ///
  /// An intent whose best reading is an example's keeps that reading's score (so which intent wins does not change)
  /// but takes the values, and names the phrase, of its best reading (score, then values read by their type, then
  /// manifest order) that reads a whole phrase (title, system phrase or example) and fills every parameter the example
  /// fills and at least one more (`examplesTakeFullerValues`). An example's words are words unless they are a spoken
  /// value or a number (`exampleTokens`), so the example "Add buy milk to Home" (five words) outscores the title `Add
  /// ${text} to ${notebook}` (four words and slots) on its own words and alone would give no value. A title cut short
  /// gives an example nothing (the example "Add a note" gets no `text` "a note" from `Add ${text} to ${notebook}`),
  /// nor does a reading that lacks a value the example gives. The cost is one more look at the phrases' best readings.
  /// - Parameter written: the text of some of `words` as the user wrote it, for a text slot (`matches`).
  private func bestMatches(
    in app: AppBundle, words rest: [String], original restOriginal: [String], written: (Range<Int>) -> String
  ) throws -> [(score: Score, match: Match)] {
    var found: [(readings: Readings, pattern: [Token], phrase: Phrase)] = []
    let terms = vocabulary[app.identifier.rawValue]
    var steps = 0
    for (phrase, reader) in readers.phrases(of: app, matcher: self) {
      guard let reader else { continue }
      found.append(
        (
          Self.readings(
            reader.pattern, rest, original: restOriginal, written: written, spec: reader.spec,
            interpreter: reader.interpreter, terms: terms, leadingName: reader.leadingName, steps: &steps),
          reader.pattern, phrase
        ))
    }
    // A text slot may hold only little words ("Book room 39 for A": "A" is an initial), unless leaving them out
    // makes a whole phrase match: "Start a workout" is the phrase "start a workout", not a workout called "a".
    let wholeWithout = found.contains { $0.readings.completeWithoutLittleWords }
    var best: [String: (score: Score, typed: Int, match: Match)] = [:]
    var bestIsExample: Set<String> = []
    // Each intent's readings of a whole phrase (`examplesTakeFullerValues`).
    var whole: [String: [(score: Score, typed: Int, values: [String: ParameterValue], phrase: String)]] = [:]
    for (readings, pattern, phrase) in found {
      // Of each phrase, its best reading (the first of the best: `Readings`) is all that can win.
      guard let candidate = wholeWithout ? readings.bestWithoutLittleWords : readings.best else { continue }
      let score = Self.score(candidate, patternCount: pattern.count)
      if candidate.consumedPattern == pattern.count {
        whole[phrase.intentClass, default: []].append((score, candidate.typed, candidate.values, phrase.text))
      }
      // Each intent keeps its first best reading, except that a title or a system phrase takes a tie from an example:
      // an example read as a template is often a title's twin ("Book a room" is `${isCancellationOfBooking} a
      // room`), and the match names the phrase with the slots.
      // Of two readings of one intent with equal scores, the one with more values read by their type wins ("Start
      // an outdoor workout" gives a location, not a workout called "outdoor").
      if let current = best[phrase.intentClass],
        current.score > score
          || (current.score == score
            && (current.typed > candidate.typed
              || (current.typed == candidate.typed
                && (phrase.source == .example || !bestIsExample.contains(phrase.intentClass)))))
      {
        continue
      }
      best[phrase.intentClass] = (
        score, candidate.typed,
        Match(app: app, intentClass: phrase.intentClass, values: candidate.values, phrase: phrase.text)
      )
      if phrase.source == .example {
        bestIsExample.insert(phrase.intentClass)
      } else {
        bestIsExample.remove(phrase.intentClass)
      }
    }
    // An example that wins takes the values of the intent's best reading of a whole phrase that has more of them.
    for intentClass in bestIsExample where examplesTakeFullerValues {
      guard let winner = best[intentClass] else { continue }
      let filled = Set(winner.match.values.keys)
      var fuller: (score: Score, typed: Int, values: [String: ParameterValue], phrase: String)? = nil
      for reading in whole[intentClass] ?? []
      where Set(reading.values.keys).isStrictSuperset(of: filled)
        && fuller.map({ reading.score > $0.score || (reading.score == $0.score && reading.typed > $0.typed) }) ?? true
      {
        fuller = reading
      }
      if let fuller {
        best[intentClass]?.match.values = fuller.values
        best[intentClass]?.match.phrase = fuller.phrase
      }
    }
    guard let top = best.values.map(\.score).max() else {
      // The app's phrases closest to what was said; when none shares a word with it, an example of each intent.
      let close = ClosestPhrases.closest(
        to: rest, in: [app], names: names(of:), shortcuts: shortcuts.filter { $0.app == app.identifier.rawValue })
      let examples = Self.examplePhrases(of: app)
      let hint =
        !close.isEmpty
        ? "; closest: " + ClosestPhrases.quotedList(close, lastSeparator: ", ")
        : examples.isEmpty ? "" : "; try: " + examples.map { "\"\($0)\"" }.joined(separator: ", ")
      throw UnderstandingError(.noMatch, "\(app.name) has no intent matching \"\(rest.joined(separator: " "))\"" + hint)
    }
    let order = app.supportedIntents
    return best.values.filter { $0.score == top }.sorted {
      (order.firstIndex(of: $0.match.intentClass) ?? 0) < (order.firstIndex(of: $1.match.intentClass) ?? 0)
    }.map { ($0.score, $0.match) }
  }

  /// An `IntentPhrases` example as a template for its own intent: the app's name taken off ("... with Rooms",
  /// "Rooms, ...", "ask Rooms to ..."), and, from left to right, each value of one of the intent's parameters in it a
  /// slot of that parameter, once per parameter:
  /// - the longest run of words (up to eight) that is a spoken value of a parameter (`ValueInterpreter.spokenValue`):
  ///   one of the app's `ParameterVocabularies` synonyms for `Intent.parameter` ("wall climb" for
  ///   `INStartWorkoutIntent.workoutName`, "book" for Rooms' `isCancellationOfBooking`), or a case of one of its
  ///   enums, the definition's or Apple's (`SystemEnum`), as said: its display name, its name in words, a system
  ///   enum's synonym ("minute", "outdoor"); the parameter first in the definition's order wins a tie;
  /// - otherwise a number (digits or a number word): a slot of the intent's next number parameter.
  /// Every other word stays a word the user must say. "Start a 30 minute outdoor wall climb with Ascent" is
  /// `start a ${goalValue} ${workoutGoalUnitType} ${workoutLocationType} ${workoutName}`; "Start a workout with
  /// Ascent" stays as written.
  static func exampleTokens(
    _ example: String, appNames: [String], spec: IntentSpec, interpreter: ValueInterpreter
  ) -> [Token] {
    let words = ClosestPhrases.withoutAppName(normalizedWords(example), names: appNames.map(normalizedWords)).words
    var numbers = spec.parameters.filter { [.integer, .decimal, .double, .currency].contains($0.type) }.map(\.name)
    // The intent's first `maximumSpokenParameters` parameters said with words of their own are read in examples
    // (each word run is looked up once per parameter: an intent with thousands would cost every utterance).
    var spoken = Array(spec.parameters.lazy.filter(interpreter.hasSpokenValues).prefix(Self.maximumSpokenParameters))
    var tokens: [Token] = []
    var index = 0
    // A run longer than every spoken value is none of them (`SpokenIndex`: each run is one dictionary access).
    let reach = min(8, spoken.map(interpreter.longestSpokenValue).max() ?? 0)
    while index < words.count {
      let longest = min(words.count, index + reach)
      let found = (index + 1...max(index + 1, longest)).reversed().lazy.compactMap { end in
        end > longest
          ? nil
          : spoken.firstIndex {
            interpreter.spokenValue(
              words[index..<end].joined(separator: " "), for: $0, words: Array(words[index..<end])) != nil
          }.map { (end, $0) }
      }.first
      if let (end, parameter) = found {
        tokens.append(.slot(spoken[parameter].name))
        numbers.removeAll { $0 == spoken[parameter].name }
        spoken.remove(at: parameter)
        index = end
        continue
      }
      if parseDecimal(words[index]) != nil, !numbers.isEmpty {
        let name = numbers.removeFirst()
        spoken.removeAll { $0.name == name }
        tokens.append(.slot(name))
      } else {
        tokens.append(.word(words[index]))
      }
      index += 1
    }
    return tokens
  }

  /// The template `example` (one of `app`'s `IntentExamples` for `intentClass`) is matched as (`exampleTokens`),
  /// written as a title is: words in lower case, slots as `${parameter}`. Nil when the app cannot run the intent.
  static func template(ofExample example: String, intentClass: String, in app: AppBundle) -> String? {
    guard let (spec, definition) = app.runnableSpec(className: intentClass) else { return nil }
    let interpreter = ValueInterpreter(intentClass: intentClass, definition: definition, vocabularies: app.vocabularies)
    let tokens = exampleTokens(
      example, appNames: UtteranceMatcher(apps: [app]).names(of: app), spec: spec, interpreter: interpreter)
    return tokens.map { token in
      switch token {
      case .word(let word): word
      case .slot(let name): "${\(name)}"
      }
    }.joined(separator: " ")
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
  /// it), "ask APP to ..." and the other addressing verbs (`addressingVerbs`), "APP, ...", and last "... with APP
  /// ..." (values after the name: "Start a wall climb with Ascent for 30 minutes").
  private enum Mention: Int, Comparable {
    case identifier, end, addressed, start, middle
    static func < (a: Mention, b: Mention) -> Bool { a.rawValue < b.rawValue }
  }

  /// The verbs that address an app by name before the request, each with the word that must follow the name: "ask
  /// APP to ..." (the "to" may be left out, "ask Rooms book room 12"), "tell APP to ...", "use APP to ...", "open APP
  /// and ...". The words after that one are the request, matched as if the app had been named last ("... with APP").
  /// A verb followed by no app's name is a word of the request ("Use the sauna with Spa").
  static let addressingVerbs: [String: String?] = ["ask": nil, "tell": "to", "use": "to", "open": "and"]

  /// The words that may stand before an app's name at the end of an utterance ("with Rooms"), by language: English's
  /// always, and those of the user's language (`--locale fr_FR`: "... avec Rooms", "... en utilisant Rooms").
  static let connectorsByLanguage: [String: [String]] = [
    "en": ["with", "using", "in", "on", "via"],
    "fr": ["avec", "en utilisant", "à l'aide de", "dans", "sur", "via"],
    "es": ["con", "usando", "en", "mediante"],
    "de": ["mit", "über", "in", "auf", "via"],
    "it": ["con", "usando", "utilizzando", "in", "su", "tramite"],
    "pt": ["com", "usando", "utilizando", "em", "via"],
  ]

  /// The connectors of English and of `locale`'s language, as words, the longest first ("en utilisant" before any
  /// one-word connector).
  package static func appConnectors(_ locale: String?) -> [[String]] {
    let language = locale.map { String($0.prefix { $0.isLetter }).lowercased() }
    let texts =
      (connectorsByLanguage["en"] ?? []) + (language.flatMap { $0 == "en" ? nil : connectorsByLanguage[$0] } ?? [])
    return texts.map(normalizedWords).filter { !$0.isEmpty }.sorted { $0.count > $1.count }
  }

  /// The app named in `words` (those of `utterance`), and the range of the words that remain. The best way of
  /// naming wins (bundle id, "... with APP", "ask APP to" and the other `addressingVerbs`, "APP, ..."); when that
  /// names more than one app (the same name, or one name ending another: "Rooms" and "Study Rooms"), none is picked.
  /// One app named by two of its names takes the longer.
  /// `after` is the range of the words after the name when the name is in the middle ("with Ascent for 30 minutes"),
  /// empty otherwise.
  private func findApp(
    _ words: [String], in utterance: String
  ) throws -> [(app: AppBundle, range: Range<Int>, after: Range<Int>)]? {
    let written = Set(
      utterance.split(whereSeparator: \.isWhitespace).map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: ",;:!?\"'()").union(.whitespaces))
          .trimmingCharacters(in: CharacterSet(charactersIn: "."))
      })
    var found: [(app: AppBundle, range: Range<Int>, after: Range<Int>, mention: Mention, length: Int)] = []
    let middleConnectors = Set(Self.appConnectors(locale).filter { $0.count == 1 }.map { $0[0] })
    for app in apps {
      var names = self.names(of: app).map { ($0, false) }
      if written.contains(app.identifier.rawValue) { names.insert((app.identifier.rawValue, true), at: 0) }
      for (name, isIdentifier) in names {
        let nameWords = normalizedWords(name)
        // The name may be all there is ("Rooms,"): the app is named, and asked nothing (`namedOnly`).
        guard !nameWords.isEmpty, words.count >= nameWords.count else { continue }
        var range: Range<Int>
        var after = words.count..<words.count
        var mention: Mention
        // "... with APP ...": the last "with", "using", "via", "in" or "on" followed by the name and more words.
        let middle = (1..<max(1, words.count - nameWords.count)).last { index in
          middleConnectors.contains(words[index - 1])
            && Array(words[index..<(index + nameWords.count)]) == nameWords
        }
        if Array(words.suffix(nameWords.count)) == nameWords {
          range = 0..<(words.count - nameWords.count)
          let before = words[range]
          if let connector = Self.appConnectors(locale).first(where: { before.suffix($0.count).elementsEqual($0) }) {
            range = range.lowerBound..<(range.upperBound - connector.count)
          }
          // "ask Rooms", "tell Rooms", "use Rooms": not a request "ask". ("open Rooms" stays one: "open" begins
          // requests, "Open the door of room 12".)
          if range.count == 1, ["ask", "tell", "use"].contains(words[range.lowerBound]) {
            range = range.lowerBound..<range.lowerBound
          }
          mention = .end
        } else if Array(words.prefix(nameWords.count)) == nameWords {
          range = nameWords.count..<words.count
          mention = .start
        } else if let verb = words.first, let joiner = Self.addressingVerbs[verb],
          Array(words.dropFirst().prefix(nameWords.count)) == nameWords,
          joiner.map({ words.count > 1 + nameWords.count && words[1 + nameWords.count] == $0 }) ?? true
        {
          range = (1 + nameWords.count + (joiner == nil ? 0 : 1))..<words.count
          mention = .addressed
        } else if let middle {
          range = 0..<(middle - 1)
          after = (middle + nameWords.count)..<words.count
          mention = .middle
        } else {
          continue
        }
        if range.first.map({ words[$0] == "to" }) == true { range = (range.lowerBound + 1)..<range.upperBound }
        found.append((app, range, after, isIdentifier ? .identifier : mention, nameWords.count))
      }
    }
    // A name in the middle ("... with Ascent for 30 minutes") is as good as one at the end: an app called "minutes"
    // never takes that request from Ascent unasked; both are candidates, and the user says which.
    func rank(_ mention: Mention) -> Mention { mention == .middle ? .end : mention }
    guard let best = found.min(by: { (rank($0.mention), -$0.length) < (rank($1.mention), -$1.length) }) else {
      return nil
    }
    // Every app named in the best way is a candidate, whatever the length of its name: an app called "12 for Ada
    // with Rooms" must not take "Book room 12 for Ada with Rooms" from Rooms, so when one app's name ends another's,
    // the user is asked to say which (by bundle id) rather than the longer name winning.
    var tied: [(app: AppBundle, range: Range<Int>, after: Range<Int>)] = []
    for candidate in found where rank(candidate.mention) == rank(best.mention) {
      if let index = tied.firstIndex(where: { $0.app.url == candidate.app.url }) {
        if candidate.range.count + candidate.after.count < tied[index].range.count + tied[index].after.count {
          (tied[index].range, tied[index].after) = (candidate.range, candidate.after)
        }
      } else {
        tied.append((candidate.app, candidate.range, candidate.after))
      }
    }
    return tied
  }

  enum Token: Equatable, Sendable {
    case word(String)
    case slot(String)
  }

  static func tokens(_ title: String) -> [Token] {
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

  /// One way a phrase (or its start) reads all the words from some point on: where in the phrase it ends, the values
  /// its slots took, and what they count for (`Score`).
  struct Reading: Equatable {
    var consumedPattern: Int
    var values: [String: ParameterValue] = [:]
    /// Whether a text slot holds only little words (`optionalWords`).
    var onlyLittleWords = false
    /// How many values (or items of values) are terms of the app's vocabulary.
    var terms = 0
    /// How many values were read by their type (a number, an enum case, a boolean, ...), not taken as text.
    var typed = 0
    /// How many slots took a value.
    var filled = 0

    /// This reading after a slot of `name` took `value` in front of it.
    func after(slot name: String, value: ParameterValue, little: Bool, terms found: Int, typed isTyped: Bool)
      -> Reading
    {
      var reading = self
      // A later slot of the same parameter keeps its value, as reading from left to right would.
      if reading.values[name] == nil { reading.values[name] = value }
      reading.onlyLittleWords = reading.onlyLittleWords || little
      reading.terms += found
      reading.typed += isTyped ? 1 : 0
      reading.filled += 1
      return reading
    }
  }

  /// What can win of all the readings from one point on (`readings`): the first of the best-scoring ones (`score`,
  /// then `typed`), the first of the best of those without a text slot of only little words, and whether one of
  /// those reads the whole phrase. `bestMatches` needs no more: a reading that is not the first of the best of its
  /// phrase never wins, and the scores add up, so the best from a point on is a step in front of the best after it.
  struct Readings {
    var best: Reading? = nil
    var bestWithoutLittleWords: Reading? = nil
    var completeWithoutLittleWords = false

    /// Takes `other`, the readings of a later way on, where it beats this one (ties keep the earlier way).
    mutating func offer(_ other: Readings, patternCount: Int) {
      func better(_ new: Reading?, than old: Reading?) -> Bool {
        guard let new else { return false }
        guard let old else { return true }
        let (a, b) = (score(old, patternCount: patternCount), score(new, patternCount: patternCount))
        return b > a || (b == a && new.typed > old.typed)
      }
      if better(other.best, than: best) { best = other.best }
      if better(other.bestWithoutLittleWords, than: bestWithoutLittleWords) {
        bestWithoutLittleWords = other.bestWithoutLittleWords
      }
      completeWithoutLittleWords = completeWithoutLittleWords || other.completeWithoutLittleWords
    }

    /// These readings after a slot in front of them.
    func after(slot name: String, value: ParameterValue, little: Bool, terms: Int, typed: Bool) -> Readings {
      Readings(
        best: best?.after(slot: name, value: value, little: little, terms: terms, typed: typed),
        bestWithoutLittleWords: little
          ? nil : bestWithoutLittleWords?.after(slot: name, value: value, little: false, terms: terms, typed: typed),
        completeWithoutLittleWords: !little && completeWithoutLittleWords)
    }
  }

  /// How a reading of a phrase of `patternCount` words and slots ranks: cover the whole utterance; prefer the app's
  /// terms in the slots, then longer phrases, then whole phrases over parts of them ("start a workout" over "start a
  /// ${workoutName} workout" cut short), then more values (slots filled).
  static func score(_ reading: Reading, patternCount: Int) -> Score {
    let complete = reading.consumedPattern == patternCount
    return Score(
      terms: reading.terms, points: reading.consumedPattern * 20 + (complete ? 3 : 0) + reading.filled * 2)
  }

  private static let optionalWords: Set<String> = ["a", "an", "the", "my"]

  /// Whether `parameter` takes any text (`String`, `Object`, `Person`, ...: what `ValueInterpreter.parse` keeps as
  /// given): such a slot takes the user's text as written, not the words.
  private static func takesText(_ parameter: ParameterSpec) -> Bool {
    parameter.enumType == nil
      && ![
        .integer, .decimal, .double, .currency, .duration, .boolean, .date, .dateComponents,
      ].contains(parameter.type)
  }

  /// What can win of the ways `pattern` (or a prefix of it) can consume all of `words` (`Readings`). A little word
  /// the user says (`optionalWords`) may be skipped, except where a text slot starts: the slot keeps it ("for The
  /// Beatles"), and so may one of the phrase's. A text slot's value is `written` for its words, as written; any other
  /// slot's value is read from its words, never only little words. A slot takes one to eight words, or as many as the
  /// longest of the app's `terms` for its parameter; a value that is one of those terms is spelled as the term, and
  /// counted.
  ///
  /// Each point (a word of the phrase, a word said) is read once (a dynamic program, memoized on both): the work
  /// grows with the product of the phrase's and the utterance's lengths, not with the number of ways through them
  /// ("pause a a a a a a a a a a a a workout" said to itself has millions).
  /// - Parameters:
  ///   - leadingName: the phrase starts with a system intent's named thing said as the verb (`Reader.leadingName`):
  ///     only a reading of the whole phrase counts, and the first slot is held to `SystemPhrases.mayName`'s
  ///     `leading` rule.
  ///   - steps: counts the points read (for tests that count work).
  static func readings(
    _ pattern: [Token], _ words: [String], original: [String], written: (Range<Int>) -> String, spec: IntentSpec,
    interpreter: ValueInterpreter, terms: UserVocabulary?, leadingName: Bool, steps: inout Int
  ) -> Readings {
    let width = words.count + 1
    var memo = [Readings?](repeating: nil, count: (pattern.count + 1) * width)
    var count = 0
    func read(_ p: Int, _ w: Int) -> Readings {
      if let known = memo[p * width + w] { return known }
      count += 1
      var result = Readings()
      defer { memo[p * width + w] = result }
      if w == words.count {
        if p > 0, !leadingName || p == pattern.count {
          let reading = Reading(consumedPattern: p)
          result = Readings(
            best: reading, bestWithoutLittleWords: reading, completeWithoutLittleWords: p == pattern.count)
        }
        return result
      }
      let parameter: ParameterSpec? =
        if p < pattern.count, case .slot(let name) = pattern[p] { spec.parameter(named: name) } else { nil }
      let textSlot = parameter.map(takesText) ?? false
      if optionalWords.contains(words[w]), !textSlot {
        result.offer(read(p, w + 1), patternCount: pattern.count)
      }
      guard p < pattern.count else { return result }
      switch pattern[p] {
      case .word(let word):
        if words[w] == word { result.offer(read(p + 1, w + 1), patternCount: pattern.count) }
        if optionalWords.contains(word) { result.offer(read(p + 1, w), patternCount: pattern.count) }
      case .slot(let name):
        guard let parameter else { return result }
        for slot in slotValues(
          parameter, name: name, from: w, words, original: original, written: written, spec: spec,
          interpreter: interpreter, terms: terms, leading: leadingName && p == 0)
        {
          result.offer(
            read(p + 1, slot.end).after(
              slot: name, value: slot.value, little: slot.little, terms: slot.terms, typed: !textSlot),
            patternCount: pattern.count)
        }
      }
      return result
    }
    let result = read(0, 0)
    steps += count
    return result
  }

  /// The values a slot of `parameter` may take from word `w` on: where each ends, the value, whether its words are
  /// all little words (only a text slot's may be), and how many of the app's terms it holds (`readings`).
  /// - Parameter leading: the slot is the named thing said as the verb (`SystemPhrases.mayName`).
  private static func slotValues(
    _ parameter: ParameterSpec, name: String, from w: Int, _ words: [String], original: [String],
    written: (Range<Int>) -> String, spec: IntentSpec, interpreter: ValueInterpreter, terms: UserVocabulary?,
    leading: Bool
  ) -> [(end: Int, value: ParameterValue, little: Bool, terms: Int)] {
    let textSlot = takesText(parameter)
    let types = terms == nil ? [] : UserVocabulary.types(of: parameter, intentClass: spec.className)
    let reach = max(8, terms?.longestTerm(of: types) ?? 0)
    var result: [(end: Int, value: ParameterValue, little: Bool, terms: Int)] = []
    for end in (w + 1)...min(words.count, w + reach) {
      let text = textSlot ? written(w..<end) : original[w..<end].joined(separator: " ")
      guard let parsed = interpreter.parse(text, for: parameter) else { continue }
      let little = words[w..<end].allSatisfy(optionalWords.contains)
      // "start a workout" is not a workout called "a": only a text slot may hold only little words, and then
      // only when no whole phrase matches without them (`bestMatches`).
      if little, !textSlot { continue }
      let (value, found) = terms?.spelled(parsed, types: types) ?? (parsed, 0)
      // "Start an outdoor workout" names no workout, and "a boulder climb workout" names "boulder climb": a
      // system intent's generic noun is no name, nor its last word, and a number starts no name
      // (`SystemPhrases.mayName`), unless the words are one of the app's terms ("Tempo Run Workout").
      if found == 0, !SystemPhrases.mayName(words[w..<end], parameter: name, of: spec.className, leading: leading) {
        // A name said as the verb ("walk 500 miles") is one word, unless the app's vocabulary has it ("wall climb
        // for 30 minutes").
        let vocabularyName =
          leading && SystemPhrases.mayName(words[w..<end], parameter: name, of: spec.className)
          && interpreter.spokenValue(text, for: parameter, words: Array(words[w..<end])) != nil
        if !vocabularyName { continue }
      }
      // Past eight words, only a term.
      if end - w > 8, found == 0 { continue }
      result.append((end, value, little, found))
    }
    return result
  }

  /// Every way `pattern` (or a prefix of it) consumes all of `words`, walked one by one without memoization, as the
  /// matcher read phrases before `readings`: kept as the control of the tests that count work (its steps grow with
  /// the number of ways), and to check that `readings` finds the same best readings.
  static func everyReading(
    _ pattern: [Token], _ words: [String], original: [String], written: (Range<Int>) -> String, spec: IntentSpec,
    interpreter: ValueInterpreter, terms: UserVocabulary?, leadingName: Bool, steps: inout Int
  ) -> [Reading] {
    var results: [Reading] = []
    var count = 0
    func walk(_ p: Int, _ w: Int, _ reading: Reading) {
      count += 1
      if w == words.count {
        if p > 0, !leadingName || p == pattern.count {
          var done = reading
          done.consumedPattern = p
          results.append(done)
        }
        return
      }
      let parameter: ParameterSpec? =
        if p < pattern.count, case .slot(let name) = pattern[p] { spec.parameter(named: name) } else { nil }
      let textSlot = parameter.map(takesText) ?? false
      if optionalWords.contains(words[w]), !textSlot { walk(p, w + 1, reading) }
      guard p < pattern.count else { return }
      switch pattern[p] {
      case .word(let word):
        if words[w] == word { walk(p + 1, w + 1, reading) }
        if optionalWords.contains(word) { walk(p + 1, w, reading) }
      case .slot(let name):
        guard let parameter else { return }
        for slot in slotValues(
          parameter, name: name, from: w, words, original: original, written: written, spec: spec,
          interpreter: interpreter, terms: terms, leading: leadingName && p == 0)
        {
          var next = reading
          next.values[name] = slot.value
          next.onlyLittleWords = next.onlyLittleWords || slot.little
          next.terms += slot.terms
          next.typed += textSlot ? 0 : 1
          next.filled += 1
          walk(p + 1, slot.end, next)
        }
      }
    }
    walk(0, 0, Reading(consumedPattern: 0))
    steps += count
    return results
  }

  /// An app's phrases as the matcher reads them, each read once per matcher: for each phrase, its words and slots
  /// (an example's `exampleTokens`, a title's `${...}`), the intent's spec and its `ValueInterpreter` (whose
  /// `SpokenIndex` is then built once per parameter); nil for a phrase whose intent the app cannot run.
  final class Readers: Sendable {
    struct Reader: Sendable {
      var pattern: [Token]
      var spec: IntentSpec
      var interpreter: ValueInterpreter
      /// The phrase is one of Siri's (`SystemPhrases`) and starts with a slot: the intent's named thing said as the
      /// verb, "walk 500 miles" (`readings`).
      var leadingName = false
    }

    private let table = Mutex<[String: [(phrase: Phrase, reader: Reader?)]]>([:])
    private let counted = Mutex(0)

    /// How many apps' phrases were read (for tests that count work).
    var reads: Int { counted.withLock { $0 } }

    func phrases(of app: AppBundle, matcher: UtteranceMatcher) -> [(phrase: Phrase, reader: Reader?)] {
      let key = app.url.path
      if let known = table.withLock({ $0[key] }) { return known }
      let read = Self.read(app, matcher: matcher)
      counted.withLock { $0 += 1 }
      return table.withLock { table in
        if let known = table[key] { return known }
        table[key] = read
        return read
      }
    }

    private static func read(_ app: AppBundle, matcher: UtteranceMatcher) -> [(phrase: Phrase, reader: Reader?)] {
      let appNames = matcher.names(of: app)
      let translated = matcher.locale.map { app.localized(for: $0) }
      // One interpreter per intent and definition (the app's, or the translated one), shared by its phrases.
      var interpreters: [String: ValueInterpreter] = [:]
      return UtteranceMatcher.phrases(of: app, locale: matcher.locale).map { phrase in
        // A translated title is read with the translated definition; the match is of the app as installed.
        let definer = phrase.locale != nil ? (translated ?? app) : app
        guard let (spec, definition) = definer.runnableSpec(className: phrase.intentClass) else { return (phrase, nil) }
        let key = "\(phrase.locale != nil)\u{0}\(phrase.intentClass)"
        let interpreter =
          interpreters[key]
          ?? ValueInterpreter(intentClass: phrase.intentClass, definition: definition, vocabularies: app.vocabularies)
        interpreters[key] = interpreter
        let pattern =
          phrase.source == .example
          ? UtteranceMatcher.exampleTokens(phrase.text, appNames: appNames, spec: spec, interpreter: interpreter)
          : UtteranceMatcher.tokens(phrase.text)
        // A title longer than `maximumTitleTokens` is no phrase (examples are bounded where they are read).
        if phrase.source != .example && pattern.count > UtteranceMatcher.maximumTitleTokens { return (phrase, nil) }
        let leadingName: Bool =
          if phrase.source == .system, case .slot = pattern.first { true } else { false }
        return (phrase, Reader(pattern: pattern, spec: spec, interpreter: interpreter, leadingName: leadingName))
      }
    }
  }

  /// How many apps' phrases this matcher has read (`Readers`; for tests that count work).
  var phraseReads: Int { readers.reads }
}
