import AssistantHost
import ExtensionProtocol
import Synchronization

/// The engine's side of a test's conversation: the `Conversation` the engine says, asks and shows through (as the
/// command line's `TerminalConversation`), keeping every turn for the result and the transcript.
///
/// Questions are answered one of two ways:
/// - scripted (`TestHost.say(_:answers:passcode:)`): the answers in order, as `--answer` gives them; a question with
///   none left ends the run with `valueNeeded` (75), and an answer nobody asked for is a usage error (64), as on the
///   command line;
/// - stepped (`SiriConversation`): the engine waits at each question until the test answers it, so the test sees
///   each question as it is asked. Once the test stops answering (`close()`), a question ends the run with 75.
final class TestConversation: CheckedConversation {
  /// One turn of the conversation, in order.
  enum Turn: Sendable {
    case said(String)
    case explained(String)
    case shown(SiriResult.Snippet)
    case asked(SiriConversation.Question)
    /// The answer to the question before; nil when it was not answered.
    case answered(String?)
  }

  /// How questions are answered.
  enum Replies: Sendable {
    case scripted(answers: [String], passcode: String?)
    case stepped
  }

  /// What the test replied to a stepped question.
  enum Reply: Sendable {
    case text(String)
    /// The test stopped answering (or the engine was cancelled) before it replied.
    case unanswered
    case cancelled
  }

  /// A question the engine waits on.
  private struct Pending {
    var question: SiriConversation.Question
    var continuation: CheckedContinuation<Reply, Never>
  }

  private struct State {
    var turns: [Turn] = []
    var answers: [String]
    var passcode: String?
    var pending: Pending? = nil
    /// The test waiting for the next question (stepped).
    var questionWaiter: CheckedContinuation<SiriConversation.Question?, Never>? = nil
    /// The run ended: no question will come.
    var finished = false
    /// The test stopped answering: a question is not answered.
    var closed = false
    /// The engine's task was cancelled while asking.
    var cancelled = false
  }

  private let stepped: Bool
  private let state: Mutex<State>

  init(_ replies: Replies) {
    switch replies {
    case .scripted(let answers, let passcode):
      stepped = false
      state = Mutex(State(answers: answers, passcode: passcode))
    case .stepped:
      stepped = true
      state = Mutex(State(answers: [], passcode: nil))
    }
  }

  /// Every turn so far.
  var turns: [Turn] { state.withLock { $0.turns } }

  var unusedAnswers: [String] { state.withLock { $0.answers } }

  // MARK: - The engine's side

  func say(_ text: String) async { state.withLock { $0.turns.append(.said(text)) } }

  func explain(_ text: String) async { state.withLock { $0.turns.append(.explained(text)) } }

  func show(_ view: ConfiguredView, from extensionName: String) async {
    guard let snippet = view.snippet else { return }
    state.withLock { $0.turns.append(.shown(.init(extensionName: extensionName, lines: snippet.lines))) }
  }

  func ask(_ prompt: String, need: String) async throws -> String {
    try await ask(prompt, need: need, kind: .value)
  }

  func ask(_ prompt: String, need: String, kind: AnswerKind) async throws -> String {
    let question = SiriConversation.Question(prompt: prompt, kind: .init(kind))
    switch await reply(to: question) {
    case .text(let answer): return answer
    case .cancelled: throw CancellationError()
    case .unanswered:
      throw HostError(
        .valueNeeded,
        "\(need) is needed (\"\(prompt)\"), but the test gave no answer: "
          + (stepped ? "answer it in the conversation" : "add one to `answers:`"))
    }
  }

  func askPasscode(_ prompt: String, for purpose: PasscodePurpose) async throws -> PasscodeAnswer {
    guard purpose == .unlock else { return .unavailable("the test host answers no authentication request") }
    switch await reply(to: SiriConversation.Question(prompt: prompt, kind: .passcode)) {
    case .text(let passcode): return passcode.isEmpty ? .cancelled : .entered(passcode)
    case .cancelled: throw CancellationError()
    case .unanswered:
      return .unavailable(
        "the test gave no passcode: " + (stepped ? "enter it in the conversation" : "pass one to `passcode:`"))
    }
  }

  /// The reply to `question`: scripted, or waited for from the test. The question and its answer are turns.
  private func reply(to question: SiriConversation.Question) async -> Reply {
    guard stepped else {
      return state.withLock { state in
        state.turns.append(.asked(question))
        let reply: String?
        if question.kind == .passcode {
          reply = state.passcode
        } else {
          reply = state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        state.turns.append(.answered(question.kind == .passcode ? reply.map { _ in "****" } : reply))
        return reply.map(Reply.text) ?? .unanswered
      }
    }
    let reply = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
        let (immediate, waiter) = state.withLock {
          state -> (Reply?, CheckedContinuation<SiriConversation.Question?, Never>?) in
          state.turns.append(.asked(question))
          if state.cancelled { return (.cancelled, nil) }
          if state.closed { return (.unanswered, nil) }
          let waiter = state.questionWaiter
          state.questionWaiter = nil
          state.pending = Pending(question: question, continuation: continuation)
          return (nil, waiter)
        }
        if let immediate { continuation.resume(returning: immediate) }
        waiter?.resume(returning: question)
      }
    } onCancel: {
      let pending = state.withLock { state in
        state.cancelled = true
        defer { state.pending = nil }
        return state.pending
      }
      pending?.continuation.resume(returning: .cancelled)
    }
    state.withLock { state in
      if case .text(let text) = reply {
        state.turns.append(.answered(question.kind == .passcode ? "****" : text))
      } else {
        state.turns.append(.answered(nil))
      }
    }
    return reply
  }

  // MARK: - The test's side (stepped)

  /// The next question the engine asks, once it asks it; nil when the run ends without asking another. A question
  /// already returned and not yet answered is returned again.
  func nextQuestion() async -> SiriConversation.Question? {
    await withCheckedContinuation { (continuation: CheckedContinuation<SiriConversation.Question?, Never>) in
      let now = state.withLock { state -> SiriConversation.Question?? in
        if let pending = state.pending { return .some(pending.question) }
        if state.finished { return .some(nil) }
        state.questionWaiter = continuation
        return nil
      }
      if let now { continuation.resume(returning: now) }
    }
  }

  /// Answers the question the engine waits on. - Returns: false when it waits on none.
  func answer(_ text: String) -> Bool {
    let pending = state.withLock { state in
      defer { state.pending = nil }
      return state.pending
    }
    pending?.continuation.resume(returning: .text(text))
    return pending != nil
  }

  /// The run ended: a test waiting for a question gets none.
  func finish() {
    let waiter = state.withLock { state in
      state.finished = true
      defer { state.questionWaiter = nil }
      return state.questionWaiter
    }
    waiter?.resume(returning: nil)
  }

  /// The test stops answering: the question the engine waits on, and any it asks later, are not answered.
  func close() {
    let pending = state.withLock { state in
      state.closed = true
      defer { state.pending = nil }
      return state.pending
    }
    pending?.continuation.resume(returning: .unanswered)
  }
}

extension SiriConversation.Question.Kind {
  init(_ kind: AnswerKind) {
    switch kind {
    case .value: self = .value
    case .yesNo: self = .yesNo
    case .choice: self = .choice
    }
  }
}
