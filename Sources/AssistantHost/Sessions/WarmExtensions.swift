import IntentHostSystem
import Synchronization

/// Extensions kept running between intents within one host process, as Siri keeps an extension alive for a while
/// after a request. An `IntentDriver` with `warm` set takes a running session from here instead of spawning one,
/// and puts it back after the intent instead of shutting it down. A session that failed is never put back.
///
/// A kept session is idle from the moment it is put back until it is taken again; `shutDownIdle(after:)` shuts down
/// those idle for too long (`assistant shell --idle`).
package final class WarmExtensions: Sendable {
  private struct Kept {
    var session: ExtensionSession
    /// When it was put back: idle since then.
    var idleSince: ContinuousClock.Instant
  }

  private struct State {
    var kept: [String: Kept] = [:]
    /// Counts the sessions put back, so that a waiter for one (`shutDownIdle`, with nothing kept) sees it came.
    var generation = 0
    /// The waiters for a session to be put back, by token.
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextToken = 0
  }

  private let state = Mutex(State())

  package init() {}

  /// The number of extensions running now.
  package var count: Int { state.withLock { $0.kept.count } }

  /// The process ids of the extensions running now (for measurements such as resident memory).
  package var processIDs: [Int32] { state.withLock { $0.kept.values.map(\.session.peer.pid) } }

  /// Takes the running session of `bundleIdentifier`, if it is still healthy.
  func take(_ bundleIdentifier: String) async -> ExtensionSession? {
    guard let session = state.withLock({ $0.kept.removeValue(forKey: bundleIdentifier)?.session }) else { return nil }
    if session.isHealthy { return session }
    await session.abort()
    return nil
  }

  /// Keeps a healthy session for the next intent; shuts down one that is no longer usable.
  func give(_ session: ExtensionSession) async {
    guard session.isHealthy else {
      await session.abort()
      return
    }
    let (previous, waiters) = state.withLock { state in
      state.generation += 1
      defer { state.waiters.removeAll() }
      let previous = state.kept.updateValue(
        Kept(session: session, idleSince: .now), forKey: session.target.bundleIdentifier)
      return (previous?.session, Array(state.waiters.values))
    }
    for waiter in waiters { waiter.resume() }
    if let previous, previous !== session { await previous.shutdown() }
  }

  /// Shuts every kept extension down in order (shutdown, exit, teardown).
  package func shutdownAll() async {
    let all = state.withLock { state in
      defer { state.kept.removeAll() }
      return Array(state.kept.values.map(\.session))
    }
    for session in all { await session.shutdown() }
  }

  /// Shuts down, in order (shutdown, exit, teardown), each kept extension once it has been idle for `idle`, until
  /// the calling task is cancelled. Run it beside the work that uses the extensions, in a child task, and cancel it
  /// when the work is done: it returns once cancelled, every shutdown it began finished (then `shutdownAll()` stops
  /// what is still kept).
  ///
  /// It sleeps until the next kept extension's idle time ends (`Task.sleep`), or, with none kept, until one is put
  /// back; it never polls. The shutdown is noted in the extension's log (`--- host: idle for ...`).
  package func shutDownIdle(after idle: Duration) async {
    while !Task.isCancelled {
      let now = ContinuousClock.now
      let (expired, next, generation) = state.withLock { state in
        let expired = state.kept.filter { now - $0.value.idleSince >= idle }
        for key in expired.keys { state.kept[key] = nil }
        let next = state.kept.values.map { $0.idleSince + idle }.min()
        return (expired.values.map(\.session), next, state.generation)
      }
      for session in expired {
        session.appendToLog("idle for \(Self.seconds(idle)): shut down")
        await session.shutdown()
      }
      if !expired.isEmpty { continue }
      if let next {
        // A session put back meanwhile is due later than `next`; one taken meanwhile makes this wake early.
        try? await Task.sleep(until: next, clock: .continuous)
      } else {
        await waitForAnotherSession(after: generation)
      }
    }
  }

  /// Waits until a session is put back after `generation`, or the task is cancelled.
  private func waitForAnotherSession(after generation: Int) async {
    let token = state.withLock { state in
      defer { state.nextToken += 1 }
      return state.nextToken
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let ready = state.withLock { state -> Bool in
          // Cancelled before the wait was registered: the handler below found nothing to resume.
          if state.generation != generation || Task.isCancelled { return true }
          state.waiters[token] = continuation
          return false
        }
        if ready { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: token) }?.resume()
    }
  }

  /// "60 s", "1.5 s".
  static func seconds(_ duration: Duration) -> String {
    if duration.components.attoseconds == 0 { return "\(duration.components.seconds) s" }
    return "\(duration.inSeconds) s"
  }
}
