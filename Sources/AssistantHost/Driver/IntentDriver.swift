import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import Understanding
import UntrustedText

/// What the user asked for: an app, an intent of it, and the values given so far.
package struct IntentInvocation: Sendable {
  package var app: AppBundle
  /// The intent class name, e.g. "BookRoomIntent".
  package var intentClass: String
  package var values: [String: ParameterValue]
  /// Parameters asked for before they are resolved, whether or not the extension needs them (a shortcut's "ask each
  /// time" parameters), in the definition's order.
  package var askedEachTime: [String] = []
  /// The shortcut that runs this invocation, if one does: the outcome says so.
  package var shortcut: Shortcut? = nil

  package init(app: AppBundle, intentClass: String, values: [String: ParameterValue]) {
    self.app = app
    self.intentClass = intentClass
    self.values = values
  }
}

/// How an intent ended.
package struct IntentOutcome: Sendable, Encodable {
  package var app: String
  package var intent: String
  package var parameters: [String: ParameterValue]
  package var code: ResponseCode
  package var isSuccess: Bool
  /// The printed dialog of the answer (the response code's template).
  package var dialog: String
  /// The voice dialog of the answer: the code's concise template where the definition has one, else the printed
  /// dialog. `--voice` says this one.
  package var voiceDialog: String? = nil
  /// What the app's Intents UI extension drew, one view per configureView call it answered.
  package var views: [ConfiguredView] = []
  /// The shortcut that ran, if one did (its identifier and phrase are in `json()`).
  package var shortcut: Shortcut? = nil
  /// The parameters of the final response (the app's, for handleInApp), whether or not the dialog said them: a
  /// system intent's failure says Siri's sentence, and the app's `reason` is here.
  package var responseParameters: [String: ParameterValue] = [:]

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
  package func json() -> String {
    Untrusted.shown(json: report?.text ?? "{}")
  }

  /// `report`, through any encoder (`json()` is its exact text).
  package func encode(to encoder: any Encoder) throws {
    try (report ?? .object([:])).encode(to: encoder)
  }
}

/// Runs resolve -> confirm -> handle for one intent against its extension, talking to the user on the way.
package struct IntentDriver: Sendable {
  package var home: AssistantHome
  package var conversation: any Conversation
  package var deadlines = Deadlines()
  package var locale = "en_US"
  /// How often one parameter may be asked for again before the assistant gives up (Apple sets no bound).
  package var maximumAttempts = 5
  /// Where extensions are kept running between intents; nil starts and shuts down one per intent.
  package var warm: WarmExtensions? = nil
  /// How extensions and apps are confined.
  package var sandbox = SandboxPolicy()
  /// The device whose lock state the run respects (`LockPolicy`): a restricted intent asks to unlock it first, and
  /// `host/requestAuthentication` checks the passcode against it. nil: no lock rule is checked, and every
  /// authentication is answered `cancelled` with a note on stderr (in-process tests of other things).
  package var device: DeviceState? = nil

  package init(home: AssistantHome, conversation: any Conversation) {
    self.home = home
    self.conversation = conversation
  }

  /// How sessions are started: sandboxed child processes (tests serve them in-process).
  var launcher: any SessionLauncher = ProcessLauncher()

  /// The faults a test injects into the run's sessions (`FaultPlan`); nil for none.
  package var faults: FaultInjector? = nil

  /// Where each session started adds its container and app groups, to be checked when the run ends
  /// (`StorageWatch.report()`, which `Assistant.run` calls).
  package var storageWatch: StorageWatch? = nil

  /// Records every message to and from each extension (`--record`); the conversation is recorded by wrapping it in a
  /// `RecordingConversation`. Only sessions started as processes are tapped.
  package var recorder: TranscriptRecorder? {
    get { processLauncher(\.recorder) }
    set { setProcessLauncher(\.recorder, to: newValue) }
  }

  /// The home's server (`assistant serve`), which lends running extensions; nil: every session is started here.
  package var server: ServerClient? {
    get { processLauncher(\.server) }
    set { setProcessLauncher(\.server, to: newValue) }
  }

  /// A setting of the process launcher; nil when sessions are started otherwise (a test's in-process peers).
  private func processLauncher<T>(_ setting: KeyPath<ProcessLauncher, T?>) -> T? {
    (launcher as? ProcessLauncher)?[keyPath: setting]
  }

  /// Changes a setting of the process launcher; nothing when sessions are started otherwise.
  private mutating func setProcessLauncher<T>(_ setting: WritableKeyPath<ProcessLauncher, T?>, to value: T?) {
    guard var process = launcher as? ProcessLauncher else { return }
    process[keyPath: setting] = value
    launcher = process
  }

  /// Runs the invocation to its end.
  ///
  /// Every extension and app the run starts is shut down (or kept in `warm`) and reaped before this returns, on
  /// every path: success, failure, a fault, a refusal, and cancellation (Ctrl-C).
  /// - Throws: `HostError` with the exit status to use, or `CancellationError` when the calling task was cancelled.
  package func run(_ invocation: IntentInvocation) async throws -> IntentOutcome {
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
  func startSession(_ target: SessionTarget) async -> Result<ExtensionSession, HostError> {
    if let kept = await warm?.take(target.bundleIdentifier) {
      kept.use(faults)
      return .success(kept)
    }
    do {
      return .success(
        try await ExtensionSession.start(
          target, home: home, locale: locale, deadlines: deadlines, sandbox: sandbox, launcher: launcher,
          storageWatch: storageWatch, faults: faults))
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
  func decline(_ intent: Intent, app: AppBundle) async -> IntentOutcome {
    await conversation.say("OK, I won't.")
    return IntentOutcome(
      app: app.name, intent: intent.name, parameters: intent.parameters, code: "cancelledByUser", isSuccess: false,
      dialog: "OK, I won't.")
  }

  /// "cancel" (a cancel word of `SpokenAnswer`) was the answer to a question: the intent ends (`decline`).
  struct CancelledByUser: Error {}

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

  /// The smallest and largest view an Intents UI extension may ask for (`hostedViewMinimumAllowedSize`,
  /// `hostedViewMaximumAllowedSize`), in points: a Siri snippet on an iPhone.
  package var viewSizeLimits = (minimum: ViewSize(width: 0, height: 0), maximum: ViewSize(width: 398, height: 600))

  /// The end of an intent for its extension: kept warm, or shut down (nil: nothing to do).
  func finish(_ session: ExtensionSession?) async {
    guard let session else { return }
    if let warm {
      await warm.give(session)
    } else if let lent = session.peer as? ServedPeer {
      await session.finishLent(lent)
    } else {
      await session.shutdown()
    }
  }

  /// How an app is brought to the foreground (`continueInApp`); nil: `AppLauncher` on the user's terminal. Tests
  /// record the launch instead.
  var foregroundLauncher: (@Sendable (AppBundle, [String: String]) async throws -> Int32)? = nil
  /// `--voice`: the answer said is the voice dialog (the concise template where the definition has one).
  package var speaksVoiceDialog = false
  /// Whether a foreground app's stdout goes to stderr (`--json`, whose stdout is one document).
  package var appOutputToStandardError = false

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

  func check(_ code: ResponseCode, spec: IntentSpec?, session: ExtensionSession, intent: String) throws {
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
    // A name the definition's response does not declare (`template-unknown-name`, `template-misspelt-name`) is
    // said as written, never as nothing ("Your 1 ${sise} latte", not "Your 1  latte").
    let declared = spec.flatMap { $0.isSystem ? nil : Set($0.response?.parameters.map(\.name) ?? []) }
    func rendered(_ template: String) -> String {
      renderTemplate(template) { name in
        if let words = responseWords(name) { return words }
        if let declared, !declared.contains(String(name.split(separator: ".").first ?? Substring(name))) {
          return "${\(name)}"
        }
        return nil
      }.text
    }
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
}
