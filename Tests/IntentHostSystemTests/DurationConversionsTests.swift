import Testing

@testable import IntentHostSystem

/// The `Duration` conversions give exactly what the formulas they replaced gave, bit for bit.
struct DurationConversionsTests {
  static let durations: [Duration] = [
    .zero, .nanoseconds(1), .microseconds(999), .milliseconds(1), .milliseconds(1500), .seconds(1.1),
    .seconds(10), .seconds(0.3), .seconds(1) / 3, .seconds(86_400 * 365) + .nanoseconds(7), .milliseconds(-1500),
    .seconds(Int64(Int32.max) / 1000 + 5),
  ]

  @Test(arguments: durations) func secondsAndMillisecondsAsDoubles(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    #expect(duration.inSeconds.bitPattern == (Double(seconds) + Double(attoseconds) / 1e18).bitPattern)
    #expect(duration.inMilliseconds.bitPattern == (Double(attoseconds) / 1e15 + Double(seconds) * 1e3).bitPattern)
  }

  @Test(arguments: durations) func wholeMillisecondsAndNanoseconds(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    #expect(duration.wholeMilliseconds == seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    #expect(duration.wholeNanoseconds == seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }

  @Test func pollTimeouts() {
    #expect(Duration.milliseconds(1500).pollTimeout() == 1500)
    #expect(Duration.milliseconds(1500).pollTimeout(waitingPastTheEnd: true) == 1501)
    #expect(Duration.microseconds(999).pollTimeout() == 0)
    #expect(Duration.microseconds(999).pollTimeout(waitingPastTheEnd: true) == 1)
    #expect(Duration.seconds(3_000_000).pollTimeout() == Int32.max)
    #expect(Duration.milliseconds(-5).pollTimeout() == -5)
  }
}
