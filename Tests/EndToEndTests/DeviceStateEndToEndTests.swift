import Foundation
import TestSupport
import Testing

/// The device's lock state through the real binary: `passcode`, `lock`, `unlock` and `status` with
/// `--passcode-stdin`, and `INTENTHOST_CLOCK_OFFSET` to step past lockouts without sleeping.
@Suite(.tags(.endToEnd))
struct DeviceStateEndToEndTests {
  struct Status: Decodable, Equatable {
    var locked: Bool
    var passcodeSet: Bool
    var graceLeft: Double?
    var protectedData: Bool
    var failedAttempts: Int
    var lockoutLeft: Double?
  }

  func status(_ host: HostFixture, offset: Int = 0) async throws -> Status {
    let result = try await host.assistant(
      ["status", "--json"], environment: ["INTENTHOST_CLOCK_OFFSET": String(offset)])
    #expect(result.code == 0, "\(result)")
    return try JSONDecoder().decode(Status.self, from: Data(result.stdout.utf8))
  }

  @Test func passcodeLockLockoutAndUnlock() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let fresh = try await status(host)
    #expect(!fresh.locked && !fresh.passcodeSet && fresh.protectedData && fresh.failedAttempts == 0)

    let set = try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n")
    #expect(set.code == 0, "\(set)")
    let file = host.home + "/State/passcode"
    let info = try FileManager.default.attributesOfItem(atPath: file)
    #expect((info[.posixPermissions] as? Int) == 0o600)
    let hash = try String(contentsOfFile: file, encoding: .utf8)
    #expect(hash.hasPrefix("$y$") && !hash.contains("2468"))

    #expect(try await host.assistant(["lock"]).code == 0)
    #expect(try await status(host).locked)
    #expect(try await !status(host, offset: 11).protectedData)

    // No terminal and no --passcode-stdin: the passcode cannot be asked (75), and nothing is counted.
    let unasked = try await host.assistant(["unlock"])
    #expect(unasked.code == 75, "\(unasked)")
    #expect(unasked.stderr.contains("--passcode-stdin"))
    #expect(try await status(host).failedAttempts == 0)

    for attempt in 1...5 {
      let wrong = try await host.assistant(["unlock", "--passcode-stdin"], input: "1111\n")
      #expect(wrong.code == 77, "\(wrong)")
      #expect(wrong.stderr.contains("wrong passcode (\(attempt) failed attempt"))
    }
    let lockedOut = try await status(host)
    #expect(lockedOut.failedAttempts == 5 && lockedOut.locked)
    #expect((lockedOut.lockoutLeft ?? 0) > 0 && (lockedOut.lockoutLeft ?? 0) <= 60)

    // During the lockout even the right passcode is refused, with the time left, and not counted.
    let refused = try await host.assistant(["unlock", "--passcode-stdin"], input: "2468\n")
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("try again in"))
    #expect(try await status(host).failedAttempts == 5)

    // Past the lockout, the right passcode unlocks and resets the count.
    let unlocked = try await host.assistant(
      ["unlock", "--passcode-stdin"], input: "2468\n", environment: ["INTENTHOST_CLOCK_OFFSET": "61"])
    #expect(unlocked.code == 0, "\(unlocked)")
    let after = try await status(host, offset: 61)
    #expect(!after.locked && after.failedAttempts == 0 && after.lockoutLeft == nil)
  }

  @Test func sixthFailureLocksOutForFiveMinutes() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
    #expect(try await host.assistant(["lock"]).code == 0)
    for _ in 1...5 { _ = try await host.assistant(["unlock", "--passcode-stdin"], input: "0\n") }
    let sixth = try await host.assistant(
      ["unlock", "--passcode-stdin"], input: "0\n", environment: ["INTENTHOST_CLOCK_OFFSET": "61"])
    #expect(sixth.code == 77 && sixth.stderr.contains("try again in 5 min"), "\(sixth)")
    #expect(try await status(host, offset: 61).failedAttempts == 6)
  }

  /// Four host processes fail at once: every attempt is counted (each is one locked update of State/device.json).
  @Test func concurrentProcessesCountEveryFailure() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
    #expect(try await host.assistant(["lock"]).code == 0)
    let codes = try await withThrowingTaskGroup(of: Int32.self) { group in
      for _ in 0..<4 {
        group.addTask { try await host.assistant(["unlock", "--passcode-stdin"], input: "1\n").code }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(codes == [77, 77, 77, 77])
    let after = try await status(host)
    #expect(after.failedAttempts == 4 && after.locked && after.lockoutLeft == nil)
  }

  @Test func gracePeriodAndAutoLockSettings() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
    let unasked = try await host.assistant(["passcode", "settings", "--require-passcode", "60"])
    #expect(unasked.code == 75, "\(unasked)")
    let changed = try await host.assistant(
      ["passcode", "settings", "--require-passcode", "60", "--passcode-stdin"], input: "2468\n")
    #expect(changed.code == 0, "\(changed)")
    #expect(try await host.assistant(["lock"]).code == 0)
    let within = try await status(host, offset: 30)
    #expect(within.locked && (within.graceLeft ?? 0) > 0 && within.protectedData)
    // Within the grace period no passcode is needed; past it, it is (the control).
    #expect(try await host.assistant(["unlock"], environment: ["INTENTHOST_CLOCK_OFFSET": "30"]).code == 0)
    #expect(try await host.assistant(["lock"]).code == 0)
    #expect(try await host.assistant(["unlock"], environment: ["INTENTHOST_CLOCK_OFFSET": "61"]).code == 75)
    // Auto-lock: 5 minutes of idle time by default. The clock runs on between the unlock and the status (a loaded
    // machine takes seconds for the two host runs), so "before" is a minute before.
    #expect(try await host.assistant(["unlock", "--passcode-stdin"], input: "2468\n").code == 0)
    // (200, not 299: the margin is the time between the unlock and this status, which a busy machine stretches.)
    #expect(try await !status(host, offset: 200).locked)
    #expect(try await status(host, offset: 301).locked)
    let never = try await host.assistant(
      ["passcode", "settings", "--auto-lock", "never", "--passcode-stdin"], input: "2468\n")
    #expect(never.code == 0, "\(never)")
    #expect(try await !status(host, offset: 100_000).locked)
  }

  @Test func changeAndRemoveNeedTheOldPasscode() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "1234\n").code == 0)
    let wrong = try await host.assistant(["passcode", "change", "--passcode-stdin"], input: "9999\n5678\n")
    #expect(wrong.code == 77, "\(wrong)")
    let change = try await host.assistant(["passcode", "change", "--passcode-stdin"], input: "1234\n5678\n")
    #expect(change.code == 0, "\(change)")
    #expect(try await host.assistant(["passcode", "remove", "--passcode-stdin"], input: "1234\n").code == 77)
    let remove = try await host.assistant(["passcode", "remove", "--passcode-stdin"], input: "5678\n")
    #expect(remove.code == 0, "\(remove)")
    #expect(!FileManager.default.fileExists(atPath: host.home + "/State/passcode"))
    #expect(try await host.assistant(["passcode", "remove", "--passcode-stdin"], input: "5678\n").code == 69)
  }

  @Test func withoutAPasscodeUnlockNeedsNothing() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    #expect(try await host.assistant(["lock"]).code == 0)
    let status = try await status(host, offset: 3600)
    #expect(status.locked && status.protectedData)
    #expect(try await host.assistant(["unlock"]).code == 0)
    #expect(try await !self.status(host).locked)
  }

  @Test func statusMakesNothingAndABadOffsetIsAUsageError() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    _ = try await status(host)
    #expect(!FileManager.default.fileExists(atPath: host.home))
    let bad = try await host.assistant(["status"], environment: ["INTENTHOST_CLOCK_OFFSET": "later"])
    #expect(bad.code == 64, "\(bad)")
  }
}
