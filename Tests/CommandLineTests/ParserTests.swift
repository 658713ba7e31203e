import AssistantHost
import NameSuggestions
import ProcessSupervision
import TestSupport
import Testing
import Understanding

@testable import assistant

/// The command model and its parser, in-process: every probe of issue 11 and the rules of the model.
@Suite(.tags(.unit)) struct ParserTests {
  let parser = CommandLineParser(root: RootCommand.self)

  /// What a command line should come to.
  enum Expected: Sendable, CustomStringConvertible {
    case command([String])
    case help([String])
    case version
    /// A usage error whose message holds every one of these.
    case usage([String])

    var description: String {
      switch self {
      case .command(let path): "command \(path)"
      case .help(let path): "help \(path)"
      case .version: "version"
      case .usage(let parts): "usage error \(parts)"
      }
    }
  }

  static let cases: [(arguments: [String], expected: Expected)] = [
    // Options after positional arguments, `=`, and `--`.
    (["validate", "X", "--json"], .command(["validate"])),
    (["--json", "validate", "X"], .command(["validate"])),
    (["run", "Rooms", "BookRoom", "--answer=Ada"], .command(["run"])),
    (["Book room 12 with Rooms", "--answer", "Ada", "--json"], .command([])),
    (["--", "list"], .command([])),
    (["open", "Rooms", "--", "book", "15", "--by", "Ada"], .command(["open"])),
    (["open", "Rooms", "list"], .command(["open"])),
    // Help and version everywhere.
    (["--help"], .help([])),
    (["-h"], .help([])),
    (["help"], .help([])),
    (["help", "run"], .help(["run"])),
    (["--home", "H", "help"], .help([])),
    (["defaults", "help", "write"], .help(["defaults", "write"])),
    (["defaults", "help"], .help(["defaults"])),
    (["--home", "H", "help", "defaults", "write"], .help(["defaults", "write"])),
    (["run", "--help"], .help(["run"])),
    (["list", "--help"], .help(["list"])),
    (["open", "--help"], .help(["open"])),
    (["validate", "X", "-h"], .help(["validate"])),
    (["--version"], .version),
    (["list", "--version"], .version),
    // Typos and unknown names.
    (["-V"], .usage(["unknown option -V", "did you mean \"--version\""])),
    (["-q"], .usage(["unknown option -q"])),
    (["lst"], .usage(["\"lst\" is not a command", "did you mean \"list\""])),
    (["instal", "X"], .usage(["did you mean \"install\""])),
    (["lsit"], .usage(["did you mean \"list\""])),
    (["--jsn", "list"], .usage(["unknown option --jsn", "did you mean \"--json\""])),
    (["help", "lst"], .usage(["no help for \"lst\"", "did you mean \"list\""])),
    (["defaults", "raed", "G"], .usage(["unknown assistant defaults command \"raed\"", "did you mean \"read\""])),
    (["defaults"], .usage(["assistant defaults needs a command"])),
    // What nobody consumes, and what is missing.
    (["list", "extra"], .usage(["unexpected argument \"extra\""])),
    (["run", "Rooms"], .usage(["missing INTENT"])),
    (["validate"], .usage(["missing PATH"])),
    (["list", "--answer", "x"], .usage(["has no option --answer", "`assistant run`"])),
    (["defaults", "read", "G", "--foo"], .usage(["unknown option --foo"])),
    (["--home"], .usage(["--home needs a value"])),
    (["--home", "a", "--home", "b", "list"], .usage(["--home is given twice"])),
    (["defaults", "watch", "G", "--count", "1", "--count", "2"], .usage(["--count is given twice"])),
    (["list", "--json=yes"], .usage(["--json takes no value"])),
    (["open", "Rooms", "book", "--by", "Ada"], .usage(["unknown option --by", "after `--`"])),
    // Negative numbers are values, not options.
    (["defaults", "write", "G", "K", "-int", "-3"], .command(["defaults", "write"])),
    // An utterance that happens to start with a word far from every command.
    (["Book", "room", "12", "with", "Rooms"], .command([])),
    (["Hello", "there"], .command([])),
  ]

  @Test(arguments: cases)
  func parses(_ arguments: [String], _ expected: Expected) {
    let result = Result { () throws(UsageError) in try parser.parse(arguments) }
    switch (result, expected) {
    case (.success(.run(_, let parsed)), .command(let path)):
      #expect(parsed.path == path, "\(arguments)")
    case (.success(.help(let path)), .help(let expectedPath)):
      #expect(path == expectedPath, "\(arguments)")
    case (.success(.version), .version):
      break
    case (.failure(let error), .usage(let parts)):
      for part in parts { #expect(error.message.contains(part), "\(arguments): \(error.message)") }
    default:
      Issue.record("\(arguments): expected \(expected), got \(result)")
    }
  }

  @Test func optionsAnywhereReachTheCommand() throws {
    guard case .run(_, let parsed) = try parser.parse(["run", "--answer=Ada", "Rooms", "--answer", "Grace", "Book"])
    else {
      Issue.record("not a run")
      return
    }
    #expect(parsed.values(answerOption) == ["Ada", "Grace"])
    #expect(parsed[Run.app] == "Rooms")
    #expect(parsed[Run.intent] == "Book")
  }

  @Test func theTerminatorEndsOptions() throws {
    guard case .run(_, let parsed) = try parser.parse(["open", "Rooms", "--json", "--", "--json", "-x"]) else {
      Issue.record("not a run")
      return
    }
    #expect(parsed.flag(jsonOption))
    #expect(parsed[Open.arguments] == ["--json", "-x"])
    guard case .run(_, let said) = try parser.parse(["--", "--help", "me"]) else {
      Issue.record("not an utterance")
      return
    }
    #expect(said[UtteranceArgument.words] == ["--help", "me"])
  }

  @Test func eachOptionNameHasOneMeaning() {
    // The parser decides whether an option takes a value before it knows the command: one arity per name.
    var arity: [String: Bool] = [:]
    for (path, command) in CommandLineParser.commands(under: RootCommand.self) {
      for option in command.configuration.allOptions {
        for name in option.names {
          if let known = arity[name] {
            #expect(known == option.isFlag, "\(name) in \(path)")
          }
          arity[name] = option.isFlag
        }
      }
    }
  }

  @Test func everyCommandHasAnAbstractAndUsage() {
    for (path, command) in CommandLineParser.commands(under: RootCommand.self) {
      let configuration = command.configuration
      #expect(!configuration.abstract.isEmpty, "\(path)")
      #expect(!configuration.abstract.contains("\n"), "\(path)")
      let help = HelpText.help(path, command)
      #expect(help.contains("USAGE: assistant"), "\(path)")
      #expect(help.contains("--json"), "\(path)")
      for option in configuration.allOptions {
        #expect(help.contains(option.names.last!), "\(path): \(option.key)")
      }
      #expect(!help.split(separator: "\n").contains { $0.count > HelpText.width }, "\(path): a line is too long")
    }
  }

  @Test func editDistanceCountsTranspositionsAsOne() {
    #expect(editDistance("lsit", "list") == 1)
    #expect(editDistance("lst", "list") == 1)
    #expect(editDistance("instal", "install") == 1)
    #expect(editDistance("hello", "help") == 2)
    #expect(editDistance("", "abc") == 3)
  }
}

extension ParserTests {
  /// What the command line takes for something else than an utterance, by the parser's own rules: what a shortcut's
  /// phrase must not be (`assistant shortcuts add` refuses it).
  @Test(arguments: [
    ("lock", "the command `assistant lock`"), ("status", "the command `assistant status`"),
    ("defaults", "the command `assistant defaults`"), ("unlok", "a typo of the command `assistant unlock`"),
    ("Status.", "a typo of the command `assistant status`"), ("-h", "a request for help"),
    ("--version", "the option --version"),
  ])
  func aWordTheCommandLineTakesForACommandIsNoUtterance(_ word: String, _ taken: String) {
    #expect(parser.notAnUtterance(word)?.contains(taken) == true, "\(parser.notAnUtterance(word) ?? "an utterance")")
  }

  @Test(arguments: ["lock the door", "Book room 12 for Ada with Rooms", "hello", "Open my door"])
  func anUtteranceIsOne(_ utterance: String) {
    #expect(parser.notAnUtterance(utterance) == nil)
  }
}

extension ParserTests {
  /// The tests' controls (`--simulate FACT`, `--raw-untrusted-text`) parse like every option, anywhere and with
  /// `=`, for every command.
  @Test(arguments: [
    ["--simulate", "no-cgroup", "run", "Rooms", "BookRoom"], ["run", "Rooms", "--simulate=no-landlock", "BookRoom"],
    ["--raw-untrusted-text", "list"], ["defaults", "list", "--raw-untrusted-text"],
    ["Book room 12 with Rooms", "--simulate", "landlock-abi=3", "--simulate", "no-user-namespace"],
  ])
  func theHiddenOptionsParseAnywhere(_ arguments: [String]) throws {
    guard case .run(_, let parsed) = try parser.parse(arguments) else {
      Issue.record("\(arguments): not a run")
      return
    }
    let simulated = arguments.enumerated().compactMap { index, word -> String? in
      if word.hasPrefix("--simulate=") { return String(word.dropFirst("--simulate=".count)) }
      return word == "--simulate" ? arguments[index + 1] : nil
    }
    #expect(parsed.values(simulateOption) == simulated, "\(arguments)")
    #expect(parsed.flag(rawUntrustedTextOption) == arguments.contains("--raw-untrusted-text"), "\(arguments)")
  }

  /// Each fact of `--simulate` reaches the sandbox policy as the typed value; an unknown one is a usage error.
  @Test func theSimulatedFactsReachThePolicy() throws {
    guard
      case .run(_, let parsed) = try parser.parse([
        "run", "Rooms", "BookRoom", "--simulate", "no-landlock", "--simulate", "landlock-abi=3", "--simulate",
        "no-cgroup", "--simulate", "no-user-namespace",
      ])
    else {
      Issue.record("not a run")
      return
    }
    let kernel = try LaunchOptions(parsed).sandbox.simulatedKernel
    #expect(kernel.noLandlock && kernel.noControlGroups && kernel.noUserNamespaces)
    #expect(kernel.landlockABICeiling == 3)
    // Control: without the option, the real kernel.
    guard case .run(_, let plain) = try parser.parse(["run", "Rooms", "BookRoom"]) else {
      Issue.record("not a run")
      return
    }
    #expect(try LaunchOptions(plain).sandbox.simulatedKernel == SimulatedKernel())
    guard case .run(_, let unknown) = try parser.parse(["list", "--simulate", "no-seccomp"]) else {
      Issue.record("not a run")
      return
    }
    let error = try #require(throws: HostError.self) { try unknown.simulatedKernel() }
    #expect(error.status == .usage)
    #expect(error.message.contains("no-landlock, landlock-abi=N, no-cgroup, no-user-namespace"), "\(error.message)")
  }

  /// No help, usage line, `help --json`, man page or completion script shows the hidden options, and no "did you
  /// mean" suggests them; the control: a shown standard option is in each.
  @Test func theHiddenOptionsAreShownNowhere() throws {
    let hidden = hiddenOptions.flatMap(\.names)
    #expect(hidden == ["--simulate", "--raw-untrusted-text"])
    var texts = [
      ManualPage.roff(root: RootCommand.self), CompletionScript.bash(root: RootCommand.self),
      CompletionScript.zsh(root: RootCommand.self), CompletionScript.fish(root: RootCommand.self),
    ]
    for (path, command) in CommandLineParser.commands(under: RootCommand.self) {
      texts.append(HelpText.help(path, command))
      texts.append(HelpText.model(path, command).options.flatMap(\.names).joined(separator: " "))
    }
    // By the names without their dashes (fish's completions write `-l NAME`) and roff's escapes (`\-`).
    for text in texts.map({ $0.replacing("\\", with: "") }) {
      #expect(text.contains("passcode-stdin"), "\(text.prefix(80))")
      for name in hidden.map({ $0.drop { $0 == "-" } }) {
        #expect(!text.contains(name), "\(name) in \(text.prefix(80))")
      }
    }
    let near = Result { () throws(UsageError) in try parser.parse(["list", "--simulat"]) }
    guard case .failure(let error) = near else {
      Issue.record("--simulat parsed")
      return
    }
    #expect(!error.message.contains("did you mean"), "\(error.message)")
  }
}
