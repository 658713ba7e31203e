// The App Intents run: parameters before perform, `appIntent/perform` and its answers, the extension's questions
// while it performs (docs/PROTOCOL.md, "App Intents").
import AppIntentsMetadata
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import Understanding
import UntrustedText

extension IntentDriver {
  /// How many performs one run makes at most: a `needsValue` or `continueInForeground` answered to the last is not
  /// followed (an IntentHost default; Apple sets no number).
  package static let maximumPerforms = 5

  /// Runs the App Intent `invocation` to its end, in the process that declares it (its App Intents extension, or the
  /// app in the background), with the same sandbox and limits as every session: its `authenticationPolicy` is
  /// satisfied first (a locked device is unlocked), the required parameters without a value are asked, then
  /// `appIntent/perform` runs, as often as its answers ask (`needsValue`, `continueInForeground`), at most
  /// `maximumPerforms` times. While it performs, the extension's questions are asked and answered.
  ///
  /// Everything started is shut down before this returns, on every path.
  /// - Throws: `HostError`: 65 when the installed metadata has drifted from the extension's code, 70 for a fault,
  ///   75 when a value is needed and nobody can be asked or the performs ran out, 77 when the device stays locked;
  ///   `CancellationError` when the calling task was cancelled.
  package func run(_ invocation: AppIntentInvocation) async throws -> IntentOutcome {
    let app = invocation.app
    let rules = Self.lockRules(of: invocation)
    try await satisfy(rules, after: .upFront, intent: invocation.identifier, app: app)
    let opensApp = invocation.action.openAppWhenRun
    let target = try Self.target(of: invocation)
    var run = AppIntentRun(
      invocation: invocation, session: try await startSession(target).get(),
      mode: opensApp ? .foreground : .background)
    do {
      // The process's own metadata: the app's when it runs there (an openAppWhenRun intent an extension declares
      // too), which has nothing to drift from when the app declares no App Intents of its own.
      if let own = target.kind == .app ? app.appIntentsMetadata : invocation.metadata {
        try Self.checkDigest(of: run.session, against: own)
      }
      try await resolveBeforePerform(&run)
      var outcome = try await perform(&run, rules: rules)
      await finish(run.session)
      outcome.parameters = run.values
      return outcome
    } catch is CancelledByUser {
      await finish(run.session)
      return await decline(Intent(name: invocation.identifier, identifier: "", parameters: run.values), app: app)
    } catch {
      // The session of the moment (perform may have moved to the app, the one before it finished then).
      if run.session.peer.termination == nil { await run.session.shutdown() }
      throw error
    }
  }

  /// Where `invocation` runs: the app when its metadata declares it or it opens the app (`openAppWhenRun`), else the
  /// App Intents extension whose metadata declares it.
  static func target(of invocation: AppIntentInvocation) throws -> SessionTarget {
    let app = invocation.app
    if invocation.action.openAppWhenRun
      || invocation.metadata.bundleURL.standardizedFileURL == app.url.standardizedFileURL
    {
      var target = SessionTarget(app: app)
      target.performsAppIntents = true
      return target
    }
    guard
      let bundle = app.appIntentsExtensions.first(where: {
        $0.url.standardizedFileURL == invocation.metadata.bundleURL.standardizedFileURL
      })
    else {
      throw HostError(.noMatch, "\(app.name) has no App Intents extension that declares \(invocation.identifier)")
    }
    return SessionTarget(bundle, app: app)
  }

  /// The lock rules of an App Intent: its `authenticationPolicy` (`requiresAuthentication` and
  /// `requiresLocalDeviceAuthentication` both need the device unlocked before anything runs), `openAppWhenRun`'s
  /// (the app comes to the foreground: an unlocked device before anything runs), and `continueInForeground`'s (an
  /// unlocked device before the app comes to the foreground).
  package static func lockRules(of invocation: AppIntentInvocation) -> [LockPolicy.Rule] {
    let policy = invocation.action.authenticationPolicy
    // `continueInForeground` brings the app to the foreground: an unlocked device first, as for continueInApp.
    let continueInForeground = LockPolicy.Rule(
      need: .unlockedDevice, name: "continue-in-app",
      source: "\(invocation.identifier) continues in \(invocation.app.name) (continueInForeground)",
      condition: .continueInApp)
    let file = invocation.metadata.url.pathComponents.suffix(3).joined(separator: "/")
    var rules: [LockPolicy.Rule] = []
    if policy != .none {
      rules.append(
        LockPolicy.Rule(
          need: .unlockedDevice, name: "app-intent-authentication-policy",
          source: "\(invocation.identifier)'s authenticationPolicy is \(policy.appleName) in \(file)"))
    }
    // `openAppWhenRun` brings the app to the foreground before perform: the same need, known up front (and perform,
    // in the foreground already, cannot continue there).
    guard invocation.action.openAppWhenRun else { return rules + [continueInForeground] }
    return rules + [
      LockPolicy.Rule(
        need: .unlockedDevice, name: "open-app-when-run",
        source: "\(invocation.identifier) opens \(invocation.app.name) when run (openAppWhenRun in \(file))")
    ]
  }

  /// Checks the digest the extension reported in `initialize` against the installed metadata's.
  /// - Throws: `HostError(.dataError)` (65) naming both when they differ.
  static func checkDigest(of session: ExtensionSession, against metadata: AppIntentsMetadataFolder) throws {
    guard let reported = session.appIntentsMetadataDigest, let installed = metadata.digest, reported != installed
    else { return }
    let message =
      "\(session.label) registers App Intents that its \(MetadataReader.folderName) does not describe: the code's "
      + "metadata digest is \(reported), the installed file's \(installed), so the file has drifted from the code "
      + "and intents would be routed by a stale file; write the file from the code again (a Swift extension: "
      + "`EXECUTABLE --emit-appintents-metadata DIR`; one in another language: the metadata it registers, "
      + "docs/APPINTENTS.md) and install the bundle again"
    session.appendToLog("fault: \(message)")
    throw HostError(.dataError, message)
  }

  // MARK: - Parameters before perform

  /// Gives every required parameter without a value one (and every one a shortcut asks each time): the words the
  /// phrase said for an AppEntity read by its query, the parameter's default, else the user's answer to its
  /// `requestValueDialog`.
  private func resolveBeforePerform(_ run: inout AppIntentRun) async throws {
    for parameter in run.invocation.action.parameters {
      let name = parameter.name.rawValue
      if run.values[name] != nil { continue }
      if let words = run.invocation.entityWords[name] {
        if let value = try await entities(saying: words, for: parameter, run: run) {
          run.values[name] = value
          continue
        }
      }
      let askedEachTime = run.invocation.askedEachTime.contains(name)
      guard !parameter.isOptional || askedEachTime else { continue }
      if !askedEachTime, let value = Self.defaultValue(of: parameter) {
        run.values[name] = value
        continue
      }
      run.values[name] = try await askValue(for: parameter, dialog: nil, run: run)
    }
  }

  /// A parameter's default from the metadata (`LNValueTypeSpecificMetadataKeyDefaultValue`), as a value of its
  /// type; nil when it has none or it does not read as one.
  static func defaultValue(of parameter: MetadataDocument.Parameter) -> ParameterValue? {
    guard let text = parameter.typeSpecificMetadata.defaultValue?.string else { return nil }
    switch parameter.valueType {
    case .enumeration: return .enumCase(text)
    case .primitive(.string): return .string(text)
    case .primitive(.int): return Int(text).map(ParameterValue.integer)
    case .primitive(.double): return Double(text).map(ParameterValue.decimal)
    case .primitive(.bool): return SpokenAnswer.yesNo(text).map(ParameterValue.boolean)
    default: return nil
    }
  }

  /// The entity `words` name, or for a list (an array of an AppEntity) the entity each item of `words` names, each
  /// read with its query (`entity`); nil when one is not found (the user hears so, and is asked for the value).
  private func entities(
    saying words: String, for parameter: MetadataDocument.Parameter, run: AppIntentRun
  ) async throws -> ParameterValue? {
    guard let member = Self.listMember(of: parameter) else {
      return try await entity(saying: words, for: parameter, run: run)
    }
    var found: [ParameterValue] = []
    for item in Self.listItems(words) {
      guard let value = try await entity(saying: item, for: member, run: run) else { return nil }
      found.append(value)
    }
    return found.isEmpty ? nil : .array(found)
  }

  /// The entity `words` name, read with its query (`entity/query` `string`): the one found, or the one the user
  /// chooses among several; nil when none is found (the user hears so, and is asked).
  private func entity(
    saying words: String, for parameter: MetadataDocument.Parameter, run: AppIntentRun, whileAsking: Bool = false
  ) async throws -> ParameterValue? {
    guard case .entity(let type) = parameter.valueType else { return nil }
    let request = EntityQueryRequest(entityType: type.rawValue, lookup: .matching(words))
    let what = "entity/query of \(type.rawValue) for \"\(words)\""
    let found = try await Self.resolving(request, what: what, session: run.session, whileAsking: whileAsking)
    if let problem = found.problem(answering: request) { throw run.session.violation("answered \(what) \(problem)") }
    let values = found.entities.map(ParameterValue.object)
    switch values.count {
    case 0:
      await conversation.explain("Sorry, I couldn't find \(words).")
      return nil
    case 1: return values[0]
    default:
      return try await choose(
        among: values, dialog: parameter.intentHost?.requestDisambiguationDialog?.key, parameter: parameter,
        run: run)
    }
  }

  /// `entity/query` or `appIntent/options` with the `resolve` deadline: while a question of the extension's is being
  /// answered, as the one exception to one request at a time (`requestWhileAsking`).
  static func resolving<R: RequestMessage>(
    _ request: R, what: String, session: ExtensionSession, whileAsking: Bool
  ) async throws -> R.Response {
    whileAsking
      ? try await session.requestWhileAsking(request, phase: .resolve, what: what)
      : try await session.request(request, phase: .resolve, what: what)
  }

  /// The title of a parameter, lower-cased for a question ("location").
  private static func spokenTitle(_ parameter: MetadataDocument.Parameter) -> String {
    (parameter.title?.key ?? parameter.name.rawValue).lowercased()
  }

  /// Asks the user for `parameter`'s value with `dialog`, else its `requestValueDialog`, else "What's the TITLE?",
  /// offering its options (an AppEnum's cases, its options provider's, its entity query's suggestions) as a numbered
  /// list. A list (an array parameter) is answered with several values separated by commas, each read as one value
  /// of its member type. "cancel" ends the intent.
  /// - Throws: `HostError(.valueNeeded)` when nobody can be asked or no answer reads after `maximumAttempts`.
  func askValue(
    for parameter: MetadataDocument.Parameter, dialog: String?, run: AppIntentRun, whileAsking: Bool = false
  ) async throws -> ParameterValue {
    let name = parameter.name.rawValue
    let prompt =
      dialog ?? parameter.intentHost?.requestValueDialog?.key ?? "What's the \(Self.spokenTitle(parameter))?"
    let listMember = Self.listMember(of: parameter)
    let member = listMember ?? parameter
    let options = try await options(for: member, run: run, whileAsking: whileAsking)
    let names = options.map { Self.words(for: $0, in: run.invocation.document) }
    // With choices: the question, the choices numbered, then "Choose 1-N:" (a number or the words of one).
    if !options.isEmpty {
      await conversation.explain(prompt)
      for (index, option) in names.enumerated() { await conversation.explain("  \(index + 1). \(option)") }
    }
    let question = options.isEmpty ? prompt : Self.choosePrompt(options.count, several: listMember != nil)
    // What is needed, as an error says it when nobody can be asked: the dialog too when the question is "Choose".
    let need =
      "\(parameter.title?.key ?? name) (\(name)) for \(run.invocation.app.name)"
      + (options.isEmpty ? "" : ", asked \"\(prompt)\",")
    let choices = Choices(options: options, names: names, whileAsking: whileAsking)
    for _ in 0..<maximumAttempts {
      let answer = try await conversation.ask(question, need: need, kind: options.isEmpty ? .value : .choice)
        .trimmingCharacters(in: .whitespaces)
      guard listMember != nil else {
        if let value = try await value(in: answer, for: member, among: choices, run: run) { return value }
        continue
      }
      let items = Self.listItems(answer)
      var values: [ParameterValue] = []
      for item in items.isEmpty ? [answer] : items {
        guard let value = try await value(in: item, for: member, among: choices, run: run) else { break }
        values.append(value)
      }
      if !items.isEmpty, values.count == items.count { return .array(values) }
    }
    throw HostError(.valueNeeded, "no usable answer for \(need) after \(maximumAttempts) tries")
  }

  /// What the user may choose among while a value is asked: the options, their words, and whether a question of the
  /// extension's is being answered (`requestWhileAsking`).
  struct Choices {
    var options: [ParameterValue]
    var names: [String]
    var whileAsking: Bool
  }

  /// The one value `answer` gives for `parameter` (for a list, its member type): the number of one of the choices,
  /// the words of one, a value of its type, or the AppEntity its query reads; nil when it reads as none (the user
  /// hears why).
  /// - Throws: `CancelledByUser` for "cancel".
  private func value(
    in answer: String, for parameter: MetadataDocument.Parameter, among choices: Choices, run: AppIntentRun
  ) async throws -> ParameterValue? {
    let document = run.invocation.document
    let options = choices.options
    if let number = Int(answer) {
      if options.indices.contains(number - 1) { return options[number - 1] }
      // A number among numbered choices is a choice: out of range, it is refused, not taken for text ("7" for a
      // String). A parameter of numbers still takes it as its value.
      if !options.isEmpty, !Self.takesNumbers(parameter) {
        await conversation.explain("Please say \(Self.numbers(options.count)), or the words of one.")
        return nil
      }
    }
    if let index = choices.names.firstIndex(where: { normalizedWords($0) == normalizedWords(answer) }) {
      return options[index]
    }
    // "cancel" ends the intent, as for a SiriKit question, unless a choice is called so: never taken as text.
    if SpokenAnswer.isCancel(answer) { throw CancelledByUser() }
    if let value = Self.read(answer, for: parameter, in: document) { return value }
    if case .entity = parameter.valueType, !answer.isEmpty {
      return try await entity(saying: answer, for: parameter, run: run, whileAsking: choices.whileAsking)
    }
    await conversation.explain(
      "Sorry, \(parameter.title?.key ?? parameter.name.rawValue) needs \(Self.expectation(for: parameter, in: document))."
    )
    return nil
  }

  /// The question after a numbered list of `count` choices: "Choose 1-3:", or for a list (`several`) "Choose one or
  /// more of 1-3, separated by commas:"; with one choice, "Say 1 to choose it:" (not "Choose 1-1:").
  package static func choosePrompt(_ count: Int, several: Bool = false) -> String {
    if count == 1 { return "Say 1 to choose it:" }
    return several ? "Choose one or more of 1-\(count), separated by commas:" : "Choose 1-\(count):"
  }

  /// "1" for one choice, else "a number from 1 to N": what the user may answer to a numbered list of `count`.
  package static func numbers(_ count: Int) -> String { count == 1 ? "1" : "a number from 1 to \(count)" }

  /// Whether a number is a value of `parameter` (an Int or a Double), not only the number of a choice.
  static func takesNumbers(_ parameter: MetadataDocument.Parameter) -> Bool {
    switch parameter.valueType {
    case .primitive(.int), .primitive(.double): return true
    default: return false
    }
  }

  /// The parameter as one item of its list, when `parameter` is an array (`valueType` `array`): the same parameter
  /// with the member type; nil for a parameter of one value.
  static func listMember(of parameter: MetadataDocument.Parameter) -> MetadataDocument.Parameter? {
    guard case .array(let member) = parameter.valueType else { return nil }
    var item = parameter
    item.valueType = member
    return item
  }

  /// The items of a list as the user gives it: separated by commas, each trimmed, empty ones left out (as the
  /// values of a SiriKit parameter with `INIntentParameterSupportsMultipleValues`; an item cannot hold a comma).
  static func listItems(_ text: String) -> [String] {
    text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }

  /// Whether a value of `parameter` is given in words that its entity query reads: an AppEntity, or a list of them.
  package static func readsByQuery(_ parameter: MetadataDocument.Parameter) -> Bool {
    if case .entity = (listMember(of: parameter) ?? parameter).valueType { return true }
    return false
  }

  /// What may be chosen for `parameter`: its options provider's (`appIntent/options`), an AppEntity's suggested
  /// entities (`entity/query` `suggested`), or an AppEnum's cases.
  private func options(
    for parameter: MetadataDocument.Parameter, run: AppIntentRun, whileAsking: Bool
  ) async throws -> [ParameterValue] {
    let session = run.session
    func send<R: RequestMessage>(_ request: R, what: String) async throws -> R.Response {
      try await Self.resolving(request, what: what, session: session, whileAsking: whileAsking)
    }
    let name = parameter.name.rawValue
    if (parameter.dynamicOptionsSupport ?? 0) != 0 {
      let result = try await send(
        AppIntentOptionsRequest(
          intent: AppIntentInstance(identifier: run.invocation.identifier, parameters: run.values), parameter: name),
        what: "appIntent/options of \(name)")
      return result.allItems
    }
    switch parameter.valueType {
    case .entity(let type):
      let request = EntityQueryRequest(entityType: type.rawValue, lookup: .suggested)
      let what = "entity/query of \(type.rawValue) (suggested)"
      let found = try await send(request, what: what)
      if let problem = found.problem(answering: request) { throw session.violation("answered \(what) \(problem)") }
      return found.entities.map(ParameterValue.object)
    case .enumeration(let identifier):
      return run.invocation.document.enumeration(identifier)?.cases.map { .enumCase($0.identifier.rawValue) } ?? []
    default:
      return []
    }
  }

  /// Asks which of `candidates` the user means, with `dialog`, else the parameter's `requestDisambiguationDialog`,
  /// else "Which TITLE?".
  func choose(
    among candidates: [ParameterValue], dialog: String?, parameter: MetadataDocument.Parameter, run: AppIntentRun
  ) async throws -> ParameterValue {
    let introduction =
      dialog ?? parameter.intentHost?.requestDisambiguationDialog?.key ?? "Which \(Self.spokenTitle(parameter))?"
    await conversation.explain(introduction)
    let names = candidates.map { Self.words(for: $0, in: run.invocation.document) }
    for (index, name) in names.enumerated() { await conversation.explain("  \(index + 1). \(name)") }
    let need = "which \(Self.spokenTitle(parameter)) for \(run.invocation.app.name)"
    for _ in 0..<maximumAttempts {
      let answer = try await conversation.ask(Self.choosePrompt(candidates.count), need: need, kind: .choice)
        .trimmingCharacters(in: .whitespaces)
      if let number = Int(answer), candidates.indices.contains(number - 1) { return candidates[number - 1] }
      if let index = names.firstIndex(where: { normalizedWords($0) == normalizedWords(answer) }) {
        return candidates[index]
      }
      if SpokenAnswer.isCancel(answer) { throw CancelledByUser() }
      await conversation.explain("Please say \(Self.numbers(candidates.count)).")
    }
    throw HostError(.valueNeeded, "no usable answer for \(need) after \(maximumAttempts) tries")
  }

  /// A value in words: an AppEnum case's title, an entity's display string, a primitive as written; a case or an
  /// entity whose title or display string is blank, by its identifier (a choice is never shown empty).
  static func words(for value: ParameterValue, in document: MetadataDocument) -> String {
    func shown(_ text: String?, else identifier: String) -> String {
      guard let text, !text.allSatisfy(\.isWhitespace) else { return identifier }
      return text
    }
    switch value {
    case .enumCase(let identifier):
      for enumeration in document.enums {
        if let found = enumeration.cases.first(where: { $0.identifier.rawValue == identifier }) {
          return shown(found.title?.key, else: identifier)
        }
      }
      return identifier
    case .object(let object): return shown(object.displayString, else: object.identifier)
    case .string(let text): return text
    case .integer(let number): return String(number)
    case .decimal(let number): return String(number)
    case .boolean(let flag): return flag ? "yes" : "no"
    case .date(let date): return ParameterValue.formatDate(date)
    case .array(let items): return items.map { words(for: $0, in: document) }.joined(separator: ", ")
    }
  }

  /// `answer` as a value of `parameter`'s type: an AppEnum case by its identifier, title or a synonym; a number, a
  /// yes or no, text; for a list (an array parameter), items separated by commas, each read so, as an `array`. nil
  /// when it does not read (an AppEntity is read by its query).
  static func read(
    _ answer: String, for parameter: MetadataDocument.Parameter, in document: MetadataDocument
  ) -> ParameterValue? {
    let said = AppShortcutMatcher.words(answer)
    guard !said.isEmpty else { return nil }
    if let member = listMember(of: parameter) {
      let items = listItems(answer).map { read($0, for: member, in: document) }
      guard !items.isEmpty, !items.contains(nil) else { return nil }
      return .array(items.compactMap { $0 })
    }
    switch parameter.valueType {
    case .enumeration(let identifier):
      return document.enumeration(identifier).flatMap { enumeration in
        AppShortcutMatcher.spoken(enumeration).first { $0.words == said }.map { .enumCase($0.identifier) }
      }
    case .primitive(.string): return .string(answer)
    case .primitive(.int): return parseInteger(answer).map(ParameterValue.integer)
    case .primitive(.double): return Double(answer).map(ParameterValue.decimal)
    case .primitive(.bool): return SpokenAnswer.yesNo(answer).map(ParameterValue.boolean)
    case .primitive(.date):
      return ParameterValue.parseDate(answer.trimmingCharacters(in: .whitespaces)).map(ParameterValue.date)
    case .primitive(.url):
      let text = answer.trimmingCharacters(in: .whitespaces)
      return URL(string: text).flatMap { $0.scheme == nil ? nil : ParameterValue.string(text) }
    case .measurement:
      // A duration in words ("90 minutes", "1 hour 30 minutes"; a bare number is minutes), seconds on the wire; any
      // other measurement a number in its unit.
      return parameter.valueType.isDuration
        ? parseDuration(answer).map(ParameterValue.decimal) : Double(answer).map(ParameterValue.decimal)
    default: return nil
    }
  }

  /// What an answer for `parameter` must be, for "Sorry, Location needs …".
  static func expectation(for parameter: MetadataDocument.Parameter, in document: MetadataDocument) -> String {
    if let member = listMember(of: parameter) {
      return expectation(for: member, in: document) + ", or several separated by commas"
    }
    switch parameter.valueType {
    case .enumeration(let identifier):
      let titles = document.enumeration(identifier)?.cases.map { $0.title?.key ?? $0.identifier.rawValue } ?? []
      return "one of " + titles.joined(separator: ", ")
    case .primitive(.int): return "a whole number"
    case .primitive(.double): return "a number"
    case .primitive(.bool): return "yes or no"
    case .primitive(.date): return "a date and time, as 2026-11-21T09:30:00Z"
    case .primitive(.url): return "a URL, as https://example.com/"
    case .measurement:
      return parameter.valueType.isDuration ? "a duration, as 90 seconds, 45 minutes or 1 hour 30 minutes" : "a number"
    default: return "a value"
    }
  }

  // MARK: - Perform

  /// `appIntent/perform`, again after each `needsValue` and `continueInForeground`, at most `maximumPerforms`
  /// times; the answer said.
  private func perform(_ run: inout AppIntentRun, rules: [LockPolicy.Rule]) async throws -> IntentOutcome {
    let invocation = run.invocation
    let app = invocation.app
    let title = invocation.action.title?.key ?? invocation.identifier
    for attempt in 1...Self.maximumPerforms {
      let request = PerformAppIntentRequest(
        intent: AppIntentInstance(identifier: invocation.identifier, parameters: run.values), attempt: attempt,
        mode: run.mode)
      let what =
        attempt == 1 ? "perform of \(invocation.identifier)" : "perform of \(invocation.identifier) (\(attempt))"
      let snapshot = run
      let answer: Result<AppIntentPerformResult, ExtensionSession.HostErrorAnswer>
      do {
        answer = try await run.session.answer(
          request, phase: .perform, what: what, authenticator: authenticator,
          questions: { kind in try await self.answerQuestion(kind, run: snapshot) })
      } catch {
        // The fault found while a question was answered is the run's, not what stopping the peer made of perform.
        if let fault = run.fault.withLock({ $0 }) { throw fault }
        throw error
      }
      if let fault = run.fault.withLock({ $0 }) { throw fault }
      // A question nobody could answer ends the run with 75, whatever perform answered after its cancel: a result
      // is not said, an error not heard, a needsValue not asked (docs/PROTOCOL.md, "Questions to the user while
      // perform runs").
      if let unanswered = run.unanswered.withLock({ $0 }) {
        run.session.appendToLog(
          "\(what) answered after a question nobody could answer; the answer is dropped and the run ends with 75")
        throw unanswered
      }
      let result: AppIntentPerformResult
      switch answer {
      case .success(let answered): result = answered
      case .failure(let error):
        switch PerformFailure(error.error) {
        case .threw(_, let resource):
          let dialog =
            resource ?? "The action \(title) could not run because an unknown error occurred."
          await conversation.say(dialog)
          return IntentOutcome(
            app: app.name, intent: invocation.identifier, parameters: run.values, code: "failure",
            isSuccess: false, dialog: dialog)
        case .cancelledByUser:
          throw CancelledByUser()
        case .fault:
          throw await error.fault()
        }
      }
      let last = attempt == Self.maximumPerforms
      switch result {
      case .result(let dialog, let value, let snippet):
        let said = dialog ?? "Done."
        await conversation.say(said)
        var outcome = IntentOutcome(
          app: app.name, intent: invocation.identifier, parameters: run.values, code: "success", isSuccess: true,
          dialog: said)
        if let snippet {
          let view = ConfiguredView(
            success: true, parameters: [], size: viewSizeLimits.maximum, snippet: snippet)
          await conversation.show(view, from: run.session.target.name)
          run.drawn.withLock { $0.append(view) }
        }
        outcome.views = run.drawn.withLock { $0 }
        if let value { outcome.responseParameters["value"] = value }
        return outcome
      case .needsValue(let parameterName, let dialog):
        guard let parameter = invocation.action.parameter(parameterName) else {
          throw run.session.violation(
            "answered needsValue for \(parameterName), which \(invocation.identifier) does not have")
        }
        if last {
          throw giveUp(
            "\(invocation.identifier) still needed \(parameterName) after \(Self.maximumPerforms) performs", run: run)
        }
        run.values[parameterName] = try await askValue(for: parameter, dialog: dialog, run: run)
      case .continueInForeground(let dialog, let alwaysConfirm):
        if run.mode == .foreground {
          throw run.session.violation(
            "answered continueInForeground to a perform in the foreground (mode foreground); answer a result")
        }
        if last {
          throw giveUp(
            "\(invocation.identifier) still wanted to continue in \(app.name) after \(Self.maximumPerforms) performs",
            run: run)
        }
        if let dialog { await conversation.say(dialog) }
        if alwaysConfirm, try await !askYesNo("Continue in \(app.name)?", need: "whether to continue in \(app.name)") {
          throw CancelledByUser()
        }
        var history = LockPolicy.History()
        history.continuingInApp = true
        try await satisfy(
          [
            LockPolicy.Rule(
              need: .unlockedDevice, name: "continue-in-app",
              source: "\(invocation.identifier) continues in \(app.name) (continueInForeground)",
              condition: .continueInApp)
          ] + rules,
          after: history, intent: invocation.identifier, app: app)
        // The rest runs in the app, in the foreground.
        var inApp = SessionTarget(app: app)
        inApp.performsAppIntents = true
        let foreground = try await startSession(inApp).get()
        await finish(run.session)
        run.session = foreground
        run.mode = .foreground
      }
    }
    throw HostError(.valueNeeded, "\(invocation.identifier) did not finish in \(Self.maximumPerforms) performs")
  }

  /// The end of a run whose performs ran out (75): one line naming the extension, the intent and what it still
  /// wanted, in the extension's log too.
  private func giveUp(_ what: String, run: AppIntentRun) -> HostError {
    let message = "\(run.session.label): \(what); the assistant gave up"
    run.session.appendToLog(message)
    return HostError(.valueNeeded, message)
  }

  // MARK: - The extension's questions

  /// Asks the user the question `kind` of the extension, while its perform is pending, and makes the answer.
  private func answerQuestion(
    _ kind: InboundRequests.Question.Kind, run: AppIntentRun
  ) async throws -> Result<InboundRequests.Answer, ResponseError> {
    let action = run.invocation.action
    func parameter(_ name: String, of method: String) -> Result<MetadataDocument.Parameter, ResponseError> {
      guard let parameter = action.parameter(name) else {
        return .failure(
          ResponseError(
            .invalidParams,
            "invalid params for \(method): params.parameter: \(run.invocation.identifier) has no parameter \(name)"))
      }
      return .success(parameter)
    }
    do {
      switch kind {
      case .authentication:
        return .failure(ResponseError(.internalError, "the host could not authenticate the user"))
      case .value(let request):
        switch parameter(request.parameter, of: RequestValueRequest.method) {
        case .failure(let error): return .failure(error)
        case .success(let parameter):
          return .success(
            .value(try await askValue(for: parameter, dialog: request.dialog, run: run, whileAsking: true)))
        }
      case .disambiguation(let request):
        switch parameter(request.parameter, of: RequestDisambiguationRequest.method) {
        case .failure(let error): return .failure(error)
        case .success(let parameter):
          return .success(
            .value(try await choose(among: request.candidates, dialog: request.dialog, parameter: parameter, run: run)))
        }
      case .parameterConfirmation(let request):
        switch parameter(request.parameter, of: RequestParameterConfirmationRequest.method) {
        case .failure(let error): return .failure(error)
        case .success:
          let words = Self.words(for: request.value, in: run.invocation.document)
          let question = request.dialog ?? "Just to confirm, you wanted \u{201C}\(words)\u{201D}?"
          return .success(.confirmed(try await askYesNo(question, need: "a confirmation of \(request.parameter)")))
        }
      case .confirmation(let request):
        if let snippet = request.snippet {
          let view = ConfiguredView(success: true, parameters: [], size: viewSizeLimits.maximum, snippet: snippet)
          run.drawn.withLock { $0.append(view) }
          await conversation.show(view, from: run.session.target.name)
        }
        let verb = Self.verb(request.actionName)
        let title = (action.title?.key ?? run.invocation.identifier).lowercased()
        if request.showPrompt { await conversation.say(request.dialog ?? "Do you want to \(verb) \(title)?") }
        if try await confirm(verb: verb) { return .success(.accepted) }
        return .failure(ResponseError(.userCancelled, "the user did not confirm \(RequestConfirmationRequest.method)"))
      }
    } catch is CancelledByUser {
      return .failure(ResponseError(.userCancelled, "the user cancelled"))
    } catch let error as HostError where error.status == .valueNeeded {
      // Nobody can be asked: the extension hears a cancel, and the run ends with 75 once perform has answered.
      run.unanswered.withLock { $0 = $0 ?? error }
      return .failure(ResponseError(.userCancelled, "nobody can be asked: \(error.message)"))
    } catch let error as HostError where error.status == .extensionFault {
      // A fault of the extension while the host read the answer (its entity query or options crashed, hung, broke
      // the rules): the run ends with it (70), whatever perform does next; the peer is stopped so that it ends now.
      run.fault.withLock { $0 = $0 ?? error }
      await run.session.abort()
      return .failure(ResponseError(.internalError, "the host could not read the answer: \(error.message)"))
    }
  }

  /// The confirmation's button, as a question: "Order?" answered yes (or the action's word) or no.
  private func confirm(verb: String) async throws -> Bool {
    let button = verb.prefix(1).uppercased() + verb.dropFirst()
    for attempt in 0..<2 {
      let answer = try await conversation.ask("\(button)? (yes/no)", need: "a confirmation", kind: .yesNo)
      if normalizedWords(answer) == normalizedWords(verb) { return true }
      if let meant = SpokenAnswer.answer(to: answer) { return meant }
      if attempt == 0 { await conversation.explain(Self.pleaseAnswerYesOrNo) }
    }
    return false
  }

  /// A confirmation action's name as the words of its button ("order", "check in", "add data").
  static func verb(_ name: ConfirmationActionName) -> String {
    var words: [String] = []
    for character in name.rawValue {
      if character.isUppercase || words.isEmpty { words.append("") }
      words[words.count - 1].append(Character(character.lowercased()))
    }
    return words.joined(separator: " ")
  }
}

/// One App Intent run as it goes: the session it performs in, the values so far, and the first question nobody
/// could answer.
struct AppIntentRun: Sendable {
  var invocation: AppIntentInvocation
  var session: ExtensionSession
  var values: [String: ParameterValue]
  /// Where the app is for the next perform: the background (the extension, or the app launched in the background)
  /// or the foreground (`openAppWhenRun`, or after `continueInForeground`).
  var mode: PerformMode
  /// Set when a question of the extension could not be asked: the run ends with it (75) after perform answers.
  let unanswered = Shared<HostError?>(nil)
  /// The snippets drawn so far (a confirmation's, the result's), for `IntentOutcome.views`.
  let drawn = Shared<[ConfiguredView]>([])
  /// Set when the extension faulted while a question of its was answered (its `entity/query` or `appIntent/options`):
  /// the run ends with it (70).
  let fault = Shared<HostError?>(nil)

  /// A value the run and the questions it serves share.
  final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
  }

  init(invocation: AppIntentInvocation, session: ExtensionSession, mode: PerformMode) {
    self.invocation = invocation
    self.session = session
    self.mode = mode
    values = invocation.values
  }
}
