import ExtensionProtocol
import ExtensionTransport
import IntentHostSystem
import Synchronization
import UntrustedText

/// How the host answers `host/requestAuthentication` (docs/PROTOCOL.md, "Requests to the host"): it shows who asks
/// and why on the prompts' stream, then asks for the device's passcode.
///
/// - The right passcode: `approved`, and the failed attempts are reset. It authorizes the extension's transaction
///   and nothing else: a locked device stays locked (`assistant unlock` and the unlock before a restricted intent
///   are what unlock it).
/// - A wrong passcode: `denied`, counted as a failed attempt (the fifth starts a lockout, as `unlock`'s do).
/// - During a lockout: `lockedOut`, without asking.
/// - No passcode given (an empty line, Ctrl-D): `cancelled`. Nobody to ask (no terminal, no
///   `--authentication-stdin`): `cancelled`, with a note on stderr saying how to give it. A line of `--passcode-stdin`
///   (given to unlock the device) is never used here.
/// - No passcode set: a yes/no question, "Allow NAME to go ahead?": yes is `approved`, anything else `denied` (not
///   counted); `cancelled` when it cannot be asked.
/// - No device state (`device` nil): `cancelled`, with a note on stderr.
struct HostAuthenticator: Sendable {
  var conversation: any Conversation
  var device: DeviceState?

  /// Asks the user to authenticate for `requester` (an extension's or app's name) and `reason`.
  /// - Parameter reason: what the extension sent, already within `RequestAuthenticationRequest.reasonProblem`'s
  ///   bounds; it is shown through the sanitizer.
  /// - Throws: `CancellationError` when the waiting task is cancelled (the prompt ends); `HostError` when the device
  ///   state cannot be read or updated.
  func authenticate(reason: String, for requester: String) async throws -> AuthenticationOutcome {
    let name = Untrusted.shown(requester)
    func note(_ why: String) async {
      await writeHostMessage("note: \(name) asked to authenticate the user, \(why); it was answered cancelled")
    }
    guard let device else {
      await note("but this host keeps no device state")
      return .cancelled
    }
    let record = try await offloaded { () throws in try device.record() }
    // Runs of spaces are one: a reason cannot fill a line and wrap into what looks like a line of its own.
    let shownReason = reason.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    await conversation.explain("\(name) asks you to authenticate: \(Untrusted.shown(shownReason))")
    guard record.passcodeSet else {
      // An answer that is neither yes nor no is asked about once more (`askYesNo`'s rule); a second is a no.
      var approval = try await conversation.askApproval("Allow \(name) to go ahead?")
      if case .entered(let answer) = approval, SpokenAnswer.answer(to: answer) == nil {
        await conversation.explain(IntentDriver.pleaseAnswerYesOrNo)
        approval = try await conversation.askApproval("Allow \(name) to go ahead?")
      }
      switch approval {
      case .entered(let answer):
        guard SpokenAnswer.answer(to: answer) == true else { return .denied }
        // A passcode set while the question was open: it is asked after all.
        let now = try await offloaded { () throws in try device.record() }
        return now.passcodeSet ? try await askPasscode(now, device: device, note: note) : .approved
      case .cancelled: return .cancelled
      case .unavailable(let why):
        await note("but nobody could be asked: \(why)")
        return .cancelled
      }
    }
    return try await askPasscode(record, device: device, note: note)
  }

  /// The passcode part: refused during a lockout, else asked and checked (a wrong one counted).
  private func askPasscode(
    _ record: DeviceRecord, device: DeviceState, note: (String) async -> Void
  ) async throws -> AuthenticationOutcome {
    let lockout = record.lockoutLeft(at: device.clock.now)
    if lockout > 0 {
      await conversation.explain("Too many wrong passcodes: try again in \(DeviceState.duration(lockout)).")
      return .lockedOut
    }
    switch try await conversation.askPasscode("Passcode", for: .authentication) {
    case .cancelled:
      return .cancelled
    case .unavailable(let why):
      await note("but the passcode cannot be asked: \(why)")
      return .cancelled
    case .entered(let passcode):
      let check = try await offloaded { () throws in try device.authenticate(passcode: passcode) }
      if let refusal = DeviceState.refusal(check) { await conversation.explain(capitalized(refusal.message) + ".") }
      switch check {
      case .accepted: return .approved
      case .wrong: return .denied
      case .lockedOut: return .lockedOut
      }
    }
  }

  private func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}

extension IntentDriver {
  /// How this run answers `host/requestAuthentication` from the extensions and apps it talks to.
  var authenticator: HostAuthenticator { HostAuthenticator(conversation: conversation, device: device) }
}

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

/// Fired at most once; a task can wait for it.
final class Signal: Sendable {
  private struct State {
    var fired = false
    var waiter: CheckedContinuation<Void, Never>?
    /// The wait was cancelled before it could register.
    var abandoned = false
  }
  private let state = Mutex(State())

  var isFired: Bool { state.withLock { $0.fired } }

  func fire() {
    state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.fired = true
      defer { state.waiter = nil }
      return state.waiter
    }?.resume()
  }

  /// Returns once the signal has fired, or the calling task is cancelled. One waiter at a time.
  func wait() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state -> Bool in
          if state.fired || state.abandoned { return true }
          state.waiter = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      state.withLock { state -> CheckedContinuation<Void, Never>? in
        state.abandoned = true
        defer { state.waiter = nil }
        return state.waiter
      }?.resume()
    }
  }

  /// Runs `body` until it ends or the signal fires, whichever is first; nil when the signal was first (`body` is then
  /// cancelled).
  /// - Throws: what `body` throws; `CancellationError` when the calling task is cancelled.
  func racing<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    let first = try await withThrowingTaskGroup(of: T?.self) { group in
      group.addTask { try await body() }
      group.addTask {
        await self.wait()
        return nil
      }
      defer { group.cancelAll() }
      return try await group.next() ?? nil
    }
    try Task.checkCancellation()
    return first
  }
}
