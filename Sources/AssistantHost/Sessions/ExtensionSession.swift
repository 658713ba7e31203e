import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision
import Synchronization

/// What an extension (or an app serving `handleInApp`) may send of its own, requests and notifications, per request
/// of the host's: past it, a protocol violation (exit 70). Version 1 has one request for an extension to send
/// (`host/requestAuthentication`, during confirm or handle) and `$/cancelRequest`; the budget leaves room for a
/// handful of those and for a message a newer SDK might add.
let unsolicitedBudget = Connection.UnsolicitedBudget(messages: 16, bytes: 64 << 10)

/// One running extension (or app serving `handleInApp`): its peer (the supervised process) and the connection to
/// it.
final class ExtensionSession: Sendable {
  let target: SessionTarget
  let peer: any SessionPeer
  let connection: Connection
  let deadlines: Deadlines
  /// What the peer sends of its own: `host/requestAuthentication` during confirm, handle and perform, an App
  /// Intent's questions during perform, errors otherwise.
  let inbound: InboundRequests
  /// What it answered `initialize`.
  private let handshakeResult = Mutex<InitializeResult?>(nil)
  /// The fault plan of the run it serves (a test's; `use(_:)`), applied before each request (`withFaults`).
  let faults = Mutex<FaultInjector?>(nil)

  /// Serves a run with this fault plan (nil: none), from its next request on; a kept session takes each run's.
  func use(_ injector: FaultInjector?) { faults.withLock { $0 = injector } }

  /// The digest of the App Intents metadata its code registers, as it answered `initialize`; nil when it sent none.
  var appIntentsMetadataDigest: String? { handshakeResult.withLock { $0?.appIntentsMetadataDigest } }

  /// A name for messages: "RoomsIntents (com.example.rooms.RoomsIntents)".
  var label: String { "\(target.name) (\(target.bundleIdentifier))" }

  private init(
    target: SessionTarget, peer: any SessionPeer, connection: Connection, deadlines: Deadlines, home: AssistantHome
  ) {
    self.target = target
    self.peer = peer
    self.connection = connection
    self.deadlines = deadlines
    let log: @Sendable (String) -> Void = { [peer] line in peer.appendToLog(line) }
    inbound = InboundRequests(
      donations: DonationServer(
        store: DonationStore(home: home), app: target.appIdentifier,
        rules: DonationRules(definitions: target.appDefinitions, appIntents: target.appIntentsMetadata), log: log),
      log: log)
    // Taken on the reader thread as they come, in arrival order (docs/PROTOCOL.md, "Requests to the host").
    connection.start { [weak connection, inbound] message in
      guard let message, let connection else { return }
      inbound.receive(message, connection: connection)
    }
  }

  /// Starts `target` (confined by `sandbox`) through `launcher` and performs the handshake.
  /// - Parameter storageWatch: where its container and app groups are added, to be checked when the run ends.
  /// - Throws: `HostError` (`.extensionFault` when it cannot start or answer, `.refused` when it cannot be
  ///   sandboxed); whatever was started is gone when this throws.
  static func start(
    _ target: SessionTarget, home: AssistantHome, locale: String, deadlines: Deadlines, sandbox: SandboxPolicy,
    launcher: any SessionLauncher = ProcessLauncher(), storageWatch: StorageWatch? = nil,
    faults: FaultInjector? = nil
  ) async throws -> ExtensionSession {
    let launched = try await launcher.launch(target, home: home, locale: locale, sandbox: sandbox)
    storageWatch?.add(launched.storage)
    let session = ExtensionSession(
      target: target, peer: launched.peer, connection: launched.connection, deadlines: deadlines, home: home)
    session.use(faults)
    if let handshake = launched.handshake {
      // Lent by the server, after a run that did the handshake (and checked its version).
      session.handshakeResult.withLock { $0 = handshake }
      return session
    }
    do {
      let result = try await session.request(
        InitializeRequest(
          host: "IntentHost \(hostVersion)", bundleIdentifier: target.bundleIdentifier,
          extensionPoint: target.extensionPoint, bundlePath: target.bundlePath,
          containerPath: launched.containerPath, appGroups: launched.appGroups, locale: locale),
        phase: .handshake, what: "the handshake")
      session.handshakeResult.withLock { $0 = result }
      if result.protocolVersion != protocolVersion {
        throw session.violation(
          "speaks protocol version \(result.protocolVersion); this host speaks \(protocolVersion)")
      }
      return session
    } catch {
      await session.abort()
      throw error
    }
  }

  /// Whether the session can take another request.
  var isHealthy: Bool { connection.failure == nil && peer.termination == nil }

  /// How the host answers an App Intent's question (`host/requestValue`, …) while its perform is pending: the
  /// answer, or the error to answer with. `host/requestAuthentication` is answered by the authenticator.
  typealias QuestionHandler =
    @Sendable (InboundRequests.Question.Kind) async throws -> Result<InboundRequests.Answer, ResponseError>

  /// Sends a request within the phase's deadline.
  /// - Parameters:
  ///   - what: the step for messages, e.g. "resolve of roomNumber".
  ///   - authenticator: given for confirm, handle and perform: while the request is pending, the peer's
  ///     `host/requestAuthentication` requests are served with it, one at a time (the user's time does not count
  ///     against the deadline). Without it they are answered `notAllowedNow`.
  ///   - questions: given for `appIntent/perform`: while it is pending, the peer's questions are served with it, one
  ///     at a time, as authentications are.
  /// - Throws: `HostError(.extensionFault)` describing what went wrong (the peer is then gone), or
  ///   `CancellationError` when the calling task was cancelled (the peer is then killed).
  func request<R: RequestMessage>(
    _ request: R, phase: Phase, what: String, authenticator: HostAuthenticator? = nil,
    questions: QuestionHandler? = nil
  ) async throws -> R.Response {
    switch try await answer(request, phase: phase, what: what, authenticator: authenticator, questions: questions) {
    case .success(let response): return response
    case .failure(let answer): throw await answer.fault()
    }
  }

  /// Sends a request as `request(_:phase:what:authenticator:questions:)` does, returning the peer's error answer
  /// instead of treating it as a fault (App Intents' `perform()` throws an error the user hears).
  /// - Throws: as `request`, for every other failure.
  func answer<R: RequestMessage>(
    _ request: R, phase: Phase, what: String, authenticator: HostAuthenticator? = nil,
    questions: QuestionHandler? = nil
  ) async throws -> Result<R.Response, HostErrorAnswer> {
    do {
      guard authenticator != nil || questions != nil else {
        return .success(
          try await withFaults(phase: phase, what: what) {
            try await connection.send(request, timeout: deadlines[phase])
          })
      }
      return .success(
        try await servingQuestions(authenticator: authenticator, questions: questions, during: what) {
          try await self.withFaults(phase: phase, what: what) {
            try await self.connection.send(request, timeout: self.deadlines[phase])
          }
        })
    } catch ConnectionError.cancelled {
      await abort()
      throw CancellationError()
    } catch ConnectionError.remote(let error) {
      return .failure(HostErrorAnswer(error: error, session: self, phase: phase, what: what))
    } catch let error as ConnectionError {
      throw await fault(error, phase: phase, what: what)
    }
  }

  /// An error the peer answered a request with: the session is alive. `fault()` makes it the fault it is for
  /// every request but the ones whose errors mean something (`appIntent/perform`).
  struct HostErrorAnswer: Error {
    var error: ResponseError
    var session: ExtensionSession
    var phase: Phase
    var what: String

    func fault() async -> HostError {
      await session.fault(.remote(error), phase: phase, what: what)
    }
  }

  /// Sends a request while the user answers one of the peer's questions (an App Intent's `entity/query` or
  /// `appIntent/options`, the one exception to one request at a time), within the `phase` deadline.
  ///
  /// The question holds the connection's deadlines (the user's time does not count against the pending perform), and
  /// the hold is the question's: this request keeps a clock of its own instead of touching it. It is not cancelled
  /// with the question (the extension may cancel its question, or answer its perform, while the host waits for this
  /// answer): it runs to its answer, its deadline or its fault, so the peer is never killed for a cancel.
  /// - Throws: `HostError(.extensionFault)` for a fault, a missed deadline included (the peer is then gone).
  func requestWhileAsking<R: RequestMessage>(_ request: R, phase: Phase, what: String) async throws -> R.Response {
    let deadline = deadlines[phase]
    let result = await withUncancelledTask { [connection] () -> Result<R.Response, ConnectionError> in
      await withTaskGroup(of: Result<R.Response, ConnectionError>?.self) { group in
        group.addTask {
          do { return .success(try await connection.send(request)) } catch let error as ConnectionError {
            return .failure(error)
          } catch {
            return .failure(.cancelled)
          }
        }
        group.addTask {
          try? await Task.sleep(for: deadline)
          return Task.isCancelled ? nil : .failure(.timedOut(method: R.method, seconds: deadline.inSeconds))
        }
        var first: Result<R.Response, ConnectionError>? = nil
        while first == nil, let next = await group.next() { first = next }
        group.cancelAll()
        return first ?? .failure(.cancelled)
      }
    }
    switch result {
    case .success(let response): return response
    case .failure(let error): throw await fault(error, phase: phase, what: what)
    }
  }

  /// Runs `body` (the wait for a request's answer) with a child task that serves the peer's questions until it
  /// ends. When it ends, a question still being served is answered `requestCancelled` and its prompt ends; the
  /// child has ended when this returns.
  private func servingQuestions<T: Sendable>(
    authenticator: HostAuthenticator?, questions: QuestionHandler?, during what: String,
    _ body: () async throws -> T
  ) async throws -> T {
    let stream = inbound.open(during: what, serving: questions == nil ? .authentication : .perform)
    let result = await withTaskGroup(of: Void.self) { group -> Result<T, any Error> in
      group.addTask {
        await self.serve(stream, authenticator: authenticator, questions: questions, during: what)
      }
      let result: Result<T, any Error>
      do { result = .success(try await body()) } catch { result = .failure(error) }
      inbound.close(connection: connection)
      group.cancelAll()
      return result
    }
    return try result.get()
  }

  /// Serves the questions taken during `what`, one at a time, until the stream finishes or the task is cancelled.
  private func serve(
    _ stream: AsyncStream<InboundRequests.Question>, authenticator: HostAuthenticator?, questions: QuestionHandler?,
    during what: String
  ) async {
    for await question in stream {
      let result: Result<InboundRequests.Answer, ResponseError>
      do {
        let name = target.name
        let kind = question.kind
        let outcome = try await question.cancelled.racing {
          () async throws -> Result<InboundRequests.Answer, ResponseError> in
          if case .authentication(let reason) = kind {
            guard let authenticator else {
              return .failure(ResponseError(.notAllowedNow, "the host authenticates nobody during \(what)"))
            }
            return .success(.authentication(try await authenticator.authenticate(reason: reason, for: name)))
          }
          guard let questions else {
            return .failure(ResponseError(.notAllowedNow, "the host asks nothing for you during \(what)"))
          }
          return try await questions(kind)
        }
        result =
          outcome
          ?? .failure(ResponseError(.requestCancelled, "cancelled by $/cancelRequest before the user answered"))
      } catch is CancellationError {
        result = .failure(
          ResponseError(.requestCancelled, "the host's \(what) ended before the user answered"))
      } catch {
        let message = (error as? HostError)?.message ?? "\(error)"
        let task = question.method == RequestAuthenticationRequest.method ? "authenticate the user" : "ask the user"
        await writeHostMessage("cannot \(task) for \(label): \(message)")
        // The details (the host's paths, what is wrong with its state) go to the user and the log, not to the peer.
        peer.appendToLog("note: cannot \(task): \(message)")
        result = .failure(ResponseError(.internalError, "the host could not \(task)"))
      }
      switch result {
      case .success(.authentication(let outcome)):
        peer.appendToLog("note: \(question.method) during \(what): \(outcome.rawValue)")
      case .success:
        peer.appendToLog("note: \(question.method) during \(what): answered")
      case .failure(let error):
        peer.appendToLog("note: \(question.method) during \(what): \(error.code.name)")
      }
      inbound.answer(question, with: result, connection: connection)
    }
  }

  /// Turns a connection failure into a one-line fault, tearing the peer down and logging the fault.
  private func fault(_ error: ConnectionError, phase: Phase, what: String) async -> HostError {
    let message: String
    switch error {
    case .timedOut:
      connection.close()
      await peer.kill()
      message =
        "\(label) did not answer \(what) within \(deadlines[phase].shortDescription) "
        + "(the \(phase.rawValue) deadline; change it with --deadline \(phase.rawValue)=SECONDS) and was killed"
    case .closed, .io:
      connection.close()
      var termination = await peer.waitForExit(timeout: .seconds(2))
      let stillRunning = termination == nil
      if stillRunning { termination = await peer.kill() }
      let last = await peer.lastStderrLine()
      let detail = last.map { "; its last words on stderr: \($0)" + forkRefusalHint($0) } ?? ""
      if stillRunning && !peer.wasKilledForMemory {
        message = "\(label) closed its output during \(what) without answering, kept running, and was killed\(detail)"
        peer.appendToLog("fault: \(message)")
        return HostError(.extensionFault, message)
      }
      switch termination ?? .signalled(SIGKILL) {
      case .signalled(let signal):
        message = "\(label) \(peer.describeKill(signal)) during \(what)\(detail)"
      case .exited(let code):
        message = "\(label) exited with status \(code) during \(what) without answering\(detail)"
      }
    case .protocolViolation(let what2):
      connection.close()
      await peer.kill()
      message = "\(label) broke the protocol during \(what): \(what2)"
    case .remote(let remote):
      // The extension is alive and answered with an error: shut it down cleanly.
      await shutdown()
      message = "\(label) failed \(what): \(remote.message) (\(remote.code.name))"
    case .cancelled:
      await abort()
      message = "\(what) was cancelled"
    }
    var full = message
    if target.kind == .app && phase == .handshake && !target.performsAppIntents {
      full +=
        " (the extension answered handleInApp, so the app was launched to handle the intent; it must serve "
        + "it with InAppIntentHandling.serve, see docs/PROTOCOL.md, \"Apps\")"
    }
    peer.appendToLog("fault: \(full)")
    return HostError(.extensionFault, full)
  }

  /// A fault in what the extension answered (valid JSON-RPC, wrong content), logged and ready to throw.
  func violation(_ what: String) -> HostError {
    let message = "\(label) \(what)"
    peer.appendToLog("fault: \(message)")
    return HostError(.extensionFault, message)
  }

  /// The orderly end: `shutdown`, `exit`, close stdin, then the timed teardown. It runs to its end even when the
  /// calling task is cancelled; the peer is gone when it returns.
  func shutdown() async {
    await withUncancelledTask { [self] in
      if case .protocolViolation(let what)? = connection.failure {
        // Broken between requests (a flood after its last answer): the answers stand, the fault is logged.
        peer.appendToLog("fault: \(label) broke the protocol after its last answer: \(what)")
      }
      if connection.failure == nil {
        _ = try? await connection.send(ShutdownRequest(), timeout: deadlines.shutdown)
        try? connection.notify(ExitNotification())
      }
      connection.closeOutput()
      await peer.tearDown(grace: deadlines.shutdown, termGrace: .milliseconds(500))
      connection.close()
    }
  }

  /// The end of a run for a session lent by `assistant serve`: given back when healthy (this connection's reader and
  /// writer stopped first, so that nothing of the next run's is read here), shut down otherwise.
  func finishLent(_ peer: ServedPeer) async {
    guard isHealthy, let handshake = handshakeResult.withLock({ $0 }) else {
      await shutdown()
      return
    }
    await withUncancelledTask { [connection] in
      connection.close()
      await connection.waitUntilFinished()
      await peer.giveBack(handshake: handshake, nextRequestNumber: connection.nextRequestNumber)
    }
  }

  /// Kills the peer at once; it is gone when this returns.
  func abort() async {
    connection.close()
    await peer.kill()
  }

  /// A line in the extension's log, beside its stderr.
  func appendToLog(_ line: String) {
    peer.appendToLog(line)
  }
}
