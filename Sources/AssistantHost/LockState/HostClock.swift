@_spi(Testing) import AppGroupStore
import Foundation
import IntentHostSystem

/// The host's clock for the device state: the system time plus `INTENTHOST_CLOCK_OFFSET=SECONDS` from the
/// environment, a testing aid that steps past grace periods, protected-data delays, lockouts and auto-lock without
/// sleeping (README, "Lock state"). Times are seconds since 1970.
package struct HostClock: Sendable {
  /// The offset added to the system time, in seconds (may be negative).
  package var offset: Double

  package init(offset: Double = 0) { self.offset = offset }

  /// The clock of this process's environment, or no offset when `INTENTHOST_CLOCK_OFFSET` is malformed (commands
  /// that read the device's state refuse a malformed one; `open` does not): what donations and shortcuts are dated
  /// by.
  package static var ofThisProcess: HostClock {
    (try? HostClock(environment: ProcessInfo.processInfo.environment)) ?? HostClock()
  }

  /// The clock of this process: `INTENTHOST_CLOCK_OFFSET` from `environment`, else no offset.
  /// - Throws: `HostError(.usage)` when the variable is not a number of seconds.
  package init(environment: [String: String]) throws {
    guard let text = environment["INTENTHOST_CLOCK_OFFSET"], !text.isEmpty else {
      self.init()
      return
    }
    // Within ±10^9 s (about 31 years): the times it makes stay within what a device record may hold.
    guard let seconds = Double(text), seconds.isFinite, abs(seconds) <= 1e9 else {
      throw HostError(
        .usage,
        "INTENTHOST_CLOCK_OFFSET needs a number of seconds within ±1000000000 (e.g. 3600), not \"\(text)\"; or unset "
          + "it")
    }
    self.init(offset: seconds)
  }

  /// A clock stopped at `time` (tests that must not depend on how long a step takes).
  var stopped: Double? = nil

  /// A clock that always reads `time`.
  static func stopped(at time: Double) -> HostClock {
    var clock = HostClock()
    clock.stopped = time
    return clock
  }

  /// Now, on this clock.
  package var now: Double { stopped ?? Date().timeIntervalSince1970 + offset }
}
