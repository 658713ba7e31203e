import Foundation
import TestSupport
import Testing

/// What the built `assistant` generates from its command model — the man page and the bash, zsh and fish completion
/// scripts — covers every command of the model (walked with `help --json`), the bash script completes as a user
/// sees it, and `Scripts/install` installs the tool.
@Suite(.serialized, .tags(.endToEnd))
struct CommandLineToolTests {
  static let assistant = PackagePaths.executable("assistant")

  /// A command as `assistant help [COMMAND...] --json` describes it.
  struct Command: Decodable, CustomStringConvertible {
    struct Argument: Decodable {
      var name: String
    }
    struct Option: Decodable {
      var names: [String]
      var value: String?
    }
    var command: String
    var usage: [String]
    var arguments: [Argument]
    var options: [Option]
    var subcommands: [String]

    /// The words after `assistant`.
    var path: [String] { Array(command.split(separator: " ").dropFirst().map(String.init)) }
    var optionNames: [String] { options.flatMap(\.names) }
    var description: String { command }
  }

  /// Every command of the model, the root first: `help --json`, then `help COMMAND... --json` for each subcommand.
  static func commands() async throws -> [Command] {
    var commands: [Command] = []
    var paths: [[String]] = [[]]
    while !paths.isEmpty {
      let path = paths.removeFirst()
      let result = try await runCommand(assistant, ["help"] + path + ["--json"])
      try #require(result.code == 0, "\(result)")
      let command = try JSONDecoder().decode(Command.self, from: Data(result.stdout.utf8))
      commands.append(command)
      paths += command.subcommands.map { path + [$0] }
    }
    return commands
  }

  /// What `assistant ARGUMENTS` prints, which must succeed with nothing on stderr.
  static func generated(_ arguments: [String]) async throws -> String {
    let result = try await runCommand(assistant, arguments)
    try #require(result.code == 0 && result.stderr.isEmpty, "\(result)")
    return result.stdout
  }

  /// The path of an installed program, found on PATH.
  static func program(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  @Test func theWalkOfTheModelReachesEveryCommand() async throws {
    let commands = try await Self.commands()
    let names = Set(commands.map(\.command))
    for expected in [
      "assistant", "assistant run", "assistant completions", "assistant manual", "assistant help",
      "assistant sandbox-profile",
    ] {
      #expect(names.contains(expected), "\(names.sorted())")
    }
    #expect(commands.allSatisfy { !$0.optionNames.isEmpty && !$0.usage.isEmpty }, "\(commands)")
  }

  // MARK: - The completion scripts cover the model

  /// The lines of a `case` branch: from the line `opening` to its `;;`.
  static func branch(_ script: String, opening: String) -> String? {
    let lines = script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let start = lines.firstIndex(of: opening) else { return nil }
    return lines[start...].prefix { $0.trimmingCharacters(in: .whitespaces) != ";;" }.joined(separator: "\n")
  }

  /// The line of `branch` that assigns `array`.
  static func assignment(_ branch: String, _ array: String) -> String {
    branch.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(array + "=(") }
      .map(String.init) ?? ""
  }

  static func singleQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

  @Test func theBashScriptDeclaresEveryCommandWithItsSubcommandsAndOptions() async throws {
    let script = try await Self.generated(["completions", "bash"])
    for command in try await Self.commands() {
      let branch = try #require(
        Self.branch(script, opening: "    " + Self.singleQuoted(command.path.joined(separator: " ")) + ")"),
        "no branch for \(command)")
      let subcommands = Self.assignment(branch, "subcommands")
      for name in command.subcommands {
        #expect(subcommands.contains(Self.singleQuoted(name)), "\(command): \(name) in \(subcommands)")
      }
      let options = Self.assignment(branch, "options")
      for name in command.optionNames {
        #expect(options.contains(Self.singleQuoted(name)), "\(command): \(name) in \(options)")
      }
    }
  }

  @Test func theZshScriptDeclaresEveryCommandWithItsSubcommandsAndOptions() async throws {
    let script = try await Self.generated(["completions", "zsh"])
    #expect(script.hasPrefix("#compdef assistant\n"))
    for command in try await Self.commands() {
      let branch = try #require(
        Self.branch(script, opening: "    (" + Self.singleQuoted(command.path.joined(separator: " ")) + ")"),
        "no branch for \(command)")
      let subcommands = Self.assignment(branch, "subs")
      for name in command.subcommands {
        #expect(subcommands.contains("'\(name):"), "\(command): \(name) in \(subcommands)")
      }
      let options = Self.assignment(branch, "opts")
      for name in command.optionNames {
        #expect(options.contains("'\(name):"), "\(command): \(name) in \(options)")
      }
    }
  }

  @Test func theFishScriptDeclaresEveryCommandWithItsSubcommandsAndOptions() async throws {
    let script = try await Self.generated(["completions", "fish"])
    let lines = script.split(separator: "\n").map(String.init)
    for command in try await Self.commands() {
      let path = command.path.map { " " + $0 }.joined()
      let options = lines.filter { $0.contains("-n '__assistant_in\(path)' ") }
      for name in command.optionNames {
        let flag =
          name.hasPrefix("--")
          ? "-l '\(name.dropFirst(2))'" : name.count == 2 ? "-s '\(name.dropFirst())'" : "-o '\(name.dropFirst())'"
        #expect(options.contains { $0.contains(" \(flag) ") }, "\(command): \(name) (\(flag))")
      }
      for name in command.subcommands {
        #expect(
          lines.contains { $0.contains("-n '__assistant_subcommand_of\(path)' -a '\(name)' ") }, "\(command): \(name)")
      }
    }
  }

  @Test func theBashScriptParses() async throws {
    let bash = try #require(Self.program("bash"))
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let script = scratch.file("assistant.bash")
    try Data(try await Self.generated(["completions", "bash"]).utf8).write(to: script)
    let result = try await runCommand(bash, ["-n", script.path])
    #expect(result.code == 0 && result.stderr.isEmpty, "\(result)")
    // The control: a script bash cannot parse is reported.
    try Data("_assistant() {\n  if true; then\n}\n".utf8).write(to: script)
    let broken = try await runCommand(bash, ["-n", script.path])
    #expect(broken.code != 0, "\(broken)")
  }

  @Test(
    .enabled(
      if: CommandLineToolTests.program("zsh") != nil, "zsh is not installed: the zsh script's syntax is not checked"))
  func theZshScriptParses() async throws {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let script = scratch.file("_assistant")
    try Data(try await Self.generated(["completions", "zsh"]).utf8).write(to: script)
    let result = try await runCommand(Self.program("zsh")!, ["-n", script.path])
    #expect(result.code == 0 && result.stderr.isEmpty, "\(result)")
  }

  @Test(
    .enabled(
      if: CommandLineToolTests.program("fish") != nil, "fish is not installed: the fish script's syntax is not checked")
  )
  func theFishScriptParses() async throws {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let script = scratch.file("assistant.fish")
    try Data(try await Self.generated(["completions", "fish"]).utf8).write(to: script)
    let result = try await runCommand(Self.program("fish")!, ["--no-execute", script.path])
    #expect(result.code == 0 && result.stderr.isEmpty, "\(result)")
  }

  // MARK: - The bash script completes

  /// A bash session with the generated script, and a stand-in `assistant` that lists two apps only when asked with
  /// `--home /apps/home list --names` (so a test can see that the line's --home reaches it).
  struct BashSession {
    let scratch: TemporaryDirectory
    let bash: String
    let script: URL
    /// The stand-in, the first word of every completed line.
    let program: String
    /// The folder completions run in: it holds `notes.txt` and the folder `Bundles`.
    let folder: URL

    init() async throws {
      bash = try #require(CommandLineToolTests.program("bash"))
      scratch = try TemporaryDirectory()
      script = scratch.file("assistant.bash")
      try Data(try await CommandLineToolTests.generated(["completions", "bash"]).utf8).write(to: script)
      try FileManager.default.createDirectory(at: scratch.file("bin"), withIntermediateDirectories: true)
      program = scratch.file("bin/assistant").path
      try Data(
        """
        #!/bin/sh
        if [ "$*" = "--home /apps/home list --names" ]; then printf '%s\\n' Rooms 'Soup Chef'; fi
        echo "stand-in: $*" >&2

        """.utf8
      ).write(to: URL(fileURLWithPath: program))
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program)
      folder = scratch.file("work")
      try FileManager.default.createDirectory(
        at: folder.appendingPathComponent("Bundles"), withIntermediateDirectories: true)
      try Data().write(to: folder.appendingPathComponent("notes.txt"))
    }

    /// COMPREPLY for the line `assistant WORDS...`, the cursor at the end of the last word, as bash sets
    /// COMP_WORDS (a NAME=VALUE is split at `=`, which COMP_WORDBREAKS holds).
    func complete(_ words: [String]) async throws -> [String] {
      let driver = """
        source "$1" || exit 99
        cd "$2" || exit 98
        shift 2
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="${COMP_WORDS[*]}"
        COMP_POINT=${#COMP_LINE}
        _assistant || exit 97
        if ((${#COMPREPLY[@]} > 0)); then printf '%s\\n' "${COMPREPLY[@]}"; fi
        """
      let result = try await runCommand(
        bash, ["--norc", "--noprofile", "-c", driver, "bash", script.path, folder.path] + words)
      try #require(result.code == 0 && result.stderr.isEmpty, "\(words): \(result)")
      return result.stdout.split(separator: "\n").map(String.init)
    }

    func remove() { scratch.remove() }
  }

  /// A line (after `assistant`) and what bash completes for its last word.
  static let bashCases: [(words: [String], expected: [String])] = [
    (["va"], ["validate"]),
    (["run", "--ans"], ["--answer"]),
    (["completions", ""], ["bash", "zsh", "fish"]),
    (["completions", "z"], ["zsh"]),
    (["--json", "run", "--ans"], ["--answer"]),  // options before the command
    (["list", "--na"], ["--names"]),
    (["list", "--ans"], []),  // --answer is run's, not list's
    (["run", "--deadline", "ha"], ["handshake=", "handle="]),
    (["run", "--deadline", "=", "ha"], ["handshake=", "handle="]),  // --deadline=ha, as bash splits it
    (["--home", "/apps/home", "run", ""], ["Rooms", "Soup\\ Chef"]),  // apps, asked with the line's --home
    (["--home", "=", "/apps/home", "uninstall", "S"], ["Soup\\ Chef"]),  // --home=/apps/home, as bash splits it
    (["--home=/apps/home", "uninstall", "S"], ["Soup\\ Chef"]),  // as a shell that does not split it
    (["run", "--json", "--home", "/apps/home", "R"], ["Rooms"]),
    (["run", ""], []),  // the control: without that --home the stand-in lists no app
    (["--home", "/apps/home", "run", "Rooms", ""], []),  // INTENT completes nothing
    (["--home", ""], ["Bundles"]),  // --home completes folders
    (["validate", "no"], ["notes.txt"]),
    (["install", ""], ["Bundles"]),
    (["open", "Rooms", "--", ""], ["Bundles", "notes.txt"]),  // files after `--`
    (["Book", "room", ""], []),  // an utterance
    (["help", "--he"], ["--help"]),
  ]

  @Test func theBashScriptCompletesWhatTheModelDeclares() async throws {
    let session = try await BashSession()
    defer { session.remove() }
    for (words, expected) in Self.bashCases {
      let completed = try await session.complete([session.program] + words)
      #expect(completed.sorted() == expected.sorted(), "assistant \(words.joined(separator: " ")): \(completed)")
    }
  }

  @Test func theBashScriptCompletesEverySubcommandAndEveryOptionOfEachCommand() async throws {
    let session = try await BashSession()
    defer { session.remove() }
    for command in try await Self.commands() {
      if !command.subcommands.isEmpty {
        let completed = try await session.complete([session.program] + command.path + [""])
        #expect(completed.sorted() == command.subcommands.sorted(), "\(command)")
      }
      let completed = try await session.complete([session.program] + command.path + ["-"])
      #expect(completed.sorted() == command.optionNames.sorted(), "\(command)")
    }
  }

  // MARK: - The man page

  static let sections = [
    "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES",
    "SEE ALSO",
  ]

  /// The requests a generated page may use.
  static let requests: Set<String> = [".TH", ".SH", ".SS", ".PP", ".TP", ".RS", ".RE", ".nf", ".fi", ".nh", ".ad"]

  /// What is wrong with a page's structure: a missing section, a line that a formatter would take for an unknown
  /// request (one starting with `.` or `'`).
  static func structuralProblems(_ page: String) -> [String] {
    let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var problems: [String] = []
    for section in sections where !lines.contains(".SH \"\(section)\"") { problems.append("no .SH \(section)") }
    for (number, line) in lines.enumerated() {
      if line.hasPrefix("'") { problems.append("line \(number + 1) starts with an unescaped ': \(line)") }
      if line.hasPrefix("."), !requests.contains(String(line.prefix { $0 != " " })) {
        problems.append("line \(number + 1) is not a known request: \(line)")
      }
    }
    return problems
  }

  /// The page's text as a reader sees it: font changes dropped, `\-`, `\e` and `\&` undone.
  static func plain(_ page: String) -> String {
    var text = page
    for font in ["\\fB", "\\fI", "\\fR"] { text = text.replacingOccurrences(of: font, with: "") }
    return text.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\&", with: "")
      .replacingOccurrences(of: "\\e", with: "\\")
  }

  /// The text of the part of `page` (plain) that a `.SH` or `.SS` line `heading` opens, up to the next heading.
  static func part(_ page: String, _ heading: String) -> String? {
    let lines = page.split(separator: "\n").map(String.init)
    guard let start = lines.firstIndex(of: heading) else { return nil }
    return lines[(start + 1)...].prefix { !$0.hasPrefix(".SH ") && !$0.hasPrefix(".SS ") }.joined(separator: "\n")
  }

  @Test func theManualHasEverySectionAndEveryCommandWithItsUsageAndOptions() async throws {
    let page = try await Self.generated(["manual"])
    #expect(Self.structuralProblems(page) == [])
    #expect(page.hasPrefix(".TH ASSISTANT 1 "))
    let text = Self.plain(page)
    let synopsis = try #require(Self.part(text, ".SH \"SYNOPSIS\""))
    let options = try #require(Self.part(text, ".SH \"OPTIONS\""))
    for command in try await Self.commands() {
      let section = command.path.isEmpty ? options : Self.part(text, ".SS \"\(command.command)\"")
      guard let section else {
        Issue.record("no .SS for \(command)")
        continue
      }
      for line in command.usage {
        #expect(section.contains(line) || synopsis.contains(line), "\(command): usage \(line)")
      }
      for name in command.optionNames {
        #expect(section.contains(name) || options.contains(name), "\(command): option \(name)")
      }
      for argument in command.arguments where !command.path.isEmpty {
        #expect(section.contains(argument.name), "\(command): argument \(argument.name)")
      }
    }
    for variable in ["ASSISTANT_HOME", "ASSISTANT_APP_GROUPS", "XDG_DATA_HOME", "HOME"] {
      #expect(Self.part(text, ".SH \"ENVIRONMENT\"")?.contains(variable) == true, "\(variable)")
    }
    for status in ["0", "64", "65", "66", "69", "70", "73", "74", "75", "77", "128+N"] {
      #expect(Self.part(text, ".SH \"EXIT STATUS\"")?.contains("\n" + status + "\n") == true, "exit status \(status)")
    }
  }

  /// The commands of the README's command-line summary (its ```text block of `assistant COMMAND ...` lines), as
  /// `assistant sandbox-profile`: a list the command model does not make, so a command the model lost is seen.
  static func readmeCommands() throws -> [String] {
    let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
    let section = try #require(readme.components(separatedBy: "### The command line\n").dropFirst().first)
    let block = try #require(section.components(separatedBy: "```").dropFirst().first)
    return block.split(separator: "\n").compactMap { line in
      let words = line.split(separator: " ")
      guard words.first == "assistant", let command = words.dropFirst().first,
        command.allSatisfy({ $0.isLowercase || $0 == "-" })
      else { return nil }
      return "assistant " + command
    }
  }

  /// Every command of the README's summary has its section in the man page, `sandbox-profile` with what it prints;
  /// the control: the summary is read (it lists sandbox-profile).
  @Test func theManualHasASectionForEveryCommandTheReadmeLists() async throws {
    let commands = try Self.readmeCommands()
    #expect(commands.contains("assistant sandbox-profile") && commands.count >= 20, "\(commands)")
    let text = Self.plain(try await Self.generated(["manual"]))
    for command in commands {
      #expect(Self.part(text, ".SS \"\(command)\"") != nil, "no .SS for \(command)")
    }
    let profile = try #require(Self.part(text, ".SS \"assistant sandbox-profile\""))
    for words in ["APP|EXTENSION", "--deadline", "its listing only", "readExceptions"] {
      #expect(profile.contains(words), "\(words)")
    }
    #expect(Self.part(text, ".SH \"EXAMPLES\"")?.contains("assistant sandbox-profile RoomsIntents") == true)
  }

  @Test func theStructuralCheckFindsWhatAFormatterWouldMisread() {
    // The control for the check above, which is all that runs where neither groff nor mandoc is installed.
    let page = Self.sections.map { ".SH \"\($0)\"" }.joined(separator: "\n")
    #expect(Self.structuralProblems(page) == [])
    #expect(Self.structuralProblems(page + "\n.this is text") != [])
    #expect(Self.structuralProblems(page + "\n'tis text") != [])
    #expect(Self.structuralProblems(page.replacingOccurrences(of: ".SH \"FILES\"", with: "")) != [])
  }

  @Test func theManualIsTheSameOnEveryRunAndCarriesTheVersionNotADate() async throws {
    let page = try await Self.generated(["manual"])
    #expect(try await Self.generated(["manual"]) == page)
    let version = try await Self.generated(["--version"]).split(separator: " ").last.map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let title = try #require(page.split(separator: "\n").first)
    #expect(title.contains("version \(try #require(version))"), "\(title)")
    let year = Calendar(identifier: .gregorian).component(.year, from: Date())
    #expect(!title.contains(String(year)), "\(title)")
  }

  @Test(
    .enabled(
      if: CommandLineToolTests.program("groff") != nil || CommandLineToolTests.program("mandoc") != nil,
      "neither groff nor mandoc is installed: only the structure of the page is checked"))
  func theManualRendersWithoutWarnings() async throws {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let page = scratch.file("assistant.1")
    try Data(try await Self.generated(["manual"]).utf8).write(to: page)
    if let groff = Self.program("groff") {
      let result = try await runCommand(groff, ["-man", "-Tutf8", "-ww", "-z", page.path])
      #expect(result.code == 0 && result.stderr.isEmpty, "\(result)")
      // The control: groff does report what it cannot read.
      let broken = scratch.file("broken.1")
      try Data(".TH X 1\n.SH NAME\n\\fBx \\[nosuchglyph]\n.RS\n".utf8).write(to: broken)
      let warned = try await runCommand(groff, ["-man", "-Tutf8", "-ww", "-z", broken.path])
      #expect(!warned.stderr.isEmpty, "\(warned)")
    }
    if let mandoc = Self.program("mandoc") {
      let result = try await runCommand(mandoc, ["-Tlint", page.path])
      let errors = (result.stdout + result.stderr).split(separator: "\n").filter {
        $0.contains("ERROR") || $0.contains("UNSUPP")
      }
      #expect(errors.isEmpty, "\(result)")
    }
  }

  // MARK: - The commands

  @Test func completionsAndManualPrintJSONWithTheSameText() async throws {
    struct Script: Decodable {
      var shell: String
      var script: String
    }
    for shell in ["bash", "zsh", "fish"] {
      let json = try await Self.generated(["completions", shell, "--json"])
      let decoded = try JSONDecoder().decode(Script.self, from: Data(json.utf8))
      #expect(decoded.shell == shell)
      #expect(decoded.script == (try await Self.generated(["completions", shell])))
    }
    struct Page: Decodable { var manual: String }
    let json = try await Self.generated(["--json", "manual"])
    #expect(try JSONDecoder().decode(Page.self, from: Data(json.utf8)).manual == (try await Self.generated(["manual"])))
  }

  @Test func anUnknownShellIsAUsageErrorWithASuggestion() async throws {
    let result = try await runCommand(Self.assistant, ["completions", "bsh"])
    #expect(result.code == 64, "\(result)")
    #expect(result.stdout.isEmpty, "\(result)")
    #expect(result.stderr.contains("unknown shell \"bsh\"; did you mean \"bash\""), "\(result)")
    #expect(result.stderr.contains("assistant completions --help"), "\(result)")
    let json = try await runCommand(Self.assistant, ["completions", "tcsh", "--json"])
    #expect(json.code == 64, "\(json)")
    #expect(json.stdout.hasPrefix("{\"error\":{"), "\(json)")
    let missing = try await runCommand(Self.assistant, ["completions"])
    #expect(missing.code == 64 && missing.stderr.contains("SHELL"), "\(missing)")
  }

  // MARK: - Scripts/install

  static let installed = [
    "bin/assistant", "share/man/man1/assistant.1", "share/bash-completion/completions/assistant",
    "share/zsh/site-functions/_assistant", "share/fish/vendor_completions.d/assistant.fish",
  ]

  static func install(_ arguments: [String], path: String = "/usr/bin:/bin") async throws -> CommandResult {
    var environment = ProcessInfo.processInfo.environment
    environment["INSTALL_CONFIG"] = "debug"
    environment["PATH"] = path
    return try await runCommand(
      PackagePaths.root.appendingPathComponent("Scripts/install").path, arguments, environment: environment)
  }

  @Test func installPutsTheToolItsPageAndItsCompletionsUnderThePrefix() async throws {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let prefix = scratch.file("prefix").path
    let result = try await Self.install([prefix])
    try #require(result.code == 0, "\(result)")
    for file in Self.installed {
      let path = prefix + "/" + file
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
      #expect(mode == (file.hasPrefix("bin/") ? 0o755 : 0o644), "\(file): \(String(mode ?? 0, radix: 8))")
      #expect(result.stdout.contains(path), "\(file) is not in what it printed: \(result)")
    }
    let binary = prefix + "/bin/assistant"
    let version = try await runCommand(binary, ["--version"])
    #expect(version.code == 0 && version.stdout.hasPrefix("assistant (IntentHost) "), "\(version)")
    let page = try await runCommand(binary, ["manual"])
    #expect(try String(contentsOfFile: prefix + "/share/man/man1/assistant.1", encoding: .utf8) == page.stdout)
    let bash = try await runCommand(binary, ["completions", "bash"])
    #expect(
      try String(contentsOfFile: prefix + "/share/bash-completion/completions/assistant", encoding: .utf8)
        == bash.stdout)
    // PREFIX/bin is not on PATH: the hint says to add it; with it on PATH, no hint (the control).
    #expect(result.stdout.contains("\(prefix)/bin is not on your PATH"), "\(result)")
    let again = try await Self.install([prefix], path: "\(prefix)/bin:/usr/bin:/bin")
    #expect(again.code == 0 && !again.stdout.contains("not on your PATH"), "\(again)")
  }

  @Test func installExplainsItselfAndRefusesWhatItDoesNotTake() async throws {
    let help = try await Self.install(["--help"])
    #expect(help.code == 0 && help.stdout.contains("Scripts/install [PREFIX]"), "\(help)")
    #expect(help.stdout.contains("INSTALL_CONFIG=debug"), "\(help)")
    let unknown = try await Self.install(["--prefix"])
    #expect(unknown.code == 64 && unknown.stderr.contains("unknown option --prefix"), "\(unknown)")
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let two = try await Self.install([scratch.file("a").path, scratch.file("b").path])
    #expect(two.code == 64, "\(two)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("a").path), "\(two)")
  }
}
