import Foundation
import IntentHostSystem
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Watches a source tree for changes with inotify (`assistant dev`): every folder below the root but hidden ones and
/// `.build`, the watches renewed after each change so that new folders are watched too.
///
/// Its wait blocks: call it off the cooperative pool.
package final class SourceWatch: Sendable {
  private let notifications: FileDescriptor
  private let root: URL
  /// The folder of each watch, relative to the root, to name what changed.
  private let folders = Mutex<[Int32: String]>([:])
  /// The most folders watched.
  static let maximumFolders = 4096

  /// - Throws: `HostError(.ioError)` when inotify cannot be used (the fix: raise fs.inotify.max_user_watches).
  package init(root: URL) throws {
    let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    guard fd >= 0 else {
      throw HostError(.ioError, "cannot watch \(root.path): inotify_init1: \(SystemError.current("inotify_init1"))")
    }
    notifications = FileDescriptor(rawValue: fd)
    self.root = root.standardizedFileURL
    try addWatches()
  }

  deinit { notifications.close() }

  private func addWatches() throws {
    let mask = UInt32(
      IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ONLYDIR | IN_DONT_FOLLOW)
    var pending = [root]
    var count = 0
    while let folder = pending.popLast() {
      count += 1
      guard count <= Self.maximumFolders else { return }
      let watch = inotify_add_watch(notifications.rawValue, folder.path, mask)
      guard watch >= 0 else {
        throw HostError(
          .ioError,
          "cannot watch \(folder.path): \(SystemError.current("inotify_add_watch")) (raise fs.inotify.max_user_watches)"
        )
      }
      let relative = String(folder.path.dropFirst(root.path.count).drop { $0 == "/" })
      folders.withLock { $0[watch] = relative }
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      for name in names where !name.hasPrefix(".") {
        let child = folder.appendingPathComponent(name)
        var status = stat()
        if lstat(child.path, &status) == 0 && FileKind(mode: status.st_mode) == .directory { pending.append(child) }
      }
    }
  }

  /// Waits for a change (ignoring hidden files, such as an editor's swap files), then for the tree to be quiet for
  /// `settle`, so that a save of several files is one change.
  /// - Returns: the name of a file that changed, or nil when `timeout` passed first.
  package func waitForChange(timeout: Duration? = nil, settle: Duration = .milliseconds(300)) throws -> String? {
    let deadline = timeout.map { ContinuousClock.now + $0 }
    var changed: String? = nil
    while changed == nil {
      let left = deadline.map { max(0, ($0 - ContinuousClock.now).pollTimeout()) } ?? -1
      if deadline != nil && left == 0 { return nil }
      guard try notifications.waitReadable(timeoutMilliseconds: left) else { return nil }
      changed = try drain()
    }
    // Quiet for `settle`: a save that writes several files, or a file twice, is one change.
    while try notifications.waitReadable(timeoutMilliseconds: settle.pollTimeout()) { _ = try drain() }
    try addWatches()  // folders made since are watched from now on (a watch added twice is the same watch)
    return changed
  }

  /// Reads every pending event; returns the path (from the root) of the last file named that is not hidden and still
  /// exists (a save through a temporary file names the file saved), else of the last one named, if any.
  private func drain() throws -> String? {
    var buffer = [UInt8](repeating: 0, count: 16 << 10)
    var found: String? = nil
    var existing: String? = nil
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(notifications.rawValue, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN { return existing ?? found }
        throw HostError(.ioError, "cannot watch \(root.path): \(SystemError.current("read"))")
      }
      if count == 0 { return existing ?? found }
      var offset = 0
      let header = MemoryLayout<inotify_event>.size
      while offset + header <= count {
        let watch = buffer.withUnsafeBytes { $0.load(fromByteOffset: offset, as: Int32.self) }
        let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
        let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
        let name = String(decoding: nameBytes, as: UTF8.self)
        if !name.isEmpty && !name.hasPrefix(".") && !name.hasSuffix("~") {
          let folder = folders.withLock { $0[watch] } ?? ""
          let path = folder.isEmpty ? name : folder + "/" + name
          found = path
          var status = stat()
          if lstat(root.appendingPathComponent(path).path, &status) == 0 { existing = path }
        }
        offset += header + length
      }
    }
  }
}
