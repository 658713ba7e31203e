// Positional arguments declared with the type a command reads them as, and how a parsed command is read through
// its declarations (options and arguments alike): no command looks a value up by its name.

/// A positional argument as a command declares and reads it: the model the parser, `--help`, the man page and the
/// completions use (`argument`), and the type its value has once parsed, which the parser guarantees: a required
/// argument has its word (`Positional<String>`), an optional one may not (`Positional<String?>`), a repeating one
/// has its words, at least one unless it is optional (`Positional<[String]>`).
struct Positional<Value: Sendable>: Sendable {
  let argument: Argument

  private init(_ argument: Argument) { self.argument = argument }
}

extension Positional<String> {
  /// A required argument: one word.
  init(_ name: String, help: String, completion: Completion = .none) {
    self.init(Argument(name: name, help: help, completion: completion))
  }
}

extension Positional<String?> {
  /// An optional argument: one word, or none.
  static func optional(_ name: String, help: String, completion: Completion = .none) -> Self {
    Self(Argument(name: name, help: help, isOptional: true, completion: completion))
  }
}

extension Positional<[String]> {
  /// A repeating argument: every remaining word, at least one unless `isOptional`. A pass-through one also takes
  /// what follows `--` (`Argument.isPassthrough`).
  static func repeating(
    _ name: String, help: String, isOptional: Bool = false, completion: Completion = .none,
    isPassthrough: Bool = false
  ) -> Self {
    Self(
      Argument(
        name: name, help: help, isOptional: isOptional, isRepeating: true, completion: completion,
        isPassthrough: isPassthrough))
  }
}

extension ParsedCommand {
  /// The word of a required argument.
  subscript(argument: Positional<String>) -> String {
    guard let word = words(of: argument.argument)?.first else {
      preconditionFailure("the parser binds the required argument \(argument.argument.name) or refuses the line")
    }
    return word
  }

  /// The word of an optional argument, if it was given.
  subscript(argument: Positional<String?>) -> String? { words(of: argument.argument)?.first }

  /// The words of a repeating argument, in order.
  subscript(argument: Positional<[String]>) -> [String] { words(of: argument.argument) ?? [] }
}

extension Option {
  /// The same option with another help text: a command that says what the option does for it (`replay
  /// --passcode-stdin`), read as the shared one is.
  func with(help: String) -> Option {
    var option = self
    option.help = help
    return option
  }
}
