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
      arguments: [Self.file.argument],
      options: [
        Self.update,
        passcodeStdinOption.with(help: "A passcode the run needs to unlock the device is the next line of stdin."),
        authenticationStdinOption.with(
          help: "An extension's request to authenticate the user is answered with the next line of stdin."),
      ] + confinementOptions,
      examples: ["assistant replay booking.jsonl", "assistant replay booking.jsonl --update"])
  }

  static let file = Positional("FILE", help: "A transcript written by --record.")
  static let update = Option.flag("--update", help: "Rewrite FILE with the new transcript.")

  var file: String
  var update: Bool
  var launch: LaunchOptions

  init(_ parsed: ParsedCommand) throws {
    file = parsed[Self.file]
    update = parsed.flag(Self.update)
    launch = try LaunchOptions(parsed)
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let path = file
    // Read and checked whole before anything runs: a transcript that is not one runs nothing.
    let text = try await offloaded { () throws -> String in try TranscriptFile.read(path) }
    let recorded = text.split(separator: "\n").map(String.init)
    let lines = try Transcript.parse(text, file: path)
    let invocation = try Self.invocation(of: lines, file: path)
    if update { try await offloaded { () throws in try TranscriptFile.checkWritable(path, action: "update") } }
    var launch = self.launch
    launch.record = nil
    launch.answers = try Self.answers(of: lines, file: path)
    launch.locale = invocation.locale ?? LaunchOptions().locale
    launch.voice = invocation.voice ?? false

    let recorder = TranscriptRecorder()
    recorder.record(.invocation(invocation))
    // The run's dialog and questions go to stderr: stdout is the diff.
    let terminal = TerminalConversation(
      answers: launch.answers, interactive: false, quiet: true, prompts: .descriptor(.standardError),
      passcodesFromStandardInput: launch.passcodesFromStandardInput,
      authenticationFromStandardInput: launch.authenticationFromStandardInput)
    let quiet = CommandContext(json: false, homeOption: context.homeOption)
    do {
      let assistant = try launch.assistant(in: quiet, conversation: terminal, recorder: recorder)
      let status =
        switch invocation.command {
        case .ask(let utterance): try await Ask.show(assistant.say(utterance), in: quiet)
        case .run(let app, let intent, let values):
          try await Run.show(assistant.run(app: app, intent: intent, values: values), in: quiet)
        }
      recorder.record(.outcome(exit: Int(status), error: nil))
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      let reported = (error as? HostError) ?? (error as? UnderstandingError).map(HostError.init)
      let status = reported?.status.rawValue ?? ExitStatus.extensionFault.rawValue
      recorder.record(.outcome(exit: Int(status), error: "\(error)"))
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

  /// The invocation of a transcript, checked as the command line checks its arguments: exactly one invocation line,
  /// the first; `command` "ask" with an `utterance` string (at most `UtteranceArgument.limit` bytes) or "run" with
  /// `app` and `intent` strings and `values` an array of strings; `locale`, if there, a locale `--locale` takes;
  /// `voice`, if there, a boolean (`TranscriptEntry.Invocation`).
  /// - Throws: `HostError(.dataError)` (65) naming the field and what it should be.
  static func invocation(of lines: [Transcript.Line], file: String) throws -> TranscriptEntry.Invocation {
    func refuse(_ problem: String) -> HostError {
      HostError(.dataError, "\(file): \(problem); is it a transcript of --record?")
    }
    guard let first = lines.first else { throw refuse("the file is empty") }
    guard first.kind == .invocation else {
      throw refuse("the first line is not the invocation of a transcript (\"kind\": \"invocation\")")
    }
    if let second = lines.dropFirst().first(where: { $0.kind == .invocation }) {
      throw refuse("line \(second.number) is a second invocation; a transcript has one, on its first line")
    }
    guard case .invocation(let invocation) = try first.entry(file: file) else {
      throw refuse("the first line is not the invocation of a transcript (\"kind\": \"invocation\")")
    }
    if case .ask(let utterance) = invocation.command, let problem = UtteranceArgument.problem(utterance) {
      throw refuse("in the invocation, \(problem)")
    }
    if let locale = invocation.locale, !LaunchOptions.isLocale(locale) {
      throw refuse("the invocation's \"locale\" should be a locale such as en_US or fr_FR, not \"\(locale)\"")
    }
    return invocation
  }

  /// The recorded answers (`Transcript.answers`): each user line is decoded, its answer a string.
  /// - Throws: `HostError(.dataError)` naming the line and the field that is not what `--record` writes.
  static func answers(of lines: [Transcript.Line], file: String) throws -> [String] {
    Transcript.answers(try lines.filter { $0.kind == .user }.map { try $0.entry(file: file) })
  }

  /// What `replay --json` prints.
  private struct Report: Encodable {
    var file: String
    var clean: Bool
    var updated: Bool
    var diff: [String]
  }
}
