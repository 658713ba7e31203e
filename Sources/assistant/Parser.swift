// Parsing a command line against the command model: options anywhere, `--` ends them, `--name=value` and
// `--name value`, "did you mean" for what is unknown, and every argument consumed or reported.
import AssistantHost
import NameSuggestions
import Understanding

/// What a command line asks for.
enum Invocation: Sendable {
  /// Run `command` with what was parsed.
  case run(any AssistantCommand.Type, ParsedCommand)
  /// Show the help of the command at this path (`[]` is the root).
  case help([String])
  case version
}

struct CommandLineParser: Sendable {
  /// The root command: `assistant` itself, whose arguments are an utterance.
  let root: any AssistantCommand.Type

  /// Parses `arguments` (without the program name).
  /// - Throws: `UsageError` naming what does not fit, with "did you mean" where a known name is close.
  func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
    let terminator = arguments.firstIndex(of: "--")
    let before = Array(arguments[..<(terminator ?? arguments.endIndex)])
    let after = terminator.map { Array(arguments[(arguments.index(after: $0))...]) }
    // Which command: descend through subcommand names among the positional words before `--`.
    var command = root
    var path: [String] = []
    var consumed: Set<Int> = []
    var optionValues: Set<Int> = []
    var index = 0
    var sawPositional = false
    while index < before.count {
      let token = before[index]
      if Self.isOption(token) {
        let name = Self.optionName(token)
        if !token.contains("="), let option = Self.anyOption(named: name, under: root), !option.isFlag {
          index += 1  // its value
          optionValues.insert(index)
        }
      } else if !command.configuration.subcommands.isEmpty && !sawPositional {
        if let sub = command.configuration.subcommands.first(where: { $0.configuration.name == token }) {
          command = sub
          path.append(token)
          consumed.insert(index)
        } else if ObjectIdentifier(command) == ObjectIdentifier(root) {
          sawPositional = true  // an utterance; a likely typo of a command is reported below
        } else if token == "help" {
          // `assistant defaults help write`: the help of a subcommand, as `help defaults write` gives it.
          let rest = before[(index + 1)...].enumerated().filter { !Self.isOption($0.element) }.map(\.element)
          return .help(try helpPath(path + rest + (after ?? [])))
        } else {
          throw UsageError(
            "unknown \((["assistant"] + path).joined(separator: " ")) command \"\(token)\""
              + Self.suggestion(for: token, among: command.configuration.subcommands.map { $0.configuration.name }),
            path: path)
        }
      } else {
        sawPositional = true
      }
      index += 1
    }
    let wantsHelp = before.contains { $0 == "-h" || $0 == "--help" }
    if wantsHelp { return .help(path) }
    if before.contains("--version") { return .version }
    if path.first == "help" {
      let skipping = consumed.union(optionValues)
      let words = before.enumerated().filter { !skipping.contains($0.offset) && !Self.isOption($0.element) }.map(
        \.element)
      return .help(try helpPath(words + (after ?? [])))
    }
    if !command.configuration.subcommands.isEmpty && ObjectIdentifier(command) != ObjectIdentifier(root),
      let fallback = command.configuration.defaultSubcommand
    {
      command = fallback
      path.append(fallback.configuration.name)
    }
    if !command.configuration.subcommands.isEmpty && ObjectIdentifier(command) != ObjectIdentifier(root) {
      throw UsageError(
        "\((["assistant"] + path).joined(separator: " ")) needs a command: "
          + command.configuration.subcommands.map { $0.configuration.name }.joined(separator: ", "), path: path)
    }
    let parsed = try parse(
      before.enumerated().filter { !consumed.contains($0.offset) }.map(\.element), after: after, for: command,
      path: path)
    if path.isEmpty, let first = parsed[UtteranceArgument.words].first,
      before.contains(first)
    {
      // A bare word close to a command is a typo, not something to say.
      if let near = commandTypo(first) {
        throw UsageError(
          "\"\(first)\" is not a command; did you mean \"\(near)\"? (to say it, quote the whole utterance after "
            + "`--`: assistant -- \"\(parsed[UtteranceArgument.words].joined(separator: " "))\")")
      }
    }
    return .run(command, parsed)
  }

  /// The command `word` is taken for a typo of, when it is the first word of an utterance: a bare word (no space in
  /// it) close to a command's name (`closeNames`), or nil.
  func commandTypo(_ word: String) -> String? {
    guard !word.contains(where: \.isWhitespace) else { return nil }
    return Self.closeNames(to: word, among: root.configuration.subcommands.map { $0.configuration.name }).first
  }

  /// What the command line takes `assistant "UTTERANCE"` for when it is not that utterance, in words ("the command
  /// `assistant lock`", "a typo of the command `assistant unlock`", "the option --help"), or nil when it is the
  /// utterance: what a shortcut's phrase must not be, or it could never be said.
  func notAnUtterance(_ utterance: String) -> String? {
    if root.configuration.subcommands.contains(where: { $0.configuration.name == utterance }) {
      return "the command `assistant \(utterance)`"
    }
    let invocation: Invocation
    do {
      invocation = try parse([utterance])
    } catch {
      if let near = commandTypo(utterance) { return "a typo of the command `assistant \(near)`" }
      return "not an utterance (\(error.message))"
    }
    switch invocation {
    case .run(let command, let parsed):
      if ObjectIdentifier(command) == ObjectIdentifier(root), parsed[UtteranceArgument.words] == [utterance] {
        return nil
      }
      if parsed.path.isEmpty { return "options, not an utterance" }
      return "the command `\((["assistant"] + parsed.path).joined(separator: " "))`"
    case .help(let path): return "a request for help (`\((["assistant", "help"] + path).joined(separator: " "))`)"
    case .version: return "the option --version"
    }
  }

  /// The path named by `help [COMMAND [SUBCOMMAND]]`: `words` are the command names after `help`.
  private func helpPath(_ words: [String]) throws(UsageError) -> [String] {
    var command = root
    var path: [String] = []
    for word in words {
      guard let sub = command.configuration.subcommands.first(where: { $0.configuration.name == word }) else {
        throw UsageError(
          "no help for \"\(word)\": it is not a command of \((["assistant"] + path).joined(separator: " "))"
            + Self.suggestion(for: word, among: command.configuration.subcommands.map { $0.configuration.name }),
          path: path)
      }
      command = sub
      path.append(word)
    }
    return path
  }

  /// Parses the options and arguments of `command`.
  private func parse(_ tokens: [String], after: [String]?, for command: any AssistantCommand.Type, path: [String])
    throws(UsageError) -> ParsedCommand
  {
    let configuration = command.configuration
    var parsed = ParsedCommand()
    parsed.path = path
    var positional: [String] = []
    var index = 0
    while index < tokens.count {
      let token = tokens[index]
      index += 1
      guard Self.isOption(token) else {
        positional.append(token)
        continue
      }
      let name = Self.optionName(token)
      guard let option = configuration.option(named: name) else {
        throw unknownOption(name, of: command, path: path)
      }
      do throws(UsageError) {
        if option.isFlag {
          if token.contains("=") { throw UsageError("\(option.key) takes no value (\"\(token)\")") }
          try parsed.add(option: option, value: nil)
        } else if let equals = token.firstIndex(of: "=") {
          try parsed.add(option: option, value: String(token[token.index(after: equals)...]))
        } else {
          guard index < tokens.count else {
            throw UsageError("\(option.key) needs a value (\(option.key) \(option.value!))")
          }
          try parsed.add(option: option, value: tokens[index])
          index += 1
        }
      } catch {
        throw UsageError(error.message, path: path)
      }
    }
    try bind(positional, after: after ?? [], to: configuration.arguments, into: &parsed, path: path)
    return parsed
  }

  /// Gives the positional words to the command's arguments, in order: required ones first, a repeating one takes
  /// the rest. What is missing or left over is a usage error.
  private func bind(
    _ words: [String], after: [String], to arguments: [Argument], into parsed: inout ParsedCommand, path: [String]
  ) throws(UsageError) {
    var words = words
    let passthrough = arguments.last?.isPassthrough == true
    if !passthrough { words += after }
    var remaining = words[...]
    for (position, argument) in arguments.enumerated() {
      if argument.isRepeating {
        var taken = Array(remaining)
        remaining = []
        if argument.isPassthrough { taken += after }
        if taken.isEmpty && !argument.isOptional {
          throw UsageError("missing \(argument.name)\n\(usage(path))", path: path)
        }
        parsed.set(argument: argument.name, taken)
        continue
      }
      guard let word = remaining.first else {
        if argument.isOptional { continue }
        let missing = arguments[position...].filter { !$0.isOptional }.map(\.name)
        throw UsageError(
          "missing \(missing.count == 1 ? missing[0] : missing.dropLast().joined(separator: ", ") + " and " + missing.last!)"
            + "\n\(usage(path))", path: path)
      }
      remaining = remaining.dropFirst()
      parsed.set(argument: argument.name, [word])
    }
    if let extra = remaining.first {
      let what = arguments.isEmpty ? "takes no arguments" : "takes \(arguments.map(\.usage).joined(separator: " "))"
      throw UsageError(
        "unexpected argument \"\(extra)\": \((["assistant"] + path).joined(separator: " ")) \(what)", path: path)
    }
  }

  /// `usage: assistant run [OPTIONS] APP INTENT [NAME=VALUE...]`.
  private func usage(_ path: [String]) -> String {
    guard let command = Self.command(at: path, under: root) else { return "" }
    return "usage: " + HelpText.usageLines(path, command.configuration)[0]
  }

  /// An option the command does not take: another command's (say whose), or a near miss ("did you mean").
  private func unknownOption(_ name: String, of command: any AssistantCommand.Type, path: [String]) -> UsageError {
    let commandName = (["assistant"] + path).joined(separator: " ")
    if let reason = command.configuration.refusedOptions[name] {
      return UsageError("`\(commandName)` does not take \(name): \(reason)", path: path)
    }
    let owners = Self.commands(under: root).filter {
      $0.type.configuration.options.contains { $0.names.contains(name) }
    }
    if !owners.isEmpty {
      let passthrough = command.configuration.arguments.last?.isPassthrough == true
      return UsageError(
        "`\(commandName)` has no option \(name); it is an option of "
          + owners.map { "`" + (["assistant"] + $0.path).joined(separator: " ") + "`" }.joined(separator: ", ")
          + (passthrough ? " (to pass it to the app, put it after `--`)" : ""), path: path)
    }
    let names = command.configuration.allOptions.flatMap(\.names)
    var message = "unknown option \(name) for `\(commandName)`" + Self.suggestion(for: name, among: names)
    if command.configuration.arguments.last?.isPassthrough == true {
      message += "; to pass options to the app, put its arguments after `--`: \(commandName) APP -- ARGS..."
    } else if !command.configuration.arguments.isEmpty && Self.suggestion(for: name, among: names).isEmpty {
      message += "; an argument that starts with - goes after `--`"
    }
    return UsageError(message, path: path)
  }

  // MARK: - The words

  /// Whether a word is an option: it starts with `-`, is not `-` alone, and is not a negative number.
  static func isOption(_ token: String) -> Bool {
    guard token.hasPrefix("-"), token.count > 1 else { return false }
    let second = token[token.index(after: token.startIndex)]
    return !(second.isNumber || second == ".")
  }

  /// The option's name, without an `=value`.
  static func optionName(_ token: String) -> String {
    token.firstIndex(of: "=").map { String(token[..<$0]) } ?? token
  }

  /// Every command under `root` with its path, the root included (path `[]`).
  static func commands(under root: any AssistantCommand.Type) -> [(path: [String], type: any AssistantCommand.Type)] {
    var result: [(path: [String], type: any AssistantCommand.Type)] = [([], root)]
    func walk(_ command: any AssistantCommand.Type, _ path: [String]) {
      for sub in command.configuration.subcommands {
        let subPath = path + [sub.configuration.name]
        result.append((subPath, sub))
        walk(sub, subPath)
      }
    }
    walk(root, [])
    return result
  }

  /// The command at `path`, if there is one.
  static func command(at path: [String], under root: any AssistantCommand.Type) -> (any AssistantCommand.Type)? {
    var command = root
    for name in path {
      guard let sub = command.configuration.subcommands.first(where: { $0.configuration.name == name }) else {
        return nil
      }
      command = sub
    }
    return command
  }

  /// An option of any command, for telling whether it takes a value while the command is not known yet. The
  /// model keeps one meaning per name (a test checks it).
  static func anyOption(named name: String, under root: any AssistantCommand.Type) -> Option? {
    for (_, command) in commands(under: root) {
      if let option = command.configuration.option(named: name) { return option }
    }
    return nil
  }

  /// `; did you mean "NAME"?` for the names closest to `word` (at most two edits, one for short words), or "".
  static func suggestion(for word: String, among names: [String]) -> String {
    let close = closeNames(to: word, among: names)
    guard !close.isEmpty else { return "" }
    return "; " + didYouMean(close)
  }

  /// The names within reach of `word`, closest first (case aside): one edit for a name of up to six letters, two
  /// for a longer one. A one-letter option (`-V`) is only ever taken for the long option it usually means.
  static func closeNames(to word: String, among names: [String]) -> [String] {
    if word.count == 2 && word.hasPrefix("-") {
      let usual = ["-V": "--version", "-v": "--version", "-j": "--json"]
      return usual[word].map { names.contains($0) ? [$0] : [] } ?? []
    }
    let limit = word.lowercased().drop(while: { $0 == "-" }).count <= 6 ? 1 : 2
    return closestNames(
      to: word, among: names.filter { !($0.count == 2 && $0.hasPrefix("-")) }, maximumEdits: limit)
  }

}
