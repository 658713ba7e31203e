import AscentKit
import ExtensionSDK

// The Ascent Intents extension (seed 003's AscentIntentsExtension): resolves and confirms the five workout intents
// against the shared history, and answers handleInApp from handle, so that the Ascent app, launched in the
// background, does the work (`application(_:handle:completionHandler:)`). Apple marks starting and resuming a workout
// "Always requires unlocked device": the assistant asks for the passcode before this extension handles them, whatever
// IntentsRestrictedWhileLocked (empty here) says.

@main
struct AscentIntentsExtension: IntentsExtension {
  /// One handler per intent; the first that can handle the intent does (the seed's `handler(for:)`).
  static let handlers: [any WorkoutIntentHandler] = [
    StartWorkoutIntentHandler(), PauseWorkoutIntentHandler(), ResumeWorkoutIntentHandler(),
    CancelWorkoutIntentHandler(), EndWorkoutIntentHandler(),
  ]

  func handler(for intent: Intent) -> (any IntentHandler)? {
    for handler in Self.handlers where handler.canHandle(intent) { return handler }
    return nil
  }
}

/// A handler of one workout intent.
protocol WorkoutIntentHandler: IntentHandler {
  /// The intent's class name, e.g. "INStartWorkoutIntent".
  var intentName: String { get }
}

extension WorkoutIntentHandler {
  func canHandle(_ intent: Intent) -> Bool { intent.name == intentName }

  func history(_ context: ExtensionContext) throws -> WorkoutHistory {
    WorkoutHistory(container: try context.appGroup(WorkoutHistory.appGroupIdentifier))
  }

  /// The seed's handle: every workout intent is handed to the app, which does the work in the background.
  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    IntentResponse(code: .handleInApp)
  }

  /// A refusal of `error`'s kind, with its reason for the dialog.
  func refusal(_ error: WorkoutError) -> IntentResponse {
    IntentResponse(code: ResponseCode(error.responseCode), parameters: ["reason": .string(error.description)])
  }
}

/// INStartWorkoutIntent: the workout name as the seed resolves it; goal, unit, location and open-endedness where
/// given; confirmed when no workout is going on.
struct StartWorkoutIntentHandler: WorkoutIntentHandler {
  let intentName = "INStartWorkoutIntent"

  func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws
    -> ResolutionResult
  {
    switch parameter {
    case "workoutName":
      // The seed's resolveWorkoutName: a name that maps to an obstacle succeeds; no name suggests the last
      // workout's obstacle; anything else asks.
      if case .string(let name)? = intent["workoutName"] {
        return Workout.Obstacle(intentWorkoutName: name) != nil ? .success(.string(name)) : .needsValue
      }
      if let last = try await history(context).last() {
        return .confirmationRequired(.string(last.obstacle.intentWorkoutName))
      }
      return .needsValue
    case "goalValue":
      switch intent["goalValue"] {
      case .decimal(let value)? where value > 0: return .success(.decimal(value))
      case .integer(let value)? where value > 0: return .success(.decimal(Double(value)))
      case nil: return .notRequired
      default: return .unsupported(reason: "a goal is a positive number")
      }
    case "workoutGoalUnitType":
      switch intent["workoutGoalUnitType"] {
      case .enumCase(let unit)? where Workout.Goal.units.contains(unit): return .success(.enumCase(unit))
      case nil, .enumCase("unknown")?: return .notRequired
      default: return .unsupported(reason: "not a unit of a workout goal")
      }
    case "workoutLocationType":
      switch intent["workoutLocationType"] {
      case .enumCase(let location)? where Workout.Location(rawValue: location) != nil:
        return .success(.enumCase(location))
      case nil, .enumCase("unknown")?: return .notRequired
      default: return .unsupported(reason: "a workout is indoor or outdoor")
      }
    case "isOpenEnded":
      if case .boolean(let openEnded)? = intent["isOpenEnded"] { return .success(.boolean(openEnded)) }
      return .notRequired
    default:
      return .notRequired
    }
  }

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    if let current = try await history(context).current() { return refusal(.ongoingWorkout(current)) }
    guard case .string(let name)? = intent["workoutName"], Workout.Obstacle(intentWorkoutName: name) != nil else {
      return IntentResponse(code: "failureNoMatchingWorkout", parameters: ["reason": .string("no such workout")])
    }
    return IntentResponse(code: .ready)
  }
}

/// INPauseWorkoutIntent: confirmed when a workout is active.
struct PauseWorkoutIntentHandler: WorkoutIntentHandler {
  let intentName = "INPauseWorkoutIntent"

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    guard let current = try await history(context).current() else { return refusal(.noActiveWorkout) }
    if current.state == .paused { return refusal(.alreadyPaused(current)) }
    return IntentResponse(code: .ready)
  }
}

/// INResumeWorkoutIntent: confirmed when a workout is paused.
struct ResumeWorkoutIntentHandler: WorkoutIntentHandler {
  let intentName = "INResumeWorkoutIntent"

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    let current = try await history(context).current()
    guard current?.state == .paused else { return refusal(.notPaused(current: current)) }
    return IntentResponse(code: .ready)
  }
}

/// INCancelWorkoutIntent: confirmed when a workout is going on.
struct CancelWorkoutIntentHandler: WorkoutIntentHandler {
  let intentName = "INCancelWorkoutIntent"

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    try await history(context).current() == nil ? refusal(.noActiveWorkout) : IntentResponse(code: .ready)
  }
}

/// INEndWorkoutIntent: confirmed when a workout is going on.
struct EndWorkoutIntentHandler: WorkoutIntentHandler {
  let intentName = "INEndWorkoutIntent"

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    try await history(context).current() == nil ? refusal(.noActiveWorkout) : IntentResponse(code: .ready)
  }
}
