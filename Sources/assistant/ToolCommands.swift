// The commands that print what is generated from the command model: the shell completion scripts and the man page.
import AssistantHost
import IntentHostSystem

/// `assistant completions bash|zsh|fish`.
struct Completions: AssistantCommand {
  /// A shell the scripts are written for.
  enum Shell: String, CaseIterable, Sendable {
    case bash, zsh, fish
  }

  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "completions",
      abstract: "Print the completion script for bash, zsh or fish.",
      discussion: """
        The script completes subcommands, options, option values, installed app names (from `assistant list \
        --names`, with the line's --home) and files after `--`. Scripts/install installs all three; to load one \
        yourself, see the examples.
        """,
      arguments: [Self.name.argument],
      examples: [
        "source <(assistant completions bash)",
        "assistant completions zsh > ~/.zsh/completions/_assistant",
        "assistant completions fish > ~/.config/fish/completions/assistant.fish",
      ])
  }

  static let name = Positional(
    "SHELL", help: "The shell: bash, zsh or fish.", completion: .words(Shell.allCases.map(\.rawValue)))

  var shell: Shell

  init(_ parsed: ParsedCommand) throws {
    let name = parsed[Self.name]
    guard let shell = Shell(rawValue: name) else {
      let names = Shell.allCases.map(\.rawValue)
      throw UsageError(
        "unknown shell \"\(name)\"" + CommandLineParser.suggestion(for: name, among: names) + " (the shells are "
          + names.joined(separator: ", ") + ")", path: ["completions"])
    }
    self.shell = shell
  }

  /// The script for `shell`.
  var script: String {
    switch shell {
    case .bash: CompletionScript.bash(root: RootCommand.self)
    case .zsh: CompletionScript.zsh(root: RootCommand.self)
    case .fish: CompletionScript.fish(root: RootCommand.self)
    }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    if context.json {
      struct Report: Encodable {
        var shell: String
        var script: String
      }
      try await context.output(json: Report(shell: shell.rawValue, script: script))
    } else {
      try await FileDescriptor.standardOutput.writeAll(Array(script.utf8))
    }
    return 0
  }
}

/// `assistant manual`.
struct Manual: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "manual",
      abstract: "Print the man page assistant(1), in roff.",
      discussion: "Scripts/install installs it as PREFIX/share/man/man1/assistant.1.",
      examples: [
        "assistant manual | man -l -",
        "assistant manual > ~/.local/share/man/man1/assistant.1",
      ])
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 {
    let page = ManualPage.roff(root: RootCommand.self)
    if context.json {
      struct Report: Encodable { var manual: String }
      try await context.output(json: Report(manual: page))
    } else {
      try await FileDescriptor.standardOutput.writeAll(Array(page.utf8))
    }
    return 0
  }
}
