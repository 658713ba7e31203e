import AssistantHost
import IntentHostSystem

/// The host's device, as `assistant status` shows it.
public struct DeviceLockStatus: Sendable, Hashable {
  /// Whether the device is locked.
  public var isLocked: Bool
  /// Whether a passcode is set.
  public var hasPasscode: Bool
  /// Wrong passcodes entered since the last right one.
  public var failedAttempts: Int

  /// A state, to compare with `deviceStatus()`.
  public init(isLocked: Bool, hasPasscode: Bool, failedAttempts: Int) {
    self.isLocked = isLocked
    self.hasPasscode = hasPasscode
    self.failedAttempts = failedAttempts
  }
}

extension TestHost {
  /// Sets the device's passcode (`assistant passcode set`); with one set already, `old` must be it.
  ///
  /// ```swift
  /// try await host.setPasscode("2468")
  /// try await host.lock()
  /// let refused = try await host.say("Open the door of room 12 with Rooms")
  /// #expect(refused.status == .refused)
  /// let opened = try await host.say("Open the door of room 12 with Rooms", passcode: "2468")
  /// #expect(opened.status == .success)
  /// ```
  /// - Throws: `TestHostError(.refused)` for a wrong `old` passcode; `.usage` for a passcode the device does not
  ///   take.
  public func setPasscode(_ passcode: String, old: String? = nil) async throws {
    try checkOpen()
    let device = device
    try await reportingErrors {
      let check = try await offloaded { () throws in try device.setPasscode(passcode, old: old) }
      if let refusal = DeviceState.refusal(check) { throw refusal }
    }
  }

  /// Locks the device now (`assistant lock`): an intent restricted while locked then asks for the passcode.
  /// - Throws: `TestHostError` when the device record cannot be written.
  public func lock() async throws {
    try checkOpen()
    let device = device
    try await reportingErrors { try await offloaded { () throws in try device.lock() } }
  }

  /// Unlocks the device (`assistant unlock`), with `passcode` when one is needed.
  /// - Throws: `TestHostError(.refused)` for a wrong passcode or during a lockout; `.valueNeeded` when one is needed
  ///   and `passcode` is nil.
  public func unlock(passcode: String? = nil) async throws {
    try checkOpen()
    let device = device
    try await reportingErrors {
      let check = try await offloaded { () throws -> DeviceState.Check in
        do {
          return try device.unlock(passcode: passcode)
        } catch is DeviceState.PasscodeNeeded {
          throw HostError(.valueNeeded, "the device needs its passcode to unlock: pass `passcode:`")
        }
      }
      if let refusal = DeviceState.refusal(check) { throw refusal }
    }
  }

  /// The device's lock state now (`assistant status`).
  /// - Throws: `TestHostError` when the device record cannot be read.
  public func deviceStatus() async throws -> DeviceLockStatus {
    let device = device
    return try await reportingErrors {
      let status = try await offloaded { () throws in try device.status() }
      return DeviceLockStatus(
        isLocked: status.locked, hasPasscode: status.passcodeSet, failedAttempts: status.failedAttempts)
    }
  }
}
