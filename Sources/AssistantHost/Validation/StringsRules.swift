import AppIntentsMetadata
import BundleManifest
import Foundation
import Understanding

extension Validator {
  /// The rules for a project's `.strings` tables: `strings-stale-key` (each key matches an ID of the
  /// definitions), then `strings-missing-key` (`missingTranslations`).
  func stringsRules(_ project: Project) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let ids = project.definitions.reduce(into: Set<String>()) { $0.formUnion($1.localizationIDs) }
    // App Shortcut phrases (`AppShortcuts.strings`) translate no definition: the App Intents rules check them.
    for table in project.strings
    where table.file.hasSuffix(".strings")
      && URL(fileURLWithPath: table.file).lastPathComponent != AppShortcutsStrings.fileName
    {
      let stale = table.strings.keys.filter { !ids.contains(String($0.split(separator: "-").first ?? "")) }.sorted()
      if !stale.isEmpty && !ids.isEmpty {
        diagnostics.append(
          Diagnostic(
            .note, .stringsStaleKey, file: table.file, keyPath: stale.prefix(5).joined(separator: ", "),
            "\(stale.count) key\(stale.count == 1 ? "" : "s") match no ID of the intent definitions (left over?)",
            fix: "remove them, or rename each to the ID it translates (the definitions' …ID keys)"))
      }
    }
    diagnostics += missingTranslations(project)
    return diagnostics
  }

  /// `strings-missing-key`: per `<lang>.lproj/NAME.strings` table of a `NAME.intentdefinition`, the keys of the
  /// definition's texts the table lacks (iOS then shows the definition's own text), counted, the first few named.
  func missingTranslations(_ project: Project) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let definitionsByTable = Dictionary(grouping: project.definitions) { definition in
      URL(fileURLWithPath: definition.file).deletingPathExtension().lastPathComponent + ".strings"
    }
    for table in project.strings.sorted(by: { $0.file < $1.file }) where !table.language.isEmpty {
      let name = URL(fileURLWithPath: table.file).lastPathComponent
      guard let definitions = definitionsByTable[name] else { continue }
      var keys: [String] = []
      var seen = Set<String>()
      for definition in definitions {
        for string in definition.localizableStrings where seen.insert(string.key).inserted { keys.append(string.key) }
      }
      let missing = keys.filter { table.strings[$0] == nil }
      guard !missing.isEmpty else { continue }
      let shown = missing.prefix(5).joined(separator: ", ") + (missing.count > 5 ? ", ..." : "")
      diagnostics.append(
        Diagnostic(
          .warning, .stringsMissingKey, file: table.file, keyPath: shown,
          "\(table.language) lacks \(missing.count) of the \(keys.count) key\(keys.count == 1 ? "" : "s") of "
            + "\(name.dropLast(8)).intentdefinition: those texts stay untranslated",
          fix: "translate them: `assistant strings export FOLDER --locale \(table.language)` adds each with its "
            + "source text, marked NEW"))
    }
    return diagnostics
  }
}
