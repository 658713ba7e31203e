// `assistant defaults`: app-group data, modelled on macOS `defaults`. The command line is parsed here, by the command
// model, and values are spelt and shown by `DefaultsText`; the store operations are AssistantHost's `AppGroupDefaults`.
import AppGroupStore
import AssistantHost
import Foundation
import IntentHostSystem
import UntrustedText

/// `assistant defaults VERB ...`.
struct Defaults: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "defaults",
      abstract: "Read, write, delete, watch or recover app-group data, like macOS `defaults`.",
      discussion: """
        The domain is an app group; its keys are those of the group's shared defaults \
        (Library/Preferences/GROUP.json), or with --document NAME the top-level keys of another document in the \
        group, such as Rooms' bookings.json.
        """,
      subcommands: [
        DefaultsList.self, DefaultsRead.self, DefaultsWrite.self, DefaultsDelete.self, DefaultsWatch.self,
        DefaultsRecover.self,
      ],
      examples: [
        "assistant defaults list",
        "assistant defaults read group.com.example.rooms bookings --document bookings.json",
        "assistant defaults write group.com.example.rooms launches -int 3",
      ])
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 { ExitStatus.usage.rawValue }  // the parser refuses it
}

private let groupArgument = Positional("GROUP", help: "An app group, e.g. group.com.example.rooms.")
private let documentOption = Option.value(
  "--document", value: "NAME", help: "A document of the group (e.g. bookings.json) instead of its shared defaults.")

extension DefaultsTarget {
  init(_ parsed: ParsedCommand) {
    self.init(group: parsed[groupArgument], document: parsed.value(documentOption))
  }
}

/// `assistant defaults list [GROUP]`.
struct DefaultsList: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "list", abstract: "List the app groups that hold data, and their documents; it makes nothing.",
      arguments: [Self.group.argument])
  }

  static let group = Positional.optional("GROUP", help: "Only this app group.")

  var group: String?

  init(_ parsed: ParsedCommand) throws { group = parsed[Self.group] }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let listings = try await AppGroupDefaults(home: home).list(group: group)
    let root = home.appGroupsRoot.path
    try await context.output(
      context.json
        ? DefaultsText.json(of: listings, appGroupsRoot: root) : DefaultsText.text(of: listings, appGroupsRoot: root))
    return 0
  }
}

/// `assistant defaults read GROUP [KEY] [--document NAME]`.
struct DefaultsRead: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "read",
      abstract: "Print a key's value, or the whole document; a missing group, document or key exits 69.",
      discussion: """
        A string is printed as it is; any other value as JSON. A string that would read as another JSON value \
        (true, 12, null, [..]) is printed quoted, so "true" and true differ. With --json: {"type", "value"}.
        """,
      arguments: [groupArgument.argument, Self.key.argument],
      options: [documentOption])
  }

  static let key = Positional.optional("KEY", help: "One key.")

  var target: DefaultsTarget
  var key: String?

  init(_ parsed: ParsedCommand) throws {
    target = DefaultsTarget(parsed)
    key = parsed[Self.key]
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let value = try await AppGroupDefaults(home: try context.home()).read(target, key: key)
    try await context.output(context.json ? DefaultsText.json(of: value) : DefaultsText.text(of: value))
    return 0
  }
}

/// `assistant defaults write GROUP KEY [-TYPE] VALUE [--document NAME]`.
struct DefaultsWrite: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "write", abstract: "Set a key to a value (a string unless a type flag says otherwise).",
      discussion: "A VALUE that starts with - goes after `--`: assistant defaults write GROUP KEY -int -- -3 works "
        + "too, as negative numbers are never taken for options.",
      arguments: [groupArgument.argument, Self.key.argument, Self.value.argument],
      options: DefaultsText.ValueType.allCases.map(\.option) + [documentOption],
      examples: ["assistant defaults write group.com.example.rooms launches -int 3"])
  }

  static let key = Positional("KEY", help: "The key.")
  static let value = Positional("VALUE", help: "The value.")

  var target: DefaultsTarget
  var key: String
  var value: JSONValue

  init(_ parsed: ParsedCommand) throws {
    target = DefaultsTarget(parsed)
    key = parsed[Self.key]
    let given = DefaultsText.ValueType.allCases.filter { parsed.flag($0.option) }
    guard given.count <= 1 else {
      throw HostError(.usage, "give one type, not " + given.map(\.option.key).joined(separator: " and "))
    }
    value = try (given.first ?? .string).value(parsed[Self.value])
  }

  func run(in context: CommandContext) async throws -> Int32 {
    try await AppGroupDefaults(home: try context.home()).write(target, key: key, value: value)
    if context.json { try await context.output(DefaultsText.json(of: value)) }
    return 0
  }
}

/// `assistant defaults delete GROUP [KEY] [--document NAME]`.
struct DefaultsDelete: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "delete", abstract: "Remove a key, or every key; exits 69 when there was nothing to remove.",
      arguments: [groupArgument.argument, Self.key.argument],
      options: [documentOption])
  }

  static let key = Positional.optional("KEY", help: "One key (else every key).")

  var target: DefaultsTarget
  var key: String?

  init(_ parsed: ParsedCommand) throws {
    target = DefaultsTarget(parsed)
    key = parsed[Self.key]
  }

  func run(in context: CommandContext) async throws -> Int32 {
    try await AppGroupDefaults(home: try context.home()).delete(target, key: key)
    if context.json {
      struct Report: Encodable {
        var group: String
        var document: String?
        var deleted: String?

        /// Every key, `null` when absent (the README's table lists them).
        func encode(to encoder: any Encoder) throws {
          var container = encoder.container(keyedBy: CodingKeys.self)
          try container.encode(group, forKey: .group)
          try container.encode(document, forKey: .document)
          try container.encode(deleted, forKey: .deleted)
        }
        enum CodingKeys: String, CodingKey { case group, document, deleted }
      }
      try await context.output(json: Report(group: target.group, document: target.document, deleted: key))
    }
    return 0
  }
}

/// `assistant defaults watch GROUP [KEY] [--document NAME] [--count N] [--timeout SECONDS] [--poll]`.
struct DefaultsWatch: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "watch",
      abstract: "Print the value, then a line with the new value each time another process changes it.",
      discussion: """
        Each value is one line: a string as it is (JSON-quoted when it could be read as another value or holds a \
        line break), anything else as compact JSON; with --json, {"type", "value"}. Runs until Ctrl-C, --count \
        printed changes (several quick writes may arrive as one), --timeout, or its reader goes away (`| head -1`: \
        exit 141, as SIGPIPE would). It sleeps on inotify; --poll checks every 200 ms instead.
        """,
      arguments: [groupArgument.argument, Self.key.argument],
      options: [documentOption, Self.count, Self.timeout, Self.poll])
  }

  static let key = Positional.optional("KEY", help: "One key (else the whole document).")
  static let count = Option.value("--count", value: "N", help: "Stop after N changes.")
  static let timeout = Option.value("--timeout", value: "SECONDS", help: "Stop after SECONDS.")
  static let poll = Option.flag("--poll", help: "Check every 200 ms instead of sleeping on inotify.")

  var target: DefaultsTarget
  var key: String?
  var count: Int?
  var timeout: Duration?
  var polling: Bool

  init(_ parsed: ParsedCommand) throws {
    target = DefaultsTarget(parsed)
    key = parsed[Self.key]
    polling = parsed.flag(Self.poll)
    if let text = parsed.value(Self.count) {
      guard let n = Int(text), n > 0 else {
        throw HostError(.usage, "--count needs a positive number, not \"\(text)\"")
      }
      count = n
    }
    if let text = parsed.value(Self.timeout) {
      guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
        throw HostError(.usage, "--timeout needs a positive number of seconds, not \"\(text)\"")
      }
      timeout = .milliseconds(Int(seconds * 1000))
    }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let json = context.json
    let defaults = AppGroupDefaults(home: try context.home())
    let (target, key, polling, count, timeout) = (self.target, self.key, self.polling, self.count, self.timeout)
    // The watch ends when its reader does (`| head -1`), as `tail -f` does, without waiting for a change to write.
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        try await defaults.watch(target, key: key, polling: polling, count: count, timeout: timeout) { value in
          // Called on a dedicated thread; unbuffered, so each change reaches a pipe as it happens.
          let line = json ? DefaultsText.json(of: value) : DefaultsText.line(of: value)
          try FileDescriptor.standardOutput.writeAll(Array((line + "\n").utf8), timeoutMilliseconds: -1)
        }
      }
      group.addTask {
        if await FileDescriptor.standardOutput.readerGone() {
          throw SystemError(code: EPIPE, operation: "write", subject: "stdout")
        }
        try await Task.sleep(for: .seconds(Int64.max / 4))  // never: the watch's end cancels it
      }
      defer { group.cancelAll() }
      try await group.next()
    }
    return 0
  }
}

/// `assistant defaults recover GROUP [--document NAME]`.
struct DefaultsRecover: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "recover",
      abstract: "Move an unreadable document (or what was planted in its place) aside and start again from what is "
        + "readable.",
      arguments: [groupArgument.argument], options: [documentOption])
  }

  var target: DefaultsTarget

  init(_ parsed: ParsedCommand) throws { target = DefaultsTarget(parsed) }

  func run(in context: CommandContext) async throws -> Int32 {
    let steps = try await AppGroupDefaults(home: try context.home()).recover(target)
    if context.json {
      struct Report: Encodable { var steps: [String] }
      try await context.output(json: Report(steps: steps))
    } else {
      for step in steps { try await context.output(Untrusted.shown(step)) }
    }
    return 0
  }
}
