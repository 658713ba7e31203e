import BundleManifest
import Foundation
import Testing

@testable import Understanding

/// The bound of issue 15's second attack: an `IntentPhrases` example's words are read as values of the intent's first
/// `UtteranceMatcher.maximumSpokenParameters` (32) parameters with words of their own, in the definition's order, and
/// no further (an intent of 1,000 such parameters made every utterance to its app take 47 s). Work is counted, never
/// timed: how many parameters' spoken values were split into words (`ValueInterpreter.normalizations`).
@Suite(.tags(.unit))
struct SpokenParameterBoundTests {
  /// A word of letters only for `index` ("xab"), never a number word: digits in an example would be read as numbers.
  static func tag(_ index: Int) -> String {
    var letters = ""
    var rest = index
    repeat {
      letters = String(UnicodeScalar(UInt8(97 + rest % 26))) + letters
      rest /= 26
    } while rest > 0
    return "x" + letters
  }

  /// An intent `Set` of `count` enum parameters `p1`…`pN`, each of its own enum `EN` whose one case `cN` is said
  /// "colour TAG" (its display name, `tag(N)`), and an `unknown` case.
  static func definition(parameters count: Int) throws -> (IntentSpec, IntentDefinition) {
    let enums: [[String: Any]] = (1...count).map { index in
      [
        "INEnumName": "E\(index)",
        "INEnumValues": [
          ["INEnumValueName": "unknown", "INEnumValueIndex": 0],
          ["INEnumValueName": "c\(index)", "INEnumValueDisplayName": "colour \(tag(index))", "INEnumValueIndex": 1],
        ],
      ]
    }
    let parameters: [[String: Any]] = (1...count).map { index in
      [
        "INIntentParameterName": "p\(index)", "INIntentParameterType": "Integer",
        "INIntentParameterEnumType": "E\(index)",
      ]
    }
    let definition = try IntentDefinition(
      PlistDictionary(
        values: [
          "INIntentDefinitionModelVersion": "1.2", "INEnums": enums,
          "INIntents": [["INIntentName": "Set", "INIntentParameters": parameters] as [String: Any]],
        ], file: "Set.intentdefinition"))
    return (try #require(definition.intent(named: "SetIntent")), definition)
  }

  /// The tokens of `example` and how many phrases were split into words to read it.
  static func read(_ example: String, parameters count: Int) throws -> (
    tokens: [UtteranceMatcher.Token], normalizations: Int
  ) {
    let (spec, definition) = try definition(parameters: count)
    let interpreter = ValueInterpreter(intentClass: "SetIntent", definition: definition, vocabularies: [])
    let tokens = UtteranceMatcher.exampleTokens(example, appNames: ["Paint"], spec: spec, interpreter: interpreter)
    return (tokens, interpreter.normalizations)
  }

  @Test func onlyTheFirst32SpokenParametersAreRead() throws {
    #expect(UtteranceMatcher.maximumSpokenParameters == 32)
    // 40 parameters: the 32nd is read, the 33rd and the 40th are words only.
    let within = try Self.read("set colour \(Self.tag(32)) with Paint", parameters: 40)
    #expect(within.tokens == [.word("set"), .slot("p32")])
    let past = try Self.read("set colour \(Self.tag(33)) with Paint", parameters: 40)
    #expect(past.tokens == [.word("set"), .word("colour"), .word(Self.tag(33))])
    #expect(
      try Self.read("set colour \(Self.tag(40)) with Paint", parameters: 40).tokens.contains(.slot("p40")) == false)
    // The work is the 32 parameters' (each: its case's name and display name), however many more the intent has.
    let perParameter = try Self.read("set colour \(Self.tag(1)) with Paint", parameters: 1).normalizations
    #expect(perParameter > 0)
    #expect(past.normalizations == 32 * perParameter)
    #expect(
      try Self.read("set colour \(Self.tag(33)) with Paint", parameters: 1000).normalizations == 32 * perParameter)
  }

  /// The control: with 32 parameters or fewer every one is read, so the bound is what leaves the 33rd out.
  @Test func anIntentWithin32ParametersHasEachRead() throws {
    let all = try Self.read("set colour \(Self.tag(20)) with Paint", parameters: 20)
    #expect(all.tokens == [.word("set"), .slot("p20")])
    #expect(
      all.normalizations == 20 * (try Self.read("set colour \(Self.tag(1)) with Paint", parameters: 1).normalizations))
    #expect(
      try Self.read("set colour \(Self.tag(32)) with Paint", parameters: 32).tokens == [.word("set"), .slot("p32")])
  }
}
