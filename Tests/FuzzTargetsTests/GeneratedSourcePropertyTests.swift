import FuzzTargets
import TestSupport
import Testing

/// The property the intentdefinition fuzz target checks on generated Swift, and its control.
@Suite(.tags(.unit))
struct GeneratedSourceProperty {
  @Test func printableASCIILinesPass() {
    #expect(FuzzTargets.generatedSourceProblems("public var a: Swift.Int?\n/// \"x\\u{A}\"\n").isEmpty)
  }

  @Test func aControlCharacterOrANonASCIICharacterIsAProblem() {
    #expect(FuzzTargets.generatedSourceProblems("/// a\u{1B}[2Jb\n") == ["the generated Swift holds U+1B"])
    #expect(FuzzTargets.generatedSourceProblems("let café = 1\n") == ["the generated Swift holds U+E9"])
  }
}
