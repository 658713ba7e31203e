import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import UntrustedText

/// What the user asked for: an app, an intent of it, and the values given so far.
public struct IntentInvocation: Sendable {
  public var app: AppBundle
  /// The intent class name, e.g. "BookRoomIntent".
  public var intentClass: String
  public var values: [String: ParameterValue]
  /// Parameters asked for before they are resolved, whether or not the extension needs them (a shortcut's "ask each
  /// time" parameters), in the definition's order.
  public var askedEachTime: [String] = []
  /// The shortcut that runs this invocation, if one does: the outcome says so.
  public var shortcut: Shortcut? = nil

  public init(app: AppBundle, intentClass: String, values: [String: ParameterValue]) {
    self.app = app
    self.intentClass = intentClass
    self.values = values
  }
}

/// How an intent ended.
public struct IntentOutcome: Sendable, Encodable {
  public var app: String
  public var intent: String
  public var parameters: [String: ParameterValue]
  public var code: ResponseCode
  public var isSuccess: Bool
  /// The printed dialog of the answer (the response code's template).
  public var dialog: String
  /// The voice dialog of the answer: the code's concise template where the definition has one, else the printed
  /// dialog. `--voice` says this one.
  public var voiceDialog: String? = nil
  /// What the app's Intents UI extension drew, one view per configureView call it answered.
  public var views: [ConfiguredView] = []
  /// The shortcut that ran, if one did (its identifier and phrase are in `json()`).
  public var shortcut: Shortcut? = nil
  /// The parameters of the final response (the app's, for handleInApp), whether or not the dialog said them: a
  /// system intent's failure says Siri's sentence, and the app's `reason` is here.
  public var responseParameters: [String: ParameterValue] = [:]

  /// `{"app","intent","parameters","code","success","dialog","voiceDialog"}` (and `"views"` when a UI extension drew
  /// some, `"responseParameters"` when the response carried some, `"shortcut": {"identifier","phrase"}` when a
  /// shortcut ran), parameters as plain JSON values; nil when a number has no JSON form (not finite).
  package var report: JSON? {
    func plain(_ value: ParameterValue) -> JSON? {
      switch value {
      case .string(let s): return .string(s)
      case .integer(let i): return JSON(i)
      case .decimal(let d): return JSONNumber(d).map(JSON.number)
      case .boolean(let b): return .bool(b)
      case .date(let d): return .string(ParameterValue.formatDate(d))
      case .enumCase(let e): return .string(e)
      case .object(let o):
        return .object(["identifier": .string(o.identifier), "displayString": .string(o.displayString)])
      case .array(let a):
        let items = a.compactMap(plain)
        return items.count == a.count ? .array(items) : nil
      }
    }
    func plain(_ values: [String: ParameterValue]) -> JSON? {
      let members = values.compactMapValues(plain)
      return members.count == values.count ? .object(members) : nil
    }
    guard let parameters = plain(parameters) else { return nil }
    var object: [String: JSON] = [
      "app": .string(app), "intent": .string(intent), "parameters": parameters, "code": .string(code.rawValue),
      "success": .bool(isSuccess), "dialog": .string(dialog), "voiceDialog": .string(voiceDialog ?? dialog),
    ]
    if !responseParameters.isEmpty {
      guard let responseParameters = plain(responseParameters) else { return nil }
      object["responseParameters"] = responseParameters
    }
    if let shortcut {
      object["shortcut"] = .object(["identifier": .string(shortcut.identifier), "phrase": .string(shortcut.phrase)])
    }
    if !views.isEmpty, let encoded = try? JSON(encoding: views) {
      object["views"] = encoded
    }
    return .object(object)
  }

  /// `report` as one line of JSON, keys sorted, with JSON's own escapes for what the encoder leaves raw (C1 and
  /// bidirectional controls): the same values, exact. `{}` when there is no report.
  public func json() -> String {
    Untrusted.shown(json: report?.text ?? "{}")
  }

  /// `report`, through any encoder (`json()` is its exact text).
  public func encode(to encoder: any Encoder) throws {
    try (report ?? .object([:])).encode(to: encoder)
  }
}

/// Runs resolve -> confirm -> handle for one intent against its extension, talking to the user on the way.
public struct IntentDriver: Sendable {
  public var home: AssistantHome
  public var conversation: any Conversation
  public var deadlines = Deadlines()
  public var locale = "en_US"
  /// How often one parameter may be asked for again before the assistant gives up (Apple sets no bound).
  public var maximumAttempts = 5
  /// Where extensions are kept running between intents; nil starts and shuts down one per intent.
  public var warm: WarmExtensions? = nil
  /// How extensions and apps are confined.
  public var sandbox = SandboxPolicy()
  /// The device whose lock state the run respects (`LockPolicy`): a restricted intent asks to unlock it first, and
  /// `host/requestAuthentication` checks the passcode against it. nil: no lock rule is checked, and every
  /// authentication is answered `cancelled` with a note on stderr (in-process tests of other things).
  public var device: DeviceState? = nil

  public init(home: AssistantHome, conversation: any Conversation) {
    self.home = home
    self.conversation = conversation
  }

  /// How sessions are started: sandboxed child processes (tests serve them in-process).
  var launcher: any SessionLauncher = ProcessLauncher()

  /// Records every message to and from each extension (`--record`); the conversation is recorded by wrapping it in a
  /// `RecordingConversation`. Only sessions started as processes are tapped.
  public var recorder: TranscriptRecorder? {
    get { (launcher as? ProcessLauncher)?.recorder }
    set {
      guard var process = launcher as? ProcessLauncher else { return }
      process.recorder = newValue
      launcher = process
    }
  }

  /// Runs the invocation to its end.
  ///
  /// Every extension and app the run starts is shut down (or kept in `warm`) and reaped before this returns, on
  /// every path: success, failure, a fault, a refusal, and cancellation (Ctrl-C).
  /// - Throws: `HostError` with the exit status to use, or `CancellationError` when the calling task was cancelled.
  public func run(_ invocation: IntentInvocation) async throws -> IntentOutcome {
    let app = invocation.app.localized(for: locale)
    guard let bundle = app.intentsExtension(for: invocation.intentClass) else {
      throw HostError(
        .noMatch,
        "\(app.name) has no Intents extension that supports \(invocation.intentClass); it supports "
          + listOrNone(app.supportedIntents))
    }
    // The UI extension starts beside the Intents extension (its start-up overlaps the conversation), in a child
    // task of this run, and is asked to draw once the intent is answered. Whatever happens, the group waits for
    // the start, and a started UI extension that was not used is shut down before the run returns.
    let ui = app.extensions.first {
      $0.extensionInfo.point == .intentsUIService && $0.extensionInfo.intentsSupported.contains(invocation.intentClass)
    }
    // The rules known up front are satisfied before anything starts: a locked device is unlocked first.
    let rules = LockPolicy.rules(for: invocation.intentClass, of: app)
    try await satisfy(rules, after: .upFront, intent: invocation.intentClass, app: app)
    let uiSlot = SessionSlot()
    return try await withThrowingTaskGroup(of: Void.self) { group in
      if let ui {
        group.addTask { uiSlot.fill(await self.startSession(SessionTarget(ui, app: app))) }
      }
      let result: Result<IntentOutcome, any Error>
      do {
        result = .success(
          try await converse(invocation, app: app, bundle: bundle, ui: ui, uiSlot: uiSlot, rules: rules))
      } catch {
        result = .failure(error)
      }
      try await group.waitForAll()
      if let unused = uiSlot.takeIfUnused() { await finish(unused) }
      var outcome = try result.get()
      outcome.shortcut = invocation.shortcut
      return outcome
    }
  }

  /// A kept session of `target`, or a new one; a failure to start is returned, not thrown.
  private func startSession(_ target: SessionTarget) async -> Result<ExtensionSession, HostError> {
    if let kept = await warm?.take(target.bundleIdentifier) { return .success(kept) }
    do {
      return .success(
        try await ExtensionSession.start(
          target, home: home, locale: locale, deadlines: deadlines, sandbox: sandbox, launcher: launcher))
    } catch let error as HostError {
      return .failure(error)
    } catch is CancellationError {
      return .failure(HostError(.extensionFault, "\(target.name) was not started: the run was cancelled"))
    } catch {
      return .failure(HostError(.extensionFault, "\(target.name): \(error)"))
    }
  }

  /// Resolve, confirm, handle, and the answer, with the Intents extension; the UI extension draws the answer.
  private func converse(
    _ invocation: IntentInvocation, app: AppBundle, bundle: ExtensionBundle, ui: ExtensionBundle?,
    uiSlot: SessionSlot, rules: [LockPolicy.Rule]
  ) async throws -> IntentOutcome {
    let specAndDefinition = app.runnableSpec(className: invocation.intentClass)
    let spec = specAndDefinition?.spec
    let interpreter = ValueInterpreter(
      intentClass: invocation.intentClass, definition: specAndDefinition?.definition, vocabularies: app.vocabularies)
    var intent = Intent(name: invocation.intentClass, identifier: UUID().uuidString, parameters: invocation.values)
    var history = LockPolicy.History()

    let session = try await startSession(SessionTarget(bundle, app: app)).get()
    // The UI extension's session, once taken from its slot: it draws each interaction (the confirmation step, then
    // the answer) and is finished at the end of the run, or stopped on a failure.
    var drawing = UIDrawing(ui: ui, slot: uiSlot)
    do {
      for parameter in spec?.parameters ?? [] where parameter.supportsResolution {
        // A shortcut's "ask each time" parameter is asked first, as the prompt of a needsValue would ask it.
        if invocation.askedEachTime.contains(parameter.name), intent[parameter.name] == nil {
          intent[parameter.name] = try await askValue(
            for: parameter, of: intent, interpreter: interpreter,
            need: "\(parameter.label) (\(parameter.name)) for \(app.name)")
        }
        intent[parameter.name] = try await resolve(
          parameter, of: intent, session: session, interpreter: interpreter, app: app, history: &history)
      }
      let confirmation = try await session.request(
        ConfirmIntentRequest(intent: intent), phase: .confirm, what: "confirm of \(intent.name)",
        authenticator: authenticator)
      var views: [ConfiguredView] = []
      let response: IntentResponse
      if confirmation.code == .ready {
        if spec?.userConfirmationRequired == true {
          // The confirmation step, as Siri shows it: the UI extension draws the interaction with the status
          // `ready`, then the user is asked to confirm.
          views += await drawing.present(
            Interaction(intent: intent, response: confirmation, handlingStatus: "ready"), driver: self, spec: spec)
          let question =
            SystemDialogs.dialog(intent: invocation.intentClass, code: "ready", app: app.name) { name in
              intent[name].map { interpreter.words(for: $0) }
            }
            ?? SystemIntent.named(invocation.intentClass)?.confirmationPrompt
            ?? "Do you want to \((spec?.title ?? spokenTitle(of: invocation.intentClass)).lowercased())?"
          if try await !askYesNo(question, need: "a confirmation") {
            await finish(session)
            await drawing.finish(driver: self)
            var declined = await decline(intent, app: app)
            declined.views = views
            return declined
          }
        }
        // The conditional rule: a question during resolution means the device must be unlocked before handle.
        try await satisfy(rules, after: history, intent: intent.name, app: app)
        response = try await handle(intent, session: session, appName: app.name)
        if response.code == .ready {
          throw session.violation(
            "answered ready to handle of \(intent.name); ready is for confirm only (answer success or failure)")
        }
      } else {
        response = confirmation
      }
      try check(response.code, spec: spec, session: session, intent: intent.name)
      try checkResponseValues(
        response, spec: spec, session: session,
        what: confirmation.code == .ready ? "handle of \(intent.name)" : "confirm of \(intent.name)")
      if response.code == .continueInApp {
        history.continuingInApp = true
        try await satisfy(rules, after: history, intent: intent.name, app: app)
      }
      var final = response
      let handedOver = response.code == .handleInApp
      if handedOver {
        await finish(session)  // the extension is done before its app is launched
        final = try await handOver(intent, to: app, spec: spec)
      }
      // Otherwise the extension's shutdown overlaps the answer and the UI extension's drawing.
      async let finishing: Void = finish(handedOver ? nil : session)
      var result = await outcome(final, intent: intent, app: app, spec: spec, interpreter: interpreter)
      views += await drawing.present(
        Interaction(intent: intent, response: final, handlingStatus: result.isSuccess ? "success" : "failure"),
        driver: self, spec: spec)
      result.views = views
      await drawing.finish(driver: self)
      await finishing
      if final.code == .continueInApp {
        try await openInForeground(
          app,
          activity: ContinuedActivity(
            intent: intent, response: final, handlingStatus: "deferredToApplication"))
      } else if final.code.rawValue.hasPrefix(ResponseCode.failureRequiringAppLaunch.rawValue) {
        // The answer said the app must be opened; the user decides. Nobody to ask (a script without an answer for
        // it) is a no: the intent has already failed, and nothing else is done.
        let opens: Bool
        do { opens = try await askYesNo("Open \(app.name)?", need: "whether to open \(app.name)") } catch let error
          as HostError where error.status == .valueNeeded
        { opens = false }
        if opens {
          history.continuingInApp = true
          try await satisfy(rules, after: history, intent: intent.name, app: app)
          try await openInForeground(
            app,
            activity: ContinuedActivity(
              intent: intent, response: final, handlingStatus: "failure"))
        }
      }
      return result
    } catch is CancelledByUser {
      // "cancel" at a question: the intent ends there, as a "no" to its confirmation ends it.
      await finish(session)
      await drawing.finish(driver: self)
      return await decline(intent, app: app)
    } catch {
      if session.peer.termination == nil { await session.shutdown() }
      await drawing.stop()
      throw error
    }
  }

  /// The user said no to the intent's confirmation, or "cancel" at a question: "OK, I won't." (`cancelledByUser`).
  private func decline(_ intent: Intent, app: AppBundle) async -> IntentOutcome {
    await conversation.say("OK, I won't.")
    return IntentOutcome(
      app: app.name, intent: intent.name, parameters: intent.parameters, code: "cancelledByUser", isSuccess: false,
      dialog: "OK, I won't.")
  }

  /// "cancel" (a cancel word of `SpokenAnswer`) was the answer to a question: the intent ends (`decline`).
  private struct CancelledByUser: Error {}

  /// Asks a yes/no question (`AnswerKind.yesNo`): yes or no in any of the supported languages (`SpokenAnswer`), a
  /// cancel word being a no. An answer that is neither is not taken for a no at once: "Please answer yes or no." and
  /// the question once more; a second such answer is a no.
  /// - Throws: what `Conversation.ask` throws (`HostError(.valueNeeded)` when nobody can be asked).
  func askYesNo(_ question: String, need: String) async throws -> Bool {
    for attempt in 0..<2 {
      let answer = try await conversation.ask(question, need: need, kind: .yesNo)
      if let meant = SpokenAnswer.answer(to: answer) { return meant }
      if attempt == 0 { await conversation.explain(Self.pleaseAnswerYesOrNo) }
    }
    return false
  }

  static let pleaseAnswerYesOrNo = "Please answer yes or no."

  /// The UI extension of one run: taken from its slot when it first draws, used for every interaction, finished
  /// once. A UI extension that failed to start or to draw is reported once and not asked again.
  struct UIDrawing {
    let ui: ExtensionBundle?
    let slot: SessionSlot
    private var session: ExtensionSession?
    private var taken = false

    init(ui: ExtensionBundle?, slot: SessionSlot) {
      self.ui = ui
      self.slot = slot
    }

    /// Draws `interaction` (nothing without a UI extension, or after it failed).
    mutating func present(_ interaction: Interaction, driver: IntentDriver, spec: IntentSpec?) async
      -> [ConfiguredView]
    {
      guard let ui else { return [] }
      if !taken {
        taken = true
        switch await slot.take() {
        case .success(let started)?: session = started
        case .failure(let error)?: await driver.reportUIFailure(error.message)
        case nil: break
        }
      }
      guard let running = session else { return [] }
      let (views, usable) = await driver.presentCustomUI(interaction, ui: ui, session: running, spec: spec)
      if !usable { session = nil }
      return views
    }

    /// The end of the run for the UI extension: kept warm or shut down.
    mutating func finish(driver: IntentDriver) async {
      await driver.finish(session)
      session = nil
    }

    /// A failed run: the UI extension is stopped (one not taken yet is left to the run's cleanup).
    mutating func stop() async {
      if let session, session.peer.termination == nil { await session.shutdown() }
      session = nil
    }
  }

  /// The smallest and largest view an Intents UI extension may ask for (`hostedViewMinimumAllowedSize`,
  /// `hostedViewMaximumAllowedSize`), in points: a Siri snippet on an iPhone.
  public var viewSizeLimits = (minimum: ViewSize(width: 0, height: 0), maximum: ViewSize(width: 398, height: 600))

  /// Shows one interaction through the app's Intents UI extension, as Siri does: first the header (a
  /// `configureView` with the empty parameter set), then one `configureView` per parameter (with a value) in the
  /// definition's order, each to a fresh view controller, skipping parameters an earlier view of this interaction
  /// already showed (the ledger, one per interaction). A view asking for a size outside the limits is reported and
  /// clamped. A UI extension that fails is reported in one line and Siri's default UI (the dialog) stands alone;
  /// the intent's result does not change.
  /// - Returns: the views drawn, and whether the session may draw again (false after a failure).
  func presentCustomUI(
    _ interaction: Interaction, ui: ExtensionBundle, session: ExtensionSession, spec: IntentSpec?
  ) async -> (views: [ConfiguredView], usable: Bool) {
    let className = interaction.intent.name
    let names = (spec?.parameters.map(\.name) ?? interaction.intent.parameters.keys.sorted())
      .filter { interaction.intent[$0] != nil }
    let sets: [[String]] = [[]] + names.map { [$0] }
    var ledger = Set<String>()
    var views: [ConfiguredView] = []
    for parameters in sets where !parameters.contains(where: ledger.contains) {
      if Task.isCancelled { return (views, false) }
      do {
        var view = try await session.request(
          ConfigureViewRequest(
            interaction: interaction, parameters: parameters, minimumSize: viewSizeLimits.minimum,
            maximumSize: viewSizeLimits.maximum),
          phase: .ui,
          what:
            "configureView of \(parameters.isEmpty ? "\(className) (the header)" : parameters.joined(separator: ", "))")
        guard view.success else { continue }  // left to the default UI
        ledger.formUnion(view.parameters.isEmpty ? parameters : view.parameters)
        if view.size == .zero { continue }  // hidden
        let clamped = ViewSize(
          width: min(max(view.size.width, viewSizeLimits.minimum.width), viewSizeLimits.maximum.width),
          height: min(max(view.size.height, viewSizeLimits.minimum.height), viewSizeLimits.maximum.height))
        if clamped != view.size {
          let warning =
            "\(session.label) asked for a \(Int(view.size.width))×\(Int(view.size.height)) view, outside "
            + "\(Int(viewSizeLimits.minimum.width))×\(Int(viewSizeLimits.minimum.height))–"
            + "\(Int(viewSizeLimits.maximum.width))×\(Int(viewSizeLimits.maximum.height)) points; it was clamped to "
            + "\(Int(clamped.width))×\(Int(clamped.height))"
          session.appendToLog("warning: \(warning)")
          await reportUIFailure(warning, isFault: false)
          view.size = clamped
        }
        views.append(view)
        await conversation.show(view, from: ui.name)
      } catch let error as HostError {
        await reportUIFailure(error.message)
        return (views, false)
      } catch {
        // Cancelled: the session was stopped by `request`.
        return (views, false)
      }
    }
    return (views, true)
  }

  func reportUIFailure(_ message: String, isFault: Bool = true) async {
    let suffix = isFault ? "; Siri's default UI is shown instead" : ""
    await writeHostMessage("\(message)\(suffix)")
  }

  /// The end of an intent for its extension: kept warm, or shut down (nil: nothing to do).
  func finish(_ session: ExtensionSession?) async {
    guard let session else { return }
    if let warm { await warm.give(session) } else { await session.shutdown() }
  }

  /// How an app is brought to the foreground (`continueInApp`); nil: `AppLauncher` on the user's terminal. Tests
  /// record the launch instead.
  var foregroundLauncher: (@Sendable (AppBundle, [String: String]) async throws -> Int32)? = nil
  /// `--voice`: the answer said is the voice dialog (the concise template where the definition has one).
  public var speaksVoiceDialog = false
  /// Whether a foreground app's stdout goes to stderr (`--json`, whose stdout is one document).
  public var appOutputToStandardError = false

  /// `continueInApp`: launches the containing app in the foreground on the user's terminal, its stdout and stderr
  /// relayed, with `INTENTHOST_LAUNCH_REASON=continueUserActivity` and the activity as JSON in
  /// `INTENTHOST_USER_ACTIVITY` (the SDK's `AppContext.userActivity`), and waits for it to exit. An app that exits
  /// with a non-zero status is reported; the intent's result stands.
  /// - Throws: `HostError(.extensionFault)` when the activity is too large to pass, or what `AppLauncher.open`
  ///   throws.
  private func openInForeground(_ app: AppBundle, activity: ContinuedActivity) async throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let json = String(decoding: try encoder.encode(activity), as: UTF8.self)
    guard json.utf8.count <= ContinuedActivity.maximumSize else {
      throw HostError(
        .extensionFault,
        "\(app.name) was not opened: the user activity of its answer is \(json.utf8.count) bytes of JSON, more than "
          + "the \(ContinuedActivity.maximumSize) an app can be given")
    }
    let environment = ["INTENTHOST_LAUNCH_REASON": "continueUserActivity", "INTENTHOST_USER_ACTIVITY": json]
    let status: Int32
    if let foregroundLauncher {
      status = try await foregroundLauncher(app, environment)
    } else {
      var launcher = AppLauncher(home: home)
      launcher.locale = locale
      launcher.sandbox = sandbox
      launcher.outputToStandardError = appOutputToStandardError
      status = try await launcher.open(app, arguments: [], environment: environment)
    }
    if status != 0 { await writeHostMessage("\(app.name) exited with status \(status)") }
  }

  /// `intent/handle`, asked again while the extension answers `inProgress` (with a spinner on a terminal), at most
  /// `maximumAttempts` times in all: the extension answers `inProgress` when its work does not finish within a few
  /// seconds (Apple's advice), and each further `intent/handle` (with its own `handle` deadline) waits for the
  /// final response. An `inProgress` that is still the answer after the last ask is final ("… is working on it.").
  private func handle(_ intent: Intent, session: ExtensionSession, appName: String) async throws -> IntentResponse {
    var response = IntentResponse(code: .unspecified)
    var spinning = false
    do {
      for attempt in 0..<maximumAttempts {
        response = try await session.request(
          HandleIntentRequest(intent: intent), phase: .handle,
          what: attempt == 0 ? "handle of \(intent.name)" : "handle of \(intent.name) (asked again after inProgress)",
          authenticator: authenticator)
        guard response.code == .inProgress, attempt + 1 < maximumAttempts else { break }
        if !spinning {
          spinning = true
          await conversation.progress("\(appName) is working on it…")
        }
      }
    } catch {
      if spinning { await conversation.progress(nil) }
      throw error
    }
    if spinning { await conversation.progress(nil) }
    return response
  }

  /// `handleInApp`: launches the containing app in the background and lets it handle the intent
  /// (`application(_:handle:completionHandler:)`); its answer is the intent's response.
  private func handOver(_ intent: Intent, to app: AppBundle, spec: IntentSpec?) async throws -> IntentResponse {
    let session = try await ExtensionSession.start(
      SessionTarget(app: app), home: home, locale: locale, deadlines: deadlines, sandbox: sandbox, launcher: launcher)
    do {
      let response = try await session.request(
        HandleIntentRequest(intent: intent), phase: .handle, what: "handle of \(intent.name) in the app (handleInApp)",
        authenticator: authenticator)
      if [.ready, .handleInApp, .continueInApp].contains(response.code) {
        throw session.violation(
          "answered \(response.code) to handle of \(intent.name) in the app; an app that handles an intent must "
            + "finish it (answer success, failure or a code of the intent definition)")
      }
      try check(response.code, spec: spec, session: session, intent: intent.name)
      try checkResponseValues(response, spec: spec, session: session, what: "handle of \(intent.name) in the app")
      await session.shutdown()
      return response
    } catch {
      if session.peer.termination == nil { await session.shutdown() }
      throw error
    }
  }

  private func check(_ code: ResponseCode, spec: IntentSpec?, session: ExtensionSession, intent: String) throws {
    if ResponseCode.standard.contains(code) { return }
    let defined = spec?.response?.codes.map(\.name) ?? []
    if defined.contains(code.rawValue) { return }
    throw session.violation(
      "answered response code \"\(code)\", which \(intent) does not define (it defines \(listOrNone(defined)))")
  }

  private func outcome(
    _ response: IntentResponse, intent: Intent, app: AppBundle, spec: IntentSpec?, interpreter: ValueInterpreter
  ) async -> IntentOutcome {
    let answer = Self.answer(to: response, of: intent, appName: app.name, spec: spec, interpreter: interpreter)
    await conversation.say(speaksVoiceDialog ? answer.voiceDialog : answer.dialog)
    var result = IntentOutcome(
      app: app.name, intent: intent.name, parameters: intent.parameters, code: response.code,
      isSuccess: answer.isSuccess, dialog: answer.dialog)
    result.voiceDialog = answer.voiceDialog
    result.responseParameters = response.parameters
    return result
  }

  /// What the assistant says for `response`, and whether it is a success.
  ///
  /// The dialog is the definition's template for the code (`INIntentResponseCodeFormatString`), filled with the
  /// response's parameters; else, for a system intent, Siri's own sentence for the code (`SystemDialogs`), filled
  /// with the response's parameters, then the intent's; else a generic sentence ("Done.", "Sorry, there was a
  /// problem with Rooms."). The voice dialog is the code's concise template where the definition has one, else the
  /// dialog. A `reason` the response carries is never said for a system intent: Siri says its own sentence.
  /// - Returns: the printed dialog, the voice dialog, and whether the code counts as a success (the definition's
  ///   `INIntentResponseCodeSuccess`, else only `success`).
  static func answer(
    to response: IntentResponse, of intent: Intent, appName: String, spec: IntentSpec?, interpreter: ValueInterpreter
  ) -> (dialog: String, voiceDialog: String, isSuccess: Bool) {
    let codeSpec = spec?.response?.code(named: response.code.rawValue)
    let isSuccess = codeSpec?.isSuccess ?? (response.code == .success)
    /// A response parameter's value in words.
    func responseWords(_ name: String) -> String? {
      guard let value = parameterValue(at: name, in: response.parameters) else { return nil }
      let parameterSpec = name.contains(".") ? nil : spec?.response?.parameters.first { $0.name == name }
      return interpreter.words(
        for: value,
        parameterType: (parameterSpec?.trueDisplayName, parameterSpec?.falseDisplayName, parameterSpec?.enumType))
    }
    func rendered(_ template: String) -> String { renderTemplate(template, values: responseWords).text }
    if let template = codeSpec?.template, !template.isEmpty {
      let dialog = rendered(template)
      return (dialog, codeSpec?.conciseTemplate.flatMap { $0.isEmpty ? nil : rendered($0) } ?? dialog, isSuccess)
    }
    let system = SystemDialogs.dialog(intent: intent.name, code: response.code.rawValue, app: appName) { name in
      if let words = responseWords(name) { return words }
      guard let value = parameterValue(at: name, in: intent.parameters) else { return nil }
      let parameterSpec = name.contains(".") ? nil : spec?.parameters.first { $0.name == name }
      return interpreter.words(
        for: value,
        parameterType: (parameterSpec?.trueDisplayName, parameterSpec?.falseDisplayName, parameterSpec?.enumType))
    }
    let dialog: String
    if let system {
      dialog = system
    } else {
      switch response.code {
      case .success: dialog = "Done."
      case .continueInApp: dialog = "Continue in \(appName)."
      case .inProgress: dialog = "\(appName) is working on it."
      // A domain code such as failureRequiringAppLaunchMustVerifyCredentials is one too (the app is offered).
      case _ where response.code.rawValue.hasPrefix(ResponseCode.failureRequiringAppLaunch.rawValue):
        dialog = "You need to open \(appName) to do that."
      default: dialog = isSuccess ? "Done." : "Sorry, there was a problem with \(appName)."
      }
    }
    return (dialog, codeSpec?.conciseTemplate.flatMap { $0.isEmpty ? nil : rendered($0) } ?? dialog, isSuccess)
  }

  /// Resolves one parameter until the extension accepts a value or says it is not required.
  private func resolve(
    _ parameter: ParameterSpec, of intent: Intent, session: ExtensionSession, interpreter: ValueInterpreter,
    app: AppBundle, history: inout LockPolicy.History
  ) async throws -> ParameterValue? {
    let appName = app.name
    var intent = intent
    let need = "\(parameter.label) (\(parameter.name)) for \(appName)"
    /// How many answers the extension did not take: from the second on, the user is told how to stop.
    var refusals = 0
    /// After the extension did not take a value: what the app knows for the parameter, or how to stop.
    func hint() async {
      refusals += 1
      let known = await knownTerms(for: parameter, of: app, interpreter: interpreter)
      if !known.isEmpty {
        await conversation.explain("You can say \(Self.orList(known)) (or \"cancel\" to stop).")
      } else if refusals > 1 {
        await conversation.explain("Say \"cancel\" to stop.")
      }
    }
    for _ in 0..<maximumAttempts {
      let result = try await session.request(
        ResolveParameterRequest(intent: intent, parameter: parameter.name), phase: .resolve,
        what: "resolve of \(parameter.name)")
      switch result.kind {
      case .success:
        return result.value ?? intent[parameter.name]
      case .notRequired:
        return intent[parameter.name]
      case .needsValue:
        // Asked again for a value the user gave: why first ("Sorry, Ascent can't use "swimming"."), then what the
        // app knows.
        if let given = intent[parameter.name] {
          await conversation.explain(
            "Sorry, \(appName) can't use \"\(interpreter.words(for: given, parameterType: types(parameter)))\".")
          await hint()
        }
        intent[parameter.name] = try await askValue(for: parameter, of: intent, interpreter: interpreter, need: need)
      case .unsupported:
        let template = result.reason.flatMap { parameter.unsupportedReasons[$0] }.flatMap { $0.isEmpty ? nil : $0 }
        await conversation.explain(
          template.map { fill($0, parameter: parameter, intent: intent, interpreter: interpreter) }
            ?? result.message ?? "Sorry, that \(parameter.label.lowercased()) can't be used.")
        await hint()
        intent[parameter.name] = try await askValue(for: parameter, of: intent, interpreter: interpreter, need: need)
      case .disambiguation:
        let candidates = result.candidates ?? []
        guard !candidates.isEmpty else {
          throw session.violation("asked to disambiguate \(parameter.name) between no candidates")
        }
        if !history.disambiguated.contains(parameter.name) { history.disambiguated.append(parameter.name) }
        intent[parameter.name] = try await choose(
          among: candidates, for: parameter, intent: intent, interpreter: interpreter, need: need)
      case .confirmationRequired:
        guard let value = result.value ?? intent[parameter.name] else {
          intent[parameter.name] = try await askValue(for: parameter, of: intent, interpreter: interpreter, need: need)
          continue
        }
        if !history.confirmed.contains(parameter.name) { history.confirmed.append(parameter.name) }
        var shown = intent
        shown[parameter.name] = value
        let template =
          interpreter.variant(of: parameter.prompt("Confirmation"), for: value, parameter: parameter)
          ?? parameter.prompts["Confirmation"]
        let prompt =
          template.map {
            fill($0, parameter: parameter, intent: shown, interpreter: interpreter)
          } ?? "Just to confirm, you wanted \(interpreter.words(for: value, parameterType: types(parameter)))?"
        switch try await confirm(prompt, of: parameter, interpreter: interpreter, need: "a confirmation of \(need)") {
        case .yes: return value
        case .no:
          intent[parameter.name] = try await askValue(
            for: parameter, of: intent, interpreter: interpreter, need: need)
        case .instead(let other):
          intent[parameter.name] = other  // resolved again
        }
      }
    }
    throw HostError(
      .valueNeeded, "\(need) was still not accepted after \(maximumAttempts) tries; the assistant gave up")
  }

  /// Makes the device's state satisfy the lock rules that apply after `history`, as Siri does: "You need to unlock
  /// your device first.", then the passcode when one is required; a yes/no confirmation when no passcode is set;
  /// nothing asked within the grace period. A successful unlock leaves the device unlocked.
  ///
  /// The device's state is read only when a rule can apply, so an unrestricted intent costs nothing here.
  /// - Throws: `HostError(.refused)` (77) naming the rule and its file when the device stays locked: nobody to ask,
  ///   no answer, a wrong passcode (counted), or a lockout (nothing asked).
  private func satisfy(_ rules: [LockPolicy.Rule], after history: LockPolicy.History, intent: String, app: AppBundle)
    async throws
  {
    guard let device, LockPolicy.anyApplies(rules, after: history) else { return }
    let record = try await offloaded { () throws in try device.record() }
    let now = device.clock.now
    let rule: LockPolicy.Rule
    let state: String
    let decision = LockPolicy.decide(rules, device: record, at: now, after: history)
    switch decision {
    case .allowed: return
    case .unlock(let which, _):
      (rule, state) = (which, "the device is locked")
    case .protectedDataUnavailable(let which):
      (rule, state) = (which, "protected data is unavailable (the device is locked)")
    }
    let step: String
    switch rule.condition {
    case .always: step = "\(intent) was not run"
    case .afterQuestions: step = "\(intent) was not handled"
    case .continueInApp: step = "\(app.name) was not opened (continueInApp)"
    }
    let reason = rule.condition == .afterQuestions ? "\(rule.source), and \(history.questions)" : rule.source
    func refused(_ why: String) -> HostError {
      HostError(.refused, "\(step): \(state) and \(reason) [\(rule.name)]; \(why)")
    }
    let ahead = "or run `assistant unlock` first"
    // Where the question is asked (the terminal), so that it stands above the prompt even when stdout is a file.
    await conversation.explain("You need to unlock your device first.")
    // Another process may set a passcode or lock the device between the read above and the unlock: then the
    // passcode is asked after all (`PasscodeNeeded`).
    switch LockPolicy.unlocking(decision, device: record, at: now) {
    case .notNeeded:
      return
    case .confirmation:
      let unlocks: Bool
      do {
        unlocks = try await askYesNo("Unlock it?", need: "a confirmation to unlock the device")
      } catch let error as HostError where error.status == .valueNeeded {
        // A terminal conversation's advice says how to answer (`--answer yes`, a terminal); any other gets this one.
        let how = error.message.contains("--answer") ? "" : ": answer yes to unlock it (--answer yes in a script)"
        throw refused("\(error.message)\(how), \(ahead)")
      }
      guard unlocks else { throw refused("it was not unlocked: answer yes to unlock it, \(ahead)") }
      do { return try await unlock(device, passcode: nil, refused: refused) } catch is DeviceState.PasscodeNeeded {}
    case .withinGracePeriod:
      do {
        try await unlock(device, passcode: nil, refused: refused)
        await conversation.explain("Unlocked without the passcode: the device locked within its grace period.")
        return
      } catch is DeviceState.PasscodeNeeded {}
    case .lockedOut(let left):
      throw refused("too many wrong passcodes: try again in \(DeviceState.duration(left))")
    case .passcode:
      break
    }
    switch try await conversation.askPasscode("Passcode", for: .unlock) {
    case .unavailable(let why):
      throw refused("the passcode is needed, but \(why), \(ahead)")
    case .cancelled:
      throw refused("no passcode was given: type it at the prompt, give it with --passcode-stdin, \(ahead)")
    case .entered(let passcode):
      try await unlock(device, passcode: passcode, refused: refused)
    }
  }

  private func unlock(_ device: DeviceState, passcode: String?, refused: (String) -> HostError) async throws {
    let check = try await offloaded { () throws in try device.unlock(passcode: passcode) }
    if let refusal = DeviceState.refusal(check) {
      let retry =
        if case .wrong = check { ": run it again with the right one, or run `assistant unlock` first" } else { "" }
      throw refused(refusal.message + retry)
    }
  }

  /// How a system intent's class is said in a question: "INSendPaymentIntent" → "send payment".
  private func spokenTitle(of className: String) -> String {
    var name = Substring(className)
    if SystemIntent.named(className) != nil, name.hasPrefix("IN") { name = name.dropFirst(2) }
    if name.hasSuffix("Intent") { name = name.dropLast(6) }
    var words: [String] = []
    for character in name {
      if character.isUppercase || words.isEmpty { words.append("") }
      words[words.count - 1].append(character)
    }
    return words.joined(separator: " ")
  }

  private func types(_ parameter: ParameterSpec) -> (String?, String?, String?) {
    (parameter.trueDisplayName, parameter.falseDisplayName, parameter.enumType)
  }

  private func fill(_ template: String, parameter: ParameterSpec, intent: Intent, interpreter: ValueInterpreter)
    -> String
  {
    renderTemplate(template) { name in
      if name == "displayName" { return parameter.label }
      if name == "minimumValue" { return parameter.minimumValue.map { interpreter.words(for: .decimal($0)) } }
      if name == "maximumValue" { return parameter.maximumValue.map { interpreter.words(for: .decimal($0)) } }
      let head = String(name.split(separator: ".").first ?? Substring(name))
      return intent[head].map { interpreter.words(for: $0, parameterType: types(parameter)) }
    }.text
  }

  /// What the user meant at a value's confirmation ("Just to confirm, you wanted wall climb?").
  private enum ConfirmationAnswer {
    case yes, no
    /// Another value of the parameter ("boulder climb"): taken as the value, and resolved again, as Siri does.
    case instead(ParameterValue)
  }

  /// Asks to confirm a parameter's value: yes or no in any supported language; "cancel" ends the intent (unless it is
  /// a value the parameter is said with); any other answer that is a value of the parameter (for text, any text) is
  /// the value meant instead; one that is none of these gets "Please answer yes or no." once, and is then a no.
  /// - Throws: `CancelledByUser`, or what `Conversation.ask` throws.
  private func confirm(_ prompt: String, of parameter: ParameterSpec, interpreter: ValueInterpreter, need: String)
    async throws -> ConfirmationAnswer
  {
    for attempt in 0..<2 {
      let answer = try await conversation.ask(prompt, need: need, kind: .yesNo)
      let spoken = interpreter.spokenValue(answer, for: parameter)
      if SpokenAnswer.isCancel(answer), spoken == nil { throw CancelledByUser() }
      if let meant = SpokenAnswer.yesNo(answer) { return meant ? .yes : .no }
      if let other = spoken ?? interpreter.parse(answer, for: parameter) { return .instead(other) }
      if attempt == 0 { await conversation.explain(Self.pleaseAnswerYesOrNo) }
    }
    return .no
  }

  /// The words the app knows for `parameter`, to say after a value it did not take: the items of its
  /// `AppIntentVocabulary` `ParameterVocabularies` for the parameter (each by its first phrase), in the file's order,
  /// then the terms the app registered for the user (`UserVocabulary`) of the parameter's vocabulary types; each
  /// once, at most `maximumHintTerms`.
  func knownTerms(for parameter: ParameterSpec, of app: AppBundle, interpreter: ValueInterpreter) async -> [String] {
    var terms: [String] = []
    var seen: Set<[String]> = []
    func add(_ term: String) {
      let words = normalizedWords(term)
      if !words.isEmpty, seen.insert(words).inserted { terms.append(term) }
    }
    let key = "\(interpreter.intentClass).\(parameter.name)"
    for vocabulary in interpreter.vocabularies {
      for item in vocabulary.items where item.parameterNames.contains(key) {
        add(item.synonyms.first?.phrase ?? item.identifier)
      }
    }
    let types = UserVocabulary.types(of: parameter, intentClass: interpreter.intentClass)
    if !types.isEmpty {
      // A document that cannot be read is reported where the matcher reads it; here it only shortens the hint.
      let registered = await offloaded { DonationStore(home: home).userVocabularies(of: [app]).vocabularies }
      for type in types { for term in registered[app.identifier.rawValue]?.terms[type] ?? [] { add(term) } }
    }
    return Array(terms.prefix(Self.maximumHintTerms))
  }

  /// The most terms a hint lists.
  static let maximumHintTerms = 8

  /// "a", "a or b", "a, b or c".
  static func orList(_ items: [String]) -> String {
    items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " or " + items.last!
  }

  private func askValue(
    for parameter: ParameterSpec, of intent: Intent, interpreter: ValueInterpreter, need: String
  ) async throws -> ParameterValue {
    // The definition's prompt, its ${displayName}, bounds and other parameters' values filled as in every prompt.
    let prompt =
      parameter.prompts["Primary"].map { fill($0, parameter: parameter, intent: intent, interpreter: interpreter) }
      ?? "What's the \(parameter.label.lowercased())?"
    for _ in 0..<maximumAttempts {
      let answer = try await conversation.ask(prompt, need: need, kind: .value)
      // "cancel" ends the intent, unless it is a value the parameter is said with (Rooms' "cancel" booking).
      if SpokenAnswer.isCancel(answer), interpreter.spokenValue(answer, for: parameter) == nil {
        throw CancelledByUser()
      }
      if let value = interpreter.parse(answer, for: parameter) { return value }
      // The parameter as every other message names it: its display name as written ("Quantity (quantity) for
      // Pantry is needed", "Room number (Integer) needs a whole number").
      await conversation.explain("Sorry, \(parameter.label) needs \(interpreter.expectation(for: parameter)).")
    }
    throw HostError(.valueNeeded, "no usable answer for \(need) after \(maximumAttempts) tries")
  }

  private func choose(
    among candidates: [ParameterValue], for parameter: ParameterSpec, intent: Intent,
    interpreter: ValueInterpreter, need: String
  ) async throws -> ParameterValue {
    var context = intent
    context[parameter.name] = nil
    let introduction =
      parameter.prompts["DisambiguationIntroduction"].map {
        renderTemplate($0) { $0 == "count" ? String(candidates.count) : nil }.text
      } ?? "Which \(parameter.label.lowercased())?"
    await conversation.explain(introduction)
    let names = candidates.map { interpreter.words(for: $0, parameterType: types(parameter)) }
    // One line per candidate: a line break in a name is shown escaped, not as a line of its own.
    for (index, name) in names.enumerated() { await conversation.explain("  \(index + 1). \(Untrusted.shown(name))") }
    for _ in 0..<maximumAttempts {
      let answer = try await conversation.ask("Choose 1-\(candidates.count):", need: need, kind: .choice)
        .trimmingCharacters(in: .whitespaces)
      if let number = Int(answer), candidates.indices.contains(number - 1) { return candidates[number - 1] }
      if let index = names.firstIndex(where: { $0.caseInsensitiveCompare(answer) == .orderedSame }) {
        return candidates[index]
      }
      if SpokenAnswer.isCancel(answer) { throw CancelledByUser() }
      await conversation.explain("Please answer with a number from 1 to \(candidates.count) or one of the names.")
    }
    throw HostError(.valueNeeded, "no choice made for \(need) after \(maximumAttempts) tries")
  }
}

func listOrNone(_ items: [String]) -> String {
  items.isEmpty ? "none" : items.joined(separator: ", ")
}

/// A session started beside the run (the UI extension's), handed over once: to the step that uses it, or at the
/// end of the run to its cleanup.
final class SessionSlot: Sendable {
  private struct State {
    var result: Result<ExtensionSession, HostError>?
    var waiters: [CheckedContinuation<Result<ExtensionSession, HostError>, Never>] = []
    var taken = false
  }
  private let state = Mutex(State())

  /// Stores the start's result and wakes whoever waits for it.
  func fill(_ result: Result<ExtensionSession, HostError>) {
    let waiters = state.withLock { state in
      state.result = result
      defer { state.waiters.removeAll() }
      return state.waiters
    }
    for waiter in waiters { waiter.resume(returning: result) }
  }

  /// Waits for the start and takes its result; nil when it was already taken. The caller then owns the session.
  func take() async -> Result<ExtensionSession, HostError>? {
    let first = state.withLock { state -> Bool in
      defer { state.taken = true }
      return !state.taken
    }
    guard first else { return nil }
    return await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Result<ExtensionSession, HostError>? in
        if let result = state.result { return result }
        state.waiters.append(continuation)
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  /// After the start has ended: the started session, if nobody took it.
  func takeIfUnused() -> ExtensionSession? {
    state.withLock { state in
      guard !state.taken, case .success(let session)? = state.result else { return nil }
      state.taken = true
      return session
    }
  }
}

/// The value a template placeholder names: the first name is a parameter, each further name a property of the
/// object before it (`${orderDetails.total}`); nil when any step is missing.
func parameterValue(at name: String, in parameters: [String: ParameterValue]) -> ParameterValue? {
  let path = name.split(separator: ".").map(String.init)
  guard let head = path.first, var value = parameters[head] else { return nil }
  for property in path.dropFirst() {
    guard case .object(let object) = value, let next = object.properties?[property] else { return nil }
    value = next
  }
  return value
}
