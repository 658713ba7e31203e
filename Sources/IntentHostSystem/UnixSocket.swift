// Unix stream sockets named in a folder (`assistant serve`'s), their peer's credentials, and frames that carry
// descriptors.
import CIntentHostSystem
import Glibc

/// A Unix stream socket named in a folder, reached through the folder's descriptor: the folder's path may be of any
/// length, and nothing on the way is resolved again.
public enum UnixSocket {
  /// The peer of a connected socket, as the kernel recorded it when it connected (`SO_PEERCRED`): it cannot lie.
  public struct PeerCredentials: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32

    public init(pid: Int32, uid: UInt32) {
      self.pid = pid
      self.uid = uid
    }
  }

  /// Binds `name` in `folder` (mode 0600) and listens.
  /// - Throws: `SystemError` (`EADDRINUSE` when the name exists: remove a stale one first).
  public static func listen(in folder: DirectoryDescriptor, name: String, backlog: Int32 = 64) throws(SystemError)
    -> FileDescriptor
  {
    let fd = ih_unix_listen(folder.descriptor.rawValue, name, backlog)
    if fd < 0 { throw SystemError(code: -fd, operation: "bind", subject: "\(folder.path)/\(name)") }
    return FileDescriptor(rawValue: fd)
  }

  /// Connects to the socket `name` in `folder`, without waiting: the descriptor is non-blocking.
  /// - Throws: `SystemError`: `ENOENT` (no socket), `ECONNREFUSED` (nobody listens), `EAGAIN` (its backlog is full).
  public static func connect(in folder: DirectoryDescriptor, name: String) throws(SystemError) -> FileDescriptor {
    let fd = ih_unix_connect(folder.descriptor.rawValue, name)
    if fd < 0 { throw SystemError(code: -fd, operation: "connect", subject: "\(folder.path)/\(name)") }
    return FileDescriptor(rawValue: fd)
  }

  /// Accepts a connection (close-on-exec). Blocks unless `listener` is non-blocking.
  public static func accept(_ listener: FileDescriptor) throws(SystemError) -> FileDescriptor {
    let fd = ih_accept(listener.rawValue)
    if fd < 0 { throw SystemError(code: -fd, operation: "accept") }
    return FileDescriptor(rawValue: fd)
  }

  /// Who is at the other end of `socket`.
  public static func peerCredentials(of socket: FileDescriptor) throws(SystemError) -> PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    let code = ih_peer_credentials(socket.rawValue, &pid, &uid)
    if code != 0 { throw SystemError(code: code, operation: "getsockopt(SO_PEERCRED)") }
    return PeerCredentials(pid: pid, uid: uid)
  }

  /// The most descriptors one frame carries.
  public static let maximumDescriptors = Int(IH_MAXIMUM_PASSED_DESCRIPTORS)

  /// Sends one frame: a 4-byte big-endian length, then `payload`, the `descriptors` riding on its first byte. The
  /// descriptors stay open here (the peer gets copies).
  /// - Parameter timeoutMilliseconds: how long a wait for room may take (a non-blocking socket's).
  /// - Throws: `SystemError` (`EMSGSIZE` past 16 MiB, `ETIMEDOUT`, `EPIPE` when the peer is gone).
  public static func sendFrame(
    _ payload: [UInt8], descriptors: [FileDescriptor] = [], on socket: FileDescriptor, timeoutMilliseconds: Int32
  ) throws(SystemError) {
    guard payload.count <= 16 << 20, descriptors.count <= maximumDescriptors else {
      throw SystemError(code: EMSGSIZE, operation: "sendmsg")
    }
    let length = UInt32(payload.count)
    let frame =
      [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
      + payload
    let fds = descriptors.map(\.rawValue)
    var sent = 0
    while sent == 0 {
      let n = frame.withUnsafeBytes { bytes in
        ih_send_with_descriptors(socket.rawValue, bytes.baseAddress, bytes.count, fds, Int32(fds.count))
      }
      if n >= 0 {
        sent = n
      } else if -n == EAGAIN || -n == EWOULDBLOCK {
        try waitWritable(socket, timeoutMilliseconds: timeoutMilliseconds)
      } else {
        throw SystemError(code: Int32(-n), operation: "sendmsg")
      }
    }
    if sent < frame.count {
      try socket.writeAll(Array(frame[sent...]), timeoutMilliseconds: timeoutMilliseconds)
    }
  }

  /// Receives one frame sent by `sendFrame`, reading exactly its bytes (what follows stays in the socket), and the
  /// descriptors it carried (at most `maximumDescriptors`; close-on-exec; the caller owns them).
  /// - Parameters:
  ///   - limit: the largest payload taken; a longer one is `EMSGSIZE`.
  ///   - timeoutMilliseconds: how long the whole frame may take to arrive; -1 forever.
  /// - Throws: `SystemError`: `ETIMEDOUT`, `ECONNRESET` when the peer closed before a whole frame, `EMSGSIZE`. The
  ///   descriptors received are closed when this throws.
  public static func receiveFrame(from socket: FileDescriptor, limit: Int, timeoutMilliseconds: Int32)
    throws(SystemError) -> (payload: [UInt8], descriptors: [FileDescriptor])
  {
    let deadline = timeoutMilliseconds < 0 ? nil : ContinuousClock.now + .milliseconds(timeoutMilliseconds)
    var descriptors: [FileDescriptor] = []
    func remaining() throws(SystemError) -> Int32 {
      guard let deadline else { return -1 }
      let left = deadline - .now
      if left <= .zero { throw SystemError(code: ETIMEDOUT, operation: "recvmsg") }
      return Int32(clamping: left.wholeMilliseconds + 1)
    }
    /// Reads exactly `count` bytes, taking descriptors on the way.
    func readExactly(_ count: Int) throws(SystemError) -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: count)
      var offset = 0
      while offset < count {
        var fds = [Int32](repeating: -1, count: maximumDescriptors)
        var number = Int32(maximumDescriptors)
        let n = bytes.withUnsafeMutableBytes { buffer in
          ih_receive_with_descriptors(
            socket.rawValue, buffer.baseAddress! + offset, count - offset, &fds, &number)
        }
        for fd in fds.prefix(Int(number)) {
          if descriptors.count < maximumDescriptors {
            descriptors.append(FileDescriptor(rawValue: fd))
          } else {
            Glibc.close(fd)
          }
        }
        if n > 0 {
          offset += n
        } else if n == 0 {
          throw SystemError(code: ECONNRESET, operation: "recvmsg", detail: "the peer closed the connection")
        } else if -n == EAGAIN || -n == EWOULDBLOCK {
          guard try socket.waitReadable(timeoutMilliseconds: try remaining()) else {
            throw SystemError(code: ETIMEDOUT, operation: "recvmsg")
          }
        } else {
          throw SystemError(code: Int32(-n), operation: "recvmsg")
        }
      }
      return bytes
    }
    do throws(SystemError) {
      let header = try readExactly(4)
      let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
      guard length <= limit else { throw SystemError(code: EMSGSIZE, operation: "recvmsg") }
      return (try readExactly(length), descriptors)
    } catch {
      for descriptor in descriptors { descriptor.close() }
      throw error
    }
  }

  private static func waitWritable(_ socket: FileDescriptor, timeoutMilliseconds: Int32) throws(SystemError) {
    var entry = pollfd(fd: socket.rawValue, events: Int16(POLLOUT), revents: 0)
    while true {
      let r = poll(&entry, 1, timeoutMilliseconds)
      if r > 0 { return }
      if r == 0 { throw SystemError(code: ETIMEDOUT, operation: "sendmsg") }
      let error = SystemError.current("poll")
      if error.code != EINTR { throw error }
    }
  }
}
