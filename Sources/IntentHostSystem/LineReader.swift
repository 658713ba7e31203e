import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Reads lines from a descriptor (a terminal or a pipe) on a dedicated thread, one call at a time; a call ends
/// early, with `CancellationError`, when its task is cancelled. Bytes after a line are kept for the next call.
///
/// A line is taken whole or not at all: one longer than `limit` is read to its newline (or the end of input), dropped,
/// and reported as `LineTooLong`; the next call reads the line after it.
public final class LineReader: Sendable {
  private let fd: FileDescriptor
  /// What was read but not yet taken, and how many bytes of an over-long line have been dropped so far (0 when
  /// none is being dropped).
  private let state = Mutex<(buffer: [UInt8], dropped: Int)>(([], 0))
  /// The longest line accepted, in bytes (its newline, and a `\r` before it, not counted).
  public let limit: Int

  /// Whether it reads a terminal.
  public var isTerminal: Bool { fd.isTerminal }

  /// A reader of `fd`, which it does not close.
  public init(_ fd: FileDescriptor, limit: Int = 64 << 10) {
    self.fd = fd
    self.limit = limit
  }

  /// Drops what was read but not yet taken, and what is waiting in the terminal's input queue (a terminal only):
  /// typed before a question was shown, it is not its answer.
  /// The corresponding C function is `tcflush`.
  public func discardTypeAhead() async {
    state.withLock { $0.buffer.removeAll() }
    _ = try? await offloaded { () throws(SystemError) in
      if self.fd.isTerminal { _ = tcflush(self.fd.rawValue, TCIFLUSH) }
    }
  }

  /// The next line without its newline (a `\r` before it dropped too), or nil at end of input; a last line without
  /// a newline still counts.
  /// - Throws: `LineTooLong` when the line was longer than `limit` (it was read and dropped); `CancellationError`
  ///   when the task is cancelled while waiting; `SystemError` when `fd` cannot be read.
  public func nextLine() async throws -> String? {
    try await nextLineAndEnd()?.text
  }

  /// The next line as `nextLine()` reads it, and whether a newline ended it (else end of input did: on a terminal,
  /// Ctrl-D after some characters, which leaves the cursor after them).
  public func nextLineAndEnd() async throws -> (text: String, newline: Bool)? {
    let read = try await cancellableBlockingWait { cancellation throws(SystemError) in
      try self.readLine(cancellation: cancellation)
    }
    switch read {
    case .line(let line, let newline): return (String(decoding: line, as: UTF8.self), newline)
    case .tooLong(let bytes): throw LineTooLong(bytes: bytes, limit: limit)
    case .none:
      if Task.isCancelled { throw CancellationError() }
      return nil
    }
  }

  private enum Read {
    case line([UInt8], newline: Bool)
    case tooLong(Int)
  }

  /// Blocks until a whole line, an over-long line's end, end of input (nil), or the task's cancellation (nil).
  private func readLine(cancellation: FileDescriptor) throws(SystemError) -> Read? {
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let taken = state.withLock { state -> Read? in
        if let newline = state.buffer.firstIndex(of: 0x0A) {
          var line = Array(state.buffer[..<newline])
          state.buffer.removeSubrange(...newline)
          if line.last == 0x0D { line.removeLast() }
          let dropped = state.dropped
          state.dropped = 0
          if dropped > 0 || line.count > limit { return .tooLong(dropped + line.count) }
          return .line(line, newline: true)
        }
        // No newline in sight: a line longer than the limit (and its \r) is dropped as it comes, only counted.
        if state.dropped > 0 || state.buffer.count > limit + 1 {
          state.dropped += state.buffer.count
          state.buffer.removeAll()
        }
        return nil
      }
      if let taken { return taken }
      let ready = try pollReadable([fd, cancellation], timeoutMilliseconds: -1)
      if ready[1] { return nil }
      let count = try fd.read(into: &chunk)
      if count == 0 {
        // End of input: a last line without a newline still counts.
        return state.withLock { state -> Read? in
          defer { (state.buffer, state.dropped) = ([], 0) }
          var line = state.buffer
          if line.last == 0x0D { line.removeLast() }
          if state.dropped > 0 || line.count > limit { return .tooLong(state.dropped + line.count) }
          return line.isEmpty ? nil : .line(line, newline: false)
        }
      }
      state.withLock { $0.buffer.append(contentsOf: chunk[..<count]) }
    }
  }
}
