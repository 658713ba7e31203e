import BundleManifest
import ExtensionProtocol
import Foundation

/// What apps answer to: their phrases for `assistant phrases` and "What can you do?", and the lint of their phrases
/// (`assistant phrases --check`, `validate`'s `intent-phrase-unreachable` and `intent-phrase-claimed-twice` rules, and
/// the `phrase-reads-text` note).
package enum PhraseBook {
  /// One app's phrases, for printing.
  package struct Entry: Encodable, Sendable {
    package var name: String
    package var bundleIdentifier: String
    package var phrases: [Line]
  }

  package struct Line: Encodable, Sendable {
    package var intent: String
    package var phrase: String
    package var source: UtteranceMatcher.PhraseSource
  }

  /// The phrases of `apps`, examples first within each app; under `locale`, the titles translated for it too
  /// (`UtteranceMatcher.phrases(of:locale:)`); of Siri's phrases for a system intent, one of each shape
  /// (`SystemPhrases.shown`). A title without slots that, said as written ("Stock Item with Pantry"), reaches its
  /// intent with a text value read from its own words (item "Item", `readText`) is left out: it does not do what it
  /// looks like, and the title that reads it is listed (`phrase-reads-text` notes it).
  package static func entries(_ apps: [AppBundle], locale: String? = nil) -> [Entry] {
    apps.map { app in
      let matcher = UtteranceMatcher(apps: [app], locale: locale)
      let phrases = UtteranceMatcher.phrases(of: app, locale: locale).filter {
        ($0.source != .system || SystemPhrases.isShown($0.text, of: $0.intentClass))
          && !($0.source == .title && titleReadsText($0, app: app, matcher: matcher))
      }
      let ordered = phrases.filter { $0.source == .example } + phrases.filter { $0.source != .example }
      return Entry(
        name: app.name, bundleIdentifier: app.identifier.rawValue,
        phrases: appShortcutLines(of: app)
          + ordered.map { Line(intent: $0.intentClass, phrase: $0.text, source: $0.source) })
    }
  }

  /// The App Shortcut phrases of `app`'s `Metadata.appintents`, in order, each with the app's name where
  /// `${applicationName}` is (a parameter slot stays `${name}`).
  static func appShortcutLines(of app: AppBundle) -> [Line] {
    app.allAppIntentsMetadata.compactMap(\.readDocument).flatMap { document in
      document.autoShortcuts.flatMap { shortcut in
        shortcut.phrases.map { phrase in
          let text = phrase.segments.map { segment in
            switch segment {
            case .text(let words): return words
            case .applicationName: return app.name
            case .parameter(let name): return "${\(name)}"
            }
          }.joined()
          return Line(intent: shortcut.actionIdentifier.rawValue, phrase: text, source: .appShortcut)
        }
      }
    }
  }

  /// Whether `utterance` asks what the assistant can do: "What can you do?", "What can I say?", "What can I do?",
  /// "Help"; or what one app can do: "What can I say to Rooms?", "What can you do with Rooms?", "What can Rooms do
  /// (for me)?", "Rooms, what can you do?", "ask Rooms what it can do". Returns the app's name as written, from its
  /// first word to its last (so a bundle id stays whole: "com.example.rooms"), nil for all apps; or nothing. A wake
  /// phrase before the question is no part of it ("Hey Siri, what can you do?", `WakePhrase`).
  package static func capabilityQuestion(_ utterance: String) -> String?? {
    let utterance = WakePhrase.removed(from: utterance)
    let spoken = spokenWordRanges(utterance)
    let words = spoken.map { $0.word.lowercased() }
    func said(_ span: Range<Int>) -> String {
      String(utterance[spoken[span.lowerBound].range.lowerBound..<spoken[span.upperBound - 1].range.upperBound])
    }
    let everyApp: [[String]] = [
      ["what", "can", "you", "do"], ["what", "can", "i", "say"], ["help"], ["what", "can", "i", "ask"],
      // Not "What can APP do?" with APP "I" or "you".
      ["what", "can", "i", "do"], ["what", "can", "i", "do", "here"], ["what", "can", "you", "do", "for", "me"],
    ]
    if everyApp.contains(words) { return .some(nil) }
    // "What can I say to APP?", "What can you do with APP?"
    let before: [[String]] = [
      ["what", "can", "i", "say", "to"], ["what", "can", "i", "ask"], ["what", "can", "i", "do", "with"],
      ["what", "can", "you", "do", "with"], ["what", "can", "i", "do", "in"], ["what", "can", "you", "do", "in"],
      ["what", "can", "i", "say", "in"],
    ]
    for prefix in before where words.count > prefix.count && Array(words.prefix(prefix.count)) == prefix {
      return .some(said(prefix.count..<words.count))
    }
    // "APP, what can you do?", "ask APP what it can do"
    let after: [[String]] = [
      ["what", "can", "you", "do"], ["what", "can", "you", "do", "for", "me"], ["what", "can", "i", "say"],
      ["what", "can", "i", "ask"], ["what", "can", "i", "ask", "you"], ["what", "it", "can", "do"],
      ["what", "can", "it", "do"], ["what", "you", "can", "do"],
    ]
    for suffix in after where words.count > suffix.count && Array(words.suffix(suffix.count)) == suffix {
      let start = words.first == "ask" ? 1 : 0
      let end = words.count - suffix.count
      // A name of at most five words with no comma in it: "Messages, tell Bob what you can do" is a request.
      guard start < end, end - start <= 5, words[start] != "what", !said(start..<end).contains(",") else { continue }
      return .some(said(start..<end))
    }
    // "What can APP do?", "What can APP do for me?"
    for tail in [["do"], ["do", "for", "me"], ["do", "for", "you"]]
    where words.count > 2 + tail.count && words.prefix(2) == ["what", "can"] && Array(words.suffix(tail.count)) == tail
    {
      return .some(said(2..<(words.count - tail.count)))
    }
    return nil
  }

  /// How many phrases `check` says: the examples, and the combination titles it can fill with example values.
  package static func checkedPhraseCount(_ app: AppBundle) -> Int {
    UtteranceMatcher.phrases(of: app).filter { phrase in
      phrase.source == .example
        || (phrase.source == .title && exampleUtterance(phrase.text, intentClass: phrase.intentClass, app: app) != nil)
    }.count + appShortcutUtterances(of: app).count
  }

  /// Each App Shortcut phrase of `app` said as a user would: the app's name in its slot, a parameter's slot filled
  /// with its AppEnum's first case (an AppEntity's with the words "something"); with the file and key path it is
  /// written at, and its intent.
  static func appShortcutUtterances(of app: AppBundle) -> [(
    said: String, action: String, file: String, keyPath: String
  )] {
    var result: [(said: String, action: String, file: String, keyPath: String)] = []
    for folder in app.allAppIntentsMetadata {
      guard let document = folder.readDocument else { continue }
      for (index, shortcut) in document.autoShortcuts.enumerated() {
        let action = document.actions[shortcut.actionIdentifier]
        for (phraseIndex, phrase) in shortcut.phrases.enumerated() {
          let said = phrase.segments.map { segment -> String in
            switch segment {
            case .text(let words): return words
            case .applicationName: return app.name
            case .parameter(let name):
              if case .enumeration(let identifier)? = action?.parameter(name)?.valueType,
                let first = document.enumeration(identifier)?.cases.first
              {
                return first.title?.key ?? first.identifier.rawValue
              }
              return "something"
            }
          }.joined()
          result.append(
            (
              said, shortcut.actionIdentifier.rawValue, folder.actionsDataFile,
              "autoShortcuts[\(index)].phraseTemplates[\(phraseIndex)]"
            ))
        }
      }
    }
    return result
  }

  /// The lint: every `IntentPhrases` example (said as written) and every combination title and intent title of `app`
  /// (said filled with example values, "with APP" added) reaches its own intent with the values it names (each number
  /// in it), every App Shortcut phrase (`appShortcutUtterances`) reaches its own App Intent, and no phrase is claimed
  /// by two intents. Siri's phrases for system intents are not checked. One error
  /// per failing phrase; a note (`phrase-reads-text`) for a phrase that reaches its intent with a text value read
  /// from its own words it likely does not mean: a title without slots, or an example whose value looks like none
  /// (`looksLikeNoValue`).
  ///
  /// Examples past the matcher's limits are no phrases (`UtteranceMatcher.maximumExampleWords`, `maximumExamples`):
  /// one error for each too long, one for all those past the count.
  package static func check(_ app: AppBundle) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let matcher = UtteranceMatcher(apps: [app])
    let name = app.name
    func file(of example: (intentClass: String, text: String)) -> String {
      app.vocabularies.first { $0.intentPhrases[example.intentClass]?.contains(example.text) == true }?.file ?? ""
    }
    let examples = UtteranceMatcher.sortedExamples(of: app)
    for example in examples.tooLong {
      let words = example.text.split(whereSeparator: \.isWhitespace)
      diagnostics.append(
        Diagnostic(
          .error, .intentPhraseTooLong, file: file(of: example), keyPath: "IntentPhrases.\(example.intentClass)",
          "\"\(words.prefix(8).joined(separator: " "))…\" has more than \(UtteranceMatcher.maximumExampleWords) words "
            + "and is not a phrase",
          fix: "say it in \(UtteranceMatcher.maximumExampleWords) words or fewer"))
    }
    if let first = examples.beyond.first {
      diagnostics.append(
        Diagnostic(
          .error, .intentPhrasesTooMany, file: file(of: first), keyPath: "IntentPhrases.\(first.intentClass)",
          "\(examples.read.count + examples.beyond.count) examples; only the first \(UtteranceMatcher.maximumExamples) "
            + "are phrases, from \"\(first.text.split(whereSeparator: \.isWhitespace).prefix(8).joined(separator: " "))\" on "
            + "\(examples.beyond.count) are not",
          fix: "keep the \(UtteranceMatcher.maximumExamples) that say the most"))
    }
    for phrase in UtteranceMatcher.phrases(of: app) where phrase.source != .system {
      let file =
        phrase.source == .example
        ? (app.vocabularies.first { $0.intentPhrases[phrase.intentClass]?.contains(phrase.text) == true }?.file ?? "")
        : (app.allDefinitions.first { $0.intents.contains { $0.className == phrase.intentClass } }?.file ?? "")
      // A title is said the way a user would: its slots filled with an example value, and the app named.
      let said: String
      if phrase.source == .title {
        guard let filled = exampleUtterance(phrase.text, intentClass: phrase.intentClass, app: app) else { continue }
        said = "\(filled) with \(name)"
      } else {
        said = phrase.text
      }
      let keyPath = phrase.source == .example ? "IntentPhrases.\(phrase.intentClass)" : phrase.intentClass
      do {
        let found = try matcher.understand(said)
        if found.count > 1 {
          diagnostics.append(
            Diagnostic(
              .error, .intentPhraseClaimedTwice, file: file, keyPath: keyPath,
              "\"\(said)\" is claimed by " + found.map(\.intentClass).joined(separator: " and "),
              fix: "reword it so that only \(phrase.intentClass) matches it"))
        } else if found[0].intentClass != phrase.intentClass {
          diagnostics.append(
            Diagnostic(
              .error, .intentPhraseUnreachable, file: file, keyPath: keyPath,
              "\"\(said)\" reaches \(found[0].intentClass), not \(phrase.intentClass)",
              fix: "reword it, or list it under \(found[0].intentClass)"))
        } else if let lost = lostValue(phrase, said: said, found: found[0]) {
          diagnostics.append(
            Diagnostic(
              .error, .intentPhraseUnreachable, file: file, keyPath: keyPath,
              "\"\(said)\" reaches \(phrase.intentClass) but loses the value \(lost)",
              fix: "use a combination title with a slot for it"))
        } else if let read = readText(phrase, found: found[0], app: app),
          phrase.source == .title || looksLikeNoValue(read.value, parameter: read.parameter, app: app, of: phrase)
        {
          diagnostics.append(
            readsTextNote(phrase, said: said, read: read, found: found[0], matcher: matcher, file: file))
        }
      } catch let error as UnderstandingError {
        diagnostics.append(
          Diagnostic(
            .error, .intentPhraseUnreachable, file: file, keyPath: keyPath,
            "\"\(said)\" does not reach \(phrase.intentClass): \(error.message)",
            fix: "name the app (\"... with \(name)\") and use words of one of its combination titles"))
      } catch {
        diagnostics.append(Diagnostic(.error, .intentPhraseUnreachable, file: file, keyPath: keyPath, "\(error)"))
      }
    }
    // App Shortcut phrases: each, said, reaches its own intent and no other.
    let shortcuts = AppShortcutMatcher(apps: [app])
    for utterance in appShortcutUtterances(of: app) {
      let found = shortcuts.matches(utterance.said).map(\.identifier)
      if found.count > 1 {
        diagnostics.append(
          Diagnostic(
            .error, .intentPhraseClaimedTwice, file: utterance.file, keyPath: utterance.keyPath,
            "\"\(utterance.said)\" is claimed by " + found.joined(separator: " and "),
            fix: "reword it so that only \(utterance.action) matches it"))
      } else if found.first != utterance.action {
        diagnostics.append(
          Diagnostic(
            .error, .intentPhraseUnreachable, file: utterance.file, keyPath: utterance.keyPath,
            "\"\(utterance.said)\" "
              + (found.first.map { "reaches \($0), not \(utterance.action)" } ?? "reaches nothing"),
            fix: "reword it (docs/VALIDATION.md lists the rules of App Shortcut phrases)"))
      }
    }
    return diagnostics
  }

  /// The `phrase-reads-text` note: `said` reaches its intent with a text value taken from its own words (`readText`).
  /// The fix offers the phrase without the value's words when that reaches the intent without the value.
  private static func readsTextNote(
    _ phrase: UtteranceMatcher.Phrase, said: String, read: (parameter: String, value: String),
    found: UtteranceMatcher.Match, matcher: UtteranceMatcher, file: String
  ) -> Diagnostic {
    let what = phrase.source == .example ? "the example" : "the title"
    let by = found.phrase == phrase.text ? "" : " (the phrase `\(found.phrase)` reads it)"
    // The phrase without the value's words, and without a preposition before them ("Book room 12 with Rooms"), or
    // else with it: the first that reaches the intent without the value. One the matcher does not understand is none.
    var instead = ""
    if let range = said.range(of: read.value, options: .caseInsensitive) {
      var before = said[..<range.lowerBound].split(whereSeparator: \.isWhitespace)
      let after = said[range.upperBound...].split(whereSeparator: \.isWhitespace)
      var candidates = [(before + after).joined(separator: " ")]
      if let last = before.last, ["for", "to", "in", "on", "at", "with", "of"].contains(last.lowercased()) {
        before.removeLast()
        candidates.insert((before + after).joined(separator: " "), at: 0)
      }
      if let shorter = candidates.first(where: { candidate in
        guard let match = try? matcher.understand(candidate) else { return false }
        return match.count == 1 && match[0].intentClass == phrase.intentClass && match[0].values[read.parameter] == nil
      }) {
        // A title is written without the app's name ("Stock"), an example as said ("Stock with Pantry").
        let ending = " with \(found.app.name)"
        let written =
          phrase.source == .title && shorter.hasSuffix(ending) ? String(shorter.dropLast(ending.count)) : shorter
        instead = ", e.g. \"\(written)\""
      }
    }
    return Diagnostic(
      .note, .phraseReadsText, file: file,
      keyPath: phrase.source == .example ? "IntentPhrases.\(phrase.intentClass)" : phrase.intentClass,
      "\"\(said)\" (\(what)) reaches \(phrase.intentClass) with \(read.parameter) = \"\(read.value)\", read from its own "
        + "words\(by)",
      fix: "if it means to leave \(read.parameter) to be asked, word "
        + (phrase.source == .example ? "the example" : "the title")
        + " so that no phrase reads it whole\(instead); if it means the value, nothing to do")
  }

  /// The first text value (a `String`-like or `Object` parameter's, in the definition's order) that `found` took from
  /// the words of `phrase` itself: the value of a parameter that is no slot of the phrase (a title's `${parameter}`, an
  /// example's spoken values and numbers, `UtteranceMatcher.template(ofExample:intentClass:in:)`). An example said as
  /// written takes such values from a fuller title (`UtteranceMatcher.examplesTakeFullerValues`), an intent title
  /// without slots from a combination title that begins with its words ("Stock Item" is `Stock ${item}` with item
  /// "Item"). Nil when it took none.
  static func readText(_ phrase: UtteranceMatcher.Phrase, found: UtteranceMatcher.Match, app: AppBundle) -> (
    parameter: String, value: String
  )? {
    guard let (spec, _) = app.runnableSpec(className: phrase.intentClass) else { return nil }
    let template =
      phrase.source == .example
      ? UtteranceMatcher.template(ofExample: phrase.text, intentClass: phrase.intentClass, in: app) ?? ""
      : phrase.text
    let slots = Set(renderTemplate(template) { _ in nil }.missing)
    for parameter in spec.parameters where !slots.contains(parameter.name) {
      switch found.values[parameter.name] {
      case .string(let text)?: return (parameter.name, text)
      case .object(let object)?: return (parameter.name, object.displayString)
      default: continue
      }
    }
    return nil
  }

  /// The words an example's text value begins with when it is likely no value the example means to give: articles,
  /// possessives, demonstratives and placeholders ("the pantry", "a note", "my usual", "it", "something").
  static let noValueWords: Set<String> = [
    "a", "an", "the", "my", "your", "our", "his", "her", "their", "its", "this", "that", "these", "those", "some",
    "any", "it", "them", "something", "anything", "stuff", "things",
  ]

  /// Whether `value`, a text value an example takes from its own words (`readText`), looks like none the example
  /// means to give: it begins with one of `noValueWords`, or it is the parameter's own name or display name (an "s"
  /// at the end aside: "items"). "Ada", "Work" and "buy milk" look like values, and are not noted.
  package static func looksLikeNoValue(
    _ value: String, parameter name: String, app: AppBundle, of phrase: UtteranceMatcher.Phrase
  ) -> Bool {
    let words = normalizedWords(value)
    guard let first = words.first else { return false }
    if noValueWords.contains(first) { return true }
    guard let parameter = app.runnableSpec(className: phrase.intentClass)?.0.parameter(named: name) else {
      return false
    }
    func singular(_ words: [String]) -> [String] {
      words.map { $0.count > 2 && $0.hasSuffix("s") ? String($0.dropLast()) : $0 }
    }
    return [parameter.label, ParameterSpec.words(of: parameter.name)].contains {
      singular(normalizedWords($0)) == singular(words)
    }
  }

  /// Whether `title`, a title without slots, said as written with "with APP" reaches its own intent with a text value
  /// read from its own words (`readText`). False for a title with slots, and for one that reaches no intent or
  /// another (`check` says so).
  static func titleReadsText(_ title: UtteranceMatcher.Phrase, app: AppBundle, matcher: UtteranceMatcher) -> Bool {
    guard !title.text.contains("${"),
      // A title the matcher does not understand is listed; the lint says why.
      let found = try? matcher.understand("\(title.text) with \(app.name)"), found.count == 1,
      found[0].intentClass == title.intentClass
    else { return false }
    return readText(title, found: found[0], app: app) != nil
  }

  /// What `found` lost of what `said` (`phrase` said as the lint says it) names: for an example, the first number in
  /// it (the word, as said) that none of the match's values carries; for a title, the first slot without a value (its
  /// example value may be several numbers, "30 minutes", or none, "2026-11-21T09:30:00Z").
  ///
  /// A value carries the numbers of its words as the run gives them back (`ValueInterpreter.words(for:)`): 14 for
  /// `.integer(14)`, and 5 for the text "5 dollars" of a payment's amount, which the run sends as said; so the lint
  /// reads a value as the run does, and warns only about a number the run would not send.
  private static func lostValue(_ phrase: UtteranceMatcher.Phrase, said: String, found: UtteranceMatcher.Match)
    -> String?
  {
    if phrase.source == .title {
      return renderTemplate(phrase.text) { _ in nil }.missing.first { found.values[$0] == nil }.map { "of ${\($0)}" }
    }
    let interpreter = ValueInterpreter(
      intentClass: found.intentClass, definition: found.app.runnableSpec(className: found.intentClass)?.definition,
      vocabularies: found.app.vocabularies)
    let kept = Set(
      found.values.values.flatMap { normalizedWords(interpreter.words(for: $0)).compactMap(parseDecimal) })
    return normalizedWords(said).first { word in parseDecimal(word).map { !kept.contains($0) } ?? false }
  }

  /// A combination title with each slot filled with a value its parameter takes (a number, a case other than
  /// `unknown`, a name), or nil when a slot's type has no example value.
  static func exampleUtterance(_ title: String, intentClass: String, app: AppBundle) -> String? {
    guard let (spec, definition) = app.runnableSpec(className: intentClass) else { return nil }
    var failed = false
    let text = renderTemplate(title) { name in
      guard let parameter = spec.parameter(named: name) else {
        failed = true
        return nil
      }
      // Xcode gives every enum an `unknown` case (index 0), which stands for no value: the first real one.
      if let enumName = parameter.enumType,
        let value = EnumSpec.named(enumName, in: definition)?.values.first(where: { $0.name != "unknown" })
      {
        return value.displayName ?? value.name
      }
      switch parameter.type {
      case .integer: return "12"
      case .decimal, .double, .currency: return "2.5"
      case .boolean: return parameter.trueDisplayName ?? "yes"
      case .date, .dateComponents: return "2026-11-21T09:30:00Z"
      case .duration: return "30 minutes"
      default: return "Ada"
      }
    }
    return failed ? nil : text.text
  }
}
