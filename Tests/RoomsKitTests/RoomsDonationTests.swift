import AppGroupStore
import ExtensionProtocol
import Foundation
import RoomsKit
import Synchronization
import TestSupport
import Testing

/// Seed 001's dependency inversion, in-process: RoomsKit, a library that knows neither the app nor its extension,
/// donates through the `IntentDonating` protocol it is given. Here that is a recorder; in the real binaries it is the
/// app's `AppContext` or the extension's `ExtensionContext` (DonationEndToEndTests).
@Suite(.tags(.unit))
struct RoomsDonationTests {
  /// What a library's caller might give it: records each call.
  final class Recorder: IntentDonating, Sendable {
    let donated = Mutex<[(DonatedInteraction, String?)]>([])
    let refusing: Bool

    init(refusing: Bool = false) { self.refusing = refusing }

    func donate(_ interaction: DonatedInteraction, identifier: String?, groupIdentifier: String?) async throws
      -> String
    {
      if refusing { throw ResponseError(.invalidParams, "invalid params for host/donate: refused") }
      donated.withLock { $0.append((interaction, groupIdentifier)) }
      return "d\(donated.withLock { $0.count })"
    }

    func deleteDonations(_ selection: DonationSelection) async throws -> Int { 0 }
  }

  func rooms(_ directory: TemporaryDirectory, donations: (any IntentDonating)?) throws -> Rooms {
    Rooms(
      container: try AppGroupContainer(identifier: Rooms.appGroupIdentifier, path: directory.file("group").path),
      donations: donations)
  }

  @Test func aBookingAndACancellationThatSucceedAreDonatedThroughTheProtocol() async throws {
    let directory = try TemporaryDirectory("intenthost-roomskit")
    defer { directory.remove() }
    let recorder = Recorder()
    let rooms = try rooms(directory, donations: recorder)
    try await rooms.book(room: 12, by: "Ada")
    try await rooms.cancel(room: 12, by: "Ada")
    let donated = recorder.donated.withLock { $0 }
    #expect(donated.count == 2)
    #expect(donated.map(\.0.intent.name) == ["BookRoomIntent", "BookRoomIntent"])
    #expect(donated.map { $0.0.intent["isCancellationOfBooking"] } == [.boolean(false), .boolean(true)])
    #expect(
      donated.allSatisfy { $0.0.intent["roomNumber"] == .integer(12) && $0.0.intent["bookedBy"] == .string("Ada") })
    #expect(donated.allSatisfy { $0.1 == Rooms.donationGroup })
    #expect(donated.map { $0.0.response?.code } == [.success, "successCancelledBooking"])
  }

  @Test func whatFailsIsNotDonated() async throws {
    let directory = try TemporaryDirectory("intenthost-roomskit")
    defer { directory.remove() }
    let recorder = Recorder()
    let rooms = try rooms(directory, donations: recorder)
    try await rooms.book(room: 12, by: "Ada")
    await #expect(throws: (any Error).self) { try await rooms.book(room: 12, by: "Grace") }
    await #expect(throws: (any Error).self) { try await rooms.cancel(room: 14, by: "Ada") }
    await #expect(throws: (any Error).self) { try await rooms.book(room: 999, by: "Ada") }
    #expect(recorder.donated.withLock { $0.count } == 1)  // the first booking only
  }

  @Test func aRefusedDonationNeverUndoesTheBooking() async throws {
    let directory = try TemporaryDirectory("intenthost-roomskit")
    defer { directory.remove() }
    let rooms = try rooms(directory, donations: Recorder(refusing: true))
    try await rooms.book(room: 12, by: "Ada")
    // Booked all the same: booking it again is refused as taken (control: a free room books).
    await #expect(throws: (any Error).self) { try await rooms.book(room: 12, by: "Grace") }
    try await rooms.book(room: 14, by: "Grace")
  }

  @Test func withoutADonorNothingIsDonatedAndBookingWorks() async throws {
    let directory = try TemporaryDirectory("intenthost-roomskit")
    defer { directory.remove() }
    let rooms = try rooms(directory, donations: nil)
    try await rooms.book(room: 12, by: "Ada")
    try await rooms.cancel(room: 12, by: "Ada")
  }
}
