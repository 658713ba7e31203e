import Foundation
import TestSupport
import Testing

/// AscentUI's workout card through the real binaries (the assistant, the Ascent app, AscentIntents and AscentUI): the
/// card after each workout intent is handled, after a refusal, and at the confirmation step.
///
/// The dialog line between the cards belongs to the host (its system-intent dialogs), so these tests compare the
/// cards, not the dialog. The values are given with `run`, not by voice.
@Suite(.serialized)
struct AscentCardEndToEndTests {
  /// Assembles the example bundles and installs Ascent.app, after `customise` has changed it.
  func installAscent(_ host: HostFixture, customise: (URL) throws -> Void = { _ in }) async throws {
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
      .deletingLastPathComponent().appendingPathComponent("Ascent.app")
    try customise(app)
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
  }

  /// The card as the host prints it on a terminal.
  func card(_ title: String, goal: String? = nil, location: String? = nil, state: String) -> String {
    "[AscentUI]\n  \(title)\n" + (goal.map { "  Goal: \($0)\n" } ?? "") + (location.map { "  Location: \($0)\n" } ?? "")
      + "  State: \(state)\n"
  }

  /// Ascent's Intents.intentdefinition customising INStartWorkoutIntent with Siri's confirmation step
  /// (`INIntentUserConfirmationRequired`): a definition can add the step that Siri does not take for workouts.
  func addConfirmationStep(_ app: URL) throws {
    func parameter(_ name: String, _ type: String) -> [String: Any] {
      ["INIntentParameterName": name, "INIntentParameterType": type, "INIntentParameterSupportsResolution": true]
    }
    try writePlist(
      [
        "INIntentDefinitionModelVersion": "1.2", "INEnums": [Any](),
        "INIntents": [
          [
            "INIntentName": "StartWorkout", "INIntentClassName": "INStartWorkoutIntent", "INIntentType": "System",
            "INIntentCategory": "generic", "INIntentTitle": "Start Workout", "INIntentUserConfirmationRequired": true,
            "INIntentParameters": [
              parameter("workoutName", "String"), parameter("goalValue", "Decimal"),
              parameter("isOpenEnded", "Boolean"),
            ],
          ] as [String: Any]
        ],
      ], to: app.appendingPathComponent("Base.lproj/Intents.intentdefinition"))
  }

  /// Start, pause, resume and end: after each the card shows the workout the app answered with (a pause names no
  /// workout, yet its card shows the wall climb and its goal) and what was done.
  @Test func theCardAfterEachWorkoutIntentShowsTheWorkoutAndWhatWasDone() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await installAscent(host)
    let started = try await host.assistant(["run", "Ascent", "StartWorkout", "workoutName=wall climb", "goalValue=30"])
    #expect(started.code == 0, "\(started)")
    #expect(started.stdout.hasSuffix(card("Wall climb", goal: "30 minutes", location: "Not said", state: "Started")))
    // The card is drawn once, after handling: workouts have no confirmation step.
    #expect(!started.stdout.contains("Ready to start") && started.stderr == "", "\(started)")
    for (intent, state) in [("PauseWorkout", "Paused"), ("ResumeWorkout", "Resumed"), ("EndWorkout", "Ended")] {
      let result = try await host.assistant(["run", "Ascent", intent])
      #expect(result.code == 0, "\(result)")
      #expect(
        result.stdout.hasSuffix(card("Wall climb", goal: "30 minutes", location: "Not said", state: state)),
        "\(result)")
    }
    // An open-ended boulder climb, cancelled; --json returns the card as the run's view.
    let boulder = try await host.assistant([
      "--json", "run", "Ascent", "StartWorkout", "workoutName=boulder climb", "isOpenEnded=true",
    ])
    #expect(boulder.code == 0, "\(boulder)")
    let object = try JSONSerialization.jsonObject(with: Data(boulder.stdout.utf8)) as? [String: Any]
    let views = object?["views"] as? [[String: Any]] ?? []
    #expect(views.count == 1, "\(boulder)")
    let snippet = try JSONSerialization.data(withJSONObject: views.first?["snippet"] ?? [:], options: .sortedKeys)
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
    let started = try await host.assistant(["run", "Ascent", "StartWorkout", "workoutName=wall climb"])
    #expect(started.code == 0, "\(started)")
    let again = try await host.assistant(["run", "Ascent", "StartWorkout", "workoutName=boulder climb"])
    #expect(again.code == 1, "\(again)")
    #expect(
      again.stdout.hasSuffix(
        card(
          "Boulder climb", goal: "None", location: "Not said", state: "Not started: a wall climb is already going on")),
      "\(again)")
  }

  /// With the confirmation step, the card is drawn at it ("Ready to start") before the question, then again after
  /// handling ("Started"); the workout is in the history.
  @Test func theCardIsDrawnAtTheConfirmationStepAndAfterHandling() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await installAscent(host, customise: addConfirmationStep)
    let result = try await host.assistant([
      "--answer", "yes", "run", "Ascent", "StartWorkout", "workoutName=wall climb", "goalValue=30",
    ])
    #expect(result.code == 0, "\(result)")
    #expect(result.stderr == "Do you want to start workout? yes\n", "\(result)")
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
    try await installAscent(host, customise: addConfirmationStep)
    let result = try await host.assistant([
      "--answer", "no", "run", "Ascent", "StartWorkout", "workoutName=boulder climb",
    ])
    #expect(result.code == 1, "\(result)")
    #expect(result.stderr == "Do you want to start workout? no\n", "\(result)")
    #expect(
      result.stdout
        == card("Boulder climb", goal: "None", location: "Not said", state: "Ready to start") + "OK, I won't.\n",
      "\(result)")
    let history = try await host.assistant(["open", "Ascent", "--", "history"])
    #expect(history.stdout == "No workouts yet.\n", "\(history)")
  }
}
