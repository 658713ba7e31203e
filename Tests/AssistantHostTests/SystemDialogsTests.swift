import BundleManifest
import ExtensionProtocol
import TestSupport
import Testing
import Understanding

@testable import AssistantHost
@testable import Understanding

/// Siri's sentences for the response codes of system intents (`SystemDialogs`), and how the driver chooses the
/// answer's dialog (`IntentDriver.answer`): a definition's template, else Siri's sentence, else the generic one.
@Suite(.tags(.unit))
struct SystemDialogsTests {
  /// The answer the driver gives for `code` of a catalog intent (or of `spec`, when given), as Ascent.
  static func answer(
    _ intentClass: String, _ code: ResponseCode, response: [String: ParameterValue] = [:],
    intent: [String: ParameterValue] = [:], spec: IntentSpec? = nil, app: String = "Ascent"
  ) -> (dialog: String, voiceDialog: String, isSuccess: Bool) {
    let spec = spec ?? SystemIntent.named(intentClass)?.spec
    return IntentDriver.answer(
      to: IntentResponse(code: code, parameters: response),
      of: Intent(name: intentClass, identifier: "1", parameters: intent), appName: app, spec: spec,
      interpreter: ValueInterpreter(intentClass: intentClass, definition: nil, vocabularies: []))
  }

  /// What Ascent's app answers on a success: the workout it acted on.
  static let wallClimb: [String: ParameterValue] = [
    "workoutName": .string("wall climb"), "workout": .string("wall climb"), "state": .string("active"),
  ]
  /// What Ascent answers on a refusal: the reason, which is not said.
  static let reason: [String: ParameterValue] = ["reason": .string("no workout is going on")]

  struct Row: Sendable, CustomTestStringConvertible {
    var intent: String
    var code: String
    var response: [String: ParameterValue]
    var dialog: String
    var testDescription: String { "\(intent) \(code)" }
  }

  /// Each workout intent and each of its codes that can be the final answer (not `ready`, only from confirm before
  /// handle; not `handleInApp`, whose answer is the app's).
  static let workoutRows: [Row] = [
    Row(
      intent: "INStartWorkoutIntent", code: "success", response: wallClimb,
      dialog: "Starting your wall climb workout in Ascent."),
    Row(
      intent: "INStartWorkoutIntent", code: "failureOngoingWorkout", response: reason,
      dialog: "You already have a workout going in Ascent."),
    Row(
      intent: "INStartWorkoutIntent", code: "failureNoMatchingWorkout", response: reason,
      dialog: "Sorry, there's no such workout in Ascent."),
    Row(
      intent: "INStartWorkoutIntent", code: "continueInApp", response: wallClimb,
      dialog: "Opening Ascent to start your wall climb workout."),
    Row(
      intent: "INStartWorkoutIntent", code: "failureRequiringAppLaunch", response: [:],
      dialog: "You need to open Ascent to start your workout."),
    Row(
      intent: "INStartWorkoutIntent", code: "failure", response: reason,
      dialog: "Sorry, I couldn't start your workout in Ascent."),
    Row(
      intent: "INStartWorkoutIntent", code: "unspecified", response: [:],
      dialog: "Sorry, I couldn't start your workout in Ascent."),
    Row(
      intent: "INPauseWorkoutIntent", code: "success", response: wallClimb,
      dialog: "Pausing your wall climb workout in Ascent."),
    Row(
      intent: "INPauseWorkoutIntent", code: "failureNoMatchingWorkout", response: reason,
      dialog: "There's no active workout to pause in Ascent."),
    Row(
      intent: "INPauseWorkoutIntent", code: "continueInApp", response: [:],
      dialog: "Opening Ascent to pause your workout."),
    Row(
      intent: "INPauseWorkoutIntent", code: "failureRequiringAppLaunch", response: wallClimb,
      dialog: "You need to open Ascent to pause your wall climb workout."),
    Row(
      intent: "INPauseWorkoutIntent", code: "failure", response: wallClimb,
      dialog: "Sorry, I couldn't pause your wall climb workout in Ascent."),
    Row(
      intent: "INPauseWorkoutIntent", code: "unspecified", response: [:],
      dialog: "Sorry, I couldn't pause your workout in Ascent."),
    Row(
      intent: "INResumeWorkoutIntent", code: "success", response: wallClimb,
      dialog: "Resuming your wall climb workout in Ascent."),
    Row(
      intent: "INResumeWorkoutIntent", code: "failureNoMatchingWorkout", response: reason,
      dialog: "There's no paused workout to resume in Ascent."),
    Row(
      intent: "INResumeWorkoutIntent", code: "continueInApp", response: [:],
      dialog: "Opening Ascent to resume your workout."),
    Row(
      intent: "INResumeWorkoutIntent", code: "failureRequiringAppLaunch", response: [:],
      dialog: "You need to open Ascent to resume your workout."),
    Row(
      intent: "INResumeWorkoutIntent", code: "failure", response: [:],
      dialog: "Sorry, I couldn't resume your workout in Ascent."),
    Row(
      intent: "INResumeWorkoutIntent", code: "unspecified", response: [:],
      dialog: "Sorry, I couldn't resume your workout in Ascent."),
    Row(
      intent: "INEndWorkoutIntent", code: "success", response: wallClimb,
      dialog: "Ending your wall climb workout in Ascent."),
    Row(
      intent: "INEndWorkoutIntent", code: "failureNoMatchingWorkout", response: reason,
      dialog: "There's no workout in progress to end in Ascent."),
    Row(
      intent: "INEndWorkoutIntent", code: "continueInApp", response: [:],
      dialog: "Opening Ascent to end your workout."),
    Row(
      intent: "INEndWorkoutIntent", code: "failureRequiringAppLaunch", response: [:],
      dialog: "You need to open Ascent to end your workout."),
    Row(
      intent: "INEndWorkoutIntent", code: "failure", response: [:],
      dialog: "Sorry, I couldn't end your workout in Ascent."),
    Row(
      intent: "INEndWorkoutIntent", code: "unspecified", response: [:],
      dialog: "Sorry, I couldn't end your workout in Ascent."),
    Row(
      intent: "INCancelWorkoutIntent", code: "success", response: wallClimb,
      dialog: "Cancelling your wall climb workout in Ascent."),
    Row(
      intent: "INCancelWorkoutIntent", code: "failureNoMatchingWorkout", response: reason,
      dialog: "There's no workout in progress to cancel in Ascent."),
    Row(
      intent: "INCancelWorkoutIntent", code: "continueInApp", response: [:],
      dialog: "Opening Ascent to cancel your workout."),
    Row(
      intent: "INCancelWorkoutIntent", code: "failureRequiringAppLaunch", response: [:],
      dialog: "You need to open Ascent to cancel your workout."),
    Row(
      intent: "INCancelWorkoutIntent", code: "failure", response: [:],
      dialog: "Sorry, I couldn't cancel your workout in Ascent."),
    Row(
      intent: "INCancelWorkoutIntent", code: "unspecified", response: [:],
      dialog: "Sorry, I couldn't cancel your workout in Ascent."),
  ]

  @Test(arguments: workoutRows)
  func eachWorkoutCodeHasSirisSentence(_ row: Row) {
    let answer = Self.answer(row.intent, ResponseCode(row.code), response: row.response)
    #expect(answer.dialog == row.dialog)
    #expect(answer.voiceDialog == row.dialog)
    #expect(answer.isSuccess == (row.code == "success"))
    // The app's reason is never said.
    #expect(!answer.dialog.contains("going on"))
  }

  /// The table above covers every code of the five workout intents that can be the final answer.
  @Test func theWorkoutTableCoversEveryFinalCode() {
    for name in ["Start", "Pause", "Resume", "End", "Cancel"] {
      let intent = "IN\(name)WorkoutIntent"
      let codes = SystemIntent.named(intent)!.spec.response!.codes.map(\.name)
        .filter { !["ready", "handleInApp"].contains($0) }
      #expect(Set(Self.workoutRows.filter { $0.intent == intent }.map(\.code)) == Set(codes), "\(intent)")
    }
  }

  @Test func withoutAWorkoutNameTheSentenceNamesNone() {
    #expect(Self.answer("INStartWorkoutIntent", .success).dialog == "Starting your workout in Ascent.")
    // A blank name counts as none.
    #expect(
      Self.answer("INStartWorkoutIntent", .success, response: ["workoutName": .string("  ")]).dialog
        == "Starting your workout in Ascent.")
    // Control: with a name, the sentence says it.
    #expect(
      Self.answer("INStartWorkoutIntent", .success, response: ["workoutName": .string("boulder climb")]).dialog
        == "Starting your boulder climb workout in Ascent.")
  }

  @Test func theResponsesValueComesFirstThenTheIntents() {
    // The app says which workout it paused, whatever the user named.
    #expect(
      Self.answer(
        "INPauseWorkoutIntent", .success, response: Self.wallClimb, intent: ["workoutName": .string("boulder climb")]
      ).dialog == "Pausing your wall climb workout in Ascent.")
    // Without it, the intent's value.
    #expect(
      Self.answer(
        "INStartWorkoutIntent", "failureNoMatchingWorkout", response: Self.reason,
        intent: ["workoutName": .string("yoga")]
      ).dialog == "Sorry, there's no yoga workout in Ascent.")
    #expect(
      Self.answer("INPauseWorkoutIntent", "failureNoMatchingWorkout", intent: ["workoutName": .string("wall climb")])
        .dialog == "There's no active wall climb workout to pause in Ascent.")
  }

  /// A definition that customises a system intent and gives the code a template: its template is said, with its
  /// concise form for the voice.
  @Test func aDefinitionsTemplateStillWins() throws {
    var spec = try #require(SystemIntent.named("INStartWorkoutIntent")?.spec)
    let index = try #require(spec.response?.codes.firstIndex { $0.name == "failureOngoingWorkout" })
    spec.response?.codes[index].template = "Busy: ${reason}."
    spec.response?.codes[index].conciseTemplate = "Busy."
    let answer = Self.answer("INStartWorkoutIntent", "failureOngoingWorkout", response: Self.reason, spec: spec)
    #expect(answer.dialog == "Busy: no workout is going on.")
    #expect(answer.voiceDialog == "Busy.")
    #expect(!answer.isSuccess)
    // Control: without the template, Siri's sentence.
    spec.response?.codes[index].template = nil
    spec.response?.codes[index].conciseTemplate = nil
    #expect(
      Self.answer("INStartWorkoutIntent", "failureOngoingWorkout", spec: spec).dialog
        == "You already have a workout going in Ascent.")
  }

  @Test func aCodeWithoutASentenceFallsBack() {
    #expect(
      SystemDialogs.dialog(intent: "INStartWorkoutIntent", code: "failureExploded", app: "Ascent") { _ in nil }
        == nil)
    #expect(SystemDialogs.dialog(intent: "BookRoomIntent", code: "success", app: "Rooms") { _ in nil } == nil)
    // A catalog intent's code without a sentence: the generic one.
    #expect(Self.answer("INSendPaymentIntent", .failure, app: "Pay").dialog == "Sorry, there was a problem with Pay.")
    #expect(
      Self.answer("INRequestRideIntent", .failureRequiringAppLaunch, app: "Rides").dialog
        == "You need to open Rides to do that.")
    // A custom intent without templates.
    #expect(Self.answer("BookRoomIntent", .success, app: "Rooms").dialog == "Done.")
    #expect(
      Self.answer("BookRoomIntent", "failureOutOfRooms", app: "Rooms").dialog
        == "Sorry, there was a problem with Rooms.")
  }

  @Test func otherDomainsSayTheirValues() {
    #expect(
      Self.answer(
        "INSendPaymentIntent", "failureInsufficientFunds", intent: ["currencyAmount": .string("500 dollars")],
        app: "Pay"
      ).dialog == "Sorry, you don't have enough money in Pay to send 500 dollars.")
    #expect(
      Self.answer(
        "INSendPaymentIntent", .success,
        intent: [
          "payee": .object(ObjectValue(identifier: "ada", displayString: "Ada")),
          "currencyAmount": .string("5 dollars"),
        ], app: "Pay"
      ).dialog == "Sent 5 dollars to Ada with Pay.")
    #expect(
      Self.answer("INSendPaymentIntent", "failurePaymentsAmountAboveMaximum", app: "Pay").dialog
        == "Sorry, that amount is more than Pay can send.")
    #expect(
      Self.answer("INRequestRideIntent", "failureRequiringAppLaunchNoServiceInArea", app: "Rides").dialog
        == "Sorry, Rides doesn't serve that area.")
  }

  /// The names in a sentence.
  static func placeholders(_ template: String) -> [String] {
    renderTemplate(template) { _ in nil }.missing
  }

  /// The catalog names only codes and parameters its intents have; every code it lists has a sentence that needs
  /// no value but the app's name; every catalog intent has its success and its domain codes.
  @Test func theCatalogMatchesTheSystemIntents() throws {
    for (intentClass, codes) in SystemDialogs.catalog {
      let spec = try #require(SystemIntent.named(intentClass)?.spec, "\(intentClass)")
      let known = Set(spec.response!.codes.map(\.name))
      let parameters = Set(spec.parameters.map(\.name)).union(["app"])
      for (code, alternatives) in codes {
        #expect(known.contains(code), "\(intentClass) has no code \(code)")
        #expect(!alternatives.isEmpty, "\(intentClass) \(code)")
        for alternative in alternatives {
          let unknown = Self.placeholders(alternative).filter { !parameters.contains($0) }
          #expect(unknown.isEmpty, "\(intentClass) \(code): \(alternative)")
          #expect(alternative.hasSuffix(".") || alternative.hasSuffix("?"), "\(alternative)")
        }
        let last = try #require(alternatives.last)
        #expect(Self.placeholders(last).allSatisfy { $0 == "app" }, "\(intentClass) \(code): \(last)")
      }
    }
    let notRequired: Set = [
      "unspecified", "ready", "failure", "failureRequiringAppLaunch", "handleInApp", "inProgress", "continueInApp",
    ]
    for (intentClass, intent) in SystemIntent.catalog {
      let required = intent.spec.response!.codes.map(\.name).filter { !notRequired.contains($0) }
      for code in required {
        #expect(SystemDialogs.catalog[intentClass]?[code] != nil, "\(intentClass) has no sentence for \(code)")
      }
    }
  }
}
