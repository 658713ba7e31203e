import Foundation
import TestSupport
import Testing

/// The README's sessions run as shown: every ```console block's `$ ` commands, in order, on a fresh home (as on a
/// fresh clone), each printing exactly the lines under it (stdout and stderr together, in any interleaving: a
/// question goes to the terminal, which here is stderr). Then the README's first command runs again, as a reader who
/// followed the page would run it, and the package still loads (`swift package describe`): no example may leave the
/// tree unbuildable (a `strings export` into `Sources/Examples/Rooms` once made SwiftPM refuse the package).
///
/// The commands run in a copy of the repository's sources (`Package.swift`, `Sources`, `Plugins`, `Tests`, `Scripts`)
/// with the built executables linked in, so what an example writes (`Sources/Examples/Rooms/de.lproj`) lands in the
/// copy, never in the repository, where other tests read `Sources/Examples` while this one runs.
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

  /// A copy of the package's sources in `directory` whose `.build/debug` is the repository's (a link): what
  /// `Scripts/assistant` needs to run there without building, assembling the example bundles from the copy.
  static func copyOfTheRepository(in directory: URL) throws -> URL {
    let copy = directory.appendingPathComponent("repository")
    try FileManager.default.createDirectory(
      at: copy.appendingPathComponent(".build"), withIntermediateDirectories: true)
    for item in ["Package.swift", "Sources", "Plugins", "Tests", "Scripts"] {
      try FileManager.default.copyItem(
        at: PackagePaths.root.appendingPathComponent(item), to: copy.appendingPathComponent(item))
    }
    try FileManager.default.createSymbolicLink(
      at: copy.appendingPathComponent(".build/debug"),
      withDestinationURL: PackagePaths.root.appendingPathComponent(".build/debug"))
    return copy
  }

  @Test func theReadmeSessionsRunAsShownAndLeaveTheTreeBuildable() async throws {
    let examples = try Self.examples()
    #expect(examples.count >= 10, "the README's sessions were not found")
    #expect(
      examples.contains { $0.command.contains("strings export") },
      "the README's strings export example is not run: the check that examples leave the tree buildable tests little")
    let first = try #require(examples.first)
    let directory = try TemporaryDirectory("intenthost-readme")
    defer { directory.remove() }
    let copy = try Self.copyOfTheRepository(in: directory.url)
    var environment = ProcessInfo.processInfo.environment
    environment["INTENTHOST_NO_BUILD"] = "1"
    environment["ASSISTANT_HOME"] = directory.file("home").path
    environment["ASSISTANT_APP_GROUPS"] = nil  // a home is a device: its app groups are in it
    for example in examples + [first] {
      let result = try await runCommand(
        "/bin/bash", ["-c", "cd \"$1\" && " + example.command, "bash", copy.path], environment: environment)
      let printed = (result.stdout + result.stderr).split(separator: "\n").map(String.init)
      #expect(Self.matches(printed, example.output), "\(example)\n\(result)")
    }
    // The control that the copy is what the examples wrote into: the German table is there, not in the repository.
    let table = "Sources/Examples/Rooms/de.lproj/Intents.strings"
    #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent(table).path))
    #expect(!FileManager.default.fileExists(atPath: PackagePaths.root.appendingPathComponent(table).path))
    // SwiftPM still takes the package as the examples left it.
    let described = try await Self.describe(copy, scratch: directory.file("scratch"))
    #expect(described.code == 0, "the examples left a package SwiftPM refuses:\n\(described)")
    // The control: the same table in a target's folder (RoomsKit's) is what SwiftPM refuses the package for.
    let planted = copy.appendingPathComponent("Sources/Examples/RoomsKit/de.lproj")
    try FileManager.default.copyItem(
      at: copy.appendingPathComponent("Sources/Examples/Rooms/de.lproj"), to: planted)
    let refused = try await Self.describe(copy, scratch: directory.file("scratch"))
    #expect(refused.code != 0 && refused.stderr.contains("defaultLocalization"), "\(refused)")
  }

  /// The wildcard stands for the rest of one line, and only for a line that begins as it does.
  @Test func aLineEndingInAnEllipsisMatchesOnlyItsBeginning() {
    #expect(Self.matches(["  Time slot: 12:00-13:00", "b"], ["b", "  Time slot: …"]))
    #expect(!Self.matches(["  Time zone: UTC", "b"], ["b", "  Time slot: …"]))
    #expect(!Self.matches(["  Time slot: 12:00", "b", "c"], ["b", "  Time slot: …"]))  // every line is shown
    #expect(!Self.matches(["b"], ["b", "  Time slot: …"]))
  }

  /// Whether `printed` is the lines of `shown` in any order, a shown line that ends with "…" standing for any line
  /// that begins as it does (a time that changes from run to run: "  Time slot: …").
  static func matches(_ printed: [String], _ shown: [String]) -> Bool {
    var rest = printed
    for line in shown where !line.hasSuffix("…") {
      guard let index = rest.firstIndex(of: line) else { return false }
      rest.remove(at: index)
    }
    for line in shown where line.hasSuffix("…") {
      guard let index = rest.firstIndex(where: { $0.hasPrefix(line.dropLast()) }) else { return false }
      rest.remove(at: index)
    }
    return rest.isEmpty
  }

  /// `swift package describe` of the package at `package`, with a scratch folder of its own (the repository's
  /// `.build` is the running tests').
  static func describe(_ package: URL, scratch: URL) async throws -> CommandResult {
    try await runCommand(
      "/usr/bin/env",
      [
        "swift", "package", "--package-path", package.path, "--scratch-path", scratch.path, "describe", "--type",
        "json",
      ])
  }
}
