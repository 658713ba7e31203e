import Foundation
import TestSupport
import Testing

/// Intents UI extensions: one configureView per parameter set with a ledger, size limits, the ui deadline, and
/// faults that leave the intent's result alone.
@Suite(.serialized, .tags(.endToEnd))
struct UIExtensionTests {
  /// Installs a fixture with the UI extension `ui` and asks it to handle Ping; waits off the cooperative pool.
  func run(ui: String, _ extra: [String] = [], values: [String] = ["value=x", "note=y"]) async throws -> (
    CommandResult, HostFixture
  ) {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: "Polite", uiExtensionName: ui, in: host.directory.file("bundles"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return (try await host.assistant(extra + ["run", "Fixture", "Ping"] + values), host)
  }

  @Test func eachParameterGetsAViewUnlessAlreadyShown() async throws {
    // The fixture view shows only what it is asked: the header (the empty set), then one call per parameter.
    let (result, host) = try await run(ui: "UIOneAtATime", ["--json"])
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let views = object?["views"] as? [[String: Any]] ?? []
    #expect(views.map { $0["parameters"] as? [String] ?? [] } == [[], ["value"], ["note"]], "\(result)")
    // Rooms' card shows all three parameters at once: the ledger means one call.
    let rooms = try HostFixture()
    defer { rooms.directory.remove() }
    try await rooms.installRooms()
    let booked = try await rooms.assistant(["--json", "run", "Rooms", "BookRoom", "roomNumber=9", "bookedBy=Ada"])
    let roomViews =
      (try JSONSerialization.jsonObject(with: Data(booked.stdout.utf8)) as? [String: Any])?["views"]
      as? [[String: Any]] ?? []
    #expect(roomViews.count == 1, "\(booked)")
    #expect(booked.stderr.contains("Room 9"), "\(booked)")  // with --json the card goes to stderr with the dialog
  }

  @Test func aCrashingUIExtensionLeavesTheDefaultUI() async throws {
    let (result, host) = try await run(ui: "UICrash")
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == "Got pong.\n", "\(result)")
    #expect(
      result.stderr.contains(
        "UICrash (com.example.fixture.UICrash) crashed with SIGSEGV during configureView of PingIntent (the header)"),
      "\(result)")
    #expect(result.stderr.contains("Siri's default UI is shown instead"))
  }

  @Test func aHangingUIExtensionMissesTheUIDeadline() async throws {
    let (result, host) = try await run(ui: "UIHang", ["--deadline", "ui=0.5"])
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(
      result.stderr.contains("did not answer configureView of PingIntent (the header) within 0.5 s (the ui deadline"),
      "\(result)")
    #expect(livingProcesses(named: "UIHang", under: host.directory.path).isEmpty)
  }

  @Test func anOversizedViewIsClampedAndReported() async throws {
    let (result, host) = try await run(ui: "UIOversize", values: ["value=x"])
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(
      result.stderr.contains("asked for a 5000×5000 view, outside 0×0–398×600 points; it was clamped to 398×600"),
      "\(result)")
    #expect(result.stdout.contains("[UIOversize]\n  huge"), "\(result)")
  }

  /// RoomsUI draws its card in the user's language: the locale the host gives every extension at `initialize`.
  @Test func roomsDrawsItsCardInTheUsersLanguage() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let booked = try await host.assistant(["--locale", "fr_FR", "--answer", "Ada", "Book room 3 with Rooms"])
    #expect(booked.code == 0, "\(booked)")
    #expect(
      booked.stdout
        == "La salle 3 est maintenant réservée par Ada.\n[RoomsUI]\n  Salle 3\n  Statut: Réservée par Ada\n",
      "\(booked)")
    let refused = try await host.assistant([
      "--locale", "fr_FR", "run", "Rooms", "BookRoom", "roomNumber=3", "bookedBy=Grace",
    ])
    #expect(refused.code == 1, "\(refused)")
    #expect(refused.stdout.hasSuffix("[RoomsUI]\n  Salle 3\n  Statut: Non réservée pour Grace\n"), "\(refused)")
    let stranger = try await host.assistant(["--locale", "fr_FR", "Cancel room 3 for Grace with Rooms"])
    #expect(stranger.code == 1, "\(stranger)")
    #expect(
      stranger.stdout.hasSuffix("[RoomsUI]\n  Salle 3\n  Statut: Inchangée (annulation refusée pour Grace)\n"),
      "\(stranger)")
    let cancelled = try await host.assistant(["--locale", "fr", "Cancel room 3 for Ada with Rooms"])
    #expect(cancelled.code == 0, "\(cancelled)")
    #expect(
      cancelled.stdout.hasSuffix("[RoomsUI]\n  Salle 3\n  Statut: Libre (réservation de Ada annulée)\n"), "\(cancelled)"
    )
    // Control: another language gets the English card, as it gets the definition's own English dialog.
    let german = try await host.assistant(["--locale", "de_DE", "Book room 4 for Ada with Rooms"])
    #expect(german.code == 0, "\(german)")
    #expect(
      german.stdout == "Room 4 is now booked by Ada.\n[RoomsUI]\n  Room 4\n  Status: Booked by Ada\n", "\(german)")
  }
}
