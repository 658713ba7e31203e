import AppIntentsMetadata
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What reading `extract.actionsdata` made of a file, kept by the identity of the file it was read from, so that a
/// long-lived assistant (`assistant shell`) that loads the installed apps for every utterance parses an unchanged
/// file once: an 8 MiB file costs a second or more to parse.
///
/// The identity comes from `fstat` of the descriptor the bytes are read from (opened without following a link), not
/// from the path, which the bundle controls: device, inode, size, and the modification and status-change times to
/// the nanosecond. A file written in place changes its times; a file renamed over it is another inode. The status
/// change time is in the key because a bundle's owner can set the modification time back (`utimensat`), and nobody
/// can set the other. The path is in the key too, only as the label every finding carries.
///
/// At most `maximumEntries` readings of files of at most `maximumBytes` in all are kept; the least recently used go
/// first.
package final class MetadataReadingCache: Sendable {
  /// Which file a reading was made from.
  package struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var changed: timespec

    /// The identity of the file `status` describes (`fstat` of an open descriptor).
    package init(_ status: stat) {
      device = UInt64(status.st_dev)
      inode = UInt64(status.st_ino)
      size = Int64(status.st_size)
      modified = status.st_mtim
      changed = status.st_ctim
    }

    package static func == (left: Self, right: Self) -> Bool {
      left.device == right.device && left.inode == right.inode && left.size == right.size
        && left.modified.tv_sec == right.modified.tv_sec && left.modified.tv_nsec == right.modified.tv_nsec
        && left.changed.tv_sec == right.changed.tv_sec && left.changed.tv_nsec == right.changed.tv_nsec
    }

    package func hash(into hasher: inout Hasher) {
      hasher.combine(device)
      hasher.combine(inode)
      hasher.combine(size)
      hasher.combine(modified.tv_sec)
      hasher.combine(modified.tv_nsec)
      hasher.combine(changed.tv_sec)
      hasher.combine(changed.tv_nsec)
    }
  }

  private struct Key: Hashable {
    var path: String
    var file: FileIdentity
  }

  private struct Entry {
    var reading: Result<MetadataReading, MetadataError>
    var lastUse: UInt64
  }

  private struct State {
    var entries: [Key: Entry] = [:]
    var clock: UInt64 = 0
    var parses = 0
  }

  /// The most readings kept.
  package let maximumEntries: Int
  /// The most bytes of files whose readings are kept, in all.
  package let maximumBytes: Int64
  private let state = Mutex(State())

  package init(maximumEntries: Int, maximumBytes: Int64) {
    self.maximumEntries = maximumEntries
    self.maximumBytes = maximumBytes
  }

  /// The process's cache: 64 readings of at most 64 MiB of files.
  package static let shared = MetadataReadingCache(maximumEntries: 64, maximumBytes: 64 << 20)

  /// How many times `reading(of:file:parse:)` parsed, rather than found the reading kept (for tests).
  package var parses: Int { state.withLock { $0.parses } }

  /// The reading of the file at `path` whose identity is `file`: the one kept when the same file was read before,
  /// else `parse()`'s, kept (a failure too: a file that does not read is not parsed again until it changes).
  package func reading(
    of path: String, file: FileIdentity, parse: () throws(MetadataError) -> MetadataReading
  ) throws(MetadataError) -> MetadataReading {
    let key = Key(path: path, file: file)
    let kept = state.withLock { state -> Result<MetadataReading, MetadataError>? in
      guard var entry = state.entries[key] else { return nil }
      state.clock += 1
      entry.lastUse = state.clock
      state.entries[key] = entry
      return entry.reading
    }
    if let kept { return try kept.get() }
    // Parsed outside the lock: two threads may parse the same file once each, which is harmless.
    let reading: Result<MetadataReading, MetadataError>
    do throws(MetadataError) {
      reading = .success(try parse())
    } catch {
      reading = .failure(error)
    }
    keep(reading, for: key)
    return try reading.get()
  }

  private func keep(_ reading: Result<MetadataReading, MetadataError>, for key: Key) {
    state.withLock { state in
      state.parses += 1
      guard key.file.size <= maximumBytes else { return }
      state.clock += 1
      state.entries[key] = Entry(reading: reading, lastUse: state.clock)
      while state.entries.count > maximumEntries
        || state.entries.keys.reduce(0, { $0 + $1.file.size }) > maximumBytes
      {
        guard let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { break }
        state.entries[oldest] = nil
      }
    }
  }
}
