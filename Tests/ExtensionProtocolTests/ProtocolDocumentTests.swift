import ExtensionProtocol
import Foundation
import TestSupport
import Testing

/// docs/PROTOCOL.md's examples are the protocol: every `{"jsonrpc"…}` line on it (what `Scripts/fuzz` seeds the
/// `jsonrpc` target with) decodes as the type its method names, an answer as the `Response` of the request of its id
/// above it, and every message the registry lists has a complete example request.
@Suite(.tags(.unit))
struct ProtocolDocumentTests {
  /// An example line, and where it is.
  struct Example: Sendable, CustomTestStringConvertible {
    var line: Int
    var json: String
    var testDescription: String { "PROTOCOL.md:\(line)" }
  }

  /// Every match of `{"jsonrpc".*}` on a line of the page, as `grep -o` finds it.
  static let examples: [Example] = {
    guard
      let page = try? String(
        contentsOf: PackagePaths.root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
    else { return [] }
    return page.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
      (try? /\{"jsonrpc".*\}/.firstMatch(in: line)).flatMap { $0 }.map {
        Example(line: index + 1, json: String($0.output))
      }
    }
  }()

  /// What an example turned out to be.
  enum Reading: Equatable {
    /// A request or notification of `method`, decoded with its type.
    case message(method: String)
    /// An answer to the request of `method`, decoded as its `Response`.
    case answer(method: String)
    /// An error answer with a named code.
    case error(ErrorCode)
    /// Not JSON: abridged with "…", as the prose says.
    case abridged
  }

  /// Reads `examples` in order, pairing each answer with the last request of its id above it.
  static func readAll(_ examples: [Example] = examples) throws -> [(Example, Reading)] {
    var requests: [RequestID: String] = [:]
    return try examples.map { example in
      let data = Data(example.json.utf8)
      guard (try? JSONSerialization.jsonObject(with: data)) != nil else {
        guard example.json.contains("…") else { throw Unreadable(example, "not JSON, and not abridged with …") }
        return (example, .abridged)
      }
      let header = try WireCoding.decoder().decode(MessageHeader.self, from: data)
      switch header.kind {
      case .request(let id, let method):
        guard let type = MessageRegistry.requestType(for: method, line: data) else {
          throw Unreadable(example, "no request \(method) in MessageRegistry")
        }
        try decodeRequest(type, data)
        requests[id] = method
        return (example, .message(method: method))
      case .notification(let method):
        guard let type = MessageRegistry.notificationType(for: method) else {
          throw Unreadable(example, "no notification \(method) in MessageRegistry")
        }
        try decodeNotification(type, data)
        return (example, .message(method: method))
      case .response(let id):
        guard let method = requests[id], let type = MessageRegistry.requestType(for: method) else {
          throw Unreadable(example, "an answer to \(id), which no request above it has")
        }
        try decodeAnswer(type, data)
        return (example, .answer(method: method))
      case .errorResponse(_, let error):
        guard !error.code.name.hasPrefix("code ") else { throw Unreadable(example, "an unnamed code \(error.code)") }
        return (example, .error(error.code))
      case nil: throw Unreadable(example, "not a JSON-RPC message")
      }
    }
  }

  static func decodeRequest<Message: RequestMessage>(_ type: Message.Type, _ data: Data) throws {
    _ = try WireCoding.decoder().decode(RequestEnvelope<Message>.self, from: data)
  }

  static func decodeNotification<Message: NotificationMessage>(_ type: Message.Type, _ data: Data) throws {
    _ = try WireCoding.decoder().decode(NotificationEnvelope<Message>.self, from: data)
  }

  static func decodeAnswer<Message: RequestMessage>(_ type: Message.Type, _ data: Data) throws {
    _ = try WireCoding.decoder().decode(ResultEnvelope<Message.Response>.self, from: data)
  }

  struct Unreadable: Error, CustomStringConvertible {
    var description: String
    init(_ example: Example, _ why: String) { description = "\(example.testDescription): \(why): \(example.json)" }
  }

  @Test func everyExampleDecodesAsTheTypeItsMethodNames() throws {
    let readings = try Self.readAll()
    #expect(readings.count >= 60)
    // Only the one example of a notification the host drops is abridged.
    #expect(readings.filter { $0.1 == .abridged }.map(\.0.json) == [#"{"jsonrpc":"2.0","method":"log","params":{…}}"#])
  }

  @Test func everyRegisteredMessageHasACompleteExample() throws {
    let readings = try Self.readAll().map(\.1)
    let methods = MessageRegistry.requests.map { $0.method } + MessageRegistry.notifications.map { $0.method }
    for method in methods {
      #expect(readings.contains(.message(method: method)), "no complete example of \(method)")
    }
    for method in MessageRegistry.requests.map({ $0.method }) {
      #expect(readings.contains(.answer(method: method)), "no example answer to \(method)")
    }
  }

  /// Each kind of `appIntent/perform` answer, and each of its errors, has an example.
  @Test func everyKindOfPerformAnswerHasAnExample() throws {
    let answers = Self.examples.filter { $0.json.contains(#""result":{"kind":"#) }.compactMap { example in
      try? WireCoding.decoder().decode(ResultEnvelope<AppIntentPerformResult>.self, from: Data(example.json.utf8))
    }
    #expect(Set(answers.map(\.result.kind)) == Set(AppIntentPerformResult.Kind.allCases))
    let codes = Set(try Self.readAll().compactMap { if case .error(let code) = $0.1 { code } else { nil } })
    for code in [ErrorCode.handlerFailed, .userCancelled, .notAllowedNow, .busy, .invalidParams] {
      #expect(codes.contains(code), "no example error \(code)")
    }
  }

  /// Control: a line that does not decode as its method's type, an answer without a request, and an unknown method
  /// are each refused, so the tests above can fail.
  @Test(arguments: [
    #"{"jsonrpc":"2.0","id":1,"method":"host/requestConfirmation","params":{"actionName":"purchase","showPrompt":true}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"appIntent/perform","params":{"intent":{"identifier":"X","parameters":{}},"attempt":1}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"appIntent/teleport","params":{}}"#,
    #"{"jsonrpc":"2.0","id":99,"result":{}}"#,
    #"{"jsonrpc":"2.0","id":1,"result":{"kind":"result"}"#,
  ])
  func aWrongExampleIsRefused(json: String) {
    #expect(throws: (any Error).self) { try Self.readAll([Example(line: 1, json: json)]) }
  }
}
