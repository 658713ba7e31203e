import IntentHostSystem
import UntrustedText

#if canImport(Glibc)
  import Glibc
#endif

/// The format of a child's log (`LaunchSpecification.logPath`), and its rotation.
///
/// Every line the child wrote to stderr is logged as `| ` and the line, sanitized (`Untrusted`: control
/// characters other than tab, escape sequences and bidirectional controls are shown escaped, `\u{1B}`). The host's
/// own lines start with `--- ` (`--- <time> NAME started, pid N`, `--- NAME exited with status N`,
/// `--- host: fault: ...`), which no line of the child's can, so a child cannot forge them. A stderr line longer
/// than `maximumLineLength` bytes is logged as several lines.
public enum ExtensionLog {
  /// What starts every line the child wrote.
  public static let childPrefix = "| "
  /// What starts every line of the host's.
  public static let hostPrefix = "--- "
  /// The longest stderr line logged as one line, in bytes; a longer one is cut into several.
  public static let maximumLineLength = 4096

  /// A log holding this many bytes or more when a launch starts is rotated first (1 MiB).
  public static let defaultRotationSize = 1 << 20

  /// Rotates the log at `path` when it holds `size` bytes or more: it becomes `path.1`, replacing an older `.1`,
  /// so a bundle keeps at most two logs. Called by the host at each launch, before the log is opened.
  ///
  /// Two launches of the same bundle rotating at the same moment can rotate twice; the older generation is then
  /// lost, never a file outside the log's name.
  /// - Returns: nil, or the error that kept the log from rotating (it is then appended to as before).
  public static func rotate(_ path: String, ifAtLeast size: Int) -> SystemError? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      let error = SystemError.current("stat", path)
      return error.code == ENOENT ? nil : error
    }
    guard (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) >= size else { return nil }
    guard Glibc.rename(path, path + ".1") == 0 else { return SystemError.current("rename", path) }
    return nil
  }

  /// One of the host's lines, as written: `--- host: ` and `line`, sanitized to one line.
  public static func hostLine(_ line: String) -> String {
    hostPrefix + "host: " + Untrusted.shown(line) + "\n"
  }

  /// Appends one of the host's lines (`hostLine`) to the log at `path`, for a launch that never started a process
  /// (a refusal): the log is made if needed (mode 0600), never through a link.
  /// - Returns: nil, or the error that kept the line out of the log.
  @discardableResult
  public static func appendHostLine(_ line: String, toLogAt path: String) -> SystemError? {
    do {
      let log = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK, mode: 0o600)
      defer { log.close() }
      try log.writeAll(Array(hostLine(line).utf8))
      return nil
    } catch {
      return error
    }
  }

  /// Turns the child's stderr, read in chunks, into log lines.
  struct LineAssembler {
    private var partial: [UInt8] = []

    /// The log lines for the whole lines in what was kept and `chunk`; an unfinished line is kept (up to
    /// `maximumLineLength` bytes).
    mutating func lines(_ chunk: some Collection<UInt8>) -> [UInt8] {
      partial.append(contentsOf: chunk)
      var output: [UInt8] = []
      var start = 0
      while let newline = partial[start...].firstIndex(of: 0x0A) {
        var end = newline
        if end > start && partial[end - 1] == 0x0D { end -= 1 }  // a CRLF line ends like any other
        output += Self.line(partial[start..<end])
        start = newline + 1
      }
      while partial.count - start > maximumLineLength {
        let cut = start + Untrusted.wholeCharacterPrefix(Array(partial[start..<(start + maximumLineLength)]))
        let end = cut > start ? cut : start + maximumLineLength
        output += Self.line(partial[start..<end])
        start = end
      }
      partial.removeSubrange(..<start)
      return output
    }

    /// The unfinished line, at the end of the stream.
    mutating func finish() -> [UInt8] {
      defer { partial = [] }
      return partial.isEmpty ? [] : Self.line(partial[...])
    }

    private static func line(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
      if Untrusted.isBypassedForTesting { return Array(bytes) + [0x0A] }
      return Array((childPrefix + Untrusted.sanitized(bytes: bytes, multiline: true) + "\n").utf8)
    }
  }
}
