import Synchronization

/// Extensions kept running between intents within one host process, as Siri keeps an extension alive for a while
/// after a request. An `IntentDriver` with `warm` set takes a running session from here instead of spawning one,
/// and puts it back after the intent instead of shutting it down. A session that failed is never put back.
public final class WarmExtensions: Sendable {
  private let sessions = Mutex<[String: ExtensionSession]>([:])

  public init() {}

  /// The number of extensions running now.
  public var count: Int { sessions.withLock { $0.count } }

  /// The process ids of the extensions running now (for measurements such as resident memory).
  public var processIDs: [Int32] { sessions.withLock { $0.values.map(\.peer.pid) } }

  /// Takes the running session of `bundleIdentifier`, if it is still healthy.
  func take(_ bundleIdentifier: String) async -> ExtensionSession? {
    guard let session = sessions.withLock({ $0.removeValue(forKey: bundleIdentifier) }) else { return nil }
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
    let previous = sessions.withLock { $0.updateValue(session, forKey: session.target.bundleIdentifier) }
    if let previous, previous !== session { await previous.shutdown() }
  }

  /// Shuts every kept extension down in order (shutdown, exit, teardown).
  public func shutdownAll() async {
    let all = sessions.withLock { table in
      defer { table.removeAll() }
      return Array(table.values)
    }
    for session in all { await session.shutdown() }
  }
}
