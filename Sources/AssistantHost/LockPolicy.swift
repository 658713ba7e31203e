import BundleManifest

/// What an intent needs of the device, and which rule says so: the one place the driver and `assistant explain`
/// ask (issue 12). A pure function of the intent, the manifests, the lock state and what happened in the
/// conversation; it reads nothing and changes nothing.
///
/// The rules (../shared/reference/apple-semantics.md, A3):
/// - the extension's `IntentsRestrictedWhileLocked` lists the intent: an unlocked device, before handle;
/// - the app's `INIntentsRestrictedWhileLocked` lists it (an intent the app handles itself): the same;
/// - a system intent of the catalog that always needs an unlocked device (workouts' start and resume, payments,
///   ...): the same, known before the extension starts;
/// - the extension's `IntentsRestrictedWhileProtectedDataUnavailable` lists it: protected data available (the
///   device unlocked, or locked less than its protected-data delay ago);
/// - `continueInApp` brings the app to the foreground: an unlocked device.
public enum LockPolicy {
  /// What is needed.
  public enum Need: String, Sendable, Equatable, Encodable {
    /// The device unlocked (the passcode asked when one is needed).
    case unlockedDevice
    /// Protected data available.
    case protectedData
  }

  /// One rule that applies to an intent.
  public struct Rule: Sendable, Equatable, Encodable {
    public var need: Need
    /// A stable name: `extension-restricted-while-locked`, `app-restricted-while-locked`,
    /// `system-intent-always-unlocked`, `extension-restricted-while-protected-data-unavailable`,
    /// `continue-in-app`.
    public var name: String
    /// Where it comes from, as a user reads it: "BookRoomIntent is listed in IntentsRestrictedWhileLocked of
    /// RoomsIntents.appex/Info.plist".
    public var source: String
    /// Whether it is known before the extension starts (then the unlock is asked before anything runs).
    public var knownUpFront: Bool

    public init(need: Need, name: String, source: String, knownUpFront: Bool) {
      self.need = need
      self.name = name
      self.source = source
      self.knownUpFront = knownUpFront
    }
  }

  /// The rules that apply to `intentClass` of `app` before anything ran (the manifests and the catalog).
  public static func rules(for intentClass: String, of app: AppBundle) -> [Rule] {
    var rules: [Rule] = []
    if let ext = app.intentsExtension(for: intentClass) {
      let file = "\(ext.url.lastPathComponent)/Info.plist"
      if ext.extensionInfo.intentsRestrictedWhileLocked.contains(intentClass) {
        rules.append(
          Rule(
            need: .unlockedDevice, name: "extension-restricted-while-locked",
            source: "\(intentClass) is listed in IntentsRestrictedWhileLocked of \(file)", knownUpFront: true))
      }
      if ext.extensionInfo.intentsRestrictedWhileProtectedDataUnavailable.contains(intentClass) {
        rules.append(
          Rule(
            need: .protectedData, name: "extension-restricted-while-protected-data-unavailable",
            source: "\(intentClass) is listed in IntentsRestrictedWhileProtectedDataUnavailable of \(file)",
            knownUpFront: true))
      }
    }
    if app.info.appIntentsRestrictedWhileLocked.contains(intentClass) {
      rules.append(
        Rule(
          need: .unlockedDevice, name: "app-restricted-while-locked",
          source:
            "\(intentClass) is listed in INIntentsRestrictedWhileLocked of \(app.url.lastPathComponent)/Info.plist",
          knownUpFront: true))
    }
    if SystemIntent.named(intentClass)?.alwaysRequiresUnlockedDevice == true {
      rules.append(
        Rule(
          need: .unlockedDevice, name: "system-intent-always-unlocked",
          source: "\(intentClass) always needs an unlocked device (SiriKit)", knownUpFront: true))
    }
    return rules
  }

  /// The rule `continueInApp` adds: the app comes to the foreground, which needs an unlocked device.
  public static func continueInApp(_ app: AppBundle) -> Rule {
    Rule(
      need: .unlockedDevice, name: "continue-in-app",
      source: "continueInApp brings \(app.name) to the foreground, which needs an unlocked device",
      knownUpFront: false)
  }

  /// What `rules` ask of the device in `record` at `now`.
  public enum Decision: Sendable, Equatable {
    /// Nothing stands in the way.
    case allowed
    /// The device must be unlocked first; `passcode`: whether the passcode is asked (else, with none set or
    /// within the grace period, a confirmation or nothing).
    case unlock(Rule, passcode: Bool)
    /// Protected data is unavailable and the rule needs it: unlocking makes it available.
    case protectedDataUnavailable(Rule)
  }

  /// The first rule the device's state does not satisfy, or `.allowed`.
  public static func decide(_ rules: [Rule], device record: DeviceRecord, at now: Double) -> Decision {
    for rule in rules {
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
}
