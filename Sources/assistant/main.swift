// assistant: the IntentHost command line, a thin front end over AssistantHost. The commands are declared in the
// command model (CommandModel.swift, Commands.swift); this file parses, runs one, and prints how it ended.
import AssistantHost
import Foundation
import IntentHostSystem
import ProcessSupervision
import Synchronization
import Understanding
import UntrustedText

/// Whether `--json` is on the command line (before any `--`): then every error is also printed as JSON on stdout,
/// even one the parser finds.
func wantsJSON(_ arguments: [String]) -> Bool {
  arguments.prefix { $0 != "--" }.contains("--json")
}

/// What `--version` prints (`--json`: `{"version": ...}`), with its newline.
func versionText(json: Bool) throws -> String {
  struct Version: Encodable { var version: String }
  return json ? try jsonText(Version(version: hostVersion)) + "\n" : "assistant (IntentHost) \(hostVersion)\n"
}

/// `--version` answered before anything starts (no thread, no task): the command line's cheapest call costs what a
/// static hello costs. Nil when the command line is anything else, or stdout cannot take the text at once (the
/// command model then answers as usual); the exit status otherwise.
func versionAtOnce(_ arguments: [String]) -> Int32? {
  guard arguments.contains("--version") else { return nil }
  // `--version` alone (or with `--json`) needs no command model; anywhere else the parser says what it means.
  let alone = arguments.allSatisfy { $0 == "--version" || $0 == "--json" }
  if !alone {
    guard case .version? = try? CommandLineParser(root: RootCommand.self).parse(arguments) else { return nil }
  }
  guard let text = try? versionText(json: wantsJSON(arguments)) else { return nil }
  let bytes = Array(text.utf8)
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
    if written > 0 {
      offset += written
    } else if errno == EPIPE {
      return 128 + SIGPIPE  // the reader is gone, as the command model ends then
    } else if errno != EINTR {
      return offset == 0 ? nil : ExitStatus.ioError.rawValue
    }
  }
  return 0
}

/// Runs the command line. Everything it starts is stopped and reaped before it returns, on every path; Ctrl-C
/// cancels it (see the end of this file).
func main() async -> Int32 {
  let arguments = Array(CommandLine.arguments.dropFirst())
  let json = wantsJSON(arguments)
  do {
    let parser = CommandLineParser(root: RootCommand.self)
    if arguments.isEmpty {
      throw UsageError(
        "nothing to do: say something (assistant \"Book room 12 for Ada with Rooms\") or give a command "
          + "(assistant help)")
    }
    switch try parser.parse(arguments) {
    case .version:
      try await FileDescriptor.standardOutput.writeAll(Array(try versionText(json: json).utf8))
      return 0
    case .help(let path):
      let command = CommandLineParser.command(at: path, under: RootCommand.self)!
      let text = json ? try jsonText(HelpText.model(path, command)) : HelpText.help(path, command)
      try await FileDescriptor.standardOutput.writeAll(Array((text + "\n").utf8))
      return 0
    case .run(let type, let parsed):
      if parsed.flag(rawUntrustedTextOption) {
        Untrusted.bypassForTesting()
        await writeHostMessage("warning: --raw-untrusted-text (test only): untrusted text is printed raw")
      }
      _ = try parsed.simulatedKernel()  // every command checks the facts; those that launch use them
      let command = try type.init(parsed)
      let context = CommandContext(json: json, homeOption: parsed.value(homeOption))
      return try await command.run(in: context)
    }
  } catch is CancellationError {
    return 128 + (ProcessRegistry.shared.interruptSignal ?? SIGINT)
  } catch let error as SystemError where error.code == EPIPE {
    return 128 + SIGPIPE  // the reader of the output is gone (`... | head -1`): end quietly, as SIGPIPE would
  } catch {
    if let signal = ProcessRegistry.shared.interruptSignal { return 128 + signal }
    return await report(error, json: json)
  }
}

/// Prints how `error` ended a command (or, in `assistant shell`, one utterance): the message on stderr and, with
/// `--json`, the same as `{"error": {"message", "status", "kind"}}` on stdout.
/// - Returns: the exit status it stands for.
func report(_ error: any Error, json: Bool) async -> Int32 {
  let failure = HostFailure(error)
  await FileDescriptor.standardError.write(failure.error.printed + "\n")
  if json {
    // The same message, for scripts.
    if let text = try? jsonText(["error": failure]) {
      _ = try? await FileDescriptor.standardOutput.writeAll(Array((text + "\n").utf8))
    }
  }
  return failure.error.status.rawValue
}

/// Any error, as the host reports it: a `HostError` as it is; an `UnderstandingError` as the engine reports it
/// (`HostError.init(_:)`); a usage error with its help pointer; the host's own I/O errors exit 74, never 70 (which
/// means an extension's fault).
struct HostFailure: Encodable {
  var error: HostError
  /// The message in `--json`: a usage error's without its pointer to `--help`.
  var jsonMessage: String

  init(_ error: any Error) {
    jsonMessage = ""
    if let usage = error as? UsageError {
      self.error = usage.hostError
      jsonMessage = usage.message
    } else {
      self.error = HostError(reporting: error)
    }
    if jsonMessage.isEmpty { jsonMessage = self.error.message }
  }

  enum CodingKeys: String, CodingKey { case message, status, kind }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(jsonMessage, forKey: .message)
    try container.encode(Int(error.status.rawValue), forKey: .status)
    try container.encode("\(error.status)", forKey: .kind)
  }
}

/// A task, cancellable by the interrupt handler even before it has started: the command's, or one step of
/// `assistant shell` (reading a line, running an utterance). Use each for one `start`.
final class CancellableRun<Value: Sendable>: Sendable {
  private let state = Mutex<(task: Task<Value, Never>?, cancelled: Bool)>((nil, false))

  /// Starts `body` in a task and waits for it; cancelling the waiting task cancels it too.
  func start(_ body: @escaping @Sendable () async -> Value) async -> Value {
    let task = Task { await body() }
    let cancelled = state.withLock { state -> Bool in
      state.task = task
      return state.cancelled
    }
    if cancelled { task.cancel() }
    return await withTaskCancellationHandler {
      await task.value
    } onCancel: {
      self.cancel()
    }
  }

  func cancel() {
    let task = state.withLock { state -> Task<Value, Never>? in
      state.cancelled = true
      return state.task
    }
    task?.cancel()
  }

  /// Whether `cancel()` was called.
  var isCancelled: Bool { state.withLock { $0.cancelled } }
}

// Ctrl-C (or SIGTERM, SIGHUP) cancels the run: its structured cleanup shuts down and reaps every extension and app
// it started, and the host exits with 128 + the signal. A second signal, or a cleanup still running 3 s later, kills
// every child at once instead.
FileDescriptor.ensureStandardDescriptorsOpen()
ignoreBrokenPipeSignal()
if let status = versionAtOnce(Array(CommandLine.arguments.dropFirst())) { exit(status) }
let run = CancellableRun<Int32>()
ProcessRegistry.shared.installInterruptHandler(
  forcedMessage: "\nassistant: interrupted; every extension was killed\n", onInterrupt: { _ in run.cancel() })
let status = await run.start { await main() }
if let signal = ProcessRegistry.shared.interruptSignal {
  let stopped = ProcessRegistry.shared.spawnedCount > 0 ? "; every extension was stopped" : ""
  ProcessRegistry.shared.exit(128 + signal, message: "\nassistant: interrupted\(stopped)\n")
}
ProcessRegistry.shared.exit(status)
