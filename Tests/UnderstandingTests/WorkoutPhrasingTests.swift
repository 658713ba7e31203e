import BundleManifest
import ExtensionProtocol
import Foundation
import Testing

@testable import Understanding

/// How people vary the seed's workout phrases (review 15, item 2): a goal, a location or open-endedness with or
/// without a workout's name, a goal after the name ("for 20 minutes"), "workout" after the name, values after the
/// app's name. Each value lands in its own parameter, and the workout's name never takes the rest of the phrase: the
/// generic noun "workout" is no name, nor the last word of one, and a number starts none (`SystemPhrases.mayName`).
/// In-process: nothing runs.
@Suite(.tags(.unit)) struct WorkoutPhrasingTests {
  static let start = "INStartWorkoutIntent"

  static let apps: [AppBundle] = {
    let directory = try! TemporaryDirectory("assistanthost-workout-phrasing")
    defer { directory.remove() }
    return [
      try! AppBundle.load(from: AscentManifests.build(in: directory.url)),
      try! AppBundle.load(from: TestBundles.roomsManifests(in: directory.url)),
    ]
  }()

  struct Said: Sendable, CustomTestStringConvertible {
    var utterance: String
    var intentClass = WorkoutPhrasingTests.start
    var values: [String: ParameterValue]
    var testDescription: String { utterance }
  }

  static let said: [Said] = [
    // No name: a location, a goal, both, open-endedness; the app may then suggest the last workout.
    Said(utterance: "Start an outdoor workout with Ascent", values: ["workoutLocationType": .enumCase("outdoor")]),
    Said(
      utterance: "Start a 30 minute workout with Ascent",
      values: ["goalValue": .decimal(30), "workoutGoalUnitType": .enumCase("minute")]),
    Said(
      utterance: "Start a 30 minute outdoor workout with Ascent",
      values: [
        "goalValue": .decimal(30), "workoutGoalUnitType": .enumCase("minute"),
        "workoutLocationType": .enumCase("outdoor"),
      ]),
    Said(
      utterance: "Start a workout for 30 minutes with Ascent",
      values: ["goalValue": .decimal(30), "workoutGoalUnitType": .enumCase("minute")]),
    Said(
      utterance: "Start an open ended indoor workout with Ascent",
      values: ["isOpenEnded": .boolean(true), "workoutLocationType": .enumCase("indoor")]),
    Said(utterance: "Start workout with Ascent", values: [:]),
    // A name with a goal after it.
    Said(
      utterance: "Start an indoor wall climb for 20 minutes with Ascent",
      values: [
        "workoutName": "wall climb", "goalValue": .decimal(20), "workoutGoalUnitType": .enumCase("minute"),
        "workoutLocationType": .enumCase("indoor"),
      ]),
    Said(
      utterance: "Start a boulder climb workout for 45 minutes with Ascent",
      values: ["workoutName": "boulder climb", "goalValue": .decimal(45), "workoutGoalUnitType": .enumCase("minute")]),
    // A goal and open-endedness before the name.
    Said(
      utterance: "Start a 10 minute open ended wall climb with Ascent",
      values: [
        "workoutName": "wall climb", "goalValue": .decimal(10), "workoutGoalUnitType": .enumCase("minute"),
        "isOpenEnded": .boolean(true),
      ]),
    // "workout" after the name is not part of it.
    Said(
      utterance: "Start a 45 minute boulder climb workout with Ascent",
      values: ["workoutName": "boulder climb", "goalValue": .decimal(45), "workoutGoalUnitType": .enumCase("minute")]),
    Said(
      utterance: "Start an outdoor wall climb workout with Ascent",
      values: ["workoutName": "wall climb", "workoutLocationType": .enumCase("outdoor")]),
    // Values after the app's name.
    Said(
      utterance: "Start a wall climb with Ascent for 30 minutes",
      values: ["workoutName": "wall climb", "goalValue": .decimal(30), "workoutGoalUnitType": .enumCase("minute")]),
    Said(
      utterance: "Start a workout with Ascent for 30 minutes",
      values: ["goalValue": .decimal(30), "workoutGoalUnitType": .enumCase("minute")]),
    // The other intents: "workout" is still no name.
    Said(utterance: "Pause my workout with Ascent", intentClass: "INPauseWorkoutIntent", values: [:]),
    Said(
      utterance: "End my wall climb workout with Ascent", intentClass: "INEndWorkoutIntent",
      values: ["workoutName": "wall climb"]),
    // The workout said as the verb, with a goal: the word said, vocabulary or not; several words only when the app's
    // vocabulary has them (the control: "sunny climb for 30 minutes" is not understood, `theVerbIsOneWord`).
    Said(
      utterance: "Walk 5 miles with Ascent",
      values: ["workoutName": "Walk", "goalValue": .decimal(5), "workoutGoalUnitType": .enumCase("mile")]),
    Said(
      utterance: "Wall climb for 30 minutes with Ascent",
      values: ["workoutName": "wall climb", "goalValue": .decimal(30), "workoutGoalUnitType": .enumCase("minute")]),
    // The controls: a name that is not a value of another parameter stays a name; a text slot of another app's
    // intent may hold "workout" and numbers.
    Said(utterance: "Start a sunny wall climb with Ascent", values: ["workoutName": "sunny wall climb"]),
    Said(utterance: "Start a yoga workout with Ascent", values: ["workoutName": "yoga"]),
    Said(
      utterance: "Book room 12 for 5 workout fans with Rooms", intentClass: "BookRoomIntent",
      values: ["isCancellationOfBooking": false, "roomNumber": 12, "bookedBy": "5 workout fans"]),
    Said(
      utterance: "Book room 12 for workout with Rooms", intentClass: "BookRoomIntent",
      values: ["isCancellationOfBooking": false, "roomNumber": 12, "bookedBy": "workout"]),
  ]

  @Test(arguments: said)
  func eachValueInItsParameter(_ row: Said) throws {
    let match = try UtteranceMatcher(apps: Self.apps).match(row.utterance)
    #expect(match.intentClass == row.intentClass)
    #expect(match.values == row.values)
  }

  /// The phrases that matched: Siri's, with the generic noun where the user said it.
  @Test func thePhrasesThatMatch() throws {
    let matcher = UtteranceMatcher(apps: Self.apps)
    #expect(
      try matcher.match("Start an outdoor workout with Ascent").phrase == "start a ${workoutLocationType} workout")
    #expect(
      try matcher.match("Start an indoor wall climb for 20 minutes with Ascent").phrase
        == "start a ${workoutLocationType} ${workoutName} for ${goalValue} ${workoutGoalUnitType}")
    #expect(
      try matcher.match("Start a wall climb with Ascent for 30 minutes").request
        == "Start a wall climb for 30 minutes")
  }

  /// "kilometer" is no case of Apple's `INWorkoutGoalUnitType`, and IntentHost does not convert it to meters: the
  /// utterance is not understood, rather than the words becoming the workout's name. The control: a unit Apple has.
  @Test func aGoalInAUnitAppleDoesNotHaveIsNotAName() throws {
    let matcher = UtteranceMatcher(apps: Self.apps)
    let error = try #require(throws: UnderstandingError.self) {
      try matcher.match("Start a 5 kilometer wall climb with Ascent")
    }
    #expect(error.kind == .noMatch)
    #expect(error.message.hasPrefix("Ascent has no intent matching \"start a 5 kilometer wall climb\""), "\(error)")
    #expect(
      try matcher.match("Start a 5 mile wall climb with Ascent").values == [
        "workoutName": "wall climb", "goalValue": .decimal(5), "workoutGoalUnitType": .enumCase("mile"),
      ])
  }

  /// Values after the app's name, and a name mistyped: the name the user meant is the words close to an installed
  /// app's name, not the values after it. The control: words close to no name are all named.
  @Test func aMistypedNameBeforeValues() throws {
    let matcher = UtteranceMatcher(apps: Self.apps)
    let typo = try #require(throws: UnderstandingError.self) {
      try matcher.match("Start a wall climb with Ascnt for 30 minutes")
    }
    #expect(typo.kind == .noMatch)
    #expect(typo.message.contains("no installed app is called \"Ascnt\" (did you mean \"Ascent\"?)"), "\(typo)")
    let other = try #require(throws: UnderstandingError.self) {
      try matcher.match("Start a wall climb with Stride for 30 minutes")
    }
    #expect(other.message.contains("no installed app is called \"Stride for 30 minutes\";"), "\(other)")
  }

  /// A name said as the verb is one word, unless the app's vocabulary has it; the control: a vocabulary name of two
  /// words is one ("Wall climb for 30 minutes" above).
  @Test func theVerbIsOneWord() throws {
    let error = try #require(throws: UnderstandingError.self) {
      try UtteranceMatcher(apps: Self.apps).match("Sunny climb for 30 minutes with Ascent")
    }
    #expect(error.kind == .noMatch)
    #expect(SystemPhrases.mayName(["walk"], parameter: "workoutName", of: Self.start, leading: true))
    #expect(!SystemPhrases.mayName(["sunny", "climb"], parameter: "workoutName", of: Self.start, leading: true))
    #expect(!SystemPhrases.mayName(["start"], parameter: "workoutName", of: Self.start, leading: true))
    #expect(!SystemPhrases.mayName(["finish"], parameter: "workoutName", of: Self.start, leading: true))
    #expect(SystemPhrases.mayName(["sunny", "climb"], parameter: "workoutName", of: Self.start))
  }

  /// The rule itself, and where it applies: the workout intents' `workoutName` only.
  @Test func theGenericNounIsNoName() {
    func may(_ text: String, _ parameter: String = "workoutName", _ intentClass: String = Self.start) -> Bool {
      SystemPhrases.mayName(ArraySlice(normalizedWords(text)), parameter: parameter, of: intentClass)
    }
    #expect(!may("workout"))
    #expect(!may("boulder climb workout"))
    #expect(!may("workouts"))
    #expect(!may("30 minute"))
    #expect(!may("five kilometer wall climb"))
    #expect(!may("a 5 kilometer wall climb"))
    #expect(!may("workout", "workoutName", "INCancelWorkoutIntent"))
    // The controls.
    #expect(may("wall climb"))
    #expect(may("workout stretches"))
    #expect(may("workout", "content", "INSendMessageIntent"))
    #expect(may("30 minute", "bookedBy", "BookRoomIntent"))
  }

  /// `phrases` shows one start phrase of each shape, each a phrase the matcher has, and none of the other
  /// combinations (the control: they are phrases too, only not shown); other intents show all of theirs.
  @Test func phrasesShowOneStartPhraseOfEachShape() {
    let shown = SystemPhrases.shown["INStartWorkoutIntent"] ?? []
    #expect(shown.count == 11)
    for phrase in shown {
      #expect(SystemPhrases.catalog["INStartWorkoutIntent"]?.contains(phrase) == true, "\(phrase)")
    }
    let hidden = "start a ${goalValue} ${workoutGoalUnitType} ${isOpenEnded} ${workoutLocationType} workout"
    #expect(SystemPhrases.catalog["INStartWorkoutIntent"]?.contains(hidden) == true)
    #expect(!SystemPhrases.isShown(hidden, of: "INStartWorkoutIntent"))
    #expect(SystemPhrases.isShown("pause the workout", of: "INPauseWorkoutIntent"))
  }

  /// Every start phrase is distinct, and the ones the review asked for are there.
  @Test func theStartPhrases() {
    let phrases = SystemPhrases.startWorkout
    #expect(Set(phrases).count == phrases.count)
    for phrase in [
      "start a workout", "start a ${workoutName} workout", "start a ${workoutLocationType} workout",
      "start a ${goalValue} ${workoutGoalUnitType} workout", "start a workout for ${goalValue} ${workoutGoalUnitType}",
      "start a ${goalValue} ${workoutGoalUnitType} ${isOpenEnded} ${workoutName}",
    ] {
      #expect(phrases.contains(phrase), "\(phrase)")
    }
  }

  /// A term the app registered is a name whatever its words (`UserVocabulary`); without it, the rule holds.
  @Test func anAppsTermIsAName() throws {
    let terms = ["com.example.ascent": UserVocabulary(terms: [.workoutActivityName: ["7 Minute Workout"]])]
    let without = try UtteranceMatcher(apps: Self.apps).match("Start a 7 minute workout with Ascent")
    #expect(without.values == ["goalValue": .decimal(7), "workoutGoalUnitType": .enumCase("minute")])
    let with = try UtteranceMatcher(apps: Self.apps, vocabulary: terms).match("Start a 7 minute workout with Ascent")
    #expect(with.values == ["workoutName": "7 Minute Workout"])
  }
}
