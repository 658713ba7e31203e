import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

/// The resolve-confirm-handle driver, in-process: its extensions are servers in this process, each at the far end of
/// a pair of pipes with a real `Connection` on both sides, and the user is a scripted conversation.
@Suite(.serialized, .tags(.process))
struct DriverTests {
  @Test func aBookingAsksForTheMissingNameAndTheUIDraws() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["Ada"])
    let outcome = try await rig.driver(conversation).run(rig.invocation(["roomNumber": .integer(12)]))
    #expect(outcome.isSuccess)
    #expect(outcome.code == .success)
    #expect(outcome.dialog == "Room 12 is now booked by Ada.")
    #expect(conversation.asked == ["Who is the booking for?"])
    #expect(conversation.said == ["Room 12 is now booked by Ada.", "[RoomsUI]\n  Room 12 (drawn in-process)"])
    #expect(outcome.views.count == 1)
    // Every session got shutdown and exit, in that order, and nothing else after.
    #expect(rig.launcher.transcript("RoomsIntents").suffix(2) == ["shutdown", "exit"])
    #expect(rig.launcher.transcript("RoomsUI").suffix(2) == ["shutdown", "exit"])
    #expect(rig.launcher.allEnded)
    #expect(
      rig.launcher.transcript("RoomsIntents").filter { $0.hasPrefix("intent/") } == [
        // bookedBy: needsValue, then the user's answer is resolved again.
        "intent/resolve roomNumber", "intent/resolve bookedBy", "intent/resolve bookedBy",
        "intent/resolve isCancellationOfBooking",
        "intent/confirm", "intent/handle",
      ])
  }

  /// Exit 75: nobody to ask. The UI extension started beside the intent is shut down before `run` throws.
  @Test func aValueNobodyCanGiveStopsBothExtensions() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    await #expect(throws: HostError.self) {
      try await rig.driver(ScriptedConversation(answers: [])).run(rig.invocation(["roomNumber": .integer(12)]))
    }
    #expect(rig.launcher.launched.sorted() == ["RoomsIntents", "RoomsUI"])
    #expect(rig.launcher.transcript("RoomsUI").suffix(2) == ["shutdown", "exit"])
    #expect(rig.launcher.transcript("RoomsIntents").suffix(2) == ["shutdown", "exit"])
    #expect(rig.launcher.allEnded)
  }

  /// Exit 70: an answer the definition does not allow. Both sessions end; the fault names the extension.
  @Test func anUndefinedResponseCodeIsAFaultAndStopsBoth() async throws {
    let rig = try await Rig(handle: { _ in IntentResponse(code: "exploded") })
    defer { rig.remove() }
    do {
      _ = try await rig.driver(ScriptedConversation(answers: [])).run(
        rig.invocation(["roomNumber": .integer(3), "bookedBy": .string("Ada")]))
      Issue.record("the run should have failed")
    } catch let error as HostError {
      #expect(error.status == .extensionFault)
      #expect(error.message.contains("RoomsIntents (com.example.rooms.RoomsIntents) answered response code"))
    }
    #expect(rig.launcher.allEnded)
    #expect(rig.launcher.transcript("RoomsUI").suffix(2) == ["shutdown", "exit"])
  }

  /// A missed deadline kills the extension (the in-process peer records the kill) and says which deadline.
  @Test func aMissedDeadlineKillsTheExtension() async throws {
    let rig = try await Rig(silentOn: "intent/handle")
    defer { rig.remove() }
    var driver = rig.driver(ScriptedConversation(answers: []))
    try driver.deadlines.set("handle=0.2")
    do {
      _ = try await driver.run(rig.invocation(["roomNumber": .integer(3), "bookedBy": .string("Ada")]))
      Issue.record("the run should have failed")
    } catch let error as HostError {
      #expect(error.status == .extensionFault)
      #expect(error.message.contains("did not answer handle of BookRoomIntent within 0.2 s"), "\(error.message)")
    }
    #expect(rig.launcher.killed == ["RoomsIntents"])
    #expect(rig.launcher.allEnded)
  }

  /// Cancelling the run (Ctrl-C) while it waits for the user: `run` throws `CancellationError` only after both
  /// sessions are stopped.
  @Test func cancellationWhileAskingStopsBothExtensions() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: [], waitForever: true)
    let driver = rig.driver(conversation)
    let invocation = try rig.invocation(["roomNumber": .integer(12)])
    let run = Task { try await driver.run(invocation) }
    await conversation.waitUntilAsked()
    run.cancel()
    await #expect(throws: CancellationError.self) { _ = try await run.value }
    #expect(rig.launcher.allEnded)
    #expect(rig.launcher.launched.sorted() == ["RoomsIntents", "RoomsUI"])
  }

  /// With every cooperative-pool thread blocked for 700 ms while a request with a 300 ms deadline is in flight (the
  /// peer blocks them, on purpose, as a blocking test used to do to its neighbours), the driver still meets it: the connections answer,
  /// time out and write on their own threads, so nothing waits for the pool within a deadline.
  @Test func aTightDeadlineHoldsWhileThePoolIsBusy() async throws {
    let rig = try await Rig(blockThePoolOn: HandleIntentRequest.method)
    defer { rig.remove() }
    var driver = rig.driver(ScriptedConversation(answers: []))
    try driver.deadlines.set("handle=0.3")
    let outcome = try await driver.run(rig.invocation(["roomNumber": .integer(4), "bookedBy": .string("Ada")]))
    await rig.launcher.blockersDone()
    #expect(rig.launcher.poolWasBlocked)
    #expect(outcome.isSuccess)
  }

  /// Control for the test above: a peer that answers from a task on the pool misses the same deadline while the
  /// pool is blocked, so that test can fail.
  @Test func aPeerThatNeedsThePoolMissesItsDeadlineWhileThePoolIsBusy() async throws {
    let rig = try await Rig(blockThePoolOn: HandleIntentRequest.method, answersFromThePool: true)
    defer { rig.remove() }
    var driver = rig.driver(ScriptedConversation(answers: []))
    try driver.deadlines.set("handle=0.3")
    do {
      _ = try await driver.run(rig.invocation(["roomNumber": .integer(4), "bookedBy": .string("Ada")]))
      Issue.record("the control should have missed its deadline")
    } catch let error as HostError {
      #expect(error.message.contains("did not answer handle of BookRoomIntent within 0.3 s"), "\(error.message)")
    }
    await rig.launcher.blockersDone()
    #expect(rig.launcher.allEnded)
  }
  /// The UI extension draws each interaction, the header (the empty parameter set) first: at the confirmation step
  /// (status `ready`) before the user is asked to confirm, then the answer (status `success`).
  @Test func theUIDrawsTheConfirmationStepBeforeTheQuestionAndTheHeaderFirst() async throws {
    let rig = try await Rig(manifests: { bundle in
      try Edit.intent(bundle.appendingPathComponent("Base.lproj/Intents.intentdefinition")) {
        $0["INIntentUserConfirmationRequired"] = true
      }
    })
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["yes"])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.isSuccess)
    #expect(outcome.views.count == 2)
    let card = "say: [RoomsUI]\n  Room 12 (drawn in-process)"
    #expect(
      conversation.events == [
        card, "ask: Do you want to book room?", "say: Room 12 is now booked by Ada.", card,
      ])
    // One UI session for both interactions; each begins with its header, and the card claims every parameter (the
    // ledger), so nothing more is asked of it.
    #expect(
      rig.launcher.transcript("RoomsUI") == [
        "initialize", "ui/configureView ready []", "ui/configureView success []", "shutdown", "exit",
      ])
    #expect(rig.launcher.allEnded)
  }

  /// Declining at the confirmation step: the UI drew the `ready` interaction, handle is never called, and both
  /// sessions end.
  @Test func decliningAfterTheConfirmationStepHandlesNothing() async throws {
    let rig = try await Rig(manifests: { bundle in
      try Edit.intent(bundle.appendingPathComponent("Base.lproj/Intents.intentdefinition")) {
        $0["INIntentUserConfirmationRequired"] = true
      }
    })
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["no"])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(!outcome.isSuccess)
    #expect(outcome.code == "cancelledByUser")
    #expect(outcome.views.count == 1)
    #expect(!rig.launcher.transcript("RoomsIntents").contains("intent/handle"))
    #expect(rig.launcher.transcript("RoomsUI").contains("ui/configureView ready []"))
    #expect(rig.launcher.allEnded)
  }

  /// Without a confirmation step the UI draws once, the header first.
  @Test func withoutAConfirmationStepTheUIDrawsOnlyTheAnswer() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    _ = try await rig.driver(ScriptedConversation(answers: [])).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(rig.launcher.transcript("RoomsUI").filter { $0.hasPrefix("ui/") } == ["ui/configureView success []"])
  }
  /// `continueInApp`: the app is brought to the foreground with the user activity (the intent's class when the
  /// response has none), after the extensions have ended.
  @Test func continueInAppOpensTheAppWithTheActivity() async throws {
    let rig = try await Rig(handle: { _ in
      IntentResponse(
        code: .continueInApp,
        userActivity: UserActivity(activityType: "com.example.rooms.booking", userInfo: ["room": "12"]))
    })
    defer { rig.remove() }
    let outcome = try await rig.driver(ScriptedConversation(answers: [])).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.code == .continueInApp)
    let opened = rig.opened.all
    #expect(opened.map(\.app) == ["Rooms"])
    #expect(opened.first?.environment["INTENTHOST_LAUNCH_REASON"] == "continueUserActivity")
    let json = try #require(opened.first?.environment["INTENTHOST_USER_ACTIVITY"])
    let activity = try JSONDecoder().decode(ContinuedActivity.self, from: Data(json.utf8))
    #expect(activity.activityType == "com.example.rooms.booking")
    #expect(activity.userInfo == ["room": "12"])
    #expect(activity.interaction.intent["roomNumber"] == .integer(12))
    #expect(activity.interaction.response?.code == .continueInApp)
    #expect(activity.interaction.handlingStatus == "deferredToApplication")
    #expect(rig.launcher.allEnded)
  }

  /// `failureRequiringAppLaunch`: the answer says so and offers to open the app; yes opens it (the activity's type
  /// is the intent's class), no and nobody to ask do not.
  @Test(arguments: [(["yes"], true), (["no"], false), ([String](), false)])
  func failureRequiringAppLaunchOffersToOpenTheApp(answers: [String], opens: Bool) async throws {
    let rig = try await Rig(handle: { _ in IntentResponse(code: .failureRequiringAppLaunch) })
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: answers)
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(!outcome.isSuccess)
    #expect(outcome.dialog == "You need to open Rooms to do that.")
    #expect(conversation.asked == ["Open Rooms?"])
    #expect(rig.opened.all.count == (opens ? 1 : 0))
    if opens {
      let json = try #require(rig.opened.all.first?.environment["INTENTHOST_USER_ACTIVITY"])
      let activity = try JSONDecoder().decode(ContinuedActivity.self, from: Data(json.utf8))
      #expect(activity.activityType == "BookRoomIntent")
    }
  }

  /// A parameter's Primary prompt is filled like every other prompt: its `${displayName}` and the values already
  /// given. Control: the same prompt with nothing to fill is asked as written.
  @Test(arguments: [
    ("Who is booking room ${roomNumber} (${displayName})?", "Who is booking room 12 (Booked by)?"),
    ("Who is the booking for?", "Who is the booking for?"),
  ])
  func thePrimaryPromptIsFilled(prompt: String, asked: String) async throws {
    let rig = try await Rig(manifests: { bundle in
      try Edit.intent(bundle.appendingPathComponent("Base.lproj/Intents.intentdefinition")) { intent in
        var parameters = intent["INIntentParameters"] as! [[String: Any]]
        let index = parameters.firstIndex { $0["INIntentParameterName"] as? String == "bookedBy" }!
        parameters[index]["INIntentParameterPromptDialogs"] = [
          [
            "INIntentParameterPromptDialogCustom": true, "INIntentParameterPromptDialogType": "Primary",
            "INIntentParameterPromptDialogFormatString": prompt,
          ]
        ]
        intent["INIntentParameters"] = parameters
      }
    })
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["Ada"])
    _ = try await rig.driver(conversation).run(rig.invocation(["roomNumber": .integer(12)]))
    #expect(conversation.asked == [asked])
  }

  /// A domain code that begins with `failureRequiringAppLaunch` and has no template of its own is said as the
  /// standard code is, and the app is offered; control: a plain failure code without a template says the general
  /// sentence and offers nothing.
  @Test(arguments: [
    ("failureRequiringAppLaunchMustVerifyCredentials", "You need to open Rooms to do that.", ["Open Rooms?"]),
    ("failureOutOfRooms", "Sorry, there was a problem with Rooms.", []),
  ])
  func aDomainCodeRequiringTheAppIsSaidAsSuch(code: String, dialog: String, asked: [String]) async throws {
    let rig = try await Rig(
      handle: { _ in IntentResponse(code: ResponseCode(rawValue: code)) },
      manifests: { bundle in
        try Edit.intent(bundle.appendingPathComponent("Base.lproj/Intents.intentdefinition")) { intent in
          var response = intent["INIntentResponse"] as! [String: Any]
          var codes = response["INIntentResponseCodes"] as! [[String: Any]]
          codes.append(["INIntentResponseCodeName": code])
          response["INIntentResponseCodes"] = codes
          intent["INIntentResponse"] = response
        }
      })
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["no"])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.dialog == dialog)
    #expect(conversation.asked == asked)
  }

  /// `inProgress` from handle: the host asks again until the final response, which is the answer.
  @Test func inProgressIsAskedAgainUntilTheFinalResponse() async throws {
    let calls = Mutex(0)
    let rig = try await Rig(handle: { intent in
      let call = calls.withLock { count -> Int in
        count += 1
        return count
      }
      return call < 3
        ? IntentResponse(code: .inProgress) : IntentResponse(code: .success, parameters: intent.parameters)
    })
    defer { rig.remove() }
    let outcome = try await rig.driver(ScriptedConversation(answers: [])).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.code == .success)
    #expect(rig.launcher.transcript("RoomsIntents").filter { $0 == "intent/handle" }.count == 3)
  }

  /// Control: an extension that always answers `inProgress` is asked `maximumAttempts` times, then its answer stands.
  @Test func anEndlessInProgressStandsAfterTheLastAsk() async throws {
    let rig = try await Rig(handle: { _ in IntentResponse(code: .inProgress) })
    defer { rig.remove() }
    let outcome = try await rig.driver(ScriptedConversation(answers: [])).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.code == .inProgress)
    #expect(outcome.dialog == "Rooms is working on it.")
    #expect(rig.launcher.transcript("RoomsIntents").filter { $0 == "intent/handle" }.count == 5)
  }
}

// MARK: - The rig

/// A temporary home with a Rooms bundle made from the example's real manifests (its executables are never run),
/// and an in-process launcher.
struct Rig {
  let directory: TemporaryDirectory
  let home: AssistantHome
  let app: AppBundle
  let launcher: InProcessLauncher
  /// The apps brought to the foreground (`continueInApp`), with the environment they were given.
  let opened = OpenedApps()

  init(
    handle: (@Sendable (Intent) -> IntentResponse)? = nil, silentOn silent: String? = nil,
    blockThePoolOn: String? = nil, answersFromThePool: Bool = false, authenticateOn: String? = nil,
    authenticate: (@Sendable (Connection) async -> String)? = nil, behaviour: Behaviour? = nil,
    manifests edit: ((URL) throws -> Void)? = nil
  ) async throws {
    directory = try TemporaryDirectory("intenthost-driver")
    let bundle = try TestBundles.roomsManifests(in: directory.url)
    try edit?(bundle)
    home = try AssistantHome(
      root: directory.file("home").path, environment: ["ASSISTANT_APP_GROUPS": directory.file("groups").path])
    app = try await home.install(from: bundle).app
    launcher = InProcessLauncher(
      behaviour: behaviour
        ?? Behaviour(
          handle: handle, silentOn: silent, blockThePoolOn: blockThePoolOn, answersFromThePool: answersFromThePool,
          authenticateOn: authenticateOn, authenticate: authenticate))
  }

  func driver(_ conversation: ScriptedConversation) -> IntentDriver {
    var driver = IntentDriver(home: home, conversation: conversation)
    driver.launcher = launcher
    driver.foregroundLauncher = { [opened] app, environment in
      opened.append(app.name, environment)
      return 0
    }
    return driver
  }

  func invocation(_ values: [String: ParameterValue], intent: String = "BookRoomIntent") throws -> IntentInvocation {
    IntentInvocation(app: app, intentClass: intent, values: values)
  }

  func remove() { directory.remove() }
}

/// The apps a driver brought to the foreground, in order.
final class OpenedApps: Sendable {
  private let apps = Mutex<[(app: String, environment: [String: String])]>([])
  func append(_ app: String, _ environment: [String: String]) { apps.withLock { $0.append((app, environment)) } }
  var all: [(app: String, environment: [String: String])] { apps.withLock { $0 } }
}

/// How the in-process extensions answer.
struct Behaviour: Sendable {
  var handle: (@Sendable (Intent) -> IntentResponse)?
  /// A method never answered.
  var silentOn: String?
  /// A method on whose arrival every cooperative-pool thread is blocked for 700 ms, before it is answered.
  var blockThePoolOn: String?
  /// Answer from a task on the cooperative pool instead of the reader thread (the control of the starvation test).
  var answersFromThePool = false
  /// A method on whose arrival the peer first runs `authenticate` (which sends the host its own requests, e.g.
  /// `host/requestAuthentication`), records what it returns as "auth: …" in the transcript, then answers.
  var authenticateOn: String? = nil
  var authenticate: (@Sendable (Connection) async -> String)? = nil
  /// A missing value is `notRequired` instead of `needsValue`.
  var missingIsNotRequired = false
  /// A parameter whose first resolution asks to choose between its value and another.
  var disambiguate: String? = nil
  /// How a resolution is answered instead of the rules above (nil: by them), given the parameter and the intent.
  var resolve: (@Sendable (String, Intent) -> ResolutionResult?)? = nil
}

/// Starts each session as a server in this process, over two pipes.
final class InProcessLauncher: SessionLauncher {
  let behaviour: Behaviour
  private let peers = Mutex<[InProcessPeer]>([])

  init(behaviour: Behaviour) { self.behaviour = behaviour }

  func launch(_ target: SessionTarget, home: AssistantHome, locale: String, sandbox: SandboxPolicy) async throws
    -> LaunchedSession
  {
    let toPeer = try FileDescriptor.pipe()
    let fromPeer = try FileDescriptor.pipe()
    let host = Connection(input: fromPeer.read, output: toPeer.write, options: .init(peerName: target.name))
    let server = Connection(input: toPeer.read, output: fromPeer.write, options: .init(peerName: "host"))
    let peer = InProcessPeer(name: target.name, connection: server, behaviour: behaviour, launcher: self)
    peers.withLock { $0.append(peer) }
    peer.start()
    return LaunchedSession(connection: host, peer: peer, containerPath: "/nonexistent", appGroups: [])
  }

  private let blockers = Mutex<[Task<Void, Never>]>([])

  /// Blocks every cooperative-pool thread for `duration`, with tasks that `blockersDone` awaits.
  func blockThePool(for duration: Duration) {
    let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    let tasks = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
      Task { _ = usleep(UInt32(micros)) }  // blocks its pool thread, on purpose
    }
    blockers.withLock { $0 += tasks }
  }

  var poolWasBlocked: Bool { blockers.withLock { !$0.isEmpty } }

  func blockersDone() async {
    for task in blockers.withLock({ $0 }) { await task.value }
  }

  var launched: [String] { peers.withLock { $0.map(\.name) } }
  var killed: [String] { peers.withLock { $0.filter(\.wasKilled).map(\.name) } }
  var allEnded: Bool { peers.withLock { $0.allSatisfy { $0.termination != nil } } }
  func transcript(_ name: String) -> [String] {
    peers.withLock { $0.first { $0.name == name }?.transcript ?? [] }
  }
}

/// An extension served in this process: it answers on its connection's reader thread, like the SDK, and "exits"
/// on `exit` or at the end of its input.
final class InProcessPeer: SessionPeer {
  let name: String
  private let connection: Connection
  private let behaviour: Behaviour
  private struct State {
    var termination: Termination?
    var waiters: [CheckedContinuation<Void, Never>] = []
    var transcript: [String] = []
    var killed = false
  }
  private let state = Mutex(State())

  private let launcher: InProcessLauncher

  init(name: String, connection: Connection, behaviour: Behaviour, launcher: InProcessLauncher) {
    self.name = name
    self.connection = connection
    self.behaviour = behaviour
    self.launcher = launcher
  }

  var pid: Int32 { getpid() }
  var termination: Termination? { state.withLock { $0.termination } }
  var transcript: [String] { state.withLock { $0.transcript } }
  var wasKilled: Bool { state.withLock { $0.killed } }
  var wasKilledForMemory: Bool { false }

  func start() {
    connection.start { [self] message in
      guard let message else { return end(.exited(1)) }
      if message.method == behaviour.blockThePoolOn { launcher.blockThePool(for: .milliseconds(700)) }
      if behaviour.answersFromThePool {
        Task { self.receive(message) }
      } else {
        receive(message)
      }
    }
  }

  private func receive(_ message: InboundMessage) {
    var entry = message.method
    if message.method == ResolveParameterRequest.method, let request = try? message.params(ResolveParameterRequest.self)
    {
      entry += " " + request.parameter
    }
    if message.method == ConfigureViewRequest.method, let request = try? message.params(ConfigureViewRequest.self) {
      // The interaction's status and the parameter set: "ui/configureView ready []" is the header of the
      // confirmation step.
      entry += " \(request.interaction.handlingStatus ?? "-") [\(request.parameters.joined(separator: ", "))]"
    }
    state.withLock { $0.transcript.append(entry) }
    guard case .request(let id) = message.kind else {
      if message.method == ExitNotification.method { end(.exited(0)) }
      return
    }
    if message.method == behaviour.silentOn { return }
    if message.method == behaviour.authenticateOn, let authenticate = behaviour.authenticate {
      // Like a handler that awaits the host: the request is answered once the host has answered the peer's own.
      Task {
        let note = await authenticate(connection)
        state.withLock { $0.transcript.append("auth: \(note)") }
        answer(message, id: id)
      }
      return
    }
    answer(message, id: id)
  }

  private func answer(_ message: InboundMessage, id: RequestID) {
    do {
      switch message.method {
      case InitializeRequest.method:
        try connection.reply(to: id, with: InitializeResult(implementation: "in-process"))
      case ResolveParameterRequest.method:
        let request = try message.params(ResolveParameterRequest.self)
        let value = request.intent[request.parameter]
        let entry = "\(message.method) \(request.parameter)"
        let firstTime = state.withLock { state in
          state.transcript.filter { $0 == entry }.count == 1
        }
        let result: ResolutionResult =
          if let custom = behaviour.resolve?(request.parameter, request.intent) { custom } else {
            switch request.parameter {
            case "isCancellationOfBooking": .notRequired
            case behaviour.disambiguate where firstTime:
              .disambiguation([value ?? .integer(1), .integer(99)])
            default: value.map { .success($0) } ?? (behaviour.missingIsNotRequired ? .notRequired : .needsValue)
            }
          }
        try connection.reply(to: id, with: result)
      case ConfirmIntentRequest.method:
        try connection.reply(to: id, with: IntentResponse(code: .ready))
      case HandleIntentRequest.method:
        let intent = try message.params(HandleIntentRequest.self).intent
        let response =
          behaviour.handle?(intent) ?? IntentResponse(code: .success, parameters: intent.parameters)
        try connection.reply(to: id, with: response)
      case ConfigureViewRequest.method:
        let request = try message.params(ConfigureViewRequest.self)
        guard case .integer(let room)? = request.interaction.intent["roomNumber"] else {
          return try connection.reply(
            to: id, with: ConfiguredView(success: false, parameters: [], size: .zero, snippet: nil))
        }
        try connection.reply(
          to: id,
          with: ConfiguredView(
            success: true, parameters: ["roomNumber", "bookedBy", "isCancellationOfBooking"],
            size: ViewSize(width: 320, height: 40), snippet: .text("Room \(room) (drawn in-process)")))
      case ShutdownRequest.method:
        try connection.reply(to: id, with: EmptyObject())
      default:
        try connection.reply(to: id, error: ResponseError(.methodNotFound, message.method))
      }
    } catch {
      try? connection.reply(to: id, error: ResponseError(.internalError, "\(error)"))
    }
  }

  private func end(_ termination: Termination) {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard state.termination == nil else { return [] }
      state.termination = termination
      defer { state.waiters.removeAll() }
      return state.waiters
    }
    connection.close()
    for waiter in waiters { waiter.resume() }
  }

  private func ended() async {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state -> Bool in
        if state.termination != nil { return true }
        state.waiters.append(continuation)
        return false
      }
      if done { continuation.resume() }
    }
  }

  func waitForExit(timeout: Duration) async -> Termination? {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        await self.ended()
        return true
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return false
      }
      _ = await group.next()
      group.cancelAll()
      // Wake the waiter if the timeout won.
      if termination == nil {
        let waiters = state.withLock { state in
          defer { state.waiters.removeAll() }
          return state.waiters
        }
        for waiter in waiters { waiter.resume() }
      }
      return termination
    }
  }

  func kill() async -> Termination {
    state.withLock { $0.killed = true }
    end(.signalled(SIGKILL))
    connection.close()
    return termination ?? .signalled(SIGKILL)
  }

  func tearDown(grace: Duration, termGrace: Duration) async -> Termination {
    if let ended = await waitForExit(timeout: grace) { return ended }
    return await kill()
  }

  func lastStderrLine() async -> String? { nil }
  func describeKill(_ signal: Int32) -> String { "was killed by \(signalName(signal))" }
  func appendToLog(_ line: String) { state.withLock { $0.transcript.append("log: \(line)") } }
  func signalGroup(_ signal: Int32) {}
}

/// A user who answers from a script, and remembers what was said and asked.
final class ScriptedConversation: Conversation {
  private struct State {
    var answers: [String]
    /// Passcodes typed, in order; nil: nobody can be asked for one.
    var passcodes: [PasscodeAnswer]?
    var said: [String] = []
    var asked: [String] = []
    /// What was said and asked, in order: "say: …", "ask: …".
    var events: [String] = []
    var askWaiters: [CheckedContinuation<Void, Never>] = []
  }
  private let state: Mutex<State>
  private let waitForever: Bool

  private let passcodeGate: Gate?

  /// - Parameters:
  ///   - passcodes: what each passcode question gets (`.cancelled` once they run out); nil: nobody can be asked.
  ///   - passcodeGate: when given, a passcode question waits for it to open (or for its task to be cancelled) before
  ///     it is answered, like a person still typing.
  init(answers: [String], passcodes: [PasscodeAnswer]? = nil, waitForever: Bool = false, passcodeGate: Gate? = nil) {
    state = Mutex(State(answers: answers, passcodes: passcodes))
    self.waitForever = waitForever
    self.passcodeGate = passcodeGate
  }

  /// An approval is a scripted answer (tests of the terminal's rule are end to end).
  func askApproval(_ prompt: String) async throws -> PasscodeAnswer {
    do { return .entered(try await ask(prompt, need: "an approval")) } catch let error as HostError {
      return .unavailable(error.message)
    }
  }

  func askPasscode(_ prompt: String, for purpose: PasscodePurpose) async throws -> PasscodeAnswer {
    let waiters = state.withLock { state in
      state.asked.append("[passcode] \(prompt)")
      defer { state.askWaiters.removeAll() }
      return state.askWaiters
    }
    for waiter in waiters { waiter.resume() }
    try await passcodeGate?.wait()
    return state.withLock { state in
      guard let passcodes = state.passcodes else { return .unavailable("the script asks nobody for passcodes") }
      guard let first = passcodes.first else { return .cancelled }
      state.passcodes = Array(passcodes.dropFirst())
      return first
    }
  }

  var said: [String] { state.withLock { $0.said } }
  var asked: [String] { state.withLock { $0.asked } }
  var events: [String] { state.withLock { $0.events } }

  func say(_ text: String) async {
    state.withLock {
      $0.said.append(text)
      $0.events.append("say: \(text)")
    }
  }

  func ask(_ prompt: String, need: String) async throws -> String {
    let (answer, waiters) = state.withLock { state -> (String?, [CheckedContinuation<Void, Never>]) in
      state.asked.append(prompt)
      state.events.append("ask: \(prompt)")
      defer { state.askWaiters.removeAll() }
      return (state.answers.isEmpty ? nil : state.answers.removeFirst(), state.askWaiters)
    }
    for waiter in waiters { waiter.resume() }
    if let answer { return answer }
    if waitForever {
      // Like a person who never answers: until the run is cancelled.
      while true { try await Task.sleep(for: .seconds(60)) }
    }
    throw HostError(.valueNeeded, "\(need) is needed (\"\(prompt)\"), but the script has no answer left")
  }

  /// Returns once the first question (or passcode question) has been asked.
  func waitUntilAsked() async {
    await withCheckedContinuation { continuation in
      let asked = state.withLock { state -> Bool in
        if !state.asked.isEmpty { return true }
        state.askWaiters.append(continuation)
        return false
      }
      if asked { continuation.resume() }
    }
  }
}

/// Opens once; until then `wait` waits (and ends with `CancellationError` when its task is cancelled).
final class Gate: Sendable {
  private struct State {
    var open = false
    var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    var next = 0
  }
  private let state = Mutex(State())

  func open() {
    let waiters = state.withLock { state in
      state.open = true
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait() async throws {
    let key = state.withLock { state in
      defer { state.next += 1 }
      return state.next
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        // Checked under the lock that the cancellation handler takes: one of the two always resumes it.
        let now = state.withLock { state -> Bool? in
          if state.open { return true }
          if Task.isCancelled { return false }
          state.waiters[key] = continuation
          return nil
        }
        if now == true { continuation.resume() }
        if now == false { continuation.resume(throwing: CancellationError()) }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: key) }?.resume(throwing: CancellationError())
    }
    try Task.checkCancellation()
  }
}
