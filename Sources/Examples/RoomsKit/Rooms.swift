import AppGroupStore
import ExtensionProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// A booking of one room.
public struct Booking: Codable, Sendable, Equatable {
  public var bookedBy: String
  /// When the booking was made, ISO 8601 (UTC).
  public var bookedAt: String
  /// When the room's door was last opened during this booking (`Rooms.openDoor`), ISO 8601 (UTC); nil while it has
  /// not been. Absent from the JSON when nil, and from documents written before doors could be opened, which decode
  /// as they are (an optional's key is decoded with `decodeIfPresent`).
  public var doorOpenedAt: String?

  public init(bookedBy: String, bookedAt: String, doorOpenedAt: String? = nil) {
    self.bookedBy = bookedBy
    self.bookedAt = bookedAt
    self.doorOpenedAt = doorOpenedAt
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    bookedBy = try container.decode(String.self, forKey: .bookedBy)
    bookedAt = try container.decode(String.self, forKey: .bookedAt)
    doorOpenedAt = try container.decodeIfPresent(String.self, forKey: .doorOpenedAt)
  }
}

/// The shared bookings document (`bookings.json` in the Rooms app group).
public struct BookingsDocument: DocumentContent, Equatable {
  public static let schemaVersion = 1
  /// Room number (as a string key, for readable JSON) to its booking; free rooms are absent.
  public var bookings: [String: Booking]

  public init() { bookings = [:] }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    bookings = try container.decodeIfPresent([String: Booking].self, forKey: .bookings) ?? [:]
  }
}

/// Why a booking, a cancellation or the opening of a door was refused, with the seed's wording.
public enum BookingError: Error, Sendable, Equatable, CustomStringConvertible {
  case noSuchRoom(Int)
  case alreadyBooked(room: Int, by: String)
  case notBooked(room: Int)
  /// The room is free, and a free room's door stays shut.
  case doorOfFreeRoom(room: Int)
  case bookedBySomeoneElse(room: Int, by: String)
  case noName

  public var description: String {
    switch self {
    case .noSuchRoom(let room):
      return "there is no room \(room); rooms are numbered \(Rooms.all.lowerBound) to \(Rooms.all.upperBound)"
    case .alreadyBooked(let room, let by): return "room \(room) is already booked by \(by)"
    case .notBooked(let room): return "room \(room) is not booked"
    case .doorOfFreeRoom(let room): return "room \(room) is free, and only a booked room's door opens"
    case .bookedBySomeoneElse(let room, let by): return "room \(room) is booked by \(by), not by you"
    case .noName: return "a booking needs the name of the person booking"
    }
  }
}

/// The Rooms booking logic, shared by the app and its Intents extension (the seed's shared framework).
///
/// Every operation is async: the store's lock and sync run off Swift's cooperative pool (AppGroupStore's async
/// overloads), so an extension's handler never blocks it.
public struct Rooms: Sendable {
  /// The app group both the app and the extension are entitled to.
  public static let appGroupIdentifier = "group.com.example.rooms"
  /// The rooms of the building.
  public static let all = 1...300

  private let document: Document<BookingsDocument>
  /// Where a booking or a cancellation that succeeded is donated (seed 001's dependency inversion: RoomsKit knows
  /// the protocol, not whether the app or its extension runs it); nil donates nothing.
  private let donations: (any IntentDonating)?

  /// - Parameter donations: the app's `AppContext` or the extension's `ExtensionContext`, or nil.
  public init(container: AppGroupContainer, donations: (any IntentDonating)? = nil) {
    document = container.document("bookings.json")
    self.donations = donations
  }

  /// The group of every donation Rooms makes, so that they can be deleted together.
  public static let donationGroup = "bookings"

  /// Donates the booking (or cancellation) that just succeeded as a BookRoomIntent interaction. A donation the host
  /// refuses or cannot take never undoes the booking: it is reported on stderr and dropped, as iOS's
  /// `donate(completion:)` error is only logged by most apps.
  private func donate(room: Int, by name: String, cancel: Bool) async {
    guard let donations else { return }
    let parameters: [String: ParameterValue] = ["roomNumber": .integer(room), "bookedBy": .string(name)]
    var values = parameters
    values["isCancellationOfBooking"] = .boolean(cancel)
    let interaction = DonatedInteraction(
      intent: Intent(name: "BookRoomIntent", identifier: UUID().uuidString, parameters: values),
      response: IntentResponse(code: cancel ? "successCancelledBooking" : .success, parameters: parameters))
    do {
      try await donations.donate(interaction, identifier: nil, groupIdentifier: Self.donationGroup)
    } catch {
      let line = Array("rooms: the \(cancel ? "cancellation" : "booking") was not donated: \(error)\n".utf8)
      _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
  }

  /// The phrases of the shortcuts Rooms suggests (`suggestedShortcuts()`).
  public static let usualRoomPhrase = "Book my usual room"
  public static let roomDoorPhrase = "Open my room's door"

  /// The two shortcuts Rooms suggests ("Add to Siri"), from the newest booking (the latest `bookedAt`; of two made
  /// in the same second, the higher room): "Book my usual room", BookRoomIntent booking that room again for the same
  /// person, and "Open my room's door", OpenDoorIntent for that room. With no booking, the same phrases without
  /// values: the assistant asks for the room (and the name) when one is said.
  public func suggestedShortcuts() async throws -> [ShortcutSuggestion] {
    let newest = try await bookings().max { ($0.value.bookedAt, $0.key) < ($1.value.bookedAt, $1.key) }
    var book: [String: ParameterValue] = ["isCancellationOfBooking": .boolean(false)]
    var door: [String: ParameterValue] = [:]
    if let (room, booking) = newest {
      book["roomNumber"] = .integer(room)
      book["bookedBy"] = .string(booking.bookedBy)
      door["roomNumber"] = .integer(room)
    }
    return [
      ShortcutSuggestion(
        intent: Intent(name: "BookRoomIntent", identifier: UUID().uuidString, parameters: book),
        phrase: Self.usualRoomPhrase),
      ShortcutSuggestion(
        intent: Intent(name: "OpenDoorIntent", identifier: UUID().uuidString, parameters: door),
        phrase: Self.roomDoorPhrase),
    ]
  }

  /// Publishes `suggestedShortcuts()` through `publisher` (the app's `AppContext`; library code knows only the
  /// protocol). A refusal or a host that cannot be reached is reported on stderr and otherwise ignored: suggestions
  /// are never worth failing a command for.
  public func publishSuggestedShortcuts(to publisher: any ShortcutSuggesting) async {
    do {
      try await publisher.setShortcutSuggestions(try await suggestedShortcuts())
    } catch {
      let line = Array("rooms: the suggested shortcuts were not published: \(error)\n".utf8)
      _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
  }

  /// Books `room` for `name`.
  /// - Throws: `BookingError` when the room does not exist or is booked; `StoreError` when the data cannot be read.
  public func book(room: Int, by name: String, at date: Date = Date()) async throws {
    let name = try Self.normalized(name)
    guard Self.all.contains(room) else { throw BookingError.noSuchRoom(room) }
    let bookedAt = date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    try await document.update { content in
      if let existing = content.bookings[String(room)] {
        throw BookingError.alreadyBooked(room: room, by: existing.bookedBy)
      }
      content.bookings[String(room)] = Booking(bookedBy: name, bookedAt: bookedAt)
    }
    await donate(room: room, by: name, cancel: false)
  }

  /// Cancels `name`'s booking of `room`.
  /// - Throws: `BookingError` when the room is free or booked by someone else.
  public func cancel(room: Int, by name: String) async throws {
    let name = try Self.normalized(name)
    guard Self.all.contains(room) else { throw BookingError.noSuchRoom(room) }
    try await document.update { content in
      guard let existing = content.bookings[String(room)] else { throw BookingError.notBooked(room: room) }
      guard existing.bookedBy.lowercased() == name.lowercased() else {
        throw BookingError.bookedBySomeoneElse(room: room, by: existing.bookedBy)
      }
      content.bookings[String(room)] = nil
    }
    await donate(room: room, by: name, cancel: true)
  }

  /// Opens the door of `room`, which must be booked, and records when in its booking (`Booking.doorOpenedAt`), so the
  /// app shows it. Who may open it is the device's business: the Intents extension lists OpenDoorIntent in
  /// IntentsRestrictedWhileLocked, so the assistant asks for the device's passcode first when it is locked.
  /// - Returns: the booking, with the time the door was opened.
  /// - Throws: `BookingError.noSuchRoom`, or `.doorOfFreeRoom` when nobody booked the room (its door stays shut);
  ///   `StoreError` when the data cannot be read or written.
  @discardableResult
  public func openDoor(room: Int, at date: Date = Date()) async throws -> Booking {
    guard Self.all.contains(room) else { throw BookingError.noSuchRoom(room) }
    let openedAt = date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    return try await document.update { content in
      guard var booking = content.bookings[String(room)] else { throw BookingError.doorOfFreeRoom(room: room) }
      booking.doorOpenedAt = openedAt
      content.bookings[String(room)] = booking
      return booking
    }
  }

  /// Every booking, by room number.
  public func bookings() async throws -> [Int: Booking] {
    var result: [Int: Booking] = [:]
    for (key, booking) in try await document.read().bookings {
      if let room = Int(key) { result[room] = booking }
    }
    return result
  }

  /// The booking of `room`, or nil when it is free.
  public func booking(of room: Int) async throws -> Booking? {
    guard Self.all.contains(room) else { throw BookingError.noSuchRoom(room) }
    return try await document.read().bookings[String(room)]
  }

  private static func normalized(_ name: String) throws -> String {
    let trimmed = name.trimmedWhitespace
    if trimmed.isEmpty { throw BookingError.noName }
    return trimmed
  }

  /// Compact ranges, e.g. [1, 2, 3, 5] -> "1-3, 5".
  public static func ranges(_ numbers: [Int]) -> String {
    var parts: [String] = []
    var index = 0
    let sorted = numbers.sorted()
    while index < sorted.count {
      var end = index
      while end + 1 < sorted.count && sorted[end + 1] == sorted[end] + 1 { end += 1 }
      parts.append(end == index ? "\(sorted[index])" : "\(sorted[index])-\(sorted[end])")
      index = end + 1
    }
    return parts.joined(separator: ", ")
  }
}

extension String {
  /// The string without leading and trailing white space.
  public var trimmedWhitespace: String {
    String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }
}
