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
    case BookRoomIntent.className: BookRoomHandler()
    case OpenDoorIntent.className: OpenDoorHandler()
    default: nil
    }
  }
}

/// A room number, resolved: needed, and one of the building's rooms.
func resolvedRoomNumber(_ roomNumber: Int?) -> TypedResolutionResult<Int> {
  guard let room = roomNumber else { return .needsValue }
  guard Rooms.all.contains(room) else { return .unsupported(reason: "noSuchRoom") }
  return .success(with: room)
}

/// Books a room, or cancels its booking, through the typed API generated from the definition (BookRoomIntentHandling,
/// docs/INTENT-CODEGEN.md).
struct BookRoomHandler: BookRoomIntentHandling {
  func resolveRoomNumber(for intent: BookRoomIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<Int>
  {
    resolvedRoomNumber(intent.roomNumber)
  }

  func resolveBookedBy(for intent: BookRoomIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<String>
  {
    let trimmed = intent.bookedBy?.trimmedWhitespace ?? ""
    return trimmed.isEmpty ? .needsValue : .success(with: trimmed)
  }

  func resolveIsCancellationOfBooking(for intent: BookRoomIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<Bool>
  {
    .success(with: intent.isCancellationOfBooking ?? false)
  }

  func handle(intent: BookRoomIntent, in context: ExtensionContext) async throws -> BookRoomIntentResponse {
    guard let room = intent.roomNumber, let name = intent.bookedBy else {
      return BookRoomIntentResponse(code: .failure, reason: "the room or the name is missing")
    }
    let cancel = intent.isCancellationOfBooking ?? false
    // The context donates what succeeds: RoomsKit sees only `IntentDonating`.
    let rooms = Rooms(container: try context.appGroup(Rooms.appGroupIdentifier), donations: context)
    do {
      if cancel {
        try await rooms.cancel(room: room, by: name)
        return BookRoomIntentResponse(code: .successCancelledBooking, roomNumber: room, bookedBy: name)
      } else {
        try await rooms.book(room: room, by: name)
        return BookRoomIntentResponse(code: .success, roomNumber: room, bookedBy: name)
      }
    } catch let error as BookingError {
      return BookRoomIntentResponse(
        code: cancel ? .failureCancelledBooking : .failure, roomNumber: room, bookedBy: name,
        reason: error.description)
    }
  }
}

/// Opens the door of a booked room (`Rooms.openDoor`); a free room's door stays shut (failure, with the reason).
struct OpenDoorHandler: OpenDoorIntentHandling {
  func resolveRoomNumber(for intent: OpenDoorIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<Int>
  {
    resolvedRoomNumber(intent.roomNumber)
  }

  func handle(intent: OpenDoorIntent, in context: ExtensionContext) async throws -> OpenDoorIntentResponse {
    guard let room = intent.roomNumber else {
      return OpenDoorIntentResponse(code: .failure, reason: "the room is missing")
    }
    let rooms = Rooms(container: try context.appGroup(Rooms.appGroupIdentifier))
    do {
      try await rooms.openDoor(room: room)
      return OpenDoorIntentResponse(code: .success, roomNumber: room)
    } catch let error as BookingError {
      return OpenDoorIntentResponse(code: .failure, roomNumber: room, reason: error.description)
    }
  }
}
