import ExtensionProtocol

/// The card the Ascent Intents UI extension draws for a workout intent: the obstacle, the goal, the location and how
/// far the request has got, built only from the interaction (the intent, the response and its handling status), as
/// an Intents UI extension runs in a process of its own and sees nothing else.
///
/// The workout's values are read from the response's parameters first, then from the intent's: after a success, the
/// app's answer (`Workout.responseParameters`) describes the workout it started, paused, resumed, ended or cancelled,
/// which a pause or an end does not name; at the confirmation step and after a failure, the intent's own values
/// describe what was asked. Values are read tolerantly: a number as a decimal, an integer or a numeric string; an
/// enum as its case name (`INWorkoutGoalUnitType`'s "minute", `INWorkoutLocationType`'s "outdoor") in any case, as
/// an enum or a string value; a goal without a known unit is in minutes, as the app reads it.
public struct WorkoutCard: Sendable, Equatable {
  /// The workout intent the card is for: what is asked of the workout.
  public enum Action: String, Sendable, CaseIterable {
    case start = "INStartWorkoutIntent"
    case pause = "INPauseWorkoutIntent"
    case resume = "INResumeWorkoutIntent"
    case end = "INEndWorkoutIntent"
    case cancel = "INCancelWorkoutIntent"

    /// "start", "pause" ...: the verb of "Ready to start" and "Not started".
    var verb: String {
      switch self {
      case .start: "start"
      case .pause: "pause"
      case .resume: "resume"
      case .end: "end"
      case .cancel: "cancel"
      }
    }

    /// "started", "paused" ...
    var done: String {
      switch self {
      case .start: "started"
      case .pause: "paused"
      case .resume: "resumed"
      case .end: "ended"
      case .cancel: "cancelled"
      }
    }
  }

  /// The intent's parameters that the card shows: the card claims them all, so the host asks it once per
  /// interaction (the header), as RoomsUI does.
  public static let parameters = [
    "workoutName", "goalValue", "workoutGoalUnitType", "workoutLocationType", "isOpenEnded",
  ]

  public let action: Action
  /// "Wall climb", "Boulder climb"; the name as said when it names no obstacle; "Workout" without a name.
  public let title: String
  /// "30 minutes", "Open ended" or "None"; nil when the card does not know the workout (a pause that found none).
  public let goal: String?
  /// "Indoor", "Outdoor" or "Not said"; nil when the card does not know the workout.
  public let location: String?
  /// "Ready to start", "Started", "Not paused: no workout is going on" ...
  public let state: String

  /// The card of `interaction`, or nil when it is not a workout intent or its handling status is not one the card
  /// words (`ready`, `success`, `failure`): Siri's default UI is shown then.
  public init?(interaction: Interaction) {
    guard let action = Action(rawValue: interaction.intent.name) else { return nil }
    let response = interaction.response
    // After a success the app's answer describes the workout; at confirm and after a failure, what was asked.
    let values: [String: ParameterValue]
    switch interaction.handlingStatus {
    case "success"?: values = interaction.intent.parameters.merging(response?.parameters ?? [:]) { _, answer in answer }
    case "ready"?, "failure"?: values = interaction.intent.parameters
    default: return nil
    }
    self.action = action
    let name = Self.text(values["workoutName"])
    let obstacle = name.flatMap(Workout.Obstacle.init(intentWorkoutName:))
    title = Self.capitalized(obstacle?.intentWorkoutName ?? name ?? "workout")
    // A start always describes a workout; the others only when they name one or the app answered with one.
    if action == .start || name != nil {
      if Self.flag(values["isOpenEnded"]) == true {
        goal = "Open ended"
      } else if let amount = Self.number(values["goalValue"]) {
        let said = Self.caseName(values["workoutGoalUnitType"])
        let unit = Workout.Goal.units.first { $0.lowercased() == said?.lowercased() } ?? "minute"
        goal = Workout.Goal(value: amount, unit: unit).spoken
      } else {
        goal = "None"
      }
      let place = Self.caseName(values["workoutLocationType"]).flatMap { Workout.Location(rawValue: $0.lowercased()) }
      location = place.map { Self.capitalized($0.rawValue) } ?? "Not said"
    } else {
      goal = nil
      location = nil
    }
    switch interaction.handlingStatus {
    case "ready"?: state = "Ready to \(action.verb)"
    case "success"?: state = Self.capitalized(action.done)
    default: state = "Not \(action.done): \(Self.reason(of: response))"
    }
  }

  /// The card as the snippet tree the host prints: the title, then a row each for the goal, the location and the
  /// state.
  public var snippet: SnippetNode {
    var rows: [SnippetNode] = [.text(title)]
    if let goal { rows.append(.row(label: "Goal", value: goal)) }
    if let location { rows.append(.row(label: "Location", value: location)) }
    rows.append(.row(label: "State", value: state))
    return .stack(rows)
  }

  /// Why the request failed: the answer's `reason` when it gives one, else what its code says.
  static func reason(of response: IntentResponse?) -> String {
    if let reason = text(response?.parameters["reason"]) { return reason }
    switch response?.code.rawValue {
    case "failureOngoingWorkout"?: return "a workout is already going on"
    case "failureNoMatchingWorkout"?: return "no matching workout"
    case let code? where code.hasPrefix("failureRequiringAppLaunch"): return "open Ascent to do it"
    default: return "it failed"
    }
  }

  static func text(_ value: ParameterValue?) -> String? {
    guard case .string(let text)? = value else { return nil }
    let trimmed = text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
    return trimmed.isEmpty ? nil : String(trimmed)
  }

  static func caseName(_ value: ParameterValue?) -> String? {
    switch value {
    case .enumCase(let name)?: name.isEmpty ? nil : name
    default: text(value)
    }
  }

  static func number(_ value: ParameterValue?) -> Double? {
    switch value {
    case .decimal(let number)?: number.isFinite ? number : nil
    case .integer(let number)?: Double(number)
    default: text(value).flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
    }
  }

  static func flag(_ value: ParameterValue?) -> Bool? {
    switch value {
    case .boolean(let flag)?: flag
    default: text(value).flatMap { Bool($0.lowercased()) }
    }
  }

  static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}

extension Workout {
  /// The workout as the app answers a workout intent it handled, in the start intent's parameter names and wire
  /// types (so a card, or a dialog's `${workoutName}`, reads them as it reads the intent's): `workoutName`,
  /// `goalValue` and `workoutGoalUnitType` when it has a goal, `workoutLocationType` when it has a location,
  /// `isOpenEnded`; and `workout` (the summary) and `state` (active, paused, ended, cancelled).
  public var responseParameters: [String: ParameterValue] {
    var parameters: [String: ParameterValue] = [
      "workoutName": .string(obstacle.intentWorkoutName), "isOpenEnded": .boolean(isOpenEnded),
      "workout": .string(summary), "state": .string(state.rawValue),
    ]
    if let goal {
      parameters["goalValue"] = .decimal(goal.value)
      parameters["workoutGoalUnitType"] = .enumCase(goal.unit)
    }
    if let location { parameters["workoutLocationType"] = .enumCase(location.rawValue) }
    return parameters
  }
}
