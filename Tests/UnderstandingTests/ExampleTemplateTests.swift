import BundleManifest
import ExtensionProtocol
import Foundation
import Testing

@testable import Understanding

/// `IntentPhrases` examples are templates for their own intent: a value of one of the intent's parameters in them (a
/// vocabulary synonym of it, a case of one of its enums, a number) is a slot, so the seed's "Start a 30 minute
/// outdoor wall climb with Ascent" fills four values, and other goals, locations and workouts said the same way do.
@Suite(.tags(.unit)) struct ExampleTemplateTests {
  static let ascent = "com.example.ascent"
  static let start = "INStartWorkoutIntent"

  static func apps() throws -> [AppBundle] {
    let directory = try TemporaryDirectory("assistanthost-templates")
    defer { directory.remove() }
    return [
      try AppBundle.load(from: AscentManifests.build(in: directory.url)),
      try AppBundle.load(from: TestBundles.roomsManifests(in: directory.url)),
    ]
  }

  struct Template: Sendable, CustomTestStringConvertible {
    var example: String
    var intentClass: String
    var template: String
    var testDescription: String { example }
  }

  static let templates: [Template] = [
    // A vocabulary synonym of the intent's parameter, system enum cases as said, a number.
    Template(
      example: "Start a 30 minute outdoor wall climb with Ascent", intentClass: start,
      template: "start a ${goalValue} ${workoutGoalUnitType} ${workoutLocationType} ${workoutName}"),
    // "workout" is no value of any parameter: a word to say.
    Template(
      example: "Start a wall climb workout with Ascent", intentClass: start, template: "start a ${workoutName} workout"),
    Template(example: "Start a workout with Ascent", intentClass: start, template: "start a workout"),
    // The vocabulary names INStartWorkoutIntent.workoutName only: another intent's example keeps the words.
    Template(
      example: "Pause my wall climb with Ascent", intentClass: "INPauseWorkoutIntent",
      template: "pause my wall climb"),
    // `unknown` is never said: a word.
    Template(
      example: "Start an unknown wall climb with Ascent", intentClass: start,
      template: "start an unknown ${workoutName}"),
    // One slot per parameter: the second unit stays a word.
    Template(
      example: "Start a 5 mile outdoor wall climb in minutes with Ascent", intentClass: start,
      template: "start a ${goalValue} ${workoutGoalUnitType} ${workoutLocationType} ${workoutName} in minutes"),
    // Rooms: a Boolean's vocabulary synonym ("book", "cancel") and a number; a name stays a word.
    Template(
      example: "Book room 12 for Ada with Rooms", intentClass: "BookRoomIntent",
      template: "${isCancellationOfBooking} room ${roomNumber} for ada"),
    Template(
      example: "Cancel room 12 for Ada with Rooms", intentClass: "BookRoomIntent",
      template: "${isCancellationOfBooking} room ${roomNumber} for ada"),
    Template(
      example: "Open the door of room 12 with Rooms", intentClass: "OpenDoorIntent",
      template: "open the door of room ${roomNumber}"),
  ]

  @Test(arguments: templates)
  func anExampleIsATemplate(_ row: Template) throws {
    let apps = try Self.apps()
    let app = try #require(apps.first { row.example.hasSuffix($0.name) })
    #expect(UtteranceMatcher.template(ofExample: row.example, intentClass: row.intentClass, in: app) == row.template)
  }

  struct Said: Sendable, CustomTestStringConvertible {
    var utterance: String
    var intentClass = ExampleTemplateTests.start
    var values: [String: ParameterValue]
    var testDescription: String { utterance }
  }

  static let said: [Said] = [
    // The seed's three utterances.
    Said(
      utterance: "Start a 30 minute outdoor wall climb with Ascent",
      values: [
        "workoutName": "wall climb", "goalValue": .decimal(30), "workoutGoalUnitType": .enumCase("minute"),
        "workoutLocationType": .enumCase("outdoor"),
      ]),
    Said(utterance: "Start a wall climb workout with Ascent", values: ["workoutName": "wall climb"]),
    Said(utterance: "Start a workout with Ascent", values: [:]),
    // Other values in the same words: the example is a template, not a sentence.
    Said(
      utterance: "Start a 45 minute indoor boulder climb with Ascent",
      values: [
        "workoutName": "boulder climb", "goalValue": .decimal(45), "workoutGoalUnitType": .enumCase("minute"),
        "workoutLocationType": .enumCase("indoor"),
      ]),
    Said(
      utterance: "Start a two mile outside bouldering with Ascent",
      values: [
        "workoutName": "boulder climb", "goalValue": .decimal(2), "workoutGoalUnitType": .enumCase("mile"),
        "workoutLocationType": .enumCase("outdoor"),
      ]),
    Said(
      utterance: "Start a 500 calories indoor wall climb with Ascent",
      values: [
        "workoutName": "wall climb", "goalValue": .decimal(500), "workoutGoalUnitType": .enumCase("kiloCalorie"),
        "workoutLocationType": .enumCase("indoor"),
      ]),
    Said(utterance: "Start a boulder climb workout with Ascent", values: ["workoutName": "boulder climb"]),
    // Siri's own phrases: a goal without a location, a location, open-ended.
    Said(
      utterance: "Start a 20 minute wall climb with Ascent",
      values: ["workoutName": "wall climb", "goalValue": .decimal(20), "workoutGoalUnitType": .enumCase("minute")]),
    Said(
      utterance: "Start an outdoor boulder climb with Ascent",
      values: ["workoutName": "boulder climb", "workoutLocationType": .enumCase("outdoor")]),
    Said(
      utterance: "Start an open-ended wall climb with Ascent",
      values: ["workoutName": "wall climb", "isOpenEnded": .boolean(true)]),
    Said(
      utterance: "Start an open ended indoor wall climb with Ascent",
      values: [
        "workoutName": "wall climb", "isOpenEnded": .boolean(true), "workoutLocationType": .enumCase("indoor"),
      ]),
    // The control: a word that is no unit or location is no value; the workout's name is then what was said
    // (the beginning of "start a ${workoutName} workout"). A number followed by no unit is refused instead
    // (`WorkoutPhrasingTests`).
    Said(utterance: "Start a sunny wall climb with Ascent", values: ["workoutName": "sunny wall climb"]),
    // The app's other phrases are unaffected.
    Said(utterance: "Pause my workout with Ascent", intentClass: "INPauseWorkoutIntent", values: [:]),
    Said(utterance: "End my workout with Ascent", intentClass: "INEndWorkoutIntent", values: [:]),
    Said(utterance: "Cancel my workout with Ascent", intentClass: "INCancelWorkoutIntent", values: [:]),
    Said(
      utterance: "Resume my wall climb workout with Ascent", intentClass: "INResumeWorkoutIntent",
      values: ["workoutName": "wall climb"]),
  ]

  @Test(arguments: said)
  func theValuesReachTheIntent(_ row: Said) throws {
    let match = try UtteranceMatcher(apps: try Self.apps()).match(row.utterance)
    #expect(match.app.identifier.rawValue == Self.ascent)
    #expect(match.intentClass == row.intentClass)
    #expect(match.values == row.values)
  }

  /// A title or a system phrase takes a tie from an example read as a template: the match names the phrase with the
  /// slots. The control: an example no other phrase ties with is named.
  @Test func aTieNamesThePhraseWithTheSlots() throws {
    let matcher = UtteranceMatcher(apps: try Self.apps())
    #expect(try matcher.match("Book a room with Rooms").phrase == "${isCancellationOfBooking} a room")
    #expect(
      try matcher.match("Start a 30 minute outdoor wall climb with Ascent").phrase
        == "start a ${goalValue} ${workoutGoalUnitType} ${workoutLocationType} ${workoutName}")
    #expect(try matcher.match("Open a door with Rooms").phrase == "Open a door with Rooms")
  }

  /// The lint still passes for both examples: each example reaches its intent, with its values, claimed once.
  @Test func thePhraseCheckPassesForBothExamples() throws {
    for app in try Self.apps() {
      #expect(PhraseBook.check(app).isEmpty, "\(app.name): \(PhraseBook.check(app).map(\.message))")
    }
  }

  /// The control for the rule: the same example, read as fixed words (no synonym, no enum), fills nothing.
  @Test func withoutTheVocabularyTheExampleIsWords() throws {
    let directory = try TemporaryDirectory("assistanthost-templates")
    defer { directory.remove() }
    let url = try AscentManifests.build(in: directory.url)
    try Edit.plist(url.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist")) { plist in
      plist["ParameterVocabularies"] = [Any]()
    }
    let app = try AppBundle.load(from: url)
    #expect(
      UtteranceMatcher.template(
        ofExample: "Start a wall climb workout with Ascent", intentClass: Self.start, in: app)
        == "start a wall climb workout")
    // The system phrase still reads the name as text.
    let match = try UtteranceMatcher(apps: [app]).match("Start a boulder climb workout with Ascent")
    #expect(match.values == ["workoutName": "boulder climb"])
  }
}
