import AppGroupStore
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

/// The device's lock state: the derived facts as pure functions of (record, now), the escalation of lockouts, and the
/// record and passcode file in a home, shared by every `DeviceState` that opens it.
@Suite(.tags(.unit))
struct DeviceStateTests {
  /// A record locked at t = 1000 with a passcode.
  static func locked(grace: Double = 0, autoLock: Double? = 300) -> DeviceRecord {
    var record = DeviceRecord()
    record.passcodeSet = true
    record.lockedAt = 1000
    record.gracePeriod = grace
    record.autoLock = autoLock
    record.lastActivity = 900
    return record
  }

  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var record: DeviceRecord
    var now: Double
    var locked: Bool
    var passcodeRequired: Bool
    var graceLeft: Double?
    var protectedData: Bool
    var testDescription: String { name }
  }

  static let cases: [Case] = {
    var unlocked = DeviceRecord()
    unlocked.passcodeSet = true
    unlocked.lastActivity = 1000
    var noPasscode = locked()
    noPasscode.passcodeSet = false
    var never = unlocked
    never.autoLock = nil
    return [
      Case(
        name: "unlocked, recently used", record: unlocked, now: 1200, locked: false, passcodeRequired: false,
        graceLeft: nil, protectedData: true),
      Case(
        name: "auto-locked after 5 min idle, at once", record: unlocked, now: 1300, locked: true,
        passcodeRequired: true, graceLeft: nil, protectedData: true),
      Case(
        name: "auto-locked, past 10 s", record: unlocked, now: 1310, locked: true, passcodeRequired: true,
        graceLeft: nil, protectedData: false),
      Case(
        name: "auto-lock never", record: never, now: 100_000, locked: false, passcodeRequired: false, graceLeft: nil,
        protectedData: true),
      Case(
        name: "locked, grace immediately, 9 s", record: locked(), now: 1009, locked: true, passcodeRequired: true,
        graceLeft: nil, protectedData: true),
      Case(
        name: "locked, grace immediately, 10 s", record: locked(), now: 1010, locked: true, passcodeRequired: true,
        graceLeft: nil, protectedData: false),
      Case(
        name: "locked within a 60 s grace", record: locked(grace: 60), now: 1030, locked: true,
        passcodeRequired: false, graceLeft: 30, protectedData: true),
      Case(
        name: "locked past a 60 s grace", record: locked(grace: 60), now: 1060, locked: true, passcodeRequired: true,
        graceLeft: nil, protectedData: false),
      Case(
        name: "locked without a passcode", record: noPasscode, now: 5000, locked: true, passcodeRequired: false,
        graceLeft: nil, protectedData: true),
    ]
  }()

  @Test(arguments: cases) func derivedFacts(_ test: Case) {
    #expect(test.record.isLocked(at: test.now) == test.locked)
    #expect(test.record.passcodeRequired(at: test.now) == test.passcodeRequired)
    #expect(test.record.graceLeft(at: test.now) == test.graceLeft)
    #expect(test.record.protectedDataAvailable(at: test.now) == test.protectedData)
  }

  @Test(arguments: [(4, 0.0), (5, 60), (6, 300), (7, 900), (8, 3600), (12, 3600), (0, 0)])
  func escalation(failures: Int, lockout: Double) {
    #expect(DeviceRecord.lockout(afterFailures: failures) == lockout)
  }

  @Test func failuresThenSuccess() {
    var record = Self.locked()
    for _ in 1...4 { record.recordFailure(at: 2000) }
    #expect(record.lockoutLeft(at: 2000) == 0)
    record.recordFailure(at: 2000)
    #expect(record.lockoutLeft(at: 2000) == 60)
    #expect(record.lockoutLeft(at: 2030) == 30)
    #expect(record.lockoutLeft(at: 2060) == 0)
    record.recordFailure(at: 2060)
    #expect(record.lockoutLeft(at: 2060) == 300)
    record.recordSuccess()
    #expect(record.failedAttempts == 0 && record.lockoutLeft(at: 2060) == 0)
  }

  @Test func settleKeepsAnAutoLock() {
    var record = DeviceRecord()
    record.lastActivity = 1000
    record.settle(at: 1400)
    #expect(record.lockedAt == 1300)
    record.autoLock = nil
    #expect(record.isLocked(at: 1400))
    record.recordActivity(at: 1400)  // use while locked does not postpone anything
    #expect(record.lastActivity == 1000)
  }

  @Test func recordRoundTrip() throws {
    var record = Self.locked(grace: 60, autoLock: nil)
    record.recordFailure(at: 1000)
    let data = try JSONEncoder().encode(record)
    #expect(String(decoding: data, as: UTF8.self).contains("\"never\""))
    #expect(try JSONDecoder().decode(DeviceRecord.self, from: data) == record)
    #expect(try JSONDecoder().decode(DeviceRecord.self, from: Data("{}".utf8)) == DeviceRecord())
  }

  @Test func durations() {
    #expect(DeviceState.duration(0.2) == "1 s")
    #expect(DeviceState.duration(59) == "59 s")
    #expect(DeviceState.duration(60) == "1 min")
    #expect(DeviceState.duration(252) == "4 min 12 s")
    #expect(DeviceState.duration(3600) == "1 h")
    #expect(DeviceState.duration(3900) == "1 h 5 min")
  }

  @Test func clockOffset() throws {
    #expect(try HostClock(environment: ["INTENTHOST_CLOCK_OFFSET": "-60.5"]).offset == -60.5)
    #expect(try HostClock(environment: [:]).offset == 0)
    #expect(throws: HostError.self) { try HostClock(environment: ["INTENTHOST_CLOCK_OFFSET": "soon"]) }
    for extreme in ["1e300", "-1e300", "nan", "inf", "1000000001"] {
      #expect(throws: HostError.self) { try HostClock(environment: ["INTENTHOST_CLOCK_OFFSET": extreme]) }
    }
  }

  // MARK: - In a home

  struct Scene {
    let directory: TemporaryDirectory
    let home: AssistantHome

    init() throws {
      directory = try TemporaryDirectory("intenthost-device")
      home = try AssistantHome(root: directory.file("home").path, environment: [:])
    }

    func device(offset: Double = 0) -> DeviceState { DeviceState(home: home, clock: HostClock(offset: offset)) }
  }

  @Test func newHomeIsUnlockedAndMakesNothing() throws {
    let scene = try Scene()
    let status = try scene.device().status()
    #expect(!status.locked && !status.passcodeSet && status.protectedData && status.failedAttempts == 0)
    #expect(!FileManager.default.fileExists(atPath: scene.home.root.path))
  }

  @Test func passcodeFileAndPersistence() throws {
    let scene = try Scene()
    #expect(try scene.device().setPasscode("1234", old: nil) == .accepted)
    let info = try FileManager.default.attributesOfItem(atPath: scene.device().passcodeFile.path)
    #expect((info[.posixPermissions] as? Int) == 0o600)
    let text = try String(contentsOfFile: scene.device().passcodeFile.path, encoding: .utf8)
    #expect(text.hasPrefix("$y$") && !text.contains("1234"))
    try scene.device().lock()
    // Another DeviceState (as another process would) reads what the first wrote.
    let second = scene.device(offset: 20)
    #expect(try second.status().locked && !second.status().protectedData)
    #expect(DeviceState.refusal(try second.unlock(passcode: "0000")) != nil)
    #expect(try scene.device().status().failedAttempts == 1)
    #expect(try scene.device().unlock(passcode: "1234") == .accepted)
    let after = try scene.device().status()
    #expect(!after.locked && after.failedAttempts == 0)
  }

  @Test func changeAndRemoveNeedTheOldPasscode() throws {
    let scene = try Scene()
    let device = scene.device()
    _ = try device.setPasscode("1111", old: nil)
    #expect(throws: HostError.self) { try device.setPasscode("2222", old: nil) }
    #expect(try device.setPasscode("2222", old: "9999") != .accepted)
    #expect(try device.setPasscode("2222", old: "1111") == .accepted)
    #expect(try device.removePasscode(old: "1111") != .accepted)
    #expect(try device.removePasscode(old: "2222") == .accepted)
    #expect(!FileManager.default.fileExists(atPath: device.passcodeFile.path))
    #expect(try !device.status().passcodeSet)
  }

  @Test func lockoutRefusesEvenTheRightPasscode() throws {
    let scene = try Scene()
    _ = try scene.device().setPasscode("1234", old: nil)
    try scene.device().lock()
    for attempt in 1...5 {
      let check = try scene.device().unlock(passcode: "0000")
      #expect(check == .wrong(failedAttempts: attempt, lockout: attempt == 5 ? 60 : 0))
    }
    guard case .lockedOut(let left) = try scene.device(offset: 30).unlock(passcode: "1234") else {
      Issue.record("the right passcode was not refused during the lockout")
      return
    }
    #expect(left > 0 && left <= 30)
    #expect(try scene.device().status().failedAttempts == 5)  // refused attempts are not counted
    #expect(try scene.device(offset: 61).unlock(passcode: "1234") == .accepted)
  }

  @Test func withinGraceNoPasscodeIsNeeded() throws {
    let scene = try Scene()
    _ = try scene.device().setPasscode("1234", old: nil)
    try scene.device().setGracePeriod(60)
    try scene.device().lock()
    #expect(try scene.device(offset: 30).unlock(passcode: nil) == .accepted)
    try scene.device().lock()
    // The control: past the grace period the passcode is needed.
    #expect(throws: DeviceState.PasscodeNeeded.self) { try scene.device(offset: 61).unlock(passcode: nil) }
  }

  /// The unlock flow asks for the passcode only when one is needed, and never during a lockout.
  @Test func unlockAsksOnlyWhenNeeded() async throws {
    let scene = try Scene()
    let asked = Mutex(0)
    let reader: @Sendable () async throws -> String = {
      asked.withLock { $0 += 1 }
      return "1234"
    }
    try scene.device().lock()
    try await scene.device().unlock(asking: reader)  // no passcode set: nothing to ask
    #expect(asked.withLock { $0 } == 0)
    _ = try scene.device().setPasscode("1234", old: nil)
    try scene.device().lock()
    try await scene.device().unlock(asking: reader)  // the control: now it is needed
    #expect(asked.withLock { $0 } == 1)
    try scene.device().lock()
    for _ in 1...5 { _ = try scene.device().unlock(passcode: "0") }
    await #expect(throws: HostError.self) { try await scene.device().unlock(asking: reader) }
    #expect(asked.withLock { $0 } == 1)
  }

  /// Threads failing attempts at once, each through its own `DeviceState`: every failure is counted (the locked
  /// update), and the count is consistent with the lockout.
  @Test func concurrentFailuresAreAllCounted() throws {
    let scene = try Scene()
    _ = try scene.device().setPasscode("1234", old: nil)
    try scene.device().lock()
    let threads = 4
    let done = Mutex(0)
    let errors = Mutex([String]())
    for _ in 0..<threads {
      detachThread {
        do { _ = try scene.device().unlock(passcode: "0000") } catch {
          errors.withLock { $0.append("\(error)") }
        }
        done.withLock { $0 += 1 }
      }
    }
    while done.withLock({ $0 }) < threads { usleep(10_000) }
    #expect(errors.withLock { $0 } == [])
    #expect(try scene.device().status().failedAttempts == threads)
  }

  // MARK: - Hostile or damaged state (the reviewer's findings)

  /// Values out of range in the record are a corrupt record (65), never a crash.
  @Test(arguments: [
    Planted(doubles: ["lockoutUntil": 1e300], ints: ["failedAttempts": 5]),
    Planted(ints: ["failedAttempts": Int.max]), Planted(ints: ["failedAttempts": -1_000_000]),
    Planted(doubles: ["gracePeriod": -5]), Planted(doubles: ["gracePeriod": 1e19]), Planted(doubles: ["autoLock": 0]),
    Planted(doubles: ["lockedAt": -1]),
  ])
  func anOutOfRangeRecordIsCorrupt(_ planted: Planted) throws {
    let scene = try Scene()
    let device = scene.device()
    try device.lock()  // makes the record
    // The hostile content, committed through the store (as a planted journal would hold it).
    try Document<Planted>(path: device.recordFile.path).update { $0 = planted }
    do {
      _ = try device.status()
      Issue.record("a record with \(planted) was accepted")
    } catch let error as HostError {
      #expect(error.status == .dataError, "\(error.message)")
    }
    #expect(throws: HostError.self) { try device.unlock(passcode: "0000") }
  }

  /// A lost record beside a passcode file fails closed: a passcode, locked, the passcode needed. The control: with
  /// the passcode file gone too, a new unlocked device.
  @Test func aLostRecordFailsClosed() throws {
    let scene = try Scene()
    let device = scene.device()
    #expect(try device.setPasscode("1234", old: nil) == .accepted)
    let state = scene.home.state.path
    for name in try FileManager.default.contentsOfDirectory(atPath: state) where name.contains("device.json") {
      try FileManager.default.removeItem(atPath: state + "/" + name)
    }
    let lost = try device.status()
    #expect(lost.passcodeSet && lost.locked && !lost.protectedData)
    #expect(throws: DeviceState.PasscodeNeeded.self) { try device.unlock(passcode: nil) }
    #expect(throws: HostError.self) { try device.setPasscode("9999", old: nil) }  // the old one is asked
    #expect(try device.unlock(passcode: "1234") == .accepted)
    #expect(try !device.status().locked)
    try FileManager.default.removeItem(atPath: device.passcodeFile.path)
    for name in try FileManager.default.contentsOfDirectory(atPath: state) where name.contains("device.json") {
      try FileManager.default.removeItem(atPath: state + "/" + name)
    }
    #expect(try !device.status().passcodeSet)
  }

  /// A passcode file the host did not make (another mode, a weaker hash) is refused (65) and nothing is counted.
  @Test func aPlantedPasscodeFileIsRefused() throws {
    let scene = try Scene()
    let device = scene.device()
    #expect(try device.setPasscode("1234", old: nil) == .accepted)
    try device.lock()
    chmod(device.passcodeFile.path, 0o666)
    #expect(throws: HostError.self) { try device.unlock(passcode: "1234") }
    chmod(device.passcodeFile.path, 0o600)
    #expect(try device.unlock(passcode: "1234") == .accepted)  // the control
    try device.lock()
    // A DES-format hash (what libcrypt would also read): not what the host writes.
    try "abPAAL5nFFnW2\n".write(toFile: device.passcodeFile.path, atomically: false, encoding: .utf8)
    chmod(device.passcodeFile.path, 0o600)
    do {
      _ = try device.unlock(passcode: "1234")
      Issue.record("a DES hash was accepted")
    } catch let error as HostError {
      #expect(error.status == .dataError && error.message.contains("does not hold a passcode hash"), "\(error)")
    }
    // `status` reports it too (65), and nothing was counted.
    #expect(throws: HostError.self) { try device.status() }
    #expect(try device.update { record, _ in record.failedAttempts } == 0)
  }

  /// Passcodes that cannot be set: too long, not UTF-8. At unlock, a too long one is simply wrong (counted).
  @Test func passcodeLimits() throws {
    let scene = try Scene()
    let device = scene.device()
    #expect(throws: HostError.self) { try device.setPasscode(String(repeating: "7", count: 300), old: nil) }
    #expect(throws: HostError.self) { try device.setPasscode("12\u{FFFD}4", old: nil) }
    #expect(try device.setPasscode(String(repeating: "7", count: 256), old: nil) == .accepted)
    try device.lock()
    #expect(try device.unlock(passcode: String(repeating: "7", count: 600)) == .wrong(failedAttempts: 1, lockout: 0))
  }

  /// A lock time in the future (a clock stepped back) counts as long ago: the passcode needed, protected data
  /// gone, no grace period. The control: the same lock in the past is within its grace period.
  @Test func aFutureLockTimeCountsAsLongAgo() throws {
    var record = DeviceRecord()
    record.passcodeSet = true
    record.gracePeriod = 60
    record.lockedAt = 5000
    #expect(record.graceLeft(at: 1000) == nil)
    #expect(record.passcodeRequired(at: 1000) && !record.protectedDataAvailable(at: 1000))
    #expect(record.graceLeft(at: 5010) == 50)  // the control
    record.failedAttempts = 5
    record.lockoutUntil = 1e9
    #expect(record.lockoutLeft(at: 1000) == 60)
  }
}

/// A device record's content with values `DeviceRecord` would never write.
struct Planted: DocumentContent, CustomStringConvertible {
  static let schemaVersion = 1
  var doubles: [String: Double] = [:]
  var ints: [String: Int] = [:]
  init() {}
  init(doubles: [String: Double] = [:], ints: [String: Int] = [:]) {
    self.doubles = doubles
    self.ints = ints
  }
  init(from decoder: any Decoder) throws {}
  struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(true, forKey: Key(stringValue: "passcodeSet"))
    for (key, value) in doubles { try container.encode(value, forKey: Key(stringValue: key)) }
    for (key, value) in ints { try container.encode(value, forKey: Key(stringValue: key)) }
  }
  var description: String { "\(doubles) \(ints)" }
}
