import AssistantHost
import ExtensionProtocol
import Foundation

extension TestHost {
  /// Says `utterance`, as `assistant "UTTERANCE"` does: the engine understands it against the installed apps, asks
  /// what it needs, and runs the intent in the app's real extensions (sandboxed child processes, stopped before this
  /// returns).
  ///
  /// ```swift
  /// let result = try await host.say("Book room 14 with Rooms", answers: ["Ada"])
  /// #expect(result.questions == ["Who is the booking for?"])
  /// #expect(result.dialog == ["Room 14 is now booked by Ada."])
  /// ```
  /// - Parameters:
  ///   - utterance: what the user says ("Book room 12 for Ada with Rooms").
  ///   - answers: the answers to the questions, in order (the command line's `--answer`). A question with none left
  ///     ends the run with `valueNeeded` (75); an answer no question used ends it with `usage` (64) after the intent.
  ///   - passcode: the device's passcode, typed when the engine asks for it (an intent restricted while locked);
  ///     nil: nobody can type it, and such an intent is refused (77).
  ///   - faults: faults to inject into the run's extensions (`FaultPlan`: a crash, a hang, a late answer at a step).
  /// - Returns: what the run came to; an error that ended it is in `status` and `errorMessage`, not thrown.
  /// - Throws: `CancellationError` when the task is cancelled (after the run's processes are stopped);
  ///   `TestHostError` when the host is shut down.
  public func say(
    _ utterance: String, answers: [String] = [], passcode: String? = nil, faults: FaultPlan = []
  ) async throws -> SiriResult {
    try await perform(.say(utterance), TestConversation(.scripted(answers: answers, passcode: passcode)), faults)
  }

  /// Runs the intent `intent` of the installed app `app` directly, like a Shortcuts action (`assistant run APP
  /// INTENT NAME=VALUE...`): values not given are resolved and asked for as in a conversation.
  ///
  /// ```swift
  /// let result = try await host.run(app: "Rooms", intent: "BookRoom", parameters: ["roomNumber": "15", "bookedBy": "Grace"])
  /// #expect(result.dialog == ["Room 15 is now booked by Grace."])
  /// ```
  /// - Parameters:
  ///   - app: the app's name or bundle id.
  ///   - intent: its class (`BookRoomIntent`), definition name (`BookRoom`) or title (`Book Room`); an App Intent's
  ///     identifier.
  ///   - parameters: values by parameter name, each as text that the intent definition types (`"15"` for an
  ///     Integer).
  ///   - answers: the answers to the questions, in order, as for `say`.
  ///   - passcode: the device's passcode, as for `say`.
  ///   - faults: faults to inject into the run's extensions, as for `say`.
  /// - Returns: what the run came to.
  /// - Throws: `CancellationError`; `TestHostError` when the host is shut down.
  public func run(
    app: String, intent: String, parameters: [String: String] = [:], answers: [String] = [], passcode: String? = nil,
    faults: FaultPlan = []
  ) async throws -> SiriResult {
    let values = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    return try await perform(
      .run(app: app, intent: intent, values: values), TestConversation(.scripted(answers: answers, passcode: passcode)),
      faults)
  }

  /// Says `utterance` and lets `body` step through the conversation: the engine stops at each question until the
  /// test answers it (`SiriConversation`). When `body` returns or throws, a question it left unanswered ends the run
  /// with `valueNeeded` (75); the run (and every process it started) has ended before this returns.
  ///
  /// ```swift
  /// let result = try await host.conversation("Book room 14 with Rooms") { siri in
  ///   try await siri.expect("Who is the booking for?")
  ///   try await siri.answer("Ada")
  ///   return try await siri.result()
  /// }
  /// #expect(result.dialog == ["Room 14 is now booked by Ada."])
  /// ```
  /// - Parameter faults: faults to inject into the run's extensions, as for `say`.
  /// - Returns: what `body` returns.
  /// - Throws: what `body` throws; `CancellationError`; `TestHostError` when the host is shut down.
  public func conversation<Value>(
    _ utterance: String, faults: FaultPlan = [], _ body: (SiriConversation) async throws -> Value
  ) async throws -> Value {
    try checkOpen()
    let conversation = TestConversation(.stepped)
    let siri = SiriConversation(conversation)
    return try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        defer { conversation.finish() }
        siri.end(with: try await self.perform(.say(utterance), conversation, faults))
      }
      let value: Value
      do {
        value = try await body(siri)
      } catch {
        conversation.close()
        try await group.waitForAll()
        throw error
      }
      conversation.close()
      try await group.waitForAll()
      return value
    }
  }

  /// What a run does.
  enum Request: Sendable {
    case say(String)
    case run(app: String, intent: String, values: [String])

    var command: TranscriptEntry.Invocation.Command {
      switch self {
      case .say(let utterance): .ask(utterance: utterance)
      case .run(let app, let intent, let values): .run(app: app, intent: intent, values: values)
      }
    }

    /// As the transcript's first line shows it.
    var shown: String {
      switch self {
      case .say(let utterance): "> \(utterance)"
      case .run(let app, let intent, let values): "> run " + ([app, intent] + values).joined(separator: " ")
      }
    }
  }

  /// Runs `request` in the engine, in this host's home, talking through `conversation`: the configuration of a
  /// plain `assistant` run (the sandbox on, the default deadlines), on this host's device and locale, recorded, with
  /// `faults` injected.
  func perform(_ request: Request, _ conversation: TestConversation, _ faults: FaultPlan = []) async throws
    -> SiriResult
  {
    try checkOpen()
    let recorder = TranscriptRecorder()
    recorder.record(.invocation(.init(command: request.command, locale: locale, voice: nil)))
    var configuration = Assistant.Configuration(home: engineHome, conversation: conversation)
    configuration.locale = locale
    configuration.device = .state(device)
    configuration.recorder = recorder
    faults.apply(to: &configuration)
    let assistant = Assistant(configuration)
    var answer: Assistant.Answer? = nil
    var failure: HostError? = nil
    do {
      switch request {
      case .say(let utterance): answer = try await assistant.say(utterance)
      case .run(let app, let intent, let values):
        answer = .outcome(try await assistant.run(app: app, intent: intent, values: values))
      }
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      failure = HostError(reporting: error)
    }
    let status: ExitStatus
    switch (answer, failure) {
    case (.outcome(let outcome), _): status = outcome.isSuccess ? .success : .failureResponse
    case (_, let failure?): status = failure.status
    default: status = .success
    }
    recorder.record(.outcome(exit: Int(status.rawValue), error: failure?.message))
    return SiriResult(
      request: request, turns: conversation.turns, answer: answer, failure: failure, status: status,
      recorded: recorder.lines)
  }

  /// This host's device: its lock record in the home, on the real clock (never the process's
  /// `INTENTHOST_CLOCK_OFFSET`).
  var device: DeviceState { DeviceState(home: engineHome, clock: HostClock(offset: 0)) }
}

extension SiriResult {
  /// The result of `request`, from the conversation's turns and what the engine answered or threw.
  init(
    request: TestHost.Request, turns: [TestConversation.Turn], answer: Assistant.Answer?, failure: HostError?,
    status: ExitStatus, recorded: [String]
  ) {
    var lines = [request.shown]
    dialog = []
    questions = []
    explanations = []
    views = []
    phrases = []
    for turn in turns {
      switch turn {
      case .said(let text):
        dialog.append(text)
        lines.append(text)
      case .explained(let text):
        explanations.append(text)
        lines.append(text)
      case .shown(let snippet):
        views.append(snippet)
        lines.append("[\(snippet.extensionName)]")
        lines += snippet.lines.map { "  " + $0 }
      case .asked(let question):
        questions.append(question.prompt)
        lines.append(question.prompt)
      case .answered(let reply):
        lines[lines.count - 1] += reply.map { " " + $0 } ?? " (not answered)"
      }
    }
    parameters = [:]
    responseParameters = [:]
    switch answer {
    case .outcome(let outcome):
      // "cancel" to "which one?" ends with the user's cancel, no app or intent chosen.
      app = outcome.app.isEmpty ? nil : outcome.app
      intent = outcome.intent.isEmpty ? nil : outcome.intent
      parameters = outcome.parameters
      responseParameters = outcome.responseParameters
      responseCode = outcome.code.rawValue
      voiceDialog = outcome.voiceDialog ?? outcome.dialog
    case .phrases(let list):
      phrases = list.apps.flatMap { app in app.phrases.map { "\(app.name): \($0.phrase)" } }
      lines += phrases
    case nil: break
    }
    if let failure {
      errorMessage = failure.message
      lines.append(failure.printed)
    }
    self.status = Status(status)
    lines.append("exit \(status.rawValue)")
    transcript = SiriTranscript(lines: lines, recorded: recorded)
  }
}
