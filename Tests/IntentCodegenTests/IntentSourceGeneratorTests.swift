import BundleManifest
import Foundation
import TestSupport
import Testing

@testable import IntentCodegen

/// The Rooms example's definition, as the plugin finds it for RoomsIntents.
let roomsDefinitionPath = PackagePaths.root.appendingPathComponent(
  "Sources/Examples/Rooms/Base.lproj/Intents.intentdefinition"
).path

@Suite(.tags(.unit))
struct SwiftNamesFromDefinitions {
  @Test(arguments: [
    ("roomNumber", "roomNumber"), ("room number", "roomNumber"), ("room-number", "roomNumber"), ("x_y", "x_y"),
    ("9lives", "_9lives"), ("café au lait", "cafAuLait"), ("a\"b\\c", "aBC"), ("\u{1B}[31mred", "_31mred"),
    ("!!!", ""), ("", ""),
  ])
  func mangling(name: String, identifier: String) {
    #expect(SwiftIdentifier.mangled(name) == identifier)
  }

  @Test func keywordsAreEscapedAndOtherNamesAreNot() {
    #expect(SwiftIdentifier.escaped("default") == "`default`")
    #expect(SwiftIdentifier.escaped("in") == "`in`")
    #expect(SwiftIdentifier.escaped("roomNumber") == "roomNumber")
  }

  @Test func aLiteralSaysTheNameExactlyInPrintableASCII() {
    let literal = SwiftIdentifier.literal("a\"b\\c\n\u{1B}é\\(x)")
    #expect(literal == #""a\"b\\c\u{A}\u{1B}\u{E9}\\(x)""#)
    #expect(literal.unicodeScalars.allSatisfy { (" "..."~").contains($0) })
  }
}

@Suite(.tags(.unit))
struct GeneratedIntentSource {
  @Test func roomsGivesTypedPropertiesHandlingAndResponse() throws {
    let source = try IntentCodegenRequest(definitions: [roomsDefinitionPath]).source()
    for declaration in [
      "public struct BookRoomIntent: ExtensionSDK.TypedIntent {",
      "public var roomNumber: Swift.Int?", "public var bookedBy: Swift.String?",
      "public var isCancellationOfBooking: Swift.Bool?",
      "public protocol BookRoomIntentHandling: ExtensionSDK.IntentHandler {",
      "func resolveRoomNumber(for intent: BookRoomIntent, in context: ExtensionSDK.ExtensionContext) async throws "
        + "-> ExtensionSDK.TypedResolutionResult<Swift.Int>",
      "func confirm(intent: BookRoomIntent, in context: ExtensionSDK.ExtensionContext) async throws "
        + "-> BookRoomIntentResponse",
      "public struct BookRoomIntentResponse: ExtensionSDK.TypedIntentResponse {",
      #"case successCancelledBooking = "successCancelledBooking""#, #"case handleInApp = "handleInApp""#,
      "public var reason: Swift.String?", "public struct OpenDoorIntent: ExtensionSDK.TypedIntent {",
    ] {
      #expect(source.contains(declaration), "missing: \(declaration)")
    }
    // No Date, so no Foundation import.
    #expect(!source.contains("import Foundation"))
  }

  @Test func theOutputIsTheSameBytesEveryTimeAndFollowsTheFile() throws {
    let definition = try DefinitionBuilder.definition([
      DefinitionBuilder.intent(
        "Zed", parameters: [DefinitionBuilder.parameter("b", "String"), DefinitionBuilder.parameter("a", "String")]),
      DefinitionBuilder.intent("Alpha"),
    ])
    let first = try IntentSourceGenerator.source(for: [definition])
    #expect(try IntentSourceGenerator.source(for: [definition]) == first)
    let zed = try #require(first.range(of: "struct ZedIntent"))
    let alpha = try #require(first.range(of: "struct AlphaIntent"))
    #expect(zed.lowerBound < alpha.lowerBound)
    let b = try #require(first.range(of: "public var b:"))
    let a = try #require(first.range(of: "public var a:"))
    #expect(b.lowerBound < a.lowerBound)
  }

  @Test func typesFollowTheMapping() throws {
    let definition = try DefinitionBuilder.definition(
      [
        DefinitionBuilder.intent(
          "Order",
          parameters: [
            DefinitionBuilder.parameter("count", "Integer"), DefinitionBuilder.parameter("weight", "Decimal"),
            DefinitionBuilder.parameter("when", "DateComponents"),
            DefinitionBuilder.parameter("size", "Integer", enumType: "Size"),
            DefinitionBuilder.parameter("toppings", "String", multiple: true),
            DefinitionBuilder.parameter("recipient", "Person"), DefinitionBuilder.parameter("item", "Object"),
          ], responseParameters: [DefinitionBuilder.parameter("sizes", "Integer", enumType: "Size", multiple: true)])
      ], enums: [DefinitionBuilder.enumeration("Size", values: ["unknown", "small", "extra large"])])
    let source = try IntentSourceGenerator.source(for: [definition])
    for declaration in [
      "public var count: Swift.Int?", "public var weight: Swift.Double?", "public var when: Date?",
      "public var size: Size?", "public var toppings: [Swift.String]?",
      "public var recipient: ExtensionSDK.ParameterValue?", "public var item: ExtensionSDK.ObjectValue?",
      "public var sizes: [Size]?", "public enum Size: Swift.String, ExtensionSDK.IntentEnum {",
      #"case extraLarge = "extra large""#, "  import FoundationEssentials",
    ] {
      #expect(source.contains(declaration), "missing: \(declaration)")
    }
  }

  @Test func aSystemIntentListedByTheInfoPlistGetsItsAppleEnums() throws {
    let source = try IntentSourceGenerator.source(for: [], systemIntents: ["INStartWorkoutIntent"])
    for declaration in [
      "public struct INStartWorkoutIntent: ExtensionSDK.TypedIntent {",
      "public var workoutGoalUnitType: INWorkoutGoalUnitType?", #"case kiloCalorie = "kiloCalorie""#,
      "public var goalValue: Swift.Double?", #"case failureOngoingWorkout = "failureOngoingWorkout""#,
    ] {
      #expect(source.contains(declaration), "missing: \(declaration)")
    }
  }
}

/// A definition that cannot be Swift: one error naming the file, the thing and a fix.
@Suite(.tags(.unit))
struct DefinitionsThatCannotBeGenerated {
  struct Case: Sendable, CustomTestStringConvertible {
    var label: String
    /// Builds the definition (dictionaries are not Sendable, so each case makes its own).
    var make: @Sendable () throws -> IntentDefinition
    var subject: String
    var problem: String
    var testDescription: String { label }
  }

  static let cases: [Case] = [
    Case(
      label: "a parameter with no identifier character",
      make: {
        try DefinitionBuilder.definition(
          [DefinitionBuilder.intent("Book", parameters: [DefinitionBuilder.parameter("!!!", "String")])])
      }, subject: #"intent "Book", parameter "!!!""#, problem: "has no letter, digit or underscore"),
    Case(
      label: "two parameters that mangle alike",
      make: {
        try DefinitionBuilder.definition([
          DefinitionBuilder.intent(
            "Book",
            parameters: [
              DefinitionBuilder.parameter("room number", "String"), DefinitionBuilder.parameter("roomNumber", "String"),
            ])
        ])
      }, subject: #"intent "Book", parameter "roomNumber""#, problem: #"as "room number" is"#),
    Case(
      label: "a parameter named as a member of the generated intent",
      make: {
        try DefinitionBuilder.definition(
          [DefinitionBuilder.intent("Book", parameters: [DefinitionBuilder.parameter("identifier", "String")])])
      }, subject: #"intent "Book", parameter "identifier""#, problem: "which the generated type needs"),
    Case(
      label: "a parameter named self",
      make: {
        try DefinitionBuilder.definition(
          [DefinitionBuilder.intent("Book", parameters: [DefinitionBuilder.parameter("self", "String")])])
      }, subject: #"intent "Book", parameter "self""#, problem: "which the generated type needs"),
    Case(
      label: "parameters whose resolve methods would be the same",
      make: {
        try DefinitionBuilder.definition([
          DefinitionBuilder.intent(
            "Book",
            parameters: [DefinitionBuilder.parameter("room", "String"), DefinitionBuilder.parameter("Room", "String")])
        ])
      }, subject: #"intent "Book", parameter "Room""#, problem: "would be resolved by resolveRoom"),
    Case(
      label: "an enum without values",
      make: { try DefinitionBuilder.definition([], enums: [DefinitionBuilder.enumeration("Size", values: [])]) },
      subject: #"enum "Size""#, problem: "has no values"),
    Case(
      label: "a parameter whose enum does not exist",
      make: {
        try DefinitionBuilder.definition([
          DefinitionBuilder.intent(
            "Book", parameters: [DefinitionBuilder.parameter("size", "Integer", enumType: "Nope")])
        ])
      }, subject: #"intent "Book", parameter "size""#, problem: #"takes the enum "Nope""#),
    Case(
      label: "an intent and an enum of the same Swift name",
      make: {
        try DefinitionBuilder.definition(
          [DefinitionBuilder.intent("Book")], enums: [DefinitionBuilder.enumeration("BookIntent", values: ["a"])])
      }, subject: #"intent "Book""#, problem: #"which enum "BookIntent" declares too"#),
    Case(
      label: "an enum named as a module the generated code names",
      make: { try DefinitionBuilder.definition([], enums: [DefinitionBuilder.enumeration("Swift", values: ["a"])]) },
      subject: #"enum "Swift""#, problem: "a name Swift or the SDK needs"),
    Case(
      label: "an enum value named rawValue",
      make: {
        try DefinitionBuilder.definition([], enums: [DefinitionBuilder.enumeration("Size", values: ["rawValue"])])
      }, subject: #"enum "Size", value "rawValue""#, problem: "which the generated type needs"),
    Case(
      label: "a response parameter named code",
      make: {
        try DefinitionBuilder.definition([
          DefinitionBuilder.intent("Book", responseParameters: [DefinitionBuilder.parameter("code", "String")])
        ])
      }, subject: #"intent "Book", response parameter "code""#, problem: "which the generated type needs"),
  ]

  @Test(arguments: cases)
  func refusedWithOneClearError(_ refused: Case) throws {
    let definition = try refused.make()
    let error = try #require(throws: IntentCodegenError.self) { try IntentSourceGenerator.source(for: [definition]) }
    #expect(error.file == "Intents.intentdefinition")
    #expect(error.subject == refused.subject)
    #expect(error.problem.contains(refused.problem), "\(error.problem)")
    #expect(!error.fix.isEmpty)
    #expect(error.description.hasPrefix("Intents.intentdefinition: error: \(refused.subject): "))
  }

  @Test func aFileThatIsNotADefinitionNamesTheFile() throws {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let file = folder.file("Intents.intentdefinition")
    try Data("<plist><dict/></plist>".utf8).write(to: file)
    let error = try #require(throws: IntentCodegenError.self) {
      try IntentCodegenRequest(definitions: [file.path]).source()
    }
    #expect(error.file == file.path)
    #expect(error.description.contains("INIntents"))
  }
}
