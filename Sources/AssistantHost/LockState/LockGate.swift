// The lock gate: what the driver asks of the device before a step that `LockPolicy` restricts runs.
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import UntrustedText

extension IntentDriver {
  /// Makes the device's state satisfy the lock rules that apply after `history`, as Siri does: "You need to unlock
  /// your device first.", then the passcode when one is required; a yes/no confirmation when no passcode is set;
  /// nothing asked within the grace period. A successful unlock leaves the device unlocked.
  ///
  /// The device's state is read only when a rule can apply, so an unrestricted intent costs nothing here.
  /// - Throws: `HostError(.refused)` (77) naming the rule and its file when the device stays locked: nobody to ask,
  ///   no answer, a wrong passcode (counted), or a lockout (nothing asked).
  func satisfy(_ rules: [LockPolicy.Rule], after history: LockPolicy.History, intent: String, app: AppBundle)
    async throws
  {
    guard let device, LockPolicy.anyApplies(rules, after: history) else { return }
    let record = try await offloaded { () throws in try device.record() }
    let now = device.clock.now
    let rule: LockPolicy.Rule
    let state: String
    let decision = LockPolicy.decide(rules, device: record, at: now, after: history)
    switch decision {
    case .allowed: return
    case .unlock(let which, _):
      (rule, state) = (which, "the device is locked")
    case .protectedDataUnavailable(let which):
      (rule, state) = (which, "protected data is unavailable (the device is locked)")
    }
    let step: String
    switch rule.condition {
    case .always: step = "\(intent) was not run"
    case .afterQuestions: step = "\(intent) was not handled"
    case .continueInApp: step = "\(app.name) was not opened (continueInApp)"
    }
    let reason = rule.condition == .afterQuestions ? "\(rule.source), and \(history.questions)" : rule.source
    func refused(_ why: String) -> HostError {
      HostError(.refused, "\(step): \(state) and \(reason) [\(rule.name)]; \(why)")
    }
    let ahead = "or run `assistant unlock` first"
    // Where the question is asked (the terminal), so that it stands above the prompt even when stdout is a file.
    await conversation.explain("You need to unlock your device first.")
    // Another process may set a passcode or lock the device between the read above and the unlock: then the
    // passcode is asked after all (`PasscodeNeeded`).
    switch LockPolicy.unlocking(decision, device: record, at: now) {
    case .notNeeded:
      return
    case .confirmation:
      let unlocks: Bool
      do {
        unlocks = try await askYesNo("Unlock it?", need: "a confirmation to unlock the device")
      } catch let error as HostError where error.status == .valueNeeded {
        // A terminal conversation's advice says how to answer (`--answer yes`, a terminal); any other gets this one.
        let how = error.message.contains("--answer") ? "" : ": answer yes to unlock it (--answer yes in a script)"
        throw refused("\(error.message)\(how), \(ahead)")
      }
      guard unlocks else { throw refused("it was not unlocked: answer yes to unlock it, \(ahead)") }
      do { return try await unlock(device, passcode: nil, refused: refused) } catch is DeviceState.PasscodeNeeded {}
    case .withinGracePeriod:
      do {
        try await unlock(device, passcode: nil, refused: refused)
        await conversation.explain("Unlocked without the passcode: the device locked within its grace period.")
        return
      } catch is DeviceState.PasscodeNeeded {}
    case .lockedOut(let left):
      throw refused("too many wrong passcodes: try again in \(DeviceState.duration(left))")
    case .passcode:
      break
    }
    switch try await conversation.askPasscode("Passcode", for: .unlock) {
    case .unavailable(let why):
      throw refused("the passcode is needed, but \(why), \(ahead)")
    case .cancelled:
      throw refused("no passcode was given: type it at the prompt, give it with --passcode-stdin, \(ahead)")
    case .entered(let passcode):
      try await unlock(device, passcode: passcode, refused: refused)
    }
  }

  func unlock(_ device: DeviceState, passcode: String?, refused: (String) -> HostError) async throws {
    let check = try await offloaded { () throws in try device.unlock(passcode: passcode) }
    if let refusal = DeviceState.refusal(check) {
      let retry =
        if case .wrong = check { ": run it again with the right one, or run `assistant unlock` first" } else { "" }
      throw refused(refusal.message + retry)
    }
  }
}
