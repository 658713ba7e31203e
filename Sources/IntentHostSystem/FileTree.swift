import CIntentHostSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Copying and removing what a folder holds, when the folder's contents are untrusted (a container, an app group):
/// every entry is reached beneath its folder's descriptor without following a link (`DirectoryDescriptor`), checked
/// on its descriptor, and acted on there or by its one name in its folder.
public enum FileTree {
  /// How deep `copy` and `removeContents` go: one descriptor is open per level.
  public static let depthLimit = 256

  /// What `copy` did.
  public struct CopyReport: Sendable, Equatable {
    /// Entries made in the destination (files, folders, links, FIFOs, second names of a file).
    public var entries = 0
    /// Bytes of file contents copied (holes are not copied, nor counted).
    public var bytes = 0
    /// What was not copied because nothing but its kernel could make it again (sockets, devices), by path.
    public var skipped: [String] = []

    public init() {}
  }

  /// Copies everything in `source` into `destination` (expected empty): folders, regular files (their holes kept),
  /// symbolic links (as links: never followed), FIFOs, and the second names of a file with several (as a second
  /// name of the copy); sockets and devices are listed in the report, not copied. Each copy gets its original's
  /// owner and group, permission bits (less set-user-ID and set-group-ID on files) and modification time.
  /// - Throws: `SystemError` naming the entry (`ENOSPC` when the destination is full; `ELOOP` for folders nested
  ///   deeper than `depthLimit`); what was copied until then stays in `destination`.
  @discardableResult
  public static func copy(from source: DirectoryDescriptor, to destination: DirectoryDescriptor) throws(SystemError)
    -> CopyReport
  {
    var copier = Copier(root: destination)
    try copier.copy(from: source, to: destination, relative: "", depth: 0)
    return copier.report
  }

  /// Removes everything in `folder`, never following a link (a link is removed as the link it is).
  /// - Throws: `SystemError` naming the entry that could not be removed (`ELOOP` for folders nested deeper than
  ///   `depthLimit`).
  public static func removeContents(of folder: DirectoryDescriptor) throws(SystemError) {
    try removeContents(of: folder, depth: 0)
  }

  private static func removeContents(of folder: DirectoryDescriptor, depth: Int) throws(SystemError) {
    guard depth < depthLimit else { throw tooDeep(folder.path) }
    for name in try folder.entries() {
      guard let status = try folder.status(of: name) else { continue }
      if status.kind == .directory {
        let child = try folder.openDirectory(name)
        do throws(SystemError) {
          try removeContents(of: child, depth: depth + 1)
        } catch {
          child.close()
          throw error
        }
        child.close()
        try folder.removeDirectory(name)
      } else {
        try folder.removeFile(name)
      }
    }
  }

  static func tooDeep(_ path: String) -> SystemError {
    SystemError(code: ELOOP, operation: "walk", subject: path, detail: "folders nest more than \(depthLimit) deep")
  }

  /// One copy's state: the report, and the first copy of each file with several names.
  private struct Copier {
    let root: DirectoryDescriptor
    var report = CopyReport()
    /// Destination paths (relative to `root`) of the files copied so far that have more than one name.
    var copied: [FileIdentity: String] = [:]

    init(root: DirectoryDescriptor) { self.root = root }

    mutating func copy(
      from source: DirectoryDescriptor, to destination: DirectoryDescriptor, relative: String, depth: Int
    ) throws(SystemError) {
      guard depth < FileTree.depthLimit else { throw FileTree.tooDeep(source.path) }
      for name in try source.entries() {
        guard let status = try source.status(of: name) else { continue }  // gone meanwhile
        let path = relative.isEmpty ? name : relative + "/" + name
        switch status.kind {
        case .directory:
          let from = try source.openDirectory(name)
          defer { from.close() }
          let (to, _) = try destination.makeDirectory(name, permissions: 0o700)
          defer { to.close() }
          try copy(from: from, to: to, relative: path, depth: depth + 1)
          let current = try from.status()
          try to.changeOwner(uid: current.owner, gid: current.group)
          try to.changeMode(current.permissions)
          try setTimes(of: to.descriptor, current, path: to.path)
        case .regular:
          if status.linkCount > 1, let first = copied[FileIdentity(status)] {
            guard linkat(root.descriptor.rawValue, first, destination.descriptor.rawValue, name, 0) == 0 else {
              throw SystemError.current("link", destination.path(of: name))
            }
            report.entries += 1
            continue
          }
          let from = try source.openFile(name, O_RDONLY)
          defer { from.close() }
          let current = try from.status()
          let to = try destination.openFile(name, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
          defer { to.close() }
          report.bytes += try copyContents(from, to, size: current.size, path: destination.path(of: name))
          do throws(SystemError) {
            try to.changeOwner(uid: current.owner, gid: current.group)
            try to.changeMode(current.permissions & ~(S_ISUID | S_ISGID))
          } catch {
            throw SystemError(code: error.code, operation: error.operation, subject: destination.path(of: name))
          }
          try setTimes(of: to, current, path: destination.path(of: name))
          if current.linkCount > 1 { copied[FileIdentity(current)] = path }
        case .symbolicLink:
          var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
          let count = readlinkat(source.descriptor.rawValue, name, &target, target.count - 1)
          guard count >= 0 else { throw SystemError.current("readlink", source.path(of: name)) }
          target[count] = 0
          guard symlinkat(target, destination.descriptor.rawValue, name) == 0 else {
            throw SystemError.current("symlink", destination.path(of: name))
          }
          try settle(name, in: destination, status, isLink: true)
        case .fifo:
          guard mkfifoat(destination.descriptor.rawValue, name, 0o600) == 0 else {
            throw SystemError.current("mkfifo", destination.path(of: name))
          }
          try settle(name, in: destination, status, isLink: false)
        default:
          report.skipped.append(source.path(of: name))
          continue
        }
        report.entries += 1
      }
    }

    /// The owner, mode (not for a link, which has none) and times of the entry `name` just made in `folder`, by its
    /// name, never following it.
    func settle(_ name: String, in folder: DirectoryDescriptor, _ status: FileStatus, isLink: Bool) throws(SystemError)
    {
      let fd = folder.descriptor.rawValue
      guard fchownat(fd, name, status.owner, status.group, AT_SYMLINK_NOFOLLOW) == 0 else {
        throw SystemError.current("chown", folder.path(of: name))
      }
      // A FIFO just made is no link, and nothing but the host writes the destination: its mode by name.
      if !isLink, fchmodat(fd, name, status.permissions & ~(S_ISUID | S_ISGID), 0) != 0 {
        throw SystemError.current("chmod", folder.path(of: name))
      }
      var times = Self.times(status)
      guard utimensat(fd, name, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
        throw SystemError.current("utimensat", folder.path(of: name))
      }
    }

    func setTimes(of descriptor: FileDescriptor, _ status: FileStatus, path: String) throws(SystemError) {
      var times = Self.times(status)
      guard futimens(descriptor.rawValue, &times) == 0 else { throw SystemError.current("futimens", path) }
    }

    /// Access time left as it is, modification time the original's.
    static func times(_ status: FileStatus) -> [timespec] {
      [
        timespec(tv_sec: 0, tv_nsec: ih_utime_omit()),
        timespec(tv_sec: Int(status.modified / 1_000_000_000), tv_nsec: Int(status.modified % 1_000_000_000)),
      ]
    }

    /// Copies `size` bytes of `from` into `to`, skipping the holes (`SEEK_DATA`, `SEEK_HOLE`) and giving `to` the
    /// same size. Returns the bytes copied.
    func copyContents(_ from: FileDescriptor, _ to: FileDescriptor, size: Int64, path: String) throws(SystemError)
      -> Int
    {
      var buffer = [UInt8](repeating: 0, count: 1 << 20)
      var copied = 0
      var offset: off_t = 0
      while offset < size {
        let data = lseek(from.rawValue, offset, ih_seek_data())
        if data < 0 {
          if ih_errno() == ENXIO { break }  // only a hole is left
          throw SystemError.current("seek", path)
        }
        let hole = lseek(from.rawValue, data, ih_seek_hole())
        guard hole >= 0 else { throw SystemError.current("seek", path) }
        var position = data
        while position < hole {
          let wanted = hole - position < off_t(buffer.count) ? Int(hole - position) : buffer.count
          let count = buffer.withUnsafeMutableBytes { pread(from.rawValue, $0.baseAddress, wanted, position) }
          if count < 0 {
            if ih_errno() == EINTR { continue }
            throw SystemError.current("read", path)
          }
          if count == 0 { break }  // shrunk meanwhile
          var written = 0
          while written < count {
            let result = buffer.withUnsafeBytes {
              pwrite(to.rawValue, $0.baseAddress! + written, count - written, position + off_t(written))
            }
            if result < 0 {
              if ih_errno() == EINTR { continue }
              throw SystemError.current("write", path)
            }
            written += result
          }
          position += off_t(count)
          copied += count
        }
        offset = hole
      }
      guard ftruncate(to.rawValue, off_t(size)) == 0 else { throw SystemError.current("truncate", path) }
      return copied
    }
  }
}
