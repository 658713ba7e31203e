import ExtensionSDK
import Foundation
import TestSupport
import Testing

// A SiriKit handler tested in-process, as docs/SDK.md ("Unit-testing a handler in-process") shows it: the lines
// between the two markers are the page's example, character for character (SDKDocumentTests checks it).

// docs/SDK.md: begin handler test
/// The handler under test, as the extension has it: keeps the user's favourite room in the group's shared defaults.
struct FavouriteRoomHandler: IntentHandler {
  static let group = "group.com.example.rooms"

  func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws
    -> ResolutionResult
  {
    guard parameter == "roomNumber" else { return .notRequired }
    guard case .integer(let room)? = intent["roomNumber"] else { return .needsValue }
    return (1...20).contains(room) ? .success(.integer(room)) : .unsupported(reason: "noSuchRoom")
  }

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    let defaults = try context.appGroup(Self.group).defaults
    guard case .integer(let room)? = intent["roomNumber"] else { return IntentResponse(code: .failure) }
    let favourite = try await defaults.integer(forKey: "favouriteRoom")
    return IntentResponse(code: favourite == room ? "failureAlreadyFavourite" : .ready)
  }

  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    guard case .integer(let room)? = intent["roomNumber"] else { return IntentResponse(code: .failure) }
    try await context.appGroup(Self.group).defaults.set(.integer(room), forKey: "favouriteRoom")
    return IntentResponse(code: .success, parameters: ["roomNumber": .integer(room)])
  }
}

@Suite(.tags(.unit))
struct FavouriteRoomHandlerTests {
  @Test func resolvesConfirmsAndHandlesAgainstATemporaryAppGroup() async throws {
    // A temporary app group and container, and a context that is not connected to a host.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rooms-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let group = AppGroupLocation(identifier: FavouriteRoomHandler.group, path: folder.path + "/group")
    let context = ExtensionContext(
      bundleIdentifier: "com.example.rooms.RoomsIntents", extensionPoint: SessionKind.intentsExtension.extensionPoint,
      bundlePath: "/nonexistent/RoomsIntents.appex", containerPath: folder.path + "/container", locale: "en_US",
      appGroups: [group])
    let handler = FavouriteRoomHandler()  // the SDK makes a fresh one per phase; so may a test

    var intent = Intent(name: "SetFavouriteRoomIntent", identifier: "test-1")
    #expect(try await handler.resolve("roomNumber", of: intent, in: context) == .needsValue)
    intent["roomNumber"] = .integer(99)
    #expect(try await handler.resolve("roomNumber", of: intent, in: context) == .unsupported(reason: "noSuchRoom"))
    intent["roomNumber"] = .integer(12)
    #expect(try await handler.resolve("roomNumber", of: intent, in: context) == .success(.integer(12)))
    #expect(try await handler.confirm(intent, in: context).code == .ready)
    let response = try await handler.handle(intent, in: context)
    #expect(response == IntentResponse(code: .success, parameters: ["roomNumber": .integer(12)]))

    // What handle wrote is in the group, where the app and the next request read it.
    let defaults = try context.appGroup(FavouriteRoomHandler.group).defaults
    #expect(try await defaults.integer(forKey: "favouriteRoom") == 12)
    #expect(try await handler.confirm(intent, in: context).code == "failureAlreadyFavourite")

    // A group the context does not list is refused, as an unlisted entitlement is.
    #expect(throws: StoreError.self) { _ = try context.appGroup("group.com.example.other") }
    // Requests to the host are refused: this context has none.
    let refused = await #expect(throws: ResponseError.self) {
      try await context.requestAuthentication(reason: "Make room 12 your favourite")
    }
    #expect(refused?.code == .notAllowedNow)
  }
}
// docs/SDK.md: end handler test
