import Foundation
import TestSupport
import Testing

/// AscentUI's workout card through the real binaries (the assistant, the Ascent app, AscentIntents and AscentUI): the
/// card after each workout intent is handled, after a refusal, and at the confirmation step.
///
/// The dialog line between the cards belongs to the host (its system-intent dialogs), so these tests compare the
/// cards, not the dialog. The values are given with `run`, not by voice.
@Suite(.serialized, .tags(.endToEnd))
struct AscentCardEndToEndTests {
  /// Assembles the example bundles and installs Ascent.app.
  func installAscent(_ host: HostFixture) async throws {
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
      .deletingLastPathComponent().appendingPathComponent("Ascent.app")
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
  }

  /// The card as the host prints it on a terminal.
  func card(_ title: String, goal: String? = nil, location: String? = nil, state: String) -> String {
    "[AscentUI]\n  \(title)\n" + (goal.map { "  Goal: \($0)\n" } ?? "") + (location.map { "  Location: \($0)\n" } ?? "")
      + "  State: \(state)\n"
  }

  /// Start, pause, resume and end: after each the card shows the workout the app answered with (a pause names no
  /// workout, yet its card shows the wall climb and its goal) and what was done.
  @Test func theCardAfterEachWorkoutIntentShowsTheWorkoutAndWhatWasDone() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await installAscent(host)
    let started = try await host.assistant([
      "run", "Ascent", "StartWorkout", "workoutName=wall climb", "goalValue=30", "--answer", "yes",
    ])
    #expect(started.code == 0, "\(started)")
    #expect(started.stdout.hasSuffix(card("Wall climb", goal: "30 minutes", location: "Not said", state: "Started")))
    // Pausing, resuming and ending have no confirmation step: their card is drawn once, after handling.
    for (intent, state) in [("PauseWorkout", "Paused"), ("ResumeWorkout", "Resumed"), ("EndWorkout", "Ended")] {
      let result = try await host.assistant(["run", "Ascent", intent])
      #expect(result.code == 0, "\(result)")
      #expect(result.stdout.components(separatedBy: "[AscentUI]").count == 2 && result.stderr == "", "\(result)")
      #expect(
        result.stdout.hasSuffix(card("Wall climb", goal: "30 minutes", location: "Not said", state: state)),
        "\(result)")
    }
    // An open-ended boulder climb, cancelled; --json returns the card as the run's view.
    let boulder = try await host.assistant([
      "--json", "run", "Ascent", "StartWorkout", "workoutName=boulder climb", "isOpenEnded=true", "--answer", "yes",
    ])
    #expect(boulder.code == 0, "\(boulder)")
    let object = try JSONSerialization.jsonObject(with: Data(boulder.stdout.utf8)) as? [String: Any]
    let views = object?["views"] as? [[String: Any]] ?? []
    #expect(views.count == 2, "\(boulder)")  // at the confirmation step, and after handling
    let snippet = try JSONSerialization.data(withJSONObject: views.last?["snippet"] ?? [:], options: .sortedKeys)
    #expect(
      String(decoding: snippet, as: UTF8.self)
        == #"{"stack":[{"text":"Boulder climb"},{"row":{"label":"Goal","value":"Open ended"}},"#
        + #"{"row":{"label":"Location","value":"Not said"}},{"row":{"label":"State","value":"Started"}}]}"#)
    let cancelled = try await host.assistant(["run", "Ascent", "CancelWorkout"])
    #expect(cancelled.code == 0, "\(cancelled)")
    #expect(
      cancelled.stdout.hasSuffix(card("Boulder climb", goal: "Open ended", location: "Not said", state: "Cancelled")))
  }

  /// A refusal is drawn with its reason: a pause with nothing going on names no workout (the title and the state
  /// only); a second start shows the workout asked for, not the one going on.
  @Test func aRefusalIsDrawnWithItsReason() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await installAscent(host)
    let paused = try await host.assistant(["run", "Ascent", "PauseWorkout"])
    #expect(paused.code == 1, "\(paused)")
    #expect(paused.stdout.hasSuffix(card("Workout", state: "Not paused: no workout is going on")), "\(paused)")
    let started = try await host.assistant([
      "run", "Ascent", "StartWorkout", "workoutName=wall climb", "--answer", "yes",
    ])
    #expect(started.code == 0, "\(started)")
    let again = try await host.assistant(["run", "Ascent", "StartWorkout", "workoutName=boulder climb"])
    #expect(again.code == 1, "\(again)")
    #expect(
      again.stdout.hasSuffix(
        card(
          "Boulder climb", goal: "None", location: "Not said", state: "Not started: a wall climb is already going on")),
      "\(again)")
  }

  /// Siri confirms a start (SystemIntent.userConfirmationRequired): the card is drawn at the confirmation step
  /// ("Ready to start") before the question, then again after
  /// handling ("Started"); the workout is in the history.
  @Test func theCardIsDrawnAtTheConfirmationStepAndAfterHandling() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await installAscent(host)
    let result = try await host.assistant([
      "--answer", "yes", "run", "Ascent", "StartWorkout", "workoutName=wall climb", "goalValue=30",
    ])
    #expect(result.code == 0, "\(result)")
    #expect(result.stderr == "Ready to start your wall climb workout in Ascent? yes\n", "\(result)")
    let ready = card("Wall climb", goal: "30 minutes", location: "Not said", state: "Ready to start")
    let started = card("Wall climb", goal: "30 minutes", location: "Not said", state: "Started")
    #expect(result.stdout.hasPrefix(ready) && result.stdout.hasSuffix(started), "\(result)")
    let history = try await host.assistant(["open", "Ascent", "--", "current"])
    #expect(history.stdout.contains("wall climb, goal 30 minutes: active"), "\(history)")
  }

  /// Refused at the confirmation step: the card drawn at it is the only drawing, nothing is handled (the app is not
  /// launched: the history stays empty).
  @Test func refusedAtTheConfirmationStepTheCardIsDrawnAndNothingHandled() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await installAscent(host)
    let result = try await host.assistant([
      "--answer", "no", "run", "Ascent", "StartWorkout", "workoutName=boulder climb",
    ])
    #expect(result.code == 1, "\(result)")
    #expect(result.stderr == "Ready to start your boulder climb workout in Ascent? no\n", "\(result)")
    #expect(
      result.stdout
        == card("Boulder climb", goal: "None", location: "Not said", state: "Ready to start") + "OK, I won't.\n",
      "\(result)")
    let history = try await host.assistant(["open", "Ascent", "--", "history"])
    #expect(history.stdout == "No workouts yet.\n", "\(history)")
  }
}
