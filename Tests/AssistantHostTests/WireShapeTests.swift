import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

/// The wire shape of values an extension sends (docs/PROTOCOL.md, "Values and intents"): a value is exactly
/// `{"type", "value"}`, an object value exactly `{"identifier", "displayString", "properties"}` with typed properties,
/// and a response parameter the definition declares as an object is an object value. Any other shape is a protocol
/// fault (exit 70) naming the extension, the parameter and the expected shape, where it used to fill the template's
/// `${order.total}` with empty text. Each extension here is a server in this process that answers `intent/handle`
/// with a raw JSON line.
@Suite(.serialized, .tags(.process))
struct WireShapeTests {
  /// BookRoomIntent's response with an `order` of the custom type Order (a `total` property), said in the success
  /// template.
  static func orderResponse(_ bundle: URL) throws {
    let definition = bundle.appendingPathComponent("Base.lproj/Intents.intentdefinition")
    try Edit.plist(definition) { plist in
      plist["INTypes"] = [
        [
          "INTypeName": "Order", "INTypeDisplayName": "Order",
          "INTypeProperties": [
            ["INTypePropertyName": "identifier", "INTypePropertyType": "String", "INTypePropertyDefault": true],
            ["INTypePropertyName": "displayString", "INTypePropertyType": "String", "INTypePropertyDefault": true],
            ["INTypePropertyName": "total", "INTypePropertyType": "String"],
          ],
        ] as [String: Any]
      ]
    }
    try Edit.intent(definition) { intent in
      var response = intent["INIntentResponse"] as! [String: Any]
      var parameters = response["INIntentResponseParameters"] as? [[String: Any]] ?? []
      parameters.append([
        "INIntentResponseParameterName": "order", "INIntentResponseParameterType": "Object",
        "INIntentResponseParameterObjectType": "Order",
      ])
      response["INIntentResponseParameters"] = parameters
      var codes = response["INIntentResponseCodes"] as! [[String: Any]]
      let success = codes.firstIndex { $0["INIntentResponseCodeName"] as? String == "success" }!
      codes[success]["INIntentResponseCodeFormatString"] = "Room ${roomNumber}: your total is ${order.total}."
      codes[success]["INIntentResponseCodeFormatStringID"] = nil
      response["INIntentResponseCodes"] = codes
      intent["INIntentResponse"] = response
    }
  }

  /// Runs BookRoomIntent for room 12, the Intents extension answering `intent/handle` with `code success` and the
  /// parameters `order` (raw JSON of the typed value) and `roomNumber`.
  static func run(order: String) async throws -> Result<IntentOutcome, HostError> {
    let rig = try await Rig(manifests: { try orderResponse($0) })
    defer { rig.remove() }
    let handle =
      #"{"code":"success","parameters":{"roomNumber":{"type":"integer","value":12},"order":"# + order + "}}"
    var driver = rig.driver(ScriptedConversation(answers: ["yes"]))
    driver.launcher = RawLauncher(handleAnswer: handle)
    do {
      return .success(
        try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")])))
    } catch let error as HostError {
      return .failure(error)
    }
  }

  static let rightShape =
    #"{"type":"object","value":{"identifier":"o1","displayString":"Order 1","#
    + #""properties":{"total":{"type":"string","value":"$9.98"}}}}"#

  /// Control: the documented shape fills `${order.total}`.
  @Test func theDocumentedShapeFillsTheTemplate() async throws {
    let outcome = try await Self.run(order: Self.rightShape).get()
    #expect(outcome.dialog == "Room 12: your total is $9.98.")
    #expect(outcome.code == .success)
  }

  struct Wrong: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var order: String
    /// What the fault must say, beside the extension's name.
    var says: [String]
  }

  static let wrongShapes: [Wrong] = [
    Wrong(
      testDescription: "a property beside identifier and displayString",
      order: #"{"type":"object","value":{"identifier":"o1","displayString":"Order 1","total":"$9.98"}}"#,
      says: [
        "parameters.order.value", #""total" is not a key of an object value"#, ObjectValue.wireShape,
      ]),
    Wrong(
      testDescription: "properties that are not typed values",
      order: #"{"type":"object","value":{"identifier":"o1","displayString":"Order 1","properties":{"total":"$9.98"}}}"#,
      says: ["parameters.order.value.properties.total", "not a JSON object", ParameterValue.wireShape]),
    Wrong(
      testDescription: "properties beside the typed value",
      order:
        #"{"type":"object","value":{"identifier":"o1","displayString":"Order 1"},"#
        + #""properties":{"total":{"type":"string","value":"$9.98"}}}"#,
      says: ["parameters.order", #""properties" is not a key of a value"#, ParameterValue.wireShape]),
    Wrong(
      testDescription: "a string for an object of a custom type",
      order: #"{"type":"string","value":"Order 1"}"#,
      says: [
        "the response parameter order is a string", "declares it as an object of the custom type Order",
        ObjectValue.wireShape,
      ]),
  ]

  /// Each other shape is a protocol fault of the extension (exit 70), naming it, the parameter and the shape, and
  /// the answer is never said.
  @Test(arguments: wrongShapes)
  func anotherShapeIsAProtocolFault(_ wrong: Wrong) async throws {
    let result = try await Self.run(order: wrong.order)
    guard case .failure(let error) = result else {
      Issue.record("the run should have failed: \(result)")
      return
    }
    #expect(error.status == .extensionFault)
    #expect(error.status.rawValue == 70)
    #expect(error.message.hasPrefix("RoomsIntents"))
    #expect(error.message.contains("handle of BookRoomIntent"))
    for text in wrong.says { #expect(error.message.contains(text), "\(error.message)") }
  }

  /// Every typed value docs/PROTOCOL.md shows (in backquotes or alone on a line of a code block) decodes as one.
  @Test func theProtocolPagesValuesDecode() throws {
    let page = try String(
      contentsOf: PackagePaths.root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
    let inline = page.matches(of: /`(\{"type":"[^`\n]*\})`/).map { String($0.output.1) }
    let blocks = page.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"#) }.map(String.init)
    #expect(inline.count >= 8)
    #expect(!blocks.isEmpty)
    for json in inline + blocks {
      #expect(throws: Never.self, "\(json)") { try JSONDecoder().decode(ParameterValue.self, from: Data(json.utf8)) }
    }
  }

  /// The decoders alone: the documented shapes decode (with and without properties, nested objects and arrays);
  /// anything beside their keys is refused.
  @Test func theDecodersReadOnlyTheDocumentedKeys() throws {
    func decode(_ json: String) throws -> ParameterValue {
      try JSONDecoder().decode(ParameterValue.self, from: Data(json.utf8))
    }
    #expect(
      try decode(Self.rightShape)
        == .object(ObjectValue(identifier: "o1", displayString: "Order 1", properties: ["total": .string("$9.98")])))
    #expect(
      try decode(#"{"type":"object","value":{"identifier":"r12","displayString":"Room 12"}}"#)
        == .object(ObjectValue(identifier: "r12", displayString: "Room 12")))
    #expect(
      try decode(#"{"type":"array","value":[{"type":"object","value":{"identifier":"a","displayString":"A"}}]}"#)
        == .array([.object(ObjectValue(identifier: "a", displayString: "A"))]))
    // What the host and the SDK write reads back the same.
    let value = ParameterValue.object(
      ObjectValue(
        identifier: "o", displayString: "O",
        properties: ["line": .object(ObjectValue(identifier: "l", displayString: "L", properties: [:]))]))
    #expect(try JSONDecoder().decode(ParameterValue.self, from: JSONEncoder().encode(value)) == value)
    #expect(throws: DecodingError.self) { try decode(#"{"type":"integer","value":1,"unit":"cm"}"#) }
    #expect(throws: DecodingError.self) {
      try decode(#"{"type":"object","value":{"identifier":"a","displayString":"A","pronunciationHint":"ay"}}"#)
    }
    #expect(throws: DecodingError.self) { try decode("12") }
  }
}

/// Starts each session as a server in this process that answers the host's requests with fixed raw JSON: resolve
/// `notRequired`, confirm `ready`, handle `handleAnswer`, a view left to the default UI.
struct RawLauncher: SessionLauncher {
  let handleAnswer: String

  func launch(_ target: SessionTarget, home: AssistantHome, locale: String, sandbox: SandboxPolicy) async throws
    -> LaunchedSession
  {
    let toPeer = try FileDescriptor.pipe()
    let fromPeer = try FileDescriptor.pipe()
    let host = Connection(input: fromPeer.read, output: toPeer.write, options: .init(peerName: target.name))
    let server = Connection(input: toPeer.read, output: fromPeer.write, options: .init(peerName: "host"))
    let peer = RawPeer(connection: server, handleAnswer: handleAnswer)
    peer.start()
    return LaunchedSession(connection: host, peer: peer, containerPath: "/nonexistent", appGroups: [])
  }
}

/// The far end of a `RawLauncher` session; it "exits" on `exit`, at the end of its input, or when killed.
final class RawPeer: SessionPeer {
  private let connection: Connection
  private let handleAnswer: String
  private struct State {
    var termination: Termination?
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let state = Mutex(State())

  init(connection: Connection, handleAnswer: String) {
    self.connection = connection
    self.handleAnswer = handleAnswer
  }

  var pid: Int32 { getpid() }
  var termination: Termination? { state.withLock { $0.termination } }
  var wasKilledForMemory: Bool { false }

  func start() {
    connection.start { [self] message in
      guard let message else { return end(.exited(1)) }
      guard case .request(let id) = message.kind else {
        if message.method == ExitNotification.method { end(.exited(0)) }
        return
      }
      let answer: String
      switch message.method {
      case InitializeRequest.method: answer = #"{"protocolVersion":1,"implementation":"raw"}"#
      case ResolveParameterRequest.method: answer = #"{"kind":"notRequired"}"#
      case ConfirmIntentRequest.method: answer = #"{"code":"ready","parameters":{}}"#
      case HandleIntentRequest.method: answer = handleAnswer
      case ConfigureViewRequest.method:
        answer = #"{"success":false,"parameters":[],"size":{"width":0,"height":0}}"#
      default: answer = "{}"
      }
      do {
        try connection.reply(to: id, with: try JSONValue(parsing: answer))
      } catch {
        Issue.record("cannot answer \(message.method): \(error)")
      }
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

  func waitForExit(timeout: Duration) async -> Termination? {
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        await withCheckedContinuation { continuation in
          let done = self.state.withLock { state -> Bool in
            if state.termination != nil { return true }
            state.waiters.append(continuation)
            return false
          }
          if done { continuation.resume() }
        }
      }
      group.addTask { try? await Task.sleep(for: timeout) }
      _ = await group.next()
      // The sleep won: wake the waiter, so that the group can end.
      let waiters = state.withLock { state in
        defer { state.waiters.removeAll() }
        return state.waiters
      }
      for waiter in waiters { waiter.resume() }
      group.cancelAll()
      return termination
    }
  }

  func kill() async -> Termination {
    end(.signalled(SIGKILL))
    return termination ?? .signalled(SIGKILL)
  }

  func tearDown(grace: Duration, termGrace: Duration) async -> Termination {
    if let ended = await waitForExit(timeout: grace) { return ended }
    return await kill()
  }

  func lastStderrLine() async -> String? { nil }
  func describeKill(_ signal: Int32) -> String { "was killed by \(signalName(signal))" }
  func appendToLog(_ line: String) {}
  func signalGroup(_ signal: Int32) {}
}
