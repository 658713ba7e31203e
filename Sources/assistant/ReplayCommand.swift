import AssistantHost
import Foundation
import IntentHostSystem
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
        the exit is 0. With --json: {"file", "clean", "updated", "diff": [LINE...]}, the diff's lines as they \
        would print (empty when clean or updated).
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
    let text: String
    do {
      text = try await offloaded { () throws -> String in try String(contentsOfFile: path, encoding: .utf8) }
    } catch {
      throw HostError(.noInput, "cannot read the transcript \(Untrusted.shown(path)): \(error.localizedDescription)")
    }
    let recorded = text.split(separator: "\n").map(String.init)
    let entries = try Transcript.parse(text, file: path)
    guard let invocation = entries.first, invocation["kind"] as? String == "invocation" else {
      throw HostError(.dataError, "\(Untrusted.shown(path)): the first line is not the invocation of a transcript")
    }
    var launch = self.launch
    launch.record = nil
    launch.answers = Transcript.answers(entries)
    launch.locale = invocation["locale"] as? String ?? "en_US"
    launch.voice = invocation["voice"] as? Bool ?? false

    let recorder = TranscriptRecorder()
    recorder.record("invocation", invocation.filter { $0.key != "kind" && $0.key != "t" })
    // The run's dialog and questions go to stderr: stdout is the diff.
    let terminal = TerminalConversation(
      answers: launch.answers, interactive: false, quiet: true, prompts: .descriptor(.standardError),
      passcodesFromStandardInput: launch.passcodesFromStandardInput,
      authenticationFromStandardInput: launch.authenticationFromStandardInput)
    let quiet = CommandContext(json: false, homeOption: context.homeOption)
    let run: () async throws -> Int32
    switch invocation["command"] as? String {
    case "ask":
      let ask = Ask(utterance: invocation["utterance"] as? String ?? "", launch: launch)
      run = { try await ask.run(in: quiet, recorder: recorder, terminal: terminal) }
    case "run":
      let command = Run(
        app: invocation["app"] as? String ?? "", intent: invocation["intent"] as? String ?? "",
        values: invocation["values"] as? [String] ?? [], launch: launch)
      run = { try await command.run(in: quiet, recorder: recorder, terminal: terminal) }
    default:
      throw HostError(.dataError, "\(Untrusted.shown(path)): the invocation is neither ask nor run")
    }
    do {
      recorder.record("outcome", ["exit": Int(try await run())])
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      let status = (error as? HostError)?.status.rawValue ?? ExitStatus.extensionFault.rawValue
      recorder.record("outcome", ["exit": Int(status), "error": "\(error)"])
    }

    if update {
      try await recorder.write(to: path)
      if context.json {
        try await context.output(json: Report(file: path, clean: false, updated: true, diff: []))
      } else {
        try await context.output("\(Untrusted.shown(path)): updated")
      }
      return ExitStatus.success.rawValue
    }
    let home = try context.home().root.path
    let difference = Transcript.diff(
      Transcript.normalised(recorded, home: home), Transcript.normalised(recorder.lines, home: home))
    if context.json {
      let lines = difference.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      try await context.output(
        json: Report(
          file: path, clean: difference.isEmpty, updated: false,
          diff: difference.isEmpty ? [] : Array(lines.last == "" ? lines.dropLast() : lines[...])))
    } else if difference.isEmpty {
      try await context.output("\(Untrusted.shown(path)): replays clean")
    } else {
      try await FileDescriptor.standardOutput.writeAll(Array(Untrusted.shown(difference, multiline: true).utf8))
    }
    return difference.isEmpty ? ExitStatus.success.rawValue : ExitStatus.failureResponse.rawValue
  }

  /// What `replay --json` prints.
  private struct Report: Encodable {
    var file: String
    var clean: Bool
    var updated: Bool
    var diff: [String]
  }
}
