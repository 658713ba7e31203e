// The command model: every subcommand is one type that declares its name, abstract, arguments and options; parsing,
// `--help`, the usage lines, the man page and the shell completions are all generated from those declarations (the
// shape of swift-argument-parser's `CommandConfiguration(subcommands:)`, without the package).
import AssistantHost
import ProcessSupervision

/// An option or a flag of a command.
struct Option: Sendable {
  /// Every spelling, the canonical (long) one last: `["-h", "--help"]`, `["--home"]`, `["-int", "-integer"]`.
  var names: [String]
  /// The value's placeholder (`DIR`); nil for a flag.
  var value: String?
  /// One line (or a short paragraph) for `--help`.
  var help: String
  /// Whether it may be given more than once (each value kept, in order).
  var repeatable = false
  /// What a shell completes for its value.
  var completion: Completion = .none

  /// The name a parsed value is kept under: the last (longest) spelling.
  var key: String { names.last! }
  var isFlag: Bool { value == nil }

  static func flag(_ names: String..., help: String) -> Option {
    Option(names: names, value: nil, help: help)
  }

  static func value(
    _ names: String..., value: String, help: String, repeatable: Bool = false, completion: Completion = .none
  ) -> Option {
    Option(names: names, value: value, help: help, repeatable: repeatable, completion: completion)
  }
}

/// A positional argument of a command.
struct Argument: Sendable {
  /// Its placeholder in usage lines (`APP`, `PATH`).
  var name: String
  var help: String
  var isOptional = false
  /// Whether it takes every remaining positional argument (at least one unless optional).
  var isRepeating = false
  var completion: Completion = .none
  /// For a repeating argument: whether it also takes what follows `--` and words after it that are not options
  /// of the command (`open APP -- ARGS...`), as a pass-through to another program.
  var isPassthrough = false

  var usage: String {
    let base = isRepeating ? "\(name)..." : name
    return isOptional ? "[\(base)]" : base
  }
}

/// What a shell completes for an argument or an option's value.
enum Completion: Sendable, Equatable {
  case none
  case file
  case directory
  /// One of these words.
  case words([String])
  /// The name of an installed app (asked of `assistant list --names` when completing).
  case apps
}

/// What a command is: its name, what it does, and what it accepts.
struct CommandConfiguration: Sendable {
  var name: String
  /// One line: what the command does.
  var abstract: String
  /// More, for `--help` and the man page (may be several paragraphs).
  var discussion: String = ""
  var arguments: [Argument] = []
  /// The command's own options; the standard ones (`--home`, `--json`, `--help`, `--version`) are added to every
  /// command.
  var options: [Option] = []
  var subcommands: [any AssistantCommand.Type] = []
  /// The subcommand that runs when none is named (`assistant storage` is `assistant storage show`), as
  /// swift-argument-parser's `defaultSubcommand`; nil: one must be named.
  var defaultSubcommand: (any AssistantCommand.Type)? = nil
  /// Example invocations, shown by `--help` and in the man page.
  var examples: [String] = []
  /// Whether `--json` applies: then the command prints one JSON document (or, for a stream, one per line).
  var printsJSON = true
  /// Options of other commands that this one refuses, each with why and what to do instead (the usage error says
  /// it): `shell --record` points at `assistant --record FILE "UTTERANCE"`.
  var refusedOptions: [String: String] = [:]
}

/// One subcommand of `assistant`.
protocol AssistantCommand: Sendable {
  static var configuration: CommandConfiguration { get }
  /// Takes what the parser found; throws `HostError(.usage)` for what parsing cannot check (a value's form).
  init(_ parsed: ParsedCommand) throws
  /// Runs the command.
  /// - Returns: the exit status (the README's table).
  func run(in context: CommandContext) async throws -> Int32
}

/// The options every command takes (`--passcode-stdin` too: any command may need the passcode).
let standardOptions: [Option] = [homeOption, jsonOption, passcodeStdinOption, helpOption, versionOption]

let homeOption = Option.value(
  "--home", value: "DIR",
  help:
    "The host home (else $ASSISTANT_HOME, else $XDG_DATA_HOME/intenthost, else ~/.local/share/intenthost); app "
    + "groups live in DIR/AppGroup unless $ASSISTANT_APP_GROUPS names another folder.",
  completion: .directory)
let jsonOption = Option.flag("--json", help: "Print one JSON document on stdout (errors too, as {\"error\": {...}}).")
let helpOption = Option.flag("-h", "--help", help: "Show help for this command.")
let versionOption = Option.flag("--version", help: "Show the version.")

/// The options every command takes that no help, usage line, man page or completion shows, and that no "did you
/// mean" suggests: the end-to-end tests' controls, given on the command line instead of read from the environment.
/// They parse like every option (anywhere, `--name=value`).
let hiddenOptions: [Option] = [simulateOption, rawUntrustedTextOption]

let simulateOption = Option.value(
  "--simulate", value: "FACT",
  help:
    "Act as on a kernel without what FACT names (tests only): "
    + SimulatedKernel.factNames.joined(separator: ", ") + ". Each only makes the host refuse more.",
  repeatable: true)
let rawUntrustedTextOption = Option.flag(
  "--raw-untrusted-text",
  help: "Print untrusted text raw, bypassing the sanitizer (tests only, for the controls; warns on every run).")

extension CommandConfiguration {
  /// Every option the command accepts and shows: its own, then the standard ones (not `hiddenOptions`).
  var allOptions: [Option] { options + standardOptions }

  /// The option spelled `name`, a hidden one too.
  func option(named name: String) -> Option? {
    (allOptions + hiddenOptions).first { $0.names.contains(name) }
  }
}

/// What the parser found for one command.
struct ParsedCommand: Sendable {
  /// The command's path, e.g. `["defaults", "read"]`; empty for the root (an utterance).
  var path: [String] = []
  /// Option values by `Option.key`, in the order given.
  private(set) var values: [String: [String]] = [:]
  /// Positional arguments by `Argument.name`.
  private(set) var arguments: [String: [String]] = [:]

  /// Whether the flag `option` was given.
  func flag(_ option: Option) -> Bool { values[option.key] != nil }
  /// The value of `option`, the last one given.
  func value(_ option: Option) -> String? { values[option.key]?.last }
  /// Every value of a repeatable `option`, in order.
  func values(_ option: Option) -> [String] { values[option.key] ?? [] }
  /// The words bound to `argument`, if any (read through its `Positional`).
  func words(of argument: Argument) -> [String]? { arguments[argument.name] }

  mutating func add(option: Option, value: String?) throws(UsageError) {
    if values[option.key] != nil && !option.repeatable {
      throw UsageError("\(option.key) is given twice; give it once")
    }
    values[option.key, default: []].append(value ?? "")
  }

  mutating func set(argument: String, _ list: [String]) { arguments[argument] = list }
}

/// A command line that does not fit the command model: exit 64, the message and how to get help.
struct UsageError: Error, Sendable {
  var message: String
  /// The command whose help to point at (`assistant run --help`).
  var path: [String] = []

  init(_ message: String, path: [String] = []) {
    self.message = message
    self.path = path
  }

  var hostError: HostError {
    HostError(.usage, "\(message)\nsee `\((["assistant"] + path).joined(separator: " ")) --help`")
  }
}
