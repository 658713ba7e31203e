import AscentKit
import ExtensionSDK

// The Ascent Intents extension (seed 003's AscentIntentsExtension): resolves and confirms the five workout intents
// against the shared history, and answers handleInApp from handle, so that the Ascent app, launched in the
// background, does the work (`application(_:handle:completionHandler:)`). Apple marks starting and resuming a workout
// "Always requires unlocked device": the assistant asks for the passcode before this extension handles them, whatever
// IntentsRestrictedWhileLocked (empty here) says.

@main
struct AscentIntentsExtension: IntentsExtension {
  /// One handler per intent (the seed's `handler(for:)`), each through the typed API generated for the system
  /// intents Info.plist lists (docs/INTENT-CODEGEN.md).
  func handler(for intent: Intent) -> (any IntentHandler)? {
    switch intent.name {
    case INStartWorkoutIntent.className: StartWorkoutIntentHandler()
    case INPauseWorkoutIntent.className: PauseWorkoutIntentHandler()
    case INResumeWorkoutIntent.className: ResumeWorkoutIntentHandler()
    case INCancelWorkoutIntent.className: CancelWorkoutIntentHandler()
    case INEndWorkoutIntent.className: EndWorkoutIntentHandler()
    default: nil
    }
  }
}

/// The shared history of workouts.
func history(_ context: ExtensionContext) throws -> WorkoutHistory {
  WorkoutHistory(container: try context.appGroup(WorkoutHistory.appGroupIdentifier))
}

/// The workout going on, checked against the name the user said, if any ("End my boulder climb workout" while a wall
/// climb is going on is refused, never ends the wall climb).
/// - Throws: `WorkoutError.noActiveWorkout`, or `.notNamed`.
func namedCurrent(_ workoutName: String?, in context: ExtensionContext) async throws -> Workout {
  guard let current = try await history(context).current() else { throw WorkoutError.noActiveWorkout }
  if let workoutName { try WorkoutHistory.check(current, isNamed: workoutName) }
  return current
}

/// A workout intent's response (each intent has its own generated type, with the same codes).
protocol WorkoutResponse: TypedIntentResponse {}

extension WorkoutResponse {
  /// `check` as a response: ready, or the refusal of the error it threw.
  static func confirming(_ check: () async throws -> Void) async throws -> Self {
    do {
      try await check()
      return Self(IntentResponse(code: .ready))
    } catch let error as WorkoutError {
      return refusal(error)
    }
  }

  /// A refusal of `error`'s kind, with its reason for the dialog (a parameter the system intent's response does not
  /// declare: the app's own).
  static func refusal(_ error: WorkoutError) -> Self {
    Self(
      IntentResponse(code: ResponseCode(error.responseCode), parameters: ["reason": .string(error.description)]))
  }

  /// The seed's handle: every workout intent is handed to the app, which does the work in the background.
  static var handledInApp: Self { Self(IntentResponse(code: .handleInApp)) }
}

extension INStartWorkoutIntentResponse: WorkoutResponse {}
extension INPauseWorkoutIntentResponse: WorkoutResponse {}
extension INResumeWorkoutIntentResponse: WorkoutResponse {}
extension INCancelWorkoutIntentResponse: WorkoutResponse {}
extension INEndWorkoutIntentResponse: WorkoutResponse {}

/// INStartWorkoutIntent: the workout name as the seed resolves it; goal, unit, location and open-endedness where
/// given; confirmed when no workout is going on.
struct StartWorkoutIntentHandler: INStartWorkoutIntentHandling {
  /// The seed's resolveWorkoutName: a name that maps to an obstacle succeeds; no name suggests the last workout's
  /// obstacle; anything else asks.
  func resolveWorkoutName(for intent: INStartWorkoutIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<String>
  {
    if let name = intent.workoutName {
      return Workout.Obstacle(intentWorkoutName: name) != nil ? .success(with: name) : .needsValue
    }
    if let last = try await history(context).last() {
      return .confirmationRequired(with: last.obstacle.intentWorkoutName)
    }
    return .needsValue
  }

  func resolveGoalValue(for intent: INStartWorkoutIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<Double>
  {
    guard let goal = intent.goalValue else { return .notRequired }
    return goal > 0 ? .success(with: goal) : .unsupported(reason: "a goal is a positive number")
  }

  func resolveWorkoutGoalUnitType(for intent: INStartWorkoutIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<INWorkoutGoalUnitType>
  {
    switch intent.workoutGoalUnitType {
    case nil, .unknown?: .notRequired
    case let unit? where Workout.Goal.units.contains(unit.rawValue): .success(with: unit)
    default: .unsupported(reason: "not a unit of a workout goal")
    }
  }

  func resolveWorkoutLocationType(for intent: INStartWorkoutIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<INWorkoutLocationType>
  {
    switch intent.workoutLocationType {
    case nil, .unknown?: .notRequired
    case let location? where Workout.Location(rawValue: location.rawValue) != nil: .success(with: location)
    default: .unsupported(reason: "a workout is indoor or outdoor")
    }
  }

  func confirm(intent: INStartWorkoutIntent, in context: ExtensionContext) async throws
    -> INStartWorkoutIntentResponse
  {
    if let current = try await history(context).current() { return .refusal(.ongoingWorkout(current)) }
    guard let name = intent.workoutName, Workout.Obstacle(intentWorkoutName: name) != nil else {
      return INStartWorkoutIntentResponse(
        code: .failureNoMatchingWorkout, extraParameters: ["reason": .string("no such workout")])
    }
    return INStartWorkoutIntentResponse(code: .ready)
  }

  func handle(intent: INStartWorkoutIntent, in context: ExtensionContext) async throws -> INStartWorkoutIntentResponse {
    .handledInApp
  }
}

/// INPauseWorkoutIntent: confirmed when a workout is active (the one named, if a name was said).
struct PauseWorkoutIntentHandler: INPauseWorkoutIntentHandling {
  func confirm(intent: INPauseWorkoutIntent, in context: ExtensionContext) async throws
    -> INPauseWorkoutIntentResponse
  {
    try await .confirming {
      let current = try await namedCurrent(intent.workoutName, in: context)
      if current.state == .paused { throw WorkoutError.alreadyPaused(current) }
    }
  }

  func handle(intent: INPauseWorkoutIntent, in context: ExtensionContext) async throws -> INPauseWorkoutIntentResponse {
    .handledInApp
  }
}

/// INResumeWorkoutIntent: confirmed when a workout is paused (the one named, if a name was said).
struct ResumeWorkoutIntentHandler: INResumeWorkoutIntentHandling {
  func confirm(intent: INResumeWorkoutIntent, in context: ExtensionContext) async throws
    -> INResumeWorkoutIntentResponse
  {
    try await .confirming {
      let current = try await history(context).current()
      guard let current, current.state == .paused else { throw WorkoutError.notPaused(current: current) }
      if let name = intent.workoutName { try WorkoutHistory.check(current, isNamed: name) }
    }
  }

  func handle(intent: INResumeWorkoutIntent, in context: ExtensionContext) async throws
    -> INResumeWorkoutIntentResponse
  {
    .handledInApp
  }
}

/// INCancelWorkoutIntent: confirmed when a workout is going on (the one named, if a name was said).
struct CancelWorkoutIntentHandler: INCancelWorkoutIntentHandling {
  func confirm(intent: INCancelWorkoutIntent, in context: ExtensionContext) async throws
    -> INCancelWorkoutIntentResponse
  {
    try await .confirming { _ = try await namedCurrent(intent.workoutName, in: context) }
  }

  func handle(intent: INCancelWorkoutIntent, in context: ExtensionContext) async throws
    -> INCancelWorkoutIntentResponse
  {
    .handledInApp
  }
}

/// INEndWorkoutIntent: confirmed when a workout is going on (the one named, if a name was said).
struct EndWorkoutIntentHandler: INEndWorkoutIntentHandling {
  func confirm(intent: INEndWorkoutIntent, in context: ExtensionContext) async throws -> INEndWorkoutIntentResponse {
    try await .confirming { _ = try await namedCurrent(intent.workoutName, in: context) }
  }

  func handle(intent: INEndWorkoutIntent, in context: ExtensionContext) async throws -> INEndWorkoutIntentResponse {
    .handledInApp
  }
}
