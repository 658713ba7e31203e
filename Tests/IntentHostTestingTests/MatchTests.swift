import ExtensionProtocol
import Foundation
import IntentHostTesting
import TestSupport
import Testing

/// `match`: which app, intent and values a phrase selects, as `say` understands it, with no process started.
@Suite(.serialized, .tags(.process))
struct MatchTests {
  @Test func aPhraseSelectsAnAppAnIntentAndValues() async throws {
    try await withTestHost { host in
      for app in ["Rooms", "Ascent", "FuelOrder"] { try await host.installExample(app) }
      let booking = try await host.match("Book room 12 for Ada with Rooms")
      #expect(
        booking == [
          PhraseMatch(
            app: "Rooms", bundleIdentifier: "com.example.rooms", intent: "BookRoomIntent",
            parameters: [
              "roomNumber": .integer(12), "bookedBy": .string("Ada"), "isCancellationOfBooking": .boolean(false),
            ],
            kind: .intent)
        ], "\(booking)")
      let workout = try await host.match("Start a wall climb workout with Ascent")
      #expect(workout.map(\.intent) == ["INStartWorkoutIntent"], "\(workout)")
      let fuel = try await host.match("Fuel my car at home with FuelOrder")
      #expect(fuel.map(\.intent) == ["OrderFuelIntent"], "\(fuel)")
      #expect(fuel.first?.kind == .appShortcut)
      #expect(try await host.match("Paint the fence with Rooms").isEmpty)
      // Nothing ran: no extension has a log yet, and room 12 is free. The control: saying it runs the extension.
      let log = host.home.appendingPathComponent("Logs/com.example.rooms.RoomsIntents.log")
      #expect(!FileManager.default.fileExists(atPath: log.path))
      #expect(try await host.say("Book room 12 for Grace with Rooms").isSuccess)
      #expect(FileManager.default.fileExists(atPath: log.path))
    }
  }
}
