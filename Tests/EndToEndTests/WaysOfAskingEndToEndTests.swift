import Foundation
import TestSupport
import Testing

/// The common ways of asking, through the real binary on the example Rooms app (issue 26): the app addressed before
/// the request ("use Rooms to …", "tell Rooms to …", "open Rooms and …") and a wake phrase before it all ("Hey Siri,
/// …"). Each books its own room in a fresh home. The controls: a wake phrase after the start is words of the request,
/// and an unknown app after "use" exits 69.
@Suite(.serialized, .tags(.endToEnd)) struct WaysOfAskingEndToEndTests {
  @Test(arguments: [
    ("use Rooms to book room 61 for Ada", 61),
    ("Hey Siri, book room 62 for Ada with Rooms", 62),
    ("siri tell Rooms to book room 63 for Ada", 63),
    ("HEY SIRI open Rooms and book room 64 for Ada", 64),
  ])
  func eachWayBooks(_ utterance: String, room: Int) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let booked = try await host.assistant([utterance])
    #expect(booked.code == 0, "\(booked)")
    #expect(
      booked.stdout
        == "Room \(room) is now booked by Ada.\n[RoomsUI]\n  Room \(room)\n  Status: Booked by Ada\n", "\(booked)")
    let shown = try await host.assistant(["open", "Rooms", "--", "show", "\(room)"])
    #expect(shown.stdout.hasPrefix("Room \(room) is booked by Ada"), "\(shown)")
  }

  @Test func theControls() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let named = try await host.assistant(["Book room 65 for Hey Siri with Rooms"])
    #expect(named.code == 0, "\(named)")
    #expect(named.stdout.hasPrefix("Room 65 is now booked by Hey Siri.\n"), "\(named)")
    let unknown = try await host.assistant(["use Roms to book room 66 for Ada"])
    #expect(unknown.code == 69, "\(unknown)")
    #expect(unknown.stderr.contains("no installed app is called \"Roms\" (did you mean \"Rooms\"?)"), "\(unknown)")
    let free = try await host.assistant(["open", "Rooms", "--", "show", "66"])
    #expect(free.stdout == "Room 66 is free.\n", "\(free)")
  }
}
