@_spi(Testing) import AppGroupStore
import Foundation
import IntentHostSystem

/// The device's lock state as the host keeps it, `State/device.json` (a `Document`: locked updates, synced), schema 1.
/// Every change is one locked update, so concurrent host processes leave a consistent record. The passcode's hash is
/// not in it: it is `State/passcode` (see `DeviceState`).
///
/// ```json
/// {"content": {"autoLock": 300, "failedAttempts": 0, "gracePeriod": 0, "lastActivity": 1790000000,
///              "lockedAt": 1790000100, "passcodeSet": true},
///  "schemaVersion": 1, "sequence": 4}
/// ```
package struct DeviceRecord: DocumentContent, Equatable {
  package static let schemaVersion = 1

  /// Whether a passcode is set (then `State/passcode` holds its hash).
  package var passcodeSet = false
  /// When the device was locked (by `lock`, or recorded once auto-lock's idle time had passed); nil: not recorded
  /// as locked (auto-lock may still apply, see `lockTime(at:)`).
  package var lockedAt: Double?
  /// How long after locking the passcode is not yet required ("Require Passcode"), in seconds; 0: immediately.
  package var gracePeriod: Double = 0
  /// The idle time after which the device locks itself, in seconds; nil: never. Stored as a number or "never".
  package var autoLock: Double? = DeviceRecord.defaultAutoLock
  /// When the device was last used while unlocked; nil before the first use (then auto-lock does not apply).
  package var lastActivity: Double?
  /// Wrong passcodes since the last right one.
  package var failedAttempts = 0
  /// Until when passcode attempts are refused.
  package var lockoutUntil: Double?

  /// Five minutes, as iOS's default Auto-Lock.
  package static let defaultAutoLock: Double = 300
  /// How long after locking with a passcode protected data stays available (iOS's Complete protection class).
  package static let protectedDataDelay: Double = 10
  /// The failures after which attempts are refused, and for how long each further failure does so.
  package static let freeAttempts = 5
  package static let lockoutSteps: [Double] = [60, 300, 900, 3600]

  package init() {}

  enum CodingKeys: String, CodingKey {
    case passcodeSet, lockedAt, gracePeriod, autoLock, lastActivity, failedAttempts, lockoutUntil
  }

  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    passcodeSet = try container.decodeIfPresent(Bool.self, forKey: .passcodeSet) ?? false
    lockedAt = try container.decodeIfPresent(Double.self, forKey: .lockedAt)
    gracePeriod = try container.decodeIfPresent(Double.self, forKey: .gracePeriod) ?? 0
    if (try? container.decode(String.self, forKey: .autoLock)) == "never" {
      autoLock = nil
    } else {
      autoLock = try container.decodeIfPresent(Double.self, forKey: .autoLock) ?? Self.defaultAutoLock
    }
    lastActivity = try container.decodeIfPresent(Double.self, forKey: .lastActivity)
    failedAttempts = try container.decodeIfPresent(Int.self, forKey: .failedAttempts) ?? 0
    lockoutUntil = try container.decodeIfPresent(Double.self, forKey: .lockoutUntil)
    // Out-of-range values are a corrupt record (exit 65), never a crash or a way around the rules.
    func check(_ valid: Bool, _ key: CodingKeys) throws {
      guard valid else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container, debugDescription: "\(key.rawValue) is out of range")
      }
    }
    let time = 0...Self.latestTime
    try check(lockedAt.map(time.contains) ?? true, .lockedAt)
    try check(lastActivity.map(time.contains) ?? true, .lastActivity)
    try check(lockoutUntil.map(time.contains) ?? true, .lockoutUntil)
    try check((0...Self.maximumGracePeriod).contains(gracePeriod), .gracePeriod)
    try check(autoLock.map((1...Self.maximumAutoLock).contains) ?? true, .autoLock)
    try check((0...Self.maximumFailedAttempts).contains(failedAttempts), .failedAttempts)
  }

  /// The latest time a record may hold (the year 5138): beyond it, a corrupt record.
  static let latestTime: Double = 1e11
  /// The longest "require passcode" grace period, 4 hours (as iOS's longest).
  package static let maximumGracePeriod: Double = 14_400
  /// The longest auto-lock idle time, a day.
  package static let maximumAutoLock: Double = 86_400
  static let maximumFailedAttempts = 1_000_000

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(passcodeSet, forKey: .passcodeSet)
    try container.encodeIfPresent(lockedAt, forKey: .lockedAt)
    try container.encode(gracePeriod, forKey: .gracePeriod)
    if let autoLock {
      try container.encode(autoLock, forKey: .autoLock)
    } else {
      try container.encode("never", forKey: .autoLock)
    }
    try container.encodeIfPresent(lastActivity, forKey: .lastActivity)
    try container.encode(failedAttempts, forKey: .failedAttempts)
    try container.encodeIfPresent(lockoutUntil, forKey: .lockoutUntil)
  }

  // MARK: - Derived facts, pure functions of the record and the time

  /// When the device locked, if it is locked at `now`: the recorded time, else the end of the idle time when
  /// auto-lock is on and it has passed; nil when unlocked.
  ///
  /// A lock time after `now` (the clock stepped back, or a lock made with a later `INTENTHOST_CLOCK_OFFSET`) counts
  /// as long ago (0): the passcode is needed and protected data is unavailable, never a grace period that restarts
  /// at every read. A last activity after `now` counts as `now` (auto-lock is a convenience, not a guard).
  package func lockTime(at now: Double) -> Double? {
    if let lockedAt { return lockedAt > now ? 0 : lockedAt }
    if let autoLock, let lastActivity, now >= min(lastActivity, now) + autoLock {
      return min(lastActivity, now) + autoLock
    }
    return nil
  }

  package func isLocked(at now: Double) -> Bool { lockTime(at: now) != nil }

  /// Seconds of the grace period left: locked with a passcode and not yet past it; nil otherwise.
  package func graceLeft(at now: Double) -> Double? {
    guard passcodeSet, let locked = lockTime(at: now) else { return nil }
    let left = locked + gracePeriod - now
    return left > 0 ? left : nil
  }

  /// Whether unlocking needs the passcode: locked, a passcode set, and the grace period over.
  package func passcodeRequired(at now: Double) -> Bool {
    guard passcodeSet, let locked = lockTime(at: now) else { return false }
    return now >= locked + gracePeriod
  }

  /// Whether protected data (iOS's Complete protection class) is available: not from 10 s after locking with a
  /// passcode, or from the end of a longer grace period (until then the passcode is not needed to unlock, so the
  /// keys are kept, as Apple's Platform Security guide describes for "Require Password" later than immediately).
  package func protectedDataAvailable(at now: Double) -> Bool {
    guard passcodeSet, let locked = lockTime(at: now) else { return true }
    return now < locked + max(Self.protectedDataDelay, gracePeriod)
  }

  /// Seconds of the lockout left; 0 when attempts are allowed.
  package func lockoutLeft(at now: Double) -> Double {
    guard let lockoutUntil, lockoutUntil > now else { return 0 }
    // Never longer than the failures warrant (a lockout made on a clock that ran ahead).
    return min(lockoutUntil - now, Self.lockout(afterFailures: failedAttempts))
  }

  /// The lockout that follows the `failures`-th wrong passcode in a row, in seconds; 0 for none: 1 minute after the
  /// 5th, then 5, 15 and 60 minutes (and 60 for every one after).
  package static func lockout(afterFailures failures: Int) -> Double {
    guard failures >= freeAttempts else { return 0 }
    return lockoutSteps[min(failures - freeAttempts, lockoutSteps.count - 1)]
  }

  // MARK: - Changes (each inside one locked update)

  /// Records an auto-lock whose idle time has passed, so that a later change of the setting does not unlock it.
  package mutating func settle(at now: Double) {
    if lockedAt == nil, let locked = lockTime(at: now) { lockedAt = locked }
  }

  package mutating func lock(at now: Double) {
    settle(at: now)
    if lockedAt == nil { lockedAt = now }
  }

  package mutating func unlock(at now: Double) {
    lockedAt = nil
    lastActivity = now
  }

  /// Use of the device: postpones auto-lock when it is unlocked; nothing when locked.
  package mutating func recordActivity(at now: Double) {
    settle(at: now)
    if lockedAt == nil { lastActivity = now }
  }

  package mutating func recordFailure(at now: Double) {
    failedAttempts = min(failedAttempts + 1, Self.maximumFailedAttempts)
    let lockout = Self.lockout(afterFailures: failedAttempts)
    lockoutUntil = lockout > 0 ? now + lockout : nil
  }

  package mutating func recordSuccess() {
    failedAttempts = 0
    lockoutUntil = nil
  }
}
