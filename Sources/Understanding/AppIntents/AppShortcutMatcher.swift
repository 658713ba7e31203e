import AppIntentsMetadata
import BundleManifest
import ExtensionProtocol
import Foundation

/// An installed app's App Intent, as the user named it: the app, where the intent is declared (the app, or one of its
/// App Intents extensions), the intent's action in the metadata, and the values said so far.
package struct AppIntentInvocation: Sendable {
  package var app: AppBundle
  /// The `Metadata.appintents` that declares the intent; its `bundleURL` is where the intent runs.
  package var metadata: AppIntentsMetadataFolder
  /// The intent's action in the metadata (`actions[identifier]`).
  package var action: MetadataDocument.Action
  /// The values of its parameters given so far, by parameter name.
  package var values: [String: ParameterValue]
  /// Words said for an AppEntity parameter, read with its query (`entity/query` `string`) before perform.
  package var entityWords: [String: String] = [:]
  /// The App Shortcut phrase that named it, as written (`${applicationName}` and all); nil for `run`.
  package var phrase: String? = nil
  /// The parameters a shortcut of the user asks for each time it runs (`assistant shortcuts add --ask`): asked before
  /// perform even when optional or with a default.
  package var askedEachTime: [String] = []

  package init(
    app: AppBundle, metadata: AppIntentsMetadataFolder, action: MetadataDocument.Action,
    values: [String: ParameterValue]
  ) {
    self.app = app
    self.metadata = metadata
    self.action = action
    self.values = values
  }

  /// The intent's type name ("OrderFuelIntent").
  package var identifier: String { action.identifier.rawValue }
  /// The metadata document (read, or the invocation could not exist).
  package var document: MetadataDocument { metadata.readDocument ?? MetadataDocument() }
}

/// The App Shortcut phrases of the installed apps, matched against an utterance as Siri matches them: the whole
/// utterance, word for word (case, punctuation and the little words "a", "an", "the" aside), with
/// `${applicationName}` any name the app has (`AppBundle.names`) and a parameter slot filled by a case of its
/// `AppEnum` (its title or a synonym) or, for an `AppEntity`, by one or more words the entity's query reads before
/// perform. A phrase with a slot that is neither, or with more than one slot (which `validate` reports), never
/// matches.
///
/// ```swift
/// let found = AppShortcutMatcher(apps: apps).matches("Fuel my car at the office with FuelOrder")
/// found.first?.identifier          // "OrderFuelIntent"
/// found.first?.values["location"]  // .enumCase("work"), by the synonym "office"
/// ```
package struct AppShortcutMatcher: Sendable {
  package let apps: [AppBundle]
  /// The user's language: a phrase's translation in the bundle's `LANG.lproj/AppShortcuts.strings` for it is said too
  /// ("de_DE" reads `de.lproj`).
  package let locale: String?

  /// How many words an utterance may have to be matched: 64, as `UtteranceMatcher`'s.
  package static let maximumWords = UtteranceMatcher.maximumUtteranceWords
  /// Words a phrase and an utterance may each leave out.
  package static let optionalWords: Set<String> = ["a", "an", "the"]

  package init(apps: [AppBundle], locale: String? = nil) {
    self.apps = apps
    self.locale = locale
  }

  /// The phrase `key` as it may be said: as written, then its translations for `locale`'s language.
  func said(_ key: String, in folder: AppIntentsMetadataFolder) -> [String] {
    guard let language = locale.map(Self.language) else { return [key] }
    let translations = folder.shortcutsStrings.filter { $0.language.map(Self.language) == language }
      .compactMap { $0.strings[key] }
    return [key] + translations.filter { $0 != key }
  }

  /// The App Intents `utterance` names, best first (a phrase with a slot filled by an AppEnum case before one whose
  /// slot reads free words), each app and intent once; empty when no phrase matches.
  package func matches(_ utterance: String) -> [AppIntentInvocation] {
    let words = Self.words(WakePhrase.removed(from: utterance))
    guard !words.isEmpty, words.count <= Self.maximumWords else { return [] }
    var found: [(invocation: AppIntentInvocation, rank: Int)] = []
    for app in apps {
      let names = app.names.map(Self.words).filter { !$0.isEmpty }
      // A negative phrase said whole bypasses the app's App Shortcuts (Apple: "phrases that will completely bypass
      // your app"); negative phrases win over the app's own.
      if isNegative(words, of: app, names: names) { continue }
      for folder in app.allAppIntentsMetadata {
        guard let document = folder.readDocument else { continue }
        for shortcut in document.autoShortcuts {
          guard let action = document.actions[shortcut.actionIdentifier] else { continue }
          if found.contains(where: { $0.invocation.app.url == app.url && $0.invocation.action == action }) {
            continue
          }
          for template in shortcut.phraseTemplates.flatMap({ said($0.key, in: folder) }) {
            let phrase = PhraseTemplate(parsing: template)
            guard let tokens = Self.tokens(of: phrase, action: action, document: document, names: names),
              let reading = Self.read(words, tokens[...])
            else { continue }
            var invocation = AppIntentInvocation(app: app, metadata: folder, action: action, values: [:])
            invocation.phrase = template
            var rank = 2
            for (name, slot) in reading {
              switch slot {
              case .enumCase(let identifier): invocation.values[name] = .enumCase(identifier)
              case .words(let said):
                invocation.entityWords[name] = said
                rank = 1
              }
            }
            found.append((invocation, rank))
            break
          }
        }
      }
    }
    return found.enumerated().sorted { ($0.element.rank, -$0.offset) > ($1.element.rank, -$1.offset) }
      .map(\.element.invocation)
  }

  /// Whether `words` are one of `app`'s negative phrases (`negativePhrases`, iOS 17's `NegativeAppShortcutPhrases`)
  /// said whole, in any of its `Metadata.appintents`: words as written and `${applicationName}` any of `names`; a
  /// phrase with a parameter slot is never one (Apple's are plain phrases).
  func isNegative(_ words: [String], of app: AppBundle, names: [[String]]) -> Bool {
    for folder in app.allAppIntentsMetadata {
      guard let document = folder.readDocument else { continue }
      for negative in document.negativePhrases {
        for template in said(negative.key, in: folder) {
          let tokens = PhraseTemplate(parsing: template).segments.map { segment -> [Token]? in
            switch segment {
            case .text(let text): Self.words(text).map(Token.word)
            case .applicationName: [.name(names)]
            case .parameter: nil
            }
          }
          guard !tokens.contains(where: { $0 == nil }) else { continue }
          let plain = tokens.flatMap { $0 ?? [] }
          if !plain.isEmpty, plain.count <= 2 * Self.maximumWords, Self.read(words, plain[...]) != nil {
            return true
          }
        }
      }
    }
    return false
  }

  /// One token of a phrase.
  enum Token {
    /// One word, as said.
    case word(String)
    /// One of these word sequences (the app's names).
    case name([[String]])
    /// An AppEnum parameter: one of these word sequences, each the case it names.
    case enumCase(parameter: String, [(words: [String], identifier: String)])
    /// An AppEntity parameter: one or more words.
    case entity(parameter: String)
  }

  /// What a slot took.
  enum Slot {
    case enumCase(String)
    case words(String)
  }

  /// `text` as the matcher compares it: its words (`normalizedWords`) without the optional ones.
  package static func words(_ text: String) -> [String] {
    normalizedWords(text).filter { !optionalWords.contains($0) }
  }

  /// Every way a case of `enumeration` is said (its identifier, its title, its synonyms, with their alternatives),
  /// as words, each with the case it names.
  package static func spoken(_ enumeration: MetadataDocument.Enumeration) -> [(words: [String], identifier: String)] {
    var result: [(words: [String], identifier: String)] = []
    for enumCase in enumeration.cases {
      let title: [String] = enumCase.title.map { [$0.key] + $0.alternatives } ?? []
      let synonyms: [String] = enumCase.synonyms.flatMap { [$0.key] + $0.alternatives }
      for text in [enumCase.identifier.rawValue] + title + synonyms {
        let said = words(text)
        if !said.isEmpty { result.append((said, enumCase.identifier.rawValue)) }
      }
    }
    return result
  }

  /// The language of a locale or table ("de_DE", "de-DE", "de": "de").
  static func language(_ locale: String) -> String {
    String(locale.split(whereSeparator: { $0 == "_" || $0 == "-" }).first ?? "")
  }

  /// The tokens of `phrase`; nil when a slot names a parameter the intent does not have, or one that is neither an
  /// AppEnum nor an AppEntity.
  static func tokens(
    of phrase: PhraseTemplate, action: MetadataDocument.Action, document: MetadataDocument, names: [[String]]
  ) -> [Token]? {
    // Apple's rule (`validate` refuses the rest at install): at most one parameter, so that a reading costs at most
    // the utterance's words squared, whatever an installed file was changed to.
    let slots = phrase.segments.filter { if case .parameter = $0 { true } else { false } }.count
    guard slots <= 1, phrase.segments.count <= 2 * maximumWords else { return nil }
    var tokens: [Token] = []
    for segment in phrase.segments {
      switch segment {
      case .text(let text):
        tokens += words(text).map(Token.word)
      case .applicationName:
        tokens.append(.name(names))
      case .parameter(let name):
        guard let parameter = action.parameter(name) else { return nil }
        switch parameter.valueType {
        case .enumeration(let identifier):
          guard let enumeration = document.enumeration(identifier) else { return nil }
          tokens.append(.enumCase(parameter: name, spoken(enumeration)))
        case .entity:
          tokens.append(.entity(parameter: name))
        default:
          return nil
        }
      }
    }
    return tokens.isEmpty ? nil : tokens
  }

  /// The slots of the first reading of all of `words` by all of `tokens`, or nil.
  static func read(_ words: [String], _ tokens: ArraySlice<Token>) -> [(String, Slot)]? {
    read(words[...], tokens)
  }

  private static func read(_ words: ArraySlice<String>, _ tokens: ArraySlice<Token>) -> [(String, Slot)]? {
    guard let token = tokens.first else { return words.isEmpty ? [] : nil }
    let rest = tokens.dropFirst()
    switch token {
    case .word(let word):
      guard words.first == word else { return nil }
      return read(words.dropFirst(), rest)
    case .name(let names):
      for name in names where words.starts(with: name) {
        if let reading = read(words.dropFirst(name.count), rest) { return reading }
      }
      return nil
    case .enumCase(let parameter, let spoken):
      for (said, identifier) in spoken.sorted(by: { $0.words.count > $1.words.count }) where words.starts(with: said) {
        if let reading = read(words.dropFirst(said.count), rest) {
          return [(parameter, .enumCase(identifier))] + reading
        }
      }
      return nil
    case .entity(let parameter):
      guard !words.isEmpty else { return nil }
      for count in 1...words.count {
        if let reading = read(words.dropFirst(count), rest) {
          return [(parameter, .words(words.prefix(count).joined(separator: " ")))] + reading
        }
      }
      return nil
    }
  }
}
