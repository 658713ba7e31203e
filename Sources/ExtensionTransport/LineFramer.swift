/// Splits a byte stream into newline-delimited messages. A small state machine: bytes in, events out.
///
/// A message is everything up to a `\n` (a trailing `\r` is dropped); empty lines are skipped. A line longer than
/// `limit` bytes produces one `.oversized` event and is then discarded up to its newline, so one bad message never
/// makes the framer buffer without bound.
public struct LineFramer: Sendable {
  public enum Event: Sendable, Equatable {
    case message([UInt8])
    case oversized(limit: Int)
  }

  private enum State: Sendable {
    case collecting
    case discarding
  }

  public let limit: Int
  private var state: State = .collecting
  private var buffer: [UInt8] = []

  /// - Parameter limit: the largest message, in bytes, not counting the newline.
  public init(limit: Int) {
    precondition(limit > 0)
    self.limit = limit
  }

  /// Bytes held back waiting for a newline.
  public var bufferedCount: Int { buffer.count }

  /// Feeds bytes and returns the events they complete, in order.
  public mutating func feed<Bytes: Collection>(_ bytes: Bytes) -> [Event] where Bytes.Element == UInt8 {
    var events: [Event] = []
    var start = bytes.startIndex
    while start != bytes.endIndex {
      let newline = bytes[start...].firstIndex(of: 0x0A)
      let end = newline ?? bytes.endIndex
      switch state {
      case .collecting:
        let chunkCount = bytes.distance(from: start, to: end)
        if buffer.count + chunkCount > limit + 1 {  // +1 tolerates the '\r' of a CRLF line at the limit
          buffer.removeAll(keepingCapacity: false)
          events.append(.oversized(limit: limit))
          state = newline == nil ? .discarding : .collecting
        } else {
          buffer.append(contentsOf: bytes[start..<end])
          if newline != nil {
            if buffer.last == 0x0D { buffer.removeLast() }
            if buffer.count > limit {
              events.append(.oversized(limit: limit))
            } else if !buffer.isEmpty {
              events.append(.message(buffer))
            }
            buffer.removeAll(keepingCapacity: true)
          }
        }
      case .discarding:
        if newline != nil { state = .collecting }
      }
      guard let newline else { break }
      start = bytes.index(after: newline)
    }
    return events
  }
}
