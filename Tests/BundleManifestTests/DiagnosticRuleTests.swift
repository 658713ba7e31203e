import BundleManifest
import Foundation
import TestSupport
import Testing

/// The rules a finding can name (`Diagnostic.Rule`) are the rules docs/VALIDATION.md documents, and a rule is
/// printed and encoded by its stable name.
@Suite struct DiagnosticRuleTests {
  /// The names in the first column of the doc's "## Rules" table (`| \`a\`, \`b\` | severity | what |`).
  static func documentedRules() throws -> [String] {
    let doc = try String(
      contentsOf: PackagePaths.root.appendingPathComponent("docs/VALIDATION.md"), encoding: .utf8)
    let section = try #require(doc.components(separatedBy: "\n## Rules\n").dropFirst().first)
      .components(separatedBy: "\n## ")[0]
    var names: [String] = []
    for line in section.split(separator: "\n") where line.hasPrefix("| `") {
      let firstCell = line.split(separator: "|", omittingEmptySubsequences: true)[0]
      names += firstCell.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
    return names
  }

  @Test func everyRuleIsDocumented() throws {
    let documented = Set(try Self.documentedRules())
    let undocumented = Diagnostic.Rule.allCases.filter { !documented.contains($0.rawValue) }
    #expect(undocumented.isEmpty, "docs/VALIDATION.md's Rules table lacks \(undocumented)")
  }

  @Test func everyDocumentedRuleIsACase() throws {
    let documented = try Self.documentedRules()
    // The control: the table was read (it has dozens of rows).
    #expect(documented.count > 40)
    #expect(documented.filter { Diagnostic.Rule(rawValue: $0) == nil }.isEmpty)
    #expect(Set(documented).count == documented.count, "a rule is listed twice: \(documented)")
  }

  /// The printed form and `--json` use the rule's name, as before rules were typed.
  @Test func aRuleIsShownAndEncodedByItsName() throws {
    let diagnostic = Diagnostic(
      .error, .bundleIDPrefix, file: "Info.plist", keyPath: "CFBundleIdentifier", "is wrong", fix: "fix it")
    #expect("\(Diagnostic.Rule.bundleIDPrefix)" == "bundle-id-prefix")
    #expect(
      diagnostic.description == "Info.plist: CFBundleIdentifier: error: is wrong [bundle-id-prefix]\n    fix: fix it")
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(diagnostic), as: UTF8.self)
    #expect(
      json == #"{"file":"Info.plist","fix":"fix it","keyPath":"CFBundleIdentifier","message":"is wrong","#
        + #""rule":"bundle-id-prefix","severity":"error"}"#)
    #expect(try JSONDecoder().decode(Diagnostic.self, from: Data(json.utf8)) == diagnostic)
  }
}
