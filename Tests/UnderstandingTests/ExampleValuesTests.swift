import BundleManifest
import ExtensionProtocol
import Foundation
import Testing

@testable import Understanding

/// An `IntentPhrases` example said as written gets the values a title reads from it: "Add buy milk to Home with
/// Jotter" is an example whose words are all words (free text is never a slot of an example), so it outscores the
/// title `Add ${text} to ${notebook}` (five words against four words and slots) and, alone, would win with no value.
@Suite(.tags(.unit)) struct ExampleValuesTests {
  static let add = "AddNoteIntent"

  /// `Jotter.app` (com.example.jotter): `AddNoteIntent` with the String parameters `notebook` and `text` and the
  /// enum `priority` (`Priority`: `unknown`, `urgent` said "urgent"), the combination titles `Add a note to
  /// ${notebook}`, `Add ${text} to ${notebook}` and `titles`, and the examples `examples` ("with Jotter" added).
  static func app(titles: [String] = [], examples: [String]) throws -> AppBundle {
    let directory = try TemporaryDirectory("assistanthost-jotter")
    defer { directory.remove() }
    let (app, _) = try AppSkeleton.write(
      name: "Jotter", executable: "jotter", identifier: "com.example.jotter", intents: [add], in: directory.url)
    try writePlist(
      ["IntentPhrases": [["IntentName": add, "IntentExamples": examples.map { "\($0) with Jotter" }]]],
      to: app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist"))
    var combinations: [String: Any] = [
      "notebook": ["INIntentParameterCombinationTitle": "Add a note to ${notebook}"],
      "notebook,text": ["INIntentParameterCombinationTitle": "Add ${text} to ${notebook}"],
    ]
    for (index, title) in titles.enumerated() {
      combinations["text,\(index)"] = ["INIntentParameterCombinationTitle": title]
    }
    try writePlist(
      [
        "INIntentDefinitionModelVersion": "1.2", "INTypes": [Any](),
        "INEnums": [
          [
            "INEnumName": "Priority",
            "INEnumValues": [
              ["INEnumValueName": "unknown", "INEnumValueIndex": 0],
              ["INEnumValueName": "urgent", "INEnumValueDisplayName": "urgent", "INEnumValueIndex": 1],
            ],
          ] as [String: Any]
        ],
        "INIntents": [
          [
            "INIntentName": "AddNote", "INIntentTitle": "Add Note",
            "INIntentParameterCombinations": combinations,
            "INIntentParameters": [
              ["INIntentParameterName": "notebook", "INIntentParameterType": "String"],
              ["INIntentParameterName": "text", "INIntentParameterType": "String"],
              [
                "INIntentParameterName": "priority", "INIntentParameterType": "Integer",
                "INIntentParameterEnumType": "Priority",
              ],
            ],
            "INIntentResponse": [
              "INIntentResponseCodes": [
                ["INIntentResponseCodeName": "success", "INIntentResponseCodeSuccess": true],
                ["INIntentResponseCodeName": "failure"],
              ]
            ],
          ] as [String: Any]
        ],
      ], to: app.appendingPathComponent("Base.lproj/Intents.intentdefinition"))
    return try AppBundle.load(from: app)
  }

  /// The example said as written gets both values, from the title, as the same words not an example do, and the match
  /// names the title. The control: with the old preference (the example's own reading) it gets none.
  @Test(arguments: [true, false])
  func anExampleSaidAsWrittenGetsTheValuesATitleReads(fuller: Bool) throws {
    var matcher = UtteranceMatcher(apps: [try Self.app(examples: ["Add buy milk to Home"])])
    matcher.examplesTakeFullerValues = fuller
    let found = try matcher.understand("Add buy milk to Home with Jotter")
    #expect(found.count == 1)
    let match = try #require(found.first)
    #expect(match.intentClass == Self.add)
    if fuller {
      #expect(match.values == ["text": "buy milk", "notebook": "Home"])
      #expect(match.phrase == "Add ${text} to ${notebook}")
    } else {
      #expect(match.values == [:])
      #expect(match.phrase == "Add buy milk to Home with Jotter")
    }
    // Other words are no example: the title reads them either way.
    let other = try matcher.match("Add milk to Home with Jotter")
    #expect(other.values == ["text": "milk", "notebook": "Home"])
  }

  /// Why the example won: its reading (five words, whole) outscores the title's (four words and slots, whole, two
  /// values), and has no value. The scores the rule keeps (the intent's rank does not change).
  @Test func theExampleOutscoresTheTitle() throws {
    let app = try Self.app(examples: ["Add buy milk to Home"])
    let example = try Self.best("Add buy milk to Home with Jotter", of: "Add buy milk to Home", in: app)
    let title = try Self.best("Add ${text} to ${notebook}", of: "Add buy milk to Home", in: app)
    #expect(example.score > title.score)
    #expect(example.reading.values == [:])
    #expect(title.reading.values == ["text": "buy milk", "notebook": "Home"])
    #expect(title.whole)
  }

  struct Case: Sendable, CustomTestStringConvertible {
    var titles: [String] = []
    var examples: [String]
    var utterance: String
    /// The values with the rule, and with the old preference (the control).
    var values: [String: ParameterValue]
    var old: [String: ParameterValue]
    var testDescription: String { utterance + (titles.isEmpty ? "" : " (\(titles.joined(separator: ", ")))") }
  }

  static let cases: [Case] = [
    // The example cut short wins, and the title `Add ${text}` reads the words whole.
    Case(
      titles: ["Add ${text}"], examples: ["Add buy milk to Home"], utterance: "Add buy milk",
      values: ["text": "buy milk"], old: [:]),
    // A title cut short gives no value: "a note" is no note's text (`Add ${text} to ${notebook}` stops after the slot).
    Case(examples: ["Add a note"], utterance: "Add a note", values: [:], old: [:]),
    // Only an example that wins takes values: the title `Add a note to ${notebook}` wins (five words and slots, a
    // value) and keeps its one value, though `Add ${text} to ${notebook}` reads two.
    Case(
      examples: ["Add a note to Work"], utterance: "Add a note to Work", values: ["notebook": "Work"],
      old: ["notebook": "Work"]),
    // A reading without a value the example gives is not taken: `Add ${text} to ${notebook}` has no priority.
    Case(
      examples: ["Add an urgent note to Work"], utterance: "Add an urgent note to Work",
      values: ["priority": .enumCase("urgent")], old: ["priority": .enumCase("urgent")]),
    // One that has it is: every value the example gives, and more.
    Case(
      titles: ["Add ${priority} note to ${notebook}"], examples: ["Add an urgent note to Work"],
      utterance: "Add an urgent note to Work", values: ["priority": .enumCase("urgent"), "notebook": "Work"],
      old: ["priority": .enumCase("urgent")]),
    // What the rule reads, as any utterance not an example is read: a whole title `Add ${text}` makes "a note" the
    // text of the example "Add a note" (an app that means no value there gives the title no such reading).
    Case(
      titles: ["Add ${text}"], examples: ["Add a note"], utterance: "Add a note", values: ["text": "a note"], old: [:]),
  ]

  /// Where the rule applies and where it does not; each with the old preference as the control.
  @Test(arguments: cases)
  func whenAnExampleTakesValues(_ row: Case) throws {
    var matcher = UtteranceMatcher(apps: [try Self.app(titles: row.titles, examples: row.examples)])
    let match = try matcher.match(row.utterance + " with Jotter")
    #expect(match.intentClass == Self.add)
    #expect(match.values == row.values)
    matcher.examplesTakeFullerValues = false
    #expect(try matcher.match(row.utterance + " with Jotter").values == row.old)
  }

  /// The best reading of `phrase` (of `app`, as the matcher reads it) of the words of `utterance` without the app's
  /// name, its score, and whether it reads the whole phrase.
  static func best(_ phrase: String, of utterance: String, in app: AppBundle) throws -> (
    reading: UtteranceMatcher.Reading, score: UtteranceMatcher.Score, whole: Bool
  ) {
    let matcher = UtteranceMatcher(apps: [app])
    let reader = try #require(
      matcher.readers.phrases(of: app, matcher: matcher).first { $0.phrase.text == phrase }?.reader)
    let original = utterance.split(separator: " ").map(String.init)
    var steps = 0
    let readings = UtteranceMatcher.readings(
      reader.pattern, original.map { $0.lowercased() }, original: original,
      written: { original[$0].joined(separator: " ") }, spec: reader.spec, interpreter: reader.interpreter,
      terms: nil, leadingName: reader.leadingName, steps: &steps)
    let reading = try #require(readings.best)
    return (
      reading, UtteranceMatcher.score(reading, patternCount: reader.pattern.count),
      reading.consumedPattern == reader.pattern.count
    )
  }
}
