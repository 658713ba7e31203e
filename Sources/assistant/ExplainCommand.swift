// `assistant explain APP INTENT`: what the lock rules ask of an intent, now and with the device locked, from the
// same `LockPolicy` the driver will use.
import AssistantHost
import Foundation
import IntentHostSystem
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
        IntentHostIntentsRestrictedWhileLockedAfterQuestions) and SiriKit's system intents; some apply only when \
        resolving asks to choose or confirm, or when the extension answers continueInApp. "now" and "when locked" \
        say what a run would ask before the extension starts. With --json: {"app", "intent", "rules": [{"need", \
        "name", "source", "condition", "knownUpFront"}], "now", "whenLocked"}, each decision "allowed", "unlock", \
        "unlockWithPasscode" or "protectedDataUnavailable"; a condition is "always", "afterQuestions" or \
        "continueInApp".
        """,
      arguments: [
        Argument(name: "APP", help: "An installed app: its name or bundle id.", completion: .apps),
        Argument(name: "INTENT", help: "The intent: its class, definition name or title."),
      ],
      examples: ["assistant explain Rooms BookRoom"])
  }

  var app: String
  var intent: String

  init(_ parsed: ParsedCommand) throws {
    app = parsed.argument("APP")!
    intent = parsed.argument("INTENT")!
  }

  struct Report: Encodable {
    var app: String
    var intent: String
    var rules: [LockPolicy.Rule]
    var now: String
    var whenLocked: String
  }

  static func word(_ decision: LockPolicy.Decision) -> String {
    switch decision {
    case .allowed: "allowed"
    case .unlock(_, passcode: true): "unlockWithPasscode"
    case .unlock(_, passcode: false): "unlock"
    case .protectedDataUnavailable: "protectedDataUnavailable"
    }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let router = Router(apps: try home.installedApps())
    let app = try router.app(named: self.app)
    let intentClass = try router.intentClass(named: intent, in: app)
    let rules = LockPolicy.rules(for: intentClass, of: app)
    let device = try deviceState(context)
    let record = try await offloaded { () throws in try device.record() }
    let now = device.clock.now
    var locked = record
    locked.lock(at: now)
    // "When locked": long enough ago that the grace period and the protected-data delay are over.
    let later = now + max(locked.gracePeriod, DeviceRecord.protectedDataDelay) + 1
    let report = Report(
      app: app.name, intent: intentClass, rules: rules,
      now: Self.word(LockPolicy.decide(rules, device: record, at: now)),
      whenLocked: Self.word(LockPolicy.decide(rules, device: locked, at: later)))
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
      case .continueInApp: when = "if the extension answers continueInApp, "
      }
      lines.append("  \(when)\(need): \(rule.source) [\(rule.name)]")
    }
    func sentence(_ word: String) -> String {
      switch word {
      case "allowed": "it runs"
      case "unlock": "the device is unlocked first (no passcode needed now)"
      case "unlockWithPasscode": "the passcode is asked first"
      default: "it is refused until the device is unlocked (protected data is unavailable)"
      }
    }
    lines.append("  now: " + sentence(report.now))
    lines.append("  when locked: " + sentence(report.whenLocked))
    for line in lines { try await context.output(Untrusted.shown(line)) }
    return 0
  }
}
