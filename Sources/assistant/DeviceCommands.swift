// The device's lock state and passcode: `assistant passcode set|change|remove`, `lock`, `unlock` and `status`. The
// state and its rules are AssistantHost's `DeviceState`; this file reads passcodes and prints.
import AssistantHost
import Foundation
import IntentHostSystem
import Synchronization

/// The global option that makes passcodes scriptable.
let passcodeStdinOption = Option.flag(
  "--passcode-stdin",
  help:
    "Read each passcode the command needs as one line of stdin (for `passcode change`: the old one, then the new "
    + "one) instead of asking the terminal.")

/// Where passcodes come from: one line each from stdin (`--passcode-stdin`), else the terminal, without echo.
struct PasscodeReader: Sendable {
  var fromStandardInput: Bool

  init(_ parsed: ParsedCommand) { fromStandardInput = parsed.flag("--passcode-stdin") }

  /// Reads one passcode, asking `prompt` on the terminal.
  /// - Throws: `HostError(.valueNeeded)` (75) when there is no terminal and no `--passcode-stdin`, or stdin ended
  ///   first.
  func read(_ prompt: String) async throws -> String {
    if fromStandardInput {
      guard let line = try await Self.line(from: .standardInput) else {
        throw HostError(.valueNeeded, "\(prompt.lowercased()) is needed, but stdin ended (--passcode-stdin)")
      }
      return line
    }
    guard FileDescriptor.standardInput.isTerminal else {
      throw HostError(
        .valueNeeded,
        "\(prompt.lowercased()) is needed, but there is no terminal to ask; pass it on stdin with --passcode-stdin")
    }
    guard let line = try await Self.readWithoutEcho(prompt) else {
      throw HostError(.valueNeeded, "\(prompt.lowercased()) is needed, but input ended")
    }
    return line
  }

  /// One line of `fd` without its newline (a `\r` before it dropped too), read a byte at a time so that nothing
  /// after it is consumed; nil at end of input before any byte. Read off the cooperative pool; cancelling the task
  /// (Ctrl-C) ends the wait with `CancellationError`.
  static func line(from fd: FileDescriptor) async throws -> String? {
    let (wake, waker) = try FileDescriptor.pipe()
    let wakerOpen = Mutex(true)
    defer {
      wakerOpen.withLock { open in
        if open { waker.close() }
        open = false
      }
      wake.close()
    }
    let read = try await withTaskCancellationHandler {
      try await offloaded { () throws(SystemError) in try line(from: fd, wake: wake) }
    } onCancel: {
      wakerOpen.withLock { open in if open { _ = try? waker.writeAll([1]) } }
    }
    switch read {
    case .line(let line): return line
    case .end: return nil
    case .woken: throw CancellationError()
    }
  }

  private enum LineRead: Sendable {
    case line(String)
    case end
    case woken
  }

  /// Blocks until a line, end of input, or a byte on `wake`.
  private static func line(from fd: FileDescriptor, wake: FileDescriptor) throws(SystemError) -> LineRead {
    var bytes: [UInt8] = []
    var byte = [UInt8](repeating: 0, count: 1)
    while true {
      let ready = try pollReadable([fd, wake], timeoutMilliseconds: -1)
      if ready[1] { return .woken }
      let count = try fd.read(into: &byte)
      if count == 0 { return bytes.isEmpty ? .end : .line(String(decoding: bytes, as: UTF8.self)) }
      if byte[0] == UInt8(ascii: "\n") { break }
      if bytes.count < 4096 { bytes.append(byte[0]) }
    }
    if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    return .line(String(decoding: bytes, as: UTF8.self))
  }

  /// Asks `prompt` on the controlling terminal and reads a line from it with echo off; the terminal's settings are
  /// restored on every path, Ctrl-C (a cancelled task) included.
  static func readWithoutEcho(_ prompt: String) async throws -> String? {
    let tty = try await offloaded { () throws(SystemError) in
      try FileDescriptor.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    }
    defer { tty.close() }
    let saved = try await offloaded { () throws(SystemError) -> termios in
      var saved = termios()
      guard tcgetattr(tty.rawValue, &saved) == 0 else { throw SystemError.current("tcgetattr", "/dev/tty") }
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      quiet.c_lflag |= tcflag_t(ECHONL)
      try tty.writeAll(Array((prompt + ": ").utf8))
      guard tcsetattr(tty.rawValue, TCSAFLUSH, &quiet) == 0 else {
        throw SystemError.current("tcsetattr", "/dev/tty")
      }
      return saved
    }
    let result: Result<String?, any Error>
    do { result = .success(try await line(from: tty)) } catch { result = .failure(error) }
    await withUncancelledTask {
      _ = try? await offloaded { () throws(SystemError) in
        var restored = saved
        _ = tcsetattr(tty.rawValue, TCSAFLUSH, &restored)
        if case .failure = result { try tty.writeAll(Array("\n".utf8)) }
      }
    }
    return try result.get()
  }
}

/// What the device commands share: the state of the home, on the host's clock.
func deviceState(_ context: CommandContext) throws -> DeviceState {
  DeviceState(home: try context.home(), clock: try HostClock(environment: ProcessInfo.processInfo.environment))
}

/// Refuses (77) with the lockout's time left, before a passcode is asked.
func refuseDuringLockout(_ device: DeviceState) async throws {
  let status = try await offloaded { () throws in try device.status() }
  if let left = status.lockoutLeft {
    throw HostError(.refused, "too many wrong passcodes: try again in \(DeviceState.duration(left))")
  }
}

/// Prints `done` (or, with --json, the status).
func report(_ done: String, _ device: DeviceState, _ context: CommandContext) async throws -> Int32 {
  if context.json {
    try await context.output(json: try await offloaded { () throws in try device.status() })
  } else {
    try await context.output(done)
  }
  return 0
}

/// Throws the refusal of a check that did not accept the passcode.
func accept(_ check: DeviceState.Check) throws {
  if let refusal = DeviceState.refusal(check) { throw refusal }
}

private let passcodeDiscussion = """
  Passcodes are read from the terminal without echo, or with --passcode-stdin one line each from stdin. A wrong \
  passcode counts as a failed attempt: after 5 in a row attempts are refused for 1 minute, then 5, 15 and 60 minutes \
  after each further one; the right passcode resets the count. A refusal exits 77; a passcode that cannot be asked \
  (no terminal, no --passcode-stdin) exits 75.
  """

/// `assistant passcode set|change|remove`.
struct Passcode: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "passcode", abstract: "Set, change or remove the device passcode.",
      discussion: "The host keeps only a salted yescrypt hash of it, in <home>/State/passcode (mode 0600). "
        + passcodeDiscussion,
      subcommands: [PasscodeSet.self, PasscodeChange.self, PasscodeRemove.self, PasscodeSettings.self],
      examples: ["assistant passcode set", "printf '1234\\n' | assistant passcode set --passcode-stdin"])
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 { ExitStatus.usage.rawValue }  // the parser refuses it
}

/// Asks the new passcode (twice on a terminal) and sets it, checking `old` when one is set.
private func setPasscode(reader: PasscodeReader, device: DeviceState, old: String?) async throws {
  let new = try await reader.read("New passcode")
  if !reader.fromStandardInput {
    guard try await reader.read("Confirm the new passcode") == new else {
      throw HostError(.refused, "the two passcodes differ; nothing changed")
    }
  }
  guard !new.isEmpty else { throw HostError(.usage, "a passcode cannot be empty") }
  try accept(try await offloaded { () throws in try device.setPasscode(new, old: old) })
}

/// `assistant passcode set`.
struct PasscodeSet: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "set",
      abstract: "Set the passcode; when one is set, the current one is asked first (as `change`).",
      discussion: passcodeDiscussion)
  }

  var reader: PasscodeReader

  init(_ parsed: ParsedCommand) throws { reader = PasscodeReader(parsed) }

  func run(in context: CommandContext) async throws -> Int32 {
    let device = try deviceState(context)
    let isSet = try await offloaded { () throws in try device.status().passcodeSet }
    var old: String?
    if isSet {
      try await refuseDuringLockout(device)
      old = try await reader.read("Current passcode")
    }
    try await setPasscode(reader: reader, device: device, old: old)
    return try await report(isSet ? "passcode changed" : "passcode set", device, context)
  }
}

/// `assistant passcode change`.
struct PasscodeChange: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "change", abstract: "Change the passcode: the current one, then the new one.",
      discussion: passcodeDiscussion)
  }

  var reader: PasscodeReader

  init(_ parsed: ParsedCommand) throws { reader = PasscodeReader(parsed) }

  func run(in context: CommandContext) async throws -> Int32 {
    let device = try deviceState(context)
    guard try await offloaded({ () throws in try device.status().passcodeSet }) else {
      throw HostError(.noMatch, "no passcode is set; set one with `assistant passcode set`")
    }
    try await refuseDuringLockout(device)
    let old = try await reader.read("Current passcode")
    try await setPasscode(reader: reader, device: device, old: old)
    return try await report("passcode changed", device, context)
  }
}

/// `assistant passcode remove`.
struct PasscodeRemove: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "remove", abstract: "Remove the passcode (the current one is asked); exits 69 when none is set.",
      discussion: passcodeDiscussion)
  }

  var reader: PasscodeReader

  init(_ parsed: ParsedCommand) throws { reader = PasscodeReader(parsed) }

  func run(in context: CommandContext) async throws -> Int32 {
    let device = try deviceState(context)
    guard try await offloaded({ () throws in try device.status().passcodeSet }) else {
      throw HostError(.noMatch, "no passcode is set")
    }
    try await refuseDuringLockout(device)
    let old = try await reader.read("Current passcode")
    try accept(try await offloaded { () throws in try device.removePasscode(old: old) })
    return try await report("passcode removed", device, context)
  }
}

/// `assistant passcode settings [--require-passcode WHEN] [--auto-lock WHEN]`.
struct PasscodeSettings: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "settings",
      abstract: "Show or change when the passcode is required after locking, and the auto-lock idle time.",
      discussion: """
        Without options it shows both (as `assistant status` does). Changing them needs the current passcode when \
        one is set. The defaults are immediately and 300 seconds (5 minutes).
        """,
      options: [
        .value(
          "--require-passcode", value: "WHEN",
          help: "immediately, or a number of seconds after locking during which unlocking needs no passcode.",
          completion: .words(["immediately", "60", "300", "900", "3600"])),
        .value(
          "--auto-lock", value: "WHEN",
          help: "A number of seconds of idle time after which the device locks, or never.",
          completion: .words(["30", "60", "300", "never"])),
      ],
      examples: ["assistant passcode settings --require-passcode 60 --auto-lock never --passcode-stdin"])
  }

  var settings = DeviceState.Settings()
  var reader: PasscodeReader

  init(_ parsed: ParsedCommand) throws {
    reader = PasscodeReader(parsed)
    if let text = parsed.value("--require-passcode") {
      guard text == "immediately" || (Double(text).map { $0 >= 0 && $0.isFinite } ?? false) else {
        throw HostError(.usage, "--require-passcode needs immediately or a number of seconds, not \"\(text)\"")
      }
      settings.gracePeriod = text == "immediately" ? 0 : Double(text)!
    }
    if let text = parsed.value("--auto-lock") {
      guard text == "never" || (Double(text).map { $0 > 0 && $0.isFinite } ?? false) else {
        throw HostError(.usage, "--auto-lock needs a number of seconds above 0 or never, not \"\(text)\"")
      }
      settings.autoLock = .some(text == "never" ? nil : Double(text)!)
    }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let device = try deviceState(context)
    if settings == DeviceState.Settings() {
      let status = try await offloaded { () throws in try device.status() }
      if context.json {
        try await context.output(jsonText(status))
      } else {
        try await context.output(
          status.text.split(separator: "\n").filter { $0.hasPrefix("auto-lock") || $0.hasPrefix("require") }.joined(
            separator: "\n"))
      }
      return 0
    }
    var passcode: String?
    if try await offloaded({ () throws in try device.status().passcodeSet }) {
      try await refuseDuringLockout(device)
      passcode = try await reader.read("Current passcode")
    }
    let given = passcode
    let settings = settings
    try accept(try await offloaded { () throws in try device.changeSettings(settings, passcode: given) })
    return try await report("settings changed", device, context)
  }
}

/// `assistant lock`.
struct Lock: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "lock", abstract: "Lock the device, as its side button does.",
      discussion: """
        Intents restricted while locked then need an unlock. With a passcode set, unlocking needs it once the \
        "require passcode" grace period is over, and protected data becomes unavailable 10 seconds after locking \
        (or at the end of a longer grace period). The device also locks itself after the auto-lock idle time \
        (default 5 minutes).
        """)
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 {
    let device = try deviceState(context)
    try await offloaded { () throws in try device.lock() }
    return try await report("locked", device, context)
  }
}

/// `assistant unlock`.
struct Unlock: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "unlock", abstract: "Unlock the device; the passcode is asked when one is needed.",
      discussion: "No passcode is needed when none is set or within the grace period after locking. "
        + passcodeDiscussion)
  }

  var reader: PasscodeReader

  init(_ parsed: ParsedCommand) throws { reader = PasscodeReader(parsed) }

  func run(in context: CommandContext) async throws -> Int32 {
    let device = try deviceState(context)
    let record = try await offloaded { () throws in try device.record() }
    var passcode: String?
    if record.passcodeRequired(at: device.clock.now) {
      try await refuseDuringLockout(device)
      passcode = try await reader.read("Passcode")
    }
    let given = passcode
    try accept(try await offloaded { () throws in try device.unlock(passcode: given) })
    return try await report("unlocked", device, context)
  }
}

/// `assistant status`.
struct Status: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "status",
      abstract:
        "Show whether the device is locked, its passcode, protected data and failed attempts; it makes nothing.",
      discussion: """
        With --json: {"locked", "passcodeSet", "graceLeft", "protectedData", "failedAttempts", "lockoutLeft", \
        "autoLock", "gracePeriod"}, times in seconds (null when they do not apply; autoLock may be "never"). \
        INTENTHOST_CLOCK_OFFSET=SECONDS in the environment shifts the host's clock for the device state, a testing \
        aid to step past grace periods, lockouts and auto-lock without waiting.
        """)
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 {
    let device = try deviceState(context)
    let status = try await offloaded { () throws in try device.status() }
    try await context.output(context.json ? try jsonText(status) : status.text)
    return 0
  }
}
