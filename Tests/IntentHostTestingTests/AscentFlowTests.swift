import AppGroupStore
import ExtensionProtocol
import IntentHostTesting
import TestSupport
import Testing

/// The Ascent example (workouts, handled in the app) through the test harness: the workout's name asked, the
/// confirmation accepted or declined step by step, the workout handed to the app, which keeps the history in the
/// app group; a locked device asks for the passcode before anything starts.
@Suite(.serialized, .tags(.process))
struct AscentFlowTests {
  @Test func aWorkoutIsStartedInTheApp() async throws {
    try await withTestHost { host in
      try await host.installExample("Ascent")
      let result = try await host.conversation("Start a workout with Ascent") { siri in
        try await siri.expect("What kind of workout?", kind: .value)
        try await siri.answer("boulder climb")
        let confirmation = try await siri.nextQuestion()
        #expect(confirmation.kind == .yesNo, "\(confirmation)")
        #expect(confirmation.prompt.contains("boulder climb"), "\(confirmation)")
        try await siri.confirm()
        return try await siri.result()
      }
      #expect(result.status == .success, "\(result.transcript)")
      #expect(result.app == "Ascent")
      #expect(result.intent == "INStartWorkoutIntent")
      // Handed to the app (handleInApp): the app itself handled it, and its answer is the intent's.
      #expect(result.responseCode == "success", "\(result.transcript)")
      #expect(result.dialog.last == "Starting your boulder climb workout in Ascent.")
      #expect(result.transcript.recorded.contains { $0.contains(#""peer":"Ascent""#) }, "\(result.transcript)")
      #expect(result.parameters["workoutName"] != nil, "\(result.parameters)")
      let history = try await host.appGroup("group.com.example.ascent").value(forKey: "workoutHistory")
      #expect("\(history)".contains("boulder"), "\(history)")
    }
  }

  @Test func decliningTheStartStartsNothing() async throws {
    try await withTestHost { host in
      try await host.installExample("Ascent")
      let result = try await host.conversation("Start a wall climb workout with Ascent") { siri in
        try await siri.decline()
        return try await siri.result()
      }
      #expect(result.status == .failureResponse, "\(result.transcript)")
      #expect(result.questions.count == 1)
      // Nothing was handed to the app: it wrote no history.
      await #expect(throws: TestHostError.self) {
        _ = try await host.appGroup("group.com.example.ascent").value(forKey: "workoutHistory")
      }
    }
  }

  @Test func aLockedDeviceAsksForThePasscodeFirst() async throws {
    try await withTestHost { host in
      try await host.installExample("Ascent")
      try await host.setPasscode("2468")
      try await host.lock()
      let refused = try await host.say("Start a wall climb workout with Ascent")
      #expect(refused.status == .refused)
      #expect(refused.errorMessage?.contains("INStartWorkoutIntent always needs an unlocked device") == true)
      let started = try await host.say("Start a wall climb workout with Ascent", answers: ["yes"], passcode: "2468")
      #expect(started.status == .success, "\(started.transcript)")
    }
  }
}
