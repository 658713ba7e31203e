import AssistantHost
import Dispatch
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

/// The device state as the lock commands change it, for checking what concurrent commands did: no grace period, no
/// auto-lock and no lockout (the tests set auto-lock to never and keep below five wrong passcodes in a row).
struct DeviceModel: Hashable, CustomStringConvertible {
  var locked: Bool
  var failures: Int

  var description: String { "\(locked ? "locked" : "unlocked"), \(failures) failed" }

  /// What a command was asked to do.
  enum Operation: Hashable, CustomStringConvertible {
    case lock
    /// `unlock` given the right passcode, or a wrong one.
    case unlock(right: Bool)

    var description: String {
      switch self {
      case .lock: "lock"
      case .unlock(let right): right ? "unlock(right)" : "unlock(wrong)"
      }
    }
  }

  /// How it ended.
  enum Outcome: Hashable {
    /// `lock` exited 0.
    case locked
    /// `unlock` exited 0.
    case unlocked
    /// `unlock` exited 77, "wrong passcode (N failed attempts in a row)": counted, N in a row now. (An `unlock` that
    /// found the device unlocked and then locked by another process asks for the passcode after all, so it ends in
    /// one of these too.)
    case wrong(failures: Int)
  }

  /// What `operation` does to this state as one atomic step, when it ended with `outcome`; nil when it cannot have
  /// ended so from this state.
  func after(_ operation: Operation, _ outcome: Outcome) -> DeviceModel? {
    switch (operation, outcome) {
    case (.lock, .locked):
      return DeviceModel(locked: true, failures: failures)
    case (.unlock, .unlocked) where !locked:
      return self  // nothing to check
    case (.unlock(right: true), .unlocked):
      return DeviceModel(locked: false, failures: 0)
    case (.unlock(right: false), .wrong(let count)) where locked && count == failures + 1:
      return DeviceModel(locked: true, failures: count)
    default:
      return nil
    }
  }

  /// Whether some serial order of `history` (each command one atomic step, in any order) takes `start` to `end`
  /// with every command ending as it did: what updates made under one lock guarantee, and what a lost update breaks
  /// (two wrong passcodes that both say "1 failed attempt", a count lower than the wrong ones since the last right).
  static func hasSerialOrder(from start: DeviceModel, _ history: [(Operation, Outcome)], to end: DeviceModel) -> Bool {
    precondition(history.count < 20)
    var tried = Set<[Int]>()  // (the steps taken as a bit set, locked, failures) already found to lead nowhere
    func search(_ state: DeviceModel, _ done: Int) -> Bool {
      if done == (1 << history.count) - 1 { return state == end }
      guard tried.insert([done, state.locked ? 1 : 0, state.failures]).inserted else { return false }
      for (index, (operation, outcome)) in history.enumerated() where done & (1 << index) == 0 {
        if let next = state.after(operation, outcome), search(next, done | (1 << index)) { return true }
      }
      return false
    }
    return search(start, 0)
  }
}

/// Two or more host processes locking, unlocking and failing attempts at once leave a consistent state: every
/// command is one locked update of `State/device.json`, so what they did has a serial order (`DeviceModel`). The
/// control, in-process, runs the same race with the record's lock off and a window held open, and loses an update
/// that the same check catches.
@Suite(.serialized, .tags(.endToEnd))
struct DeviceConcurrencyTests {
  static let passcode = "2468"

  struct Status: Decodable {
    var locked: Bool
    var passcodeSet: Bool
    var failedAttempts: Int
    var lockoutLeft: Double?
  }

  /// A host with the passcode set and auto-lock off (a slow run must not lock the device by itself).
  func preparedHost() async throws -> HostFixture {
    let host = try HostFixture()
    let set = try await host.assistant(["passcode", "set", "--passcode-stdin"], input: Self.passcode + "\n")
    #expect(set.code == 0, "\(set)")
    let never = try await host.assistant(
      ["passcode", "settings", "--auto-lock", "never", "--passcode-stdin"], input: Self.passcode + "\n")
    #expect(never.code == 0, "\(never)")
    return host
  }

  /// The state as `status --json` reads it (a corrupt record fails it), with no lockout.
  func model(_ host: HostFixture) async throws -> DeviceModel {
    let result = try await host.assistant(["status", "--json"])
    #expect(result.code == 0, "\(result)")
    let status = try JSONDecoder().decode(Status.self, from: Data(result.stdout.utf8))
    #expect(status.passcodeSet && status.lockoutLeft == nil, "\(result)")
    return DeviceModel(locked: status.locked, failures: status.failedAttempts)
  }

  /// The files besides the record's content: the checkpoint, when there is one, is a JSON object of schema 1; the
  /// passcode file is as `passcode set` wrote it, mode 0600.
  func checkFiles(_ host: HostFixture, passcodeFile expected: Data) throws {
    let record = host.home + "/State/device.json"
    if FileManager.default.fileExists(atPath: record) {
      let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record)))
      #expect((object as? [String: Any])?["schemaVersion"] as? Int == 1, "\(object)")
    }
    let passcode = host.home + "/State/passcode"
    #expect(try Data(contentsOf: URL(fileURLWithPath: passcode)) == expected)
    let mode = try FileManager.default.attributesOfItem(atPath: passcode)[.posixPermissions] as? Int
    #expect(mode == 0o600)
  }

  /// Runs `operation` as a host process and says how it ended; nil (and an issue) for an ending no command should
  /// have.
  func run(_ operation: DeviceModel.Operation, _ host: HostFixture) async throws -> DeviceModel.Outcome? {
    switch operation {
    case .lock:
      let result = try await host.assistant(["lock"])
      #expect(result.code == 0, "\(result)")
      return result.code == 0 ? .locked : nil
    case .unlock(let right):
      let result = try await host.assistant(
        ["unlock", "--passcode-stdin"], input: (right ? Self.passcode : "1357") + "\n")
      let outcome = Self.outcome(of: result)
      #expect(outcome != nil, "\(result)")
      return outcome
    }
  }

  static func outcome(of unlock: CommandResult) -> DeviceModel.Outcome? {
    if unlock.code == 0 { return .unlocked }
    guard unlock.code == 77 else { return nil }
    guard let range = unlock.stderr.range(of: "wrong passcode (") else { return nil }
    let count = unlock.stderr[range.upperBound...].prefix { $0.isNumber }
    return Int(count).map { .wrong(failures: $0) }
  }

  /// Runs every operation as its own host process, all at once.
  func runAtOnce(
    _ operations: [DeviceModel.Operation], _ host: HostFixture
  ) async throws -> [(DeviceModel.Operation, DeviceModel.Outcome)] {
    try await withThrowingTaskGroup(of: (DeviceModel.Operation, DeviceModel.Outcome?).self) { group in
      for operation in operations {
        group.addTask { (operation, try await run(operation, host)) }
      }
      var history: [(DeviceModel.Operation, DeviceModel.Outcome)] = []
      for try await (operation, outcome) in group {
        if let outcome { history.append((operation, outcome)) }
      }
      return history
    }
  }

  /// Locks and wrong passcodes only, on a locked device: every wrong one is counted, once (the counts they report
  /// are 1 to 4, each once), and the device stays locked; then the right passcode unlocks and resets the count.
  @Test func locksAndWrongPasscodesAtOnceCountEveryWrongOne() async throws {
    let host = try await preparedHost()
    defer { host.directory.remove() }
    let passcodeFile = try Data(contentsOf: URL(fileURLWithPath: host.home + "/State/passcode"))
    for round in 1...4 {
      #expect(try await host.assistant(["lock"]).code == 0)
      let history = try await runAtOnce(
        [
          .lock, .unlock(right: false), .lock, .unlock(right: false), .unlock(right: false), .lock,
          .unlock(right: false), .lock,
        ], host)
      let counts = history.compactMap { if case .wrong(let count) = $0.1 { count } else { nil } }
      #expect(counts.sorted() == [1, 2, 3, 4], "round \(round): \(history)")
      #expect(history.count == 8, "round \(round): \(history)")
      #expect(try await model(host) == DeviceModel(locked: true, failures: 4), "round \(round)")
      try checkFiles(host, passcodeFile: passcodeFile)

      let right = try await host.assistant(["unlock", "--passcode-stdin"], input: Self.passcode + "\n")
      #expect(right.code == 0, "\(right)")
      #expect(try await model(host) == DeviceModel(locked: false, failures: 0), "round \(round)")
    }
  }

  /// Locks, right and wrong passcodes at once, from a locked and from an unlocked device: what the processes say
  /// and the state they leave have a serial order.
  @Test func locksAndUnlocksAtOnceHaveASerialOrder() async throws {
    let host = try await preparedHost()
    defer { host.directory.remove() }
    let passcodeFile = try Data(contentsOf: URL(fileURLWithPath: host.home + "/State/passcode"))
    // (locks, right passcodes, wrong passcodes): at most four wrong ones, so that no lockout starts.
    let mixes = [(2, 2, 4), (3, 1, 4), (1, 3, 4), (4, 1, 3), (2, 3, 3), (1, 1, 4)]
    for (index, (locks, rights, wrongs)) in mixes.enumerated() {
      for startLocked in [true, false] {
        if startLocked { #expect(try await host.assistant(["lock"]).code == 0) }
        let start = DeviceModel(locked: startLocked, failures: 0)
        #expect(try await model(host) == start)
        // The kinds interleaved (lock, right, wrong, lock, ...), then turned by the round, so that each starts
        // early in some round.
        var kinds: [(DeviceModel.Operation, Int)] = [
          (.lock, locks), (.unlock(right: true), rights), (.unlock(right: false), wrongs),
        ]
        var operations: [DeviceModel.Operation] = []
        while kinds.contains(where: { $0.1 > 0 }) {
          for kind in kinds.indices where kinds[kind].1 > 0 {
            operations.append(kinds[kind].0)
            kinds[kind].1 -= 1
          }
        }
        let turn = index % operations.count
        operations = Array(operations[turn...] + operations[..<turn])
        let history = try await runAtOnce(operations, host)
        #expect(history.count == operations.count)
        let end = try await model(host)
        #expect(
          DeviceModel.hasSerialOrder(from: start, history, to: end),
          "no serial order takes \(start) to \(end) with \(history)")
        try checkFiles(host, passcodeFile: passcodeFile)

        if end.locked {
          let right = try await host.assistant(["unlock", "--passcode-stdin"], input: Self.passcode + "\n")
          #expect(right.code == 0, "\(right)")
        }
      }
    }
  }

  /// A history made by hand for the check itself, and whether it has a serial order.
  struct HandMade: Sendable, CustomTestStringConvertible {
    var start: DeviceModel
    var history: [(DeviceModel.Operation, DeviceModel.Outcome)]
    var end: DeviceModel
    var ordered: Bool
    var testDescription: String { "\(start) \(history.map { "\($0.0)=\($0.1)" }) \(end)" }
  }

  static let locked = DeviceModel(locked: true, failures: 0)
  static let unlocked = DeviceModel(locked: false, failures: 0)
  static let handMade: [HandMade] = [
    HandMade(
      start: locked,
      history: [(.unlock(right: false), .wrong(failures: 1)), (.unlock(right: false), .wrong(failures: 2))],
      end: DeviceModel(locked: true, failures: 2), ordered: true),
    // Lost updates: both say 1; or one count skipped.
    HandMade(
      start: locked,
      history: [(.unlock(right: false), .wrong(failures: 1)), (.unlock(right: false), .wrong(failures: 1))],
      end: DeviceModel(locked: true, failures: 1), ordered: false),
    HandMade(
      start: locked,
      history: [(.unlock(right: false), .wrong(failures: 1)), (.unlock(right: false), .wrong(failures: 1))],
      end: DeviceModel(locked: true, failures: 2), ordered: false),
    HandMade(
      start: locked, history: [(.unlock(right: false), .wrong(failures: 2))],
      end: DeviceModel(locked: true, failures: 2),
      ordered: false),
    // The wrong passcode came after the right one, on an unlocked device: nothing to check, nothing counted.
    HandMade(
      start: locked, history: [(.unlock(right: true), .unlocked), (.unlock(right: false), .unlocked)], end: unlocked,
      ordered: true),
    // A count left after the right passcode.
    HandMade(
      start: locked, history: [(.unlock(right: false), .wrong(failures: 1)), (.unlock(right: true), .unlocked)],
      end: DeviceModel(locked: false, failures: 1), ordered: false),
    // A lost lock.
    HandMade(start: unlocked, history: [(.lock, .locked)], end: unlocked, ordered: false),
    // A wrong passcode counted only while locked.
    HandMade(
      start: unlocked,
      history: [(.unlock(right: true), .unlocked), (.lock, .locked), (.unlock(right: false), .wrong(failures: 1))],
      end: DeviceModel(locked: true, failures: 1), ordered: true),
    HandMade(
      start: unlocked, history: [(.unlock(right: false), .wrong(failures: 1))],
      end: DeviceModel(locked: false, failures: 1), ordered: false),
  ]

  @Test(arguments: handMade) func theSerialOrderCheck(_ made: HandMade) {
    #expect(DeviceModel.hasSerialOrder(from: made.start, made.history, to: made.end) == made.ordered)
  }

  // MARK: - The control: the same check catches a lost update

  /// Whether a process waits for an `flock` of `path`: a line `N: -> FLOCK ... MAJOR:MINOR:INODE ...` of
  /// `/proc/locks`.
  static func someoneWaitsToLock(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    let device = UInt64(info.st_dev)
    let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
    let minor = (device & 0xff) | ((device >> 12) & ~0xff)
    let file = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(info.st_ino))
    guard let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
    return locks.split(separator: "\n").contains { line in
      line.contains("->") && line.split(separator: " ").contains { $0 == file }
    }
  }

  /// Two wrong passcodes at once in this process, each its own `DeviceState` (so its own descriptors, as two
  /// processes have): the first is held inside its update, after it read the record, until the second has either
  /// finished or is waiting for the record's lock. With the lock the second waits, and both are counted; without
  /// it the second finishes inside the first's window, and the first writes over it.
  func twoWrongPasscodes(lockingDisabled: Bool) async throws -> (
    history: [(DeviceModel.Operation, DeviceModel.Outcome)], end: DeviceModel
  ) {
    let directory = try TemporaryDirectory("intenthost-race")
    defer { directory.remove() }
    let device = DeviceState(home: try AssistantHome(root: directory.file("home").path), clock: HostClock())
    let set = try await offThePool { () throws in
      let set = try device.setPasscode(Self.passcode, old: nil)
      try device.setAutoLock(nil)
      try device.lock()
      return set
    }
    #expect(set == .accepted)
    let lockFile = device.home.state.appendingPathComponent(".device.json.lock").path

    let firstHasRead = DispatchSemaphore(value: 0)
    let race = RaceFlags()
    var held = device
    held.lockingDisabled = lockingDisabled
    held.afterReading = {
      firstHasRead.signal()
      let deadline = ContinuousClock.now + .seconds(60)
      while !race.secondDone.load(ordering: .acquiring) && !Self.someoneWaitsToLock(lockFile) {
        if ContinuousClock.now > deadline {
          race.heldTooLong.store(true, ordering: .relaxed)
          return
        }
        usleep(1000)
      }
    }
    var other = device
    other.lockingDisabled = lockingDisabled
    let (first, second) = (held, other)
    async let firstCheck = offThePool { () throws in try first.unlock(passcode: "1357") }
    async let secondCheck = offThePool { () throws in
      _ = firstHasRead.wait(timeout: .now() + 60)
      defer { race.secondDone.store(true, ordering: .releasing) }
      return try second.unlock(passcode: "1357")
    }
    let checks = try await [firstCheck, secondCheck]
    let gaveUp = race.heldTooLong.load(ordering: .relaxed)
    #expect(!gaveUp, "the second attempt neither finished nor waited for the lock")
    #expect(checks.allSatisfy { if case .wrong = $0 { true } else { false } }, "\(checks)")
    let history = checks.compactMap { check -> (DeviceModel.Operation, DeviceModel.Outcome)? in
      guard case .wrong(let count, _) = check else { return nil }
      return (.unlock(right: false), .wrong(failures: count))
    }
    let record = try await offThePool { () throws in try device.record() }
    return (history, DeviceModel(locked: record.lockedAt != nil, failures: record.failedAttempts))
  }

  /// What the two attempts of `twoWrongPasscodes` share.
  final class RaceFlags: Sendable {
    /// The second attempt returned (or threw).
    let secondDone = Atomic(false)
    /// The first gave up waiting for the second.
    let heldTooLong = Atomic(false)
  }

  @Test func withTheLockTwoWrongPasscodesAtOnceAreBothCounted() async throws {
    let (history, end) = try await twoWrongPasscodes(lockingDisabled: false)
    #expect(end == DeviceModel(locked: true, failures: 2))
    #expect(DeviceModel.hasSerialOrder(from: DeviceModel(locked: true, failures: 0), history, to: end), "\(history)")
  }

  /// The control: without the lock, the same schedule loses the second attempt, and the check says so.
  @Test func withoutTheLockAFailedAttemptIsLost() async throws {
    let (history, end) = try await twoWrongPasscodes(lockingDisabled: true)
    #expect(end == DeviceModel(locked: true, failures: 1), "lost: one of two wrong passcodes")
    #expect(history.map(\.1) == [.wrong(failures: 1), .wrong(failures: 1)])
    #expect(!DeviceModel.hasSerialOrder(from: DeviceModel(locked: true, failures: 0), history, to: end))
  }
}
