import AppGroupStore
import Foundation
import IntentHostSystem
import UntrustedText

/// `assistant defaults`: read, write, delete and watch what an app group holds, modelled on macOS `defaults`.
///
/// The domain is an app group; its keys are those of the group's shared defaults (`SharedDefaults`,
/// `Library/Preferences/GROUP.json`), or with `--document NAME` the top-level keys of another document in the
/// group, such as Rooms' `bookings.json`.
public struct DefaultsTool: Sendable {
  public var home: AssistantHome

  public init(home: AssistantHome) { self.home = home }

  public static let usage = """
    usage: assistant defaults list [GROUP]
           assistant defaults read GROUP [KEY] [--document NAME]
           assistant defaults write GROUP KEY [-string|-int|-float|-bool|-json] VALUE [--document NAME]
           assistant defaults delete GROUP [KEY] [--document NAME]
           assistant defaults watch GROUP [KEY] [--document NAME] [--count N] [--timeout SECONDS] [--poll]
           assistant defaults recover GROUP [--document NAME]
    """

  /// Runs one `defaults` command, printing with `print`.
  ///
  /// The store's locks and syncs, and `watch`'s waiting, happen off the cooperative pool; `print` is called on a
  /// dedicated thread and may block. When `print` throws (its reader is gone: `defaults watch | head -1`), the
  /// command stops and the error is rethrown, as a broken pipe ends `tail -f`. `watch` ends when the calling task is
  /// cancelled.
  ///
  /// What reaches `print` is safe for a terminal: stored strings and file names are sanitized (`Untrusted`; a
  /// string read keeps its newlines and tabs, a file name is one line), and JSON carries JSON's own escapes for
  /// control and bidirectional characters, so it stays exact.
  /// - Returns: the exit status.
  /// - Throws: `HostError`.
  public func run(_ arguments: [String], print unsafePrint: @escaping @Sendable (String) throws -> Void) async throws
    -> Int32
  {
    // The choke point: every line this command prints, sanitized (a no-op for text sanitized or escaped already).
    let print: @Sendable (String) throws -> Void = { try unsafePrint(Untrusted.shown($0, multiline: true)) }
    let step = try await offloaded { () throws -> Step in try self.runBlocking(arguments, print: print) }
    switch step {
    case .done(let status):
      return status
    case .watch(let watch):
      do {
        try await run(watch, print: print)
      } catch let error as StoreError {
        throw hostError(error, hint: watch.hint)
      }
      return 0
    }
  }

  /// What is left to do after the blocking part.
  private enum Step: Sendable {
    case done(Int32)
    case watch(Watch)
  }

  private struct Watch: Sendable {
    var document: Document<AnyDocumentContent>
    var key: String?
    var count: Int?
    var timeout: Double?
    var polling: Bool
    var hint: String
  }

  private func runBlocking(_ arguments: [String], print: (String) throws -> Void) throws -> Step {
    var positional: [String] = []
    var documentName: String? = nil
    var count: Int? = nil
    var timeout: Double? = nil
    var polling = false
    var index = 0
    func value(_ flag: String) throws -> String {
      index += 1
      guard index < arguments.count else { throw HostError(.usage, "\(flag) needs a value\n\(Self.usage)") }
      return arguments[index]
    }
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--document": documentName = try value(argument)
      case "--count":
        guard let n = Int(try value(argument)), n > 0 else {
          throw HostError(.usage, "--count needs a positive number")
        }
        count = n
      case "--timeout":
        guard let s = Double(try value(argument)), s > 0 else { throw HostError(.usage, "--timeout needs seconds") }
        timeout = s
      case "--poll": polling = true
      case "-h", "--help":
        try print(Self.usage)
        return .done(0)
      default: positional.append(argument)
      }
      index += 1
    }
    guard let verb = positional.first else { throw HostError(.usage, Self.usage) }
    let rest = Array(positional.dropFirst())
    if verb == "list" { return .done(try list(rest.first, print: print)) }
    guard let group = rest.first else { throw HostError(.usage, "defaults \(verb) needs a GROUP\n\(Self.usage)") }
    let document = try self.document(group: group, name: documentName)
    let label = documentName.map { "\(group) \($0)" } ?? group
    let hint = "assistant defaults recover \(group)" + (documentName.map { " --document \($0)" } ?? "")
    do {
      switch verb {
      case "read":
        guard rest.count <= 2 else { throw HostError(.usage, "usage: assistant defaults read GROUP [KEY]") }
        let snapshot = try document.snapshot()
        if rest.count == 1 {
          guard snapshot.sequence > 0 || documentExists(document) else {
            throw HostError(.noMatch, "\(label) does not exist yet (nothing was written to it)")
          }
          try print(render(snapshot.content.value))
        } else {
          guard let found = snapshot.content.value[rest[1]] else {
            throw HostError(.noMatch, "\(label) has no key \"\(rest[1])\"")
          }
          try print(render(found))
        }
      case "write":
        guard rest.count == 3 || rest.count == 4 else {
          throw HostError(.usage, "usage: assistant defaults write GROUP KEY [-TYPE] VALUE")
        }
        let newValue = try parse(rest.count == 4 ? rest[2] : "-string", rest[rest.count - 1])
        try document.update { content in
          guard case .object(var object) = content.value else {
            throw HostError(.dataError, "\(document.path) holds \(kind(content.value)), not an object of keys")
          }
          object[rest[1]] = newValue
          content.value = .object(object)
        }
      case "delete":
        guard rest.count <= 2 else { throw HostError(.usage, "usage: assistant defaults delete GROUP [KEY]") }
        let removed = try document.update { content -> Bool in
          guard case .object(var object) = content.value else {
            throw HostError(.dataError, "\(document.path) holds \(kind(content.value)), not an object of keys")
          }
          if rest.count == 1 {
            defer { content.value = .object([:]) }
            return !object.isEmpty
          }
          let removed = object.removeValue(forKey: rest[1]) != nil
          content.value = .object(object)
          return removed
        }
        if !removed {
          throw HostError(.noMatch, rest.count == 1 ? "\(label) has no keys" : "\(label) has no key \"\(rest[1])\"")
        }
      case "watch":
        guard rest.count <= 2 else { throw HostError(.usage, "usage: assistant defaults watch GROUP [KEY]") }
        return .watch(
          Watch(
            document: document, key: rest.count == 2 ? rest[1] : nil, count: count, timeout: timeout,
            polling: polling, hint: hint))
      case "recover":
        let report = try document.recover()
        for step in report.steps { try print(Untrusted.shown(step)) }
      default:
        throw HostError(.usage, "unknown defaults command \"\(verb)\"\n\(Self.usage)")
      }
    } catch let error as StoreError {
      throw hostError(error, hint: hint)
    }
    return .done(0)
  }

  private func hostError(_ error: StoreError, hint: String) -> HostError {
    switch error {
    case .corrupt, .newerSchema:
      return HostError(.dataError, "\(error); to move it aside and start again from what is readable: `\(hint)`")
    case .invalidGroupIdentifier, .notEntitled:
      return HostError(.usage, "\(error)")
    case .io:
      return HostError(.refused, "\(error)")
    }
  }

  private func document(group: String, name: String?) throws -> Document<AnyDocumentContent> {
    if let problem = AppGroupContainer.identifierProblem(group) {
      throw HostError(.usage, "invalid app group identifier: \(problem)")
    }
    let container: AppGroupContainer
    do {
      container = try AppGroupContainer(identifier: group, path: try home.appGroupContainer(group).path)
    } catch let error as StoreError {
      throw HostError(.refused, "\(error)")
    }
    guard let name else { return Document(path: container.defaultsPath) }
    guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
      throw HostError(.usage, "--document takes a file name in the group's container, such as bookings.json")
    }
    return container.document(name)
  }

  private func documentExists(_ document: Document<AnyDocumentContent>) -> Bool {
    FileManager.default.fileExists(atPath: document.path)
      || FileManager.default.fileExists(atPath: document.journalPath)
  }

  private func list(_ group: String?, print: (String) throws -> Void) throws -> Int32 {
    let root = home.appGroupsRoot.path
    let groups =
      group.map { [$0] }
      ?? ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { $0.hasPrefix("group.") }.sorted()
    if groups.isEmpty { try print("No app group has data in \(root) yet.") }
    for identifier in groups {
      if let problem = AppGroupContainer.identifierProblem(identifier) {
        throw HostError(.usage, "invalid app group identifier: \(problem)")
      }
      let container = try AppGroupContainer(identifier: identifier, path: home.appGroupContainer(identifier).path)
      try print("\(Untrusted.shown(identifier)) (\(Untrusted.shown(container.path)))")
      if FileManager.default.fileExists(atPath: container.defaultsPath)
        || FileManager.default.fileExists(atPath: Document<DefaultsContent>(path: container.defaultsPath).journalPath)
      {
        try print("  defaults: Library/Preferences/\(Untrusted.shown(identifier)).json")
      }
      for name in container.documentNames() { try print("  document: \(Untrusted.shown(name))") }
    }
    return 0
  }

  /// `defaults watch`: the current value, then each change, until `count` changes, `timeout`, or cancellation.
  private func run(_ watch: Watch, print: @escaping @Sendable (String) throws -> Void) async throws {
    let key = watch.key
    func shown(_ content: AnyDocumentContent) -> JSONValue {
      key.map { content.value[$0] ?? .null } ?? content.value
    }
    let changes = try await watch.document.changes(polling: watch.polling)
    let last = shown(try await watch.document.read())
    let first = Untrusted.shown(json: last.jsonText())
    try await offloaded { try print(first) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { [last] in
        var last = last
        var seen = 0
        for try await snapshot in changes {
          let now = shown(snapshot.content)
          if now == last { continue }
          last = now
          seen += 1
          let line = Untrusted.shown(json: now.jsonText())
          try await offloaded { try print(line) }
          if let count = watch.count, seen >= count { return }
        }
      }
      if let timeout = watch.timeout {
        group.addTask { try await Task.sleep(for: .milliseconds(Int(timeout * 1000))) }
      }
      defer { group.cancelAll() }
      try await group.next()
    }
  }

  /// A value as `defaults read` prints it: strings as they are (sanitized by the printer, newlines kept), anything
  /// else as JSON with JSON's own escapes for control and bidirectional characters.
  private func render(_ value: JSONValue) -> String {
    if case .string(let text) = value { return text }
    return Untrusted.shown(json: value.jsonText(pretty: true))
  }

  private func kind(_ value: JSONValue) -> String {
    switch value {
    case .object: return "an object"
    case .array: return "an array"
    case .string: return "a string"
    case .integer, .double: return "a number"
    case .bool: return "a boolean"
    case .null: return "null"
    }
  }

  /// A typed value from `defaults write`.
  private func parse(_ type: String, _ text: String) throws -> JSONValue {
    switch type {
    case "-string": return .string(text)
    case "-int", "-integer":
      guard let value = Int(text) else { throw HostError(.usage, "-int needs a whole number, not \"\(text)\"") }
      return .integer(value)
    case "-float", "-double":
      guard let value = Double(text) else { throw HostError(.usage, "-float needs a number, not \"\(text)\"") }
      return .double(value)
    case "-bool", "-boolean":
      switch text.lowercased() {
      case "true", "yes", "1": return .bool(true)
      case "false", "no", "0": return .bool(false)
      default: throw HostError(.usage, "-bool needs true, false, yes, no, 1 or 0, not \"\(text)\"")
      }
    case "-json":
      do {
        return try JSONValue(parsing: text)
      } catch {
        throw HostError(.usage, "-json needs JSON, and \(text) is not: \(describe(error))")
      }
    default:
      throw HostError(.usage, "unknown value type \(type); use -string, -int, -float, -bool or -json")
    }
  }

  private func describe(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error {
      return (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        ?? context.debugDescription
    }
    return "\(error)"
  }
}
