// `assistant explain APP INTENT`: what the lock rules ask of an intent, now and with the device locked, from the
// same `LockPolicy` the driver will use.
import AssistantHost
import Foundation
import IntentHostSystem
import Understanding
import UntrustedText

/// `assistant explain APP INTENT`.
struct Explain: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "explain",
      abstract: "Say whether an intent needs the device unlocked, now and when locked, and which rule says so.",
      discussion: """
        The rules come from the manifests (IntentsRestrictedWhileLocked, INIntentsRestrictedWhileLocked, \
        IntentsRestrictedWhileProtectedDataUnavailable, INIntentsRestrictedWhileProtectedDataUnavailable, \
        IntentHostIntentsRestrictedWhileLockedAfterQuestions) and SiriKit's system intents, and for an App Intent \
        its authenticationPolicy in Metadata.appintents; some apply only when resolving asks to choose or confirm, \
        or when the extension answers continueInApp (continueInForeground). "now" and "when locked" \
        say what a run would do before the extension starts, as the run decides it: now, with the device as it is; \
        when locked, with the device locked long enough ago that the grace period and the protected-data delay are \
        over (failed attempts and a lockout as they stand now). A decision is "allowed" (it runs), "unlock" (the \
        device is unlocked without the passcode: within the grace period after locking, or, with no passcode set, \
        once the user confirms, a yes/no question that --answer yes answers in a script), "unlockWithPasscode" \
        (the passcode is asked first), "protectedDataUnavailable" (protected data is unavailable: the passcode is \
        asked first, and unlocking makes it available) or "lockedOut" (the passcode would be asked, but too many \
        wrong passcodes refuse it until the lockout ends: the run exits 77). With --json: {"app", "intent", \
        "rules": [{"need", "name", "source", "condition", "knownUpFront"}], "now", "whenLocked"}, a need being \
        "unlockedDevice" or "protectedData" and a condition "always", "afterQuestions" or "continueInApp".
        """,
      arguments: [Self.app.argument, Self.intent.argument],
      examples: ["assistant explain Rooms BookRoom"])
  }

  static let app = Positional("APP", help: "An installed app: its name or bundle id.", completion: .apps)
  static let intent = Positional("INTENT", help: "The intent: its class, definition name or title.")

  var app: String
  var intent: String

  init(_ parsed: ParsedCommand) throws {
    app = parsed[Self.app]
    intent = parsed[Self.intent]
  }

  struct Report: Encodable {
    var app: String
    var intent: String
    var rules: [LockPolicy.Rule]
    var now: String
    var whenLocked: String
  }

  /// What a run would do about `decision` on the device in `record` at `now`, as `IntentDriver` does it: the
  /// decision's word for --json and its sentence.
  ///
  /// The driver says "You need to unlock your device first." and then: with no passcode set, asks a yes/no
  /// question; within the grace period, unlocks without asking; otherwise refuses during a lockout without asking,
  /// else asks the passcode. A protected-data rule is met the same way (protected data is unavailable only once
  /// the passcode is required).
  static func verdict(_ decision: LockPolicy.Decision, _ record: DeviceRecord, at now: Double) -> (
    word: String, sentence: String
  ) {
    // The same `LockPolicy.unlocking` the driver acts on.
    switch LockPolicy.unlocking(decision, device: record, at: now) {
    case .notNeeded:
      return ("allowed", "it runs")
    case .confirmation:
      return (
        "unlock", "the user is asked to confirm the unlock, as no passcode is set (yes/no; --answer yes in a script)"
      )
    case .withinGracePeriod(let left):
      return (
        "unlock",
        "the device is unlocked without the passcode: it is within its grace period (\(DeviceState.duration(left)) left)"
      )
    case .lockedOut(let left):
      return ("lockedOut", "it is refused: too many wrong passcodes, try again in \(DeviceState.duration(left))")
    case .passcode:
      if case .protectedDataUnavailable = decision {
        return (
          "protectedDataUnavailable",
          "the passcode is asked first: protected data is unavailable (unlocking makes it available)"
        )
      }
      return ("unlockWithPasscode", "the passcode is asked first")
    }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let router = Router(apps: try home.installedApps())
    let app = try router.app(named: self.app)
    // An App Intent (its `authenticationPolicy`), else a SiriKit intent.
    let appIntent = try Assistant.appIntent(named: intent, in: app)
    let intentClass = try appIntent?.identifier ?? router.intentClass(named: intent, in: app)
    let rules = appIntent.map(IntentDriver.lockRules(of:)) ?? LockPolicy.rules(for: intentClass, of: app)
    let device = try deviceState(context)
    let record = try await offloaded { () throws in try device.record() }
    let now = device.clock.now
    // "When locked": locked long enough ago that the grace period and the protected-data delay are over, at this
    // moment, so that failed attempts and a lockout count as they stand.
    var locked = record
    locked.lockedAt = now - max(record.gracePeriod, DeviceRecord.protectedDataDelay) - 1
    let current = Self.verdict(LockPolicy.decide(rules, device: record, at: now), record, at: now)
    let whenLocked = Self.verdict(LockPolicy.decide(rules, device: locked, at: now), locked, at: now)
    let report = Report(
      app: app.name, intent: intentClass, rules: rules, now: current.word, whenLocked: whenLocked.word)
    if context.json {
      try await context.output(json: report)
      return 0
    }
    var lines = ["\(app.name) \(intentClass):"]
    if !rules.contains(where: \.knownUpFront) {
      lines.append("  no rule applies up front: it starts whether the device is locked or not")
    }
    for rule in rules {
      let need = rule.need == .unlockedDevice ? "needs an unlocked device" : "needs protected data"
      let when: String
      switch rule.condition {
      case .always: when = ""
      case .afterQuestions: when = "if resolving asks to choose or confirm, "
      case .continueInApp:
        when = appIntent == nil ? "if the extension answers continueInApp, " : "if perform continues in the app, "
      }
      lines.append("  \(when)\(need): \(rule.source) [\(rule.name)]")
    }
    lines.append("  now: " + current.sentence)
    lines.append("  when locked: " + whenLocked.sentence)
    for line in lines { try await context.output(Untrusted.shown(line)) }
    return 0
  }
}
