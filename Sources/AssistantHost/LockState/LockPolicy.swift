import BundleManifest
import Understanding

/// What an intent needs of the device, and which rule says so: the one place the driver and `assistant explain`
/// ask (issue 12). A pure function of the intent, the manifests, the lock state and what happened in the
/// conversation; it reads nothing and changes nothing.
///
/// The rules (../shared/reference/apple-semantics.md, A3):
/// - the extension's `IntentsRestrictedWhileLocked` lists the intent: an unlocked device, before the extension
///   starts;
/// - the app's `INIntentsRestrictedWhileLocked` lists it: the same;
/// - a system intent of the catalog that always needs an unlocked device (workouts' start and resume, payments,
///   ...): the same;
/// - the extension's `IntentsRestrictedWhileProtectedDataUnavailable` or the app's
///   `INIntentsRestrictedWhileProtectedDataUnavailable` lists it: protected data available (the device unlocked, or
///   locked less than its protected-data delay ago), before the extension starts;
/// - the conditional rule (Apple's for `INAppendToNoteIntent`, and for any intent the extension lists in
///   `IntentHostIntentsRestrictedWhileLockedAfterQuestions`): when resolving a parameter asked the user to choose
///   or to confirm, an unlocked device before handle;
/// - `continueInApp` brings the app to the foreground: an unlocked device, before the app is opened.
package enum LockPolicy {
  /// What is needed.
  package enum Need: String, Sendable, Equatable, Encodable {
    /// The device unlocked (the passcode asked when one is needed).
    case unlockedDevice
    /// Protected data available.
    case protectedData
  }

  /// When a rule applies.
  package enum Condition: String, Sendable, Equatable, Encodable {
    /// Always: checked before the extension starts.
    case always
    /// When resolving a parameter asked the user to choose among candidates or to confirm a value: checked before
    /// handle.
    case afterQuestions
    /// When the extension answers `continueInApp`: checked before the app comes to the foreground.
    case continueInApp
  }

  /// One rule that applies to an intent.
  package struct Rule: Sendable, Equatable, Encodable {
    package var need: Need
    /// A stable name: `extension-restricted-while-locked`, `app-restricted-while-locked`,
    /// `system-intent-always-unlocked`, `extension-restricted-while-protected-data-unavailable`,
    /// `app-restricted-while-protected-data-unavailable`, `restricted-while-locked-after-questions`,
    /// `continue-in-app`, `app-intent-authentication-policy`, `open-app-when-run`.
    package var name: String
    /// Where it comes from, as a user reads it: "BookRoomIntent is listed in IntentsRestrictedWhileLocked of
    /// RoomsIntents.appex/Info.plist".
    package var source: String
    package var condition: Condition

    /// Whether it is known before the extension starts (then the unlock is asked before anything runs).
    package var knownUpFront: Bool { condition == .always }

    package init(need: Need, name: String, source: String, condition: Condition = .always) {
      self.need = need
      self.name = name
      self.source = source
      self.condition = condition
    }

    private enum CodingKeys: String, CodingKey { case need, name, source, condition, knownUpFront }

    package func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(need, forKey: .need)
      try container.encode(name, forKey: .name)
      try container.encode(source, forKey: .source)
      try container.encode(condition, forKey: .condition)
      try container.encode(knownUpFront, forKey: .knownUpFront)
    }
  }

  /// What happened in the conversation so far, as far as the rules care.
  package struct History: Sendable, Equatable {
    /// Parameters whose resolution asked the user to choose among candidates.
    package var disambiguated: [String] = []
    /// Parameters whose resolution asked the user to confirm a value.
    package var confirmed: [String] = []
    /// The extension answered `continueInApp`.
    package var continuingInApp = false

    package init(disambiguated: [String] = [], confirmed: [String] = [], continuingInApp: Bool = false) {
      self.disambiguated = disambiguated
      self.confirmed = confirmed
      self.continuingInApp = continuingInApp
    }

    /// Nothing has happened yet: only the rules that always apply.
    package static let upFront = History()

    /// Whether resolving asked a question the conditional rule counts.
    package var askedQuestions: Bool { !disambiguated.isEmpty || !confirmed.isEmpty }

    /// What was asked, for a message: "resolving roomNumber asked to choose".
    package var questions: String {
      var parts: [String] = []
      if !disambiguated.isEmpty { parts.append("resolving \(listOrNone(disambiguated)) asked to choose") }
      if !confirmed.isEmpty { parts.append("resolving \(listOrNone(confirmed)) asked to confirm") }
      return parts.joined(separator: " and ")
    }

    func satisfies(_ condition: Condition) -> Bool {
      switch condition {
      case .always: true
      case .afterQuestions: askedQuestions
      case .continueInApp: continuingInApp
      }
    }
  }

  /// Every rule of `intentClass` of `app`, whatever its condition: the manifests, the catalog, and the
  /// `continueInApp` rule every intent has.
  package static func rules(for intentClass: String, of app: AppBundle) -> [Rule] {
    var rules: [Rule] = []
    let appFile = "\(app.url.lastPathComponent)/Info.plist"
    if let ext = app.intentsExtension(for: intentClass) {
      let file = "\(ext.url.lastPathComponent)/Info.plist"
      if ext.extensionInfo.intentsRestrictedWhileLocked.contains(intentClass) {
        rules.append(
          Rule(
            need: .unlockedDevice, name: "extension-restricted-while-locked",
            source: "\(intentClass) is listed in IntentsRestrictedWhileLocked of \(file)"))
      }
      if ext.extensionInfo.intentsRestrictedWhileProtectedDataUnavailable.contains(intentClass) {
        rules.append(
          Rule(
            need: .protectedData, name: "extension-restricted-while-protected-data-unavailable",
            source: "\(intentClass) is listed in IntentsRestrictedWhileProtectedDataUnavailable of \(file)"))
      }
      if ext.extensionInfo.intentsRestrictedWhileLockedAfterQuestions.contains(intentClass) {
        rules.append(
          Rule(
            need: .unlockedDevice, name: "restricted-while-locked-after-questions",
            source:
              "\(intentClass) is listed in \(InfoPlist.ExtensionInfo.restrictedAfterQuestionsKey) of \(file)",
            condition: .afterQuestions))
      }
    }
    if app.info.appIntentsRestrictedWhileLocked.contains(intentClass) {
      rules.append(
        Rule(
          need: .unlockedDevice, name: "app-restricted-while-locked",
          source: "\(intentClass) is listed in INIntentsRestrictedWhileLocked of \(appFile)"))
    }
    if app.info.appIntentsRestrictedWhileProtectedDataUnavailable.contains(intentClass) {
      rules.append(
        Rule(
          need: .protectedData, name: "app-restricted-while-protected-data-unavailable",
          source: "\(intentClass) is listed in INIntentsRestrictedWhileProtectedDataUnavailable of \(appFile)"))
    }
    if let system = SystemIntent.named(intentClass) {
      if system.alwaysRequiresUnlockedDevice {
        rules.append(
          Rule(
            need: .unlockedDevice, name: "system-intent-always-unlocked",
            source: "\(intentClass) always needs an unlocked device (SiriKit)"))
      }
      if system.requiresUnlockedDeviceAfterQuestions {
        rules.append(
          Rule(
            need: .unlockedDevice, name: "restricted-while-locked-after-questions",
            source: "\(intentClass) needs an unlocked device when resolving asks to choose or confirm (SiriKit)",
            condition: .afterQuestions))
      }
    }
    rules.append(continueInApp(app))
    return rules
  }

  /// The rule `continueInApp` adds: the app comes to the foreground, which needs an unlocked device.
  package static func continueInApp(_ app: AppBundle) -> Rule {
    Rule(
      need: .unlockedDevice, name: "continue-in-app",
      source: "continueInApp brings \(app.name) to the foreground",
      condition: .continueInApp)
  }

  /// What `rules` ask of the device in `record` at `now`.
  package enum Decision: Sendable, Equatable {
    /// Nothing stands in the way.
    case allowed
    /// The device must be unlocked first; `passcode`: whether the passcode is asked (else, with none set or
    /// within the grace period, a confirmation or nothing).
    case unlock(Rule, passcode: Bool)
    /// Protected data is unavailable and the rule needs it: unlocking (with the passcode) makes it available.
    case protectedDataUnavailable(Rule)
  }

  /// The first rule that applies after `history` and that the device's state does not satisfy, or `.allowed`.
  package static func decide(
    _ rules: [Rule], device record: DeviceRecord, at now: Double, after history: History = .upFront
  ) -> Decision {
    for rule in rules where history.satisfies(rule.condition) {
      switch rule.need {
      case .unlockedDevice where record.isLocked(at: now):
        return .unlock(rule, passcode: record.passcodeRequired(at: now))
      case .protectedData where !record.protectedDataAvailable(at: now):
        return .protectedDataUnavailable(rule)
      default:
        continue
      }
    }
    return .allowed
  }

  /// How a run gets past a decision: what the driver does and `assistant explain` reports, decided here only.
  package enum Unlocking: Sendable, Equatable {
    /// Nothing stands in the way.
    case notNeeded
    /// No passcode is set: the unlock is a yes/no confirmation.
    case confirmation
    /// Within the grace period (this many seconds left): unlocked without asking.
    case withinGracePeriod(left: Double)
    /// The passcode is asked.
    case passcode
    /// A lockout (this many seconds left): refused without asking.
    case lockedOut(left: Double)
  }

  /// How `decision` is met on the device in `record` at `now`.
  package static func unlocking(_ decision: Decision, device record: DeviceRecord, at now: Double) -> Unlocking {
    if decision == .allowed { return .notNeeded }
    if !record.passcodeSet { return .confirmation }
    if !record.passcodeRequired(at: now) { return .withinGracePeriod(left: record.graceLeft(at: now) ?? 0) }
    let lockout = record.lockoutLeft(at: now)
    return lockout > 0 ? .lockedOut(left: lockout) : .passcode
  }

  /// Whether any of `rules` can apply after `history` (when none can, the device's state need not be read).
  package static func anyApplies(_ rules: [Rule], after history: History) -> Bool {
    rules.contains { history.satisfies($0.condition) }
  }
}
