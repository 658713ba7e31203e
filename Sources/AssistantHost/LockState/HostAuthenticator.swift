import ExtensionProtocol
import ExtensionTransport
import IntentHostSystem
import Synchronization
import Understanding
import UntrustedText

/// How the host answers `host/requestAuthentication` (docs/PROTOCOL.md, "Requests to the host"): it shows who asks
/// and why on the prompts' stream, then asks for the device's passcode.
///
/// - The right passcode: `approved`, and the failed attempts are reset. It authorizes the extension's transaction
///   and nothing else: a locked device stays locked (`assistant unlock` and the unlock before a restricted intent
///   are what unlock it).
/// - A wrong passcode: `denied`, counted as a failed attempt (the fifth starts a lockout, as `unlock`'s do).
/// - During a lockout: `lockedOut`, without asking.
/// - No passcode given (an empty line, Ctrl-D): `cancelled`. Nobody to ask (no terminal, no
///   `--authentication-stdin`): `cancelled`, with a note on stderr saying how to give it. A line of `--passcode-stdin`
///   (given to unlock the device) is never used here.
/// - No passcode set: a yes/no question, "Allow NAME to go ahead?": yes is `approved`, anything else `denied` (not
///   counted); `cancelled` when it cannot be asked.
/// - No device state (`device` nil): `cancelled`, with a note on stderr.
struct HostAuthenticator: Sendable {
  var conversation: any Conversation
  var device: DeviceState?

  /// Asks the user to authenticate for `requester` (an extension's or app's name) and `reason`.
  /// - Parameter reason: what the extension sent, already within `RequestAuthenticationRequest.reasonProblem`'s
  ///   bounds; it is shown through the sanitizer.
  /// - Throws: `CancellationError` when the waiting task is cancelled (the prompt ends); `HostError` when the device
  ///   state cannot be read or updated.
  func authenticate(reason: String, for requester: String) async throws -> AuthenticationOutcome {
    let name = Untrusted.shown(requester)
    func note(_ why: String) async {
      await writeHostMessage("note: \(name) asked to authenticate the user, \(why); it was answered cancelled")
    }
    guard let device else {
      await note("but this host keeps no device state")
      return .cancelled
    }
    let record = try await offloaded { () throws in try device.record() }
    // Runs of spaces are one: a reason cannot fill a line and wrap into what looks like a line of its own.
    let shownReason = reason.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    await conversation.explain("\(name) asks you to authenticate: \(Untrusted.shown(shownReason))")
    guard record.passcodeSet else {
      // An answer that is neither yes nor no is asked about once more (`askYesNo`'s rule); a second is a no.
      var approval = try await conversation.askApproval("Allow \(name) to go ahead?")
      if case .entered(let answer) = approval, SpokenAnswer.answer(to: answer) == nil {
        await conversation.explain(IntentDriver.pleaseAnswerYesOrNo)
        approval = try await conversation.askApproval("Allow \(name) to go ahead?")
      }
      switch approval {
      case .entered(let answer):
        guard SpokenAnswer.answer(to: answer) == true else { return .denied }
        // A passcode set while the question was open: it is asked after all.
        let now = try await offloaded { () throws in try device.record() }
        return now.passcodeSet ? try await askPasscode(now, device: device, note: note) : .approved
      case .cancelled: return .cancelled
      case .unavailable(let why):
        await note("but nobody could be asked: \(why)")
        return .cancelled
      }
    }
    return try await askPasscode(record, device: device, note: note)
  }

  /// The passcode part: refused during a lockout, else asked and checked (a wrong one counted).
  private func askPasscode(
    _ record: DeviceRecord, device: DeviceState, note: (String) async -> Void
  ) async throws -> AuthenticationOutcome {
    let lockout = record.lockoutLeft(at: device.clock.now)
    if lockout > 0 {
      await conversation.explain("Too many wrong passcodes: try again in \(DeviceState.duration(lockout)).")
      return .lockedOut
    }
    switch try await conversation.askPasscode("Passcode", for: .authentication) {
    case .cancelled:
      return .cancelled
    case .unavailable(let why):
      await note("but the passcode cannot be asked: \(why)")
      return .cancelled
    case .entered(let passcode):
      let check = try await offloaded { () throws in try device.authenticate(passcode: passcode) }
      if let refusal = DeviceState.refusal(check) { await conversation.explain(capitalized(refusal.message) + ".") }
      switch check {
      case .accepted: return .approved
      case .wrong: return .denied
      case .lockedOut: return .lockedOut
      }
    }
  }

  private func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}

extension IntentDriver {
  /// How this run answers `host/requestAuthentication` from the extensions and apps it talks to.
  var authenticator: HostAuthenticator { HostAuthenticator(conversation: conversation, device: device) }
}
