// `--help`, `help [COMMAND]`, usage lines and the exit-status table, all generated from the command model.
import AssistantHost

/// The exit statuses, as the README's table and `assistant --help` give them.
let exitStatusTable: [(status: String, meaning: String)] = [
  ("0", "handled with a success response; any other command: done"),
  ("1", "handled with a failure or other non-success response (continueInApp); replay: the run differs"),
  (
    "64",
    "usage error: unknown command, option or argument, a value of the wrong form, an unused --answer, an "
      + "utterance over 4096 bytes"
  ),
  (
    "65",
    "invalid manifest or data (validate or phrases --check found an error; build's swift build failed or a bundle "
      + "it assembled does not validate; a transcript replay refuses; an unreadable document; a shortcut phrase that "
      + "clashes)"
  ),
  ("66", "a path given does not exist (or, for replay, is not a regular file; for build, an executable not built)"),
  (
    "69",
    "no installed app, intent, group, key or shortcut matches, a name several apps share, an inactive shortcut; "
      + "serve --status with no server running"
  ),
  ("70", "extension fault: it crashed, exited, missed a deadline or broke the protocol"),
  (
    "73",
    "the host's home or one of its folders cannot be created; a --record or replay --update FILE cannot be "
      + "written (checked before the run); new app into a folder that is not empty; serve when a server already "
      + "serves the home"
  ),
  ("74", "the host's own I/O error (its state, its output)"),
  ("75", "a value, choice or passcode is needed but cannot be asked (no terminal, --answer or --passcode-stdin)"),
  (
    "77",
    "refused (locked, wrong passcode, lockout, authentication, entitlement, sandbox, storage budget or volume, "
      + "another team's id or group)"
  ),
  ("128+N", "interrupted by signal N, every extension stopped first; 141 when the reader of the output went away"),
]

enum HelpText {
  static let width = 100

  /// The usage lines of a command.
  static func usageLines(_ path: [String], _ configuration: CommandConfiguration) -> [String] {
    let prefix = (["assistant"] + path).joined(separator: " ")
    if path.isEmpty {
      return ["assistant [OPTIONS] \"UTTERANCE\"", "assistant COMMAND [OPTIONS] [ARGUMENTS]"]
    }
    if !configuration.subcommands.isEmpty {
      return ["\(prefix) COMMAND [OPTIONS] [ARGUMENTS]"]
        + (configuration.defaultSubcommand.map { ["\(prefix) [OPTIONS]  (\(prefix) \($0.configuration.name))"] } ?? [])
    }
    var words = [prefix, "[OPTIONS]"]
    for argument in configuration.arguments {
      if argument.isPassthrough { words.append("[-- \(argument.name)...]") } else { words.append(argument.usage) }
    }
    return [words.joined(separator: " ")]
  }

  /// The whole `--help` text of the command at `path`.
  static func help(_ path: [String], _ command: any AssistantCommand.Type) -> String {
    let configuration = command.configuration
    var out: [String] = wrap("OVERVIEW: \(configuration.abstract)", indent: 0) + [""]
    if !configuration.discussion.isEmpty {
      out += wrap(configuration.discussion, indent: 0)
      out.append("")
    }
    let lines = usageLines(path, configuration)
    out.append("USAGE: " + lines[0])
    out += lines.dropFirst().map { "       " + $0 }
    out.append("")
    if !configuration.subcommands.isEmpty {
      out.append("COMMANDS:")
      for sub in configuration.subcommands {
        let isDefault = configuration.defaultSubcommand.map { ObjectIdentifier($0) == ObjectIdentifier(sub) } ?? false
        let alone = isDefault ? " `\((["assistant"] + path).joined(separator: " "))` alone runs it." : ""
        out += entry(sub.configuration.name, sub.configuration.abstract + alone)
      }
      out.append("")
    }
    if !configuration.arguments.isEmpty && (path.isEmpty || configuration.subcommands.isEmpty) {
      out.append("ARGUMENTS:")
      for argument in configuration.arguments { out += entry(argument.name, argument.help) }
      out.append("")
    }
    out.append("OPTIONS:")
    for option in configuration.allOptions {
      let note = option.repeatable && !option.help.contains("repeatable") ? " (Repeatable.)" : ""
      out += entry(optionLabel(option), option.help + note)
    }
    out.append("")
    if !configuration.examples.isEmpty {
      out.append("EXAMPLES:")
      out += configuration.examples.map { "  " + $0 }
      out.append("")
    }
    if path.isEmpty {
      out.append("EXIT STATUS:")
      for row in exitStatusTable { out += entry(row.status, row.meaning, column: 9) }
      out.append("  `open` exits with the app's own status.")
      out.append("")
    }
    if !configuration.subcommands.isEmpty {
      out.append("See `\((["assistant", "help"] + path).joined(separator: " ")) COMMAND` for a command's options.")
    }
    while out.last == "" { out.removeLast() }
    return out.joined(separator: "\n")
  }

  /// `-h, --help` or `--home DIR`.
  static func optionLabel(_ option: Option) -> String {
    option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
  }

  /// A name and its help, the help wrapped in a column.
  static func entry(_ name: String, _ text: String, column: Int = 26) -> [String] {
    let lead = "  " + name
    let lines = wrap(text, indent: column)
    if lead.count + 2 <= column {
      return [lead.padding(toLength: column, withPad: " ", startingAt: 0) + lines[0].dropFirst(column)]
        + lines.dropFirst()
    }
    return [lead] + lines
  }

  /// `text` wrapped at `width`, each line indented by `indent` spaces.
  static func wrap(_ text: String, indent: Int) -> [String] {
    var lines: [String] = []
    let pad = String(repeating: " ", count: indent)
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = pad
      for word in paragraph.split(separator: " ") {
        if line.count > indent && line.count + 1 + word.count > width {
          lines.append(line)
          line = pad
        }
        line += (line.count > indent ? " " : "") + word
      }
      lines.append(line)
    }
    return lines
  }

  /// The command model as JSON (`help --json`): for tools and editors.
  struct Description: Encodable {
    var command: String
    var abstract: String
    var discussion: String
    var usage: [String]
    var arguments: [ArgumentDescription]
    var options: [OptionDescription]
    var subcommands: [String]
  }
  struct ArgumentDescription: Encodable {
    var name: String
    var help: String
    var optional: Bool
    var repeating: Bool
  }
  struct OptionDescription: Encodable {
    var names: [String]
    var value: String?
    var help: String
    var repeatable: Bool
  }

  static func model(_ path: [String], _ command: any AssistantCommand.Type) -> Description {
    let configuration = command.configuration
    let lines = usageLines(path, configuration)
    return Description(
      command: (["assistant"] + path).joined(separator: " "), abstract: configuration.abstract,
      discussion: configuration.discussion, usage: lines,
      arguments: configuration.arguments.map {
        ArgumentDescription(name: $0.name, help: $0.help, optional: $0.isOptional, repeating: $0.isRepeating)
      },
      options: configuration.allOptions.map {
        OptionDescription(names: $0.names, value: $0.value, help: $0.help, repeatable: $0.repeatable)
      },
      subcommands: configuration.subcommands.map { $0.configuration.name })
  }
}

/// `assistant help [COMMAND [SUBCOMMAND]]`: the same as `assistant COMMAND --help`.
struct Help: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "help", abstract: "Show help for a command (the same as COMMAND --help).",
      arguments: [
        Argument(
          name: "COMMAND", help: "A command, and a subcommand of it.", isOptional: true, isRepeating: true,
          completion: .words(
            RootCommand.configuration.subcommands.filter { ObjectIdentifier($0) != ObjectIdentifier(Help.self) }
              .map { $0.configuration.name } + ["help"]))
      ],
      examples: ["assistant help defaults write"])
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 { 0 }  // the parser answers `help` itself
}
