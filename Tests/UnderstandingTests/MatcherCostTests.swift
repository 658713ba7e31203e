import BundleManifest
import ExtensionProtocol
import Foundation
import Testing

@testable import Understanding

/// What reading phrases costs, counted (never timed): a phrase is read once per point (`UtteranceMatcher.readings`),
/// an app's phrases once per matcher (`Readers`), a parameter's synonyms split into words once (`SpokenIndex`), and
/// examples past the limits are no phrases. Each count has a control that shows it growing without the guard: the
/// walk of every reading (`everyReading`, the matcher before the dynamic program), a new interpreter per lookup.
@Suite(.tags(.unit)) struct MatcherCostTests {
  /// Ascent with its vocabulary replaced by `examples` (for INPauseWorkoutIntent unless given) and `synonyms` of
  /// INStartWorkoutIntent.workoutName ("zq0 xk0", "zq1 xk1", ...).
  static func ascent(
    examples: [String: [String]], synonyms: Int = 0, in directory: TemporaryDirectory
  ) throws -> AppBundle {
    let app = try AscentManifests.build(in: directory.url)
    try writePlist(
      [
        "IntentPhrases": examples.sorted { $0.key < $1.key }.map {
          ["IntentName": $0.key, "IntentExamples": $0.value]
        },
        "ParameterVocabularies": [
          [
            "ParameterNames": ["INStartWorkoutIntent.workoutName"],
            "ParameterVocabulary": (0..<synonyms).map { index in
              [
                "VocabularyItemIdentifier": "item\(index)",
                "VocabularyItemSynonyms": [["VocabularyItemPhrase": "zq\(index) xk\(index)"]],
              ] as [String: Any]
            },
          ] as [String: Any]
        ],
      ], to: app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist"))
    return try AppBundle.load(from: app)
  }

  /// "pause a a … a workout" with `count` "a"s.
  static func little(_ count: Int) -> String {
    "pause " + Array(repeating: "a", count: count).joined(separator: " ") + " workout"
  }

  /// The first of the best of `readings` (what `Readings` keeps), from every reading one by one.
  static func summary(_ readings: [UtteranceMatcher.Reading], patternCount: Int) -> UtteranceMatcher.Readings {
    var summary = UtteranceMatcher.Readings()
    for reading in readings {
      summary.offer(
        UtteranceMatcher.Readings(
          best: reading, bestWithoutLittleWords: reading.onlyLittleWords ? nil : reading,
          completeWithoutLittleWords: !reading.onlyLittleWords && reading.consumedPattern == patternCount),
        patternCount: patternCount)
    }
    return summary
  }

  struct Cost {
    var readings: UtteranceMatcher.Readings
    var steps: Int
    var every: [UtteranceMatcher.Reading]?
    var everySteps: Int
  }

  /// `utterance` read against the example `example` of `intentClass`, by the dynamic program, and (when `every`) by
  /// the walk of every reading.
  static func cost(
    _ utterance: String, against example: String, intentClass: String, in app: AppBundle, every: Bool
  ) throws -> Cost {
    let (spec, definition) = try #require(app.runnableSpec(className: intentClass))
    let interpreter = ValueInterpreter(intentClass: intentClass, definition: definition, vocabularies: app.vocabularies)
    let pattern = UtteranceMatcher.exampleTokens(
      example, appNames: UtteranceMatcher(apps: [app]).names(of: app), spec: spec, interpreter: interpreter)
    let original = spokenWords(utterance)
    let words = original.map { $0.lowercased() }
    let written = { (span: Range<Int>) in original[span].joined(separator: " ") }
    var steps = 0
    let readings = UtteranceMatcher.readings(
      pattern, words, original: original, written: written, spec: spec, interpreter: interpreter, terms: nil,
      leadingName: false, steps: &steps)
    var everySteps = 0
    let all =
      every
      ? UtteranceMatcher.everyReading(
        pattern, words, original: original, written: written, spec: spec, interpreter: interpreter, terms: nil,
        leadingName: false, steps: &everySteps) : nil
    return Cost(readings: readings, steps: steps, every: all, everySteps: everySteps)
  }

  /// Review 15 finding 3: an example of 14 "a"s said as written is read in at most one step per point (phrase word,
  /// word said), and reaches its intent; 30 "a"s too. The control: walking every reading of 8 "a"s takes the Delannoy
  /// number of steps (over 265,000), more than a thousand times as many, and finds the same best reading.
  @Test(arguments: [14, 30])
  func littleWordsAreReadOncePerPoint(count: Int) throws {
    let directory = try TemporaryDirectory("assistanthost-cost")
    defer { directory.remove() }
    let example = Self.little(count) + " with Ascent"
    let app = try Self.ascent(examples: ["INPauseWorkoutIntent": [example]], in: directory)
    let cost = try Self.cost(
      Self.little(count), against: example, intentClass: "INPauseWorkoutIntent", in: app, every: false)
    let points = (count + 3) * (count + 3)
    #expect(cost.steps <= points)
    #expect(cost.readings.best?.consumedPattern == count + 2)
    #expect(cost.readings.completeWithoutLittleWords)
    // The whole check (each example said, as `validate` does) and an utterance reach the intent.
    #expect(PhraseBook.check(app).filter { $0.rule.rawValue.hasPrefix("intent-phrase") }.isEmpty)
    #expect(try UtteranceMatcher(apps: [app]).match(example).intentClass == "INPauseWorkoutIntent")
  }

  @Test func theControlWalksEveryReading() throws {
    let directory = try TemporaryDirectory("assistanthost-cost")
    defer { directory.remove() }
    let example = Self.little(8) + " with Ascent"
    let app = try Self.ascent(examples: ["INPauseWorkoutIntent": [example]], in: directory)
    let cost = try Self.cost(
      Self.little(8), against: example, intentClass: "INPauseWorkoutIntent", in: app, every: true)
    #expect(cost.steps <= 11 * 11)
    #expect(cost.everySteps > 265_000)
    #expect(cost.everySteps > 1000 * cost.steps)
    let every = try #require(cost.every)
    #expect(Self.summary(every, patternCount: 10).best == cost.readings.best)
  }

  struct Agreement: Sendable, CustomTestStringConvertible {
    var utterance: String
    var testDescription: String { utterance }
  }

  /// The dynamic program keeps what the walk of every reading finds: for each phrase of Ascent and of Rooms, the
  /// first of the best readings, the first of the best without a text slot of only little words, and whether one of
  /// those reads the whole phrase.
  @Test(
    arguments: [
      "Start a 30 minute outdoor wall climb", "start a workout", "Start an outdoor workout", "pause my workout",
      "start a boulder climb workout for 30 minutes", "Book room 12 for Ada", "Book room 39 for A",
      "Cancel my booking of room 12 for The Beatles", "book a room", "open the door of room 12",
      "start a a a workout", "the the the",
    ].map(Agreement.init))
  func readingsAgreeWithEveryReading(_ row: Agreement) throws {
    let directory = try TemporaryDirectory("assistanthost-cost")
    defer { directory.remove() }
    let apps = [
      try AppBundle.load(from: AscentManifests.build(in: directory.url)),
      try AppBundle.load(from: TestBundles.roomsManifests(in: directory.url)),
    ]
    let original = spokenWords(row.utterance)
    let words = original.map { $0.lowercased() }
    let written = { (span: Range<Int>) in original[span].joined(separator: " ") }
    var compared = 0
    for app in apps {
      let matcher = UtteranceMatcher(apps: [app])
      for (phrase, reader) in matcher.readers.phrases(of: app, matcher: matcher) {
        guard let reader else { continue }
        var steps = 0
        let readings = UtteranceMatcher.readings(
          reader.pattern, words, original: original, written: written, spec: reader.spec,
          interpreter: reader.interpreter, terms: nil, leadingName: reader.leadingName, steps: &steps)
        let every = UtteranceMatcher.everyReading(
          reader.pattern, words, original: original, written: written, spec: reader.spec,
          interpreter: reader.interpreter, terms: nil, leadingName: reader.leadingName, steps: &steps)
        let expected = Self.summary(every, patternCount: reader.pattern.count)
        #expect(readings.best == expected.best, "\(phrase.text)")
        #expect(readings.bestWithoutLittleWords == expected.bestWithoutLittleWords, "\(phrase.text)")
        #expect(readings.completeWithoutLittleWords == expected.completeWithoutLittleWords, "\(phrase.text)")
        compared += every.isEmpty ? 0 : 1
      }
    }
    // Some phrase reads something, except for the words no phrase has.
    #expect((compared > 0) == (row.utterance != "the the the"))
  }

  /// Review 15 finding 1: with 2,000 synonyms and a 30-word example, each synonym is split into words once however
  /// many runs of the example and utterances are read, and an app's phrases are read once per matcher. The control:
  /// an interpreter made anew for each lookup splits them all each time.
  @Test func synonymsAreSplitOncePerMatcher() throws {
    let directory = try TemporaryDirectory("assistanthost-cost")
    defer { directory.remove() }
    let example = "start " + (0..<28).map { "w\($0)" }.joined(separator: " ") + " workout with Ascent"
    let app = try Self.ascent(
      examples: ["INStartWorkoutIntent": [example, "Start a zq7 xk7 workout with Ascent"]], synonyms: 2000,
      in: directory)
    let matcher = UtteranceMatcher(apps: [app])
    for utterance in [
      example, "start w0 w1 with Ascent", "Start a zq1999 xk1999 workout with Ascent",
      "Start a zq7 xk7 workout with Ascent",
    ] {
      _ = try? matcher.understand(utterance)
    }
    #expect(try matcher.match("Start a zq12 xk12 workout with Ascent").values["workoutName"] == .string("item12"))
    #expect(matcher.phraseReads == 1)
    let start = try #require(
      matcher.readers.phrases(of: app, matcher: matcher).first { $0.phrase.intentClass == "INStartWorkoutIntent" }?
        .reader)
    // The synonyms, and the names and synonyms of the enums of the intent's other parameters.
    #expect(start.interpreter.normalizations >= 2000)
    #expect(start.interpreter.normalizations < 2200)
    // The control.
    let (spec, definition) = try #require(app.runnableSpec(className: "INStartWorkoutIntent"))
    let name = try #require(spec.parameter(named: "workoutName"))
    var anew = 0
    for index in 0..<10 {
      let interpreter = ValueInterpreter(
        intentClass: "INStartWorkoutIntent", definition: definition, vocabularies: app.vocabularies)
      #expect(interpreter.spokenValue("zq\(index) xk\(index)", for: name) == .string("item\(index)"))
      anew += interpreter.normalizations
    }
    #expect(anew >= 10 * 2000)
  }

  /// An example of more than 32 words, and the examples past the first 128, are no phrases, and the check says so.
  @Test func examplesPastTheLimitsAreNoPhrases() throws {
    let directory = try TemporaryDirectory("assistanthost-cost")
    defer { directory.remove() }
    let words = (0..<31).map { "w\($0)" }.joined(separator: " ")
    let fits = "pause \(words) with Ascent"
    let tooLong = "pause \(words) w31 with Ascent"
    let many = (0..<130).map { "pause my workout number \($0) with Ascent" }
    let app = try Self.ascent(examples: ["INPauseWorkoutIntent": [fits, tooLong] + many], in: directory)
    let examples = UtteranceMatcher.phrases(of: app).filter { $0.source == .example }.map(\.text)
    #expect(examples.contains(fits))
    #expect(!examples.contains(tooLong))
    #expect(examples.count == UtteranceMatcher.maximumExamples)
    #expect(examples.last == many[126])
    let rules = PhraseBook.check(app).map(\.rule)
    #expect(rules.filter { $0 == .intentPhraseTooLong }.count == 1)
    #expect(rules.filter { $0 == .intentPhrasesTooMany }.count == 1)
    // The control: within the limits, no such rule.
    let other = try TemporaryDirectory("assistanthost-cost")
    defer { other.remove() }
    let small = try Self.ascent(examples: ["INPauseWorkoutIntent": [fits]], in: other)
    #expect(
      !PhraseBook.check(small).contains {
        $0.rule.rawValue.hasSuffix("too-long") || $0.rule.rawValue.hasSuffix("too-many")
      })
  }
}
