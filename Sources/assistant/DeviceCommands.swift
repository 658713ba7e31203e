// The device's lock state and passcode: `assistant passcode set|change|remove`, `lock`, `unlock` and `status`. The
// state and its rules are AssistantHost's `DeviceState`; this file reads passcodes and prints.
import AssistantHost
import Foundation
import IntentHostSystem

/// The global option that makes passcodes scriptable.
let passcodeStdinOption = Option.flag(
  "--passcode-stdin",
  help:
    "Read each passcode the command needs as one line of stdin (for `passcode change`: the old one, then the new "
    + "one) instead of asking the terminal.")

extension PasscodeReader {
  init(_ parsed: ParsedCommand) { self.init(fromStandardInput: parsed.flag(passcodeStdinOption)) }
}

/// What the device commands share: the state of the home, on the host's clock.
func deviceState(_ context: CommandContext) throws -> DeviceState {
  DeviceState(home: try context.home(), clock: try HostClock(environment: ProcessInfo.processInfo.environment))
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

/// `assistant passcode set|change|remove|settings`.
struct Passcode: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "passcode",
      abstract: "Set, change or remove the device passcode, or its settings (require passcode, auto-lock).",
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
      try await device.refuseDuringLockout()
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
    try await device.refuseDuringLockout()
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
    try await device.refuseDuringLockout()
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
      options: [Self.requirePasscode, Self.autoLock],
      examples: ["assistant passcode settings --require-passcode 60 --auto-lock never --passcode-stdin"])
  }

  static let requirePasscode = Option.value(
    "--require-passcode", value: "WHEN",
    help: "immediately, or a number of seconds after locking during which unlocking needs no passcode.",
    completion: .words(["immediately", "60", "300", "900", "3600"]))
  static let autoLock = Option.value(
    "--auto-lock", value: "WHEN", help: "A number of seconds of idle time after which the device locks, or never.",
    completion: .words(["30", "60", "300", "never"]))

  var settings = DeviceState.Settings()
  var reader: PasscodeReader

  init(_ parsed: ParsedCommand) throws {
    reader = PasscodeReader(parsed)
    let longestGrace = Int(DeviceRecord.maximumGracePeriod)
    let longestAutoLock = Int(DeviceRecord.maximumAutoLock)
    if let text = parsed.value(Self.requirePasscode) {
      guard text == "immediately" || (Int(text).map { (0...longestGrace).contains($0) } ?? false) else {
        throw HostError(
          .usage,
          "--require-passcode needs immediately or a whole number of seconds up to \(longestGrace) (4 hours), not "
            + "\"\(text)\"")
      }
      settings.gracePeriod = Double(text == "immediately" ? 0 : Int(text)!)
    }
    if let text = parsed.value(Self.autoLock) {
      guard text == "never" || (Int(text).map { (1...longestAutoLock).contains($0) } ?? false) else {
        throw HostError(
          .usage,
          "--auto-lock needs never or a whole number of seconds from 1 to \(longestAutoLock) (a day), not \"\(text)\"")
      }
      settings.autoLock = .some(text == "never" ? nil : Double(Int(text)!))
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
      try await device.refuseDuringLockout()
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
    try await device.unlock(asking: { try await reader.read("Passcode") })
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
