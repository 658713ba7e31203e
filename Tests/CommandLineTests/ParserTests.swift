import AssistantHost
import Testing
import Understanding

@testable import assistant

/// The command model and its parser, in-process: every probe of issue 11 and the rules of the model.
@Suite struct ParserTests {
  let parser = CommandLineParser(root: Assistant.self)

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
    #expect(parsed.values("--answer") == ["Ada", "Grace"])
    #expect(parsed.argument("APP") == "Rooms")
    #expect(parsed.argument("INTENT") == "Book")
  }

  @Test func theTerminatorEndsOptions() throws {
    guard case .run(_, let parsed) = try parser.parse(["open", "Rooms", "--json", "--", "--json", "-x"]) else {
      Issue.record("not a run")
      return
    }
    #expect(parsed.flag("--json"))
    #expect(parsed.arguments("ARGS") == ["--json", "-x"])
    guard case .run(_, let said) = try parser.parse(["--", "--help", "me"]) else {
      Issue.record("not an utterance")
      return
    }
    #expect(said.arguments(UtteranceArgument.name) == ["--help", "me"])
  }

  @Test func eachOptionNameHasOneMeaning() {
    // The parser decides whether an option takes a value before it knows the command: one arity per name.
    var arity: [String: Bool] = [:]
    for (path, command) in CommandLineParser.commands(under: Assistant.self) {
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
    for (path, command) in CommandLineParser.commands(under: Assistant.self) {
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
