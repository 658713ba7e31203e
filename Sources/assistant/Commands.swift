// The subcommands of `assistant`, one type each. They parse nothing themselves: the command model declares what
// they take, and each reads what the parser found.
import AppIntentsMetadata
import AssistantHost
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import ProcessSupervision
import Understanding
import UntrustedText

/// The utterance argument of `assistant` and `assistant ask`.
enum UtteranceArgument {
  static let name = "UTTERANCE"
  static let words = Positional.repeating(
    name, help: "What to say, e.g. \"Book room 12 for Ada with Rooms\" (the words are joined by spaces).")

  /// The longest utterance, in bytes of UTF-8: understanding one takes time in proportion to its length, and errors
  /// quote it.
  static let limit = 4096

  /// Why `utterance` is refused, or nil: it is longer than `limit`. The utterance itself is not quoted.
  static func problem(_ utterance: String) -> String? {
    let bytes = utterance.utf8.count
    guard bytes > limit else { return nil }
    return "the utterance is \(bytes) bytes; an utterance is at most \(limit)"
  }
}

/// `assistant`: the root. Its arguments are an utterance, said as to Siri.
struct RootCommand: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "assistant",
      abstract: "Siri's extension model on Linux: say something, and the app's sandboxed extensions answer.",
      discussion: """
        Say an utterance (`assistant "Book room 12 for Ada with Rooms"`), or give a command. Options may come \
        before or after the arguments; `--` ends them. A word that is close to a command's name is taken for a \
        typo of it; to say such a word, put the utterance after `--`.
        """,
      arguments: [UtteranceArgument.words.argument],
      options: conversationOptions + [localeOption] + confinementOptions + [noServerOption],
      subcommands: [
        Ask.self, Run.self, List.self, Phrases.self, Open.self, Validate.self, New.self, Build.self, Dev.self,
        Install.self,
        Uninstall.self,
        ShowSandboxProfile.self, Replay.self, Shell.self, Serve.self,
        Defaults.self, Passcode.self, Lock.self, Unlock.self, Status.self, Explain.self, Help.self, Completions.self,
        Manual.self, Strings.self, Shortcuts.self, Vocabulary.self, Storage.self,
      ],
      examples: [
        "assistant \"Book room 12 for Ada with Rooms\"",
        "assistant --answer Ada \"Book room 14 with Rooms\"",
        "assistant run Rooms BookRoom roomNumber=12 bookedBy=Ada --json",
      ])
  }

  var ask: Ask

  init(_ parsed: ParsedCommand) throws { ask = try Ask(parsed) }

  func run(in context: CommandContext) async throws -> Int32 { try await ask.run(in: context) }
}

/// `assistant ask UTTERANCE...`.
struct Ask: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "ask",
      abstract: "Say something, as to Siri (the same as `assistant \"UTTERANCE\"`).",
      discussion: """
        The utterance names an app ("... with Rooms", "ask Rooms to ...", "use Rooms to ...", "tell Rooms to ...", \
        "open Rooms and ...", "Rooms, ...") and says what to do; a leading "Hey Siri," or "Siri," is dropped. \
        Missing values are asked for at the terminal, or taken from --answer in order; with neither, the command \
        exits 75.
        """,
      arguments: [UtteranceArgument.words.argument],
      options: conversationOptions + [localeOption] + confinementOptions + [noServerOption],
      examples: ["assistant ask Book room 12 for Ada with Rooms"])
  }

  var utterance: String
  var launch: LaunchOptions

  init(_ parsed: ParsedCommand) throws {
    utterance = parsed[UtteranceArgument.words].joined(separator: " ")
    if let problem = UtteranceArgument.problem(utterance) {
      throw HostError(.usage, problem + "; say it in fewer words")
    }
    launch = try LaunchOptions(parsed)
    launch.usesServer = !parsed.flag(noServerOption)
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let recorder = launch.record.map { _ in TranscriptRecorder() }
    recorder?.record(.invocation(launch.recorded(.ask(utterance: utterance))))
    return try await recording(recorder, to: launch.record) {
      try await Self.show(launch.assistant(in: context, recorder: recorder).say(utterance), in: context)
    }
  }

  /// Prints what saying an utterance came to: the phrases a capability question asks for, or (with `--json`) the
  /// intent's outcome, whose dialog the conversation has said.
  /// - Returns: the exit status: 0, or 1 for an intent that failed.
  static func show(_ answer: Assistant.Answer, in context: CommandContext) async throws -> Int32 {
    switch answer {
    case .phrases(let list):
      try await printPhrases(list, in: context)
      return ExitStatus.success.rawValue
    case .outcome(let outcome):
      return try await Run.show(outcome, in: context)
    }
  }
}

extension LaunchOptions {
  /// The invocation line of a transcript for `command`: what changes the conversation of these options (the locale,
  /// and the voice when it is on).
  func recorded(_ command: TranscriptEntry.Invocation.Command) -> TranscriptEntry.Invocation {
    TranscriptEntry.Invocation(command: command, locale: locale, voice: voice ? true : nil)
  }
}

/// Runs `body` and, with a recorder, records its outcome (the exit status, or the error that ended it) and writes the
/// transcript to `path` whatever happened. The path is checked first: one that cannot take a transcript (a missing
/// folder, a directory, an empty name) is refused with 73 before anything runs.
func recording(
  _ recorder: TranscriptRecorder?, to path: String?, _ body: () async throws -> Int32
) async throws -> Int32 {
  guard let recorder, let path else { return try await body() }
  try await offloaded { () throws in try TranscriptFile.checkWritable(path, action: "record to") }
  do {
    let status = try await body()
    recorder.record(.outcome(exit: Int(status), error: nil))
    try await recorder.write(to: path)
    return status
  } catch is CancellationError {
    // Interrupted: the host exits with 128 + the signal (main.swift), and so says the transcript.
    let status = 128 + (ProcessRegistry.shared.interruptSignal ?? SIGINT)
    recorder.record(.outcome(exit: Int(status), error: "interrupted"))
    try await recorder.write(to: path)
    throw CancellationError()
  } catch {
    let status =
      if let error = error as? SystemError, error.code == EPIPE { 128 + SIGPIPE } else {
        HostFailure(error).error.status.rawValue
      }
    recorder.record(.outcome(exit: Int(status), error: "\(error)"))
    try await recorder.write(to: path)
    throw error
  }
}

/// `assistant run APP INTENT [NAME=VALUE...]`.
struct Run: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "run",
      abstract: "Run an intent directly, like a Shortcuts action.",
      discussion: """
        APP is an installed app's name or bundle id; INTENT its class (BookRoomIntent), definition name (BookRoom) \
        or title ("Book Room"). Each NAME=VALUE gives a parameter, typed by the intent definition. Values not \
        given are resolved and asked for as in a conversation.
        """,
      arguments: [Self.app.argument, Self.intent.argument, Self.values.argument],
      options: conversationOptions + [localeOption] + confinementOptions + [noServerOption],
      examples: [
        "assistant run Rooms BookRoom roomNumber=12 bookedBy=Ada",
        "assistant run Rooms BookRoom roomNumber=13 bookedBy=Ada --json",
      ])
  }

  static let app = Positional("APP", help: "An installed app: its name or bundle id.", completion: .apps)
  static let intent = Positional("INTENT", help: "The intent: its class, definition name or title.")
  static let values = Positional.repeating(
    "NAME=VALUE", help: "A parameter's value, e.g. roomNumber=12.", isOptional: true)

  var app: String
  var intent: String
  var values: [String]
  var launch: LaunchOptions

  init(_ parsed: ParsedCommand) throws {
    app = parsed[Self.app]
    intent = parsed[Self.intent]
    values = parsed[Self.values]
    launch = try LaunchOptions(parsed)
    launch.usesServer = !parsed.flag(noServerOption)
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let recorder = launch.record.map { _ in TranscriptRecorder() }
    recorder?.record(.invocation(launch.recorded(.run(app: app, intent: intent, values: values))))
    return try await recording(recorder, to: launch.record) {
      try await Self.show(
        launch.assistant(in: context, recorder: recorder).run(app: app, intent: intent, values: values), in: context)
    }
  }

  /// Prints how an intent ended (its dialog has been said): with `--json`, the outcome.
  /// - Returns: the exit status: 0, or 1 for a failure response.
  static func show(_ outcome: IntentOutcome, in context: CommandContext) async throws -> Int32 {
    if context.json { try await context.output(outcome.json()) }
    return outcome.isSuccess ? ExitStatus.success.rawValue : ExitStatus.failureResponse.rawValue
  }
}

/// `assistant list`.
struct List: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "list",
      abstract: "List the installed apps, their extensions and intents.",
      discussion: """
        An intent is marked "restricted while locked" when a rule that always applies needs the device unlocked \
        (the extension's IntentsRestrictedWhileLocked, the app's INIntentsRestrictedWhileLocked, or a SiriKit \
        intent that always needs it), and "needs protected data" when one needs protected data \
        (IntentsRestrictedWhileProtectedDataUnavailable, INIntentsRestrictedWhileProtectedDataUnavailable); \
        `assistant explain APP INTENT` says more. With --json: {"home", "apps": [{"name", "bundleIdentifier", \
        "path", "appGroups", "extensions": [{"name", "bundleIdentifier", "kind" (intents, intentsUI or appIntents: \
        the App Intents of an App Intents extension or of the app), "intents": [{"className", \
        "title", "parameters", "restrictedWhileLocked", "restrictedWhileProtectedDataUnavailable"}]}]}]}.
        """,
      options: [localeOption, Self.names],
      examples: ["assistant list", "assistant list --json"])
  }

  static let names = Option.flag(
    "--names",
    help:
      "Print only the apps' names, one a line (a name several apps share: their bundle ids), for scripts and shell "
      + "completion.")

  var locale: String
  var namesOnly: Bool

  init(_ parsed: ParsedCommand) throws {
    locale = try LaunchOptions(parsed).locale
    namesOnly = parsed.flag(Self.names)
  }

  struct Report: Encodable {
    var home: String
    var apps: [App]
  }
  struct App: Encodable {
    var name: String
    var bundleIdentifier: String
    var path: String
    var appGroups: [String]
    var extensions: [Extension]
  }
  struct Extension: Encodable {
    var name: String
    var bundleIdentifier: String
    /// "intents", "intentsUI", or "appIntents" (an App Intents extension, or the app's own App Intents).
    var kind: String
    var intents: [Intent]
  }
  struct Intent: Encodable {
    var className: String
    var title: String?
    var parameters: [String]
    /// An up-front rule (`LockPolicy`, condition always) needs an unlocked device: the extension's
    /// IntentsRestrictedWhileLocked, the app's INIntentsRestrictedWhileLocked, or a system intent that always does.
    var restrictedWhileLocked: Bool
    /// An up-front rule needs protected data: IntentsRestrictedWhileProtectedDataUnavailable or
    /// INIntentsRestrictedWhileProtectedDataUnavailable.
    var restrictedWhileProtectedDataUnavailable: Bool

    init(className: String, spec: IntentSpec?, app: AppBundle) {
      self.className = className
      title = spec?.title
      parameters = spec?.parameters.map(\.name) ?? []
      let upFront = LockPolicy.rules(for: className, of: app).filter { $0.condition == .always }
      restrictedWhileLocked = upFront.contains { $0.need == .unlockedDevice }
      restrictedWhileProtectedDataUnavailable = upFront.contains { $0.need == .protectedData }
    }

    /// An App Intent of a `Metadata.appintents`: its type name, title and parameters; restricted while locked by an
    /// `authenticationPolicy` other than `alwaysAllowed`.
    init(appIntent action: MetadataDocument.Action) {
      className = action.identifier.rawValue
      title = action.title?.key
      parameters = action.parameters.map(\.name.rawValue)
      restrictedWhileLocked = action.authenticationPolicy != .none
      restrictedWhileProtectedDataUnavailable = false
    }

    /// The markers the text form adds after the title.
    var markers: String {
      (restrictedWhileLocked ? ", restricted while locked" : "")
        + (restrictedWhileProtectedDataUnavailable ? ", needs protected data" : "")
    }
  }

  /// The App Intents of `app`, one entry for each `Metadata.appintents` (its own, its App Intents extensions').
  static func appIntents(of app: AppBundle) -> [Extension] {
    app.allAppIntentsMetadata.map { folder in
      let place = folder.bundleURL.standardizedFileURL
      let ext = app.appIntentsExtensions.first { $0.url.standardizedFileURL == place }
      let actions: [MetadataDocument.Action] =
        folder.readDocument?.actions.values.sorted { $0.identifier.rawValue < $1.identifier.rawValue } ?? []
      return Extension(
        name: ext?.name ?? app.name, bundleIdentifier: ext?.info.bundleIdentifier ?? app.info.bundleIdentifier,
        kind: "appIntents", intents: actions.map(Intent.init(appIntent:)))
    }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let apps = try home.installedApps().map { $0.localized(for: locale) }
    let report = Report(
      home: home.root.path,
      apps: apps.map { app in
        App(
          name: app.name, bundleIdentifier: app.info.bundleIdentifier, path: app.url.path,
          appGroups: app.entitlements.applicationGroups,
          extensions: app.extensions.map { ext in
            Extension(
              name: ext.name, bundleIdentifier: ext.info.bundleIdentifier,
              kind: ext.extensionInfo.point == .intentsUIService ? "intentsUI" : "intents",
              intents: ext.extensionInfo.intentsSupported.map { className in
                Intent(className: className, spec: app.runnableSpec(className: className)?.spec, app: app)
              })
          } + Self.appIntents(of: app))
      })
    if context.json {
      try await context.output(json: report)
      return 0
    }
    if namesOnly {
      // A name several apps share names none of them: their bundle ids instead.
      for app in report.apps {
        let shared = report.apps.filter { $0.name == app.name }.count > 1
        try await context.output(Untrusted.shown(shared ? app.bundleIdentifier : app.name))
      }
      return 0
    }
    var lines: [String] = []
    func print(_ line: String) { lines.append(Untrusted.shown(line)) }  // names from manifests, one line each
    if !home.exists && FileManager.default.fileExists(atPath: home.root.path) {
      throw HostError(
        .cannotCreate, "the home \(home.root.path) is not a folder; pass --home DIR (or set ASSISTANT_HOME)")
    }
    if apps.isEmpty {
      print(
        home.exists
          ? "No apps are installed in \(home.root.path). Install one with `assistant install BUNDLE.app`."
          : "No apps are installed: the home \(home.root.path) does not exist yet (`assistant install BUNDLE.app` "
            + "makes it).")
    }
    for app in report.apps {
      print("\(app.name) (\(app.bundleIdentifier))")
      for ext in app.extensions {
        print(
          "  \(ext.name) (\(ext.bundleIdentifier)): "
            + (ext.kind == "appIntents"
              ? (ext.bundleIdentifier == app.bundleIdentifier ? "App Intents of the app" : "App Intents extension")
              : ext.kind == "intentsUI" ? "Intents UI extension" : "Intents extension"))
        for intent in ext.intents {
          let parameters = intent.parameters.isEmpty ? "" : " (" + intent.parameters.joined(separator: ", ") + ")"
          print(
            "    \(intent.className)\(parameters)\(intent.title.map { ": \($0)" } ?? "")"
              + intent.markers)
        }
      }
      if !app.appGroups.isEmpty { print("  app groups: \(app.appGroups.joined(separator: ", "))") }
    }
    for line in lines { try await context.output(line) }
    return 0
  }
}

/// `assistant open APP [-- ARGS...]`.
struct Open: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "open",
      abstract: "Launch an app with its container and app groups, as tapping its icon would.",
      discussion: """
        ARGS go to the app; put them after `--` when one starts with `-`. The command exits with the app's own \
        status. With --json, the app's output goes to stderr and stdout gets {"app", "bundleIdentifier", "status"}.
        """,
      arguments: [Self.app.argument, Self.arguments.argument],
      options: [localeOption, storageLimitOption, noSandboxOption],
      examples: ["assistant open Rooms -- book 15 --by Ada", "assistant open Rooms list"])
  }

  static let app = Positional("APP", help: "An installed app: its name or bundle id.", completion: .apps)
  static let arguments = Positional.repeating(
    "ARGS", help: "The app's arguments.", isOptional: true, isPassthrough: true)

  var app: String
  var arguments: [String]
  var launch: LaunchOptions

  init(_ parsed: ParsedCommand) throws {
    app = parsed[Self.app]
    arguments = parsed[Self.arguments]
    launch = try LaunchOptions(parsed)
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let app = try Router(apps: try home.installedApps()).app(named: self.app)
    await launch.warnIfUnconfined()
    try await home.prepare()
    var launcher = AppLauncher(home: home)
    launcher.locale = launch.locale
    launcher.sandbox = launch.sandbox
    launcher.outputToStandardError = context.json
    let status = try await launcher.open(app, arguments: arguments)
    if context.json {
      struct Report: Encodable {
        var app: String
        var bundleIdentifier: String
        var status: Int32
      }
      try await context.output(json: Report(app: app.name, bundleIdentifier: app.info.bundleIdentifier, status: status))
    }
    return status
  }
}

/// `assistant validate [--setting NAME=VALUE] PATH...`.
struct Validate: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "validate",
      abstract: "Check bundles, source folders or single manifest files with Apple's rules.",
      discussion: """
        Exits 65 when there is an error, 66 when a PATH does not exist. docs/VALIDATION.md lists every rule.
        """,
      arguments: [Self.paths.argument],
      options: [Self.setting],
      examples: [
        "assistant validate Sources/Examples",
        "assistant validate My.app --json",
        "assistant validate --setting PRODUCT_BUNDLE_IDENTIFIER=com.example.app Info.plist",
      ])
  }

  static let paths = Positional.repeating(
    "PATH", help: "A bundle, a folder of sources, or a file.", completion: .file)
  static let setting = Option.value(
    "--setting", value: "NAME=VALUE", help: "A build setting for the $(NAME) references of Info.plists (repeatable).",
    repeatable: true)

  var paths: [String]
  var settings: [String: String] = [:]

  init(_ parsed: ParsedCommand) throws {
    paths = parsed[Self.paths]
    for setting in parsed.values(Self.setting) {
      guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
        throw HostError(
          .usage, "--setting needs NAME=VALUE, e.g. --setting PRODUCT_BUNDLE_IDENTIFIER=com.example.app")
      }
      settings[String(setting[..<equals])] = String(setting[setting.index(after: equals)...])
    }
  }

  struct Report: Encodable {
    var paths: [String]
    var errors: Int
    var warnings: Int
    var diagnostics: [Diagnostic]
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let validator = Validator(settings: settings, home: try? context.home())
    var diagnostics: [Diagnostic] = []
    for path in paths { diagnostics += await offloaded { validator.validate(path: path) } }
    let errors = diagnostics.errors.count
    let warnings = diagnostics.filter { $0.severity == .warning }.count
    if context.json {
      try await context.output(
        json: Report(paths: paths, errors: errors, warnings: warnings, diagnostics: diagnostics))
    } else {
      for diagnostic in diagnostics { try await context.output(diagnostic.shown) }
      let notes = diagnostics.count - errors - warnings
      try await context.output(
        "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
          + (notes > 0 ? ", \(notes) note\(notes == 1 ? "" : "s")" : "")
          + " in \(Untrusted.shown(paths.joined(separator: ", ")))")
    }
    return Validator.exitStatus(for: diagnostics).rawValue
  }
}

/// `assistant install [--share-group GROUP] BUNDLE.app...`.
struct Install: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "install",
      abstract: "Install or update app bundles that validate and whose team owns their ids and app groups.",
      discussion: """
        A bundle that breaks a rule is refused (exit 65); one whose bundle id or app group belongs to another team \
        is refused (exit 77) unless the group is shared with --share-group.
        """,
      arguments: [Self.bundles.argument],
      options: [Self.shareGroup],
      examples: ["assistant install My.app", "assistant install --share-group group.com.example.rooms Spy.app"])
  }

  static let bundles = Positional.repeating("BUNDLE.app", help: "A bundle folder.", completion: .directory)
  static let shareGroup = Option.value(
    "--share-group", value: "GROUP",
    help: "Let the bundle use app group GROUP although another team owns it (repeatable).", repeatable: true)

  var bundles: [String]
  var sharedGroups: Set<String> = []

  init(_ parsed: ParsedCommand) throws {
    bundles = parsed[Self.bundles]
    for group in parsed.values(Self.shareGroup) {
      if let problem = AppGroupIdentifier.problem(group) { throw HostError(.usage, "--share-group: \(problem)") }
      sharedGroups.insert(group)
    }
  }

  struct Installed: Encodable {
    var name: String
    var bundleIdentifier: String
    var path: String
    var warnings: [Diagnostic]
    /// What the install changed for the user's shortcuts (`ShortcutRules.installNotices`).
    var shortcuts: [ShortcutNotice]
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    try await home.prepare()
    // The user's shortcuts, to say what each install changes for them; unreadable ones are the `shortcuts`
    // commands' to report.
    let shortcuts = await offloaded { (try? ShortcutStore(home: home).shortcuts()) ?? [] }
    var installed: [Installed] = []
    for path in bundles {
      let before = shortcuts.isEmpty ? [] : try await offloaded { () throws in try home.installedApps() }
      let (app, diagnostics) = try await home.install(from: URL(fileURLWithPath: path), sharing: sharedGroups)
      let after = shortcuts.isEmpty ? [] : try await offloaded { () throws in try home.installedApps() }
      let notices = ShortcutRules.installNotices(shortcuts, before: before, after: after)
      let warnings = diagnostics.filter { $0.severity == .warning }
      if !context.json {
        for diagnostic in warnings { await FileDescriptor.standardError.write("\(diagnostic.shown)\n") }
        try await context.output(
          Untrusted.shown("Installed \(app.name) (\(app.info.bundleIdentifier)) in \(app.url.path)"))
        for notice in notices {
          await FileDescriptor.standardError.write(
            Untrusted.shown("assistant: \(notice.change == .clash ? "warning" : "note"): \(notice.message)") + "\n")
        }
      }
      installed.append(
        Installed(
          name: app.name, bundleIdentifier: app.info.bundleIdentifier, path: app.url.path, warnings: warnings,
          shortcuts: notices))
    }
    if context.json {
      struct Report: Encodable { var installed: [Installed] }
      try await context.output(json: Report(installed: installed))
    }
    return 0
  }
}

/// `assistant uninstall APP|BUNDLE-ID`.
struct Uninstall: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "uninstall",
      abstract: "Remove an installed app; its containers, app groups and logs are kept.",
      arguments: [Self.app.argument],
      examples: ["assistant uninstall Rooms", "assistant uninstall com.example.rooms"])
  }

  static let app = Positional("APP", help: "An installed app: its name, bundle id or folder.", completion: .apps)

  var app: String

  init(_ parsed: ParsedCommand) throws { app = parsed[Self.app] }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    struct Report: Encodable {
      var uninstalled: String
      var bundleIdentifier: String?
    }
    let report: Report
    let message: String
    do {
      let name = app
      let (removed, unforgotten) = try await offloaded { try home.uninstall(name) }
      report = Report(uninstalled: removed.name, bundleIdentifier: removed.info.bundleIdentifier)
      message =
        "Uninstalled \(removed.name) (\(removed.info.bundleIdentifier)); kept: its containers, app groups and your "
        + "shortcuts of it (inactive until it is back); forgotten: its donations, suggestions and vocabulary"
        + (unforgotten.isEmpty ? "" : ", but for what the warnings above name")
      // The bundle is gone either way: what could not be forgotten is a warning (on stderr, also with --json).
      for problem in unforgotten {
        await FileDescriptor.standardError.write(Untrusted.shown("assistant: warning: \(problem)") + "\n")
      }
    } catch let removed as InvalidBundleRemoved {
      report = Report(uninstalled: removed.folder, bundleIdentifier: nil)
      message = "Removed \(removed.folder), which no longer loaded; its data is kept"
    }
    if context.json {
      try await context.output(json: report)
    } else {
      try await context.output(Untrusted.shown(message))
    }
    return 0
  }
}

/// `assistant sandbox-profile APP|EXTENSION`.
struct ShowSandboxProfile: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "sandbox-profile",
      abstract: "Show what an app or extension may read, write and run, its limits and deadlines.",
      discussion: """
        For an app (its own profile, then each extension's) or one extension, what a launch gets: what it may \
        execute, read, and read and write (its bundle, the library files the loader needs, its container and app \
        groups); the read-only paths its entitlements grant, each by its real path and what of it (a path ending \
        in / is the folder and everything in it, a folder without the / its listing only); the network it may \
        use; the uid and groups it runs as (when the host runs as root); its limits, with what its container and \
        groups hold now; and an extension's deadlines. It runs nothing and changes nothing. With --json: \
        {"profiles": [{"name", "bundleIdentifier", "kind", "execute", "read", "readWrite", "identity", "limits", \
        "storage", "deadlines", "enforced", "interpreter", "network", "readExceptions"}]}.
        """,
      arguments: [Self.name.argument],
      options: [deadlineOption] + confinementOptions,
      examples: ["assistant sandbox-profile RoomsIntents", "assistant sandbox-profile Rooms --json"])
  }

  static let name = Positional(
    "APP|EXTENSION", help: "An installed app or extension: its name or bundle id.", completion: .apps)

  var name: String
  var launch: LaunchOptions

  init(_ parsed: ParsedCommand) throws {
    name = parsed[Self.name]
    launch = try LaunchOptions(parsed)
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    // Computing a profile may record the app's identity (a locked, synced update): off the pool.
    let (name, policy, deadlines) = (self.name, launch.sandbox, launch.deadlines)
    let profiles = try await offloaded { try sandboxProfiles(name, home: home, policy: policy) }
    if context.json {
      struct Report: Encodable { var profiles: [AssistantHost.SandboxProfile.Report] }
      try await context.output(
        json: Report(
          profiles: profiles.map {
            $0.report(deadlines: $0.kind == .app ? nil : deadlines, sandboxed: policy.enabled)
          }))
      return 0
    }
    let mechanism = SandboxReport.memoryMechanism(simulating: policy.simulatedKernel)
    let text = profiles.map {
      $0.description(deadlines: $0.kind == .app ? nil : deadlines, memoryMechanism: mechanism)
    }.joined(separator: "\n\n")
    try await context.output(
      Untrusted.shown(text, multiline: true)
        + (policy.enabled ? "" : "\n(--no-sandbox is set: none of this applies on this run)"))
    return 0
  }
}

/// The profiles `sandbox-profile NAME` shows: an app's and its extensions', or one extension's.
func sandboxProfiles(_ name: String, home: AssistantHome, policy: SandboxPolicy) throws -> [SandboxProfile] {
  let apps = try home.installedApps()
  var enabled = policy
  enabled.enabled = true
  let router = Router(apps: apps)
  // An app by its bundle id or name (several apps with that name: refused, listing them), else an extension.
  if !router.apps(answeringTo: name).isEmpty || router.extensions(answeringTo: name).isEmpty {
    let app = try router.app(named: name, orExtension: true)
    return try [home.profile(of: app, extensionNamed: nil, policy: enabled)]
      + (app.extensions.map(\.name) + app.appIntentsExtensions.map(\.name)).map {
        try home.profile(of: app, extensionNamed: $0, policy: enabled)
      }
  }
  let (app, ext) = try router.onlyExtension(answeringTo: name)
  return [try home.profile(of: app, extensionNamed: ext.name, policy: enabled)]
}
