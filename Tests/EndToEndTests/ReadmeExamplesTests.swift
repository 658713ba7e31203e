import Foundation
import TestSupport
import Testing

/// The README's sessions run as shown: every ```console block's `$ ` commands, in order, on a fresh home (as on a
/// fresh clone), each printing exactly the lines under it (stdout and stderr together, in any interleaving: a
/// question goes to the terminal, which here is stderr).
@Suite(.serialized, .tags(.endToEnd))
struct ReadmeExamplesTests {
  struct Example: Sendable, CustomStringConvertible {
    var command: String
    var output: [String]
    var description: String { "$ " + command }
  }

  /// The `$ ` commands of the README's ```console blocks, in order, with the lines each shows.
  static func examples() throws -> [Example] {
    let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
    var examples: [Example] = []
    var inConsole = false
    for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inConsole = line == "```console"
        continue
      }
      guard inConsole else { continue }
      if line.hasPrefix("$ ") {
        examples.append(Example(command: String(line.dropFirst(2)), output: []))
      } else if !examples.isEmpty {
        examples[examples.count - 1].output.append(String(line))
      }
    }
    return examples
  }

  @Test func theReadmeSessionsRunAsShown() async throws {
    let examples = try Self.examples()
    #expect(examples.count >= 10, "the README's sessions were not found")
    let directory = try TemporaryDirectory("intenthost-readme")
    defer { directory.remove() }
    var environment = ProcessInfo.processInfo.environment
    environment["INTENTHOST_NO_BUILD"] = "1"
    environment["ASSISTANT_HOME"] = directory.file("home").path
    environment["ASSISTANT_APP_GROUPS"] = directory.file("groups").path
    for example in examples {
      let result = try await runCommand(
        "/bin/bash", ["-c", "cd \"$1\" && " + example.command, "bash", PackagePaths.root.path],
        environment: environment)
      let printed = (result.stdout + result.stderr).split(separator: "\n").map(String.init)
      #expect(printed.sorted() == example.output.sorted(), "\(example)\n\(result)")
    }
  }
}
