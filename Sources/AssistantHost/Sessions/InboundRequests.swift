import ExtensionProtocol
import ExtensionTransport
import IntentHostSystem
import Synchronization
import UntrustedText

/// What a peer sends of its own, taken on its connection's reader thread in arrival order, never blocking:
///
/// - `host/requestAuthentication` is handed to the request of the host's that serves it (see `open`), one at a time;
///   otherwise it is answered at once with `notAllowedNow` (no such request is pending), `busy` (one is being
///   served) or `invalidParams`. From the moment it is taken until it is answered, the connection's deadlines are
///   held, so the user's time does not count against the pending request.
/// - `$/cancelRequest` of the authentication being served ends its prompt (it is answered `requestCancelled`);
///   every other notification is dropped.
/// - `host/donate`, `host/deleteDonations`, `host/setVocabulary` and `host/setShortcutSuggestions` are served at once
///   by `DonationServer`.
/// - Every other request is answered with `methodNotFound`.
///
/// Nothing is kept but the one authentication being served; the connection's unsolicited budget bounds how much may
/// come at all.
final class InboundRequests: Sendable {
  /// A `host/requestAuthentication` taken for serving.
  struct Authentication: Sendable {
    var id: RequestID
    var reason: String
    /// Fired by the peer's `$/cancelRequest` for `id`.
    var cancelled: Signal
  }

  private struct State {
    /// Open while a request of the host's that serves authentications is pending: what it is, and where they go.
    var window: (what: String, authentications: AsyncStream<Authentication>.Continuation)?
    /// Taken and not yet answered; the deadlines are held meanwhile.
    var current: Authentication?
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
    if message.method == RequestAuthenticationRequest.method {
      do throws(ResponseError) {
        let request = try message.params(RequestAuthenticationRequest.self)
        if let problem = RequestAuthenticationRequest.reasonProblem(request.reason) {
          throw ResponseError(.invalidParams, "invalid params for \(message.method): \(problem)")
        }
        let authentication = Authentication(id: id, reason: request.reason, cancelled: Signal())
        try state.withLock { state throws(ResponseError) in
          guard let window = state.window else {
            throw ResponseError(
              .notAllowedNow,
              "\(message.method) is allowed only while one of the host's intent/confirm or intent/handle requests "
                + "to you is pending: ask while you confirm or handle an intent")
          }
          if let current = state.current {
            throw ResponseError(
              .busy, "request \(current.id), an earlier \(message.method), is still being answered: send one at a time")
          }
          state.current = authentication
          connection.holdDeadlines()
          window.authentications.yield(authentication)
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

  /// Starts serving authentications for the request `what` (e.g. "handle of PingIntent"): until `close`, they are
  /// delivered to the stream returned.
  func open(during what: String) -> AsyncStream<Authentication> {
    let (authentications, continuation) = AsyncStream.makeStream(of: Authentication.self)
    state.withLock { $0.window = (what, continuation) }
    return authentications
  }

  /// Stops serving authentications: the stream finishes, and one taken and not yet answered is answered
  /// `requestCancelled` (the deadlines are released).
  func close(connection: Connection) {
    let (window, current) = state.withLock { state in
      defer {
        state.window = nil
        state.current = nil
      }
      return (state.window, state.current)
    }
    window?.authentications.finish()
    guard let current else { return }
    connection.releaseDeadlines()
    let what = window?.what ?? "its request"
    reply {
      try connection.reply(
        to: current.id,
        error: ResponseError(
          .requestCancelled, "the host's \(what) ended before the user answered \(RequestAuthenticationRequest.method)"
        ))
    }
  }

  /// Answers `authentication`, unless `close` already did: releases the deadlines, then queues the answer.
  func answer(
    _ authentication: Authentication, with result: Result<AuthenticationOutcome, ResponseError>,
    connection: Connection
  ) {
    let mine = state.withLock { state -> Bool in
      guard state.current?.id == authentication.id else { return false }
      state.current = nil
      return true
    }
    guard mine else { return }
    connection.releaseDeadlines()
    reply {
      switch result {
      case .success(let outcome):
        try connection.reply(to: authentication.id, with: RequestAuthenticationResult(outcome: outcome))
      case .failure(let error):
        try connection.reply(to: authentication.id, error: error)
      }
    }
  }

  /// Queues an answer; one that cannot be queued (the connection has ended, which the request waiting on it
  /// reports) is logged.
  private func reply(_ body: () throws -> Void) {
    do { try body() } catch { log("note: an answer to the extension's request was dropped: \(error)") }
  }
}
