import AppIntentsMetadata
import BundleManifest
import ExtensionProtocol
import Foundation
import NameSuggestions
import Understanding

/// A donation or a suggested shortcut of an installed app: what `assistant shortcuts add --from ID` makes a shortcut
/// from.
package struct ShortcutOrigin: Sendable {
  package enum Item: Sendable {
    case donation(StoredDonation)
    case suggestion(StoredSuggestion)
  }
  package var app: AppBundle
  package var item: Item

  package init(app: AppBundle, item: Item) {
    self.app = app
    self.item = item
  }

  package var identifier: String {
    switch item {
    case .donation(let donation): donation.identifier
    case .suggestion(let suggestion): suggestion.identifier
    }
  }

  package var intent: Intent {
    switch item {
    case .donation(let donation): donation.interaction.intent
    case .suggestion(let suggestion): suggestion.suggestion.intent
    }
  }

  package var source: Shortcut.Source {
    switch item {
    case .donation(let donation): Shortcut.Source(kind: .donation, identifier: donation.identifier)
    case .suggestion(let suggestion): Shortcut.Source(kind: .suggestion, identifier: suggestion.identifier)
    }
  }

  /// Whether its intent is an App Intent (a donation of one; a suggestion is always a SiriKit intent's).
  package var isAppIntent: Bool {
    if case .donation(let donation) = item { return donation.isAppIntent }
    return false
  }

  /// "donation d1 of Rooms", the form a message names it by.
  package var described: String { "\(source.kind.rawValue) \(identifier) of \(app.name)" }
  /// "com.example.rooms:d1", the form that names it whatever else has the identifier (unless the identifier of
  /// something else reads the same: `ShortcutRules.origin` then says which form to use).
  package var qualified: String { "\(app.identifier):\(identifier)" }

  /// Whether `other` is the same donation or suggestion of the same app.
  func isSame(as other: ShortcutOrigin) -> Bool { app.url == other.app.url && source == other.source }
}

/// The rules of making shortcuts: finding what `--from ID` names, the values a shortcut gets, the clashes of its
/// phrase, and a donation's intent in words (docs/CONVERSATION.md, "Shortcuts").
package enum ShortcutRules {
  /// The donation or suggestion `reference` names among `apps`: `ID`, `APP:ID` with APP an app's name or bundle id,
  /// and either with `donation:` or `suggestion:` before the ID (`com.example.rooms:suggestion:s1`). Every reading
  /// counts, the whole reference as an identifier as much as each `APP:` and `KIND:` reading of it, so that no
  /// identifier (an old one with a colon, a planted one) can stand in for what a qualified form names: one thing
  /// found is taken; several things (an ID several apps have, a donation and a suggestion of one app sharing it, an
  /// identifier that reads as another app's `APP:ID`) are refused, listing the candidates and a form that names each
  /// alone.
  /// - Parameters:
  ///   - donations: the donations of an app (by bundle id).
  ///   - suggestions: its suggested shortcuts.
  /// - Throws: `HostError(.usage)` (64) when several match; `HostError(.noMatch)` (69) when none does.
  package static func origin(
    _ reference: String, apps: [AppBundle], donations: (String) throws -> [StoredDonation],
    suggestions: (String) throws -> [StoredSuggestion]
  ) throws -> ShortcutOrigin {
    let candidates = try readings(of: reference, apps: apps, donations: donations, suggestions: suggestions)
    if candidates.count == 1 { return candidates[0] }
    if candidates.isEmpty {
      throw HostError(
        .noMatch,
        "no installed app has a donation or a suggested shortcut \"\(reference)\"; `assistant shortcuts suggested` "
          + "lists them")
    }
    // Each by the first form that names it alone: APP:ID, else APP:KIND:ID.
    var forms: [String] = []
    for candidate in candidates {
      let kinded = "\(candidate.app.identifier):\(candidate.source.kind.rawValue):\(candidate.identifier)"
      var chosen = kinded
      for form in [candidate.qualified, kinded] {
        let named = try readings(of: form, apps: apps, donations: donations, suggestions: suggestions)
        if named.count == 1, named[0].isSame(as: candidate) {
          chosen = form
          break
        }
      }
      forms.append(chosen)
    }
    throw HostError(
      .usage,
      "\"\(reference)\" names \(candidates.count) things: "
        + candidates.map { "\($0.described) (\($0.app.identifier))" }.joined(separator: ", ")
        + "; say which with --from " + forms.joined(separator: " or --from "))
  }

  /// Every donation and suggestion `reference` may name (`origin`), each once, in the order found: the whole
  /// reference as an identifier, as `KIND:ID`, then as `APP:ID` and `APP:KIND:ID` at each colon.
  static func readings(
    of reference: String, apps: [AppBundle], donations: (String) throws -> [StoredDonation],
    suggestions: (String) throws -> [StoredSuggestion]
  ) throws -> [ShortcutOrigin] {
    func found(_ identifier: String, in apps: [AppBundle], kind: Shortcut.Source.Kind?) throws -> [ShortcutOrigin] {
      var result: [ShortcutOrigin] = []
      for app in apps {
        let bundle = app.identifier.rawValue
        if kind != .suggestion {
          result += try donations(bundle).filter { $0.identifier == identifier }.map {
            ShortcutOrigin(app: app, item: .donation($0))
          }
        }
        if kind != .donation {
          result += try suggestions(bundle).filter { $0.identifier == identifier }.map {
            ShortcutOrigin(app: app, item: .suggestion($0))
          }
        }
      }
      return result
    }
    /// `ID` (every kind), and `donation:ID` or `suggestion:ID`.
    func identifierReadings(_ text: Substring, in apps: [AppBundle]) throws -> [ShortcutOrigin] {
      var result = try found(String(text), in: apps, kind: nil)
      for kind in [Shortcut.Source.Kind.donation, .suggestion] where text.hasPrefix(kind.rawValue + ":") {
        let identifier = text.dropFirst(kind.rawValue.count + 1)
        if !identifier.isEmpty { result += try found(String(identifier), in: apps, kind: kind) }
      }
      return result
    }
    var readings = try identifierReadings(reference[...], in: apps)
    // APP:ID: every colon may end an app's name ("Study Rooms:d1", "com.example.rooms:d1").
    let router = Router(apps: apps)
    var index = reference.startIndex
    while let colon = reference[index...].firstIndex(of: ":") {
      let named = router.apps(answeringTo: String(reference[..<colon]))
      let rest = reference[reference.index(after: colon)...]
      if !named.isEmpty, !rest.isEmpty { readings += try identifierReadings(rest, in: named) }
      index = reference.index(after: colon)
    }
    var result: [ShortcutOrigin] = []
    for reading in readings where !result.contains(where: { $0.isSame(as: reading) }) { result.append(reading) }
    return result
  }

  /// Checks that the app of `origin` supports its intent (a donation may name a system intent the app does not list
  /// in IntentsSupported, and a reinstall may drop one).
  /// - Throws: `HostError(.noMatch)` naming the intent and the app.
  package static func checkSupported(_ origin: ShortcutOrigin) throws {
    let intentClass = origin.intent.name
    if origin.isAppIntent {
      guard appIntent(intentClass, of: origin.app) != nil else {
        throw HostError(
          .noMatch,
          "\(origin.described) is the App Intent \(intentClass), which \(origin.app.name)'s Metadata.appintents no "
            + "longer declare; no shortcut can run it")
      }
      return
    }
    guard origin.app.supportedIntents.contains(intentClass) else {
      throw HostError(
        .noMatch,
        "\(origin.described) is \(intentClass), which \(origin.app.name) does not support (its IntentsSupported do not "
          + "list it); no shortcut can run it")
    }
  }

  /// The values a shortcut made from `origin` presets: a donation gives only the intent (its values with
  /// `keepValues`, as Apple's "Add to Siri" of a donation repeats it); a suggestion is a shortcut the app built, its
  /// values come with it. Then `set` overrides and `asks` removes.
  package static func presets(
    from origin: ShortcutOrigin?, keepValues: Bool, set: [String: ParameterValue], asks: [String]
  ) -> [String: ParameterValue] {
    var presets: [String: ParameterValue] = [:]
    if let origin {
      switch origin.item {
      case .donation(let donation): if keepValues { presets = donation.interaction.intent.parameters }
      case .suggestion(let suggestion): presets = suggestion.suggestion.intent.parameters
      }
    }
    presets.merge(set) { _, new in new }
    for name in asks { presets[name] = nil }
    return presets
  }

  /// Checks the parameters `asks` names against the intent of `app`.
  /// - Throws: `HostError(.usage)` naming an unknown one and the intent's parameters, or one that `set` also gives.
  package static func checkAsks(
    _ asks: [String], set: [String: ParameterValue], intentClass: String, app: AppBundle, isAppIntent: Bool = false
  ) throws {
    let parameters =
      isAppIntent
      ? appIntent(intentClass, of: app)?.action.parameters.map(\.name.rawValue) ?? []
      : app.runnableSpec(className: intentClass)?.spec.parameters.map(\.name) ?? []
    var seen: Set<String> = []
    for name in asks {
      guard parameters.contains(name) else {
        throw HostError(
          .usage,
          "--ask \(name): \(intentClass) has no parameter \"\(name)\"" + suggestion(name, among: parameters)
            + "; its parameters are " + listOrNone(parameters))
      }
      guard set[name] == nil else {
        throw HostError(.usage, "\(name) is both preset (--set) and asked (--ask); give it one of them")
      }
      guard seen.insert(name).inserted else { throw HostError(.usage, "--ask \(name) is given twice") }
    }
  }

  /// Whether `words` are words the assistant itself answers (`assistant shell`'s `help`, `quit` and `exit`, and the
  /// questions of what can be said: "What can you do?", "What can I say to Rooms?").
  package static func isAssistantPhrase(_ phrase: String) -> Bool {
    let words = ShortcutPhrase.words(phrase)
    return [["help"], ["quit"], ["exit"]].contains(words) || PhraseBook.capabilityQuestion(phrase) != nil
  }

  /// Why `phrase` cannot be a shortcut running `intentClass` of `app` with `presets`, or nil. A phrase clashes when
  /// the assistant itself answers it, or when the matcher, without shortcuts, understands it as another app's
  /// intent, another intent of the app, or the same intent with a value the shortcut does not preset the same way
  /// (saying it would then do something else than what it says), in any language the installed apps speak
  /// (`locales(of:)`: the phrase is checked without a locale, then under each, as `--locale` would say it). A phrase
  /// the matcher does not understand, or understands as the same app and intent with the presets' values, is
  /// accepted: "Book room with Rooms" is BookRoomIntent's own title. Every value the phrase gives differently is named
  /// in the one message: the `--set` line that presets them all when the shortcut presets none of them, else that no
  /// preset can change what the phrase itself says (another phrase is needed).
  /// (Another shortcut with the same phrase is refused by `ShortcutsRecord.add`, under its lock.)
  /// - Returns: `HostError(.dataError)` naming what the phrase already is, and in which locale.
  package static func clash(
    phrase: String, app: AppBundle, intentClass: String, presets: [String: ParameterValue], apps: [AppBundle],
    isAppIntent: Bool = false
  ) -> HostError? {
    if isAssistantPhrase(phrase) {
      return HostError(
        .dataError, "\"\(phrase)\" is a phrase the assistant itself answers; choose another phrase")
    }
    if isAppIntent {
      return appIntentClash(phrase: phrase, app: app, identifier: intentClass, presets: presets, apps: apps).map {
        HostError(.dataError, $0.what + "; " + $0.advice)
      }
    }
    return appClash(phrase: phrase, app: app, intentClass: intentClass, presets: presets, apps: apps).map {
      HostError(.dataError, $0.what + "; " + $0.advice)
    }
  }

  /// The apps' part of `clash`: what the phrase already runs (`what`), and what to do about it (`advice`), in the
  /// first locale where it clashes; nil when it does not.
  static func appClash(
    phrase: String, app: AppBundle, intentClass: String, presets: [String: ParameterValue], apps: [AppBundle]
  ) -> (what: String, advice: String)? {
    for locale in [nil] + locales(of: apps) {
      // An App Shortcut phrase is matched before the SiriKit phrases: it clashes with any SiriKit shortcut.
      if let clash =
        appShortcutClash(phrase: phrase, app: app, appIntent: nil, presets: presets, apps: apps, locale: locale)
        ?? clash(phrase: phrase, app: app, intentClass: intentClass, presets: presets, apps: apps, locale: locale)
      {
        return clash
      }
    }
    return nil
  }

  /// `appClash` for a shortcut of the App Intent `identifier`: the phrase clashes when an app's App Shortcut phrase
  /// says it and runs something else (`appShortcutClash`), or when the SiriKit phrases understand it (as anything:
  /// the shortcut runs no SiriKit intent), in any language the apps have strings for.
  static func appIntentClash(
    phrase: String, app: AppBundle, identifier: String, presets: [String: ParameterValue], apps: [AppBundle]
  ) -> (what: String, advice: String)? {
    for locale in [nil] + locales(of: apps) {
      if let clash = appShortcutClash(
        phrase: phrase, app: app, appIntent: identifier, presets: presets, apps: apps, locale: locale)
      {
        return clash
      }
      if let match = (try? UtteranceMatcher(apps: apps, locale: locale).understand(phrase))?.first {
        let how = match.phrase.isEmpty ? "" : " (its phrase \"\(match.phrase)\")"
        return (
          "\"\(phrase)\" already runs \(match.intentClass) of \(match.app.name) (\(match.app.identifier))"
            + inLocale(locale) + how, "choose another phrase"
        )
      }
    }
    return nil
  }

  /// Whether an App Shortcut phrase of the apps says `phrase` under `locale` (nil: none) and runs something else than
  /// a shortcut of `app` running `appIntent` (nil for a SiriKit intent) with `presets`: another app or intent, or
  /// the same App Intent with a value the shortcut does not preset the same way (the advice then gives the `--set`
  /// that presets it, or says that no preset can change what the phrase says).
  static func appShortcutClash(
    phrase: String, app: AppBundle, appIntent identifier: String?, presets: [String: ParameterValue],
    apps: [AppBundle], locale: String?
  ) -> (what: String, advice: String)? {
    for match in AppShortcutMatcher(apps: apps, locale: locale).matches(phrase) {
      let already =
        "\"\(phrase)\" already runs the App Intent \(match.identifier) of \(match.app.name) "
        + "(\(match.app.identifier))\(inLocale(locale)) (its App Shortcut phrase \"\(match.phrase ?? "")\")"
      guard match.app.identifier == app.identifier, match.identifier == identifier else {
        return (already, "choose another phrase")
      }
      if let name = match.entityWords.keys.sorted().first {
        return (already + " with its own \(name)", "choose another phrase: an AppEntity is not preset in words")
      }
      let differing = match.values.keys.filter { presets[$0] != match.values[$0] }.sorted()
      guard !differing.isEmpty else { continue }
      let contrary = differing.filter { presets[$0] != nil }
      let advice =
        contrary.isEmpty
        ? "choose another phrase, or preset " + (differing.count == 1 ? "it" : "them") + " with "
          + differing.map { "--set \($0)=\(typed(match.values[$0]!))" }.joined(separator: " ")
        : "choose another phrase: no preset can change what the phrase itself says ("
          + contrary.map { "\($0) \(typed(match.values[$0]!))" }.joined(separator: ", ") + ")"
      return (already + " with " + listed(differing.map { "\($0) \(typed(match.values[$0]!))" }), advice)
    }
    return nil
  }

  /// " in de (--locale de)", or "" without a locale.
  private static func inLocale(_ locale: String?) -> String {
    locale.map { " in \($0) (--locale \($0))" } ?? ""
  }

  /// The languages the apps' `.lproj` folders give strings for (`Intents.strings`, `InfoPlist.strings`,
  /// `AppShortcuts.strings`), sorted: each a locale their phrases or names may be said in.
  package static func locales(of apps: [AppBundle]) -> [String] {
    let shortcuts = apps.flatMap { $0.allAppIntentsMetadata.flatMap { $0.shortcutsStrings.compactMap(\.language) } }
    return Set(apps.flatMap { $0.stringsTables.map(\.language) } + shortcuts).filter { !$0.isEmpty && $0 != "Base" }
      .sorted()
  }

  /// `clash` under one locale (nil: none).
  static func clash(
    phrase: String, app: AppBundle, intentClass: String, presets: [String: ParameterValue], apps: [AppBundle],
    locale: String?
  ) -> (what: String, advice: String)? {
    let matches: [UtteranceMatcher.Match]
    do {
      matches = try UtteranceMatcher(apps: apps, locale: locale).understand(phrase)
    } catch {
      return nil  // not understood: the shortcut is all it says
    }
    let inLocale = locale.map { " in \($0) (--locale \($0))" } ?? ""
    for match in matches {
      let already =
        "\"\(phrase)\" already runs \(match.intentClass) of \(match.app.name) (\(match.app.identifier))\(inLocale)"
      let how = match.phrase.isEmpty ? "" : " (its phrase \"\(match.phrase)\")"
      if match.app.identifier != app.identifier || match.intentClass != intentClass {
        return (already + how, "choose another phrase")
      }
      let interpreter = ValueInterpreter(
        intentClass: intentClass, definition: app.runnableSpec(className: intentClass)?.definition,
        vocabularies: app.vocabularies)
      // Every value the phrase gives that the shortcut does not preset the same way, in one message.
      let order = app.runnableSpec(className: intentClass)?.spec.parameters.map(\.name) ?? []
      let differing = match.values.keys.filter { presets[$0] != match.values[$0] }.sorted {
        (order.firstIndex(of: $0) ?? .max, $0) < (order.firstIndex(of: $1) ?? .max, $1)
      }
      guard !differing.isEmpty else { continue }
      func said(_ name: String) -> String {
        "\(name) \(interpreter.words(for: match.values[name]!, parameterType: parameterType(name, intentClass, app)))"
      }
      let contrary = differing.filter { presets[$0] != nil }
      let missing = differing.filter { presets[$0] == nil }
      var preset = "the shortcut"
      if !contrary.isEmpty {
        preset +=
          " presets " + listed(contrary.map { "\($0) to \(describe(presets[$0]!, $0, intentClass, app))" })
        if !missing.isEmpty { preset += " and" }
      }
      if !missing.isEmpty {
        preset += " does not preset " + (differing.count == 1 ? "it" : listed(missing, last: " or "))
      }
      let advice =
        contrary.isEmpty
        ? "choose another phrase, or preset "
          + (missing.count == 1 ? "it" : "them") + " with "
          + missing.map { "--set \($0)=\(typed(match.values[$0]!))" }.joined(separator: " ")
        : "choose another phrase: no preset can change what the phrase itself says ("
          + listed(contrary.map(said)) + ")"
      return (already + how + " with " + listed(differing.map(said)) + ", and " + preset, advice)
    }
    return nil
  }

  /// "a", "a and b", "a, b and c" (or `last` instead of " and ").
  private static func listed(_ items: [String], last: String = " and ") -> String {
    items.count < 2 ? items.first ?? "" : items.dropLast().joined(separator: ", ") + last + items.last!
  }

  /// What an install changed for the user's `shortcuts`, one notice each, in their order: a shortcut inactive with
  /// the apps `before` and active `after` (its app is back, or has its intent and parameters again), one active before
  /// and inactive after (the app lost the intent or a parameter, or a type changed), and one active after whose
  /// phrase the apps `after` now understand otherwise than the shortcut runs it (`clash`) while the apps `before` did
  /// not understand it so: the shortcut wins when the phrase is said, so the app's phrase is not reached.
  package static func installNotices(_ shortcuts: [Shortcut], before: [AppBundle], after: [AppBundle])
    -> [ShortcutNotice]
  {
    var notices: [ShortcutNotice] = []
    for shortcut in shortcuts {
      let named = "shortcut \(shortcut.identifier) (\"\(shortcut.phrase)\")"
      func notice(_ change: ShortcutNotice.Change, _ message: String) {
        notices.append(
          ShortcutNotice(identifier: shortcut.identifier, phrase: shortcut.phrase, change: change, message: message))
      }
      let was = ShortcutState.of(shortcut, among: before)
      let now = ShortcutState.of(shortcut, among: after)
      switch (was.reason, now) {
      case (nil, .inactive(let reason)):
        notice(.inactive, "\(named) is now inactive: \(reason)")
        continue
      case (_, .inactive):
        continue
      case (.some, .active):
        notice(.active, "\(named) is active again")
      case (nil, .active):
        break
      }
      guard case .active(let app) = now else { continue }
      func clash(_ apps: [AppBundle]) -> String? {
        shortcut.isAppIntent
          ? appIntentClash(
            phrase: shortcut.phrase, app: app, identifier: shortcut.intentClass, presets: shortcut.presets, apps: apps
          )?.what
          : appClash(
            phrase: shortcut.phrase, app: app, intentClass: shortcut.intentClass, presets: shortcut.presets, apps: apps
          )?.what
      }
      if let what = clash(after), clash(before) != what {
        notice(
          .clash,
          "\(named) takes a phrase the apps now answer to: \(what); the shortcut wins when it is said, so to let "
            + "the app answer it remove the shortcut (`assistant shortcuts remove \(shortcut.identifier)`)")
      }
    }
    return notices
  }

  /// An example of what makes an app donate, for `assistant shortcuts suggested` when nothing is offered: the first
  /// of `apps` with a phrase that can be said, and that phrase as the closest-phrase suggestions say it
  /// ("Book room 12 for Ada with Rooms"); nil when none has one. Only installed apps are ever named.
  package static func donationExample(among apps: [AppBundle]) -> (phrase: String, app: AppBundle)? {
    let matcher = UtteranceMatcher(apps: apps)
    for app in apps {
      if let said = ClosestPhrases.candidates(of: app, names: matcher.names(of: app)).first?.said {
        return (said, app)
      }
    }
    return nil
  }

  /// The App Intent `identifier` of `app` (`DonationRules.appIntent`), with the folder and the document that declare
  /// it; nil when none of its `Metadata.appintents` does.
  package static func appIntent(_ identifier: String, of app: AppBundle) -> (
    folder: AppIntentsMetadataFolder, document: MetadataDocument, action: MetadataDocument.Action
  )? {
    DonationRules(definitions: [], appIntents: app.allAppIntentsMetadata).appIntent(identifier)
  }

  /// An App Intent of `app` with `values`, in words: its title, then each value with its parameter's title
  /// ("Order Fuel: location Home"), in the order the intent declares them.
  package static func describedAppIntent(_ identifier: String, values: [String: ParameterValue], app: AppBundle)
    -> String
  {
    guard let (_, document, action) = appIntent(identifier, of: app) else { return identifier }
    let title = action.title?.key ?? identifier
    guard !values.isEmpty else { return title }
    let order = action.parameters.map(\.name.rawValue)
    let ordered = values.keys.sorted { (order.firstIndex(of: $0) ?? .max, $0) < (order.firstIndex(of: $1) ?? .max, $1) }
    return title + ": "
      + ordered.map { name in
        let label = action.parameter(name)?.title?.key.lowercased() ?? name
        return "\(label) \(IntentDriver.words(for: values[name]!, in: document))"
      }.joined(separator: ", ")
  }

  /// The intent `intentClass` of `app` with `values`, in words: its combination title for exactly those parameters
  /// with the values said ("Book room 12 for Ada"), else its title and the values ("Book Room: room number 12,
  /// booked by Ada").
  package static func described(_ intentClass: String, values: [String: ParameterValue], app: AppBundle) -> String {
    let spec = app.runnableSpec(className: intentClass)?.spec
    let given = Set(values.keys)
    if let title = spec?.combinations.first(where: { Set($0.parameters) == given && $0.title != nil })?.title {
      let rendered = renderTemplate(title) { name in values[name].map { describe($0, name, intentClass, app) } }
      if rendered.missing.isEmpty { return rendered.text.prefix(1).uppercased() + rendered.text.dropFirst() }
    }
    let title = spec?.title ?? intentClass
    guard !values.isEmpty else { return title }
    let parameters = spec?.parameters.map(\.name) ?? []
    let ordered = values.keys.sorted {
      (parameters.firstIndex(of: $0) ?? .max, $0) < (parameters.firstIndex(of: $1) ?? .max, $1)
    }
    return title + ": "
      + ordered.map { name in
        let label = spec?.parameter(named: name)?.label.lowercased() ?? ParameterSpec.words(of: name)
        return "\(label) \(describe(values[name]!, name, intentClass, app))"
      }.joined(separator: ", ")
  }

  /// A value as `--set` and `run`'s NAME=VALUE take it: `false`, `12`, `Ada`, an enum case's name.
  package static func typed(_ value: ParameterValue) -> String {
    switch value {
    case .string(let text), .enumCase(let text): text
    case .integer(let number): String(number)
    case .decimal(let number): String(number)
    case .boolean(let flag): flag ? "true" : "false"
    case .date(let date): ParameterValue.formatDate(date)
    case .object(let object): object.displayString
    case .array(let items): items.map(typed).joined(separator: ",")
    }
  }

  /// A preset `value` of parameter `name` of `shortcut` in words, for a SiriKit intent (`describe(_:_:_:_:)`) or an
  /// App Intent (an AppEnum case by its title, an AppEntity by its display string).
  package static func describe(_ value: ParameterValue, _ name: String, of shortcut: Shortcut, in app: AppBundle)
    -> String
  {
    guard shortcut.isAppIntent else { return describe(value, name, shortcut.intentClass, app) }
    guard let document = appIntent(shortcut.intentClass, of: app)?.document else { return typed(value) }
    return IntentDriver.words(for: value, in: document)
  }

  /// A value of parameter `name` in words (a boolean by its display names, an enum case by its display name).
  package static func describe(_ value: ParameterValue, _ name: String, _ intentClass: String, _ app: AppBundle)
    -> String
  {
    let interpreter = ValueInterpreter(
      intentClass: intentClass, definition: app.runnableSpec(className: intentClass)?.definition,
      vocabularies: app.vocabularies)
    return interpreter.words(for: value, parameterType: parameterType(name, intentClass, app))
  }

  private static func parameterType(_ name: String, _ intentClass: String, _ app: AppBundle) -> (
    trueName: String?, falseName: String?, enumType: String?
  )? {
    guard let parameter = app.runnableSpec(className: intentClass)?.spec.parameter(named: name) else { return nil }
    return (parameter.trueDisplayName, parameter.falseDisplayName, parameter.enumType)
  }
}

/// What an install changed for one of the user's shortcuts (`ShortcutRules.installNotices`).
package struct ShortcutNotice: Sendable, Equatable, Encodable {
  package enum Change: String, Sendable, Encodable {
    /// The apps now understand its phrase otherwise; the shortcut wins.
    case clash
    /// It can run again.
    case active
    /// It can no longer run.
    case inactive
  }
  package var identifier: String
  package var phrase: String
  package var change: Change
  /// The notice in words, one line.
  package var message: String
}
