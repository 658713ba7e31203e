import AssistantHost
import Foundation
import IntentHostSystem
import Understanding
import UntrustedText

/// `assistant replay FILE [--update]`: runs a recorded transcript again and compares, like a golden test.
struct Replay: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "replay",
      abstract: "Run a transcript made with --record again and show where the extensions now behave differently.",
      discussion: """
        The utterance or `run` invocation of FILE runs again against the installed extensions, its recorded \
        answers given as --answer (passcodes are not recorded: give them with --passcode-stdin or \
        --authentication-stdin). The new transcript is compared with FILE once what changes from run to run is \
        taken out (request ids, the intent's identifier, times, container and bundle paths, dates); the \
        differences are printed as a unified diff of the transcripts' lines. The run's dialog goes to stderr. \
        Exit 0 when they agree, 1 when they differ; with --update, FILE is rewritten with the new transcript and \
        the exit is 0 (FILE must be writable before anything runs). A FILE that is not a transcript (the \
        invocation line first and only once, its fields of the types --record writes) is refused with 65 before \
        anything runs. With --json: {"file", "clean", "updated", "diff": [LINE...]}, the diff's lines as they \
        would print (empty when clean), with --update too.
        """,
      arguments: [Argument(name: "FILE", help: "A transcript written by --record.")],
      options: [
        .flag("--update", help: "Rewrite FILE with the new transcript."),
        .flag("--passcode-stdin", help: "A passcode the run needs to unlock the device is the next line of stdin."),
        .flag(
          "--authentication-stdin",
          help: "An extension's request to authenticate the user is answered with the next line of stdin."),
      ] + confinementOptions,
      examples: ["assistant replay booking.jsonl", "assistant replay booking.jsonl --update"])
  }

  var file: String
  var update: Bool
  var launch: LaunchOptions

  init(_ parsed: ParsedCommand) throws {
    file = parsed.argument("FILE")!
    update = parsed.flag("--update")
    launch = try LaunchOptions(parsed)
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let path = file
    // Read and checked whole before anything runs: a transcript that is not one runs nothing.
    let text = try await offloaded { () throws -> String in try TranscriptFile.read(path) }
    let recorded = text.split(separator: "\n").map(String.init)
    let entries = try Transcript.parse(text, file: path)
    let invocation = try Self.invocation(of: entries, file: path)
    if update { try await offloaded { () throws in try TranscriptFile.checkWritable(path, action: "update") } }
    var launch = self.launch
    launch.record = nil
    launch.answers = try Self.answers(of: entries, file: path)
    launch.locale = invocation.locale
    launch.voice = invocation.voice

    let recorder = TranscriptRecorder()
    recorder.record("invocation", entries[0].filter { $0.key != "kind" && $0.key != "t" })
    // The run's dialog and questions go to stderr: stdout is the diff.
    let terminal = TerminalConversation(
      answers: launch.answers, interactive: false, quiet: true, prompts: .descriptor(.standardError),
      passcodesFromStandardInput: launch.passcodesFromStandardInput,
      authenticationFromStandardInput: launch.authenticationFromStandardInput)
    let quiet = CommandContext(json: false, homeOption: context.homeOption)
    let run: () async throws -> Int32
    switch invocation.command {
    case .ask(let utterance):
      let ask = Ask(utterance: utterance, launch: launch)
      run = { try await ask.run(in: quiet, recorder: recorder, terminal: terminal) }
    case .run(let app, let intent, let values):
      let command = Run(app: app, intent: intent, values: values, launch: launch)
      run = { try await command.run(in: quiet, recorder: recorder, terminal: terminal) }
    }
    do {
      recorder.record("outcome", ["exit": Int(try await run())])
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      let reported = (error as? HostError) ?? (error as? UnderstandingError).map(HostError.init)
      let status = reported?.status.rawValue ?? ExitStatus.extensionFault.rawValue
      recorder.record("outcome", ["exit": Int(status), "error": "\(error)"])
    }

    let home = try context.home().root.path
    let difference = Transcript.diff(
      Transcript.normalised(recorded, home: home), Transcript.normalised(recorder.lines, home: home))
    let diffLines = difference.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let diff = difference.isEmpty ? [] : Array(diffLines.last == "" ? diffLines.dropLast() : diffLines[...])
    if update { try await recorder.write(to: path, action: "update") }
    if context.json {
      try await context.output(json: Report(file: path, clean: difference.isEmpty, updated: update, diff: diff))
    } else if update {
      // The lines of the diff that are changes: after the two file headers, those starting with - or +.
      let changed = diff.dropFirst(2).filter { $0.hasPrefix("-") || $0.hasPrefix("+") }.count
      try await context.output(
        "\(Untrusted.shown(path)): updated ("
          + (difference.isEmpty ? "it replayed clean" : "\(changed) line\(changed == 1 ? "" : "s") changed") + ")")
    } else if difference.isEmpty {
      try await context.output("\(Untrusted.shown(path)): replays clean")
    } else {
      try await FileDescriptor.standardOutput.writeAll(Array(Untrusted.shown(difference, multiline: true).utf8))
    }
    return difference.isEmpty || update ? ExitStatus.success.rawValue : ExitStatus.failureResponse.rawValue
  }

  /// What a transcript's invocation line runs.
  struct Invocation {
    enum Command {
      case ask(utterance: String)
      case run(app: String, intent: String, values: [String])
    }
    var command: Command
    var locale: String
    var voice: Bool
  }

  /// The invocation of a transcript, checked as the command line checks its arguments: exactly one invocation line,
  /// the first; `command` "ask" with an `utterance` string (at most `UtteranceArgument.limit` bytes) or "run" with
  /// `app` and `intent` strings and `values` an array of strings; `locale`, if there, a locale `--locale` takes;
  /// `voice`, if there, a boolean.
  /// - Throws: `HostError(.dataError)` (65) naming the field and what it should be.
  static func invocation(of entries: [[String: Any]], file: String) throws -> Invocation {
    func refuse(_ problem: String) -> HostError {
      HostError(.dataError, "\(file): \(problem); is it a transcript of --record?")
    }
    guard let first = entries.first else { throw refuse("the file is empty") }
    guard first["kind"] as? String == "invocation" else {
      throw refuse("the first line is not the invocation of a transcript (\"kind\": \"invocation\")")
    }
    if let index = entries.indices.dropFirst().first(where: { entries[$0]["kind"] as? String == "invocation" }) {
      throw refuse("line \(index + 1) is a second invocation; a transcript has one, on its first line")
    }
    func string(_ field: String) throws -> String {
      guard let value = first[field] as? String else {
        throw refuse("the invocation's \"\(field)\" should be a string\(first[field] == nil ? ", and is missing" : "")")
      }
      return value
    }
    let command: Invocation.Command
    switch first["command"] as? String {
    case "ask":
      let utterance = try string("utterance")
      if let problem = UtteranceArgument.problem(utterance) { throw refuse("in the invocation, \(problem)") }
      command = .ask(utterance: utterance)
    case "run":
      let app = try string("app")
      let intent = try string("intent")
      guard let values = first["values"] as? [Any], let strings = values as? [String], strings.count == values.count
      else {
        throw refuse("the invocation's \"values\" should be an array of strings (NAME=VALUE)")
      }
      command = .run(app: app, intent: intent, values: strings)
    default:
      throw refuse("the invocation's \"command\" should be \"ask\" or \"run\"")
    }
    var locale = LaunchOptions().locale
    if first["locale"] != nil {
      let text = try string("locale")
      guard LaunchOptions.isLocale(text) else {
        throw refuse("the invocation's \"locale\" should be a locale such as en_US or fr_FR, not \"\(text)\"")
      }
      locale = text
    }
    var voice = false
    if let value = first["voice"] {
      guard let flag = Self.boolean(value) else { throw refuse("the invocation's \"voice\" should be true or false") }
      voice = flag
    }
    return Invocation(command: command, locale: locale, voice: voice)
  }

  /// The recorded answers (`Transcript.answers`), each of which must be a string.
  /// - Throws: `HostError(.dataError)` naming the line whose answer is not one.
  static func answers(of entries: [[String: Any]], file: String) throws -> [String] {
    for (index, entry) in entries.enumerated() where entry["kind"] as? String == "user" {
      if let answer = entry["answer"], !(answer is String) {
        throw HostError(
          .dataError,
          "\(file): line \(index + 1): the user's \"answer\" should be a string; is it a transcript of --record?")
      }
    }
    return Transcript.answers(entries)
  }

  /// A JSON boolean, and not a number: JSONSerialization gives both as NSNumber (and `as? Bool` takes 0 and 1), a
  /// boolean with the type of a C `char`, which no JSON number parses to.
  static func boolean(_ value: Any) -> Bool? {
    guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else { return nil }
    return number.boolValue
  }

  /// What `replay --json` prints.
  private struct Report: Encodable {
    var file: String
    var clean: Bool
    var updated: Bool
    var diff: [String]
  }
}
