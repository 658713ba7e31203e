import Foundation
import TestSupport
import Testing

/// A temporary host home with the example Rooms app installed through `assistant install`.
struct HostFixture {
  let directory: TemporaryDirectory
  var home: String { directory.file("home").path }
  var groups: String { directory.file("groups").path }

  init() throws {
    directory = try TemporaryDirectory("intenthost-e2e")
  }

  /// Runs `assistant --home HOME` with `arguments`, the groups folder in `ASSISTANT_APP_GROUPS` and `extra` in its
  /// environment. Waits off the cooperative pool (`runCommand`); `onStart` gets the host's pid and must not block.
  func assistant(
    _ arguments: [String], input: String? = nil, environment extra: [String: String] = [:],
    onStart: (@Sendable (pid_t) -> Void)? = nil
  ) async throws -> CommandResult {
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = groups
    environment.merge(extra) { _, new in new }
    return try await runCommand(
      PackagePaths.executable("assistant"), ["--home", home] + arguments, environment: environment, input: input,
      onStart: onStart)
  }

  /// Assembles the example Rooms.app and installs it; waits off the cooperative pool.
  func installRooms() async throws {
    let app = try await TestBundles.rooms(in: directory.file("bundles"))
    let result = try await assistant(["install", app.path])
    #expect(result.code == 0, "\(result)")
  }
}

@Suite(.serialized, .tags(.endToEnd))
struct RoomsEndToEndTests {
  @Test func bookDoubleBookAndCancel() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()

    let booked = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(booked.code == 0, "\(booked)")
    #expect(booked.stdout == "Room 12 is now booked by Ada.\n" + "[RoomsUI]\n  Room 12\n  Status: Booked by Ada\n")

    let again = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=12", "bookedBy=Grace"])
    #expect(again.code == 1, "\(again)")
    #expect(again.stdout.contains("room 12 is already booked by Ada"))

    let stranger = try await host.assistant(["Cancel room 12 for Grace with Rooms"])
    #expect(stranger.code == 1, "\(stranger)")
    #expect(stranger.stdout.contains("room 12 is booked by Ada, not by you"))

    let shown = try await host.assistant(["open", "Rooms", "--", "show", "12"])
    #expect(shown.code == 0)
    #expect(shown.stdout.hasPrefix("Room 12 is booked by Ada"))

    let cancelled = try await host.assistant(["Cancel room 12 for Ada with Rooms"])
    #expect(cancelled.code == 0, "\(cancelled)")
    #expect(
      cancelled.stdout == "The booking of room 12 by Ada is cancelled.\n"
        + "[RoomsUI]\n  Room 12\n  Status: Free (Ada's booking cancelled)\n")

    let free = try await host.assistant(["open", "Rooms", "--", "show", "12"])
    #expect(free.stdout == "Room 12 is free.\n")
  }

  @Test func appAndExtensionShareTheAppGroup() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let app = try await host.assistant(["open", "Rooms", "--", "book", "7", "--by", "Linus"])
    #expect(app.code == 0, "\(app)")
    // The extension sees the app's booking, through the shared JSON document.
    let clash = try await host.assistant(["--json", "run", "Rooms", "BookRoomIntent", "roomNumber=7", "bookedBy=Ada"])
    #expect(clash.code == 1)
    let json = try JSONSerialization.jsonObject(with: Data(clash.stdout.utf8)) as? [String: Any]
    #expect(json?["code"] as? String == "failure")
    #expect(json?["success"] as? Bool == false)
    #expect((json?["parameters"] as? [String: Any])?["roomNumber"] as? Int == 7)
    let document = try await host.assistant([
      "defaults", "read", "group.com.example.rooms", "bookings", "--document", "bookings.json",
    ])
    #expect(document.code == 0, "\(document)")
    #expect(document.stdout.contains("\"bookedBy\" : \"Linus\""), "\(document)")
    let list = try await host.assistant(["open", "Rooms", "--", "list"])
    #expect(list.stdout.contains("Room 7: booked by Linus"))
    #expect(list.stdout.contains("Free: rooms 1-6, 8-300"))
  }

  @Test func missingValueIsAskedOrRefused() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let refused = try await host.assistant(["Book room 3 with Rooms"])
    #expect(refused.code == 75, "\(refused)")
    #expect(refused.stderr.contains("Booked by"))
    let answered = try await host.assistant(["--answer", "Grace", "Book room 3 with Rooms"])
    #expect(answered.code == 0, "\(answered)")
    #expect(answered.stderr.contains("Who is the booking for? Grace\n"), "\(answered)")  // no terminal in tests: stderr
    #expect(answered.stdout.contains("Room 3 is now booked by Grace."))
  }

  /// A name is booked as written: little words, an emoji and a bidi control kept, the control shown escaped; a
  /// one-letter name ("A") is a name. The control: a plain name is shown as it is.
  @Test(arguments: [
    ("book room 33 for A\u{202E}B with Rooms", "Room 33 is now booked by A\\u{202E}B."),
    ("book room 31 for Zoë 🎉 with Rooms", "Room 31 is now booked by Zoë 🎉."),
    ("book room 39 for A with Rooms", "Room 39 is now booked by A."),
    ("book room 40 for The Ada with Rooms", "Room 40 is now booked by The Ada."),
    ("book room 41 for Ada with Rooms", "Room 41 is now booked by Ada."),
  ])
  func aNameIsBookedAsWritten(_ utterance: String, _ answer: String) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let booked = try await host.assistant([utterance])
    #expect(booked.code == 0, "\(booked)")
    #expect(booked.stdout.split(separator: "\n").first.map(String.init) == answer, "\(booked)")
    #expect(!booked.stdout.contains("\u{202E}"), "\(booked)")
  }

  @Test func theLocaleChoosesTheTranslatedStrings() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let french = try await host.assistant(["--locale", "fr_FR", "--answer", "Ada", "Book room 3 with Rooms"])
    #expect(french.code == 0, "\(french)")
    #expect(french.stderr.contains("Pour qui est la réservation ? Ada\n"), "\(french)")
    #expect(french.stdout.hasPrefix("La salle 3 est maintenant réservée par Ada.\n"), "\(french)")
    let list = try await host.assistant(["--locale", "fr", "list"])
    #expect(list.stdout.contains("BookRoomIntent (roomNumber, bookedBy, isCancellationOfBooking): Réserver une salle"))
    // Control: a locale without a translation falls back to the definition's own text.
    let german = try await host.assistant(["--locale", "de_DE", "Cancel room 3 for Ada with Rooms"])
    #expect(german.stdout.hasPrefix("The booking of room 3 by Ada is cancelled.\n"), "\(german)")
  }

  @Test func unsupportedValueIsExplainedAndAskedAgain() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant([
      "--answer", "21", "run", "Rooms", "BookRoom", "roomNumber=999", "bookedBy=Ada",
    ])
    #expect(result.code == 0, "\(result)")
    // Why the answer was not taken belongs to the question: on the terminal (stderr here), not in the dialog.
    #expect(
      result.stderr.contains("There is no such room: rooms are numbered 1 to 300.\nWhich room? 21\n"), "\(result)")
    #expect(
      result.stdout == "Room 21 is now booked by Ada.\n[RoomsUI]\n  Room 21\n  Status: Booked by Ada\n", "\(result)")
  }

  @Test func usageAndMatchingErrors() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    #expect(try await host.assistant(["run", "Nope", "BookRoom"]).code == 69)
    #expect(try await host.assistant(["run", "Rooms", "Fly"]).code == 69)
    #expect(try await host.assistant(["Order a pizza with Rooms"]).code == 69)
    let badValue = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=twelve-ish"])
    #expect(badValue.code == 64)
    #expect(badValue.stderr.contains("roomNumber=twelve-ish"))
    #expect(try await host.assistant(["run", "Rooms", "BookRoom", "floor=2"]).code == 64)
    #expect(try await host.assistant(["--bogus"]).code == 64)
    let list = try await host.assistant(["list"])
    #expect(list.stdout.contains("BookRoomIntent (roomNumber, bookedBy, isCancellationOfBooking)"))
  }

  @Test func theReadmeCommandWorksFromTheRepository() async throws {
    // Scripts/assistant is what the README tells a newcomer to run.
    let scratch = try TemporaryDirectory("intenthost-readme")
    defer { scratch.remove() }
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_HOME"] = scratch.file("home").path
    environment["ASSISTANT_APP_GROUPS"] = scratch.file("groups").path
    environment["INTENTHOST_NO_BUILD"] = "1"  // swift test holds the build lock; Scripts/test built everything
    let result = try await runCommand(
      "/bin/bash",
      [PackagePaths.root.appendingPathComponent("Scripts/assistant").path, "Book room 12 for Ada with Rooms"],
      environment: environment)
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == "Room 12 is now booked by Ada.\n" + "[RoomsUI]\n  Room 12\n  Status: Booked by Ada\n")
  }
}
