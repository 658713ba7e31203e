import AppGroupStore
import AscentKit
import Foundation
import TestSupport
import Testing

/// AscentKit in-process: the obstacle a spoken workout name names (seed 003's `Workout.Obstacle(intentWorkoutName:)`),
/// and the shared history's state machine with the catalog's failure codes.
@Suite(.tags(.unit))
struct AscentKitTests {
  func history(_ directory: TemporaryDirectory) throws -> WorkoutHistory {
    WorkoutHistory(
      container: try AppGroupContainer(
        identifier: WorkoutHistory.appGroupIdentifier, path: directory.file("group").path))
  }

  @Test(arguments: [
    ("wall climb", Workout.Obstacle.wall), ("Wall Climb", .wall), ("  wall  ", .wall), ("wall climbing", .wall),
    ("wall climb workout", .wall), ("boulder climb", .boulder), ("Bouldering", .boulder), ("boulder", .boulder),
    ("boulder-climb", .boulder),
  ])
  func aSpokenNameNamesItsObstacle(name: String, obstacle: Workout.Obstacle) {
    #expect(Workout.Obstacle(intentWorkoutName: name) == obstacle)
  }

  @Test(arguments: ["", "run", "morning run", "climb", "wall run", "workout", "boulder wall"])
  func aNameOfNeitherObstacleNamesNone(name: String) {
    #expect(Workout.Obstacle(intentWorkoutName: name) == nil)
  }

  @Test func eachObstacleIsSaidAsTheVocabularyTeachesItAndReadBack() {
    #expect(Workout.Obstacle.wall.intentWorkoutName == "wall climb")
    #expect(Workout.Obstacle.boulder.intentWorkoutName == "boulder climb")
    for obstacle in Workout.Obstacle.allCases {
      #expect(Workout.Obstacle(intentWorkoutName: obstacle.intentWorkoutName) == obstacle)
    }
  }

  @Test func aWorkoutIsSummarizedWithItsGoalAndLocation() {
    let workout = Workout(
      obstacle: .wall, goal: .init(value: 30, unit: "minute"), location: .outdoor, startedAt: "2026-01-01T00:00:00Z")
    #expect(workout.summary == "outdoor wall climb, goal 30 minutes")
    #expect(Workout.Goal(value: 1, unit: "hour").spoken == "1 hour")
    #expect(Workout.Goal(value: 2.5, unit: "mile").spoken == "2.5 miles")
    #expect(Workout.Goal(value: 10, unit: "foot").spoken == "10 feet")
    #expect(
      Workout(obstacle: .boulder, isOpenEnded: true, startedAt: "2026-01-01T00:00:00Z").summary
        == "boulder climb, open-ended")
  }

  @Test func aWorkoutGoesFromStartThroughPauseAndResumeToItsEndAndStaysInTheHistory() async throws {
    let directory = try TemporaryDirectory("intenthost-ascentkit")
    defer { directory.remove() }
    let history = try history(directory)
    #expect(try await history.last() == nil)
    let started = try await history.start(.wall, goal: .init(value: 30, unit: "minute"), location: .outdoor)
    #expect(started.state == .active)
    #expect(try await history.current() == started)
    #expect(try await history.pause().state == .paused)
    #expect(try await history.resume().state == .active)
    let ended = try await history.end()
    #expect(ended.state == .ended && ended.finishedAt != nil)
    #expect(try await history.current() == nil)
    // A second history over the same group (the app beside the extension) reads what the first wrote.
    let other = try self.history(directory)
    #expect(try await other.load() == [ended])
    #expect(try await other.last()?.obstacle == .wall)
    try await other.start(.boulder)
    #expect(try await history.cancel().state == .cancelled)
    #expect(try await history.load().map(\.state) == [.ended, .cancelled])
  }

  @Test func startingWhileAWorkoutIsGoingOnFailsWithOngoingWorkout() async throws {
    let directory = try TemporaryDirectory("intenthost-ascentkit")
    defer { directory.remove() }
    let history = try history(directory)
    let first = try await history.start(.wall)
    await #expect(throws: WorkoutError.ongoingWorkout(first)) { try await history.start(.boulder) }
    _ = try await history.pause()
    await #expect(throws: WorkoutError.self) { try await history.start(.boulder) }
    #expect(WorkoutError.ongoingWorkout(first).responseCode == "failureOngoingWorkout")
    // The control: once it ended, a new one starts.
    _ = try await history.end()
    #expect(try await history.start(.boulder).obstacle == .boulder)
  }

  @Test func pausingEndingOrCancellingWithNoneGoingOnFailsWithNoMatchingWorkout() async throws {
    let directory = try TemporaryDirectory("intenthost-ascentkit")
    defer { directory.remove() }
    let history = try history(directory)
    await #expect(throws: WorkoutError.noActiveWorkout) { try await history.pause() }
    await #expect(throws: WorkoutError.noActiveWorkout) { try await history.end() }
    await #expect(throws: WorkoutError.noActiveWorkout) { try await history.cancel() }
    try await history.start(.wall)
    try await history.end()
    await #expect(throws: WorkoutError.noActiveWorkout) { try await history.pause() }
    await #expect(throws: WorkoutError.noActiveWorkout) { try await history.end() }
    #expect(WorkoutError.noActiveWorkout.responseCode == "failureNoMatchingWorkout")
    #expect(try await history.load().count == 1)
  }

  @Test func resumingAWorkoutThatIsNotPausedFailsAndPausingTwiceFails() async throws {
    let directory = try TemporaryDirectory("intenthost-ascentkit")
    defer { directory.remove() }
    let history = try history(directory)
    await #expect(throws: WorkoutError.notPaused(current: nil)) { try await history.resume() }
    let active = try await history.start(.boulder)
    await #expect(throws: WorkoutError.notPaused(current: active)) { try await history.resume() }
    let paused = try await history.pause()
    await #expect(throws: WorkoutError.alreadyPaused(paused)) { try await history.pause() }
    #expect(WorkoutError.notPaused(current: active).responseCode == "failureNoMatchingWorkout")
    #expect(try await history.resume().state == .active)
  }

  /// The history is the seed's `sharedUserDefaults`: a key of the group's shared defaults, which other keys share
  /// untouched. A value under the key that is no history (another program wrote it) is refused with the key named,
  /// and is not overwritten; the control: once the key is removed, a workout starts.
  @Test func theHistoryIsAKeyOfTheGroupsSharedDefaults() async throws {
    let directory = try TemporaryDirectory("ascentkit")
    defer { directory.remove() }
    let container = try AppGroupContainer(
      identifier: WorkoutHistory.appGroupIdentifier, path: directory.file("group").path)
    let defaults = container.defaults
    try await defaults.set(.string("kept"), forKey: "theme")
    let history = WorkoutHistory(container: container)
    try await history.start(.wall)
    #expect(try await defaults.string(forKey: "theme") == "kept")
    guard case .array(let stored)? = try await defaults.value(forKey: WorkoutHistory.defaultsKey) else {
      Issue.record("no history under \(WorkoutHistory.defaultsKey)")
      return
    }
    #expect(stored.count == 1)

    try await defaults.set(.string("planted"), forKey: WorkoutHistory.defaultsKey)
    await #expect(throws: WorkoutError.unreadableHistory(key: WorkoutHistory.defaultsKey)) {
      try await history.start(.boulder)
    }
    #expect(try await defaults.string(forKey: WorkoutHistory.defaultsKey) == "planted")
    // A history whose goal has a unit of no intent is refused the same way, and left as it is.
    let badGoal = try JSONValue(
      parsing:
        #"[{"obstacle":"wall","state":"ended","startedAt":"x","isOpenEnded":false,"goal":{"value":30,"unit":"parsec"}}]"#
    )
    try await defaults.set(badGoal, forKey: WorkoutHistory.defaultsKey)
    await #expect(throws: WorkoutError.unreadableHistory(key: WorkoutHistory.defaultsKey)) {
      try await history.load()
    }
    #expect(try await defaults.value(forKey: WorkoutHistory.defaultsKey) == badGoal)
    let goodGoal = try JSONValue(
      parsing:
        #"[{"obstacle":"wall","state":"ended","startedAt":"x","isOpenEnded":false,"goal":{"value":30,"unit":"minute"}}]"#
    )
    try await defaults.set(goodGoal, forKey: WorkoutHistory.defaultsKey)
    #expect(try await history.load().first?.goal == Workout.Goal(value: 30, unit: "minute"))
    try await defaults.set(nil, forKey: WorkoutHistory.defaultsKey)
    #expect(try await history.start(.boulder).obstacle == .boulder)
    #expect(try await history.load().count == 1)
  }

  /// A workout the user names is the one changed, or nothing is: "End my boulder climb workout" while a wall climb
  /// is going on is refused (failureNoMatchingWorkout) and leaves the wall climb as it was. The control: the right
  /// name, a synonym of it, or no name at all changes it.
  @Test func aNamedWorkoutIsTheOneChangedOrNothingIs() async throws {
    let directory = try TemporaryDirectory("ascentkit")
    defer { directory.remove() }
    let history = try history(directory)
    try await history.start(.wall)
    for change in [
      { try await history.pause(named: "boulder climb") }, { try await history.end(named: "yoga") },
      { try await history.cancel(named: "bouldering") },
    ] as [@Sendable () async throws -> Workout] {
      do {
        _ = try await change()
        Issue.record("a workout that was not named was changed")
      } catch let error as WorkoutError {
        guard case .notNamed(_, let current) = error else {
          Issue.record("\(error)")
          continue
        }
        #expect(current.obstacle == .wall && error.responseCode == "failureNoMatchingWorkout")
      }
    }
    #expect(try await history.current()?.state == .active)
    #expect(try await history.pause(named: "wall climbing").state == .paused)
    await #expect(throws: WorkoutError.self) { try await history.resume(named: "boulder climb") }
    #expect(try await history.resume(named: "Wall Climb workout").state == .active)
    #expect(try await history.end(named: nil).state == .ended)
  }

  /// The history keeps the newest `limit` workouts, so what the extension reads stays bounded; the oldest go first.
  @Test func theHistoryKeepsTheNewestWorkouts() async throws {
    let directory = try TemporaryDirectory("ascentkit")
    defer { directory.remove() }
    let container = try AppGroupContainer(
      identifier: WorkoutHistory.appGroupIdentifier, path: directory.file("group").path)
    let old = Workout(obstacle: .wall, startedAt: "2026-01-01T00:00:00Z")
    var ended = old
    ended.state = .ended
    let many = Array(repeating: ended, count: WorkoutHistory.limit)
    let value = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(many))
    try await container.defaults.set(value, forKey: WorkoutHistory.defaultsKey)
    let history = WorkoutHistory(container: container)
    #expect(try await history.load().count == WorkoutHistory.limit)
    try await history.start(.boulder)
    let kept = try await history.load()
    #expect(kept.count == WorkoutHistory.limit)
    #expect(kept.last?.obstacle == .boulder && kept.first?.obstacle == .wall)
  }
}
