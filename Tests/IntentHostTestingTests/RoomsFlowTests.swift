import AppGroupStore
import ExtensionProtocol
import IntentHostTesting
import TestSupport
import Testing

/// The Rooms example through the test harness: its real RoomsIntents and RoomsUI extensions, sandboxed, in a host of
/// each test's own. A booking is made, asked for, refused when the room is taken; the door opens only on an unlocked
/// device or with the passcode.
@Suite(.serialized, .tags(.process))
struct RoomsFlowTests {
  @Test func aBookingIsMadeDrawnAndKeptInTheAppGroup() async throws {
    try await withTestHost { host in
      let rooms = try await host.installExample("Rooms")
      #expect(rooms == InstalledApp(name: "Rooms", bundleIdentifier: "com.example.rooms", warnings: []))

      let result = try await host.say("Book room 12 for Ada with Rooms")
      #expect(result.status == .success, "\(result.transcript)")
      #expect(result.app == "Rooms")
      #expect(result.intent == "BookRoomIntent")
      #expect(result.parameters["roomNumber"] == .integer(12))
      #expect(result.parameters["bookedBy"] == .string("Ada"))
      #expect(result.responseCode == "success")
      #expect(result.questions.isEmpty)
      #expect(result.dialog == ["Room 12 is now booked by Ada."])
      #expect(result.views == [.init(extensionName: "RoomsUI", lines: ["Room 12", "Status: Booked by Ada"])])
      #expect(
        result.transcript.lines == [
          "> Book room 12 for Ada with Rooms", "Room 12 is now booked by Ada.", "[RoomsUI]", "  Room 12",
          "  Status: Booked by Ada", "exit 0",
        ])
      // The recorded transcript has the messages to and from both extensions.
      #expect(result.transcript.recorded.contains { $0.contains(#""peer":"RoomsIntents""#) })
      #expect(result.transcript.recorded.contains { $0.contains(#""peer":"RoomsUI""#) })

      // The extension wrote the booking to the shared document the app reads.
      let document = try await host.appGroup("group.com.example.rooms").document("bookings.json")
      guard case .object(let bookings)? = document["bookings"], case .object(let twelve)? = bookings["12"] else {
        Issue.record("no booking of room 12 in \(document)")
        return
      }
      #expect(twelve["bookedBy"] == .string("Ada"))
      #expect(bookings.count == 1)
    }
  }

  @Test func whoTheBookingIsForIsAsked() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let answered = try await host.say("Book room 14 with Rooms", answers: ["Ada"])
      answered.expect(\.questions, ["Who is the booking for?"])
      answered.expect(\.dialog, ["Room 14 is now booked by Ada."])
      answered.expect(
        \.parameters,
        ["roomNumber": .integer(14), "bookedBy": .string("Ada"), "isCancellationOfBooking": .boolean(false)])
      #expect(answered.transcript.lines.contains("Who is the booking for? Ada"))

      // No answer: the run ends as `assistant` without --answer does (75), nothing booked.
      let unanswered = try await host.say("Book room 15 with Rooms")
      #expect(unanswered.status == .valueNeeded)
      #expect(unanswered.questions == ["Who is the booking for?"])
      #expect(unanswered.errorMessage?.contains("the test gave no answer") == true, "\(unanswered.transcript)")
      #expect(unanswered.responseCode == nil)

      // An answer nobody asked for: a usage error (64) after the intent ran.
      let spare = try await host.say("Book room 16 for Grace with Rooms", answers: ["Ada"])
      #expect(spare.status == .usage)
      #expect(spare.dialog == ["Room 16 is now booked by Grace."])
    }
  }

  @Test func aBookedRoomIsRefused() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      #expect(try await host.say("Book room 12 for Ada with Rooms").isSuccess)
      let refused = try await host.say("Book room 12 for Grace with Rooms")
      #expect(refused.status == .failureResponse)
      #expect(refused.responseCode == "failure")
      #expect(!refused.isSuccess)
      #expect(
        refused.dialog == ["Sorry, room 12 could not be booked for Grace: room 12 is already booked by Ada."])
      #expect(refused.views.first?.lines == ["Room 12", "Status: Not booked for Grace"])
    }
  }

  /// What runs no intent: a capability question answers with the phrases, a phrase no app has is `noMatch` (69).
  @Test func aQuestionAboutPhrasesAndAPhraseNoAppHas() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let phrases = try await host.say("What can I say to Rooms?")
      #expect(phrases.status == .success)
      #expect(phrases.app == nil && phrases.intent == nil && !phrases.isSuccess)
      #expect(phrases.phrases.contains { $0.hasPrefix("Rooms: ") && $0.contains("room") }, "\(phrases.phrases)")

      let unknown = try await host.say("Paint the fence with Rooms")
      #expect(unknown.status == .noMatch)
      #expect(unknown.errorMessage != nil && unknown.dialog.isEmpty)
      #expect(unknown.transcript.lines.last == "exit 69")
    }
  }

  @Test func runningTheIntentDirectlyIsTheSameBooking() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let result = try await host.run(
        app: "Rooms", intent: "BookRoom", parameters: ["roomNumber": "15", "bookedBy": "Grace"])
      #expect(result.status == .success)
      #expect(result.intent == "BookRoomIntent")
      #expect(result.dialog == ["Room 15 is now booked by Grace."])
      #expect(result.transcript.lines.first == "> run Rooms BookRoom bookedBy=Grace roomNumber=15")
      let unknown = try await host.run(app: "Rooms", intent: "BookRoom", parameters: ["floor": "2"])
      #expect(unknown.status == .usage)
      #expect(unknown.errorMessage?.contains("floor") == true)
    }
  }

  /// OpenDoorIntent is restricted while locked: refused without the passcode (nothing counted), refused and counted
  /// with a wrong one, run with the right one, which unlocks the device. Booking is not restricted (the control).
  @Test func theDoorOpensOnALockedDeviceOnlyWithThePasscode() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      #expect(try await host.say("Book room 12 for Ada with Rooms").isSuccess)
      try await host.setPasscode("2468")
      try await host.lock()
      #expect(try await host.deviceStatus() == DeviceLockStatus(isLocked: true, hasPasscode: true, failedAttempts: 0))

      let refused = try await host.say("Open the door of room 12 with Rooms")
      #expect(refused.status == .refused)
      #expect(refused.explanations == ["You need to unlock your device first."], "\(refused.transcript)")
      #expect(refused.questions == ["Passcode"])
      #expect(refused.errorMessage?.contains("IntentsRestrictedWhileLocked") == true, "\(refused.transcript)")
      #expect(try await host.deviceStatus().failedAttempts == 0)

      let wrong = try await host.say("Open the door of room 12 with Rooms", passcode: "1111")
      #expect(wrong.status == .refused)
      #expect(wrong.errorMessage?.contains("wrong passcode") == true, "\(wrong.transcript)")
      #expect(!wrong.transcript.description.contains("1111"))
      #expect(try await host.deviceStatus() == DeviceLockStatus(isLocked: true, hasPasscode: true, failedAttempts: 1))

      let control = try await host.say("Book room 13 for Grace with Rooms")
      #expect(control.status == .success && control.questions.isEmpty)

      let opened = try await host.say("Open the door of room 12 with Rooms", passcode: "2468")
      #expect(opened.status == .success, "\(opened.transcript)")
      #expect(opened.intent == "OpenDoorIntent")
      #expect(opened.dialog.last == "The door of room 12 is open.")
      #expect(!opened.transcript.description.contains("2468"))
      #expect(try await host.deviceStatus() == DeviceLockStatus(isLocked: false, hasPasscode: true, failedAttempts: 0))
    }
  }
}
