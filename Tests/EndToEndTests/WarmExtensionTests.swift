import Foundation
import TestSupport
import Testing

/// A kept-alive extension serves many intents: one process, every intent answered, state shared through the group.
@Suite(.serialized, .tags(.endToEnd))
struct WarmExtensionTests {
  @Test func oneExtensionProcessServesManyIntents() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    // 20 warm-up runs and 30 measured ones: rooms 1...50 are booked, all by one RoomsIntents process.
    let result = try await runCommand(
      PackagePaths.executable("intenthost-bench"),
      [
        "warm", host.home, "30", "Rooms", "BookRoom", "roomNumber={n}", "bookedBy=Warm",
        "isCancellationOfBooking={cancel}",
      ],
      environment: environment)
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout.contains("warm: one intent, kept-alive extension"), "\(result)")
    let log = try String(contentsOfFile: host.home + "/Logs/com.example.rooms.RoomsIntents.log", encoding: .utf8)
    let starts = log.split(separator: "\n").filter { $0.contains("RoomsIntents started") }
    #expect(starts.count == 1, "\(log)")
    let listed = try await host.assistant(["open", "Rooms", "--", "list"])
    #expect(listed.stdout.contains("Room 50: booked by Warm"), "\(listed)")
    #expect(listed.stdout.contains("Free: rooms 51-300"), "\(listed)")
  }
}
