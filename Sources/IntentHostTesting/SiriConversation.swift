import Synchronization
import Testing

/// A conversation a test steps through (`TestHost.conversation(_:_:)`): the engine runs the utterance and stops at
/// each question it asks until the test answers it, so each step can be checked as it happens.
///
/// ```swift
/// try await host.conversation("Start a workout with Ascent") { siri in
///   try await siri.expect("What kind of workout?")
///   try await siri.answer("boulder climb")
///   try await siri.confirm()  // "Ready to start your boulder climb workout in Ascent?"
///   let result = try await siri.result()
///   #expect(result.responseCode == "success")  // the app handled it (handleInApp)
/// }
/// ```
///
/// Use it only inside the closure it is given; each method waits for the engine, never on the cooperative pool.
public final class SiriConversation: Sendable {
  /// A question the assistant asked.
  public struct Question: Sendable, Hashable, CustomStringConvertible {
    /// What a question wants.
    public enum Kind: Sendable, Hashable {
      /// A parameter's value ("Who is the booking for?").
      case value
      /// Yes or no ("Ready to start your wall climb workout in Ascent?"): `confirm()` or `decline()`.
      case yesNo
      /// One of a list, by number or name ("Which one? (1-2)").
      case choice
      /// The device's passcode (an intent restricted while locked): `enterPasscode(_:)`.
      case passcode
    }

    /// The question, as the assistant asks it.
    public var prompt: String
    /// What it wants.
    public var kind: Kind

    /// A question, to compare with what `nextQuestion()` returns: `Question(prompt: "Who is the booking for?", kind: .value)`.
    public init(prompt: String, kind: Kind) {
      self.prompt = prompt
      self.kind = kind
    }

    /// `"PROMPT" (KIND)`, as failure messages quote it.
    public var description: String { "\"\(prompt)\" (\(kind))" }
  }

  /// Why a step could not be taken.
  public struct StepError: Error, Sendable, CustomStringConvertible {
    /// What the test tried, and what the engine did instead, with the transcript when the run has ended.
    public var description: String
  }

  private let conversation: TestConversation
  private let ending = Mutex<SiriResult?>(nil)

  init(_ conversation: TestConversation) { self.conversation = conversation }

  /// Records how the run ended (the engine's task).
  func end(with result: SiriResult) { ending.withLock { $0 = result } }

  /// The next question the assistant asks, once it asks it (the one waiting for an answer, if there is one).
  /// - Throws: `StepError` when the run ends without asking one (its transcript in the message).
  public func nextQuestion() async throws -> Question {
    if let question = await conversation.nextQuestion() { return question }
    throw StepError(description: "the run ended without asking a question\n\(endingTranscript)")
  }

  /// Waits for the next question and checks that it is `prompt`; when it is not, records an issue in the current
  /// test (the transcript attached) and goes on, so the answer still goes to the question asked.
  /// - Parameters:
  ///   - prompt: the question expected, as the assistant asks it.
  ///   - kind: the kind expected; nil accepts any.
  /// - Returns: the question asked.
  /// - Throws: `StepError` when the run ends without asking one.
  @discardableResult
  public func expect(
    _ prompt: String, kind: Question.Kind? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Question {
    let question = try await nextQuestion()
    if question.prompt != prompt || (kind != nil && question.kind != kind) {
      let expected = Question(prompt: prompt, kind: kind ?? question.kind)
      Attachment.record(conversation.turnsSoFar, named: "conversation.txt", sourceLocation: sourceLocation)
      Issue.record(
        "the assistant asked \(question), not \(expected)\n--- so far\n\(conversation.turnsSoFar)",
        sourceLocation: sourceLocation)
    }
    return question
  }

  /// Answers the question the assistant asks (waiting for it if it has not asked yet) with `text`, as typed at the
  /// terminal.
  /// - Throws: `StepError` when the run ends without asking one.
  public func answer(_ text: String) async throws {
    _ = try await nextQuestion()
    guard conversation.answer(text) else {
      throw StepError(description: "the question was withdrawn before \"\(text)\" answered it")
    }
  }

  /// Answers the yes/no question the assistant asks with "yes".
  /// - Throws: `StepError` when the run ends without asking one, or the question is not a yes/no question.
  public func confirm() async throws { try await answer("yes", to: .yesNo) }

  /// Answers the yes/no question the assistant asks with "no".
  /// - Throws: `StepError` when the run ends without asking one, or the question is not a yes/no question.
  public func decline() async throws { try await answer("no", to: .yesNo) }

  /// Types `passcode` at the passcode prompt the assistant shows (to unlock the device for an intent restricted
  /// while locked). An empty passcode cancels the prompt.
  /// - Throws: `StepError` when the run ends without asking, or asks something else.
  public func enterPasscode(_ passcode: String) async throws { try await answer(passcode, to: .passcode) }

  /// Answers the next question with `text` when it is of `kind`.
  private func answer(_ text: String, to kind: Question.Kind) async throws {
    let question = try await nextQuestion()
    guard question.kind == kind else {
      throw StepError(description: "the assistant asked \(question), which is not a \(kind) question")
    }
    try await answer(text)
  }

  /// Waits for the run to end and returns what it came to. A question asked from now on is not answered: the run
  /// ends with `valueNeeded` (75), as `assistant` does with no answer left.
  public func result() async throws -> SiriResult {
    conversation.close()
    while await conversation.nextQuestion() != nil {}  // none is answered: each ends the run
    guard let result = ending.withLock({ $0 }) else {
      throw StepError(description: "the run ended without a result (it was cancelled)")
    }
    return result
  }

  /// The transcript of the run when it has ended, else what was said so far.
  private var endingTranscript: String {
    ending.withLock { $0 }.map { "\($0.transcript)" } ?? conversation.turnsSoFar
  }
}

extension TestConversation {
  /// The turns so far, as the transcript shows them (without the request and the ending).
  var turnsSoFar: String {
    turns.map { turn in
      switch turn {
      case .said(let text), .explained(let text): text
      case .shown(let snippet): "[\(snippet.extensionName)] " + snippet.lines.joined(separator: " / ")
      case .asked(let question): "? " + question.prompt
      case .answered(let reply): "  " + (reply ?? "(not answered)")
      }
    }.joined(separator: "\n")
  }
}
