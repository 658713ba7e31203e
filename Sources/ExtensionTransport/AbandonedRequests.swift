import ExtensionProtocol

/// The requests a connection gave up on (timed out or cancelled) whose answers may still arrive.
///
/// It remembers the last `limit` of them, in the order they were given up on; remembering one more forgets the
/// oldest (its answer, should it still come, is then an answer to an unknown id). Taking an answer out forgets the id
/// too, so a second answer to the same request is also unknown.
struct AbandonedRequests: Sendable {
  /// Why a request was given up on.
  enum Reason: Sendable, CustomStringConvertible {
    case timedOut
    case cancelled

    var description: String {
      switch self {
      case .timedOut: return "had timed out"
      case .cancelled: return "was cancelled"
      }
    }
  }

  struct Entry: Sendable {
    var method: String
    var reason: Reason
  }

  let limit: Int
  private var entries: [RequestID: Entry] = [:]
  /// The ids in the order they were given up on: a ring of at most `limit` ids, oldest at `oldest`. It may still
  /// hold ids whose answer came (no longer in `entries`); they leave the ring in their turn.
  private var order: [RequestID] = []
  private var oldest = 0

  /// - Parameter limit: how many ids to remember; at least 1.
  init(limit: Int) {
    precondition(limit > 0, "abandonedRequestLimit must be at least 1")
    self.limit = limit
  }

  /// How many ids are remembered now.
  var count: Int { entries.count }

  /// Remembers `id`, forgetting the oldest id when `limit` are already remembered.
  mutating func insert(_ id: RequestID, method: String, reason: Reason) {
    if order.count < limit {
      order.append(id)
    } else {
      entries[order[oldest]] = nil
      order[oldest] = id
      oldest = (oldest + 1) % limit
    }
    entries[id] = Entry(method: method, reason: reason)
  }

  /// Forgets `id` and returns what was known about it, or nil when it was not remembered.
  mutating func remove(_ id: RequestID) -> Entry? {
    entries.removeValue(forKey: id)
  }
}
