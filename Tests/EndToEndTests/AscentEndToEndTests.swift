import Foundation
import TestSupport
import Testing

/// Ascent, seed 003's workout sample, through the real binaries: the AscentIntents extension resolves the workout
/// name exactly as the seed's `resolveWorkoutName`, confirms against the history the app keeps in the app group, and
/// answers handleInApp, so the ascent app, launched in the background, starts, pauses, resumes, ends or cancels the
/// workout. Starting and resuming always need an unlocked device (Apple's rule for those two system intents).
@Suite(.serialized, .tags(.endToEnd))
struct AscentEndToEndTests {
  func ascentHost() async throws -> HostFixture { try await HostFixture.withAscent() }

  func history(_ host: HostFixture) async throws -> [String] { try await host.ascentHistory() }

  /// How many times the Intents extension was started (the host's lines in its log).
  func extensionStarts(_ host: HostFixture) -> Int {
    let log = URL(fileURLWithPath: host.home).appendingPathComponent("Logs/com.example.ascent.AscentIntents.log")
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").filter { $0.hasPrefix("--- ") && $0.contains("AscentIntents started") }.count
  }

  /// resolveWorkoutName, each branch: a name that is an obstacle succeeds; no name and no history asks (needsValue),
  /// as does a name that is no obstacle; no name after a workout suggests its obstacle (confirmationRequired), which
  /// the user accepts or refuses (and is then asked).
  @Test func theWorkoutNameResolvesAsTheSeedDoes() async throws {
    let host = try await ascentHost()
    defer { host.directory.remove() }

    // needsValue: nothing said and nothing done yet. The question is the catalog's, on the terminal (stderr here).
    let first = try await host.assistant([
      "run", "Ascent", "StartWorkout", "--answer", "boulder climb", "--answer", "yes",
    ])
    #expect(first.code == 0, "\(first)")
    #expect(first.stderr.contains("What kind of workout? boulder climb"), "\(first)")
    #expect(!first.stderr.contains("Just to confirm"), "\(first)")
    #expect(try await history(host) == ["boulder climb: active"])
    #expect(try await host.assistant(["run", "Ascent", "EndWorkout"]).code == 0)

    // needsValue for a name that is no obstacle: asked again, the same question.
    let swimming = try await host.assistant(
      ["run", "Ascent", "StartWorkout", "workoutName=swimming", "--answer", "wall climbing", "--answer", "yes"])
    #expect(swimming.code == 0, "\(swimming)")
    #expect(swimming.stderr.contains("What kind of workout? wall climbing"), "\(swimming)")
    #expect(try await history(host) == ["boulder climb: ended", "wall climb: active"])
    #expect(try await host.assistant(["run", "Ascent", "CancelWorkout"]).code == 0)

    // confirmationRequired, accepted: the last workout's obstacle (wall climb) is started again.
    let accepted = try await host.assistant(["run", "Ascent", "StartWorkout", "--answer", "yes", "--answer", "yes"])
    #expect(accepted.code == 0, "\(accepted)")
    #expect(accepted.stderr.contains("wall climb?"), "\(accepted)")
    #expect(!accepted.stderr.contains("What kind of workout?"), "\(accepted)")
    #expect(try await history(host) == ["boulder climb: ended", "wall climb: cancelled", "wall climb: active"])
    #expect(try await host.assistant(["run", "Ascent", "EndWorkout"]).code == 0)

    // confirmationRequired, refused: the name is asked for.
    let refused = try await host.assistant(
      ["run", "Ascent", "StartWorkout", "--answer", "no", "--answer", "boulder climb", "--answer", "yes"])
    #expect(refused.code == 0, "\(refused)")
    #expect(refused.stderr.contains("wall climb? no"), "\(refused)")
    #expect(refused.stderr.contains("What kind of workout? boulder climb"), "\(refused)")
    #expect(
      try await history(host) == [
        "boulder climb: ended", "wall climb: cancelled", "wall climb: ended", "boulder climb: active",
      ])

    // success: a name said is never questioned.
    #expect(try await host.assistant(["run", "Ascent", "EndWorkout"]).code == 0)
    let named = try await host.assistant(["run", "Ascent", "StartWorkout", "workoutName=wall climb", "--answer", "yes"])
    #expect(named.code == 0, "\(named)")
    #expect(named.stderr == "Ready to start your wall climb workout in Ascent? yes\n", "\(named)")
    #expect(try await history(host).last == "wall climb: active")
  }

  /// The five intents, each handed to the app (handleInApp), which keeps the history the extension reads: a workout
  /// started, paused, resumed and ended; another started and cancelled. What the extension confirms comes from what
  /// the app wrote: once a workout is ended, pausing is refused (failureNoMatchingWorkout, exit 1) and the app is not
  /// launched for it.
  @Test func theFiveIntentsShareTheHistoryWithTheApp() async throws {
    let host = try await ascentHost()
    defer { host.directory.remove() }
    let steps: [(String, String)] = [
      ("StartWorkout", "wall climb: active"), ("PauseWorkout", "wall climb: paused"),
      ("ResumeWorkout", "wall climb: active"), ("EndWorkout", "wall climb: ended"),
    ]
    for (intent, state) in steps {
      let arguments =
        ["run", "Ascent", intent] + (intent == "StartWorkout" ? ["workoutName=wall climb", "--answer", "yes"] : [])
      let result = try await host.assistant(arguments + ["--json"])
      #expect(result.code == 0, "\(intent): \(result)")
      #expect(result.stdout.contains("\"code\":\"success\""), "\(intent): \(result)")
      #expect(try await history(host) == [state], "\(intent)")
    }
    let appLog = URL(fileURLWithPath: host.home).appendingPathComponent("Logs/com.example.ascent.log")
    let launches = {
      ((try? String(contentsOf: appLog, encoding: .utf8)) ?? "").components(separatedBy: " started").count
    }
    let before = launches()
    let pause = try await host.assistant(["run", "Ascent", "PauseWorkout", "--json"])
    #expect(pause.code == 1, "\(pause)")
    #expect(pause.stdout.contains("\"code\":\"failureNoMatchingWorkout\""), "\(pause)")
    #expect(launches() == before, "the app was launched for a refused intent")

    #expect(
      try await host.assistant(["run", "Ascent", "StartWorkout", "workoutName=bouldering", "--answer", "yes"]).code == 0
    )
    #expect(try await host.assistant(["run", "Ascent", "CancelWorkout"]).code == 0)
    #expect(try await history(host) == ["wall climb: ended", "boulder climb: cancelled"])
    // The history is the group's shared defaults (the seed's sharedUserDefaults), under one key.
    let defaults = try await host.assistant(["defaults", "read", "group.com.example.ascent", "workoutHistory"])
    #expect(defaults.code == 0, "\(defaults)")
    #expect(defaults.stdout.contains("\"obstacle\" : \"boulder\""), "\(defaults)")
  }

  /// Starting (and resuming) a workout always needs an unlocked device: locked, the passcode is asked before the
  /// extension is started, and without it nothing is started at all. Pausing is not restricted (the control: the
  /// rule is the intent's, not the app's). `explain` names the rule.
  @Test func aLockedStartAsksForThePasscodeFirst() async throws {
    let host = try await ascentHost()
    defer { host.directory.remove() }
    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
    #expect(try await host.assistant(["lock"]).code == 0)
    let rule = "INStartWorkoutIntent always needs an unlocked device"

    let refused = try await host.assistant(["Start a wall climb workout with Ascent"])
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("You need to unlock your device first."), "\(refused)")
    #expect(refused.stderr.contains(rule), "\(refused)")
    #expect(extensionStarts(host) == 0, "the extension ran before the device was unlocked")
    #expect(try await history(host).isEmpty)

    let wrong = try await host.assistant(
      ["--passcode-stdin", "Start a wall climb workout with Ascent"], input: "1111\n")
    #expect(wrong.code == 77 && wrong.stderr.contains("wrong passcode"), "\(wrong)")
    #expect(extensionStarts(host) == 0)

    let unlocked = try await host.assistant(
      ["--passcode-stdin", "Start a wall climb workout with Ascent", "--answer", "yes"], input: "2468\n")
    #expect(unlocked.code == 0, "\(unlocked) \(unlocked.stderr)")
    #expect(try await history(host) == ["wall climb: active"])

    // The control: locked again, pausing runs without a passcode; resuming asks again.
    #expect(try await host.assistant(["lock"]).code == 0)
    let pause = try await host.assistant(["Pause my workout with Ascent"])
    #expect(pause.code == 0, "\(pause)")
    #expect(!pause.stderr.contains("unlock"), "\(pause)")
    let resume = try await host.assistant(["Resume my workout with Ascent"])
    #expect(resume.code == 77, "\(resume)")
    #expect(resume.stderr.contains("INResumeWorkoutIntent always needs an unlocked device"), "\(resume)")
    #expect(try await history(host) == ["wall climb: paused"])

    let explained = try await host.assistant(["explain", "Ascent", "StartWorkout"])
    #expect(explained.code == 0, "\(explained)")
    #expect(explained.stdout.contains("needs an unlocked device: \(rule)"), "\(explained)")
    #expect(explained.stdout.contains("[system-intent-always-unlocked]"), "\(explained)")
    let control = try await host.assistant(["explain", "Ascent", "PauseWorkout"])
    #expect(!control.stdout.contains("system-intent-always-unlocked"), "\(control)")
    #expect(control.stdout.contains("when locked: it runs"), "\(control)")
  }

  /// The seed's utterances, said: "Start a 30 minute outdoor wall climb with Ascent" gives the goal, its unit, the
  /// location and the name (the app records all four); "Start a wall climb workout with Ascent" the name only;
  /// "Start a workout with Ascent" nothing, so the last workout's obstacle is suggested; pause, resume, end and
  /// cancel by voice. The control: an example's other wording ("a 45 minute indoor boulder climb") is read as the
  /// same template, with its own values.
  @Test func theSeedsUtterances() async throws {
    let host = try await ascentHost()
    defer { host.directory.remove() }
    typealias Outcome = WorkoutOutcome
    func say(_ utterance: String, _ answers: String...) async throws -> Outcome {
      let result = try await host.assistant(["--json", utterance] + answers.flatMap { ["--answer", $0] })
      #expect(result.code == 0, "\(utterance): \(result)")
      return try JSONDecoder().decode(Outcome.self, from: Data(result.stdout.utf8))
    }

    let full = try await say("Start a 30 minute outdoor wall climb with Ascent", "yes")
    #expect(full.intent == "INStartWorkoutIntent" && full.code == "success")
    #expect(
      full.parameters == [
        "workoutName": .text("wall climb"), "goalValue": .number(30), "workoutGoalUnitType": .text("minute"),
        "workoutLocationType": .text("outdoor"),
      ], "\(full)")
    #expect(try await history(host) == ["outdoor wall climb, goal 30 minutes: active"])

    for (utterance, intent, state) in [
      ("Pause my workout with Ascent", "INPauseWorkoutIntent", "paused"),
      ("Resume my workout with Ascent", "INResumeWorkoutIntent", "active"),
      ("End my workout with Ascent", "INEndWorkoutIntent", "ended"),
    ] {
      let outcome = try await say(utterance)
      #expect(outcome.intent == intent && outcome.code == "success", "\(utterance): \(outcome)")
      #expect(try await history(host).last == "outdoor wall climb, goal 30 minutes: \(state)", "\(utterance)")
    }

    let named = try await say("Start a wall climb workout with Ascent", "yes")
    #expect(named.parameters == ["workoutName": .text("wall climb")], "\(named)")
    let cancelled = try await say("Cancel my workout with Ascent")
    #expect(cancelled.intent == "INCancelWorkoutIntent" && cancelled.code == "success")
    #expect(try await history(host).last == "wall climb: cancelled")

    // Nothing said: the last workout's obstacle is suggested ("Just to confirm ... wall climb?").
    let nothing = try await host.assistant(["Start a workout with Ascent", "--answer", "yes", "--answer", "yes"])
    #expect(nothing.code == 0, "\(nothing)")
    #expect(nothing.stderr.contains("wall climb? yes"), "\(nothing)")
    #expect(try await history(host).last == "wall climb: active")
    #expect(try await host.assistant(["End my workout with Ascent"]).code == 0)

    let other = try await say("Start a 45 minute indoor boulder climb with Ascent", "yes")
    #expect(
      other.parameters == [
        "workoutName": .text("boulder climb"), "goalValue": .number(45), "workoutGoalUnitType": .text("minute"),
        "workoutLocationType": .text("indoor"),
      ], "\(other)")
    #expect(try await history(host).last == "indoor boulder climb, goal 45 minutes: active")
  }

  /// Pausing, resuming, ending or cancelling a workout the user names: another workout going on is never touched.
  /// Refused at the extension's confirm (failureNoMatchingWorkout, exit 1, Siri's sentence names the workout asked
  /// for), before the app is launched. The control: said with the right name, or with none, it is done.
  @Test func aNamedWorkoutThatIsNotGoingOnIsLeftAlone() async throws {
    let host = try await ascentHost()
    defer { host.directory.remove() }
    #expect(
      try await host.assistant(["run", "Ascent", "StartWorkout", "workoutName=wall climb", "--answer", "yes"]).code
        == 0)
    for (utterance, said) in [
      ("End my yoga workout with Ascent", "There's no yoga workout in progress to end in Ascent."),
      ("Cancel my boulder climb workout with Ascent", "There's no boulder climb workout in progress to cancel"),
      ("Pause my bouldering workout with Ascent", "There's no active bouldering workout to pause in Ascent."),
    ] {
      let result = try await host.assistant([utterance])
      #expect(result.code == 1, "\(utterance): \(result)")
      #expect(result.stdout.hasPrefix(said), "\(utterance): \(result)")
      #expect(try await history(host) == ["wall climb: active"], "\(utterance)")
    }
    let pause = try await host.assistant(["Pause my wall climb workout with Ascent"])
    #expect(pause.code == 0 && pause.stdout.hasPrefix("Pausing your wall climb workout in Ascent."), "\(pause)")
    let resume = try await host.assistant(["run", "Ascent", "ResumeWorkout", "workoutName=boulder climb"])
    #expect(resume.code == 1, "\(resume)")
    #expect(try await history(host) == ["wall climb: paused"])
    #expect(try await host.assistant(["End my workout with Ascent"]).code == 0)
    #expect(try await history(host) == ["wall climb: ended"])
  }
}
