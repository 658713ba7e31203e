import Foundation
import TestSupport
import Testing

/// Ascent's answers, through the real binaries (the assistant, the AscentIntents extension and the Ascent app, which
/// handles every workout intent in the background): Siri's sentence for each workout intent's failure code, its
/// exit status and `--json`, and the history the extension and the app share.
@Suite(.serialized, .tags(.endToEnd))
struct AscentDialogEndToEndTests {
  /// A fresh home with the example Ascent.app installed (assembled beside Rooms by `assistant build`).
  static func ascent() async throws -> HostFixture {
    let host = try HostFixture()
    let bundles = host.directory.file("bundles")
    _ = try await TestBundles.rooms(in: bundles)
    let installed = try await host.assistant(["install", bundles.appendingPathComponent("Ascent.app").path])
    #expect(installed.code == 0, "\(installed)")
    return host
  }

  /// `assistant run Ascent INTENT ARGUMENTS...`: its exit status, and that it said `dialog` (then AscentUI's card, or
  /// nothing) and asked nothing but `asked`, the confirmation step's question of a start, answered yes.
  static func expect(
    _ host: HostFixture, _ arguments: [String], says dialog: String, exits code: Int32, asked: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let answers = asked == nil ? [] : ["--answer", "yes"]
    let result = try await host.assistant(["run", "Ascent"] + arguments + answers)
    #expect(result.code == code, "\(arguments): \(result)", sourceLocation: sourceLocation)
    // What is said: every line but AscentUI's cards (a header and indented rows).
    let said = result.stdout.split(separator: "\n").filter { $0 != "[AscentUI]" && !$0.hasPrefix("  ") }
    #expect(said == [Substring(dialog)], "\(arguments): \(result)", sourceLocation: sourceLocation)
    #expect(!result.stdout.contains("reason"), "\(arguments): \(result)", sourceLocation: sourceLocation)
    // The app's reason is not said, and nothing else is asked.
    #expect(
      result.stderr == (asked.map { $0 + " yes\n" } ?? ""), "\(arguments): \(result)", sourceLocation: sourceLocation)
  }

  @Test func eachWorkoutIntentFailsWithNothingGoingOn() async throws {
    let host = try await Self.ascent()
    defer { host.directory.remove() }
    try await Self.expect(
      host, ["PauseWorkout"], says: "There's no active workout to pause in Ascent.", exits: 1)
    try await Self.expect(host, ["ResumeWorkout"], says: "There's no paused workout to resume in Ascent.", exits: 1)
    try await Self.expect(host, ["EndWorkout"], says: "There's no workout in progress to end in Ascent.", exits: 1)
    try await Self.expect(
      host, ["CancelWorkout"], says: "There's no workout in progress to cancel in Ascent.", exits: 1)
    let history = try await host.assistant(["open", "Ascent", "--", "history"])
    #expect(history.stdout == "No workouts yet.\n", "\(history)")
  }

  /// A workout's life, each step and each refusal on the way: start, start again, resume while active, pause, pause
  /// again, resume, end, end again.
  @Test func aWorkoutsLifeAndItsRefusals() async throws {
    let host = try await Self.ascent()
    defer { host.directory.remove() }
    try await Self.expect(
      host, ["StartWorkout", "workoutName=wall climb"], says: "Starting your wall climb workout in Ascent.", exits: 0,
      asked: "Ready to start your wall climb workout in Ascent?")
    try await Self.expect(
      host, ["StartWorkout", "workoutName=boulder climb"], says: "You already have a workout going in Ascent.",
      exits: 1)
    try await Self.expect(host, ["ResumeWorkout"], says: "There's no paused workout to resume in Ascent.", exits: 1)
    try await Self.expect(host, ["PauseWorkout"], says: "Pausing your wall climb workout in Ascent.", exits: 0)
    try await Self.expect(
      host, ["PauseWorkout"], says: "There's no active workout to pause in Ascent.", exits: 1)
    try await Self.expect(host, ["ResumeWorkout"], says: "Resuming your wall climb workout in Ascent.", exits: 0)
    try await Self.expect(host, ["EndWorkout"], says: "Ending your wall climb workout in Ascent.", exits: 0)
    try await Self.expect(host, ["EndWorkout"], says: "There's no workout in progress to end in Ascent.", exits: 1)
    try await Self.expect(
      host, ["StartWorkout", "workoutName=boulder climb"], says: "Starting your boulder climb workout in Ascent.",
      exits: 0, asked: "Ready to start your boulder climb workout in Ascent?")
    try await Self.expect(host, ["CancelWorkout"], says: "Cancelling your boulder climb workout in Ascent.", exits: 0)
    let history = try await host.assistant(["open", "Ascent", "--", "history"])
    let states = history.stdout.split(separator: "\n").map { $0.split(separator: "  ").last ?? "" }
    #expect(states.count == 2, "\(history)")
    #expect(states.first?.hasPrefix("wall climb: ended at ") == true, "\(history)")
    #expect(states.last?.hasPrefix("boulder climb: cancelled at ") == true, "\(history)")
  }

  /// `--json` of a failure code: the existing fields (exit 1, `success` false, the code by name, Siri's sentence in
  /// `dialog` and `voiceDialog`), and the app's reason in `responseParameters`, where a success has the workout.
  @Test func aFailuresJSON() async throws {
    let host = try await Self.ascent()
    defer { host.directory.remove() }
    let paused = try await host.assistant(["--json", "run", "Ascent", "PauseWorkout"])
    #expect(paused.code == 1, "\(paused)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(paused.stdout.utf8)) as? [String: Any], "\(paused)")
    #expect(object["app"] as? String == "Ascent")
    #expect(object["intent"] as? String == "INPauseWorkoutIntent")
    #expect(object["code"] as? String == "failureNoMatchingWorkout")
    #expect(object["success"] as? Bool == false)
    #expect(object["dialog"] as? String == "There's no active workout to pause in Ascent.")
    #expect(object["voiceDialog"] as? String == "There's no active workout to pause in Ascent.")
    #expect((object["parameters"] as? [String: Any])?.isEmpty == true)
    #expect(object["responseParameters"] as? [String: String] == ["reason": "no workout is going on"])
    // The dialog goes to stderr under --json, with AscentUI's card; nothing else does.
    #expect(paused.stderr.hasPrefix("There's no active workout to pause in Ascent.\n[AscentUI]\n"), "\(paused)")

    let started = try await host.assistant(
      ["--json", "run", "Ascent", "StartWorkout", "workoutName=wall climb", "--answer", "yes"])
    #expect(started.code == 0, "\(started)")
    let success = try #require(
      try JSONSerialization.jsonObject(with: Data(started.stdout.utf8)) as? [String: Any], "\(started)")
    #expect(success["code"] as? String == "success")
    #expect(success["success"] as? Bool == true)
    #expect(success["dialog"] as? String == "Starting your wall climb workout in Ascent.")
    #expect((success["responseParameters"] as? [String: Any])?["workoutName"] as? String == "wall climb")
  }

  /// The lines of a `--record` transcript, as JSON objects.
  static func transcript(_ url: URL) throws -> [[String: Any]] {
    try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  /// The methods `assistant` sent to `peer`, in order.
  static func sent(_ lines: [[String: Any]], to peer: String) -> [String] {
    lines.filter { $0["kind"] as? String == "send" && $0["peer"] as? String == peer }.compactMap {
      ($0["message"] as? [String: Any])?["method"] as? String
    }
  }

  /// The response codes `peer` answered, in order.
  static func codes(_ lines: [[String: Any]], from peer: String) -> [String] {
    lines.filter { $0["kind"] as? String == "receive" && $0["peer"] as? String == peer }.compactMap {
      (($0["message"] as? [String: Any])?["result"] as? [String: Any])?["code"] as? String
    }
  }

  /// The history is shared: the app records the workout it starts (handleInApp), and the extension, a separate
  /// process, reads it in confirm and refuses a second start there, before anything is handled or the app is
  /// launched. Control: once the workout has ended, the extension confirms a start again.
  @Test func theExtensionRefusesASecondStartBecauseTheAppRecordedTheFirst() async throws {
    let host = try await Self.ascent()
    defer { host.directory.remove() }
    let first = host.directory.file("first.jsonl")
    let started = try await host.assistant(
      ["--record", first.path, "run", "Ascent", "StartWorkout", "workoutName=wall climb", "--answer", "yes"])
    #expect(started.code == 0, "\(started)")
    let firstLines = try Self.transcript(first)
    // The extension confirmed and handed over; the app handled it and recorded the workout.
    #expect(Self.codes(firstLines, from: "AscentIntents") == ["ready", "handleInApp"])
    #expect(Self.sent(firstLines, to: "Ascent").contains("intent/handle"))
    #expect(Self.codes(firstLines, from: "Ascent") == ["success"])
    let current = try await host.assistant(["open", "Ascent", "--", "current"])
    #expect(current.stdout.hasSuffix("  wall climb: active\n"), "\(current)")

    let second = host.directory.file("second.jsonl")
    let refused = try await host.assistant(
      ["--record", second.path, "run", "Ascent", "StartWorkout", "workoutName=boulder climb"])
    #expect(refused.code == 1, "\(refused)")
    #expect(refused.stdout.hasPrefix("You already have a workout going in Ascent.\n"), "\(refused)")
    let secondLines = try Self.transcript(second)
    #expect(Self.codes(secondLines, from: "AscentIntents") == ["failureOngoingWorkout"])
    #expect(!Self.sent(secondLines, to: "AscentIntents").contains("intent/handle"))
    #expect(Self.sent(secondLines, to: "Ascent").isEmpty, "the app was launched")

    // Control: after the end (recorded by the app), the extension confirms a new start.
    let ended = try await host.assistant(["run", "Ascent", "EndWorkout"])
    #expect(ended.code == 0, "\(ended)")
    let third = host.directory.file("third.jsonl")
    let again = try await host.assistant(
      ["--record", third.path, "run", "Ascent", "StartWorkout", "workoutName=boulder climb", "--answer", "yes"])
    #expect(again.code == 0, "\(again)")
    #expect(Self.codes(try Self.transcript(third), from: "AscentIntents") == ["ready", "handleInApp"])
  }
}
