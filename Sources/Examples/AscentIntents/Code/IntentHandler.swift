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

  /// The workout going on, checked against the name the user said, if any ("End my boulder climb workout" while a
  /// wall climb is going on is refused, never ends the wall climb).
  /// - Throws: `WorkoutError.noActiveWorkout`, or `.notNamed`.
  func namedCurrent(_ intent: Intent, in context: ExtensionContext) async throws -> Workout {
    guard let current = try await history(context).current() else { throw WorkoutError.noActiveWorkout }
    if case .string(let name)? = intent["workoutName"] { try WorkoutHistory.check(current, isNamed: name) }
    return current
  }

  /// `check` as a response: ready, or the refusal of the error it threw.
  func confirming(_ check: () async throws -> Void) async throws -> IntentResponse {
    do {
      try await check()
      return IntentResponse(code: .ready)
    } catch let error as WorkoutError {
      return refusal(error)
    }
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

/// INPauseWorkoutIntent: confirmed when a workout is active (the one named, if a name was said).
struct PauseWorkoutIntentHandler: WorkoutIntentHandler {
  let intentName = "INPauseWorkoutIntent"

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    try await confirming {
      let current = try await namedCurrent(intent, in: context)
      if current.state == .paused { throw WorkoutError.alreadyPaused(current) }
    }
  }
}

/// INResumeWorkoutIntent: confirmed when a workout is paused (the one named, if a name was said).
struct ResumeWorkoutIntentHandler: WorkoutIntentHandler {
  let intentName = "INResumeWorkoutIntent"

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    try await confirming {
      let current = try await history(context).current()
      guard let current, current.state == .paused else { throw WorkoutError.notPaused(current: current) }
      if case .string(let name)? = intent["workoutName"] { try WorkoutHistory.check(current, isNamed: name) }
    }
  }
}

/// INCancelWorkoutIntent: confirmed when a workout is going on (the one named, if a name was said).
struct CancelWorkoutIntentHandler: WorkoutIntentHandler {
  let intentName = "INCancelWorkoutIntent"

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    try await confirming { _ = try await namedCurrent(intent, in: context) }
  }
}

/// INEndWorkoutIntent: confirmed when a workout is going on (the one named, if a name was said).
struct EndWorkoutIntentHandler: WorkoutIntentHandler {
  let intentName = "INEndWorkoutIntent"

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    try await confirming { _ = try await namedCurrent(intent, in: context) }
  }
}
