import AssistantHost
import BundleManifest
import Foundation
import IntentHostSystem
import UntrustedText

/// `assistant phrases [APP] [--check APP|BUNDLE]`: what the installed apps answer to.
struct Phrases: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "phrases",
      abstract: "List what the installed apps answer to, or check that an app's phrases reach their intents.",
      discussion: """
        Without APP, every installed app; "What can you do?" prints the same. With --check, every IntentPhrases \
        example and combination title of the app (an installed app's name, or a bundle folder) must reach its own \
        intent with the values it names, and no two intents may claim one phrase: exit 65 with a diagnostic per \
        failing phrase. With --json: [{"name", "bundleIdentifier", "phrases": [{"intent", "phrase", "source"}]}].
        """,
      arguments: [Argument(name: "APP", help: "An installed app, or with --check a bundle.", isOptional: true)],
      options: [
        localeOption,
        .flag("--check", help: "Check that the phrases reach their intents (exit 65 when one does not)."),
      ],
      examples: ["assistant phrases", "assistant phrases Rooms --json", "assistant phrases --check Rooms.app"])
  }

  var app: String?
  var check: Bool

  init(_ parsed: ParsedCommand) throws {
    app = parsed.argument("APP")
    check = parsed.flag("--check")
  }

  func run(in context: CommandContext) async throws -> Int32 {
    if check {
      guard let app else { throw HostError(.usage, "--check needs an APP or a BUNDLE.app") }
      let bundle: AppBundle
      if FileManager.default.fileExists(atPath: app) {
        bundle = try await offloaded { try AppBundle.load(from: URL(fileURLWithPath: app)) }
      } else {
        bundle = try Router(apps: try context.home().installedApps()).app(named: app)
      }
      let diagnostics = PhraseBook.check(bundle)
      if context.json {
        try await context.output(json: diagnostics)
      } else {
        for diagnostic in diagnostics { try await context.output(diagnostic.shown) }
        try await context.output(
          "\(diagnostics.count) phrase\(diagnostics.count == 1 ? "" : "s") of \(Untrusted.shown(bundle.name)) "
            + (diagnostics.isEmpty ? "failing: all reach their intents" : "failing"))
      }
      return diagnostics.isEmpty ? ExitStatus.success.rawValue : ExitStatus.dataError.rawValue
    }
    try await printPhrases(of: app, in: context)
    return ExitStatus.success.rawValue
  }
}

/// Prints the phrases of the installed apps (or of the app called `name`), as `assistant phrases` does.
func printPhrases(of name: String?, in context: CommandContext) async throws {
  let installed = try context.home().installedApps()
  let apps = try name.map { [try Router(apps: installed).app(named: $0)] } ?? installed
  let entries = PhraseBook.entries(apps)
  if context.json {
    try await context.output(json: entries)
    return
  }
  if entries.isEmpty { try await context.output("No app is installed.") }
  for entry in entries {
    try await context.output("\(Untrusted.shown(entry.name)) (\(entry.bundleIdentifier))")
    for line in entry.phrases {
      try await context.output("  \"\(Untrusted.shown(line.phrase))\"  \(Untrusted.shown(line.intent))")
    }
  }
}
