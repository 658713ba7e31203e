// What every command runs with: the home, the output streams, and the options shared by the commands that
// launch extensions and apps.
import AssistantHost
import Foundation
import IntentHostSystem
import ProcessSupervision
import UntrustedText

/// The options of the commands that talk to the user (`ask`, `run`).
let conversationOptions: [Option] = [
  answerOption, deadlineOption, voiceOption, authenticationStdinOption, recordOption,
]

let answerOption = Option.value(
  "--answer", value: "TEXT",
  help: "Answer the next question with TEXT (repeatable, used in order, before asking the terminal).",
  repeatable: true)
let deadlineOption = Option.value(
  "--deadline", value: "PHASE=SECS",
  help:
    "The deadline of handshake, resolve, confirm, handle, perform, ui or shutdown (or all); defaults 5, 5, 5, 10, 30, 3, 2 "
    + "seconds.", repeatable: true,
  completion: .words(Phase.allCases.map { "\($0.rawValue)=" } + ["all="]))
let voiceOption = Option.flag(
  "--voice",
  help:
    "Say the voice dialog (the response's concise wording, where the intent definition has one) instead of the "
    + "printed one.")
let authenticationStdinOption = Option.flag(
  "--authentication-stdin",
  help:
    "Answer an extension's request to authenticate the user with the next line of stdin (the passcode; with none "
    + "set, yes or no) instead of asking the terminal. --passcode-stdin lines only ever unlock the device.")
let recordOption = Option.value(
  "--record", value: "FILE",
  help:
    "Write a transcript of the run to FILE (JSON lines: the invocation, each question and answer, each message to "
    + "and from each extension, the outcome; never a passcode), for `assistant replay`.")

/// The user's locale.
let localeOption = Option.value(
  "--locale", value: "LOCALE", help: "The user's locale, e.g. fr_FR (default en_US).")

/// The options that confine what the command launches (`ask`, `run`, `open`, and `sandbox-profile`, which shows
/// them).
let confinementOptions: [Option] = [memoryLimitOption, cpuLimitOption, storageLimitOption, noSandboxOption]

let memoryLimitOption = Option.value(
  "--memory-limit", value: "MIB", help: "The memory ceiling of each extension (default 30).")
let cpuLimitOption = Option.value(
  "--cpu-limit", value: "SECONDS", help: "The CPU time of each extension process (default 10).")
let storageLimitOption = Option.value(
  "--storage-limit", value: "MIB[,FILES]",
  help:
    "What each container and app group may hold for this run, checked before each launch (default: the home's, "
    + "`assistant storage`).")
let noSandboxOption = Option.flag(
  "--no-sandbox", help: "Run extensions and apps unconfined (unsafe; warns on every run).")

/// What a command runs with.
struct CommandContext: Sendable {
  /// `--json`: one JSON document on stdout.
  var json: Bool
  /// `--home`, if given.
  var homeOption: String?

  /// The host home, located but not made: reading commands make nothing, writing ones call `prepare()`.
  /// - Throws: `HostError(.usage)` for an empty `--home=`.
  func home() throws -> AssistantHome {
    if homeOption == "" { throw HostError(.usage, "--home needs a folder, e.g. --home ~/.local/share/intenthost") }
    return try AssistantHome(root: homeOption)
  }

  /// Prints a line on stdout, off the cooperative pool (a pipe's reader may be slow).
  /// - Throws: `SystemError` naming stdout when it fails (`EPIPE`: its reader is gone).
  func output(_ line: String) async throws {
    do {
      try await FileDescriptor.standardOutput.writeAll(Array((line + "\n").utf8))
    } catch {
      throw error.onStandardOutput
    }
  }

  /// Prints `value` as one JSON document on stdout: sorted keys, the values exact (JSON's own escapes for the
  /// controls an encoder leaves raw).
  func output(json value: some Encodable) async throws {
    try await output(jsonText(value))
  }
}

/// `value` as compact JSON with sorted keys, safe for a terminal and exact.
func jsonText(_ value: some Encodable) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  return Untrusted.shown(json: String(decoding: try encoder.encode(value), as: UTF8.self))
}

extension ParsedCommand {
  /// The kernel facts of the hidden `--simulate` (for the tests), which only the commands that launch use.
  /// - Throws: `HostError(.usage)` for a fact it does not know.
  func simulatedKernel() throws -> SimulatedKernel {
    var kernel = SimulatedKernel()
    for fact in values(simulateOption) {
      guard kernel.simulate(fact) else {
        throw HostError(
          .usage,
          "--simulate takes \(SimulatedKernel.factNames.joined(separator: ", ")), not \"\(Untrusted.shown(fact))\"")
      }
    }
    return kernel
  }
}

/// What the commands that launch extensions and apps were told.
struct LaunchOptions: Sendable {
  var answers: [String] = []
  var deadlines = Deadlines()
  var locale = "en_US"
  var sandbox = SandboxPolicy()
  /// `--passcode-stdin`: a passcode the run needs (to unlock the device) is the next line of stdin.
  var passcodesFromStandardInput = false
  /// `--authentication-stdin`: an extension's authentication request is answered with the next line of stdin.
  var authenticationFromStandardInput = false
  /// `--voice`: the answer is the voice dialog (the concise template), not the printed one.
  var voice = false
  /// `--record FILE`: where the run's transcript goes.
  var record: String? = nil
  /// Whether the call takes its extensions from the home's server when one runs (`ask` and `run` without
  /// `--no-server`); only when the launches are confined by the default policy, as the server's are.
  var usesServer = false
  /// Whether an option changed the confinement (`--no-sandbox`, the limits, `--simulate`).
  var confinementChanged = false

  /// The defaults (`assistant replay` sets what the transcript says).
  init() {}

  init(_ parsed: ParsedCommand) throws {
    record = parsed.value(recordOption)
    answers = parsed.values(answerOption)
    passcodesFromStandardInput = parsed.flag(passcodeStdinOption)
    authenticationFromStandardInput = parsed.flag(authenticationStdinOption)
    voice = parsed.flag(voiceOption)
    for text in parsed.values(deadlineOption) { try deadlines.set(text) }
    if let locale = parsed.value(localeOption) {
      guard Self.isLocale(locale) else {
        throw HostError(.usage, "--locale needs a locale such as en_US or fr_FR, not \"\(locale)\"")
      }
      self.locale = locale
    }
    confinementChanged = ([noSandboxOption, simulateOption] + confinementOptions).contains { parsed.flag($0) }
    if parsed.flag(noSandboxOption) { sandbox.enabled = false }
    sandbox.simulatedKernel = try parsed.simulatedKernel()
    if let text = parsed.value(cpuLimitOption) {
      guard let seconds = Int(text), seconds > 0 else {
        throw HostError(.usage, "--cpu-limit needs a whole number of seconds, not \"\(text)\"")
      }
      sandbox.setExtensionCPU(seconds: seconds)
    }
    if let text = parsed.value(memoryLimitOption) {
      guard let megabytes = Int(text), megabytes > 0 else {
        throw HostError(.usage, "--memory-limit needs a number of MiB, not \"\(text)\"")
      }
      sandbox.setExtensionMemory(megabytes: megabytes)
    }
    if let text = parsed.value(storageLimitOption) {
      do throws(StorageLimit.Problem) {
        sandbox.storageLimit = try StorageLimit(parsing: text)
      } catch {
        throw HostError(.usage, "--storage-limit: \(error)")
      }
    }
  }

  /// Whether `text` is taken for a locale (`--locale`, a transcript's invocation): 1 to 64 letters, digits and `_-@.`.
  static func isLocale(_ text: String) -> Bool {
    (1...64).contains(text.count)
      && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-@.".contains($0)) }
  }

  /// The engine configured by these options, for a command run in `context`: the home, the locale, the voice, the
  /// deadlines, the sandbox, this process's device, and `--json` (`Assistant.Configuration.standardOutputIsJSON`).
  /// - Parameters:
  ///   - conversation: the conversation to use (`replay`, `shell`); nil makes the terminal's, with the scripted
  ///     answers (`--answer`), the terminal when stdin is one, and the dialog on stdout (on stderr with `--json`).
  ///   - recorder: where the run is recorded (`--record`, `replay`).
  ///   - warm: where extensions are kept running between utterances (`shell`); nil starts and stops them.
  /// - Throws: `HostError(.usage)` for an empty `--home=`.
  func assistant(
    in context: CommandContext, conversation: TerminalConversation? = nil, recorder: TranscriptRecorder? = nil,
    warm: WarmExtensions? = nil
  ) throws -> Assistant {
    let conversation =
      conversation
      ?? TerminalConversation(
        answers: answers, interactive: FileDescriptor.standardInput.isTerminal, quiet: context.json,
        passcodesFromStandardInput: passcodesFromStandardInput,
        authenticationFromStandardInput: authenticationFromStandardInput)
    var configuration = Assistant.Configuration(home: try context.home(), conversation: conversation)
    configuration.locale = locale
    configuration.voice = voice
    configuration.deadlines = deadlines
    configuration.sandbox = sandbox
    configuration.warm = warm
    configuration.recorder = recorder
    if usesServer && !confinementChanged && recorder == nil {
      configuration.server = ServerClient(home: configuration.home)
    }
    configuration.standardOutputIsJSON = context.json
    return Assistant(configuration)
  }

  /// The `--no-sandbox` warning, on every run that launches something unconfined.
  func warnIfUnconfined() async {
    if !sandbox.enabled { await FileDescriptor.standardError.write(SandboxPolicy.warning + "\n") }
  }
}
