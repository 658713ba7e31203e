import ExtensionSDK
import RoomsKit

// The Rooms Intents extension: resolves, confirms and handles BookRoomIntent and OpenDoorIntent through RoomsKit.
// OpenDoorIntent is in IntentsRestrictedWhileLocked (Info.plist): opening a door is physical access, which Siri
// allows only on an unlocked device (as for HomeKit's locks), so the assistant asks for the passcode before this
// extension even starts. Booking stays allowed on a locked device.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@main
struct RoomsIntentsExtension: IntentsExtension {
  func handler(for intent: Intent) -> (any IntentHandler)? {
    switch intent.name {
    case "BookRoomIntent": BookRoomHandler()
    case "OpenDoorIntent": OpenDoorHandler()
    default: nil
    }
  }
}

/// The room number of `intent`, resolved: needed, and one of the building's rooms.
func resolveRoomNumber(of intent: Intent) -> ResolutionResult {
  guard case .integer(let room)? = intent["roomNumber"] else { return .needsValue }
  guard Rooms.all.contains(room) else { return .unsupported(reason: "noSuchRoom") }
  return .success(.integer(room))
}

struct BookRoomHandler: IntentHandler {
  func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws
    -> ResolutionResult
  {
    switch parameter {
    case "roomNumber":
      return resolveRoomNumber(of: intent)
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
    // The context donates what succeeds: RoomsKit sees only `IntentDonating`.
    let rooms = Rooms(container: try context.appGroup(Rooms.appGroupIdentifier), donations: context)
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

/// Opens the door of a booked room (`Rooms.openDoor`); a free room's door stays shut (failure, with the reason).
struct OpenDoorHandler: IntentHandler {
  func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws
    -> ResolutionResult
  {
    parameter == "roomNumber" ? resolveRoomNumber(of: intent) : .notRequired
  }

  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    guard case .integer(let room)? = intent["roomNumber"] else {
      return IntentResponse(code: .failure, parameters: ["reason": .string("the room is missing")])
    }
    let rooms = Rooms(container: try context.appGroup(Rooms.appGroupIdentifier))
    do {
      try await rooms.openDoor(room: room)
      return IntentResponse(code: .success, parameters: ["roomNumber": .integer(room)])
    } catch let error as BookingError {
      return IntentResponse(
        code: .failure, parameters: ["roomNumber": .integer(room), "reason": .string(error.description)])
    }
  }
}
