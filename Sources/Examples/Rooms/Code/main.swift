import ExtensionSDK
import RoomsKit

// The Rooms app: book, cancel and list study rooms, and show when their doors were opened (OpenDoorIntent, through
// Siri only). Launched by the assistant (`assistant open Rooms -- ARGS`), which gives it its container and the Rooms
// app group. What it does for Siri: RoomsKit donates each booking and cancellation that succeeds, and after every
// command the app publishes two suggested shortcuts for the newest booking, "Book my usual room" (BookRoomIntent: that
// room, that person) and "Open my room's door" (OpenDoorIntent: that room), which `assistant shortcuts suggested`
// lists.
#if canImport(Glibc)
  import Glibc
#endif

let usage = """
  usage: rooms book ROOM --by NAME
         rooms cancel ROOM --by NAME
         rooms list
         rooms show ROOM
  """

func fail(_ message: String, _ code: Int32) -> Never {
  let line = Array("rooms: \(message)\n".utf8)
  _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  exit(code)
}

func roomNumber(_ text: String?) -> Int {
  guard let text, let room = Int(text) else { fail("a room number is needed\n\(usage)", 64) }
  return room
}

func name(_ arguments: ArraySlice<String>) -> String {
  guard let flag = arguments.firstIndex(of: "--by"), flag + 1 < arguments.endIndex else {
    fail("say who is booking with --by NAME\n\(usage)", 64)
  }
  return arguments[(flag + 1)...].joined(separator: " ")
}

let arguments = CommandLine.arguments.dropFirst()
// Brought to the foreground by Siri to continue an intent (its extension answered continueInApp): the activity says
// which intent and what the extension answered; the app shows where the user left off.
if arguments.isEmpty, let context = try? AppContext.current(), context.launchReason == "continueUserActivity",
  let activity = context.userActivity
{
  let intent = activity.interaction.intent
  let room: String = if case .integer(let number)? = intent["roomNumber"] { " room \(number)" } else { "" }
  print("Rooms: continuing \(intent.name)\(room) from Siri (\(activity.activityType)).")
  for key in activity.userInfo.keys.sorted() { print("  \(key): \(activity.userInfo[key]!)") }
  exit(0)
}
guard let command = arguments.first else { fail("no command\n\(usage)", 64) }
if command == "--help" || command == "-h" || command == "help" {
  print(usage)
  exit(0)
}

let context: AppContext
let rooms: Rooms
do {
  context = try AppContext.current()
  // The context donates what succeeds (on the host channel); RoomsKit sees only `IntentDonating`.
  rooms = Rooms(container: try context.appGroup(Rooms.appGroupIdentifier), donations: context)
} catch let error as AppContext.Missing {
  fail("\(error)", 78)
} catch {
  fail("\(error)", 77)
}

/// Runs the command; nil when it succeeded, else its message and exit status.
func run(_ command: String) async -> (message: String, status: Int32)? {
  do {
    switch command {
    case "book":
      let room = roomNumber(arguments.dropFirst().first)
      let who = name(arguments.dropFirst(2))
      try await rooms.book(room: room, by: who)
      print("Room \(room) is now booked by \(who).")
    case "cancel":
      let room = roomNumber(arguments.dropFirst().first)
      let who = name(arguments.dropFirst(2))
      try await rooms.cancel(room: room, by: who)
      print("The booking of room \(room) by \(who) is cancelled.")
    case "list":
      let bookings = try await rooms.bookings()
      for room in bookings.keys.sorted() {
        let booking = bookings[room]!
        print(
          "Room \(room): booked by \(booking.bookedBy)" + (booking.doorOpenedAt.map { ", door opened at \($0)" } ?? ""))
      }
      let free = Rooms.all.filter { bookings[$0] == nil }
      print(free.isEmpty ? "No room is free." : "Free: rooms \(Rooms.ranges(free))")
    case "show":
      let room = roomNumber(arguments.dropFirst().first)
      if let booking = try await rooms.booking(of: room) {
        print("Room \(room) is booked by \(booking.bookedBy) (since \(booking.bookedAt)).")
        print(booking.doorOpenedAt.map { "Its door was opened at \($0)." } ?? "Its door has not been opened.")
      } else {
        print("Room \(room) is free.")
      }
    default:
      fail("unknown command \"\(command)\"\n\(usage)", 64)
    }
    return nil
  } catch let error as BookingError {
    return ("\(error)", 1)
  } catch let error as StoreError {
    switch error {
    case .corrupt, .newerSchema, .unsafeFile: return ("\(error)", 65)
    default: return ("\(error)", 74)
    }
  } catch {
    return ("\(error)", 70)
  }
}

let failure = await run(command)
// Whatever the command did, the app publishes its suggested shortcuts ("Add to Siri") for the newest booking:
// "Book my usual room" and "Open my room's door" (`Rooms.suggestedShortcuts`). `assistant shortcuts suggested`
// lists them; `assistant shortcuts add --from ID` accepts one.
await rooms.publishSuggestedShortcuts(to: context)
if let failure { fail(failure.message, failure.status) }
