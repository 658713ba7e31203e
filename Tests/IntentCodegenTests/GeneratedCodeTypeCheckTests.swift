import BundleManifest
import Foundation
import IntentHostSystem
import TestSupport
import Testing

@testable import IntentCodegen

/// The real Xcode files in ../shared/corpus/real-xcode (read where they are, never copied into this repository).
enum Corpus {
  static let folder = PackagePaths.corpus
  static let present = FileManager.default.fileExists(atPath: folder.appendingPathComponent("SOURCES.md").path)
  static let skipped: Comment = "../shared/corpus/real-xcode is not beside this clone: corpus generation skipped"

  /// Every intent definition of the corpus, by name.
  static var definitions: [URL] {
    get throws {
      try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".intentdefinition") }
        .sorted().map { folder.appendingPathComponent($0) }
    }
  }
}

/// Generated code compiled by swiftc against the built ExtensionSDK: what the plugin writes is Swift that builds,
/// whatever names the definition has, and its types make a wrong value a compile error.
@Suite(.tags(.process), .enabled(if: SwiftCompiler.isAvailable, SwiftCompiler.unavailable))
struct GeneratedCodeTypeChecks {
  /// `source` type-checks, or the test fails with swiftc's diagnostics.
  static func expectTypeChecks(_ source: String, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation)
    async throws
  {
    let result = try await SwiftCompiler.typeCheck(source)
    #expect(result.status == .exited(0), "\(comment):\n\(result.stderr)", sourceLocation: sourceLocation)
  }

  @Test(.enabled(if: Corpus.present, Corpus.skipped))
  func everyCorpusDefinitionGeneratesSwiftThatTypeChecks() async throws {
    let files = try Corpus.definitions
    #expect(files.count == 8)
    for file in files {
      let source = try IntentCodegenRequest(definitions: [file.path]).source()
      try await Self.expectTypeChecks(source, file.lastPathComponent)
    }
  }

  @Test func hostileNamesGiveSwiftThatTypeChecks() async throws {
    let hostile = [
      "default", "in", "class", "Type2", "String", "Kind", "room number", "a\"b", "back\\slash", "new\nline",
      "\\(interpolated)", "9lives", "café", "async", "some", "any", "package", "parameters", "intent", "context",
      "typed", "parameter", "description", "Code2", "actor", "get", "set", "willSet", "throws", "rethrows", "is",
      "as", "nil", "true", "inout", "operator", "precedencegroup", "associatedtype", "protocol", "where",
    ]
    let definition = try DefinitionBuilder.definition(
      [
        DefinitionBuilder.intent(
          "default",
          parameters: hostile.map { DefinitionBuilder.parameter($0, "String") } + [
            DefinitionBuilder.parameter("size", "Integer", enumType: "Kind"),
            DefinitionBuilder.parameter("Kind2", "Integer", enumType: "Kind", multiple: true),
            DefinitionBuilder.parameter("when", "Date"),
            // An unknown type's name goes into a doc comment: its newline must not end the comment.
            DefinitionBuilder.parameter("odd", "Weird\n} struct Injected {"),
          ], codes: ["success", "failure", "fail ure", "default", "case", "Success"],
          responseParameters: hostile.map { DefinitionBuilder.parameter($0, "Integer") }),
        DefinitionBuilder.intent("book\"); exit(1); //"), DefinitionBuilder.intent("String"),
      ],
      enums: [
        DefinitionBuilder.enumeration("Kind", values: ["unknown", "default", "case", "self2", "two words", "9"]),
        DefinitionBuilder.enumeration("Int", values: ["zero"]),
      ])
    let source = try IntentSourceGenerator.source(for: [definition])
    try await Self.expectTypeChecks(
      source + """

        // A handler of the hostile intent, through its typed API.
        struct HostileHandler: defaultIntentHandling {
          func resolveDefault(for intent: defaultIntent, in context: ExtensionContext) async throws
            -> TypedResolutionResult<String>
          {
            .success(with: intent.default ?? "")
          }
          func handle(intent: defaultIntent, in context: ExtensionContext) async throws -> defaultIntentResponse {
            defaultIntentResponse(code: .failUre, in: intent.size == .default ? 1 : 2)
          }
        }
        let handler: any IntentHandler = HostileHandler()
        """, "the hostile definition")
  }

  /// The control and the test: the generated property is an Int, so an Int assigns and a String does not.
  @Test func aValueOfTheWrongTypeIsACompileError() async throws {
    let source = try IntentCodegenRequest(definitions: [roomsDefinitionPath]).source()
    let right = """
      var intent = BookRoomIntent(roomNumber: 12)
      intent.roomNumber = 14
      let accepted: TypedResolutionResult<Int> = .success(with: 12)
      let response = BookRoomIntentResponse(code: .successCancelledBooking, roomNumber: 12)
      """
    try await Self.expectTypeChecks(source + right, "the right types")

    for (wrong, diagnostic) in [
      (#"intent.roomNumber = "twelve""#, "cannot assign value of type 'String' to type 'Int'"),
      (#"let wrong = BookRoomIntent(roomNumber: "12")"#, "cannot convert value of type 'String'"),
      (#"let wrong: TypedResolutionResult<Int> = .success(with: "12")"#, "cannot convert value of type 'String'"),
      ("let wrong = BookRoomIntentResponse(code: .noSuchCode)", "has no member 'noSuchCode'"),
    ] {
      let result = try await SwiftCompiler.typeCheck(source + right + "\n" + wrong + "\n")
      #expect(result.status != .exited(0), "\(wrong) type-checked")
      #expect(result.stderr.contains(diagnostic), "\(wrong):\n\(result.stderr)")
    }
  }
}
