import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

/// Sends `host/requestAuthentication` over the peer's connection and says what came back: the outcome's name, or
/// "error CODE: message".
func requestAuthentication(_ connection: Connection, reason: String = "Pay 20 € to Ada") async -> String {
  do {
    return try await connection.send(RequestAuthenticationRequest(reason: reason)).outcome.rawValue
  } catch ConnectionError.remote(let error) {
    return "error \(error.code.name): \(error.message)"
  } catch {
    return "failed: \(error)"
  }
}

/// `host/requestAuthentication` in-process: the extension is a server in this process that asks the host to
/// authenticate the user during handle, the user a scripted conversation, the device state a temporary home's. A
/// request left unanswered must fail a test, not hang the run: hence the time limit.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.process))
struct AuthenticationTests {
  /// One row of the outcome table.
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    /// nil: the driver has no device state.
    var passcode: String? = "2468"
    var hasDevice = true
    /// Failed attempts before the request.
    var failures = 2
    var lockedOut = false
    var passcodes: [PasscodeAnswer]? = nil
    var answers: [String] = []
    var outcome: AuthenticationOutcome
    var failuresAfter: Int
    /// What the user was asked.
    var asked: [String]
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "the right passcode approves and resets the count", passcodes: [.entered("2468")], outcome: .approved,
      failuresAfter: 0, asked: ["[passcode] Passcode"]),
    Case(
      name: "a wrong passcode is denied and counted", passcodes: [.entered("1111")], outcome: .denied,
      failuresAfter: 3, asked: ["[passcode] Passcode"]),
    Case(
      name: "an empty line or Ctrl-D cancels", passcodes: [.cancelled], outcome: .cancelled, failuresAfter: 2,
      asked: ["[passcode] Passcode"]),
    Case(
      name: "nobody to ask cancels", passcodes: nil, outcome: .cancelled, failuresAfter: 2,
      asked: ["[passcode] Passcode"]),
    Case(
      name: "a lockout answers lockedOut without asking", failures: 5, lockedOut: true,
      passcodes: [.entered("2468")], outcome: .lockedOut, failuresAfter: 5, asked: []),
    Case(
      name: "no passcode: yes approves", passcode: nil, failures: 0, answers: ["yes"], outcome: .approved,
      failuresAfter: 0, asked: ["Allow RoomsIntents to go ahead?"]),
    Case(
      name: "no passcode: no denies, not counted", passcode: nil, failures: 0, answers: ["no"], outcome: .denied,
      failuresAfter: 0, asked: ["Allow RoomsIntents to go ahead?"]),
    Case(
      name: "no passcode and nobody to ask cancels", passcode: nil, failures: 0, outcome: .cancelled,
      failuresAfter: 0, asked: ["Allow RoomsIntents to go ahead?"]),
    Case(
      name: "no device state cancels without asking", passcode: nil, hasDevice: false, failures: 0,
      passcodes: [.entered("2468")], outcome: .cancelled, failuresAfter: 0, asked: []),
  ]

  /// A device on the rig's home with `passcode` set and `failures` failed attempts (and a lockout when asked).
  static func device(_ rig: Rig, passcode: String?, failures: Int, lockedOut: Bool = false) async throws
    -> DeviceState
  {
    let device = DeviceState(home: rig.home, clock: HostClock())
    try await offloaded { () throws in
      if let passcode { _ = try device.setPasscode(passcode, old: nil) }
      try device.update { record, now in
        record.failedAttempts = failures
        record.lockoutUntil = lockedOut ? now + 60 : nil
      }
    }
    return device
  }

  static func failedAttempts(_ device: DeviceState) async throws -> Int {
    try await offloaded { () throws in try device.record().failedAttempts }
  }

  @Test(arguments: cases)
  func eachOutcome(_ row: Case) async throws {
    let rig = try await Rig(authenticateOn: HandleIntentRequest.method) { await requestAuthentication($0) }
    defer { rig.remove() }
    let device = try await Self.device(rig, passcode: row.passcode, failures: row.failures, lockedOut: row.lockedOut)
    let conversation = ScriptedConversation(answers: row.answers, passcodes: row.passcodes)
    var driver = rig.driver(conversation)
    driver.device = row.hasDevice ? device : nil
    let outcome = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.isSuccess)
    let transcript = rig.launcher.transcript("RoomsIntents")
    #expect(transcript.contains("auth: \(row.outcome.rawValue)"), "\(transcript)")
    #expect(conversation.asked == row.asked)
    #expect(try await Self.failedAttempts(device) == row.failuresAfter)
    // The reason is shown, with the name of the extension that asks, before anything is asked.
    if row.hasDevice {
      #expect(conversation.said.first == "RoomsIntents asks you to authenticate: Pay 20 € to Ada")
    }
    #expect(rig.launcher.allEnded)
  }

  /// The right passcode authorizes the transaction; it does not unlock a locked device.
  @Test func approvalDoesNotUnlockTheDevice() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let device = try await Self.device(rig, passcode: "2468", failures: 0)
    try await offloaded { () throws in try device.lock() }
    let authenticator = HostAuthenticator(
      conversation: ScriptedConversation(answers: [], passcodes: [.entered("2468")]), device: device)
    #expect(try await authenticator.authenticate(reason: "Pay", for: "RoomsIntents") == .approved)
    #expect(try await offloaded { () throws in try device.status().locked })
  }

  /// The fifth wrong passcode starts a lockout, as `unlock`'s do.
  @Test func theFifthWrongPasscodeStartsALockout() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let device = try await Self.device(rig, passcode: "2468", failures: 4)
    let conversation = ScriptedConversation(answers: [], passcodes: [.entered("0000")])
    let authenticator = HostAuthenticator(conversation: conversation, device: device)
    #expect(try await authenticator.authenticate(reason: "Pay", for: "RoomsIntents") == .denied)
    let status = try await offloaded { () throws in try device.status() }
    #expect(status.failedAttempts == 5 && status.lockoutLeft != nil)
    #expect(conversation.said.last?.hasPrefix("Wrong passcode (5 failed attempts in a row; try again in") == true)
  }

  /// Outside confirm and handle the request is refused with `notAllowedNow`, saying when it is allowed; the user is
  /// not asked.
  @Test func duringResolveTheRequestIsRefused() async throws {
    let rig = try await Rig(authenticateOn: ResolveParameterRequest.method) { await requestAuthentication($0) }
    defer { rig.remove() }
    let device = try await Self.device(rig, passcode: "2468", failures: 0)
    let conversation = ScriptedConversation(answers: [], passcodes: [.entered("2468")])
    var driver = rig.driver(conversation)
    driver.device = device
    _ = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    let answers = rig.launcher.transcript("RoomsIntents").filter { $0.hasPrefix("auth: ") }
    #expect(!answers.isEmpty)
    for answer in answers {
      #expect(
        answer.hasPrefix(
          "auth: error notAllowedNow: host/requestAuthentication is allowed only while one of the host's "
            + "intent/confirm, intent/handle or appIntent/perform requests to you is pending"), "\(answer)")
    }
    #expect(conversation.asked.isEmpty)
  }

  /// The control for the test above: the same extension, whose resolve asks the host, is served when the host's
  /// resolve request serves authentications. So it is the phase guard that refuses it.
  @Test func theSameRequestDuringAResolveThatServesItIsServed() async throws {
    let rig = try await Rig(authenticateOn: ResolveParameterRequest.method) { await requestAuthentication($0) }
    defer { rig.remove() }
    let device = try await Self.device(rig, passcode: "2468", failures: 0)
    let conversation = ScriptedConversation(answers: [], passcodes: [.entered("2468"), .entered("2468")])
    let bundle = try #require(rig.app.intentsExtension(for: "BookRoomIntent"))
    let session = try await ExtensionSession.start(
      SessionTarget(bundle, app: rig.app), home: rig.home, locale: "en_US", deadlines: Deadlines(),
      sandbox: SandboxPolicy(), launcher: rig.launcher)
    let intent = Intent(name: "BookRoomIntent", identifier: "1", parameters: ["roomNumber": .integer(12)])
    _ = try await session.request(
      ResolveParameterRequest(intent: intent, parameter: "roomNumber"), phase: .resolve, what: "resolve",
      authenticator: HostAuthenticator(conversation: conversation, device: device))
    _ = try await session.request(
      ResolveParameterRequest(intent: intent, parameter: "roomNumber"), phase: .resolve, what: "resolve")
    await session.shutdown()
    let answers = rig.launcher.transcript("RoomsIntents").filter { $0.hasPrefix("auth: ") }
    #expect(answers.count == 2)
    #expect(answers.first == "auth: approved")
    #expect(answers.last?.hasPrefix("auth: error notAllowedNow") == true)
  }

  /// A second request while the first is being answered gets `busy` at once; the first is answered normally.
  @Test func aSecondConcurrentRequestIsBusy() async throws {
    let gate = Gate()
    let conversation = ScriptedConversation(answers: [], passcodes: [.entered("2468")], passcodeGate: gate)
    let rig = try await Rig(authenticateOn: HandleIntentRequest.method) { connection in
      async let first = requestAuthentication(connection, reason: "first")
      await conversation.waitUntilAsked()  // the host is asking the user for the first
      let second = await requestAuthentication(connection, reason: "second")
      gate.open()
      return "\(await first) / \(second)"
    }
    defer { rig.remove() }
    var driver = rig.driver(conversation)
    driver.device = try await Self.device(rig, passcode: "2468", failures: 0)
    _ = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    let answer = try #require(rig.launcher.transcript("RoomsIntents").first { $0.hasPrefix("auth: ") })
    #expect(
      answer.hasPrefix("auth: approved / error busy: request 1, an earlier host/requestAuthentication, is still"),
      "\(answer)")
    #expect(conversation.asked == ["[passcode] Passcode"])
  }

  /// The reason is shown on one line, its control characters escaped; a blank or too long one is refused with
  /// `invalidParams` and nothing is asked.
  @Test(arguments: [
    ("Pay\n\u{1B}[2Jassistant: forged\u{202E}", "auth: approved"),
    ("   ", "auth: error invalidParams: invalid params for host/requestAuthentication: reason is empty"),
    (
      String(repeating: "é", count: 201),
      "auth: error invalidParams: invalid params for host/requestAuthentication: reason is 201 Unicode scalars "
        + "long; the limit is 200"
    ),
  ])
  func theReasonIsBoundedAndSanitized(reason: String, expected: String) async throws {
    let rig = try await Rig(authenticateOn: HandleIntentRequest.method) {
      await requestAuthentication($0, reason: reason)
    }
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: [], passcodes: [.entered("2468")])
    var driver = rig.driver(conversation)
    driver.device = try await Self.device(rig, passcode: "2468", failures: 0)
    _ = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(rig.launcher.transcript("RoomsIntents").contains(expected), "\(rig.launcher.transcript("RoomsIntents"))")
    if expected == "auth: approved" {
      #expect(
        conversation.said.first
          == "RoomsIntents asks you to authenticate: Pay \\u{1B}[2Jassistant: forged\\u{202E}")
    } else {
      #expect(conversation.asked.isEmpty && conversation.said.first?.contains("authenticate") != true)
    }
  }

  /// Ctrl-C while the user is being asked for the passcode ends the prompt and the run: `run` throws
  /// `CancellationError` once every session has ended.
  @Test func cancellationEndsThePromptAndTheRun() async throws {
    let conversation = ScriptedConversation(answers: [], passcodes: [.entered("2468")], passcodeGate: Gate())
    let rig = try await Rig(authenticateOn: HandleIntentRequest.method) { await requestAuthentication($0) }
    defer { rig.remove() }
    var driver = rig.driver(conversation)
    driver.device = try await Self.device(rig, passcode: "2468", failures: 0)
    let invocation = try rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")])
    let run = Task { [driver] in try await driver.run(invocation) }
    await conversation.waitUntilAsked()
    run.cancel()
    await #expect(throws: CancellationError.self) { _ = try await run.value }
    #expect(rig.launcher.allEnded)
    #expect(rig.launcher.killed.contains("RoomsIntents"))
  }

  /// The extension cancels its request (`$/cancelRequest`): the prompt ends and the request is answered
  /// `requestCancelled`; the run goes on.
  @Test func theExtensionCanCancelItsRequest() async throws {
    let conversation = ScriptedConversation(answers: [], passcodes: [.entered("2468")], passcodeGate: Gate())
    let rig = try await Rig(authenticateOn: HandleIntentRequest.method) { connection in
      let asking = Task { try await connection.send(RequestAuthenticationRequest(reason: "Pay")) }
      await conversation.waitUntilAsked()
      asking.cancel()
      do {
        _ = try await asking.value
        return "answered"
      } catch ConnectionError.cancelled {
        return "cancelled"
      } catch {
        return "\(error)"
      }
    }
    defer { rig.remove() }
    var driver = rig.driver(conversation)
    driver.device = try await Self.device(rig, passcode: "2468", failures: 0)
    let outcome = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.isSuccess)
    let transcript = rig.launcher.transcript("RoomsIntents")
    #expect(transcript.contains("auth: cancelled"), "\(transcript)")
    #expect(
      transcript.contains("log: note: host/requestAuthentication during handle of BookRoomIntent: requestCancelled"))
  }

  /// The pending request ends (the extension answers handle) while the user is still being asked: the prompt ends
  /// and the authentication is answered `requestCancelled`.
  @Test func anAnswerToTheHostsRequestEndsThePrompt() async throws {
    let conversation = ScriptedConversation(answers: [], passcodes: [.entered("2468")], passcodeGate: Gate())
    let result = Mutex<Task<String, Never>?>(nil)
    let rig = try await Rig(authenticateOn: HandleIntentRequest.method) { connection in
      let asking = Task { await requestAuthentication(connection) }
      result.withLock { $0 = asking }
      await conversation.waitUntilAsked()
      return "answering handle without waiting"
    }
    defer { rig.remove() }
    var driver = rig.driver(conversation)
    driver.device = try await Self.device(rig, passcode: "2468", failures: 0)
    let outcome = try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.isSuccess)
    let asking = try #require(result.withLock { $0 })
    #expect(
      await asking.value
        == "error requestCancelled: the host's handle of BookRoomIntent ended before the user answered "
        + "host/requestAuthentication")
  }
}

/// The deadline of the host's pending request is held from the moment an authentication is taken until it is
/// answered, so the user's time does not count against it. Deterministic, without sleeping: a request with a
/// deadline of zero is overdue at once, and two round trips on the same connection make its reader check the
/// deadlines after that.
@Suite(.timeLimit(.minutes(1)), .tags(.process))
struct InboundRequestsTests {
  /// Two connections joined by pipes; the host's messages of its own go to `inbound`, the peer's to its stream.
  static func pair(_ inbound: InboundRequests) throws -> (host: Connection, peer: Connection) {
    ignoreBrokenPipeSignal()
    let a = try FileDescriptor.pipe()
    let b = try FileDescriptor.pipe()
    let host = Connection(input: b.read, output: a.write, options: .init(peerName: "peer"))
    let peer = Connection(input: a.read, output: b.write, options: .init(peerName: "host"))
    host.start { [weak host] message in
      guard let message, let host else { return }
      inbound.receive(message, connection: host)
    }
    peer.start()
    return (host, peer)
  }

  /// A request from the host with a deadline of zero, answered by the peer only after two round trips; returns
  /// whether it got its answer (false: it timed out).
  static func overdueRequestSurvives(
    host: Connection, peerInbox: inout AsyncStream<InboundMessage>.Iterator, peer: Connection
  ) async throws -> Bool {
    async let overdue = host.send(ShutdownRequest(), timeout: .zero)
    let first = try #require(await peerInbox.next())
    for _ in 0..<2 {
      async let ping = host.send(ShutdownRequest(), timeout: nil)
      guard case .request(let id)? = await peerInbox.next()?.kind else { throw CancellationError() }
      try peer.reply(to: id, with: EmptyObject())
      _ = try await ping
    }
    guard case .request(let id) = first.kind else { throw CancellationError() }
    try peer.reply(to: id, with: EmptyObject())
    do {
      _ = try await overdue
      return true
    } catch ConnectionError.timedOut {
      return false
    }
  }

  @Test func theDeadlineIsHeldWhileAnAuthenticationIsAnswered() async throws {
    let inbound = InboundRequests(log: { _ in })
    let (host, peer) = try Self.pair(inbound)
    defer { host.close(); peer.close() }
    var peerInbox = peer.messages.makeAsyncIterator()
    let authentications = inbound.open(during: "handle of X")
    async let answer = peer.send(RequestAuthenticationRequest(reason: "Pay"))
    var taken = authentications.makeAsyncIterator()
    let authentication = try #require(await taken.next())
    #expect(try await Self.overdueRequestSurvives(host: host, peerInbox: &peerInbox, peer: peer))
    inbound.answer(authentication, with: .success(.authentication(.approved)), connection: host)
    #expect(try await answer.outcome == .approved)
    // The control: once it is answered the deadlines run again, and the same overdue request times out.
    #expect(try await !Self.overdueRequestSurvives(host: host, peerInbox: &peerInbox, peer: peer))
    inbound.close(connection: host)
  }

  /// Closing the window answers an authentication still being served with `requestCancelled` and releases the
  /// deadlines; a later answer is dropped.
  @Test func closingAnswersWhatIsStillBeingServed() async throws {
    let inbound = InboundRequests(log: { _ in })
    let (host, peer) = try Self.pair(inbound)
    defer { host.close(); peer.close() }
    var peerInbox = peer.messages.makeAsyncIterator()
    let authentications = inbound.open(during: "handle of X")
    async let answer = requestAuthentication(peer)
    var taken = authentications.makeAsyncIterator()
    let authentication = try #require(await taken.next())
    inbound.close(connection: host)
    #expect(await taken.next() == nil)
    inbound.answer(authentication, with: .success(.authentication(.approved)), connection: host)  // too late: dropped
    #expect(
      await answer
        == "error requestCancelled: the host's handle of X ended before the user answered host/requestAuthentication")
    #expect(try await !Self.overdueRequestSurvives(host: host, peerInbox: &peerInbox, peer: peer))
    // Closed: a new request is refused at once.
    #expect(await requestAuthentication(peer).hasPrefix("error notAllowedNow"))
  }

  /// Other requests get `methodNotFound`.
  @Test func otherRequestsAreNotServed() async throws {
    let inbound = InboundRequests(log: { _ in })
    let (host, peer) = try Self.pair(inbound)
    defer { host.close(); peer.close() }
    await #expect(
      throws: ConnectionError.remote(ResponseError(.methodNotFound, "the host serves no request shutdown"))
    ) { try await peer.send(ShutdownRequest()) }
  }
}
