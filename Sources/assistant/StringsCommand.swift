// `assistant strings`: the translation tables of intent definitions. The command line is parsed here; the export
// itself is AssistantHost's `StringsExporter`.
import AssistantHost
import Foundation
import IntentHostSystem
import UntrustedText

/// `assistant strings VERB ...`.
struct Strings: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "strings",
      abstract: "Export the strings of intent definitions for translation, as Xcode's Export for Localization does.",
      subcommands: [StringsExportCommand.self],
      examples: ["assistant strings export Sources/Examples/Rooms --locale fr --xliff"])
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 { ExitStatus.usage.rawValue }  // the parser refuses it
}

/// `assistant strings export PATH --locale LANG [--xliff]`.
struct StringsExportCommand: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "export",
      abstract: "Write LANG.lproj/Intents.strings beside each definition, keeping its translations.",
      discussion: """
        PATH is a bundle, a source folder (searched for .intentdefinition files, Base.lproj's copy first) or one \
        .intentdefinition file. Beside each definition (beside its Base.lproj folder), LANG.lproj/NAME.strings \
        gets every key the definition generates (its …ID values, such as 0xCtgS), each with a /* comment */ \
        saying what it is. A translation the file has is kept; a key it lacks gets the source text and a NEW \
        marker; a key the definition no longer has is kept at the end, marked STALE. A new table for a \
        region or script (fr_FR, pt-BR) starts from its language's table beside it (fr.lproj), which it replaces \
        when that locale is asked for. With --xliff, LANG.lproj/NAME.xliff too (XLIFF 1.2, as Xcode exports it: a trans-unit per key with its source, its \
        target when translated, and a note); an .xliff already there is always rewritten, so that it never \
        disagrees with the table. Files are replaced atomically. The folder named (or the one holding \
        the file named) is trusted; nothing beneath it is followed through a symbolic link: a linked LANG.lproj \
        or table is refused (exit 77). A key still marked NEW whose text is still the source text \
        stays NEW on the next export; change its text to translate it. With --json, one document: {"tables": \
        [{"file", "locale", "keys", "new", "stale", "translated", "xliff", "seededFrom"}, ...]}.
        """,
      arguments: [Self.path.argument],
      options: [Self.locale, Self.xliff],
      examples: [
        "assistant strings export Sources/Examples/Rooms --locale fr",
        "assistant strings export Rooms/Base.lproj/Intents.intentdefinition --locale de --xliff --json",
      ])
  }

  static let path = Positional(
    "PATH", help: "A bundle, a source folder or an .intentdefinition file.", completion: .file)
  static let locale = Option.value(
    "--locale", value: "LANG", help: "The language to export for, e.g. fr, pt-BR, zh-Hans.")
  static let xliff = Option.flag("--xliff", help: "Also write an XLIFF 1.2 file beside the table.")

  var path: String
  var locale: String
  var xliff: Bool

  init(_ parsed: ParsedCommand) throws {
    path = parsed[Self.path]
    guard let locale = parsed.value(Self.locale) else {
      throw UsageError("strings export needs --locale LANG", path: ["strings", "export"]).hostError
    }
    self.locale = locale
    xliff = parsed.flag(Self.xliff)
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let (path, locale, xliff) = (path, locale, xliff)
    let reports = try await offloaded { () throws -> [StringsExporter.Report] in
      try StringsExporter.export(path: path, locale: locale, xliff: xliff)
    }
    if context.json {
      struct Document: Encodable { var tables: [StringsExporter.Report] }
      try await context.output(json: Document(tables: reports))
      return ExitStatus.success.rawValue
    }
    for report in reports {
      do {
        var line =
          "wrote \(Untrusted.shown(report.file)): \(report.keys) key\(report.keys == 1 ? "" : "s"), "
          + "\(report.translated) translated, \(report.new) new, \(report.stale) stale"
        if let seed = report.seededFrom { line += " (translations from \(Untrusted.shown(seed)))" }
        if let xliff = report.xliff { line += "; and \(Untrusted.shown(xliff))" }
        try await context.output(line)
      }
    }
    return ExitStatus.success.rawValue
  }
}
