import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import Understanding

/// A shortcut the user made (`assistant shortcuts add`): a phrase that runs one intent of one app with preset values
/// (docs/CONVERSATION.md, "Shortcuts").
package struct Shortcut: Codable, Sendable, Equatable {
  /// The host's name for it: `k` and a number, never reused in the home.
  package var identifier: String
  /// The phrase as the user typed it.
  package var phrase: String
  /// The app's bundle identifier.
  package var app: String
  /// The app's name when the shortcut was made: what is shown once the app is uninstalled.
  package var appName: String
  /// The intent's class, e.g. "BookRoomIntent".
  package var intentClass: String
  /// The values the intent is run with, by parameter name.
  package var presets: [String: ParameterValue]
  /// The parameters asked for each time the shortcut runs, in order (never preset).
  package var asks: [String]
  /// Where it was made from.
  package var source: Source
  /// When it was made, seconds since 1970 (the host's clock).
  package var createdAt: Double
  /// True when `intentClass` is an App Intent's identifier (in the app's `Metadata.appintents`); absent (nil) for a
  /// SiriKit intent, as in the documents written before App Intents.
  package var appIntent: Bool? = nil

  /// Whether it runs an App Intent.
  package var isAppIntent: Bool { appIntent == true }

  /// Where a shortcut was made from: a donation (`d1`), a suggested shortcut (`s1`), or an intent named by the user.
  package struct Source: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable {
      case donation, suggestion, intent
    }
    package var kind: Kind
    /// The donation's or the suggestion's identifier; nil for `intent`.
    package var identifier: String?

    package init(kind: Kind, identifier: String? = nil) {
      self.kind = kind
      self.identifier = identifier
    }

    /// "donation d1", "suggestion s2", "intent".
    package var description: String { identifier.map { "\(kind.rawValue) \($0)" } ?? kind.rawValue }
  }

  /// The phrase's words as they are compared (`ShortcutPhrase.words`).
  package var words: [String] { ShortcutPhrase.words(phrase) }
}

/// What `ShortcutStore.add` keeps: a shortcut without its identifier and creation time.
package struct ShortcutDraft: Sendable, Equatable {
  package var phrase: String
  package var app: String
  package var appName: String
  package var intentClass: String
  package var presets: [String: ParameterValue]
  package var asks: [String]
  package var source: Shortcut.Source
  /// Whether `intentClass` is an App Intent's identifier.
  package var isAppIntent: Bool

  package init(
    phrase: String, app: String, appName: String, intentClass: String, presets: [String: ParameterValue],
    asks: [String], source: Shortcut.Source, isAppIntent: Bool = false
  ) {
    self.isAppIntent = isAppIntent
    self.phrase = phrase
    self.app = app
    self.appName = appName
    self.intentClass = intentClass
    self.presets = presets
    self.asks = asks
    self.source = source
  }
}

extension ShortcutDraft {
  /// Why the shortcut it makes could not run with `apps` (`ShortcutState.of`), or nil.
  package func inactiveReason(among apps: [AppBundle]) -> String? {
    let shortcut = Shortcut(
      identifier: "", phrase: phrase, app: app, appName: appName, intentClass: intentClass, presets: presets,
      asks: asks, source: source, createdAt: 0, appIntent: isAppIntent ? true : nil)
    return ShortcutState.of(shortcut, among: apps).reason
  }
}

/// The rules of a shortcut's phrase.
package enum ShortcutPhrase {
  /// The words a phrase is compared by: the matcher's (`normalizedWords`): case, punctuation and spacing aside, in
  /// Unicode compatibility form (NFKC), invisible (default-ignorable) code points dropped. "Book room, with Rooms!"
  /// and "book  ROOM with rooms" are the same phrase, and so are "Book\u{00AD}room" and "Bookroom".
  package static func words(_ phrase: String) -> [String] { normalizedWords(phrase) }

  /// What is wrong with `phrase`, or nil: 1 to `DonationLimits.maximumPhraseLength` Unicode scalars, at least one
  /// word, no control character (`DonationLimits.isControl`: C0, DEL, C1, bidirectional controls, line and paragraph
  /// separators).
  package static func problem(_ phrase: String) -> String? {
    let length = phrase.unicodeScalars.count
    if length > DonationLimits.maximumPhraseLength {
      return "the phrase is \(length) Unicode scalars long; the limit is \(DonationLimits.maximumPhraseLength)"
    }
    if phrase.unicodeScalars.contains(where: DonationLimits.isControl) {
      return "the phrase contains a control character"
    }
    if words(phrase).isEmpty { return "the phrase has no word to say" }
    return nil
  }
}

/// The user's shortcuts, `State/shortcuts.json` (a `Document`), schema 1, oldest first, at most `maximumShortcuts`.
///
/// ```json
/// {"content": {"nextNumber": 2, "shortcuts": [{"app": "com.example.rooms", "appName": "Rooms", "asks": [],
///   "createdAt": 1790000000, "identifier": "k1", "intentClass": "BookRoomIntent", "phrase": "Book room with Rooms",
///   "presets": {"isCancellationOfBooking": {"boolean": false}}, "source": {"identifier": "d1", "kind": "donation"}}]},
///  "schemaVersion": 1, "sequence": 1}
/// ```
package struct ShortcutsRecord: DocumentContent, Equatable {
  package static let schemaVersion = 1
  /// The most shortcuts a home keeps.
  package static let maximumShortcuts = 500

  package var shortcuts: [Shortcut] = []
  /// The number of the next identifier (`k` and it); it only grows, so an identifier is never reused.
  package var nextNumber = 1

  package init() {}

  /// The shortcut whose phrase has these words (`ShortcutPhrase.words`).
  package func shortcut(saying words: [String]) -> Shortcut? {
    words.isEmpty ? nil : shortcuts.first { $0.words == words }
  }

  /// Why `phrase` cannot be a new shortcut's phrase here: another shortcut has it (naming that one and how to remove
  /// it); nil when none does.
  package func taken(_ phrase: String) -> HostError? {
    guard let other = shortcut(saying: ShortcutPhrase.words(phrase)) else { return nil }
    return HostError(
      .dataError,
      "\"\(phrase)\" is already the phrase of shortcut \(other.identifier) (\"\(other.phrase)\", "
        + "\(other.appName)); choose another phrase, or remove that one first (`assistant shortcuts remove "
        + "\(other.identifier)`)")
  }

  /// Keeps `draft` as a new shortcut.
  /// - Returns: the shortcut kept.
  /// - Throws: `HostError(.dataError)` when the phrase is not one (`ShortcutPhrase.problem`), is the phrase of
  ///   another shortcut (naming it), or when the home has `maximumShortcuts` already.
  @discardableResult
  package mutating func add(_ draft: ShortcutDraft, at now: Double) throws -> Shortcut {
    if let problem = ShortcutPhrase.problem(draft.phrase) { throw HostError(.dataError, problem) }
    if let taken = taken(draft.phrase) { throw taken }
    guard shortcuts.count < Self.maximumShortcuts else {
      throw HostError(
        .dataError,
        "the home has \(shortcuts.count) shortcuts, the most it keeps; remove some first (`assistant shortcuts list`)")
    }
    let shortcut = Shortcut(
      identifier: "k\(nextNumber)", phrase: draft.phrase, app: draft.app, appName: draft.appName,
      intentClass: draft.intentClass, presets: draft.presets, asks: draft.asks, source: draft.source, createdAt: now,
      appIntent: draft.isAppIntent ? true : nil)
    nextNumber += 1
    shortcuts.append(shortcut)
    return shortcut
  }

  /// Removes the shortcut `phraseOrIdentifier` names: its identifier first, then its phrase (`ShortcutPhrase.words`).
  /// - Returns: the removed shortcut, or nil when none has that identifier or phrase.
  package mutating func remove(_ phraseOrIdentifier: String) -> Shortcut? {
    let index =
      shortcuts.firstIndex { $0.identifier == phraseOrIdentifier }
      ?? {
        let words = ShortcutPhrase.words(phraseOrIdentifier)
        return words.isEmpty ? nil : shortcuts.firstIndex { $0.words == words }
      }()
    guard let index else { return nil }
    return shortcuts.remove(at: index)
  }
}

/// Whether a shortcut can run with the apps installed now.
package enum ShortcutState: Sendable, Equatable {
  case active(AppBundle)
  /// Why not, e.g. "Rooms (com.example.rooms) is not installed".
  case inactive(String)

  package static func == (lhs: ShortcutState, rhs: ShortcutState) -> Bool {
    switch (lhs, rhs) {
    case (.active(let a), .active(let b)): a.url == b.url
    case (.inactive(let a), .inactive(let b)): a == b
    default: false
    }
  }

  /// The state of `shortcut` among `apps`: inactive when its app is not installed, no longer supports its intent, the
  /// intent no longer has a parameter it presets or asks for, or a preset no longer fits its parameter's type (by
  /// the rules of a donation's values, `DonationRules`: a reinstall may change a type, and a planted
  /// `State/shortcuts.json` may hold anything). An extension is never sent a value of another type than declared.
  package static func of(_ shortcut: Shortcut, among apps: [AppBundle]) -> ShortcutState {
    guard let app = apps.first(where: { $0.identifier.rawValue == shortcut.app }) else {
      return .inactive("\(shortcut.appName) (\(shortcut.app)) is not installed")
    }
    if shortcut.isAppIntent { return ofAppIntent(shortcut, in: app) }
    guard app.supportedIntents.contains(shortcut.intentClass) else {
      return .inactive("\(app.name) (\(shortcut.app)) no longer supports \(shortcut.intentClass)")
    }
    if let spec = app.runnableSpec(className: shortcut.intentClass)?.spec {
      let known = Set(spec.parameters.map(\.name))
      if let lost = (shortcut.presets.keys.sorted() + shortcut.asks).first(where: { !known.contains($0) }) {
        return .inactive("\(shortcut.intentClass) of \(app.name) no longer has the parameter \(lost)")
      }
    }
    let rules = DonationRules(definitions: app.allDefinitions)
    for name in shortcut.presets.keys.sorted() {
      let value = shortcut.presets[name]!
      guard let (problem, declared) = rules.valueProblem(value, parameter: name, of: shortcut.intentClass) else {
        continue
      }
      let kind = value.definitionTypeName
      let article = "AEIOUaeiou".contains(kind.first!) ? "an" : "a"
      // Another type says it all; the same type (or an enum case) that does not fit says why.
      let differs = declared != kind && !(declared.hasPrefix("the enum") && kind == "enum case")
      return .inactive(
        "\(name) of \(shortcut.intentClass) is now \(declared); the shortcut presets \(article) \(kind)"
          + (differs ? "" : " that does not fit it (\(problem))"))
    }
    return .active(app)
  }

  /// `of` for a shortcut of an App Intent: inactive when the app's `Metadata.appintents` no longer declare it, or it
  /// no longer has a parameter the shortcut presets or asks for, or a preset no longer fits its type.
  private static func ofAppIntent(_ shortcut: Shortcut, in app: AppBundle) -> ShortcutState {
    let rules = DonationRules(definitions: [], appIntents: app.allAppIntentsMetadata)
    guard let (_, document, action) = rules.appIntent(shortcut.intentClass) else {
      return .inactive("\(app.name) (\(shortcut.app)) no longer declares the App Intent \(shortcut.intentClass)")
    }
    if let lost = (shortcut.presets.keys.sorted() + shortcut.asks).first(where: { action.parameter($0) == nil }) {
      return .inactive("\(shortcut.intentClass) of \(app.name) no longer has the parameter \(lost)")
    }
    if let problem = rules.appIntentValuesProblem(
      shortcut.presets, of: action, in: document, field: shortcut.intentClass)
    {
      return .inactive("a preset no longer fits: \(problem)")
    }
    return .active(app)
  }

  package var reason: String? {
    if case .inactive(let reason) = self { return reason }
    return nil
  }
}

extension ParameterValue {
  /// The value's type as a definition names types: "Integer", "Decimal", "Boolean", "String", "Date", "enum case",
  /// "object", "list".
  var definitionTypeName: String {
    switch self {
    case .integer: ParameterType.integer.rawValue
    case .decimal: ParameterType.decimal.rawValue
    case .boolean: ParameterType.boolean.rawValue
    case .string: ParameterType.string.rawValue
    case .date: ParameterType.date.rawValue
    case .enumCase: "enum case"
    case .object: "object"
    case .array: "list"
    }
  }
}

/// Where the host keeps the user's shortcuts: `State/shortcuts.json` in the home, one locked update per change.
/// Blocking: call it off the cooperative pool.
package struct ShortcutStore: Sendable {
  package var home: AssistantHome
  package var clock: HostClock

  /// - Parameter clock: by default `HostClock.ofThisProcess`.
  package init(home: AssistantHome, clock: HostClock = .ofThisProcess) {
    self.home = home
    self.clock = clock
  }

  package var file: URL { home.shortcutsFile }

  /// Why `phrase` cannot be a new shortcut's phrase (`ShortcutsRecord.taken`): checked before the apps' phrases, so
  /// that the clash the user can do least about is named first. `add` checks it again under its lock.
  package func taken(_ phrase: String) throws -> HostError? {
    try usingStateDocument(file.path, Self.unreadable) {
      try Document<ShortcutsRecord>(path: file.path).read().taken(phrase)
    }
  }

  /// Every shortcut, oldest first.
  /// - Throws: a corrupt or planted document as `HostError(.dataError)` naming the files to move aside
  ///   (`stateError`).
  package func shortcuts() throws -> [Shortcut] {
    try usingStateDocument(file.path, Self.unreadable) {
      try Document<ShortcutsRecord>(path: file.path).read().shortcuts
    }
  }

  /// What a failure to read the shortcuts is called.
  static let unreadable = "your shortcuts could not be read"

  /// The shortcut whose phrase `utterance` says (its words equal the phrase's), or nil. A home without shortcuts
  /// reads nothing but the file's absence.
  package func shortcut(saying utterance: String) throws -> Shortcut? {
    let words = ShortcutPhrase.words(utterance)
    guard !words.isEmpty else { return nil }
    return try usingStateDocument(file.path, Self.unreadable) {
      try Document<ShortcutsRecord>(path: file.path).read().shortcut(saying: words)
    }
  }

  /// Keeps a new shortcut (`ShortcutsRecord.add`).
  package func add(_ draft: ShortcutDraft) throws -> Shortcut {
    try home.prepare()
    let now = clock.now
    return try usingStateDocument(file.path, "cannot keep the shortcut") {
      try Document<ShortcutsRecord>(path: file.path).update { try $0.add(draft, at: now) }
    }
  }

  /// Removes the shortcut `phraseOrIdentifier` names (`ShortcutsRecord.remove`).
  /// - Throws: `HostError(.noMatch)` when none does, saying how to list them.
  package func remove(_ phraseOrIdentifier: String) throws -> Shortcut {
    let document = Document<ShortcutsRecord>(path: file.path)
    if try usingStateDocument(file.path, Self.unreadable, { try document.read().shortcuts.isEmpty }) {
      throw HostError(.noMatch, "there is no shortcut \"\(phraseOrIdentifier)\": the home has no shortcuts")
    }
    let removed = try usingStateDocument(file.path, "cannot remove the shortcut") {
      try document.update { $0.remove(phraseOrIdentifier) }
    }
    guard let removed else {
      throw HostError(
        .noMatch,
        "no shortcut has the identifier or the phrase \"\(phraseOrIdentifier)\"; `assistant shortcuts list` "
          + "shows them")
    }
    return removed
  }
}

extension DonationStore {
  /// Forgets what `app` gave the host, as iOS does when an app is deleted: its donations, its suggested shortcuts and
  /// its vocabulary are emptied (the documents stay, so that their identifiers are never reused: a shortcut made
  /// from `d1` is never taken for a later `d1`). The user's shortcuts are the user's: they are kept, inactive until
  /// the app is installed again. Each document is forgotten on its own: one that cannot be used (corrupt, planted,
  /// a failing disk) does not keep the others.
  /// - Returns: what could not be forgotten, one sentence each, naming the files to move aside or remove (empty when
  ///   all was forgotten).
  package func forget(_ app: String) -> [String] {
    let now = clock.now
    let steps: [(what: String, file: URL, forget: () throws -> Void)] = [
      (
        "donations", donationsFile(for: app),
        {
          let document = Document<DonationsRecord>(path: donationsFile(for: app).path)
          if try document.exists() { _ = try document.update { $0.delete(.all) } }
        }
      ),
      (
        "suggested shortcuts", suggestionsFile(for: app),
        {
          let document = Document<SuggestionsRecord>(path: suggestionsFile(for: app).path)
          if try document.exists() { _ = try document.update { $0.publish([], at: now) } }
        }
      ),
      (
        "vocabulary", vocabularyFile(for: app),
        {
          let document = Document<VocabularyRecord>(path: vocabularyFile(for: app).path)
          if try document.exists() { try document.update { $0.types = [:] } }
        }
      ),
    ]
    var problems: [String] = []
    for step in steps {
      do {
        try usingStateDocument(step.file.path, "the \(step.what) of \(app) could not be forgotten") {
          try step.forget()
        }
      } catch {
        let advice = stateDocumentAdvice(step.file.path)
        switch error {
        case let error as HostError where error.status == .dataError: problems.append(error.message)  // advised
        case let error as HostError: problems.append("\(error.message); \(advice)")
        default: problems.append("the \(step.what) of \(app) could not be forgotten: \(error); \(advice)")
        }
      }
    }
    return problems
  }
}
