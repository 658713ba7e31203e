import BundleManifest
import ExtensionProtocol
import Foundation
import ManifestFixtures
import TestSupport
import Testing
import Understanding

@testable import AssistantHost

/// Apple's enums of the system intents (`SystemEnum`): each Enum parameter of the catalog names one, and a value is
/// read, spoken and typed as a definition's enum case is.
@Suite(.tags(.unit)) struct SystemEnumTests {
  static let start = "INStartWorkoutIntent"

  static func parameter(_ name: String, of intentClass: String = start) throws -> ParameterSpec {
    try #require(SystemIntent.named(intentClass)?.spec.parameter(named: name))
  }

  static let interpreter = ValueInterpreter(intentClass: start, definition: nil, vocabularies: [])

  @Test func everyEnumParameterOfTheCatalogNamesAKnownEnumOrNone() throws {
    var named: [String] = []
    for (className, intent) in SystemIntent.catalog {
      for parameter in intent.spec.parameters where parameter.type == .enumeration {
        if let enumType = parameter.enumType {
          #expect(SystemEnum.named(enumType) != nil, "\(className).\(parameter.name): \(enumType)")
          #expect(parameter.enumNamespace == "System")
          named.append("\(className).\(parameter.name)")
        }
      }
    }
    #expect(Set(named) == Set(SystemEnum.parameterEnums.keys))
    // An option set (several flags at once) is not an enum here: its parameter stays untyped.
    #expect(try Self.parameter("attributes", of: "INSearchForMessagesIntent").enumType == nil)
  }

  @Test func theWorkoutEnumsAreApples() throws {
    let unit = try #require(SystemEnum.named("INWorkoutGoalUnitType"))
    #expect(
      unit.spec.values.map(\.name) == [
        "unknown", "inch", "meter", "foot", "mile", "yard", "second", "minute", "hour", "joule", "kiloCalorie",
      ])
    #expect(unit.spec.values.map(\.index) == Array(0...10))
    let location = try #require(SystemEnum.named("INWorkoutLocationType"))
    #expect(location.spec.values.map(\.name) == ["unknown", "outdoor", "indoor"])
    #expect(try Self.parameter("workoutGoalUnitType").enumType == "INWorkoutGoalUnitType")
    #expect(try Self.parameter("workoutLocationType").enumType == "INWorkoutLocationType")
    // A definition's own enum of the same name comes first; without a definition, Apple's.
    #expect(EnumSpec.named("INWorkoutLocationType", in: nil)?.values.count == 3)
    #expect(EnumSpec.named("Size", in: try SoupManifests.definition())?.name == "Size")
    #expect(EnumSpec.named("Size", in: nil) == nil)
  }

  struct Parsed: Sendable, CustomTestStringConvertible {
    var parameter: String
    var intentClass = SystemEnumTests.start
    var text: String
    var value: ParameterValue?
    var testDescription: String { "\(parameter) \"\(text)\"" }
  }

  static let parsed: [Parsed] = [
    // The case name (the wire form), its words, and what people say.
    Parsed(parameter: "workoutGoalUnitType", text: "minute", value: .enumCase("minute")),
    Parsed(parameter: "workoutGoalUnitType", text: "Minutes", value: .enumCase("minute")),
    Parsed(parameter: "workoutGoalUnitType", text: "min", value: .enumCase("minute")),
    Parsed(parameter: "workoutGoalUnitType", text: "hours", value: .enumCase("hour")),
    Parsed(parameter: "workoutGoalUnitType", text: "miles", value: .enumCase("mile")),
    Parsed(parameter: "workoutGoalUnitType", text: "metres", value: .enumCase("meter")),
    Parsed(parameter: "workoutGoalUnitType", text: "feet", value: .enumCase("foot")),
    Parsed(parameter: "workoutGoalUnitType", text: "kiloCalorie", value: .enumCase("kiloCalorie")),
    Parsed(parameter: "workoutGoalUnitType", text: "kilocalories", value: .enumCase("kiloCalorie")),
    Parsed(parameter: "workoutGoalUnitType", text: "calories", value: .enumCase("kiloCalorie")),
    Parsed(parameter: "workoutLocationType", text: "outdoor", value: .enumCase("outdoor")),
    Parsed(parameter: "workoutLocationType", text: "outside", value: .enumCase("outdoor")),
    Parsed(parameter: "workoutLocationType", text: "Indoors", value: .enumCase("indoor")),
    Parsed(parameter: "isOpenEnded", text: "open-ended", value: .boolean(true)),
    Parsed(parameter: "isOpenEnded", text: "open ended", value: .boolean(true)),
    Parsed(parameter: "isOpenEnded", text: "no", value: .boolean(false)),
    Parsed(
      parameter: "destinationType", intentClass: "INStartCallIntent", text: "voice mail", value: .enumCase("voicemail")),
    Parsed(
      parameter: "destinationType", intentClass: "INStartCallIntent", text: "call back", value: .enumCase("callBack")),
    Parsed(
      parameter: "audioRoute", intentClass: "INStartCallIntent", text: "speaker",
      value: .enumCase("speakerphoneAudioRoute")),
    Parsed(parameter: "callCapability", intentClass: "INStartCallIntent", text: "video", value: .enumCase("videoCall")),
    Parsed(
      parameter: "outgoingMessageType", intentClass: "INSendMessageIntent", text: "voice message",
      value: .enumCase("outgoingMessageAudio")),
    Parsed(
      parameter: "accountType", intentClass: "INSearchForAccountsIntent", text: "savings", value: .enumCase("saving")),
    Parsed(
      parameter: "requestedBalanceType", intentClass: "INSearchForAccountsIntent", text: "points",
      value: .enumCase("points")),
    Parsed(
      parameter: "attribute", intentClass: "INSetMessageAttributeIntent", text: "unread", value: .enumCase("unread")),
    Parsed(
      parameter: "playbackRepeatMode", intentClass: "INPlayMediaIntent", text: "repeat one", value: .enumCase("one")),
    // Not a case: nothing, never the text as said.
    Parsed(parameter: "workoutGoalUnitType", text: "fortnight", value: nil),
    Parsed(parameter: "workoutGoalUnitType", text: "outdoor", value: nil),
    Parsed(parameter: "workoutLocationType", text: "upstairs", value: nil),
    Parsed(parameter: "isOpenEnded", text: "closed", value: nil),
  ]

  @Test(arguments: parsed)
  func readsACase(_ example: Parsed) throws {
    let interpreter = ValueInterpreter(intentClass: example.intentClass, definition: nil, vocabularies: [])
    let parameter = try Self.parameter(example.parameter, of: example.intentClass)
    #expect(interpreter.parse(example.text, for: parameter) == example.value)
  }

  @Test func aCaseInWordsAndWhatFits() throws {
    let unit = try Self.parameter("workoutGoalUnitType")
    let types = (unit.trueDisplayName, unit.falseDisplayName, unit.enumType)
    #expect(Self.interpreter.words(for: .enumCase("minute"), parameterType: types) == "minute")
    #expect(Self.interpreter.words(for: .enumCase("kiloCalorie"), parameterType: types) == "kilocalories")
    #expect(
      Self.interpreter.expectation(for: unit)
        == "one of inch, meter, foot, mile, yard, second, minute, hour, joule, kilocalories")
    // For `run`: the case names `run` and `--json` use, the display name beside one that differs.
    #expect(
      Self.interpreter.expectation(for: unit, caseNames: true)
        == "one of inch, meter, foot, mile, yard, second, minute, hour, joule, kiloCalorie (kilocalories)")
    // The control: an Enum parameter IntentHost has no cases for is read as its type says.
    let attributes = try Self.parameter("attributes", of: "INSearchForMessagesIntent")
    #expect(Self.interpreter.expectation(for: attributes) == "some text")
  }

  /// What an example may make a slot of: a spoken value, never `unknown`, never the words of another parameter.
  @Test func spokenValues() throws {
    let unit = try Self.parameter("workoutGoalUnitType")
    let location = try Self.parameter("workoutLocationType")
    #expect(Self.interpreter.spokenValue("minute", for: unit) == .enumCase("minute"))
    #expect(Self.interpreter.spokenValue("kilo calorie", for: unit) == .enumCase("kiloCalorie"))
    #expect(Self.interpreter.spokenValue("outside", for: location) == .enumCase("outdoor"))
    #expect(Self.interpreter.spokenValue("outdoor", for: unit) == nil)
    // `unknown` is a case (run takes it), but no value said in a phrase.
    #expect(Self.interpreter.parse("unknown", for: location) == .enumCase("unknown"))
    #expect(Self.interpreter.spokenValue("unknown", for: location) == nil)
    // A case with a display name is said by it: INPlaybackRepeatMode's `all` is "repeat all", not "all".
    let repeatMode = try Self.parameter("playbackRepeatMode", of: "INPlayMediaIntent")
    let media = ValueInterpreter(intentClass: "INPlayMediaIntent", definition: nil, vocabularies: [])
    #expect(media.spokenValue("repeat all", for: repeatMode) == .enumCase("all"))
    #expect(media.spokenValue("all", for: repeatMode) == nil)
    #expect(media.parse("all", for: repeatMode) == .enumCase("all"))
  }

  /// `assistant run APP INTENT NAME=VALUE`: typed as a definition's enum is; a wrong case is a usage error (exit 64)
  /// naming the cases.
  @Test func runTypesASystemEnum() throws {
    let directory = try TemporaryDirectory("assistanthost-system-enums")
    defer { directory.remove() }
    let app = try AppBundle.load(from: AscentManifests.build(in: directory.url))
    let router = Router(apps: [app])
    #expect(
      try router.values(
        ["workoutGoalUnitType=minute", "workoutLocationType=outdoor", "goalValue=30", "workoutName=wall climb"],
        intentClass: Self.start, in: app)
        == [
          "workoutGoalUnitType": .enumCase("minute"), "workoutLocationType": .enumCase("outdoor"),
          "goalValue": .decimal(30), "workoutName": .string("wall climb"),
        ])
    #expect(
      try router.values(["workoutGoalUnitType=miles", "workoutLocationType=inside"], intentClass: Self.start, in: app)
        == ["workoutGoalUnitType": .enumCase("mile"), "workoutLocationType": .enumCase("indoor")])
    let error = try #require(throws: UnderstandingError.self) {
      try router.values(["workoutGoalUnitType=fortnight"], intentClass: Self.start, in: app)
    }
    #expect(error.status == .usage)
    #expect(
      error.message
        == "workoutGoalUnitType=fortnight: Goal unit (enum INWorkoutGoalUnitType) needs one of inch, meter, foot, mile, yard, "
        + "second, minute, hour, joule, kiloCalorie (kilocalories)")
    // The case name the error lists is taken, as the display name is.
    #expect(
      try router.values(["workoutGoalUnitType=kiloCalorie"], intentClass: Self.start, in: app)
        == ["workoutGoalUnitType": .enumCase("kiloCalorie")])
    let location = try #require(throws: UnderstandingError.self) {
      try router.values(["workoutLocationType=upstairs"], intentClass: Self.start, in: app)
    }
    #expect(
      location.message
        == "workoutLocationType=upstairs: Location (enum INWorkoutLocationType) needs one of outdoor, indoor")
  }

  /// A donation's enum value must be a case of the system enum, as of a definition's.
  @Test func aDonatedCaseMustBeACase() throws {
    let rules = DonationRules(definitions: [])
    func problem(_ value: ParameterValue) -> String? {
      rules.intentProblem(
        Intent(name: Self.start, identifier: "i1", parameters: ["workoutGoalUnitType": value]), field: "intent")
    }
    #expect(problem(.enumCase("minute")) == nil)
    #expect(problem(.enumCase("minutes")) != nil)
    #expect(problem(.string("minute")) != nil)
  }
}

/// Ascent.app from `Sources/Examples`' real `AppIntentVocabulary.plist` ("wall climb", "boulder climb" and the
/// seed's example phrases), with stand-in executables and an Intents extension supporting the five workout intents.
enum AscentManifests {
  static let workoutIntents = [
    "INStartWorkoutIntent", "INPauseWorkoutIntent", "INResumeWorkoutIntent", "INEndWorkoutIntent",
    "INCancelWorkoutIntent",
  ]

  static func build(in directory: URL) throws -> URL {
    let app = try SmallApp.build(
      name: "Ascent", intents: [], systemIntents: workoutIntents, in: directory)
    let vocabulary = app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist")
    try FileManager.default.removeItem(at: vocabulary)
    try FileManager.default.copyItem(
      at: PackagePaths.root.appendingPathComponent("Sources/Examples/Ascent/Base.lproj/AppIntentVocabulary.plist"),
      to: vocabulary)
    return app
  }
}
