@_spi(Testing) import AppGroupStore
import Foundation
import IntentHostSystem

/// What `assistant status` shows: the device's state at one moment.
package struct DeviceStatus: Sendable, Equatable, Encodable {
  package var locked: Bool
  package var passcodeSet: Bool
  /// Seconds of the grace period left (locked, a passcode set, within the grace period); nil otherwise.
  package var graceLeft: Double?
  package var protectedData: Bool
  package var failedAttempts: Int
  /// Seconds of the lockout left; nil when there is none.
  package var lockoutLeft: Double?
  /// The auto-lock idle time in seconds; nil: never.
  package var autoLock: Double?
  package var gracePeriod: Double

  package init(_ record: DeviceRecord, at now: Double) {
    locked = record.isLocked(at: now)
    passcodeSet = record.passcodeSet
    graceLeft = record.graceLeft(at: now).map { $0.rounded(.up) }
    protectedData = record.protectedDataAvailable(at: now)
    failedAttempts = record.failedAttempts
    let lockout = record.lockoutLeft(at: now)
    lockoutLeft = lockout > 0 ? lockout.rounded(.up) : nil
    autoLock = record.autoLock
    gracePeriod = record.gracePeriod
  }

  enum CodingKeys: String, CodingKey {
    case locked, passcodeSet, graceLeft, protectedData, failedAttempts, lockoutLeft, autoLock, gracePeriod
  }

  /// Every key, `null` for what does not apply; `autoLock` is a number of seconds or "never".
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(locked, forKey: .locked)
    try container.encode(passcodeSet, forKey: .passcodeSet)
    try container.encode(graceLeft, forKey: .graceLeft)
    try container.encode(protectedData, forKey: .protectedData)
    try container.encode(failedAttempts, forKey: .failedAttempts)
    try container.encode(lockoutLeft, forKey: .lockoutLeft)
    if let autoLock {
      try container.encode(autoLock, forKey: .autoLock)
    } else {
      try container.encode("never", forKey: .autoLock)
    }
    try container.encode(gracePeriod, forKey: .gracePeriod)
  }

  /// The human text of `assistant status`, one fact a line.
  package var text: String {
    var lines = [locked ? "locked" : "unlocked"]
    lines.append(passcodeSet ? "passcode: set" : "passcode: none")
    if let graceLeft { lines.append("passcode required in \(DeviceState.duration(graceLeft))") }
    lines.append(protectedData ? "protected data: available" : "protected data: unavailable")
    if failedAttempts > 0 { lines.append("failed attempts: \(failedAttempts)") }
    if let lockoutLeft { lines.append("locked out: try again in \(DeviceState.duration(lockoutLeft))") }
    lines.append("auto-lock: " + (autoLock.map { "after \(DeviceState.duration($0))" } ?? "never"))
    lines.append(
      "require passcode: " + (gracePeriod == 0 ? "immediately" : "after \(DeviceState.duration(gracePeriod))"))
    return lines.joined(separator: "\n")
  }
}

/// The device's lock state and passcode in a host home: `State/device.json` (`DeviceRecord`) and `State/passcode`,
/// the passcode's yescrypt hash (mode 0600, written atomically through the `State` folder's descriptor, never
/// following a link). Every change, the passcode file's included, happens under the record's lock, so two host
/// processes never see a passcode file and a record that disagree, nor lose a failed attempt.
///
/// The methods block on the lock, the disk and the hash (yescrypt takes tens of milliseconds): call them off the
/// cooperative pool (`offloaded`).
package struct DeviceState: Sendable {
  package let home: AssistantHome
  package let clock: HostClock

  /// For tests only: skip the record's lock (`Document.lockingDisabled`), to show that concurrent changes are lost
  /// without it.
  package var lockingDisabled = false
  /// For tests only: called inside every `update` once the record is read and before it is changed, to hold a race
  /// window open.
  package var afterReading: (@Sendable () -> Void)?

  package init(home: AssistantHome, clock: HostClock) {
    self.home = home
    self.clock = clock
  }

  package var recordFile: URL { home.deviceFile }
  package var passcodeFile: URL { home.passcodeFile }
  static let passcodeName = AssistantHome.passcodeName

  var document: Document<DeviceRecord> {
    var document = Document<DeviceRecord>(path: recordFile.path)
    document.lockingDisabled = lockingDisabled
    return document
  }

  /// The record as it is; makes nothing (a home without one reads as a new device: unlocked, no passcode).
  /// - Throws: `HostError(.dataError)` for a corrupt record, `.ioError` when it cannot be read.
  package func record() throws -> DeviceRecord {
    var record: DeviceRecord
    do { record = try document.read() } catch {
      throw deviceStateError(error, "cannot read the device state \(recordFile.path)")
    }
    try failClosed(&record)
    // A passcode that could never be checked is reported now, not first at an unlock.
    if record.passcodeSet, !(try readPasscodeHash()).hasPrefix("$y$") {
      throw HostError(
        .dataError, "the passcode file \(passcodeFile.path) does not hold a yescrypt passcode hash; \(resetAdvice)")
    }
    return record
  }

  /// A record that says no passcode is set beside a passcode file (the record lost, damaged or removed, or a crash
  /// between the two) is read as a device with a passcode, locked long ago: the passcode is needed to unlock it,
  /// and unlocking writes a whole record again. Losing the record never unlocks the device nor drops its passcode.
  func failClosed(_ record: inout DeviceRecord) throws {
    guard !record.passcodeSet, try passcodeFileExists() else { return }
    record.passcodeSet = true
    if record.lockedAt == nil { record.lockedAt = 0 }
  }

  /// Whether anything is at `State/passcode` (not followed).
  func passcodeFileExists() throws -> Bool {
    var info = stat()
    if lstat(passcodeFile.path, &info) == 0 { return true }
    if errno == ENOENT || errno == ENOTDIR { return false }
    throw HostError(.ioError, "cannot look at the passcode file \(passcodeFile.path): \(SystemError.current("lstat"))")
  }

  /// A store failure of the device record, with the fix that applies to it (the store's own fix names
  /// `assistant defaults recover`, which is for app groups): a damaged or planted file is 65, with how to start
  /// again; a failing disk is 74.
  func deviceStateError(_ error: any Error, _ what: String) -> HostError {
    switch error as? StoreError {
    case .corrupt(let file, let detail)?:
      return HostError(.dataError, "\(what): \(file) is corrupt (\(detail)); \(resetAdvice)")
    case .unsafeFile(let file, let detail)?:
      return HostError(
        .dataError,
        "\(what): \(file) \(detail), and the host never follows a link or opens anything but a regular file "
          + "there; \(resetAdvice)")
    case .newerSchema?:
      return HostError(.dataError, "\(what): \(error)")
    case .io(let system)? where [EISDIR, ENOTDIR, ELOOP, ENXIO].contains(system.code):
      return HostError(.dataError, "\(what): \(system); \(resetAdvice)")
    default:
      return HostError(.ioError, "\(what): \(error)")
    }
  }

  /// How to start again when the state cannot be used.
  var resetAdvice: String {
    let state = home.state.path
    return "to start again without a passcode (and lose the lock state), remove \(state)/passcode, "
      + "\(state)/device.json and \(state)/.device.json.*"
  }

  /// The state now; makes nothing.
  package func status() throws -> DeviceStatus { DeviceStatus(try record(), at: clock.now) }

  /// Runs `body` on the record under its lock, at one `now`, after settling a passed auto-lock; commits what it
  /// changed (nothing when it throws). The home is prepared first.
  package func update<Result>(_ body: (inout DeviceRecord, Double) throws -> Result) throws -> Result {
    try home.prepare()
    do {
      return try document.update { record in
        afterReading?()
        let now = clock.now  // once the lock is held: a wait for it does not age what is computed
        try failClosed(&record)
        record.settle(at: now)
        return try body(&record, now)
      }
    } catch let error as StoreError {
      throw deviceStateError(error, "cannot use the device state \(recordFile.path)")
    }
  }

  /// What checking a passcode found.
  package enum Check: Sendable, Equatable {
    case accepted
    /// Wrong: counted; `lockout` is the lockout it started (0 for none).
    case wrong(failedAttempts: Int, lockout: Double)
    /// Refused without checking: a lockout has this many seconds left.
    case lockedOut(left: Double)
  }

  /// Checks `passcode` against the stored hash inside an update: refused during a lockout, a wrong one counted, the
  /// right one resets the count.
  func check(_ passcode: String, _ record: inout DeviceRecord, now: Double) throws -> Check {
    let left = record.lockoutLeft(at: now)
    if left > 0 { return .lockedOut(left: left) }
    let hash = try readPasscodeHash()
    let matches: Bool
    if passcode.utf8.count > PasscodeHash.maximumLength {
      matches = false  // none that long can be set
    } else {
      do { matches = try PasscodeHash.verify(passcode, against: hash) } catch {
        throw HostError(
          .dataError, "the passcode file \(passcodeFile.path) does not hold a passcode hash (\(error)); \(resetAdvice)")
      }
    }
    if matches {
      record.recordSuccess()
      return .accepted
    }
    record.recordFailure(at: now)
    return .wrong(failedAttempts: record.failedAttempts, lockout: record.lockoutLeft(at: now))
  }

  /// The refusal for a check that did not accept the passcode (exit 77).
  package static func refusal(_ check: Check) -> HostError? {
    switch check {
    case .accepted: return nil
    case .lockedOut(let left):
      return HostError(.refused, "too many wrong passcodes: try again in \(duration(left))")
    case .wrong(let failures, let lockout):
      let next =
        lockout > 0
        ? "; try again in \(duration(lockout))"
        : failures >= DeviceRecord.freeAttempts - 2
          ? "; \(DeviceRecord.freeAttempts - failures) more before a lockout" : ""
      return HostError(
        .refused, "wrong passcode (\(failures) failed attempt\(failures == 1 ? "" : "s") in a row\(next))")
    }
  }

  // MARK: - Operations

  /// Refuses (77) with the lockout's time left: before a passcode is asked.
  package func refuseDuringLockout() async throws {
    let status = try await offloaded { () throws in try self.status() }
    if let left = status.lockoutLeft {
      throw HostError(.refused, "too many wrong passcodes: try again in \(Self.duration(left))")
    }
  }

  /// Unlocks the device, asking `read` for the passcode only when one is needed (refused first during a lockout):
  /// what `assistant unlock` does, and what the driver does for an intent restricted while locked.
  /// - Throws: `HostError(.refused)` for a wrong passcode or a lockout; what `read` throws (`.valueNeeded` when
  ///   it cannot ask).
  package func unlock(asking read: @Sendable () async throws -> String) async throws {
    let record = try await offloaded { () throws in try self.record() }
    if !record.passcodeRequired(at: clock.now) {
      // Another process may lock the device (or set a passcode) between the read and the update: then the
      // passcode is asked after all.
      do {
        try await offloaded { () throws in _ = try self.unlock(passcode: nil) }
        return
      } catch is PasscodeNeeded {}
    }
    try await refuseDuringLockout()
    let passcode = try await read()
    // An empty line is no attempt (as at a run's prompt): nothing is counted.
    if passcode.isEmpty { throw HostError(.valueNeeded, "no passcode was given; the device stays locked") }
    let check = try await offloaded { () throws in try self.unlock(passcode: passcode) }
    if let refusal = Self.refusal(check) { throw refusal }
  }

  /// Thrown by `unlock(passcode: nil)` when the passcode is required after all (the device's state changed since
  /// it was read): ask for it and unlock with it.
  package struct PasscodeNeeded: Error, Sendable {}

  /// Checks `passcode` for an extension's `host/requestAuthentication`, in one locked update: refused during a
  /// lockout, a wrong one counted as a failed attempt (and may start a lockout), the right one resets the count.
  /// It authorizes one transaction and changes nothing else: a locked device stays locked.
  /// - Throws: `HostError(.noMatch)` when no passcode is set (it was removed meanwhile); what the check throws (a
  ///   passcode file that cannot be read).
  package func authenticate(passcode: String) throws -> Check {
    try update { record, now -> Check in
      guard record.passcodeSet else { throw HostError(.noMatch, "no passcode is set") }
      return try check(passcode, &record, now: now)
    }
  }

  /// Locks the device now (an already locked device keeps its lock time).
  package func lock() throws {
    try update { record, now in record.lock(at: now) }
  }

  /// Unlocks the device. `passcode` is checked only when one is required (locked, set, past the grace period).
  /// - Returns: `.accepted` when unlocked; otherwise what refused it (the failure is recorded).
  /// - Throws: `PasscodeNeeded` when a passcode is required and `passcode` is nil.
  @discardableResult
  package func unlock(passcode: String?) throws -> Check {
    try update { record, now -> Check in
      if record.passcodeRequired(at: now) {
        let left = record.lockoutLeft(at: now)
        if left > 0 { return .lockedOut(left: left) }
        guard let passcode else { throw PasscodeNeeded() }
        let result = try check(passcode, &record, now: now)
        guard result == .accepted else { return result }
      }
      record.unlock(at: now)
      return .accepted
    }
  }

  /// Sets or changes the passcode: `old` must be the current one when one is set.
  package func setPasscode(_ new: String, old: String?) throws -> Check {
    if let problem = PasscodeHash.problem(new) { throw HostError(.usage, problem) }
    let hash: String
    do { hash = try PasscodeHash.make(new) } catch { throw HostError(.usage, "cannot use this passcode: \(error)") }
    return try update { record, now -> Check in
      if record.passcodeSet {
        guard let old else { throw HostError(.refused, "a passcode is set: give the current one to change it") }
        let result = try check(old, &record, now: now)
        guard result == .accepted else { return result }
      }
      try writePasscodeHash(hash)
      record.passcodeSet = true
      record.recordActivity(at: now)
      return .accepted
    }
  }

  /// Removes the passcode: `old` must be the current one.
  package func removePasscode(old: String) throws -> Check {
    try update { record, now -> Check in
      guard record.passcodeSet else { throw HostError(.noMatch, "no passcode is set") }
      let result = try check(old, &record, now: now)
      guard result == .accepted else { return result }
      try removePasscodeHash()
      record.passcodeSet = false
      record.recordActivity(at: now)
      return .accepted
    }
  }

  /// What `changeSettings` changes: nil leaves a setting as it is.
  package struct Settings: Sendable, Equatable {
    /// How long after locking the passcode is not yet required, in seconds (0: immediately).
    package var gracePeriod: Double?
    /// The auto-lock idle time: `.some(nil)` is never.
    package var autoLock: Double??

    package init(gracePeriod: Double? = nil, autoLock: Double?? = nil) {
      self.gracePeriod = gracePeriod
      self.autoLock = autoLock
    }
  }

  /// Changes the grace period and auto-lock; when a passcode is set, `passcode` must be it (as iOS asks it before
  /// its passcode settings).
  /// - Throws: `HostError(.refused)` when a passcode is set and `passcode` is nil.
  package func changeSettings(_ settings: Settings, passcode: String?) throws -> Check {
    try update { record, now -> Check in
      if record.passcodeSet {
        guard let passcode else { throw HostError(.refused, "a passcode is set: it is needed to change the settings") }
        let result = try check(passcode, &record, now: now)
        guard result == .accepted else { return result }
      }
      if let grace = settings.gracePeriod { record.gracePeriod = grace }
      if let autoLock = settings.autoLock { record.autoLock = autoLock }
      record.recordActivity(at: now)
      return .accepted
    }
  }

  /// Sets how long after locking the passcode is not yet required (0: immediately).
  package func setGracePeriod(_ seconds: Double) throws {
    precondition(seconds >= 0)
    try update { record, _ in record.gracePeriod = seconds }
  }

  /// Sets the auto-lock idle time (nil: never).
  package func setAutoLock(_ seconds: Double?) throws {
    precondition(seconds.map { $0 > 0 } ?? true)
    try update { record, now in
      record.autoLock = seconds
      record.recordActivity(at: now)
    }
  }

  // MARK: - The passcode file

  private func stateFolder() throws -> DirectoryDescriptor {
    do { return try DirectoryDescriptor.open(home.state.path) } catch {
      throw HostError(.ioError, "cannot open the host's state folder: \(error)")
    }
  }

  /// The stored hash.
  /// - Throws: `HostError(.dataError)` when the record says a passcode is set but the file is missing or not a
  ///   regular file of its own; `.ioError` when it cannot be read.
  func readPasscodeHash() throws -> String {
    let folder = try stateFolder()
    defer { folder.close() }
    do {
      let fd = try folder.openFile(Self.passcodeName, O_RDONLY)
      defer { fd.close() }
      let status = try fd.status()
      guard status.permissions == 0o600, status.owner == geteuid(), status.linkCount == 1 else {
        throw HostError(
          .dataError,
          "the passcode file \(passcodeFile.path) is mode \(String(status.permissions, radix: 8)) owned by uid "
            + "\(status.owner) with \(status.linkCount) name(s), not 0600, this user's and one name: it was not made by "
            + "the host; \(resetAdvice)")
      }
      let bytes = try fd.readAll(limit: 4096)
      return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    } catch let error as SystemError {
      let kind: ExitStatus = error.code == EIO ? .ioError : .dataError
      throw HostError(kind, "cannot read the passcode file \(passcodeFile.path): \(error); \(resetAdvice)")
    }
  }

  /// Replaces the passcode file with `hash`: a new file of mode 0600 (whatever the umask), written and synced,
  /// renamed over the old one, the folder synced. Nothing is followed: the temporary file is made with `O_EXCL`
  /// beneath the folder's descriptor.
  func writePasscodeHash(_ hash: String) throws {
    let folder = try stateFolder()
    defer { folder.close() }
    let temporary = "." + Self.passcodeName + ".tmp"
    do {
      try Self.removeIfPresent(temporary, in: folder)
      try Self.writeSynced(Array((hash + "\n").utf8), to: temporary, in: folder)
      try folder.rename(temporary, to: Self.passcodeName)
      try folder.synchronize()
    } catch {
      throw HostError(.ioError, "cannot write the passcode file \(passcodeFile.path): \(error)")
    }
  }

  func removePasscodeHash() throws {
    let folder = try stateFolder()
    defer { folder.close() }
    do {
      try Self.removeIfPresent(Self.passcodeName, in: folder)
      try folder.synchronize()
    } catch {
      throw HostError(.ioError, "cannot remove the passcode file \(passcodeFile.path): \(error)")
    }
  }

  private static func removeIfPresent(_ name: String, in folder: DirectoryDescriptor) throws(SystemError) {
    do throws(SystemError) {
      try folder.removeFile(name)
    } catch {
      if error.code != ENOENT { throw error }
    }
  }

  /// Makes `name` (mode 0600 exactly, refused if it exists), writes `bytes` and syncs them.
  private static func writeSynced(_ bytes: [UInt8], to name: String, in folder: DirectoryDescriptor)
    throws(SystemError)
  {
    let fd = try folder.openFile(name, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
    defer { fd.close() }
    try fd.changeMode(0o600)
    try fd.writeAll(bytes)
    if fsync(fd.rawValue) != 0 { throw SystemError.current("fsync", folder.path(of: name)) }
  }

  // MARK: - Text

  /// A duration for messages: "45 s", "4 min 12 s", "1 h 5 min"; whole seconds, rounded up.
  package static func duration(_ seconds: Double) -> String {
    let total = seconds.isFinite ? Int(min(max(seconds, 0), 1e9).rounded(.up)) : 0
    let hours = total / 3600
    let minutes = total % 3600 / 60
    let rest = total % 60
    if hours > 0 { return minutes > 0 ? "\(hours) h \(minutes) min" : "\(hours) h" }
    if minutes > 0 { return rest > 0 ? "\(minutes) min \(rest) s" : "\(minutes) min" }
    return "\(rest) s"
  }
}
