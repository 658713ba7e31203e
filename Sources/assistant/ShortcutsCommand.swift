// `assistant shortcuts`: the user's shortcuts, made from the apps' donations and suggested shortcuts ("Shortcuts from
// Your Apps", "Add to Siri") or from an intent. Saying one is AssistantHost's `Assistant.say`; the rules are its
// `ShortcutRules`, the store its `ShortcutStore`.
import AssistantHost
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Understanding
import UntrustedText

/// `assistant shortcuts VERB ...`.
struct Shortcuts: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "shortcuts",
      abstract: "Make phrases of your own that run an app's intent with preset values, as Siri Shortcuts does.",
      discussion: """
        A shortcut's phrase, said as an utterance (case, punctuation and spacing aside; no app name needed), runs \
        its intent with its preset values and asks only for what is still missing. docs/CONVERSATION.md \
        ("Shortcuts") has the rules.
        """,
      subcommands: [
        ShortcutsSuggested.self, ShortcutsAdd.self, ShortcutsList.self, ShortcutsRemove.self,
      ],
      examples: [
        "assistant shortcuts suggested",
        "assistant shortcuts add \"Book room with Rooms\" --from d1 --set isCancellationOfBooking=false",
        "assistant shortcuts list",
      ])
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 { ExitStatus.usage.rawValue }  // the parser refuses it
}

/// A value in a report: the protocol's typed form, `{"type": "boolean", "value": false}`.
typealias ReportedValues = [String: ParameterValue]

/// `assistant shortcuts suggested [APP]`: "Shortcuts from Your Apps".
struct ShortcutsSuggested: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "suggested",
      abstract: "Show what your apps donated and the shortcuts they suggest (\"Shortcuts from Your Apps\").",
      discussion: """
        For each installed app (or APP): its donations, newest first (identifier, the intent with its values in \
        words, when), and its suggested shortcuts (identifier, suggested phrase, intent); those already made into \
        a shortcut say which. Make one with `assistant shortcuts add "PHRASE" --from ID`. With --json: {"apps": \
        [{"name", "bundleIdentifier", "donations": [{"identifier", "intent", "description", "parameters", \
        "donatedAt", "shortcuts"}], "suggestions": [{"identifier", "phrase", "intent", "description", \
        "parameters", "shortcuts"}]}]}, values in the protocol's typed form.
        """,
      arguments: [Self.app.argument],
      examples: ["assistant shortcuts suggested", "assistant shortcuts suggested Rooms --json"])
  }

  static let app = Positional.optional("APP", help: "An installed app: its name or bundle id.", completion: .apps)

  var app: String?

  init(_ parsed: ParsedCommand) throws { app = parsed[Self.app] }

  struct Report: Encodable {
    var apps: [App]
  }
  struct App: Encodable {
    var name: String
    var bundleIdentifier: String
    var donations: [Item]
    var suggestions: [Item]
  }
  struct Item: Encodable {
    var identifier: String
    var phrase: String?
    var intent: String
    var description: String
    var parameters: ReportedValues
    var donatedAt: String?
    /// The identifiers of the shortcuts made from it.
    var shortcuts: [String]
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let installed = try home.installedApps()
    let apps = try app.map { [try Router(apps: installed).app(named: $0)] } ?? installed
    let clock = try HostClock(environment: ProcessInfo.processInfo.environment)
    let (donations, suggestions, shortcuts) = try await offloaded {
      () throws -> ([[StoredDonation]], [[StoredSuggestion]], [Shortcut]) in
      let store = DonationStore(home: home)
      return (
        try apps.map { try store.donations(of: $0.identifier.rawValue) },
        try apps.map { try store.suggestions(of: $0.identifier.rawValue) },
        try ShortcutStore(home: home).shortcuts()
      )
    }
    func made(_ source: Shortcut.Source, of app: AppBundle, intent: String) -> [String] {
      shortcuts.filter { $0.app == app.identifier.rawValue && $0.source == source && $0.intentClass == intent }
        .map(\.identifier)
    }
    let report = Report(
      apps: apps.indices.map { index in
        let app = apps[index]
        return App(
          name: app.name, bundleIdentifier: app.identifier.rawValue,
          donations: donations[index].reversed().map { donation in
            let intent = donation.interaction.intent
            return Item(
              identifier: donation.identifier, intent: intent.name,
              description: donation.isAppIntent
                ? ShortcutRules.describedAppIntent(intent.name, values: intent.parameters, app: app)
                : ShortcutRules.described(intent.name, values: intent.parameters, app: app),
              parameters: intent.parameters,
              donatedAt: ParameterValue.formatDate(Date(timeIntervalSince1970: donation.donatedAt)),
              shortcuts: made(
                Shortcut.Source(kind: .donation, identifier: donation.identifier), of: app, intent: intent.name))
          },
          suggestions: suggestions[index].map { stored in
            let intent = stored.suggestion.intent
            return Item(
              identifier: stored.identifier, phrase: stored.suggestion.phrase, intent: intent.name,
              description: ShortcutRules.described(intent.name, values: intent.parameters, app: app),
              parameters: intent.parameters,
              shortcuts: made(
                Shortcut.Source(kind: .suggestion, identifier: stored.identifier), of: app, intent: intent.name))
          })
      })
    if context.json {
      try await context.output(json: report)
      return ExitStatus.success.rawValue
    }
    var lines: [String] = []
    func print(_ line: String) { lines.append(Untrusted.shown(line)) }
    let offered = report.apps.filter { !$0.donations.isEmpty || !$0.suggestions.isEmpty }
    if offered.isEmpty {
      // Only installed apps are named in the example (an uninstalled one's commands would fail).
      let example: String
      if let (phrase, app) = ShortcutRules.donationExample(among: apps) {
        example = " (e.g. \"\(phrase)\", or what you do in it with `assistant open \(app.name)`)"
      } else if let app = apps.first {
        example = " (e.g. what you do in it with `assistant open \(app.name)`)"
      } else {
        example = ""
      }
      print(
        apps.isEmpty
          ? "No app is installed, so none has donated anything or suggests shortcuts. Install one with `assistant "
            + "install BUNDLE.app`; what you do in it then shows here, to make a shortcut of with `assistant "
            + "shortcuts add \"PHRASE\" --from ID`."
          : (app == nil
            ? "Your apps have donated nothing and suggest" : "\(apps[0].name) has donated nothing and suggests")
            + " no shortcuts yet. An app donates what you do in it\(example); then make a shortcut of it with "
            + "`assistant shortcuts add \"PHRASE\" --from ID`, or of any intent with `assistant shortcuts add "
            + "\"PHRASE\" --intent APP INTENT`.")
    }
    for app in offered {
      print("\(app.name) (\(app.bundleIdentifier))")
      if !app.donations.isEmpty { print("  Donations:") }
      for (item, donation) in zip(
        app.donations, donations[report.apps.firstIndex { $0.bundleIdentifier == app.bundleIdentifier }!].reversed())
      {
        print(
          "    \(item.identifier)  \(item.description) (\(item.intent), \(Self.ago(donation.donatedAt, now: clock.now)))"
            + Self.madeInto(item.shortcuts))
      }
      if !app.suggestions.isEmpty { print("  Suggested shortcuts:") }
      for item in app.suggestions {
        print(
          "    \(item.identifier)  \"\(item.phrase ?? "")\": \(item.description) (\(item.intent))"
            + Self.madeInto(item.shortcuts))
      }
    }
    for line in lines { try await context.output(line) }
    return ExitStatus.success.rawValue
  }

  static func madeInto(_ shortcuts: [String]) -> String {
    shortcuts.isEmpty ? "" : " [added: \(shortcuts.joined(separator: ", "))]"
  }

  /// "just now", "5 minutes ago", "3 hours ago", "2 days ago".
  static func ago(_ time: Double, now: Double) -> String {
    let seconds = max(0, Int(now - time))
    func plural(_ count: Int, _ unit: String) -> String { "\(count) \(unit)\(count == 1 ? "" : "s") ago" }
    if seconds < 60 { return "just now" }
    if seconds < 3600 { return plural(seconds / 60, "minute") }
    if seconds < 86400 { return plural(seconds / 3600, "hour") }
    return plural(seconds / 86400, "day")
  }
}

/// `assistant shortcuts add`.
struct ShortcutsAdd: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "add",
      abstract: "Make a shortcut from a donation, a suggested shortcut or an intent.",
      discussion: """
        `add "PHRASE" --from ID` makes it from a donation or a suggested shortcut (`assistant shortcuts \
        suggested` lists them; ID is `[APP:][donation:|suggestion:]ID`, e.g. d1, com.example.rooms:d1 or \
        Rooms:suggestion:s1, for an identifier several things have); `add --from SUGGESTION-ID \
        [PHRASE]` takes the suggestion's phrase when PHRASE is omitted; `add "PHRASE" --intent APP INTENT` makes \
        it from any intent of an installed app. A donation gives the intent only: its values are preset with \
        --keep-values. A suggestion is a shortcut the app built: its values come with it. --set presets a value \
        (typed like `run`'s NAME=VALUE), --ask asks for a parameter each time instead. A phrase that is already \
        another shortcut's, that the assistant answers itself, that the command line takes for a command (or a \
        typo of one), or that an app's phrases already understand as something else (another app or intent, or \
        another value; in any language the apps have strings for) is refused (exit 65) naming the clash. With \
        --json: the shortcut as `list --json` shows it.
        """,
      arguments: [Self.phrase.argument, Self.intent.argument],
      options: [Self.from, Self.intentApp, Self.set, Self.ask, Self.keepValues],
      examples: [
        "assistant shortcuts add \"Book room with Rooms\" --from d1 --set isCancellationOfBooking=false",
        "assistant shortcuts add --from s1",
        "assistant shortcuts add \"Open my door\" --intent Rooms OpenDoor --set roomNumber=12",
      ])
  }

  static let phrase = Positional.optional("PHRASE", help: "What you will say, e.g. \"Book room with Rooms\".")
  static let intent = Positional.optional(
    "INTENT", help: "With --intent APP: the intent, by class, definition name or title.")
  static let from = Option.value(
    "--from", value: "ID", help: "A donation or a suggested shortcut: [APP:][donation:|suggestion:]ID, e.g. d1, s1.")
  static let intentApp = Option.value(
    "--intent", value: "APP",
    help: "Make it from an intent of APP (its name or bundle id); the intent follows the phrase.",
    completion: .apps)
  static let set = Option.value(
    "--set", value: "NAME=VALUE", help: "Preset a parameter's value (repeatable).", repeatable: true)
  static let ask = Option.value(
    "--ask", value: "NAME", help: "Ask for this parameter each time, do not preset it (repeatable).",
    repeatable: true)
  static let keepValues = Option.flag(
    "--keep-values", help: "From a donation: preset the donation's own values too.")

  var phrase: String?
  var intent: String?
  var from: String?
  var intentApp: String?
  var set: [String]
  var asks: [String]
  var keepValues: Bool

  init(_ parsed: ParsedCommand) throws {
    phrase = parsed[Self.phrase]
    intent = parsed[Self.intent]
    from = parsed.value(Self.from)
    intentApp = parsed.value(Self.intentApp)
    set = parsed.values(Self.set)
    asks = parsed.values(Self.ask)
    keepValues = parsed.flag(Self.keepValues)
    func usage(_ message: String) -> HostError { UsageError(message, path: ["shortcuts", "add"]).hostError }
    switch (from, intentApp) {
    case (nil, nil): throw usage("say what the shortcut runs: --from ID or --intent APP INTENT")
    case (.some, .some): throw usage("give --from or --intent, not both")
    case (.some, nil):
      if intent != nil { throw usage("with --from, give at most the PHRASE") }
    case (nil, .some):
      if phrase == nil || intent == nil {
        throw usage("--intent APP needs a PHRASE and an INTENT: add \"PHRASE\" --intent APP INTENT")
      }
      if keepValues { throw usage("--keep-values is for a donation (--from)") }
    }
    if let phrase, let problem = ShortcutPhrase.problem(phrase) { throw HostError(.usage, problem) }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let apps = try home.installedApps()
    let router = Router(apps: apps)
    let app: AppBundle
    let intentClass: String
    let origin: ShortcutOrigin?
    let isAppIntent: Bool
    if let from {
      origin = try await offloaded { () throws -> ShortcutOrigin in
        let store = DonationStore(home: home)
        return try ShortcutRules.origin(
          from, apps: apps, donations: store.donations(of:), suggestions: store.suggestions(of:))
      }
      app = origin!.app
      intentClass = origin!.intent.name
      isAppIntent = origin!.isAppIntent
      try ShortcutRules.checkSupported(origin!)
      if keepValues, case .suggestion = origin!.item {
        throw HostError(.usage, "--keep-values is for a donation; a suggestion's values always come with it")
      }
    } else {
      origin = nil
      app = try router.app(named: intentApp!)
      // An App Intent of the app, else a SiriKit intent (as `run` names them).
      if let appIntent = try Assistant.appIntent(named: intent!, in: app) {
        intentClass = appIntent.identifier
        isAppIntent = true
      } else {
        intentClass = try router.intentClass(named: intent!, in: app)
        isAppIntent = false
      }
    }
    let phrase: String
    if let given = self.phrase {
      phrase = given
    } else if let origin, case .suggestion(let suggestion) = origin.item {
      phrase = suggestion.suggestion.phrase
    } else {
      throw HostError(.usage, "a shortcut from a donation needs its PHRASE: add \"PHRASE\" --from \(from ?? "ID")")
    }
    let values =
      isAppIntent
      ? try Assistant.appIntentPresets(set, identifier: intentClass, in: app)
      : try router.values(set, intentClass: intentClass, in: app)
    try ShortcutRules.checkAsks(asks, set: values, intentClass: intentClass, app: app, isAppIntent: isAppIntent)
    let presets = ShortcutRules.presets(from: origin, keepValues: keepValues, set: values, asks: asks)
    // A phrase the command line takes for a command (or a typo of one) could never be said as `assistant "PHRASE"`.
    let parser = CommandLineParser(root: RootCommand.self)
    let words = ShortcutPhrase.words(phrase)
    if let command = parser.notAnUtterance(phrase) ?? (words.count == 1 ? parser.notAnUtterance(words[0]) : nil) {
      throw HostError(
        .dataError,
        "\"\(phrase)\" is \(command) for the command line, so `assistant \"\(phrase)\"` could never say it; choose "
          + "another phrase")
    }
    // Another shortcut's phrase first: the apps' phrases could be fixed with --set, and then this would refuse it.
    if let taken = try await offloaded({ () throws -> HostError? in try ShortcutStore(home: home).taken(phrase) }) {
      throw taken
    }
    if let clash = ShortcutRules.clash(
      phrase: phrase, app: app, intentClass: intentClass, presets: presets, apps: apps, isAppIntent: isAppIntent)
    {
      throw clash
    }
    let draft = ShortcutDraft(
      phrase: phrase, app: app.identifier.rawValue, appName: app.name, intentClass: intentClass, presets: presets,
      asks: asks, source: origin?.source ?? Shortcut.Source(kind: .intent), isAppIntent: isAppIntent)
    // A shortcut that could not run now is not made: a donation that no longer fits the app (a reinstall changed a
    // type, removed a case or a parameter) says why.
    if let reason = draft.inactiveReason(among: apps) {
      throw HostError(
        .dataError,
        "this shortcut could not run: \(reason); make it without the values that no longer fit (without "
          + "--keep-values, or with --set or --ask for them)")
    }
    let clock = try HostClock(environment: ProcessInfo.processInfo.environment)
    let shortcut = try await offloaded { () throws -> Shortcut in
      try ShortcutStore(home: home, clock: clock).add(draft)
    }
    let shown = ShortcutsList.Entry(shortcut, apps: apps)
    if context.json {
      try await context.output(json: shown)
    } else {
      try await context.output(Untrusted.shown("Added \(shown.line)", multiline: false))
      try await context.output(
        Untrusted.shown("Say \"\(shortcut.phrase)\" to run it\(shown.asksLine)."))
      // A donation's own values are kept only when asked: say which it had that were not.
      if let origin, case .donation(let donation) = origin.item, !keepValues {
        let left = donation.interaction.intent.parameters.keys.filter { presets[$0] == nil && !asks.contains($0) }
        if !left.isEmpty {
          try await context.output(
            Untrusted.shown(
              "The donation's own values of \(left.sorted().joined(separator: ", ")) are not preset (`--keep-values` "
                + "presets them)."))
        }
      }
    }
    return ExitStatus.success.rawValue
  }
}

/// `assistant shortcuts list`.
struct ShortcutsList: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "list",
      abstract: "List your shortcuts; those whose app is gone or changed say why they are inactive.",
      discussion: """
        Each shortcut: its identifier, phrase, app, intent, preset values and the parameters asked each time. A \
        shortcut whose app is not installed, or no longer has its intent or a parameter it uses, is kept but \
        inactive until the app is back. With --json: {"shortcuts": [{"identifier", "phrase", "app", \
        "bundleIdentifier", "intent", "presets", "asks", "source", "createdAt", "active", "inactiveReason"}]}.
        """,
      examples: ["assistant shortcuts list", "assistant shortcuts list --json"])
  }

  init(_ parsed: ParsedCommand) throws {}

  struct Entry: Encodable {
    var identifier: String
    var phrase: String
    var app: String
    var bundleIdentifier: String
    var intent: String
    var presets: ReportedValues
    var asks: [String]
    var source: String
    var createdAt: String
    var active: Bool
    var inactiveReason: String?
    /// The presets in words ("cancellation Book").
    private var presetWords: String

    init(_ shortcut: Shortcut, apps: [AppBundle]) {
      let state = ShortcutState.of(shortcut, among: apps)
      identifier = shortcut.identifier
      phrase = shortcut.phrase
      bundleIdentifier = shortcut.app
      intent = shortcut.intentClass
      presets = shortcut.presets
      asks = shortcut.asks
      source = shortcut.source.description
      createdAt = ParameterValue.formatDate(Date(timeIntervalSince1970: shortcut.createdAt))
      inactiveReason = state.reason
      active = state.reason == nil
      // Each preset as --set takes it, and in words where they differ: `isCancellationOfBooking=false (Book)`.
      let bundle: AppBundle?
      if case .active(let active) = state { bundle = active } else { bundle = nil }
      app = bundle?.name ?? shortcut.appName
      presetWords = shortcut.presets.keys.sorted().map { name in
        let value = shortcut.presets[name]!
        let typed = ShortcutRules.typed(value)
        let words = bundle.map { ShortcutRules.describe(value, name, of: shortcut, in: $0) } ?? typed
        return "\(name)=\(typed)" + (words == typed ? "" : " (\(words))")
      }.joined(separator: ", ")
    }

    enum CodingKeys: String, CodingKey {
      case identifier, phrase, app, bundleIdentifier, intent, presets, asks, source, createdAt, active, inactiveReason
    }

    /// `k1 "Book room with Rooms": BookRoomIntent of Rooms (com.example.rooms), presets isCancellationOfBooking=Book`.
    var line: String {
      "\(identifier) \"\(phrase)\": \(intent) of \(app) (\(bundleIdentifier))"
        + (presetWords.isEmpty ? ", no presets" : ", presets \(presetWords)")
        + (asks.isEmpty ? "" : ", asks \(asks.joined(separator: ", ")) each time")
        + (inactiveReason.map { "; inactive: \($0)" } ?? "")
    }

    /// `, asking for roomNumber each time`, or "".
    var asksLine: String { asks.isEmpty ? "" : " (it asks for \(asks.joined(separator: ", ")) each time)" }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let apps = try home.installedApps()
    let shortcuts = try await offloaded { () throws -> [Shortcut] in try ShortcutStore(home: home).shortcuts() }
    let entries = shortcuts.map { Entry($0, apps: apps) }
    if context.json {
      struct Report: Encodable { var shortcuts: [Entry] }
      try await context.output(json: Report(shortcuts: entries))
      return ExitStatus.success.rawValue
    }
    if entries.isEmpty {
      try await context.output(
        "You have no shortcuts. `assistant shortcuts suggested` shows what your apps offer; `assistant shortcuts "
          + "add` makes one.")
    }
    for entry in entries { try await context.output(Untrusted.shown(entry.line)) }
    return ExitStatus.success.rawValue
  }
}

/// `assistant shortcuts remove PHRASE|ID`.
struct ShortcutsRemove: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "remove",
      abstract: "Remove a shortcut, by its identifier or its phrase.",
      discussion: """
        An identifier (k1) is looked for first, then a phrase (case, punctuation and spacing aside). None: exit \
        69. With --json: the removed shortcut as `list --json` shows it.
        """,
      arguments: [Self.name.argument],
      examples: ["assistant shortcuts remove k1", "assistant shortcuts remove \"Book room with Rooms\""])
  }

  var name: String

  static let name = Positional("PHRASE|ID", help: "The shortcut's identifier or phrase.")

  init(_ parsed: ParsedCommand) throws { name = parsed[Self.name] }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let apps = try home.installedApps()
    let name = self.name
    let removed = try await offloaded { () throws -> Shortcut in try ShortcutStore(home: home).remove(name) }
    let entry = ShortcutsList.Entry(removed, apps: apps)
    if context.json {
      try await context.output(json: entry)
    } else {
      try await context.output(Untrusted.shown("Removed \(entry.line)"))
    }
    return ExitStatus.success.rawValue
  }
}
