import AssistantHost
import Foundation
import TestSupport
import Testing

/// Donations through the real binaries: RoomsKit donates through `IntentDonating` when a booking succeeds, in the
/// Rooms Intents extension (on its protocol connection) and in the Rooms app (on its host channel, fd 3); the host
/// keeps them in its own state.
struct DonationEndToEndTests {
  func donations(_ host: HostFixture) async throws -> [StoredDonation] {
    try await offThePool {
      try DonationStore(home: AssistantHome(root: host.home, environment: [:])).donations(of: "com.example.rooms")
    }
  }

  @Test func aBookingThroughSiriIsDonatedByTheExtension() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await donations(host).isEmpty)  // control: nothing before
    let booked = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(booked.code == 0, "\(booked)")
    let kept = try await donations(host)
    #expect(kept.count == 1, "\(kept)")
    #expect(kept.first?.interaction.intent.name == "BookRoomIntent")
    #expect(kept.first?.interaction.intent["roomNumber"] == .integer(12))
    #expect(kept.first?.interaction.intent["bookedBy"] == .string("Ada"))
    #expect(kept.first?.groupIdentifier == "bookings")
    // A failed booking (the room is taken) donates nothing more.
    let again = try await host.assistant(["Book room 12 for Grace with Rooms"])
    #expect(again.code != 0 || again.stdout.contains("already"), "\(again)")
    #expect(try await donations(host).count == 1)
  }
}

extension DonationEndToEndTests {
  @Test func aBookingInTheAppIsDonatedOnItsHostChannel() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let booked = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Ada"])
    #expect(booked.code == 0, "\(booked)")
    #expect(!booked.stderr.contains("not donated"), "\(booked)")
    var kept = try await donations(host)
    #expect(kept.count == 1, "\(kept)")
    #expect(kept.first?.interaction.intent["roomNumber"] == .integer(12))
    #expect(kept.first?.interaction.response?.code == .success)
    // The cancellation is another donation (isCancellationOfBooking is true); booking room 12 again is the same
    // donation as the first, kept once, now the newest.
    let cancelled = try await host.assistant(["open", "Rooms", "--", "cancel", "12", "--by", "Ada"])
    #expect(cancelled.code == 0, "\(cancelled)")
    let again = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Ada"])
    #expect(again.code == 0, "\(again)")
    kept = try await donations(host)
    #expect(kept.count == 2, "\(kept)")
    #expect(kept.map { $0.interaction.intent["isCancellationOfBooking"] } == [.boolean(true), .boolean(false)])
  }
}
