import Foundation
import TestSupport
import Testing

/// Rooms' restricted intent through the real binaries: OpenDoorIntent is in RoomsIntents' IntentsRestrictedWhileLocked
/// (opening a door is physical access), BookRoomIntent is not. On a locked device the door needs the passcode, and
/// booking does not (the control: the rule is per intent).
@Suite(.serialized, .tags(.endToEnd))
struct OpenDoorEndToEndTests {
  static let rule = "OpenDoorIntent is listed in IntentsRestrictedWhileLocked of RoomsIntents.appex/Info.plist"
  static let opened = "The door of room 12 is open.\n"

  struct Status: Decodable {
    var locked: Bool
    var failedAttempts: Int
  }

  func status(_ host: HostFixture) async throws -> Status {
    let result = try await host.assistant(["status", "--json"])
    #expect(result.code == 0, "\(result)")
    return try JSONDecoder().decode(Status.self, from: Data(result.stdout.utf8))
  }

  @Test func theDoorOfABookedRoomOpensOnlyOnAnUnlockedDevice() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await host.assistant(["Book room 12 for Ada with Rooms"]).code == 0)

    // Unlocked: it opens, with the definition's dialog and no card (RoomsUI draws bookings only).
    let unlocked = try await host.assistant(["Open the door of room 12 with Rooms"])
    #expect(unlocked.code == 0, "\(unlocked)")
    #expect(unlocked.stdout == Self.opened, "\(unlocked)")
    // The app shows it, from the shared bookings document.
    let list = try await host.assistant(["open", "Rooms", "--", "list"])
    #expect(list.stdout.hasPrefix("Room 12: booked by Ada, door opened at 20"), "\(list)")
    let shown = try await host.assistant(["open", "Rooms", "--", "show", "12"])
    #expect(shown.stdout.contains("\nIts door was opened at 20"), "\(shown)")

    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
    #expect(try await host.assistant(["lock"]).code == 0)

    // Locked, no terminal and no --passcode-stdin: refused (77), naming the rule; nothing is counted.
    let unasked = try await host.assistant(["Open the door of room 12 with Rooms"])
    #expect(unasked.code == 77, "\(unasked)")
    #expect(unasked.stdout == "", "\(unasked)")  // the question's line is on the terminal (stderr here)
    #expect(unasked.stderr.contains("You need to unlock your device first.\n"), "\(unasked)")
    #expect(unasked.stderr.contains("OpenDoorIntent was not run: the device is locked and \(Self.rule)"), "\(unasked)")
    #expect(unasked.stderr.contains("--passcode-stdin"), "\(unasked)")
    // `run` comes under the same rule as the utterance.
    let run = try await host.assistant(["run", "Rooms", "OpenDoor", "roomNumber=12"])
    #expect(run.code == 77, "\(run)")
    #expect(run.stderr.contains(Self.rule), "\(run)")
    var state = try await status(host)
    #expect(state.locked && state.failedAttempts == 0)

    // A wrong passcode: refused, counted, still locked.
    let wrong = try await host.assistant(
      ["--passcode-stdin", "Open the door of room 12 with Rooms"], input: "1111\n")
    #expect(wrong.code == 77, "\(wrong)")
    #expect(wrong.stderr.contains(Self.rule) && wrong.stderr.contains("wrong passcode"), "\(wrong)")
    #expect(!wrong.stdout.contains(Self.opened), "\(wrong)")
    state = try await status(host)
    #expect(state.locked && state.failedAttempts == 1)

    // The control: booking is not restricted, and runs on the locked device without unlocking it.
    let booked = try await host.assistant(["Book room 13 for Grace with Rooms"])
    #expect(booked.code == 0, "\(booked)")
    #expect(booked.stdout.hasPrefix("Room 13 is now booked by Grace.\n"), "\(booked)")
    #expect(!booked.stdout.contains("unlock"), "\(booked)")
    #expect(try await status(host).locked)

    // The right passcode unlocks the device, as on iOS, and the door opens.
    let right = try await host.assistant(
      ["--passcode-stdin", "Open the door of room 12 with Rooms"], input: "2468\n")
    #expect(right.code == 0, "\(right)")
    #expect(right.stdout == Self.opened, "\(right)")
    #expect(right.stderr.contains("You need to unlock your device first.\n"), "\(right)")
    state = try await status(host)
    #expect(!state.locked && state.failedAttempts == 0)

    // Unlocked, the door of a free room stays shut: the failure dialog, exit 1.
    let free = try await host.assistant(["Open the door of room 5 with Rooms"])
    #expect(free.code == 1, "\(free)")
    #expect(
      free.stdout == "Sorry, the door of room 5 stays shut: room 5 is free, and only a booked room's door opens.\n",
      "\(free)")
    let five = try await host.assistant(["open", "Rooms", "--", "show", "5"])
    #expect(five.stdout == "Room 5 is free.\n", "\(five)")
  }

  /// The extension resolves the room like BookRoom: a missing one is asked for with the definition's prompt, an
  /// unknown one is explained and asked again.
  @Test func theRoomIsAskedForAndChecked() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await host.assistant(["open", "Rooms", "--", "book", "21", "--by", "Ada"]).code == 0)
    let asked = try await host.assistant(["--answer", "999", "--answer", "21", "Open a door with Rooms"])
    #expect(asked.code == 0, "\(asked)")
    #expect(
      asked.stderr.contains("Which room? 999\nThere is no such room: rooms are numbered 1 to 300.\nWhich room? 21\n"),
      "\(asked)")
    #expect(asked.stdout == "The door of room 21 is open.\n", "\(asked)")
    let french = try await host.assistant(["--locale", "fr_FR", "run", "Rooms", "OpenDoor", "roomNumber=21"])
    #expect(french.stdout == "La porte de la salle 21 est ouverte.\n", "\(french)")
  }
}
