import AscentKit
import ExtensionSDK

// The Ascent app (seed 003): a history of wall-climbing and bouldering workouts. Its Intents extension answers every
// workout intent with handleInApp, so the assistant launches this app in the background to start, pause, resume,
// cancel or end the workout (`application(_:handle:completionHandler:)`), which it records in the history shared with
// the extension (group.com.example.ascent). `assistant open Ascent -- history` prints that history.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// Does what a workout intent asks, in the app, and answers with the catalog's codes: success, or
/// failureOngoingWorkout / failureNoMatchingWorkout with the reason.
struct WorkoutInApp: IntentHandler {
  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    let history = WorkoutHistory(container: try context.appGroup(WorkoutHistory.appGroupIdentifier))
    do {
      let workout: Workout
      switch intent.name {
      case "INStartWorkoutIntent":
        guard case .string(let name)? = intent["workoutName"], let obstacle = Workout.Obstacle(intentWorkoutName: name)
        else {
          return IntentResponse(code: "failureNoMatchingWorkout", parameters: ["reason": .string("no such workout")])
        }
        workout = try await history.start(
          obstacle, goal: goal(of: intent), location: location(of: intent),
          isOpenEnded: intent["isOpenEnded"] == .boolean(true))
      // The workout the user named, if any ("Pause my wall climb workout"): another one going on is not touched.
      case "INPauseWorkoutIntent": workout = try await history.pause(named: named(intent))
      case "INResumeWorkoutIntent": workout = try await history.resume(named: named(intent))
      case "INCancelWorkoutIntent": workout = try await history.cancel(named: named(intent))
      case "INEndWorkoutIntent": workout = try await history.end(named: named(intent))
      default: return IntentResponse(code: .failure, parameters: ["reason": .string("not a workout intent")])
      }
      // The workout as it now is, in the intent's parameter names: what AscentUI's card shows after handling.
      return IntentResponse(code: .success, parameters: workout.responseParameters)
    } catch let error as WorkoutError {
      return IntentResponse(code: ResponseCode(error.responseCode), parameters: ["reason": .string(error.description)])
    }
  }

  func named(_ intent: Intent) -> String? {
    if case .string(let name)? = intent["workoutName"] { return name }
    return nil
  }

  func goal(of intent: Intent) -> Workout.Goal? {
    let value: Double? =
      switch intent["goalValue"] {
      case .decimal(let value)?: value
      case .integer(let value)?: Double(value)
      default: nil
      }
    guard let value else { return nil }
    guard case .enumCase(let unit)? = intent["workoutGoalUnitType"], Workout.Goal.units.contains(unit) else {
      return Workout.Goal(value: value, unit: "minute")
    }
    return Workout.Goal(value: value, unit: unit)
  }

  func location(of intent: Intent) -> Workout.Location? {
    guard case .enumCase(let name)? = intent["workoutLocationType"] else { return nil }
    return Workout.Location(rawValue: name)
  }
}

let workoutIntents: Set = [
  "INStartWorkoutIntent", "INPauseWorkoutIntent", "INResumeWorkoutIntent", "INCancelWorkoutIntent",
  "INEndWorkoutIntent",
]
if InAppIntentHandling.isRequested {
  await InAppIntentHandling.serve { intent in workoutIntents.contains(intent.name) ? WorkoutInApp() : nil }
}

let usage = """
  usage: ascent [history]   the workouts, oldest first (what the app shows when opened)
         ascent current     the workout going on
  """

func fail(_ message: String, _ code: Int32) -> Never {
  let line = Array("ascent: \(message)\n".utf8)
  _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  exit(code)
}

let arguments = CommandLine.arguments.dropFirst()
// Opened with nothing asked, the app shows its history, as the seed's app opens on it.
let command = arguments.first ?? "history"
if command == "--help" || command == "-h" || command == "help" {
  print(usage)
  exit(0)
}

let history: WorkoutHistory
do {
  history = WorkoutHistory(
    container: try AppContext.current().appGroup(WorkoutHistory.appGroupIdentifier))
} catch let error as AppContext.Missing {
  fail("\(error)", 78)
} catch {
  fail("\(error)", 77)
}

func line(_ workout: Workout) -> String {
  "\(workout.startedAt)  \(workout.summary): \(workout.state.rawValue)"
    + (workout.finishedAt.map { " at \($0)" } ?? "")
}

do {
  switch command {
  case "history":
    let workouts = try await history.load()
    if workouts.isEmpty { print("No workouts yet.") }
    for workout in workouts { print(line(workout)) }
  case "current":
    print(try await history.current().map(line) ?? "No workout is going on.")
  default:
    fail("unknown command \"\(command)\"\n\(usage)", 64)
  }
} catch let error as WorkoutError {
  fail("\(error)", 65)
} catch let error as StoreError {
  switch error {
  case .corrupt, .newerSchema, .unsafeFile: fail("\(error)", 65)
  default: fail("\(error)", 74)
  }
} catch {
  fail("\(error)", 70)
}
