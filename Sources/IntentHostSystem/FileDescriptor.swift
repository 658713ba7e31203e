import CIntentHostSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A raw file descriptor with EINTR-retrying operations. It does not close itself: ownership is explicit.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
  public var rawValue: Int32
  public init(rawValue: Int32) { self.rawValue = rawValue }

  public static let standardInput = FileDescriptor(rawValue: 0)
  public static let standardOutput = FileDescriptor(rawValue: 1)
  public static let standardError = FileDescriptor(rawValue: 2)

  /// Opens `path` close-on-exec. The corresponding C function is `open`.
  public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(SystemError) -> FileDescriptor {
    while true {
      let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
      if fd >= 0 { return FileDescriptor(rawValue: fd) }
      let error = SystemError.current("open", path)
      if error.code != EINTR { throw error }
    }
  }

  /// A close-on-exec pipe: (read end, write end). The corresponding C function is `pipe2`.
  public static func pipe() throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
    var fds: [Int32] = [-1, -1]
    let code = ih_pipe(&fds)
    if code != 0 { throw SystemError(code: code, operation: "pipe") }
    return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
  }

  /// A close-on-exec connected pair of Unix stream sockets. The corresponding C function is `socketpair`.
  public static func socketPair() throws(SystemError) -> (FileDescriptor, FileDescriptor) {
    var fds: [Int32] = [-1, -1]
    let code = ih_socketpair(&fds)
    if code != 0 { throw SystemError(code: code, operation: "socketpair") }
    return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
  }

  /// A close-on-exec, non-blocking event counter (`eventfd`): written to wake a thread that polls it.
  public static func wakeEvent() throws(SystemError) -> FileDescriptor {
    let fd = ih_eventfd()
    if fd < 0 { throw SystemError(code: -fd, operation: "eventfd") }
    return FileDescriptor(rawValue: fd)
  }

  /// Reads up to `count` bytes into `buffer`; 0 means end of file. Retries EINTR.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
    while true {
      let n = Glibc.read(rawValue, buffer.baseAddress, buffer.count)
      if n >= 0 { return n }
      let error = SystemError.current("read")
      if error.code != EINTR { throw error }
    }
  }

  /// Writes all of `bytes`, waiting for the descriptor to drain when it is non-blocking.
  /// - Parameter timeoutMilliseconds: how long one wait for space may take; -1 waits forever.
  /// - Throws: `SystemError` with `ETIMEDOUT` when the reader does not drain in time, or the write's errno.
  public func writeAll(_ bytes: UnsafeRawBufferPointer, timeoutMilliseconds: Int32 = -1) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
      let n = Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
      if n > 0 {
        offset += n
        continue
      }
      let error = SystemError.current("write")
      if error.code == EINTR { continue }
      if error.code == EAGAIN || error.code == EWOULDBLOCK {
        let ready = ih_poll_writable(rawValue, timeoutMilliseconds)
        if ready == 0 { throw SystemError(code: ETIMEDOUT, operation: "write") }
        if ready < 0 { throw SystemError(code: -ready, operation: "poll") }
        continue
      }
      throw error
    }
  }

  /// Writes all of `bytes`. See `writeAll(_:timeoutMilliseconds:)`.
  public func writeAll(_ bytes: [UInt8], timeoutMilliseconds: Int32 = -1) throws(SystemError) {
    var failure: SystemError? = nil
    bytes.withUnsafeBytes { buffer in
      do throws(SystemError) { try writeAll(buffer, timeoutMilliseconds: timeoutMilliseconds) } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }

  /// Reads into the start of `buffer`; returns the count, 0 at end of file. Retries EINTR.
  public func read(into buffer: inout [UInt8]) throws(SystemError) -> Int {
    var result: Result<Int, SystemError> = .success(0)
    buffer.withUnsafeMutableBytes { raw in
      do throws(SystemError) { result = .success(try read(into: raw)) } catch { result = .failure(error) }
    }
    return try result.get()
  }

  /// Reads everything until end of file, at most `limit` bytes.
  /// - Throws: `SystemError` with `EFBIG` when the file is larger than `limit`.
  public func readAll(limit: Int) throws(SystemError) -> [UInt8] {
    var result: [UInt8] = []
    // A regular file says its size: read it in one piece (and then look for more, in case it grew).
    var info = stat()
    if fstat(rawValue, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 {
      if Int(info.st_size) > limit { throw SystemError(code: EFBIG, operation: "read") }
      result = [UInt8](repeating: 0, count: Int(info.st_size))
      var filled = 0
      while filled < result.count {
        let n = result.withUnsafeMutableBytes { buffer in
          Glibc.read(rawValue, buffer.baseAddress! + filled, buffer.count - filled)
        }
        if n < 0 {
          let error = SystemError.current("read")
          if error.code == EINTR { continue }
          throw error
        }
        if n == 0 { break }
        filled += n
      }
      if filled < result.count {
        result.removeSubrange(filled...)
        return result
      }
    }
    var chunk = [UInt8](repeating: 0, count: result.isEmpty ? 65536 : 4096)
    while true {
      let n = try read(into: &chunk)
      if n == 0 { return result }
      if result.count + n > limit { throw SystemError(code: EFBIG, operation: "read") }
      result.append(contentsOf: chunk[0..<n])
    }
  }

  /// Closes the descriptor. EINTR is not retried: on Linux the descriptor is gone either way.
  public func close() {
    _ = Glibc.close(rawValue)
  }

  /// Sets or clears `O_NONBLOCK`.
  public func setNonBlocking(_ on: Bool) throws(SystemError) {
    let code = ih_set_nonblocking(rawValue, on ? 1 : 0)
    if code != 0 { throw SystemError(code: code, operation: "fcntl(O_NONBLOCK)") }
  }

  /// Waits until readable, hung up, or the timeout (milliseconds, -1 forever). Returns false on timeout.
  public func waitReadable(timeoutMilliseconds: Int32) throws(SystemError) -> Bool {
    let r = ih_poll_readable(rawValue, timeoutMilliseconds)
    if r < 0 { throw SystemError(code: -r, operation: "poll") }
    return r == 1
  }

  /// Duplicates to a new close-on-exec descriptor. The corresponding C function is `fcntl(F_DUPFD_CLOEXEC)`.
  public func duplicate() throws(SystemError) -> FileDescriptor {
    let fd = fcntl(rawValue, F_DUPFD_CLOEXEC, 3)
    if fd < 0 { throw SystemError.current("dup") }
    return FileDescriptor(rawValue: fd)
  }

  /// Makes `self` refer to what `other` refers to. The corresponding C function is `dup2`.
  public func replace(with other: FileDescriptor) throws(SystemError) {
    while dup2(other.rawValue, rawValue) < 0 {
      let error = SystemError.current("dup2")
      if error.code != EINTR { throw error }
    }
  }

  /// Whether the descriptor is a terminal.
  public var isTerminal: Bool { isatty(rawValue) == 1 }

  /// Makes sure fds 0, 1 and 2 are open (on /dev/null if not), so that no later descriptor lands there. Each is
  /// opened read-only: a write to a closed stdout or stderr (`>&-`) still fails with `EBADF`, as it would have,
  /// rather than vanishing into /dev/null.
  public static func ensureStandardDescriptorsOpen() {
    for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) < 0 {
      let null = Glibc.open("/dev/null", O_RDONLY)
      if null >= 0 && null != fd {
        dup2(null, fd)
        Glibc.close(null)
      }
    }
  }
}

/// Ignores SIGPIPE for the whole process, so a write to a closed pipe returns EPIPE instead of killing us.
public func ignoreBrokenPipeSignal() {
  signal(SIGPIPE, SIG_IGN)
}
