import CIntentHostSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A device number, as the kernel shows it in `/proc/self/mountinfo` (`MAJOR:MINOR`).
public struct DeviceNumber: Sendable, Hashable, CustomStringConvertible {
  public var major: UInt32
  public var minor: UInt32

  public init(major: UInt32, minor: UInt32) {
    self.major = major
    self.minor = minor
  }

  /// The numbers of a `dev_t` (`FileStatus.device`). The corresponding C macros are `major` and `minor`.
  public init(_ device: UInt64) {
    var major: UInt32 = 0
    var minor: UInt32 = 0
    _ = ih_device_numbers(device, &major, &minor)
    self.init(major: major, minor: minor)
  }

  /// The block major of loop devices.
  public static let loopMajor: UInt32 = 7

  public var description: String { "\(major):\(minor)" }
}

/// A file named by where it lives and its inode: what a loop device says backs it, compared with a file's `fstat`.
public struct FileIdentity: Sendable, Hashable {
  public var device: DeviceNumber
  public var inode: UInt64

  public init(device: DeviceNumber, inode: UInt64) {
    self.device = device
    self.inode = inode
  }

  /// The identity of the file `status` describes.
  public init(_ status: FileStatus) {
    self.init(device: DeviceNumber(status.device), inode: status.inode)
  }
}

/// A loop device: a block device whose blocks are a file's (`/dev/loopN`).
///
/// The host attaches a file system image with `attach(_:name:)` and mounts the device it gets; the device detaches
/// itself when its last user (the mount) goes (`LO_FLAGS_AUTOCLEAR`), so nothing is left to clean up.
public struct LoopDevice: Sendable, Hashable {
  /// The open device, read-write; close it once the device is mounted (closing it earlier detaches the device).
  public let descriptor: FileDescriptor
  /// N of `/dev/loopN`.
  public let number: Int32

  /// `/dev/loopN`.
  public var path: String { "/dev/loop\(number)" }

  /// Attaches the file open (read-write) at `file` to a free loop device. The corresponding C calls are
  /// `ioctl(LOOP_CTL_GET_FREE)` and `ioctl(LOOP_CONFIGURE)`.
  /// - Parameter name: what `losetup` shows for it (the image's path).
  /// - Throws: `SystemError` (`EPERM` without root, `ENOENT` without /dev/loop-control).
  public static func attach(_ file: FileDescriptor, name: String) throws(SystemError) -> LoopDevice {
    var number: Int32 = -1
    let fd = ih_loop_attach(file.rawValue, name, &number)
    guard fd >= 0 else { throw SystemError(code: -fd, operation: "attach a loop device to", subject: name) }
    return LoopDevice(descriptor: FileDescriptor(rawValue: fd), number: number)
  }

  /// Opens the loop device whose number is `device` (its `N` found in `/sys/dev/block/7:MINOR`), to ask it what
  /// backs it.
  /// - Throws: `SystemError` (`ENXIO` when `device` is not a loop device).
  public static func open(device: DeviceNumber) throws(SystemError) -> LoopDevice {
    let link = "/sys/dev/block/\(device)"
    var target = [CChar](repeating: 0, count: 4096)
    let count = readlink(link, &target, target.count - 1)
    let name = count > 0 ? String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    guard device.major == DeviceNumber.loopMajor, let last = name.split(separator: "/").last, last.hasPrefix("loop"),
      let number = Int32(last.dropFirst(4))
    else { throw SystemError(code: ENXIO, operation: "find the loop device", subject: device.description) }
    return try open(number: number)
  }

  /// Opens `/dev/loopN` (read-only: only to ask it what backs it).
  /// - Throws: `SystemError` from the open.
  public static func open(number: Int32) throws(SystemError) -> LoopDevice {
    LoopDevice(descriptor: try FileDescriptor.open("/dev/loop\(number)", O_RDONLY), number: number)
  }

  /// The file that backs the device, or nil when none does (a free device). The corresponding C call is
  /// `ioctl(LOOP_GET_STATUS64)`.
  public func backingFile() throws(SystemError) -> FileIdentity? {
    var major: UInt32 = 0
    var minor: UInt32 = 0
    var inode: UInt64 = 0
    let code = ih_loop_backing(descriptor.rawValue, &major, &minor, &inode)
    if code == -ENXIO { return nil }
    guard code == 0 else { throw SystemError(code: -code, operation: "ask what backs", subject: path) }
    return FileIdentity(device: DeviceNumber(major: major, minor: minor), inode: inode)
  }

  /// The device's number (`st_rdev`), as `/proc/self/mountinfo` shows the file systems on it.
  public func deviceNumber() throws(SystemError) -> DeviceNumber {
    var info = stat()
    guard fstat(descriptor.rawValue, &info) == 0 else { throw SystemError.current("fstat", path) }
    return DeviceNumber(UInt64(info.st_rdev))
  }

  /// Closes the descriptor.
  public func close() { descriptor.close() }

  /// The loop devices the kernel has bound to a file now (those with `/sys/block/loopN/loop`), by N. (Each
  /// `/sys/block/loopN` is the kernel's link into `/sys/devices`: sysfs is trusted, and followed.)
  public static func boundNumbers() -> [Int32] {
    guard let folder = try? DirectoryDescriptor.openTrusted("/sys/block") else { return [] }
    defer { folder.close() }
    return ((try? folder.entries()) ?? []).compactMap { name in
      guard name.hasPrefix("loop"), let number = Int32(name.dropFirst(4)) else { return nil }
      return access("/sys/block/\(name)/loop", F_OK) == 0 ? number : nil
    }.sorted()
  }

  /// The loop device already backed by the file `identity` names, if one is: opened, to be mounted again rather than
  /// attaching the file a second time (two devices on one image would make two file systems write it).
  /// - Throws: `SystemError` when a bound device cannot be opened or asked (not root).
  public static func backed(by identity: FileIdentity) throws(SystemError) -> LoopDevice? {
    for number in boundNumbers() {
      let device: LoopDevice
      do throws(SystemError) {
        device = try open(number: number)
      } catch {
        if error.code == ENOENT || error.code == ENXIO { continue }  // gone meanwhile
        throw error
      }
      if (try? device.backingFile()) == identity { return device }
      device.close()
    }
    return nil
  }
}

/// A mount that is not attached anywhere yet (the new mount API): what is in it is reached through `descriptor`,
/// and `attach(onto:)` puts it on a folder given as a descriptor, so no path is resolved. It is gone when its
/// descriptor closes unattached.
public struct DetachedMount: Sendable {
  /// The mount's root (an `O_PATH` descriptor).
  public let descriptor: FileDescriptor
  /// The device it was made from, for messages.
  public let source: String

  /// Mounts `fileSystem` (e.g. "ext4") from the block device `source`, nosuid, nodev and noexec, read-only when
  /// asked. The corresponding C calls are `fsopen`, `fsconfig` and `fsmount`.
  /// - Throws: `SystemError` naming the step and the source, with the file system's own message as the detail
  ///   when it gave one ("VFS: Can't find ext4 filesystem").
  public static func mount(_ fileSystem: String, from source: String, readOnly: Bool = false) throws(SystemError)
    -> DetachedMount
  {
    var message = [CChar](repeating: 0, count: 256)
    var stage: Int32 = 0
    let fd = ih_mount_detached(fileSystem, source, readOnly ? 1 : 0, &message, Int32(message.count), &stage)
    guard fd >= 0 else {
      let said = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      // The kernel prefixes its messages with "e " (error), "w " or "i ".
      let words = said.count > 2 && said.dropFirst().hasPrefix(" ") ? String(said.dropFirst(2)) : said
      let step = ["open the \(fileSystem) file system of", "name", "mount", "mount"][max(0, min(3, Int(stage) - 1))]
      var error = SystemError(code: -fd, operation: step, subject: source)
      if !words.isEmpty { error.detail = "\(error.reason): \(words)" }
      throw error
    }
    return DetachedMount(descriptor: FileDescriptor(rawValue: fd), source: source)
  }

  /// The mount's root as a directory to read and write in.
  /// - Throws: `SystemError` from reopening it.
  public func root() throws(SystemError) -> DirectoryDescriptor {
    try DirectoryDescriptor.reopen(descriptor, path: "the new file system on \(source)")
  }

  /// Attaches the mount onto the folder open at `target`: from then on the folder's path leads into the mount. The
  /// corresponding C call is `move_mount` with both paths empty.
  /// - Throws: `SystemError` naming `targetPath` (for messages only).
  public func attach(onto target: DirectoryDescriptor) throws(SystemError) {
    let code = ih_move_mount(descriptor.rawValue, target.descriptor.rawValue)
    guard code == 0 else { throw SystemError(code: -code, operation: "mount \(source) on", subject: target.path) }
  }

  /// Closes the descriptor: an unattached mount goes with it.
  public func close() { descriptor.close() }
}

/// Where a file is mounted: what `statx` says of it.
public struct MountStatus: Sendable, Hashable {
  /// The mount's id, as in `/proc/self/mountinfo`.
  public var mountID: UInt64
  /// Whether the file is the root of its mount (a folder something is mounted on, seen through the mount).
  public var isMountRoot: Bool
  /// The device of the file system it is on.
  public var device: DeviceNumber
  public var inode: UInt64

  /// What `statx` says of the file open at `descriptor`.
  /// - Throws: `SystemError` (`ENOSYS` on a kernel before Linux 5.8, without mount ids).
  public init(of descriptor: FileDescriptor) throws(SystemError) {
    var id: UInt64 = 0
    var root: Int32 = 0
    var major: UInt32 = 0
    var minor: UInt32 = 0
    var inode: UInt64 = 0
    let code = ih_mount_of(descriptor.rawValue, &id, &root, &major, &minor, &inode)
    guard code == 0 else { throw SystemError(code: -code, operation: "statx") }
    mountID = id
    isMountRoot = root == 1
    device = DeviceNumber(major: major, minor: minor)
    self.inode = inode
  }
}

/// One line of `/proc/self/mountinfo`.
public struct MountEntry: Sendable, Hashable {
  public var id: UInt64
  public var parentID: UInt64
  public var device: DeviceNumber
  /// The folder of the file system that is mounted ("/" for its root; another for a bind mount of a folder in it).
  public var root: String
  /// Where it is mounted, as this process sees it.
  public var mountPoint: String
  /// The mount's own options ("rw", "nosuid", "nodev", "noexec", "relatime", ...).
  public var options: Set<String>
  public var fileSystem: String
  public var source: String

  /// Parses one line, unescaping the octal escapes (`\040` for a space) of the paths; nil for a malformed line.
  public init?(line: Substring) {
    let fields = line.split(separator: " ", omittingEmptySubsequences: false)
    guard let separator = fields.firstIndex(of: "-"), separator >= 6, fields.count >= separator + 3,
      let id = UInt64(fields[0]), let parent = UInt64(fields[1])
    else { return nil }
    let numbers = fields[2].split(separator: ":")
    guard numbers.count == 2, let major = UInt32(numbers[0]), let minor = UInt32(numbers[1]) else { return nil }
    self.id = id
    parentID = parent
    device = DeviceNumber(major: major, minor: minor)
    root = Self.unescaped(fields[3])
    mountPoint = Self.unescaped(fields[4])
    options = Set(fields[5].split(separator: ",").map(String.init))
    fileSystem = String(fields[separator + 1])
    source = Self.unescaped(fields[separator + 2])
  }

  /// `\NNN` octal escapes decoded.
  static func unescaped(_ field: Substring) -> String {
    var bytes: [UInt8] = []
    var utf8 = Array(field.utf8)[...]
    while let byte = utf8.first {
      if byte == UInt8(ascii: "\\"), utf8.count >= 4,
        let value = UInt8(String(decoding: utf8.dropFirst().prefix(3), as: UTF8.self), radix: 8)
      {
        bytes.append(value)
        utf8 = utf8.dropFirst(4)
      } else {
        bytes.append(byte)
        utf8 = utf8.dropFirst()
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Every mount this process sees (`/proc/self/mountinfo`).
  /// - Throws: `SystemError` when the table cannot be read.
  public static func all() throws(SystemError) -> [MountEntry] {
    let fd = try FileDescriptor.open("/proc/self/mountinfo", O_RDONLY)
    defer { fd.close() }
    let bytes = try fd.readAll(limit: 16 << 20)
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { MountEntry(line: $0) }
  }

  /// The mount with id `id`, if this process sees it.
  /// - Throws: `SystemError` when the table cannot be read.
  public static func withID(_ id: UInt64) throws(SystemError) -> MountEntry? {
    try all().first { $0.id == id }
  }
}

extension DirectoryDescriptor {
  /// Writes everything of the file system the directory is on to its disk. The corresponding C function is
  /// `syncfs`.
  public func synchronizeFileSystem() throws(SystemError) {
    let code = ih_syncfs(descriptor.rawValue)
    guard code == 0 else { throw SystemError(code: -code, operation: "syncfs", subject: path) }
  }

  /// What the file system the directory is on says of its space (`fstatvfs`): bytes and entries, used and left
  /// to an unprivileged writer.
  public func fileSystemSpace() throws(SystemError) -> FileSystemSpace {
    var info = statvfs()
    guard fstatvfs(descriptor.rawValue, &info) == 0 else { throw SystemError.current("statvfs", path) }
    let unit = Int(info.f_frsize)
    return FileSystemSpace(
      usedBytes: (Int(info.f_blocks) - Int(info.f_bfree)) * unit, availableBytes: Int(info.f_bavail) * unit,
      usedEntries: Int(info.f_files) - Int(info.f_ffree), availableEntries: Int(info.f_favail))
  }
}

/// A file system's space, as `statvfs` gives it.
public struct FileSystemSpace: Sendable, Hashable {
  /// Blocks in use (files, folders and their metadata), in bytes.
  public var usedBytes: Int
  /// What an unprivileged writer may still take, in bytes.
  public var availableBytes: Int
  /// Inodes in use, the file system's own reserved ones included.
  public var usedEntries: Int
  /// Inodes an unprivileged writer may still take.
  public var availableEntries: Int

  public init(usedBytes: Int, availableBytes: Int, usedEntries: Int, availableEntries: Int) {
    self.usedBytes = usedBytes
    self.availableBytes = availableBytes
    self.usedEntries = usedEntries
    self.availableEntries = availableEntries
  }
}

/// Unmounts what is mounted on `path` (the last component is not followed). The corresponding C call is
/// `umount2(UMOUNT_NOFOLLOW)`.
/// - Parameter detach: `MNT_DETACH`: detach it now and let it go when its last user does (for a test's cleanup).
/// - Throws: `SystemError` (`EBUSY` while a process has a file or its working directory in it).
public func unmount(_ path: String, detach: Bool = false) throws(SystemError) {
  let code = ih_unmount(path, detach ? 1 : 0)
  guard code == 0 else { throw SystemError(code: -code, operation: "unmount", subject: path) }
}
