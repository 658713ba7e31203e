import IntentHostSystem
import Synchronization

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
/// `next(timeout:)` blocks its thread: call it from a thread of your own. From async code, iterate
/// `Document.changes()` instead, which runs a `DocumentWatch` on a thread of its own.
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
  /// Wakes a waiting `next` for good (`stop()`).
  let stopper: Stopper
  /// The sequence last returned (or seen at start).
  public private(set) var sequence: UInt64
  /// With inotify, how often the document is read again without a notification (a safety net only).
  static var inotifyRecheck: Duration { .seconds(5) }

  /// Starts watching. The document's current state is the baseline: `next` returns the first state after it.
  /// - Parameters:
  ///   - polling: use polling even where inotify works.
  ///   - interval: how often polling checks. With inotify the document is read again only after a notification
  ///     (and every `inotifyRecheck`, 5 s, as a safety net).
  /// - Throws: `StoreError` when the document cannot be read.
  public init(_ document: Document<Content>, polling: Bool = false, interval: Duration = .milliseconds(200))
    throws(StoreError)
  {
    self.document = document
    self.interval = interval
    var notifications: FileDescriptor? = nil
    #if os(Linux)
      if !polling {
        // The folder is watched through a descriptor opened as the store opens it (no link followed on the way), by
        // the name /proc gives that descriptor; without /proc or the folder, the watch polls.
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if fd >= 0 {
          let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ONLYDIR)
          let folder = try? document.openFolder()
          if let folder = folder ?? nil, inotify_add_watch(fd, "/proc/self/fd/\(folder.descriptor.rawValue)", mask) >= 0
          {
            notifications = FileDescriptor(rawValue: fd)
          } else {
            Glibc.close(fd)
          }
          (folder ?? nil)?.close()
        }
      }
    #endif
    self.notifications = notifications
    usesInotify = notifications != nil
    sequence = 0
    do {
      stopper = try Stopper()
    } catch {
      notifications?.close()
      throw .io(error)
    }
    do {
      sequence = try document.snapshot().sequence
    } catch {
      notifications?.close()
      stopper.close()
      throw error
    }
  }

  deinit {
    notifications?.close()
    stopper.close()
  }

  /// Whether `stop()` was called; `next` then returns nil at once.
  public var isStopped: Bool { stopper.isStopped }

  /// Makes a waiting (or the next) `next` return nil; callable from any thread.
  public func stop() { stopper.stop() }

  /// A pipe whose write end wakes the watcher's `poll`, and the flag it announces.
  final class Stopper: Sendable {
    private let pipe: (read: FileDescriptor, write: FileDescriptor)
    private let state = Mutex((stopped: false, closed: false))

    init() throws(SystemError) { pipe = try FileDescriptor.pipe() }

    var isStopped: Bool { state.withLock { $0.stopped } }
    var wakeDescriptor: FileDescriptor { pipe.read }

    func stop() {
      state.withLock { state in
        guard !state.stopped else { return }
        state.stopped = true
        if !state.closed { _ = try? pipe.write.writeAll([1]) }
      }
    }

    func close() {
      state.withLock { state in
        guard !state.closed else { return }
        state.closed = true
        pipe.read.close()
        pipe.write.close()
      }
    }
  }

  /// Waits until the document's sequence differs from the last one seen, and returns the new state.
  /// - Parameter timeout: nil waits for ever.
  /// - Returns: the new snapshot, or nil when `timeout` passed without a change or `stop()` was called.
  /// - Throws: `StoreError` when the document cannot be read.
  public func next(timeout: Duration? = nil) throws(StoreError) -> Document<Content>.Snapshot? {
    let deadline = timeout.map { ContinuousClock.now + $0 }
    while true {
      if stopper.isStopped { return nil }
      let snapshot = try document.snapshot()
      if snapshot.sequence != sequence {
        sequence = snapshot.sequence
        return snapshot
      }
      // With inotify, a change wakes the watch: the document is read again only then (and, as a safety net, every
      // few seconds); reading it costs a replay of its journal, so it is never read on a timer of `interval`.
      var wait = notifications == nil ? interval : Self.inotifyRecheck
      if let deadline {
        let left = deadline - ContinuousClock.now
        if left <= .zero { return nil }
        wait = min(wait, left)
      }
      let milliseconds = wait.pollTimeout(waitingPastTheEnd: true)
      let watched = (notifications.map { [$0] } ?? []) + [stopper.wakeDescriptor]
      let ready = (try? pollReadable(watched, timeoutMilliseconds: milliseconds)) ?? []
      if let notifications, ready.first == true { drain(notifications) }
    }
  }

  private func drain(_ fd: FileDescriptor) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while let count = try? fd.read(into: &buffer), count > 0 {}
  }
}
