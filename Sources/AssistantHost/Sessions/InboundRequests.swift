import ExtensionProtocol
import ExtensionTransport
import IntentHostSystem
import Synchronization
import UntrustedText

/// What a peer sends of its own, taken on its connection's reader thread in arrival order, never blocking:
///
/// - A question to the user (`host/requestAuthentication`; and, while an `appIntent/perform` is pending,
///   `host/requestValue`, `host/requestDisambiguation`, `host/requestConfirmation`,
///   `host/requestParameterConfirmation`) is handed to the request of the host's that serves it (see `open`), one at
///   a time; otherwise it is answered at once with `notAllowedNow` (no such request is pending), `busy` (one is being
///   served) or `invalidParams`. From the moment it is taken until it is answered, the connection's deadlines are
///   held, so the user's time does not count against the pending request.
/// - `$/cancelRequest` of the question being served ends its prompt (it is answered `requestCancelled`); every other
///   notification is dropped.
/// - `host/donate`, `host/deleteDonations`, `host/setVocabulary` and `host/setShortcutSuggestions` are served at once
///   by `DonationServer`.
/// - Every other request is answered with `methodNotFound`.
///
/// Nothing is kept but the one question being served; the connection's unsolicited budget bounds how much may
/// come at all.
final class InboundRequests: Sendable {
  /// A question of the peer's to the user, taken for serving.
  struct Question: Sendable {
    var id: RequestID
    var kind: Kind
    /// Fired by the peer's `$/cancelRequest` for `id`.
    var cancelled: Signal

    enum Kind: Sendable {
      case authentication(reason: String)
      case value(RequestValueRequest)
      case disambiguation(RequestDisambiguationRequest)
      case confirmation(RequestConfirmationRequest)
      case parameterConfirmation(RequestParameterConfirmationRequest)
    }

    /// Its method, for messages.
    var method: String {
      switch kind {
      case .authentication: RequestAuthenticationRequest.method
      case .value: RequestValueRequest.method
      case .disambiguation: RequestDisambiguationRequest.method
      case .confirmation: RequestConfirmationRequest.method
      case .parameterConfirmation: RequestParameterConfirmationRequest.method
      }
    }
  }

  /// The answer to a question, as its method's result.
  enum Answer: Sendable {
    case authentication(AuthenticationOutcome)
    case value(ParameterValue)
    case confirmed(Bool)
    /// `{}`: the intent's confirmation, accepted.
    case accepted
  }

  /// Which questions a request of the host's serves while it is pending.
  enum Questions: Sendable {
    /// `intent/confirm`, `intent/handle`: `host/requestAuthentication`.
    case authentication
    /// `appIntent/perform`: every question.
    case perform

    func allows(_ method: String) -> Bool {
      self == .perform || method == RequestAuthenticationRequest.method
    }
  }

  /// The methods of the questions App Intents' `perform()` may ask (besides `host/requestAuthentication`).
  static let performQuestions = [
    RequestValueRequest.method, RequestDisambiguationRequest.method, RequestConfirmationRequest.method,
    RequestParameterConfirmationRequest.method,
  ]

  private struct State {
    /// Open while a request of the host's that serves questions is pending: what it is, which questions it serves,
    /// and where they go.
    var window: (what: String, questions: Questions, stream: AsyncStream<Question>.Continuation)?
    /// Taken and not yet answered; the deadlines are held meanwhile.
    var current: Question?
  }
  private let state = Mutex(State())
  /// Where an answer that could not be queued is reported (the peer's log); called on any thread, must not block.
  private let log: @Sendable (String) -> Void

  /// Serves the peer's donations and vocabulary; nil: they are answered `methodNotFound`.
  private let donations: DonationServer?

  init(donations: DonationServer? = nil, log: @escaping @Sendable (String) -> Void) {
    self.donations = donations
    self.log = log
  }

  /// Takes one message from the reader thread.
  func receive(_ message: InboundMessage, connection: Connection) {
    guard case .request(let id) = message.kind else {
      if message.method == CancelRequestNotification.method,
        let cancel = try? message.params(CancelRequestNotification.self)
      {
        state.withLock { $0.current?.id == cancel.id ? $0.current : nil }?.cancelled.fire()
      }
      return  // other notifications are dropped, as JSON-RPC allows
    }
    let refusal: ResponseError
    if message.method == RequestAuthenticationRequest.method || Self.performQuestions.contains(message.method) {
      do throws(ResponseError) {
        let question = Question(id: id, kind: try Self.kind(of: message), cancelled: Signal())
        try state.withLock { state throws(ResponseError) in
          guard let window = state.window, window.questions.allows(message.method) else {
            throw ResponseError(
              .notAllowedNow,
              message.method == RequestAuthenticationRequest.method
                ? "\(message.method) is allowed only while one of the host's intent/confirm, intent/handle or "
                  + "appIntent/perform requests to you is pending: ask while you confirm, handle or perform an intent"
                : "\(message.method) is allowed only while the host's appIntent/perform to you is pending: ask while "
                  + "you perform an intent")
          }
          if let current = state.current {
            throw ResponseError(
              .busy,
              "request \(current.id), an earlier \(current.method), is still being answered: send one at a time")
          }
          state.current = question
          connection.holdDeadlines()
          window.stream.yield(question)
        }
        return
      } catch {
        refusal = error
      }
    } else if let donations, DonationServer.methods.contains(message.method) {
      donations.serve(message, id: id, connection: connection)
      return
    } else {
      refusal = ResponseError(.methodNotFound, "the host serves no request \(message.method)")
    }
    reply { try connection.reply(to: id, error: refusal) }
  }

  /// The question `message` asks, its params checked.
  private static func kind(of message: InboundMessage) throws(ResponseError) -> Question.Kind {
    switch message.method {
    case RequestAuthenticationRequest.method:
      let request = try message.params(RequestAuthenticationRequest.self)
      if let problem = RequestAuthenticationRequest.reasonProblem(request.reason) {
        throw ResponseError(.invalidParams, "invalid params for \(message.method): \(problem)")
      }
      return .authentication(reason: request.reason)
    case RequestValueRequest.method: return .value(try message.params(RequestValueRequest.self))
    case RequestDisambiguationRequest.method:
      return .disambiguation(try message.params(RequestDisambiguationRequest.self))
    case RequestConfirmationRequest.method: return .confirmation(try message.params(RequestConfirmationRequest.self))
    default: return .parameterConfirmation(try message.params(RequestParameterConfirmationRequest.self))
    }
  }

  /// Starts serving `questions` for the request `what` (e.g. "handle of PingIntent"): until `close`, they are
  /// delivered to the stream returned.
  func open(during what: String, serving questions: Questions = .authentication) -> AsyncStream<Question> {
    let (stream, continuation) = AsyncStream.makeStream(of: Question.self)
    state.withLock { $0.window = (what, questions, continuation) }
    return stream
  }

  /// Stops serving questions: the stream finishes, and one taken and not yet answered is answered
  /// `requestCancelled` (the deadlines are released).
  func close(connection: Connection) {
    let (window, current) = state.withLock { state in
      defer {
        state.window = nil
        state.current = nil
      }
      return (state.window, state.current)
    }
    window?.stream.finish()
    guard let current else { return }
    connection.releaseDeadlines()
    let what = window?.what ?? "its request"
    reply {
      try connection.reply(
        to: current.id,
        error: ResponseError(.requestCancelled, "the host's \(what) ended before the user answered \(current.method)"))
    }
  }

  /// Answers `question`, unless `close` already did: releases the deadlines, then queues the answer.
  func answer(_ question: Question, with result: Result<Answer, ResponseError>, connection: Connection) {
    let mine = state.withLock { state -> Bool in
      guard state.current?.id == question.id else { return false }
      state.current = nil
      return true
    }
    guard mine else { return }
    connection.releaseDeadlines()
    reply {
      switch result {
      case .success(.authentication(let outcome)):
        try connection.reply(to: question.id, with: RequestAuthenticationResult(outcome: outcome))
      case .success(.value(let value)):
        try connection.reply(to: question.id, with: RequestValueResult(value: value))
      case .success(.confirmed(let confirmed)):
        try connection.reply(to: question.id, with: RequestParameterConfirmationResult(confirmed: confirmed))
      case .success(.accepted):
        try connection.reply(to: question.id, with: EmptyObject())
      case .failure(let error):
        try connection.reply(to: question.id, error: error)
      }
    }
  }

  /// Queues an answer; one that cannot be queued (the connection has ended, which the request waiting on it
  /// reports) is logged.
  private func reply(_ body: () throws -> Void) {
    do { try body() } catch { log("note: an answer to the extension's request was dropped: \(error)") }
  }
}
