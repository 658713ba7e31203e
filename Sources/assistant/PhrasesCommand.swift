import AssistantHost
import BundleManifest
import Foundation
import IntentHostSystem
import Understanding
import UntrustedText

/// `assistant phrases [APP] [--check APP|BUNDLE]`: what the installed apps answer to.
struct Phrases: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "phrases",
      abstract: "List what the installed apps answer to, or check that an app's phrases reach their intents.",
      discussion: """
        Without APP, every installed app; "What can you do?" prints the same. Each app's IntentPhrases examples \
        come first, said as they are; then its combination titles, its intent titles and, for system intents, \
        Siri's own phrases, which are said with the app named ("... with Rooms") and each ${NAME} filled with a \
        value. Under --locale, the titles the app's Intents.strings translates for it are listed too, before the \
        definition's own (an utterance may use either), and APP may be a name its InfoPlist.strings gives. With \
        --check (APP: an installed app's name, or a bundle folder), each IntentPhrases example, said as written, \
        and each combination title and intent title, said with each ${NAME} filled with an example value and \
        "with APP" added, must reach its own intent with the values it names, and no two intents may claim one \
        phrase: exit 65 with a diagnostic per failing phrase. Siri's phrases for system intents and translated \
        titles are not checked. With --json: {"apps": [{"name", "bundleIdentifier", "phrases": [{"intent", \
        "phrase", "source": "example"|"title"|"system"|"appShortcut"}]}], "shortcuts": [{"identifier", "phrase", \
        "bundleIdentifier", "intent"}]} (the user's shortcuts of those apps that can run, also listed under each \
        app); with --check --json: {"app", "bundleIdentifier", \
        "errors", "diagnostics": [DIAGNOSTIC...]}, a diagnostic as validate prints it.
        """,
      arguments: [Self.app.argument],
      options: [localeOption, Self.check],
      examples: ["assistant phrases", "assistant phrases Rooms --json", "assistant phrases --check Rooms.app"])
  }

  static let app = Positional.optional("APP", help: "An installed app, or with --check a bundle.")
  static let check = Option.flag(
    "--check", help: "Check that the phrases reach their intents (exit 65 when one does not).")

  var app: String?
  var check: Bool
  /// `--locale`: the apps' translated titles and names for it are listed and taken too.
  var locale: String?

  init(_ parsed: ParsedCommand) throws {
    app = parsed[Self.app]
    check = parsed.flag(Self.check)
    locale = parsed.value(localeOption)
  }

  func run(in context: CommandContext) async throws -> Int32 {
    if check {
      guard let app else { throw HostError(.usage, "--check needs an APP or a BUNDLE.app") }
      // A path (it exists, or it has a "/" or ends with .app) is a bundle folder; anything else an installed app.
      let bundle: AppBundle
      if await offloaded({ FileManager.default.fileExists(atPath: app) }) {
        do {
          bundle = try await offloaded { () throws -> AppBundle in try AppBundle.load(from: URL(fileURLWithPath: app)) }
        } catch let error as InvalidBundleNames {
          throw HostError(
            .dataError,
            "cannot check \(app): \(error.diagnostics.count) error\(error.diagnostics.count == 1 ? "" : "s")\n"
              + error.diagnostics.map(\.shown).joined(separator: "\n"))
        } catch let error as ManifestError {
          throw HostError(.dataError, "cannot check \(app):\n" + Diagnostic(error).shown)
        }
      } else if app.contains("/") || app.hasSuffix(".app") {
        throw HostError(.noInput, "\(app) does not exist; give a bundle folder (NAME.app) or an installed app's name")
      } else {
        bundle = try Router(apps: try context.home().installedApps()).app(named: app)
      }
      let diagnostics = PhraseBook.check(bundle)
      // A note (`phrase-reads-text`) is no failure.
      let errors = diagnostics.errors.count
      let notes = diagnostics.count - errors
      if context.json {
        try await context.output(
          json: CheckReport(
            app: bundle.name, bundleIdentifier: bundle.identifier.rawValue, errors: errors, diagnostics: diagnostics))
      } else {
        for diagnostic in diagnostics { try await context.output(diagnostic.shown) }
        // One error per failing phrase.
        let total = PhraseBook.checkedPhraseCount(bundle)
        try await context.output(
          "\(Untrusted.shown(bundle.name)): "
            + (errors == 0
              ? "all \(total) phrase\(total == 1 ? "" : "s") reach their intents"
              : "\(errors) of \(total) phrase\(total == 1 ? "" : "s") fail")
            + (notes == 0 ? "" : " (\(notes) note\(notes == 1 ? "" : "s"))"))
      }
      return errors == 0 ? ExitStatus.success.rawValue : ExitStatus.dataError.rawValue
    }
    try await printPhrases(PhraseList.of(app, in: context.home(), locale: locale), in: context)
    return ExitStatus.success.rawValue
  }
}

/// What `phrases --check --json` prints.
private struct CheckReport: Encodable {
  var app: String
  var bundleIdentifier: String
  var errors: Int
  var diagnostics: [Diagnostic]
}

/// Prints `list` as `assistant phrases` does: each app's examples, then its titles and Siri's phrases, then the
/// user's shortcuts of it; with `--json`, the list as it is.
func printPhrases(_ list: PhraseList, in context: CommandContext) async throws {
  let (entries, shortcuts) = (list.apps, list.shortcuts)
  if context.json {
    try await context.output(json: list)
    return
  }
  if entries.isEmpty { try await context.output("No app is installed.") }
  for entry in entries {
    let name = Untrusted.shown(entry.name)
    try await context.output("\(name) (\(entry.bundleIdentifier))")
    let appShortcuts = entry.phrases.filter { $0.source == .appShortcut }
    let examples = entry.phrases.filter { $0.source == .example }
    let patterns = entry.phrases.filter { $0.source != .example && $0.source != .appShortcut }
    let width = entry.phrases.map { Untrusted.shown($0.phrase).count + 2 }.max() ?? 0
    func row(_ line: PhraseBook.Line) -> String {
      let phrase = "\"\(Untrusted.shown(line.phrase))\""
      return "    " + phrase + String(repeating: " ", count: max(0, width - phrase.count)) + "  "
        + Untrusted.shown(line.intent)
    }
    if !appShortcuts.isEmpty {
      try await context.output("  App Shortcuts (said as they are; ${NAME} is a value):")
      for line in appShortcuts { try await context.output(row(line)) }
    }
    if !examples.isEmpty {
      try await context.output("  Say, for example:")
      for line in examples { try await context.output(row(line)) }
    }
    if !patterns.isEmpty {
      try await context.output("  Or, ending with \"with \(name)\" (${NAME} is a value):")
      for line in patterns { try await context.output(row(line)) }
    }
    let own = shortcuts.filter { $0.bundleIdentifier == entry.bundleIdentifier }
    if !own.isEmpty {
      try await context.output("  Your shortcuts (said as they are):")
      let width = own.map { Untrusted.shown($0.phrase).count + 2 }.max() ?? 0
      for shortcut in own {
        let phrase = "\"\(Untrusted.shown(shortcut.phrase))\""
        try await context.output(
          "    " + phrase + String(repeating: " ", count: max(0, width - phrase.count)) + "  "
            + Untrusted.shown(shortcut.intent) + " (" + Untrusted.shown(shortcut.identifier) + ")")
      }
    }
  }
}
