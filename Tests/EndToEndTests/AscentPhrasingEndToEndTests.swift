import Foundation
import TestSupport
import Testing

/// The ways people vary the seed's workout phrases (review 15, item 2), said to the real binaries with `--json`: each
/// value reaches the AscentIntents extension in its own parameter, and the workout's name never takes the rest of the
/// phrase. Starting a workout is confirmed ("Ready to start ...?"): each start answers yes.
@Suite(.serialized, .tags(.endToEnd))
struct AscentPhrasingEndToEndTests {
  typealias Outcome = WorkoutOutcome

  @Test func valuesAroundTheWorkoutsName() async throws {
    let host = try await HostFixture.withAscent()
    defer { host.directory.remove() }

    func say(_ utterance: String, _ answers: String...) async throws -> (outcome: Outcome, stderr: String) {
      let result = try await host.assistant(["--json", utterance] + answers.flatMap { ["--answer", $0] })
      #expect(result.code == 0, "\(utterance): \(result)")
      return (try JSONDecoder().decode(Outcome.self, from: Data(result.stdout.utf8)), result.stderr)
    }
    func end() async throws {
      let ended = try await host.assistant(["End my workout with Ascent"])
      #expect(ended.code == 0, "\(ended)")
    }

    // A goal after the name, and a location before it.
    let indoor = try await say("Start an indoor wall climb for 20 minutes with Ascent", "yes")
    #expect(indoor.outcome.intent == "INStartWorkoutIntent" && indoor.outcome.code == "success", "\(indoor)")
    #expect(
      indoor.outcome.parameters == [
        "workoutName": .text("wall climb"), "goalValue": .number(20), "workoutGoalUnitType": .text("minute"),
        "workoutLocationType": .text("indoor"),
      ], "\(indoor)")
    try await end()

    // "workout" after the name: not part of it, so the confirmation says it once.
    let boulder = try await say("Start a 45 minute boulder climb workout with Ascent", "yes")
    #expect(
      boulder.outcome.parameters == [
        "workoutName": .text("boulder climb"), "goalValue": .number(45), "workoutGoalUnitType": .text("minute"),
      ], "\(boulder)")
    #expect(!boulder.stderr.contains("workout workout"), "\(boulder)")
    try await end()

    // No name, only a location: the seed's branch that suggests the last workout (boulder climb) is reached.
    let outdoor = try await say("Start an outdoor workout with Ascent", "yes", "yes")
    #expect(outdoor.stderr.contains("boulder climb? yes"), "\(outdoor)")
    #expect(!outdoor.stderr.contains("What kind of workout?"), "\(outdoor)")
    #expect(
      outdoor.outcome.parameters == [
        "workoutName": .text("boulder climb"), "workoutLocationType": .text("outdoor"),
      ], "\(outdoor)")
    try await end()

    // Values after the app's name.
    let after = try await say("Start a wall climb with Ascent for 30 minutes", "yes")
    #expect(
      after.outcome.parameters == [
        "workoutName": .text("wall climb"), "goalValue": .number(30), "workoutGoalUnitType": .text("minute"),
      ], "\(after)")
    try await end()

    // A unit Apple's INWorkoutGoalUnitType does not have is not understood (exit 69), never a name.
    let kilometers = try await host.assistant(["Start a 5 kilometer wall climb with Ascent"])
    #expect(kilometers.code == 69, "\(kilometers)")
    #expect(kilometers.stderr.contains("has no intent matching"), "\(kilometers)")
  }
}
