import AppGroupStore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// One climbing workout: the obstacle climbed, its goal, where, and how far it has got (seed 003's `Workout`).
public struct Workout: Codable, Sendable, Equatable {
  /// What is climbed: a wall or a boulder (the seed's `Workout.Obstacle`).
  public enum Obstacle: String, Codable, Sendable, CaseIterable {
    case wall
    case boulder

    /// The obstacle a spoken workout name names ("wall climb", "Boulder", "bouldering"), or nil when it names
    /// neither (the seed's `init?(intentWorkoutName:)`). Case, surrounding white space and a trailing "workout" are
    /// ignored.
    public init?(intentWorkoutName name: String) {
      var words = name.lowercased().split(whereSeparator: { $0.isWhitespace || $0 == "-" }).map(String.init)
      if words.last == "workout" { words.removeLast() }
      switch words {
      case ["wall"], ["wall", "climb"], ["wall", "climbing"], ["climbing", "wall"]: self = .wall
      case ["boulder"], ["boulder", "climb"], ["boulder", "climbing"], ["bouldering"]: self = .boulder
      default: return nil
      }
    }

    /// The name the assistant says for it, and the one the app's vocabulary teaches ("wall climb").
    public var intentWorkoutName: String {
      switch self {
      case .wall: "wall climb"
      case .boulder: "boulder climb"
      }
    }
  }

  /// Where the workout takes place (`INWorkoutLocationType`'s cases other than unknown).
  public enum Location: String, Codable, Sendable, CaseIterable {
    case indoor
    case outdoor
  }

  /// A goal: a value in one of `INWorkoutGoalUnitType`'s units (its case names, e.g. "minute", "mile").
  public struct Goal: Codable, Sendable, Equatable {
    /// The units of `INWorkoutGoalUnitType`, by case name (without "unknown").
    public static let units = [
      "inch", "meter", "foot", "mile", "yard", "second", "minute", "hour", "joule", "kiloCalorie",
    ]
    public var value: Double
    public var unit: String

    public init(value: Double, unit: String) {
      self.value = value
      self.unit = unit
    }

    /// A goal as stored: a finite positive value in one of `units`; anything else (planted in the shared defaults)
    /// makes the history unreadable rather than reaching the assistant as a unit of no intent.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      value = try container.decode(Double.self, forKey: .value)
      unit = try container.decode(String.self, forKey: .unit)
      guard value.isFinite, value > 0, Self.units.contains(unit) else {
        throw DecodingError.dataCorruptedError(
          forKey: .unit, in: container, debugDescription: "not a goal: \(value) \(unit)")
      }
    }

    /// "30 minutes", "1 hour", "2.5 miles".
    public var spoken: String {
      let number =
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
      let name = unit == "kiloCalorie" ? "kilocalorie" : (unit == "foot" && value != 1 ? "feet" : unit)
      return value == 1 || name == "feet" || name.hasSuffix("s") ? "\(number) \(name)" : "\(number) \(name)s"
    }
  }

  /// How far the workout has got. Active and paused workouts are current; ended and cancelled ones are history.
  public enum State: String, Codable, Sendable, CaseIterable {
    case active
    case paused
    case ended
    case cancelled

    /// Active or paused: the workout is still going on.
    public var isOngoing: Bool { self == .active || self == .paused }
  }

  public var obstacle: Obstacle
  public var goal: Goal?
  public var location: Location?
  /// A workout without a goal to reach (`isOpenEnded`).
  public var isOpenEnded: Bool
  public var state: State
  /// When it started, ISO 8601 (UTC).
  public var startedAt: String
  /// When it ended or was cancelled, ISO 8601 (UTC); nil while it is ongoing.
  public var finishedAt: String?

  public init(
    obstacle: Obstacle, goal: Goal? = nil, location: Location? = nil, isOpenEnded: Bool = false,
    state: State = .active, startedAt: String, finishedAt: String? = nil
  ) {
    self.obstacle = obstacle
    self.goal = goal
    self.location = location
    self.isOpenEnded = isOpenEnded
    self.state = state
    self.startedAt = startedAt
    self.finishedAt = finishedAt
  }

  /// "outdoor wall climb, goal 30 minutes", "wall climb, open-ended".
  public var summary: String {
    var text = (location.map { "\($0.rawValue) " } ?? "") + obstacle.intentWorkoutName
    if let goal { text += ", goal \(goal.spoken)" }
    if isOpenEnded { text += ", open-ended" }
    return text
  }
}

/// Why a workout command was refused, with the workout intents' response code for it (the system-intent catalog:
/// `failureOngoingWorkout`, `failureNoMatchingWorkout`).
public enum WorkoutError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Starting while a workout is active or paused.
  case ongoingWorkout(Workout)
  /// Pausing, ending or cancelling with no workout going on.
  case noActiveWorkout
  /// Resuming with no workout paused (`current` is the active one, if any).
  case notPaused(current: Workout?)
  /// Pausing a workout that is already paused.
  case alreadyPaused(Workout)
  /// Pausing, resuming, ending or cancelling a workout the user named, when the one going on is another.
  case notNamed(String, current: Workout)
  /// The shared defaults hold something other than a history under `key` (written by another program).
  case unreadableHistory(key: String)

  /// The response code of the workout intent refused for this reason.
  public var responseCode: String {
    switch self {
    case .ongoingWorkout: "failureOngoingWorkout"
    case .noActiveWorkout, .notPaused, .alreadyPaused, .notNamed: "failureNoMatchingWorkout"
    case .unreadableHistory: "failure"
    }
  }

  public var description: String {
    switch self {
    case .ongoingWorkout(let workout):
      "a \(workout.obstacle.intentWorkoutName) is already \(workout.state == .paused ? "paused" : "going on")"
    case .noActiveWorkout: "no workout is going on"
    case .notPaused(let current):
      current.map { "the \($0.obstacle.intentWorkoutName) is not paused" } ?? "no workout is paused"
    case .alreadyPaused(let workout): "the \(workout.obstacle.intentWorkoutName) is already paused"
    case .notNamed(let name, let current):
      "the workout going on is a \(current.obstacle.intentWorkoutName), not \(name)"
    case .unreadableHistory(let key):
      "the shared defaults of \(WorkoutHistory.appGroupIdentifier) hold no workout history under \"\(key)\"; "
        + "remove the key (assistant defaults delete \(WorkoutHistory.appGroupIdentifier) \(key)) to start a new one"
    }
  }
}

/// The workout history in the app group's shared defaults (the seed's `WorkoutHistory`, whose
/// `sharedUserDefaults` is `UserDefaults(suiteName:)` of the group): every workout, oldest first, under the key
/// `workoutHistory`; the last one is the current workout when it is active or paused. Shared by the Ascent app and its
/// Intents extension; `assistant defaults read group.com.example.ascent` shows it. Every change is one locked update
/// of the defaults, so the app and the extension never lose each other's writes.
public struct WorkoutHistory: Sendable {
  /// The app group both the app and the extension are entitled to.
  public static let appGroupIdentifier = "group.com.example.ascent"
  /// The key of the history in the shared defaults.
  public static let defaultsKey = "workoutHistory"
  /// How many workouts the history keeps: the newest.
  public static let limit = 1000

  private let document: Document<DefaultsContent>

  public init(container: AppGroupContainer) {
    document = container.defaults.document
  }

  /// The workouts the defaults hold: none without the key.
  /// - Throws: `WorkoutError.unreadableHistory` when the key holds something else (written by another program).
  static func workouts(in content: DefaultsContent) throws -> [Workout] {
    guard let value = content.values[defaultsKey] else { return [] }
    do {
      return try JSONDecoder().decode([Workout].self, from: JSONEncoder().encode(value))
    } catch {
      throw WorkoutError.unreadableHistory(key: defaultsKey)
    }
  }

  private func updateHistory<Result: Sendable>(_ body: @escaping @Sendable (inout [Workout]) throws -> Result)
    async throws
    -> Result
  {
    try await document.update { content in
      var workouts = try Self.workouts(in: content)
      let result = try body(&workouts)
      // The newest `limit` are kept, so the history the extension reads stays well within its memory.
      if workouts.count > Self.limit { workouts.removeFirst(workouts.count - Self.limit) }
      content.values[Self.defaultsKey] = try JSONDecoder().decode(
        JSONValue.self, from: JSONEncoder().encode(workouts))
      return result
    }
  }

  /// Every workout, oldest first.
  public func load() async throws -> [Workout] { try Self.workouts(in: await document.read()) }

  /// The newest workout, whatever its state (the seed's `workoutHistory.last`).
  public func last() async throws -> Workout? { try await load().last }

  /// The workout going on (active or paused), or nil.
  public func current() async throws -> Workout? {
    try await load().last.flatMap { $0.state.isOngoing ? $0 : nil }
  }

  /// Starts a workout.
  /// - Throws: `WorkoutError.ongoingWorkout` when one is active or paused.
  @discardableResult
  public func start(
    _ obstacle: Workout.Obstacle, goal: Workout.Goal? = nil, location: Workout.Location? = nil,
    isOpenEnded: Bool = false, at date: Date = Date()
  ) async throws -> Workout {
    let workout = Workout(
      obstacle: obstacle, goal: goal, location: location, isOpenEnded: isOpenEnded,
      startedAt: Self.timestamp(date))
    return try await updateHistory { workouts in
      if let last = workouts.last, last.state.isOngoing { throw WorkoutError.ongoingWorkout(last) }
      workouts.append(workout)
      return workout
    }
  }

  /// Pauses the active workout.
  /// - Throws: `WorkoutError.noActiveWorkout`, or `.alreadyPaused`.
  @discardableResult
  public func pause(named name: String? = nil) async throws -> Workout {
    try await changeCurrent(named: name) { workout in
      if workout.state == .paused { throw WorkoutError.alreadyPaused(workout) }
      workout.state = .paused
    }
  }

  /// Resumes the paused workout.
  /// - Throws: `WorkoutError.notPaused` when none is paused.
  @discardableResult
  public func resume(named name: String? = nil) async throws -> Workout {
    try await updateHistory { workouts in
      guard let index = workouts.indices.last, workouts[index].state.isOngoing else {
        throw WorkoutError.notPaused(current: nil)
      }
      try Self.check(workouts[index], isNamed: name)
      guard workouts[index].state == .paused else { throw WorkoutError.notPaused(current: workouts[index]) }
      workouts[index].state = .active
      return workouts[index]
    }
  }

  /// Ends the workout going on (active or paused); it stays in the history.
  /// - Throws: `WorkoutError.noActiveWorkout`.
  @discardableResult
  public func end(named name: String? = nil, at date: Date = Date()) async throws -> Workout {
    try await changeCurrent(named: name) { workout in
      workout.state = .ended
      workout.finishedAt = Self.timestamp(date)
    }
  }

  /// Cancels the workout going on (active or paused); it stays in the history, marked cancelled.
  /// - Throws: `WorkoutError.noActiveWorkout`.
  @discardableResult
  public func cancel(named name: String? = nil, at date: Date = Date()) async throws -> Workout {
    try await changeCurrent(named: name) { workout in
      workout.state = .cancelled
      workout.finishedAt = Self.timestamp(date)
    }
  }

  /// Whether `workout` is the one the user named: any, when no name was said; else the one whose obstacle the name
  /// names ("Pause my wall climb workout" never pauses a boulder climb).
  /// - Throws: `WorkoutError.notNamed`.
  public static func check(_ workout: Workout, isNamed name: String?) throws {
    guard let name, !name.allSatisfy(\.isWhitespace) else { return }
    if Workout.Obstacle(intentWorkoutName: name) != workout.obstacle {
      throw WorkoutError.notNamed(name, current: workout)
    }
  }

  private func changeCurrent(
    named name: String?, _ change: @escaping @Sendable (inout Workout) throws -> Void
  ) async throws -> Workout {
    try await updateHistory { workouts in
      guard let index = workouts.indices.last, workouts[index].state.isOngoing else {
        throw WorkoutError.noActiveWorkout
      }
      try Self.check(workouts[index], isNamed: name)
      try change(&workouts[index])
      return workouts[index]
    }
  }

  private static func timestamp(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
  }
}
