/// A line longer than a `LineReader` takes: it was read to its end and dropped, none of it used.
public struct LineTooLong: Error, Sendable, Equatable, CustomStringConvertible {
  /// The line's length in bytes, its newline not counted.
  public var bytes: Int
  /// The reader's limit.
  public var limit: Int

  public var description: String { "the line is \(bytes) bytes; a line is at most \(limit)" }
}
