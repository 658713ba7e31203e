import AssistantHost
import ExtensionProtocol
import IntentHostSystem
import Understanding
import UntrustedText

/// `assistant vocabulary APP`: the terms the app registered for the user (`host/setVocabulary`).
struct Vocabulary: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "vocabulary",
      abstract: "Show the user's own terms an app registered (contact names, workout names ...), by type.",
      discussion: """
        An app registers them while it runs (SiriKit's INVocabulary.setVocabularyStrings(_:of:); with the SDK, \
        setVocabularyStrings(_:of:) on its AppContext or ExtensionContext), each set replacing the previous one of \
        its type. They are listed by SiriKit type name (contactName, workoutActivityName, ...), in the order of \
        that list, each type's terms in the order the app gave them (the first matters most). An utterance to the \
        app takes a term, as spelled, in a slot of that type (docs/CONVERSATION.md, "The user's vocabulary"). \
        With --json: {"app", "bundleIdentifier", "types": [{"type", "terms": [TERM...]}]}.
        """,
      arguments: [Self.app.argument],
      examples: ["assistant vocabulary Rooms", "assistant vocabulary com.example.rooms --json"])
  }

  static let app = Positional("APP", help: "An installed app: its name or bundle id.")

  var app: String

  init(_ parsed: ParsedCommand) throws {
    app = parsed[Self.app]
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let bundle = try Router(apps: try home.installedApps()).app(named: app)
    let identifier = bundle.identifier.rawValue
    let registered = try await offloaded { () throws in try DonationStore(home: home).vocabulary(of: identifier) }
    let types = VocabularyStringType.allCases.compactMap { type in
      registered[type.rawValue].map { TypeTerms(type: type.rawValue, terms: $0) }
    }
    if context.json {
      try await context.output(json: VocabularyList(app: bundle.name, bundleIdentifier: identifier, types: types))
      return ExitStatus.success.rawValue
    }
    let name = "\(Untrusted.shown(bundle.name)) (\(identifier))"
    if types.isEmpty {
      try await context.output("\(name) has registered no terms.")
      return ExitStatus.success.rawValue
    }
    try await context.output(name)
    for entry in types {
      try await context.output("  \(entry.type) (\(entry.terms.count)):")
      for term in entry.terms { try await context.output("    \(Untrusted.shown(term))") }
    }
    return ExitStatus.success.rawValue
  }
}

/// What `vocabulary --json` prints.
private struct VocabularyList: Encodable {
  var app: String
  var bundleIdentifier: String
  var types: [TypeTerms]
}

private struct TypeTerms: Encodable {
  var type: String
  var terms: [String]
}
