import AppIntentsMetadata
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import NameSuggestions
import Understanding
import UntrustedText

/// The assistant's use cases, one call each: say an utterance (`say`), run an intent (`run`). The command line
/// (`assistant "UTTERANCE"`, `ask`, `run`), `shell`, `replay`, the benchmark and the tests all call these; the engine
/// decides, and the caller prints what comes back.
///
/// A use case understands, asks and answers through `Configuration.conversation`, records into
/// `Configuration.recorder` when there is one, and starts what it runs in the sandbox of `Configuration.sandbox`;
/// whatever it starts is stopped before it returns (or kept in `Configuration.warm`).
package struct Assistant: Sendable {
  /// What the use cases run with: the command line's options, as values.
  package struct Configuration: Sendable {
    /// The host home. A use case that runs an intent prepares it (`AssistantHome.prepare()`).
    package var home: AssistantHome
    /// How the assistant talks to the user; checked after each intent (`CheckedConversation`).
    package var conversation: any CheckedConversation
    /// The user's locale (`--locale`).
    package var locale = "en_US"
    /// Say the voice dialog instead of the printed one (`--voice`).
    package var voice = false
    /// The deadlines of each phase (`--deadline`).
    package var deadlines = Deadlines()
    /// How extensions and apps are confined (`--no-sandbox`, `--cpu-limit`, `--memory-limit`, `--storage-limit`).
    package var sandbox = SandboxPolicy()
    /// Whose lock rules an intent respects.
    package var device = Device.ofThisProcess
    /// Where extensions are kept running between intents (`shell`); nil starts and stops them for each intent.
    package var warm: WarmExtensions? = nil
    /// The home's server (`assistant serve`), which lends its running extensions to the run; nil starts them here.
    /// Set it only for a run confined by the default policy (the server launches with it); a recorded run
    /// (`recorder`) starts its own, so that its transcript has every message.
    package var server: ServerClient? = nil
    /// Where the run is recorded (`--record`, `replay`): the conversation, the messages and the intent's answer.
    package var recorder: TranscriptRecorder? = nil
    /// Whether stdout carries one JSON document (`--json`): then an app's own output goes to stderr, and the dialog
    /// (which a quiet `TerminalConversation` writes to stderr) is not the output, so a failed write of it does not end
    /// the use case. Otherwise the dialog is the output: when it cannot be written, the use case ends as a failed
    /// write of stdout (`SystemError.onStandardOutput`).
    package var standardOutputIsJSON = false
    /// How sessions are started; nil: sandboxed child processes (tests serve them in-process).
    var launcher: (any SessionLauncher)? = nil
    /// Faults to inject into the run's extension processes (the testing library's fault plans); none by default.
    package var faults = FaultPlan()

    package init(home: AssistantHome, conversation: any CheckedConversation) {
      self.home = home
      self.conversation = conversation
    }
  }

  /// Whose lock rules a run respects (`IntentDriver.device`).
  package enum Device: Sendable {
    /// None: no lock rule is checked and every authentication is answered `cancelled` (the benchmark).
    case unchecked
    /// This device (a test's, on a clock of its own).
    case state(DeviceState)
    /// The home's device on this process's clock (`INTENTHOST_CLOCK_OFFSET`), read as an intent is about to run:
    /// a malformed clock fails the use cases that run one (64), not a capability question.
    case ofThisProcess
  }

  /// What saying an utterance came to.
  package enum Answer: Sendable {
    /// A capability question ("What can you do?", "What can I say to Rooms?"): what the apps answer to, to be
    /// listed as `assistant phrases` lists it.
    case phrases(PhraseList)
    /// An intent ran (its dialog was said through the conversation) and ended so.
    case outcome(IntentOutcome)
  }

  package var configuration: Configuration

  package init(_ configuration: Configuration) { self.configuration = configuration }

  /// Says `utterance`, as to Siri (a wake phrase that starts it, "Hey Siri, ...", is no part of it: `WakePhrase`): a
  /// capability question is answered with the apps' phrases; one of the user's
  /// shortcuts runs its intent (before the apps' phrases, no app name needed); otherwise the utterance is
  /// understood against the installed apps' phrases, with the user's vocabulary (`host/setVocabulary`) counting in
  /// their slots, and when it could mean several intents the user says which one ("Which one? (1-N)"). The intent
  /// then runs (`run(_:)`).
  /// "cancel" to "which one?" runs nothing and is the user's cancel (`cancelledByUser`).
  /// - Throws: `HostError(.noMatch)` (69) when nothing matches, or the shortcut said is inactive;
  ///   `HostError(.usage)` for an answer to "which one?" that is not one of the numbers; what `run(_:)` throws.
  package func say(_ utterance: String) async throws -> Answer {
    let home = configuration.home
    if let app = PhraseBook.capabilityQuestion(utterance) {
      return .phrases(try await PhraseList.of(app, in: home, locale: configuration.locale))
    }
    // One of the user's shortcuts: before the apps' phrases, no app name needed, and after a wake phrase too ("Hey
    // Siri, open my door"; the capability question and the matcher leave it out themselves).
    switch try await shortcutInvocation(WakePhrase.removed(from: utterance)) {
    case .siriKit(let invocation): return .outcome(try await run(invocation))
    case .appIntent(let invocation, let shortcut):
      var outcome = try await run(invocation)
      outcome.shortcut = shortcut
      return .outcome(outcome)
    case nil: break
    }
    let found = try await candidates(for: utterance)
    // Several apps or intents: the user says which (a number, or scripted with --answer).
    guard let index = try await whichOne(of: found.map(\.label), saying: utterance) else {
      return .outcome(await declinedChoice())
    }
    switch found[index] {
    case .appShortcut(let invocation): return .outcome(try await run(invocation))
    case .intent(let match):
      return .outcome(
        try await run(IntentInvocation(app: match.app, intentClass: match.intentClass, values: match.values)))
    }
  }

  /// What an utterance may mean, as `say` understands it.
  package enum Candidate: Sendable {
    /// An App Shortcut phrase of an app's App Intents, said whole.
    case appShortcut(AppIntentInvocation)
    /// A SiriKit intent of an app (its phrases, titles, system phrases).
    case intent(UtteranceMatcher.Match)

    /// As "which one?" lists it: "INTENT of APP (ID)".
    var label: String {
      switch self {
      case .appShortcut(let invocation):
        "\(invocation.identifier) of \(invocation.app.name) (\(invocation.app.identifier))"
      case .intent(let match): "\(match.intentClass) of \(match.app.name) (\(match.app.identifier))"
      }
    }
  }

  /// What `utterance` may mean among the installed apps, best first, without running anything (the understanding
  /// `say` asks "which one?" of when there are several; the user's shortcuts and capability questions aside): the
  /// apps' App Shortcuts said whole, then the other apps' SiriKit phrases; else the SiriKit phrases of all apps, with
  /// the user's vocabulary (`host/setVocabulary`) counting in their slots.
  /// - Throws: `UnderstandingError(.noMatch)` (69) when nothing matches, with the closest phrases.
  package func candidates(for utterance: String) async throws -> [Candidate] {
    let home = configuration.home
    // The apps' own terms for the user (`host/setVocabulary`) count in their slots (`assistant vocabulary APP`).
    let apps = try home.installedApps()
    let terms = await offloaded { DonationStore(home: home).userVocabularies(of: apps) }
    for problem in terms.problems { await FileDescriptor.standardError.write("assistant: warning: \(problem)\n") }
    // The user's active shortcuts are suggested too when nothing matches.
    let shortcuts = await activeShortcuts(apps: apps)
    let matcher = UtteranceMatcher(
      apps: apps, locale: configuration.locale, vocabulary: terms.vocabularies, shortcuts: shortcuts)
    // The apps' App Shortcuts (App Intents): a phrase said whole, before the SiriKit phrases of the same apps. When
    // another app's SiriKit phrases match too (an app that answers to another's name: install warned of it), the
    // user says which, as for any utterance that could mean several apps: no app takes another's words unasked.
    let appShortcuts = AppShortcutMatcher(apps: apps, locale: configuration.locale).matches(utterance)
    if !appShortcuts.isEmpty {
      // The other apps' SiriKit phrases (without the apps whose App Shortcut matched: a name they share with
      // another app would make the reading ambiguous, and they have answered already).
      let named = Set(appShortcuts.map(\.app.url))
      let others =
        (try? UtteranceMatcher(
          apps: apps.filter { !named.contains($0.url) }, locale: configuration.locale,
          vocabulary: terms.vocabularies
        ).understand(utterance)) ?? []
      return appShortcuts.map(Candidate.appShortcut) + others.map(Candidate.intent)
    }
    return try matcher.understand(utterance).map(Candidate.intent)
  }

  /// Runs the intent `intent` of the installed app `app` with `values`, like a Shortcuts action (`run(_:)`).
  /// - Parameters:
  ///   - app: an installed app's name or bundle id.
  ///   - intent: its class (BookRoomIntent), definition name (BookRoom) or title ("Book Room").
  ///   - values: `NAME=VALUE` each, typed by the intent definition.
  /// - Throws: `HostError` naming what is not installed, defined or a value of its type (`Router`); what `run(_:)`
  ///   throws.
  package func run(app: String, intent: String, values: [String]) async throws -> IntentOutcome {
    if let invocation = try appIntentInvocation(app: app, intent: intent, values: values) {
      return try await run(invocation)
    }
    return try await run(invocation(app: app, intent: intent, values: values))
  }

  /// The App Intent `run(app:intent:values:)` runs when the app's `Metadata.appintents` declares `intent`
  /// (`names(_:_:)`); nil when it declares none of that name and the app has a SiriKit intent of that name, or no
  /// App Intents.
  /// - Throws: `HostError` for an app that is not installed, or a value that is not `NAME=VALUE` of a parameter of
  ///   the intent, or does not read as its type; `UnderstandingError(.noMatch)` when the app has App Intents and
  ///   neither they nor its SiriKit intents are called `intent`, listing both.
  package func appIntentInvocation(app: String, intent: String, values: [String]) throws -> AppIntentInvocation? {
    let router = Router(apps: try configuration.home.installedApps())
    let app = try router.app(named: app)
    if var invocation = try Self.appIntent(named: intent, in: app) {
      (invocation.values, invocation.entityWords) = try Self.read(
        values, of: invocation.action, in: invocation.document)
      return invocation
    }
    let declared = app.allAppIntentsMetadata.compactMap(\.readDocument)
      .flatMap { $0.actions.keys.map(\.rawValue).sorted() }
    guard !declared.isEmpty else { return nil }
    do {
      _ = try router.intentClass(named: intent, in: app)
      return nil
    } catch let error as UnderstandingError where error.kind == .noMatch {
      // Neither a SiriKit intent nor an App Intent: the message lists both, as `run` takes both.
      let names = app.supportedIntents + declared
      let short = declared.compactMap { $0.hasSuffix("Intent") ? String($0.dropLast("Intent".count)) : nil }
      throw UnderstandingError(
        .noMatch,
        "\(app.name) has no intent called \"\(intent)\"" + suggestion(intent, among: names + short)
          + "; it supports " + listOrNone(names))
    }
  }

  /// `NAME=VALUE` assignments to parameters of `action`, as `run` reads them: each value by its parameter's type
  /// (`IntentDriver.read`), an AppEntity's words kept apart for its query to read.
  /// - Throws: `HostError(.usage)` naming an assignment that is not `NAME=VALUE` of a parameter, or whose value does
  ///   not read as its type.
  static func read(_ assignments: [String], of action: MetadataDocument.Action, in document: MetadataDocument) throws
    -> (values: [String: ParameterValue], entityWords: [String: String])
  {
    var values: [String: ParameterValue] = [:]
    var entityWords: [String: String] = [:]
    for assignment in assignments {
      let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, let parameter = action.parameter(parts[0]) else {
        let names = action.parameters.map(\.name.rawValue)
        throw HostError(
          .usage,
          "\"\(assignment)\" is not NAME=VALUE of a parameter of \(action.identifier.rawValue); its parameters are "
            + (names.isEmpty ? "none" : names.joined(separator: ", ")))
      }
      if IntentDriver.readsByQuery(parameter) {
        entityWords[parts[0]] = parts[1]
      } else if let value = IntentDriver.read(parts[1], for: parameter, in: document) {
        values[parts[0]] = value
      } else {
        throw HostError(
          .usage,
          "\(parts[0])=\(parts[1]): \(parameter.title?.key ?? parts[0]) needs "
            + IntentDriver.expectation(for: parameter, in: document))
      }
    }
    return (values, entityWords)
  }

  /// The values `--set NAME=VALUE` presets for a shortcut of the App Intent `identifier` of `app`, each read as
  /// `run` reads it (`read(_:of:in:)`). An AppEntity cannot be preset in words (its query is the app's, which a
  /// shortcut does not run to make it): it comes from a donation (`--keep-values`) or is asked (`--ask`).
  /// - Throws: `HostError(.usage)` naming a value that is not `NAME=VALUE` of a parameter, or does not read, or an
  ///   AppEntity.
  package static func appIntentPresets(_ values: [String], identifier: String, in app: AppBundle) throws
    -> [String: ParameterValue]
  {
    guard let (_, document, action) = ShortcutRules.appIntent(identifier, of: app) else { return [:] }
    let read = try read(values, of: action, in: document)
    if let name = read.entityWords.keys.sorted().first {
      throw HostError(
        .usage,
        "--set \(name): \(name) is an AppEntity, which is not preset in words; make the shortcut from a donation "
          + "with --keep-values, or ask for it each time with --ask \(name)")
    }
    return read.values
  }

  /// Whether `name` names `action` by its type as `run` names an intent: its type name (`AddStockIntent`) or that
  /// name without `Intent` (`AddStock`), case aside.
  static func namesType(_ name: String, _ action: MetadataDocument.Action) -> Bool {
    let identifier = action.identifier.rawValue.lowercased()
    let wanted = name.lowercased()
    return identifier == wanted || identifier == wanted + "intent"
  }

  /// The App Intent of `app` called `intent` (its type name, that name without `Intent`, or its title), with no
  /// value yet; nil when none of its `Metadata.appintents` declares one. A type name names one intent; a title that
  /// several intents share names none of them.
  /// - Throws: `HostError(.usage)` when `intent` is the title of several App Intents of `app` and the type name of
  ///   none: the message lists their identifiers, which name each.
  package static func appIntent(named intent: String, in app: AppBundle) throws -> AppIntentInvocation? {
    var titled: [AppIntentInvocation] = []
    for folder in app.allAppIntentsMetadata {
      guard let document = folder.readDocument else { continue }
      for action in document.actions.values.sorted(by: { $0.identifier.rawValue < $1.identifier.rawValue }) {
        let invocation = AppIntentInvocation(app: app, metadata: folder, action: action, values: [:])
        if namesType(intent, action) { return invocation }
        if action.title.map({ sameWords($0.key, intent) }) == true { titled.append(invocation) }
      }
    }
    guard titled.count > 1 else { return titled.first }
    let identifiers = titled.map(\.identifier)
    throw HostError(
      .usage,
      "\"\(intent)\" is the title of \(titled.count) App Intents of \(app.name) ("
        + identifiers.joined(separator: ", ") + "), so it does not say which; name one by its identifier instead: "
        + identifiers.joined(separator: " or "))
  }

  /// The index of the one of `candidates` (each "INTENT of APP (ID)") the user means: 0 when it is alone, else the
  /// user says which; nil when the user says "cancel" (a cancel word of `SpokenAnswer`).
  /// - Throws: `HostError(.usage)` for an answer that is not one of the numbers.
  private func whichOne(of candidates: [String], saying utterance: String) async throws -> Int? {
    guard candidates.count > 1 else { return 0 }
    let conversation = recorded(configuration.conversation)
    await conversation.explain("\"\(utterance)\" could mean:")
    for (index, candidate) in candidates.enumerated() { await conversation.explain("  \(index + 1). \(candidate)") }
    let answer = try await conversation.ask("Which one? (1-\(candidates.count))", need: "which one")
    if SpokenAnswer.isCancel(answer) { return nil }
    guard let number = Int(answer.trimmingCharacters(in: .whitespaces)), (1...candidates.count).contains(number) else {
      throw HostError(.usage, "\"\(answer)\" is not one of 1-\(candidates.count)")
    }
    return number - 1
  }

  /// "cancel" to "which one?": nothing runs, and the utterance ends as the user's cancel of an intent does ("OK, I
  /// won't.", `cancelledByUser`, exit 1), with no app or intent, since none was chosen; recorded as an answer.
  private func declinedChoice() async -> IntentOutcome {
    let dialog = "OK, I won't."
    await recorded(configuration.conversation).say(dialog)
    configuration.recorder?.record(
      .assistant(.answer(code: "cancelledByUser", success: false, dialog: dialog, voiceDialog: nil)))
    return IntentOutcome(
      app: "", intent: "", parameters: [:], code: "cancelledByUser", isSuccess: false, dialog: dialog)
  }

  /// The invocation `run(app:intent:values:)` runs.
  package func invocation(app: String, intent: String, values: [String]) throws -> IntentInvocation {
    let router = Router(apps: try configuration.home.installedApps())
    let app = try router.app(named: app)
    let intentClass = try router.intentClass(named: intent, in: app)
    let values = try router.values(values, intentClass: intentClass, in: app)
    return IntentInvocation(app: app, intentClass: intentClass, values: values)
  }

  /// Runs `invocation` to its answer (resolve, confirm, handle; `IntentDriver`), the dialog said through the
  /// conversation. The device's lock rules are checked for this run, whether its extension is started or kept warm;
  /// with the sandbox off, a warning goes to stderr first. The answer is recorded (an `assistant` line with its code
  /// and dialog) when there is a recorder.
  /// - Throws: what the run throws (`HostError` with the README's statuses); a `SystemError` for stdout
  ///   (`onStandardOutput`) when the dialog, being the output, could not be written (after the run went to its
  ///   end); `HostError(.usage)` (64) naming the scripted answers nobody asked for, after the run.
  package func run(_ invocation: IntentInvocation) async throws -> IntentOutcome {
    try await drive { driver in try await driver.run(invocation) }
  }

  /// Runs the App Intent `invocation` to its answer (`IntentDriver.run(_:)` of an `AppIntentInvocation`: parameters,
  /// then perform), as `run(_:)` runs a SiriKit intent: the same configuration, recording, checks and errors.
  package func run(_ invocation: AppIntentInvocation) async throws -> IntentOutcome {
    try await drive { driver in try await driver.run(invocation) }
  }

  /// The driver of this configuration, running `body`; the checks after a run (see `run(_:)`).
  private func drive(_ body: (IntentDriver) async throws -> IntentOutcome) async throws -> IntentOutcome {
    let configuration = configuration
    if !configuration.sandbox.enabled { await FileDescriptor.standardError.write(SandboxPolicy.warning + "\n") }
    try await configuration.home.prepare()
    let conversation = configuration.conversation
    var driver = IntentDriver(home: configuration.home, conversation: recorded(conversation))
    if let launcher = configuration.launcher { driver.launcher = launcher }
    driver.recorder = configuration.recorder
    driver.appOutputToStandardError = configuration.standardOutputIsJSON
    driver.speaksVoiceDialog = configuration.voice
    driver.deadlines = configuration.deadlines
    driver.locale = configuration.locale
    driver.sandbox = configuration.sandbox
    driver.device = try configuration.device.state(home: configuration.home)
    driver.warm = configuration.warm
    if configuration.recorder == nil { driver.server = configuration.server }
    driver.faults = configuration.faults.faults.isEmpty ? nil : FaultInjector(configuration.faults)
    // The containers and groups of the run's launches: the user hears of those that are full once it ends.
    let storageWatch = StorageWatch()
    driver.storageWatch = storageWatch
    let dialogIsOutput = !configuration.standardOutputIsJSON
    let outcome: IntentOutcome
    do {
      outcome = try await body(driver)
      await storageWatch.report()
    } catch {
      if !(error is CancellationError) { await storageWatch.report() }
      // The reader of the dialog went away: the run ends quietly with 141, as SIGPIPE would have ended it.
      if dialogIsOutput, let lost = conversation.dialogWriteFailure, lost.code == EPIPE {
        throw lost.onStandardOutput
      }
      throw error
    }
    // The dialog could not be written: the run went to its end, and the use case ends as its output failed.
    if dialogIsOutput, let lost = conversation.dialogWriteFailure { throw lost.onStandardOutput }
    configuration.recorder?.record(
      .assistant(
        .answer(
          code: "\(outcome.code)", success: outcome.isSuccess, dialog: outcome.dialog,
          voiceDialog: outcome.voiceDialog)))
    // A scripted answer nobody asked for means the script expected another conversation: it may have answered the
    // wrong question. An error, so it cannot pass silently.
    let unused = conversation.unusedAnswers
    if !unused.isEmpty {
      throw HostError(
        .usage,
        "\(unused.count == 1 ? "an answer was" : "\(unused.count) answers were") not used (no question was asked "
          + "for " + unused.map { "--answer \"\($0)\"" }.joined(separator: ", ")
          + "); the intent ended with \(outcome.code); remove the extra --answer or check which questions were asked")
    }
    return outcome
  }

  /// The conversation, recorded into the recorder when there is one.
  private func recorded(_ conversation: any Conversation) -> any Conversation {
    configuration.recorder.map { RecordingConversation(conversation, recorder: $0) } ?? conversation
  }

  /// The invocation `utterance` runs when it is the phrase of one of the user's shortcuts (`ShortcutStore`), or nil:
  /// the shortcut's intent with its presets, asking its "ask each time" parameters. The transcript, if any, gets a
  /// `shortcut` line.
  /// When the shortcuts cannot be read (a corrupt or planted `State/shortcuts.json`, a failing disk), the utterance
  /// is not stopped: one warning on stderr, then nil (the apps' phrases are matched as without shortcuts); the
  /// `shortcuts` commands report the error.
  /// - Throws: `HostError(.noMatch)` (69) naming the shortcut and why when it is inactive.
  private func shortcutInvocation(_ utterance: String) async throws -> ShortcutInvocation? {
    let home = configuration.home
    let found: Shortcut?
    do {
      found = try await offloaded({ () throws -> Shortcut? in
        try ShortcutStore(home: home).shortcut(saying: utterance)
      })
    } catch let error as HostError {
      await FileDescriptor.standardError.write(
        Untrusted.shown("assistant: warning: \(error.message); only the apps' phrases are understood") + "\n")
      return nil
    }
    guard let shortcut = found else { return nil }
    let state = ShortcutState.of(shortcut, among: try home.installedApps())
    guard case .active(let app) = state else {
      throw HostError(
        .noMatch,
        "\"\(utterance)\" is shortcut \(shortcut.identifier) (\"\(shortcut.phrase)\"), which is inactive: "
          + "\(state.reason ?? ""); reinstall the app, or remove the shortcut (`assistant shortcuts remove "
          + "\(shortcut.identifier)`)")
    }
    if let recorder = configuration.recorder {
      recorder.record(
        .shortcut(
          .init(
            identifier: shortcut.identifier, phrase: shortcut.phrase, app: shortcut.app,
            intent: shortcut.intentClass, presets: try JSON(encoding: shortcut.presets), asks: shortcut.asks)))
    }
    if shortcut.isAppIntent {
      guard var invocation = Self.appIntent(identifier: shortcut.intentClass, in: app) else { return nil }
      invocation.values = shortcut.presets
      invocation.askedEachTime = shortcut.asks
      return .appIntent(invocation, shortcut)
    }
    var invocation = IntentInvocation(app: app, intentClass: shortcut.intentClass, values: shortcut.presets)
    invocation.askedEachTime = shortcut.asks
    invocation.shortcut = shortcut
    return .siriKit(invocation)
  }

  /// What a shortcut of the user runs.
  private enum ShortcutInvocation {
    case siriKit(IntentInvocation)
    case appIntent(AppIntentInvocation, Shortcut)
  }

  /// The App Intent of `app` whose identifier is exactly `identifier` (as a shortcut or a donation keeps it), with no
  /// value yet; nil when none of its `Metadata.appintents` declares it.
  static func appIntent(identifier: String, in app: AppBundle) -> AppIntentInvocation? {
    ShortcutRules.appIntent(identifier, of: app).map {
      AppIntentInvocation(app: app, metadata: $0.folder, action: $0.action, values: [:])
    }
  }

  /// The user's shortcuts that can run with `apps` (`ShortcutState.active`), as candidates of the closest phrases
  /// (`ClosestPhrases`); none when they cannot be read (`shortcutInvocation` has warned already).
  private func activeShortcuts(apps: [AppBundle]) async -> [ClosestPhrases.ShortcutCandidate] {
    let home = configuration.home
    let shortcuts = await offloaded { (try? ShortcutStore(home: home).shortcuts()) ?? [] }
    return shortcuts.filter { ShortcutState.of($0, among: apps).reason == nil }
      .map(ClosestPhrases.ShortcutCandidate.init)
  }
}

extension Assistant.Device {
  /// The device a run respects, or nil for none.
  /// - Throws: `HostError(.usage)` for a malformed `INTENTHOST_CLOCK_OFFSET` (`ofThisProcess`).
  func state(home: AssistantHome) throws -> DeviceState? {
    switch self {
    case .unchecked: nil
    case .state(let device): device
    case .ofThisProcess:
      DeviceState(home: home, clock: try HostClock(environment: ProcessInfo.processInfo.environment))
    }
  }
}

/// A conversation that the assistant checks once an intent has run: the scripted answers nobody asked for (an
/// error: the script expected another conversation), and a dialog that could not be written (the use case ends as
/// its output failed). A conversation that scripts nothing and writes nowhere has neither (the defaults).
package protocol CheckedConversation: Conversation {
  /// The scripted answers not used, in order.
  var unusedAnswers: [String] { get }
  /// The first write of the dialog that failed, if one did.
  var dialogWriteFailure: SystemError? { get }
}

extension CheckedConversation {
  package var unusedAnswers: [String] { [] }
  package var dialogWriteFailure: SystemError? { nil }
}

extension TerminalConversation: CheckedConversation {}

extension SystemError {
  /// This error as a failed write of stdout: the command line ends with 141 (quietly) for `EPIPE`, and reports any
  /// other as "cannot write to stdout: REASON" with 74.
  package var onStandardOutput: SystemError {
    SystemError(code: code, operation: "write", subject: "stdout", detail: detail)
  }

  /// Whether this is a failed write of stdout (`onStandardOutput`).
  package var isStandardOutput: Bool { operation == "write" && subject == "stdout" }
}
