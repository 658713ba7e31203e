import CIntentHostSystem
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What kind of file something is, from the type bits of its mode.
public enum FileKind: Sendable, Hashable, CustomStringConvertible {
  case regular
  case directory
  case symbolicLink
  case fifo
  case characterDevice
  case blockDevice
  case socket
  case unknown

  /// The kind in `mode` (`st_mode & S_IFMT`).
  public init(mode: mode_t) {
    switch mode & S_IFMT {
    case S_IFREG: self = .regular
    case S_IFDIR: self = .directory
    case S_IFLNK: self = .symbolicLink
    case S_IFIFO: self = .fifo
    case S_IFCHR: self = .characterDevice
    case S_IFBLK: self = .blockDevice
    case S_IFSOCK: self = .socket
    default: self = .unknown
    }
  }

  /// "a regular file", "a FIFO", ...: what a message says the file is.
  public var description: String {
    switch self {
    case .regular: return "a regular file"
    case .directory: return "a directory"
    case .symbolicLink: return "a symbolic link"
    case .fifo: return "a FIFO"
    case .characterDevice: return "a character device"
    case .blockDevice: return "a block device"
    case .socket: return "a socket"
    case .unknown: return "a file of unknown type"
    }
  }
}

/// What `fstat` says about a file.
public struct FileStatus: Sendable, Hashable {
  public var kind: FileKind
  /// The permission bits with set-user-ID, set-group-ID and sticky (`st_mode & 0o7777`).
  public var permissions: mode_t
  public var owner: uid_t
  public var group: gid_t
  /// How many names (hard links) the file has.
  public var linkCount: Int
  public var size: Int64
  public var device: UInt64
  public var inode: UInt64
  /// The modification time, nanoseconds since 1970.
  public var modified: Int64
  /// The status-change time, nanoseconds since 1970.
  public var changed: Int64

  public init(_ info: stat) {
    kind = FileKind(mode: info.st_mode)
    permissions = info.st_mode & 0o7777
    owner = info.st_uid
    group = info.st_gid
    linkCount = Int(info.st_nlink)
    size = Int64(info.st_size)
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
  }

  /// Whether both describe the same file (device and inode).
  public func isSameFile(as other: FileStatus) -> Bool {
    device == other.device && inode == other.inode
  }
}

extension FileDescriptor {
  /// What the descriptor refers to. The corresponding C function is `fstat`.
  public func status() throws(SystemError) -> FileStatus {
    var info = stat()
    guard fstat(rawValue, &info) == 0 else { throw SystemError.current("fstat") }
    return FileStatus(info)
  }

  /// Gives the file behind the descriptor to `uid` and `gid`. The corresponding C function is `fchown`.
  public func changeOwner(uid: uid_t, gid: gid_t) throws(SystemError) {
    guard fchown(rawValue, uid, gid) == 0 else { throw SystemError.current("fchown") }
  }

  /// Sets the permission bits of the file behind the descriptor, exactly (the umask plays no part). The
  /// corresponding C function is `fchmod`.
  public func changeMode(_ permissions: mode_t) throws(SystemError) {
    guard fchmod(rawValue, permissions) == 0 else { throw SystemError.current("fchmod") }
  }
}

extension SystemError {
  /// Whether this is a refusal to follow or open something a directory's contents could use against its reader:
  /// a symbolic link (`ELOOP`), a path that leaves its directory (`EXDEV`), or a FIFO, device or socket where a
  /// regular file was expected (`ENXIO`). See `DirectoryDescriptor`.
  public var isUnsafeFileRefusal: Bool { code == ELOOP || code == EXDEV || code == ENXIO }
}

/// How a `DirectoryDescriptor` resolves the paths given to it.
public enum PathResolution: Sendable, Hashable {
  /// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`; `componentwise` where the kernel has no openat2 (it
  /// answers ENOSYS before Linux 5.6, or where a seccomp filter hides it).
  case automatic
  /// One `openat(O_NOFOLLOW)` per component, each relative to the last: what `automatic` falls back to. Tests use it
  /// to check the fallback on a kernel that has openat2.
  case componentwise
}

/// A directory held open, and the way to reach what is inside it without trusting what it contains.
///
/// Every path given to its methods is relative, and is resolved beneath the directory without following a symbolic
/// link anywhere on the way or at its end (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, or one
/// `openat(O_NOFOLLOW)` per component where openat2 is missing). A path that is empty, absolute, or has a `..`
/// component is refused before the kernel sees it. Files are opened with `O_NONBLOCK` (so a FIFO cannot block the
/// open) and `O_NOCTTY`, then checked with `fstat`: anything but a regular file (`openFile`) or a directory
/// (`openDirectory`) is closed and refused. Everything else acts on a descriptor (`fchown`, `fchmod`, `fsync`) or on
/// one name inside a descriptor, never following it (`mkdirat`, `renameat`, `unlinkat`, `fstatat` with
/// `AT_SYMLINK_NOFOLLOW`).
///
/// Errors are `SystemError`s naming the operation and the whole path; a refusal has `isUnsafeFileRefusal` set and
/// says why in `detail` ("is a symbolic link or passes through one", "is a FIFO, not a regular file").
///
/// Like `FileDescriptor`, it does not close itself: call `close()`, or use `withOpened(_:resolution:_:)`.
public struct DirectoryDescriptor: Sendable, Hashable {
  /// The open directory (`O_RDONLY | O_DIRECTORY`, close-on-exec).
  public let descriptor: FileDescriptor
  /// Where the directory was when it was opened, for messages only: nothing is ever resolved through it again.
  public let path: String
  public let resolution: PathResolution

  /// `O_PATH`: a descriptor that only locates a directory, for the parents of names and the components on the way.
  private static let pathOnly = ih_o_path()

  /// Set once openat2 answered ENOSYS: from then on every resolution in this process is componentwise.
  private static let openat2Missing = Atomic<Bool>(false)

  /// Whether this process found the kernel without openat2 (and so resolves paths one component at a time).
  public static var openat2IsMissing: Bool { openat2Missing.load(ordering: .relaxed) }

  private init(descriptor: FileDescriptor, path: String, resolution: PathResolution) {
    self.descriptor = descriptor
    self.path = path
    self.resolution = resolution
  }

  /// Opens the directory at `path`, a path the caller trusts (its own home, a container's path it chose); only the
  /// last component is checked: it must be a directory, not a symbolic link to one.
  /// - Throws: `SystemError` (`ELOOP` for a symbolic link, `ENOTDIR` for anything else that is not a directory).
  public static func open(_ path: String, resolution: PathResolution = .automatic) throws(SystemError)
    -> DirectoryDescriptor
  {
    guard !path.isEmpty, !path.utf8.contains(0) else {
      throw SystemError(code: EINVAL, operation: "open", subject: path, detail: "is not a path")
    }
    while true {
      let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
      if fd >= 0 {
        return DirectoryDescriptor(descriptor: FileDescriptor(rawValue: fd), path: path, resolution: resolution)
      }
      var code = ih_errno()
      if code == EINTR { continue }
      // O_DIRECTORY fails a symbolic link as "not a directory": say what it is.
      var info = stat()
      if code == ENOTDIR && lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK { code = ELOOP }
      throw SystemError(
        code: code, operation: "open", subject: path,
        detail: code == ELOOP ? "is a symbolic link" : nil)
    }
  }

  /// Opens the directory at `path`, a path the caller trusts entirely, its last component included: a root the
  /// user chose (the host's home, `ASSISTANT_APP_GROUPS`) may well be reached through a link of the user's own.
  /// Everything beneath it is then reached as usual, following nothing.
  /// - Throws: `SystemError` (`ENOTDIR` for anything that is not a directory).
  public static func openTrusted(_ path: String, resolution: PathResolution = .automatic) throws(SystemError)
    -> DirectoryDescriptor
  {
    guard !path.isEmpty, !path.utf8.contains(0) else {
      throw SystemError(code: EINVAL, operation: "open", subject: path, detail: "is not a path")
    }
    while true {
      let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY)
      if fd >= 0 {
        return DirectoryDescriptor(descriptor: FileDescriptor(rawValue: fd), path: path, resolution: resolution)
      }
      let error = SystemError.current("open", path)
      if error.code != EINTR { throw error }
    }
  }

  /// A directory descriptor of its own (`O_RDONLY | O_DIRECTORY`, close-on-exec) for the directory `descriptor`
  /// refers to, which may be an `O_PATH` one (a mount's root): `openat(descriptor, ".")`.
  /// - Parameter path: where it is, for messages only.
  /// - Throws: `SystemError` (`ENOTDIR` when it is not a directory).
  public static func reopen(_ descriptor: FileDescriptor, path: String, resolution: PathResolution = .automatic)
    throws(SystemError) -> DirectoryDescriptor
  {
    while true {
      let fd = openat(descriptor.rawValue, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY)
      if fd >= 0 {
        return DirectoryDescriptor(descriptor: FileDescriptor(rawValue: fd), path: path, resolution: resolution)
      }
      let error = SystemError.current("open", path)
      if error.code != EINTR { throw error }
    }
  }

  /// Opens the directory at `path` (see `open(_:resolution:)`), runs `body` with it, and closes it.
  public static func withOpened<Result>(
    _ path: String, resolution: PathResolution = .automatic, _ body: (DirectoryDescriptor) throws -> Result
  ) throws -> Result {
    let directory = try open(path, resolution: resolution)
    defer { directory.close() }
    return try body(directory)
  }

  /// Closes the descriptor.
  public func close() { descriptor.close() }

  /// The whole path of `relative`, for messages.
  public func path(of relative: String) -> String {
    relative.isEmpty || relative == "." ? path : (path.hasSuffix("/") ? path : path + "/") + relative
  }

  // MARK: - Opening

  /// Opens the regular file `relative` beneath this directory.
  /// - Parameters:
  ///   - flags: the access mode and creation flags (`O_RDONLY`, `O_RDWR`, `O_CREAT`, `O_EXCL`, `O_TRUNC`,
  ///     `O_APPEND`); close-on-exec, `O_NOFOLLOW` and `O_NOCTTY` are always added. `O_NONBLOCK` is used for the open
  ///     and kept only if `flags` has it.
  ///   - mode: the permissions of a file `O_CREAT` makes (less the umask).
  /// - Throws: `SystemError`: `ELOOP` for a symbolic link anywhere in `relative`, `EXDEV` for a path that leaves
  ///   the directory, `ENXIO` for a FIFO, device or socket, `EISDIR` for a directory; or the open's errno.
  /// - Important: `O_TRUNC` applies before the type is checked; it only ever truncates a regular file, since
  ///   the kernel ignores it for FIFOs, devices and sockets.
  public func openFile(_ relative: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemError)
    -> FileDescriptor
  {
    let components = try checked(relative, "open")
    guard !components.isEmpty else {
      throw SystemError(code: EISDIR, operation: "open", subject: path(of: relative))
    }
    let fd = try openBeneath(components, flags | O_NONBLOCK, mode: mode, relative: relative)
    do throws(SystemError) {
      let status = try fd.status()
      guard status.kind == .regular else {
        let code = status.kind == .directory ? EISDIR : ENXIO
        throw SystemError(
          code: code, operation: "open", subject: path(of: relative),
          detail: code == EISDIR ? nil : "is \(status.kind), not a regular file")
      }
      if flags & O_NONBLOCK == 0 { try fd.setNonBlocking(false) }
    } catch {
      fd.close()
      throw SystemError(code: error.code, operation: error.operation, subject: path(of: relative), detail: error.detail)
    }
    return fd
  }

  /// Opens the directory `relative` beneath this one ("." is this directory again, with its own descriptor).
  /// - Throws: `SystemError`: `ELOOP` for a symbolic link anywhere in `relative`, `EXDEV` for a path that leaves
  ///   the directory, `ENOTDIR` for anything that is not a directory; or the open's errno.
  public func openDirectory(_ relative: String) throws(SystemError) -> DirectoryDescriptor {
    let components = try checked(relative, "open")
    let fd = try openBeneath(components, O_RDONLY | O_DIRECTORY, mode: 0, relative: relative)
    return DirectoryDescriptor(descriptor: fd, path: path(of: relative), resolution: resolution)
  }

  /// Makes the directory `relative` unless something is already there, then opens it as `openDirectory` does
  /// (refusing a symbolic link or anything but a directory).
  ///
  /// Without `permissions` or `owner`, the directory is made as `mkdir` makes it (`mode` less the umask). With
  /// either, it is made mode 0700, then given `permissions` exactly (the umask plays no part) and `owner` on its new
  /// descriptor (`fchmod`, `fchown`), so it is never reachable by others with the wrong owner or mode. When a
  /// directory owned by someone else took its place before it was opened, that directory is left as it is and
  /// `created` is false.
  /// - Returns: the open directory, and whether this call made it.
  /// - Throws: `SystemError`, as `openDirectory` and `mkdirat`.
  public func makeDirectory(
    _ relative: String, mode: mode_t = 0o700, permissions: mode_t? = nil, owner: (uid: uid_t, gid: gid_t)? = nil
  ) throws(SystemError) -> (directory: DirectoryDescriptor, created: Bool) {
    let adjusted = permissions != nil || owner != nil
    let made = try inParent(of: relative, "mkdir") { (parent, name) throws(SystemError) -> Bool in
      if mkdirat(parent, name, adjusted ? 0o700 : mode) == 0 { return true }
      let error = SystemError.current("mkdir", path(of: relative))
      if error.code == EEXIST { return false }
      throw error
    }
    let directory = try openDirectory(relative)
    guard made, adjusted else { return (directory, made) }
    do throws(SystemError) {
      let status = try directory.descriptor.status()
      guard status.owner == geteuid() else { return (directory, false) }
      if let owner { try directory.descriptor.changeOwner(uid: owner.uid, gid: owner.gid) }
      if let permissions { try directory.descriptor.changeMode(permissions) }
    } catch {
      directory.close()
      throw SystemError(code: error.code, operation: error.operation, subject: directory.path)
    }
    return (directory, true)
  }

  // MARK: - Names inside

  /// What `relative` is, without following it when it is a symbolic link; nil when nothing is there.
  /// The corresponding C function is `fstatat(AT_SYMLINK_NOFOLLOW)`.
  public func status(of relative: String) throws(SystemError) -> FileStatus? {
    try inParent(of: relative, "stat") { (parent, name) throws(SystemError) -> FileStatus? in
      var info = stat()
      if fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return FileStatus(info) }
      let error = SystemError.current("stat", path(of: relative))
      if error.code == ENOENT { return nil }
      throw error
    }
  }

  /// What this directory is. The corresponding C function is `fstat`.
  public func status() throws(SystemError) -> FileStatus {
    do throws(SystemError) { return try descriptor.status() } catch {
      throw SystemError(code: error.code, operation: "fstat", subject: path)
    }
  }

  /// Renames `source` to `destination`, both beneath this directory. Neither is followed: a symbolic link is
  /// renamed, or replaced, as the link it is. The corresponding C function is `renameat`.
  public func rename(_ source: String, to destination: String) throws(SystemError) {
    try inParent(of: source, "rename") { (sourceParent, sourceName) throws(SystemError) in
      try inParent(of: destination, "rename") { (parent, name) throws(SystemError) in
        if renameat(sourceParent, sourceName, parent, name) != 0 {
          throw SystemError.current("rename", path(of: source) + " to " + path(of: destination))
        }
      }
    }
  }

  /// Removes the name `relative` (a symbolic link is removed, not what it points to). The corresponding C function
  /// is `unlinkat`.
  public func removeFile(_ relative: String) throws(SystemError) {
    try inParent(of: relative, "unlink") { (parent, name) throws(SystemError) in
      if unlinkat(parent, name, 0) != 0 { throw SystemError.current("unlink", path(of: relative)) }
    }
  }

  /// Removes the empty directory `relative`. The corresponding C function is `unlinkat(AT_REMOVEDIR)`.
  public func removeDirectory(_ relative: String) throws(SystemError) {
    try inParent(of: relative, "rmdir") { (parent, name) throws(SystemError) in
      if unlinkat(parent, name, AT_REMOVEDIR) != 0 { throw SystemError.current("rmdir", path(of: relative)) }
    }
  }

  /// The names in this directory, without "." and "..", in the order the file system gives them.
  /// - Important: a name that is not valid UTF-8 is returned repaired, so it no longer names its file.
  public func entries() throws(SystemError) -> [String] {
    let fd = openat(descriptor.rawValue, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError.current("open", path) }
    guard let stream = fdopendir(fd) else {
      let error = SystemError.current("fdopendir", path)
      Glibc.close(fd)
      throw error
    }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = entry.name
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  // MARK: - The directory itself

  /// Gives the directory to `uid` and `gid` (`fchown` on its descriptor).
  public func changeOwner(uid: uid_t, gid: gid_t) throws(SystemError) {
    do throws(SystemError) { try descriptor.changeOwner(uid: uid, gid: gid) } catch {
      throw SystemError(code: error.code, operation: "fchown", subject: path)
    }
  }

  /// Sets the directory's permission bits exactly (`fchmod` on its descriptor).
  public func changeMode(_ permissions: mode_t) throws(SystemError) {
    do throws(SystemError) { try descriptor.changeMode(permissions) } catch {
      throw SystemError(code: error.code, operation: "fchmod", subject: path)
    }
  }

  /// Makes the directory's entries durable (`fsync` on its descriptor), after a create or a rename inside it.
  public func synchronize() throws(SystemError) {
    if fsync(descriptor.rawValue) != 0 { throw SystemError.current("fsync", path) }
  }

  // MARK: - Resolution

  /// The components of `relative`, or a refusal: empty, absolute, `..`, or a NUL byte. "." components and repeated
  /// slashes are dropped, so "." alone is no components (this directory).
  private func checked(_ relative: String, _ operation: String) throws(SystemError) -> [String] {
    if relative.isEmpty || relative.utf8.contains(0) {
      throw SystemError(code: EINVAL, operation: operation, subject: path(of: relative), detail: "is not a path")
    }
    if relative.hasPrefix("/") {
      throw SystemError(
        code: EXDEV, operation: operation, subject: relative, detail: "is absolute, not a path inside \(path)")
    }
    let components = relative.split(separator: "/").map(String.init).filter { $0 != "." }
    if components.contains("..") {
      throw SystemError(
        code: EXDEV, operation: operation, subject: path(of: relative),
        detail: "has a \"..\" component; only paths that stay inside \(path) are opened")
    }
    return components
  }

  /// Runs `body` with the directory that holds `relative`'s last component (opened beneath this one, then closed)
  /// and that component's name.
  private func inParent<Result>(
    of relative: String, _ operation: String, _ body: (Int32, String) throws(SystemError) -> Result
  ) throws(SystemError) -> Result {
    var components = try checked(relative, operation)
    guard let name = components.popLast() else {
      throw SystemError(code: EINVAL, operation: operation, subject: path(of: relative), detail: "names no entry")
    }
    if components.isEmpty { return try body(descriptor.rawValue, name) }
    let parent = try openBeneath(components, Self.pathOnly | O_DIRECTORY, mode: 0, relative: relative)
    defer { parent.close() }
    return try body(parent.rawValue, name)
  }

  /// Opens `components` beneath the directory, following no symbolic link: openat2, else one `openat` per
  /// component (each one before the last opened `Self.pathOnly | O_DIRECTORY | O_NOFOLLOW`). No components is the
  /// directory itself.
  func openBeneath(_ components: [String], _ flags: Int32, mode: mode_t, relative: String) throws(SystemError)
    -> FileDescriptor
  {
    // openat2 refuses O_PATH with any flag beyond O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC.
    let flags = flags | O_CLOEXEC | (flags & Self.pathOnly != 0 ? 0 : O_NOCTTY)
    if resolution == .automatic && !Self.openat2IsMissing {
      // RESOLVE_NO_SYMLINKS refuses a link at the end too, with ELOOP (where O_NOFOLLOW | O_DIRECTORY says ENOTDIR).
      let fd = ih_openat2_beneath(
        descriptor.rawValue, components.isEmpty ? "." : components.joined(separator: "/"), flags, UInt32(mode))
      if fd >= 0 { return FileDescriptor(rawValue: fd) }
      if -fd != ENOSYS { throw refusal(-fd, "open", relative) }
      Self.openat2Missing.store(true, ordering: .relaxed)
    }
    var current = descriptor.rawValue
    defer { if current != descriptor.rawValue { Glibc.close(current) } }
    let names = components.isEmpty ? ["."] : components
    for (index, name) in names.enumerated() {
      let isLast = index == names.count - 1
      let fd =
        isLast
        ? openat(current, name, flags | O_NOFOLLOW, mode)
        : openat(current, name, Self.pathOnly | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      if fd < 0 {
        var code = ih_errno()
        if code == EINTR { return try openBeneath(components, flags, mode: mode, relative: relative) }
        // O_NOFOLLOW with O_DIRECTORY fails a symbolic link as "not a directory": say what it is.
        var info = stat()
        if code == ENOTDIR && fstatat(current, name, &info, AT_SYMLINK_NOFOLLOW) == 0
          && info.st_mode & S_IFMT == S_IFLNK
        {
          code = ELOOP
        }
        throw refusal(code, "open", relative)
      }
      if isLast { return FileDescriptor(rawValue: fd) }
      if current != descriptor.rawValue { Glibc.close(current) }
      current = fd
    }
    fatalError("unreachable: the last component returns or throws")
  }

  /// The error for `code` from resolving `relative`, with the reason when it is a refusal.
  private func refusal(_ code: Int32, _ operation: String, _ relative: String) -> SystemError {
    let detail: String?
    switch code {
    case ELOOP: detail = "is a symbolic link or passes through one"
    case EXDEV: detail = "leaves \(path)"
    case ENXIO: detail = "is a FIFO, device or socket, not a regular file"
    default: detail = nil
    }
    return SystemError(code: code, operation: operation, subject: path(of: relative), detail: detail)
  }
}
