import IntentHostSystem

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// Waits for another process to change a document, the way an app observes what its extension wrote.
///
/// On Linux it sleeps on inotify events for the container directory and then compares the document's sequence
/// number; elsewhere, or when inotify is unavailable or `polling` is asked for, it checks the sequence every
/// `interval`. Each committed update is seen at least once (several quick ones may arrive as one change).
///
/// - Important: not for sharing between threads; make one per waiting thread.
public final class DocumentWatch<Content: DocumentContent> {
  public let document: Document<Content>
  /// Whether inotify is used (false: polling).
  public let usesInotify: Bool
  private let interval: Duration
  private var notifications: FileDescriptor?
  /// The sequence last returned (or seen at start).
  public private(set) var sequence: UInt64

  /// Starts watching. The document's current state is the baseline: `next` returns the first state after it.
  /// - Parameters:
  ///   - polling: use polling even where inotify works.
  ///   - interval: how often polling checks, and how often inotify waits re-check in any case.
  /// - Throws: `StoreError` when the document cannot be read.
  public init(_ document: Document<Content>, polling: Bool = false, interval: Duration = .milliseconds(200))
    throws(StoreError)
  {
    self.document = document
    self.interval = interval
    var notifications: FileDescriptor? = nil
    #if os(Linux)
      if !polling {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if fd >= 0 {
          let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE)
          if inotify_add_watch(fd, document.directory, mask) >= 0 {
            notifications = FileDescriptor(rawValue: fd)
          } else {
            Glibc.close(fd)
          }
        }
      }
    #endif
    self.notifications = notifications
    usesInotify = notifications != nil
    sequence = 0
    sequence = try document.snapshot().sequence
  }

  deinit { notifications?.close() }

  /// Waits until the document's sequence differs from the last one seen, and returns the new state.
  /// - Parameter timeout: nil waits for ever.
  /// - Returns: the new snapshot, or nil when `timeout` passed without a change.
  /// - Throws: `StoreError` when the document cannot be read.
  public func next(timeout: Duration? = nil) throws(StoreError) -> Document<Content>.Snapshot? {
    let deadline = timeout.map { ContinuousClock.now + $0 }
    while true {
      let snapshot = try document.snapshot()
      if snapshot.sequence != sequence {
        sequence = snapshot.sequence
        return snapshot
      }
      var wait = interval
      if let deadline {
        let left = deadline - ContinuousClock.now
        if left <= .zero { return nil }
        wait = min(wait, left)
      }
      let milliseconds = Int32(
        clamping: wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1)
      if let notifications {
        if (try? notifications.waitReadable(timeoutMilliseconds: milliseconds)) == true { drain(notifications) }
      } else {
        usleep(UInt32(milliseconds) * 1000)
      }
    }
  }

  private func drain(_ fd: FileDescriptor) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while let count = try? fd.read(into: &buffer), count > 0 {}
  }
}
