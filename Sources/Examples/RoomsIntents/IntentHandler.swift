import ExtensionSDK
import RoomsKit

// The Rooms Intents extension: resolves, confirms and handles BookRoomIntent through RoomsKit.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@main
struct RoomsIntentsExtension: IntentsExtension {
  func handler(for intent: Intent) -> (any IntentHandler)? {
    intent.name == "BookRoomIntent" ? BookRoomHandler() : nil
  }
}

struct BookRoomHandler: IntentHandler {
  func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws
    -> ResolutionResult
  {
    switch parameter {
    case "roomNumber":
      guard case .integer(let room)? = intent["roomNumber"] else { return .needsValue }
      guard Rooms.all.contains(room) else { return .unsupported(reason: "noSuchRoom") }
      return .success(.integer(room))
    case "bookedBy":
      guard case .string(let name)? = intent["bookedBy"] else { return .needsValue }
      let trimmed = name.trimmedWhitespace
      return trimmed.isEmpty ? .needsValue : .success(.string(trimmed))
    case "isCancellationOfBooking":
      guard case .boolean(let cancel)? = intent["isCancellationOfBooking"] else { return .success(.boolean(false)) }
      return .success(.boolean(cancel))
    default:
      return .notRequired
    }
  }

  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    guard case .integer(let room)? = intent["roomNumber"], case .string(let name)? = intent["bookedBy"] else {
      return IntentResponse(code: .failure, parameters: ["reason": .string("the room or the name is missing")])
    }
    var cancel = false
    if case .boolean(let value)? = intent["isCancellationOfBooking"] { cancel = value }
    let parameters: [String: ParameterValue] = ["roomNumber": .integer(room), "bookedBy": .string(name)]
    let rooms = Rooms(container: try context.appGroup(Rooms.appGroupIdentifier))
    do {
      if cancel {
        try await rooms.cancel(room: room, by: name)
        return IntentResponse(code: "successCancelledBooking", parameters: parameters)
      } else {
        try await rooms.book(room: room, by: name)
        return IntentResponse(code: .success, parameters: parameters)
      }
    } catch let error as BookingError {
      var failed = parameters
      failed["reason"] = .string(error.description)
      return IntentResponse(code: cancel ? "failureCancelledBooking" : .failure, parameters: failed)
    }
  }
}
