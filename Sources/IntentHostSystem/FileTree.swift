import CIntentHostSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Copying and removing what a folder holds, when the folder's contents are untrusted (a container, an app group).
///
/// Names are taken as the kernel gives them (bytes: a name that is not UTF-8 is copied and removed as it is, never
/// repaired into another name), and each is one component, so every entry is reached by its name in its folder's
/// descriptor without following a link (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`), checked on its descriptor, and acted on
/// there or by its name.
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
    var copier = Copier(root: destination.descriptor.rawValue)
    try copier.copy(
      from: source.descriptor.rawValue, to: destination.descriptor.rawValue, fromPath: source.path,
      toPath: destination.path, relative: [], depth: 0)
    return copier.report
  }

  /// Removes everything in `folder`, never following a link (a link is removed as the link it is).
  /// - Throws: `SystemError` naming the entry that could not be removed (`ELOOP` for folders nested deeper than
  ///   `depthLimit`).
  public static func removeContents(of folder: DirectoryDescriptor) throws(SystemError) {
    try removeContents(of: folder.descriptor.rawValue, path: folder.path, depth: 0)
  }

  private static func removeContents(of folder: Int32, path: String, depth: Int) throws(SystemError) {
    guard depth < depthLimit else { throw tooDeep(path) }
    for name in try names(in: folder, path: path) {
      let shown = path + "/" + name.shown
      var info = stat()
      guard fstatat(folder, name.bytes, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
        if ih_errno() == ENOENT { continue }  // gone meanwhile
        throw SystemError.current("stat", shown)
      }
      if info.st_mode & S_IFMT == S_IFDIR {
        let child = try open(name, in: folder, O_RDONLY | O_DIRECTORY, shown)
        defer { Glibc.close(child) }
        try removeContents(of: child, path: shown, depth: depth + 1)
        guard unlinkat(folder, name.bytes, AT_REMOVEDIR) == 0 else { throw SystemError.current("rmdir", shown) }
      } else {
        guard unlinkat(folder, name.bytes, 0) == 0 else { throw SystemError.current("unlink", shown) }
      }
    }
  }

  /// One name in a folder: its bytes (NUL-terminated, as the calls take them) and how a message shows it.
  struct Name {
    var bytes: [CChar]
    var shown: String
  }

  /// The names in the folder open at `folder`, without "." and "..", as the kernel gives them.
  static func names(in folder: Int32, path: String) throws(SystemError) -> [Name] {
    let fd = openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError.current("open", path) }
    guard let stream = fdopendir(fd) else {
      let error = SystemError.current("fdopendir", path)
      Glibc.close(fd)
      throw error
    }
    defer { closedir(stream) }
    var names: [Name] = []
    while let entry = readdir(stream) {
      let pointer = entry.namePointer
      let length = strlen(pointer)
      let bytes = Array(UnsafeBufferPointer(start: pointer, count: length + 1))
      if strcmp(pointer, ".") == 0 || strcmp(pointer, "..") == 0 { continue }
      names.append(
        Name(bytes: bytes, shown: String(decoding: bytes.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)))
    }
    return names
  }

  /// Opens the entry `name` of `folder` with `flags`, not following it (close-on-exec, no controlling terminal).
  static func open(_ name: Name, in folder: Int32, _ flags: Int32, _ shown: String, mode: mode_t = 0)
    throws(SystemError) -> Int32
  {
    while true {
      let fd = openat(folder, name.bytes, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode)
      if fd >= 0 { return fd }
      let error = SystemError.current("open", shown)
      if error.code != EINTR { throw error }
    }
  }

  static func tooDeep(_ path: String) -> SystemError {
    SystemError(code: ELOOP, operation: "walk", subject: path, detail: "folders nest more than \(depthLimit) deep")
  }

  /// One copy's state: the report, and the first copy of each file with several names.
  private struct Copier {
    /// The destination's root, which the second names of a file are made relative to.
    let root: Int32
    var report = CopyReport()
    /// Destination paths (relative to `root`, as bytes) of the files copied so far that have more than one name.
    var copied: [FileIdentity: [CChar]] = [:]

    init(root: Int32) { self.root = root }

    mutating func copy(
      from source: Int32, to destination: Int32, fromPath: String, toPath: String, relative: [CChar], depth: Int
    ) throws(SystemError) {
      guard depth < FileTree.depthLimit else { throw FileTree.tooDeep(fromPath) }
      for name in try FileTree.names(in: source, path: fromPath) {
        let from = fromPath + "/" + name.shown
        let to = toPath + "/" + name.shown
        var info = stat()
        guard fstatat(source, name.bytes, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
          if ih_errno() == ENOENT { continue }  // gone meanwhile
          throw SystemError.current("stat", from)
        }
        let status = FileStatus(info)
        let path = (relative.isEmpty ? [] : relative + [CChar(UInt8(ascii: "/"))]) + name.bytes.dropLast()
        switch status.kind {
        case .directory:
          let child = try FileTree.open(name, in: source, O_RDONLY | O_DIRECTORY, from)
          defer { Glibc.close(child) }
          guard mkdirat(destination, name.bytes, 0o700) == 0 else { throw SystemError.current("mkdir", to) }
          let made = try FileTree.open(name, in: destination, O_RDONLY | O_DIRECTORY, to)
          defer { Glibc.close(made) }
          try copy(from: child, to: made, fromPath: from, toPath: to, relative: path, depth: depth + 1)
          let current = try FileDescriptor(rawValue: child).status()
          try settle(made, current, permissions: current.permissions, to)
        case .regular:
          if status.linkCount > 1, let first = copied[FileIdentity(status)] {
            guard linkat(root, first + [0], destination, name.bytes, 0) == 0 else {
              throw SystemError.current("link", to)
            }
            report.entries += 1
            continue
          }
          let input = try FileTree.open(name, in: source, O_RDONLY | O_NONBLOCK, from)
          defer { Glibc.close(input) }
          let current = try FileDescriptor(rawValue: input).status()
          // Replaced by something else since the stat: skipped, never read.
          guard current.kind == .regular, current.isSameFile(as: status) else { continue }
          let output = try FileTree.open(name, in: destination, O_WRONLY | O_CREAT | O_EXCL, to, mode: 0o600)
          defer { Glibc.close(output) }
          report.bytes += try copyContents(input, output, size: current.size, path: to)
          try settle(output, current, permissions: current.permissions & ~(S_ISUID | S_ISGID), to)
          if current.linkCount > 1 { copied[FileIdentity(current)] = path }
        case .symbolicLink:
          var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
          let count = readlinkat(source, name.bytes, &target, target.count - 1)
          guard count >= 0 else { throw SystemError.current("readlink", from) }
          target[count] = 0
          guard symlinkat(target, destination, name.bytes) == 0 else { throw SystemError.current("symlink", to) }
          try settleByName(name, in: destination, status, isLink: true, to)
        case .fifo:
          guard mkfifoat(destination, name.bytes, 0o600) == 0 else { throw SystemError.current("mkfifo", to) }
          try settleByName(name, in: destination, status, isLink: false, to)
        default:
          report.skipped.append(from)
          continue
        }
        report.entries += 1
      }
    }

    /// The owner, `permissions` and modification time of the copy open at `descriptor`.
    func settle(_ descriptor: Int32, _ status: FileStatus, permissions: mode_t, _ path: String) throws(SystemError) {
      guard fchown(descriptor, status.owner, status.group) == 0 else { throw SystemError.current("fchown", path) }
      guard fchmod(descriptor, permissions) == 0 else { throw SystemError.current("fchmod", path) }
      var times = Self.times(status)
      guard futimens(descriptor, &times) == 0 else { throw SystemError.current("futimens", path) }
    }

    /// The owner, mode (not for a link, which has none) and times of the entry `name` just made in `folder`, by its
    /// name, never following it: nothing but the host writes the destination.
    func settleByName(_ name: Name, in folder: Int32, _ status: FileStatus, isLink: Bool, _ path: String)
      throws(SystemError)
    {
      guard fchownat(folder, name.bytes, status.owner, status.group, AT_SYMLINK_NOFOLLOW) == 0 else {
        throw SystemError.current("chown", path)
      }
      if !isLink, fchmodat(folder, name.bytes, status.permissions & ~(S_ISUID | S_ISGID), 0) != 0 {
        throw SystemError.current("chmod", path)
      }
      var times = Self.times(status)
      guard utimensat(folder, name.bytes, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
        throw SystemError.current("utimensat", path)
      }
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
    func copyContents(_ from: Int32, _ to: Int32, size: Int64, path: String) throws(SystemError) -> Int {
      var buffer = [UInt8](repeating: 0, count: 1 << 20)
      var copied = 0
      var offset: off_t = 0
      while offset < size {
        let data = lseek(from, offset, ih_seek_data())
        if data < 0 {
          if ih_errno() == ENXIO { break }  // only a hole is left
          throw SystemError.current("seek", path)
        }
        let hole = lseek(from, data, ih_seek_hole())
        guard hole >= 0 else { throw SystemError.current("seek", path) }
        var position = data
        while position < hole {
          let wanted = hole - position < off_t(buffer.count) ? Int(hole - position) : buffer.count
          let count = buffer.withUnsafeMutableBytes { pread(from, $0.baseAddress, wanted, position) }
          if count < 0 {
            if ih_errno() == EINTR { continue }
            throw SystemError.current("read", path)
          }
          if count == 0 { break }  // shrunk meanwhile
          var written = 0
          while written < count {
            let result = buffer.withUnsafeBytes {
              pwrite(to, $0.baseAddress! + written, count - written, position + off_t(written))
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
      guard ftruncate(to, off_t(size)) == 0 else { throw SystemError.current("truncate", path) }
      return copied
    }
  }
}
