/// The conversions of a `Duration` to the numbers that system calls, JSON documents and measurements take, each
/// computed from its components in one way everywhere.
extension Duration {
  /// The duration in seconds, `Double(seconds) + Double(attoseconds) / 1e18` of its components: for JSON documents,
  /// messages and `ConnectionError.timedOut`.
  public var inSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }

  /// The duration in milliseconds, `Double(seconds) * 1e3 + Double(attoseconds) / 1e15` of its components: for
  /// measurements printed in ms (computed from the components, not as `inSeconds * 1000`, which can differ in the
  /// last bit).
  public var inMilliseconds: Double {
    Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15
  }

  /// The whole milliseconds of the duration, the rest dropped (rounded toward zero).
  /// - Important: traps for a duration beyond about 292 million years, whose milliseconds `Int64` cannot hold.
  public var wholeMilliseconds: Int64 {
    components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
  }

  /// The whole nanoseconds of the duration, the rest dropped (rounded toward zero).
  /// - Important: traps for a duration beyond about 292 years, whose nanoseconds `Int64` cannot hold.
  public var wholeNanoseconds: Int64 {
    components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
  }

  /// The duration as the timeout `poll` takes: its whole milliseconds, clamped to `Int32` (a negative duration gives
  /// a negative timeout, which `poll` takes as "forever": clamp it first when that is not meant).
  /// - Parameter waitingPastTheEnd: adds one millisecond, so that a `poll` that times out returns after the
  ///   duration, never up to a millisecond before it (a deadline it waited for has then passed).
  public func pollTimeout(waitingPastTheEnd: Bool = false) -> Int32 {
    Int32(clamping: wholeMilliseconds + (waitingPastTheEnd ? 1 : 0))
  }
}
