import ExtensionProtocol
import Foundation
import TestSupport
import Testing

@testable import AssistantHost
@testable import BundleManifest

/// A response parameter is said only as the wire type its declaration has: another type is a protocol fault naming
/// the extension, the parameter and both types; and what each declared type takes.
@Suite(.serialized, .tags(.process))
struct ResponseParameterTypeTests {
  /// Runs BookRoomIntent for room 12 and Ada, the Intents extension answering `intent/handle` with `code success` and
  /// `roomNumber` as `roomNumber` (raw JSON of the typed value).
  static func run(roomNumber: String) async throws -> Result<IntentOutcome, HostError> {
    let rig = try await Rig()
    defer { rig.remove() }
    var driver = rig.driver(ScriptedConversation(answers: ["yes"]))
    driver.launcher = RawLauncher(
      handleAnswer: #"{"code":"success","parameters":{"roomNumber":"# + roomNumber
        + #","bookedBy":{"type":"string","value":"Ada"}}}"#)
    do {
      return .success(
        try await driver.run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")])))
    } catch let error as HostError {
      return .failure(error)
    }
  }

  /// A string for the `Integer` response parameter roomNumber is a protocol fault (exit 70) naming the extension,
  /// the parameter, the type given and the type declared; the control (an integer) is said.
  @Test(arguments: [true, false])
  func aResponseParameterOfAnotherTypeIsAProtocolFault(wrongType: Bool) async throws {
    let result = try await Self.run(
      roomNumber: wrongType ? #"{"type":"string","value":"12"}"# : #"{"type":"integer","value":12}"#)
    switch result {
    case .success(let outcome):
      #expect(!wrongType, "the run should have failed: \(outcome)")
      #expect(outcome.code == .success)
    case .failure(let error):
      #expect(wrongType, "\(error.message)")
      #expect(error.status == .extensionFault)
      #expect(error.message.hasPrefix("RoomsIntents"), "\(error.message)")
      #expect(error.message.contains("handle of BookRoomIntent"), "\(error.message)")
      #expect(
        error.message.contains(
          "the response parameter roomNumber is a string, but the intent definition declares it as Integer: "
            + #"send {"type": "integer", "value": …}"#), "\(error.message)")
    }
  }

  struct TypeCase: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var type: String
    var enumType: String? = nil
    var multiple = false
    var value: ParameterValue
    var fits: Bool
  }

  /// What each declared type takes: a number also as an integer, a parameter with multiple values as an array or one
  /// value, a system type other than text as a string or an object; the rest one wire type.
  static let typeCases: [TypeCase] = [
    TypeCase(testDescription: "Integer takes an integer", type: "Integer", value: .integer(1), fits: true),
    TypeCase(testDescription: "Integer refuses a string", type: "Integer", value: .string("1"), fits: false),
    TypeCase(testDescription: "Integer refuses a decimal", type: "Integer", value: .decimal(1.5), fits: false),
    TypeCase(testDescription: "Decimal takes an integer", type: "Decimal", value: .integer(2), fits: true),
    TypeCase(testDescription: "Duration takes a decimal", type: "Duration", value: .decimal(90), fits: true),
    TypeCase(testDescription: "Currency refuses a string", type: "Currency", value: .string("$2"), fits: false),
    TypeCase(
      testDescription: "an enum takes a case", type: "Integer", enumType: "Kind", value: .enumCase("big"), fits: true
    ),
    TypeCase(
      testDescription: "an enum refuses an integer", type: "Integer", enumType: "Kind", value: .integer(1),
      fits: false),
    TypeCase(testDescription: "Boolean refuses a string", type: "Boolean", value: .string("yes"), fits: false),
    TypeCase(testDescription: "String refuses an integer", type: "String", value: .integer(3), fits: false),
    TypeCase(
      testDescription: "Person takes an object", type: "Person",
      value: .object(ObjectValue(identifier: "a", displayString: "Ada")), fits: true),
    TypeCase(testDescription: "Person takes a string", type: "Person", value: .string("Ada"), fits: true),
    TypeCase(
      testDescription: "multiple values: an array", type: "Integer", multiple: true,
      value: .array([.integer(1), .integer(2)]), fits: true),
    TypeCase(testDescription: "multiple values: one", type: "Integer", multiple: true, value: .integer(1), fits: true),
    TypeCase(
      testDescription: "multiple values: a wrong item", type: "Integer", multiple: true,
      value: .array([.integer(1), .string("2")]), fits: false),
    TypeCase(
      testDescription: "one value: no array", type: "Integer", value: .array([.integer(1)]), fits: false),
  ]

  @Test(arguments: typeCases)
  func whatEachDeclaredTypeTakes(_ test: TypeCase) {
    let spec = ResponseParameterSpec(
      name: "p", type: ParameterType(rawValue: test.type), displayName: nil, displayNameID: nil,
      supportsMultipleValues: test.multiple,
      enumType: test.enumType, objectType: nil, trueDisplayName: nil, falseDisplayName: nil)
    let problem = responseTypeProblem(in: ["p": test.value], declared: [spec])
    #expect((problem == nil) == test.fits, "\(problem ?? "fits")")
  }
}
