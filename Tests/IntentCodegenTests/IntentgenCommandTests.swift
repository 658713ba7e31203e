import BundleManifest
import Foundation
import IntentHostSystem
import TestSupport
import Testing

@testable import IntentCodegen

/// The built `intenthost-intentgen`, as IntentDefinitionPlugin runs it: a definition that cannot be Swift fails the
/// build with one error line, and nothing is written.
@Suite(
  .tags(.process),
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: PackagePaths.executable("intenthost-intentgen")),
    "intenthost-intentgen is not built (.build/debug)"))
struct IntentgenCommand {
  static let tool = PackagePaths.executable("intenthost-intentgen")

  @Test func aDefinitionThatCannotBeSwiftIsOneErrorLineAndExit65() async throws {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let definition = folder.file("Intents.intentdefinition")
    let plist: [String: Any] = [
      "INIntents": [
        DefinitionBuilder.intent("Book", parameters: [DefinitionBuilder.parameter("\u{1B}!!", "String")])
      ]
    ]
    try writePlist(plist, to: definition)
    let output = folder.file("Generated.swift")
    let result = try await runCommand(Self.tool, ["--output", output.path, definition.path])
    #expect(result.status == .exited(65), "\(result)")
    #expect(
      result.stderr
        == "\(definition.path): error: intent \"Book\", parameter \"\\u{1B}!!\": has no letter, digit or "
        + "underscore to make a Swift name of; fix: rename the parameter\n")
    #expect(!FileManager.default.fileExists(atPath: output.path))
  }

  @Test func theWrittenFileIsTheGeneratorsSource() async throws {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let output = folder.file("Generated.swift")
    let result = try await runCommand(Self.tool, ["--output", output.path, roomsDefinitionPath])
    #expect(result.status == .exited(0), "\(result)")
    let written = try String(contentsOf: output, encoding: .utf8)
    #expect(written == (try IntentCodegenRequest(definitions: [roomsDefinitionPath]).source()))
  }
}
