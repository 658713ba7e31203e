import ExtensionProtocol
import IntentHostTesting
import TestSupport
import Testing

/// Fault plans on the Rooms example's real extensions: a crash, a hang and a late answer at a step, each read as the
/// command line reads a real fault; each with its control (the same run without the fault, or with the fault aimed
/// elsewhere, succeeds).
@Suite(.serialized, .tags(.process))
struct FaultPlanTests {
  @Test func aCrashAtHandleIsTheExtensionsFaultAndBooksNothing() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let crashed = try await host.say("Book room 12 for Ada with Rooms", faults: [.crash(at: .handle)])
      #expect(crashed.status == .extensionFault, "\(crashed.transcript)")
      #expect(
        crashed.errorMessage?.contains(
          "RoomsIntents (com.example.rooms.RoomsIntents) crashed with SIGKILL during handle")
          == true, "\(crashed.transcript)")
      await #expect(throws: TestHostError.self) {
        _ = try await host.appGroup("group.com.example.rooms").document("bookings.json")
      }
      // Control: the fault acts once, in its run; the next run books.
      let booked = try await host.say("Book room 12 for Ada with Rooms")
      #expect(booked.isSuccess, "\(booked.transcript)")
      #expect(booked.dialog == ["Room 12 is now booked by Ada."])
    }
  }

  @Test func aHangAtResolveMeetsTheDeadlineItSets() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let hung = try await host.say(
        "Book room 12 for Ada with Rooms", faults: [.hang(at: .resolve, deadline: .milliseconds(500))])
      #expect(hung.status == .extensionFault, "\(hung.transcript)")
      #expect(hung.errorMessage?.contains("did not answer resolve of") == true, "\(hung.transcript)")
      #expect(hung.errorMessage?.contains("within 0.5 s") == true, "\(hung.transcript)")
    }
  }

  @Test func aLateAnswerWithinTheDeadlineIsWaitedFor() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let late = try await host.say(
        "Book room 12 for Ada with Rooms", faults: [.slow(at: .handle, by: .milliseconds(300))])
      #expect(late.isSuccess, "\(late.transcript)")
      #expect(late.dialog == ["Room 12 is now booked by Ada."])
    }
  }

  /// The occurrence counts the step's requests: BookRoom resolves roomNumber, then bookedBy.
  @Test func theSecondResolveCrashes() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let crashed = try await host.say(
        "Book room 12 for Ada with Rooms", faults: [.crash(at: .resolve, in: "RoomsIntents", occurrence: 2)])
      #expect(crashed.status == .extensionFault, "\(crashed.transcript)")
      #expect(crashed.errorMessage?.contains("during resolve of bookedBy") == true, "\(crashed.transcript)")
    }
  }

  /// A crash of the UI extension loses the card, not the booking: the intent's answer stands.
  @Test func aCrashOfTheUIExtensionLosesOnlyTheCard() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let result = try await host.say("Book room 12 for Ada with Rooms", faults: [.crash(at: .ui, in: "RoomsUI")])
      #expect(result.dialog.first == "Room 12 is now booked by Ada.", "\(result.transcript)")
      #expect(result.views.isEmpty, "\(result.transcript)")
      let document = try await host.appGroup("group.com.example.rooms").document("bookings.json")
      #expect(document["bookings"] != nil)
    }
  }

  /// Control: a fault aimed at another extension, or at a step the run does not reach, does nothing.
  @Test func aFaultAimedElsewhereDoesNothing() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let result = try await host.say(
        "Book room 12 for Ada with Rooms",
        faults: [.crash(at: .handle, in: "AscentIntents"), .crash(at: .perform), .hang(at: .resolve, occurrence: 9)])
      #expect(result.isSuccess, "\(result.transcript)")
      #expect(result.views.count == 1, "\(result.transcript)")
    }
  }
}
