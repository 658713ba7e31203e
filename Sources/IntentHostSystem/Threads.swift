import CIntentHostSystem

#if canImport(Glibc)
  import Glibc
#endif

private final class ThreadBody {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Starts a detached POSIX thread running `body`. Used for blocking reads, which must not occupy the Swift
/// concurrency pool. The corresponding C function is `pthread_create`.
public func detachThread(_ body: @escaping @Sendable () -> Void) {
  let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
  var attributes = pthread_attr_t()
  pthread_attr_init(&attributes)
  pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
  var thread = pthread_t()
  let code = pthread_create(
    &thread, &attributes,
    { raw in
      Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
      return nil
    }, context)
  pthread_attr_destroy(&attributes)
  if code != 0 {
    // No thread: run inline rather than lose the work.
    Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().body()
  }
}

/// Waits until any of `fds` is readable or hung up, up to `timeoutMilliseconds` (-1 forever).
/// - Returns: the readiness of each descriptor, in order.
public func pollReadable(_ fds: [FileDescriptor], timeoutMilliseconds: Int32) throws(SystemError) -> [Bool] {
  var entries = fds.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
  while true {
    let result = poll(&entries, nfds_t(entries.count), timeoutMilliseconds)
    if result >= 0 { break }
    let error = SystemError.current("poll")
    if error.code != EINTR { throw error }
  }
  return entries.map { $0.revents != 0 }
}
