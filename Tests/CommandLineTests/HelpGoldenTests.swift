import Foundation
import TestSupport
import Testing

@testable import assistant

/// `--help` of every command, against the checked-in text in `Golden/` (one file per command path:
/// `help.txt` for `assistant --help`, `help-defaults-write.txt` for `assistant defaults write --help`).
///
/// A change to the command model changes the help: review the difference, then rewrite the files with
/// `INTENTHOST_UPDATE_GOLDEN=1 swift test --filter HelpGoldenTests` and commit them with the change.
@Suite(.tags(.unit)) struct HelpGoldenTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

  static func file(for path: [String]) -> URL {
    folder.appendingPathComponent((["help"] + path).joined(separator: "-") + ".txt")
  }

  static var paths: [[String]] { CommandLineParser.commands(under: RootCommand.self).map(\.path) }

  @Test(arguments: paths)
  func helpMatchesTheGoldenText(_ path: [String]) throws {
    let command = try #require(CommandLineParser.command(at: path, under: RootCommand.self))
    let text = HelpText.help(path, command) + "\n"
    let file = Self.file(for: path)
    if ProcessInfo.processInfo.environment["INTENTHOST_UPDATE_GOLDEN"] == "1" {
      try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
      try Data(text.utf8).write(to: file)
      return
    }
    let golden = try String(contentsOf: file, encoding: .utf8)
    #expect(text == golden, "assistant \(path.joined(separator: " ")) --help changed; see HelpGoldenTests")
  }

  @Test func noGoldenFileIsLeftOver() throws {
    let expected = Set(Self.paths.map { Self.file(for: $0).lastPathComponent })
    let present = Set(try FileManager.default.contentsOfDirectory(atPath: Self.folder.path))
    #expect(present == expected)
  }

  /// The README's exit-status table is the model's (`exitStatusTable`), status for status.
  @Test func theReadmeListsEveryExitStatus() throws {
    let readme = try String(
      contentsOf: Self.folder.deletingLastPathComponent().appendingPathComponent("../../README.md").standardized,
      encoding: .utf8)
    let section = try #require(readme.range(of: "### Exit status"))
    let rows = readme[section.upperBound...].split(separator: "\n").drop { !$0.hasPrefix("| status") }.dropFirst(2)
      .prefix { $0.hasPrefix("|") }
    let statuses = rows.map { $0.split(separator: "|")[0].trimmingCharacters(in: .whitespaces) }
    #expect(statuses == exitStatusTable.map(\.status))
  }
}
