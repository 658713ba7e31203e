import AscentKit
import ExtensionProtocol
import TestSupport
import Testing

/// The card AscentUI draws, from the interaction alone: the obstacle, the goal, the location and the state at the
/// confirmation step, after a success (read from the app's answer) and after a failure (read from what was asked).
@Suite(.tags(.unit))
struct WorkoutCardTests {
  func interaction(
    _ intent: String = "INStartWorkoutIntent", parameters: [String: ParameterValue] = [:], status: String?,
    response code: ResponseCode = .success, answer: [String: ParameterValue] = [:]
  ) -> Interaction {
    Interaction(
      intent: Intent(name: intent, identifier: "i1", parameters: parameters),
      response: IntentResponse(code: code, parameters: answer), handlingStatus: status)
  }

  func lines(_ interaction: Interaction) -> [String]? { WorkoutCard(interaction: interaction)?.snippet.lines }

  static let thirtyMinutesOutdoor: [String: ParameterValue] = [
    "workoutName": .string("wall climb"), "goalValue": .decimal(30), "workoutGoalUnitType": .enumCase("minute"),
    "workoutLocationType": .enumCase("outdoor"),
  ]

  @Test func theConfirmationStepShowsWhatIsAboutToStart() {
    #expect(
      lines(interaction(parameters: Self.thirtyMinutesOutdoor, status: "ready", response: .ready)) == [
        "Wall climb", "Goal: 30 minutes", "Location: Outdoor", "State: Ready to start",
      ])
  }

  @Test(arguments: [
    ("INStartWorkoutIntent", "Started"), ("INPauseWorkoutIntent", "Paused"), ("INResumeWorkoutIntent", "Resumed"),
    ("INEndWorkoutIntent", "Ended"), ("INCancelWorkoutIntent", "Cancelled"),
  ])
  func aSuccessShowsTheWorkoutTheAppAnsweredWith(intent: String, state: String) {
    // A pause names no workout: the app's answer (Workout.responseParameters) says which one it paused.
    let workout = Workout(
      obstacle: .boulder, goal: .init(value: 1, unit: "hour"), location: .indoor, startedAt: "2026-01-01T00:00:00Z")
    #expect(
      lines(interaction(intent, status: "success", answer: workout.responseParameters)) == [
        "Boulder climb", "Goal: 1 hour", "Location: Indoor", "State: \(state)",
      ])
  }

  @Test(
    arguments: [
      ([:], "None"), (["isOpenEnded": .boolean(true)], "Open ended"),
      (["isOpenEnded": .boolean(true), "goalValue": .integer(30)], "Open ended"),
      (["goalValue": .integer(45)], "45 minutes"),  // a goal without a unit is in minutes
      (["goalValue": .decimal(2.5), "workoutGoalUnitType": .enumCase("mile")], "2.5 miles"),
      (["goalValue": .integer(20), "workoutGoalUnitType": .string("Minute")], "20 minutes"),  // tolerant: any case
      (["goalValue": .string("10"), "workoutGoalUnitType": .enumCase("kiloCalorie")], "10 kilocalories"),
      (["goalValue": .integer(3), "workoutGoalUnitType": .enumCase("parsec")], "3 minutes"),  // unknown unit
      (["goalValue": .integer(3), "workoutGoalUnitType": .enumCase("unknown")], "3 minutes"),
      (["isOpenEnded": .boolean(false)], "None"),
    ] as [([String: ParameterValue], String)])
  func theGoalIsAnAmountOpenEndedOrNone(values: [String: ParameterValue], goal: String) {
    let parameters = values.merging(["workoutName": .string("boulder climb")]) { old, _ in old }
    #expect(WorkoutCard(interaction: interaction(parameters: parameters, status: "ready"))?.goal == goal)
  }

  @Test(arguments: [
    (ParameterValue.enumCase("indoor"), "Indoor"), (.enumCase("outdoor"), "Outdoor"), (.string("OUTDOOR"), "Outdoor"),
    (.enumCase("unknown"), "Not said"), (.integer(2), "Not said"),
  ])
  func theLocationIsIndoorOutdoorOrNotSaid(value: ParameterValue, location: String) {
    let card = WorkoutCard(
      interaction: interaction(
        parameters: ["workoutName": .string("wall"), "workoutLocationType": value], status: "ready"))
    #expect(card?.location == location)
    #expect(WorkoutCard(interaction: interaction(parameters: [:], status: "ready"))?.location == "Not said")
  }

  @Test func aNameOfNoObstacleIsShownAsSaidAndNoNameIsAWorkout() {
    #expect(lines(interaction(parameters: ["workoutName": .string("yoga")], status: "ready"))?.first == "Yoga")
    #expect(
      lines(interaction(status: "ready")) == ["Workout", "Goal: None", "Location: Not said", "State: Ready to start"])
  }

  @Test func aFailureShowsWhatWasAskedAndWhy() {
    // The app refused the start: the card shows the requested workout, not the one going on, and the reason.
    let ongoing = Workout(obstacle: .boulder, startedAt: "2026-01-01T00:00:00Z")
    var answer = ongoing.responseParameters
    answer["reason"] = .string("a boulder climb is already going on")
    #expect(
      lines(
        interaction(
          parameters: Self.thirtyMinutesOutdoor, status: "failure", response: "failureOngoingWorkout", answer: answer))
        == [
          "Wall climb", "Goal: 30 minutes", "Location: Outdoor",
          "State: Not started: a boulder climb is already going on",
        ])
    // A pause that found nothing names no workout: the title and the state only.
    #expect(
      lines(
        interaction(
          "INPauseWorkoutIntent", status: "failure", response: "failureNoMatchingWorkout",
          answer: ["reason": .string("no workout is going on")]))
        == ["Workout", "State: Not paused: no workout is going on"])
  }

  @Test(arguments: [
    (ResponseCode("failureOngoingWorkout"), "Not started: a workout is already going on"),
    ("failureNoMatchingWorkout", "Not started: no matching workout"),
    (.failureRequiringAppLaunch, "Not started: open Ascent to do it"), (.failure, "Not started: it failed"),
  ])
  func aFailureWithoutAReasonIsWordedByItsCode(code: ResponseCode, state: String) {
    #expect(WorkoutCard(interaction: interaction(status: "failure", response: code))?.state == state)
  }

  @Test func otherIntentsAndStatusesAreLeftToTheDefaultUI() {
    #expect(WorkoutCard(interaction: interaction("BookRoomIntent", status: "success")) == nil)
    for status in [nil, "inProgress", "deferredToApplication", "unspecified"] {
      #expect(WorkoutCard(interaction: interaction(status: status)) == nil)
    }
    // Control: the same intent with a status the card words.
    #expect(WorkoutCard(interaction: interaction(status: "success")) != nil)
  }

  @Test func theAppsAnswerCarriesTheWorkoutInTheIntentsParameterNames() {
    let workout = Workout(
      obstacle: .wall, goal: .init(value: 30, unit: "minute"), location: .outdoor, state: .paused,
      startedAt: "2026-01-01T00:00:00Z")
    #expect(
      workout.responseParameters == [
        "workoutName": .string("wall climb"), "goalValue": .decimal(30), "workoutGoalUnitType": .enumCase("minute"),
        "workoutLocationType": .enumCase("outdoor"), "isOpenEnded": .boolean(false),
        "workout": .string("outdoor wall climb, goal 30 minutes"), "state": .string("paused"),
      ])
    let bare = Workout(obstacle: .boulder, isOpenEnded: true, startedAt: "2026-01-01T00:00:00Z").responseParameters
    #expect(bare["goalValue"] == nil && bare["workoutLocationType"] == nil && bare["isOpenEnded"] == .boolean(true))
  }
}
