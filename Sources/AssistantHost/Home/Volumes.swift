// A volume per container and app group: an ext4 image in <home>/Volumes, loop-mounted on the folder, so that the
// kernel holds the folder to the home's storage budget (docs/SANDBOX.md, **Storage**).
import Foundation
import IntentHostSystem

/// A container or an app-group folder of the home: what a storage budget, and a volume, are for.
package struct StorageFolder: Sendable, Hashable {
  package enum Kind: String, Sendable {
    case container
    case appGroup

    /// The folder of `<home>/Volumes` that holds the images of this kind.
    var volumesFolder: String { self == .container ? "Containers" : "AppGroup" }
  }

  package var kind: Kind
  /// The bundle or group identifier: the folder's name, one path component (`AssistantHome.pathComponent`).
  package var identifier: String
  /// The folder that holds it (`Containers/`, the app groups' root): the host's or the user's, trusted.
  package var parent: String

  package var path: String { parent + "/" + identifier }

  /// "container" or "app group group.com.example.rooms".
  package var what: String { kind == .container ? "container" : "app group \(identifier)" }
}

extension AssistantHome {
  /// `<home>/Volumes`: the volume images (root's, mode 0700).
  package var volumes: URL { root.appendingPathComponent("Volumes") }

  /// The container of `bundleIdentifier`, as a storage folder.
  /// - Throws: `HostError(.dataError)` when the identifier is not one path component.
  package func containerFolder(_ bundleIdentifier: String) throws -> StorageFolder {
    StorageFolder(
      kind: .container, identifier: try Self.pathComponent(bundleIdentifier, "bundle identifier"),
      parent: containers.path)
  }

  /// The folder of app group `identifier`, as a storage folder.
  /// - Throws: `HostError(.dataError)` when the identifier is not one path component.
  package func appGroupFolder(_ identifier: String) throws -> StorageFolder {
    StorageFolder(
      kind: .appGroup, identifier: try Self.pathComponent(identifier, "app group identifier"),
      parent: appGroupsRoot.path)
  }

  /// Every container and app-group folder of the home, and every folder a volume image is kept for, sorted by
  /// kind and name; dot-names (the host's own) are left out. Reads only.
  package func storageFolders() -> [StorageFolder] {
    var found = Set<StorageFolder>()
    for kind in [StorageFolder.Kind.container, .appGroup] {
      let parent = kind == .container ? containers.path : appGroupsRoot.path
      var names = (try? DirectoryDescriptor.withOpened(parent) { try $0.entries() }) ?? []
      let images = (try? DirectoryDescriptor.withOpened(volumes.path + "/" + kind.volumesFolder) { try $0.entries() })
      names += (images ?? []).filter { $0.hasSuffix(".ext4") }.map { String($0.dropLast(5)) }
      for name in names where !name.hasPrefix(".") && (try? Self.pathComponent(name, "folder")) != nil {
        found.insert(StorageFolder(kind: kind, identifier: name, parent: parent))
      }
    }
    return found.sorted {
      ($0.kind == .container ? 0 : 1, $0.identifier) < ($1.kind == .container ? 0 : 1, $1.identifier)
    }
  }

  /// The volume of `folder` (which need not exist yet).
  package func volume(of folder: StorageFolder) -> Volume {
    Volume(folder: folder, images: volumes.path + "/" + folder.kind.volumesFolder)
  }
}

/// The volume of one container or app-group folder: the ext4 image `<home>/Volumes/<Containers|AppGroup>/<id>.ext4`,
/// loop-mounted (nosuid, nodev, noexec) on the folder and left mounted, as a mounted disk is, so that the host, the
/// user and every process see the same files; the kernel refuses a write past it with ENOSPC.
///
/// Every change (making, mounting, folding back) happens under the volume's lock (`.<id>.ext4.lock` beside the
/// image), so two hosts never attach one image twice (two file systems writing one image would corrupt it): a loop
/// device already backed by the image is mounted again rather than a second one attached. Nothing in the folder is
/// trusted: it is opened beneath its parent without following a link, mounted on by descriptor (`move_mount`), and
/// copied in and out by `FileTree`, which follows no link.
///
/// Every method blocks (mkfs, copies, locks): call them off the cooperative pool.
package struct Volume: Sendable {
  package let folder: StorageFolder
  /// `<home>/Volumes/Containers` or `<home>/Volumes/AppGroup`.
  package let images: String

  package var imageName: String { folder.identifier + ".ext4" }
  package var imagePath: String { images + "/" + imageName }
  private var lockName: String { "." + imageName + ".lock" }
  private var newImageName: String { "." + imageName + ".new" }

  /// What the folder is now.
  package enum State: Sendable, Equatable {
    /// Its volume is mounted on it, from its image.
    case mounted(VolumeUsage)
    /// It has an image, which is not mounted on it (after a reboot, say): the next launch mounts it.
    case unmounted
    /// It has no image: a plain folder (or none yet).
    case none
    /// Something else is mounted on it (said in words).
    case foreign(String)
  }

  /// Inodes ext4 keeps for itself (1 to 10; the root folder is 2): a volume's entries are the others.
  static let reservedInodes = 10

  // MARK: - Reading

  /// What the folder is now. Reads only; without root, a mounted image cannot be told from another (its loop
  /// device cannot be opened), and is taken for its volume when it is a loop-mounted ext4 file system.
  /// - Throws: `HostError(.ioError)` when the folder or the image cannot be examined.
  package func state() throws -> State {
    do throws(SystemError) {
      let image = try imageIdentity()
      guard let folder = try openFolder() else { return image == nil ? .none : .unmounted }
      defer { folder.close() }
      switch try check(folder, image: image, trustLoopWithoutRoot: true) {
      case .volume: return .mounted(try Self.usage(of: folder))
      case .plain: return image == nil ? .none : .unmounted
      case .foreign(let what): return .foreign(what)
      }
    } catch {
      throw HostError(.ioError, "cannot examine the \(folder.what) \(folder.path) or its volume: \(error)")
    }
  }

  /// What the volume mounted on `directory` holds and has left, its reserved inodes aside.
  static func usage(of directory: DirectoryDescriptor) throws(SystemError) -> VolumeUsage {
    let space = try directory.fileSystemSpace()
    return VolumeUsage(
      usedBytes: space.usedBytes, availableBytes: space.availableBytes,
      usedEntries: max(0, space.usedEntries - reservedInodes), availableEntries: space.availableEntries)
  }

  /// What is on the folder open at `directory`.
  enum Check: Equatable {
    case volume
    case plain
    case foreign(String)
  }

  /// Whether the folder open at `directory` is its volume: the root of a mount (`statx`) that `/proc/self/mountinfo`
  /// shows as the whole (root "/") ext4 file system of a loop device, nosuid, nodev and noexec, whose backing file
  /// is the image (`LOOP_GET_STATUS64`: device and inode, compared with the image's `fstat`).
  /// - Parameter trustLoopWithoutRoot: when the loop device cannot be opened (not root), take a loop-mounted ext4
  ///   for the volume (for showing only, never for mounting).
  func check(_ directory: DirectoryDescriptor, image: FileIdentity?, trustLoopWithoutRoot: Bool = false)
    throws(SystemError) -> Check
  {
    let status = try MountStatus(of: directory.descriptor)
    guard status.isMountRoot else { return .plain }
    guard let entry = try MountEntry.withID(status.mountID) else {
      return .foreign("a mount this process cannot see in /proc/self/mountinfo")
    }
    let what = "\(entry.source) (\(entry.fileSystem)"
    guard entry.device.major == DeviceNumber.loopMajor, entry.fileSystem == "ext4", entry.root == "/" else {
      return .foreign(entry.root == "/" ? what + ")" : "\(what), its folder \(entry.root))")
    }
    guard entry.options.isSuperset(of: ["nosuid", "nodev", "noexec"]) else {
      return .foreign("\(what), without nosuid, nodev and noexec)")
    }
    guard let image else { return .foreign("\(what); the image \(imagePath) does not exist)") }
    let loop: LoopDevice
    do throws(SystemError) {
      loop = try LoopDevice.open(device: entry.device)
    } catch {
      if trustLoopWithoutRoot && (error.code == EACCES || error.code == EPERM) { return .volume }
      throw error
    }
    defer { loop.close() }
    guard try loop.backingFile() == image else {
      return .foreign("\(loop.path) (ext4, from another file than \(imagePath))")
    }
    return .volume
  }

  /// Whether the folder has an image: then it is its volume until folded back, whatever the home's setting says
  /// (an interrupted or failed `storage set --volumes off` leaves the files in the image). False when the image
  /// cannot be examined (the launch's own checks then say why).
  package var hasImage: Bool { ((try? imageIdentity()) ?? nil) != nil }

  /// The image's device and inode, or nil when it does not exist.
  func imageIdentity() throws(SystemError) -> FileIdentity? {
    guard let imagesFolder = try openImages(creating: false) else { return nil }
    defer { imagesFolder.close() }
    guard let status = try imagesFolder.status(of: imageName) else { return nil }
    guard status.kind == .regular else {
      throw SystemError(code: EINVAL, operation: "use", subject: imagePath, detail: "is \(status.kind), not an image")
    }
    return FileIdentity(status)
  }

  /// The folder, opened beneath its parent without following a link; nil when it does not exist.
  func openFolder() throws(SystemError) -> DirectoryDescriptor? {
    let parent = try DirectoryDescriptor.openTrusted(folder.parent)
    defer { parent.close() }
    do throws(SystemError) {
      return try parent.openDirectory(folder.identifier)
    } catch {
      if error.code == ENOENT { return nil }
      throw error
    }
  }

  /// `images`, opened (made first, mode 0700, when `creating`); nil when it does not exist and is not to be made.
  func openImages(creating: Bool) throws(SystemError) -> DirectoryDescriptor? {
    let volumesRoot = (images as NSString).deletingLastPathComponent
    let home = (volumesRoot as NSString).deletingLastPathComponent
    do throws(SystemError) {
      let root = try DirectoryDescriptor.openTrusted(home)
      defer { root.close() }
      if !creating {
        return try root.openDirectory(
          (volumesRoot as NSString).lastPathComponent + "/" + (images as NSString).lastPathComponent)
      }
      let (volumes, _) = try root.makeDirectory((volumesRoot as NSString).lastPathComponent, permissions: 0o700)
      defer { volumes.close() }
      return try volumes.makeDirectory((images as NSString).lastPathComponent, permissions: 0o700).directory
    } catch {
      if !creating && error.code == ENOENT { return nil }
      throw error
    }
  }

  // MARK: - Making and mounting

  /// Makes sure the folder is its volume, mounted: mounts the image when it is not (the folder must then be empty:
  /// a plain folder that holds files is not hidden under a mount), or makes the volume when there is no image,
  /// moving what the folder holds into it (refused when that is over `budget`).
  /// - Precondition: the folder exists (made by the caller with its owner and mode); the host is root.
  /// - Parameter owner: who the volume's root folder belongs to (with `permissions`); nil: as the folder is.
  /// - Throws: `HostError(.refused)` naming the folder and why (not root, contents over the budget, something else
  ///   mounted on it, files in it while its image is not mounted), `.ioError` when making or mounting fails.
  package func ensureMounted(budget: StorageBudget, owner: (uid: uid_t, gid: gid_t)?, permissions: mode_t) throws {
    // Telling the image's loop device from another's, and mounting, both need root.
    guard geteuid() == 0 else { throw notRoot() }
    try locked { () throws in
      guard let directory = try system({ () throws(SystemError) in try openFolder() }, "open") else {
        throw HostError(.ioError, "cannot make the volume of the \(folder.what) \(folder.path): it does not exist")
      }
      defer { directory.close() }
      let image = try system({ () throws(SystemError) in try imageIdentity() }, "examine")
      switch try system({ () throws(SystemError) in try check(directory, image: image) }, "examine") {
      case .volume:
        return
      case .foreign(let what):
        throw HostError(
          .refused,
          "the \(folder.what) \(folder.path) is not its volume: \(what) is mounted on it; unmount it (umount "
            + "\(folder.path)) so that the host can mount \(imagePath) there")
      case .plain:
        break
      }
      if image != nil {
        let entries = try system({ () throws(SystemError) in try directory.entries() }, "read")
        guard entries.isEmpty else {
          throw HostError(
            .refused,
            "the \(folder.what) \(folder.path) holds files while its volume \(imagePath) is not mounted on it, and "
              + "mounting it would hide them; move them aside, then copy what you need into the folder once the "
              + "volume is mounted (the image holds what the folder held when it became a volume, and every write "
              + "since)")
        }
        let mount = try mountImage(readOnly: false)
        defer { mount.close() }
        try system({ () throws(SystemError) in try mount.attach(onto: directory) }, "mount")
        return
      }
      try make(in: directory, budget: budget, owner: owner, permissions: permissions)
    }
  }

  /// Makes the image (see `VolumeImage.format`), copies what `directory` holds into it (refused when that is over
  /// `budget`), removes the originals, and mounts the volume on the folder. The image is complete (synced, renamed
  /// into place) before the originals go, so a crash at any point loses nothing: before the rename, the folder is
  /// as it was; after it, the image holds everything.
  private func make(
    in directory: DirectoryDescriptor, budget: StorageBudget, owner: (uid: uid_t, gid: gid_t)?, permissions: mode_t
  ) throws {
    // A folder that cannot be measured is copied all the same: the volume's ENOSPC is the bound then.
    let held = try? DiskUsage.measure(
      folder.path, bytes: budget.bytes, entries: budget.entries, depthLimit: StorageBudget.depthLimit)
    if let held, held.tooDeep || held.bytes > budget.bytes || held.entries > budget.entries {
      let usage = StorageUsage(what: folder.what, path: folder.path, usage: held, budget: budget)
      throw HostError(
        .refused,
        "the \(folder.what) \(folder.path) does not fit in a volume of its storage budget: it holds "
          + "\(usage.summary), over \(budget.description); delete what it no longer needs there, or raise the "
          + "budget with assistant storage set MIB[,FILES]")
    }
    guard let images = try system({ () throws(SystemError) in try openImages(creating: true) }, "make") else {
      throw HostError(.ioError, "cannot make \(self.images)")
    }
    defer { images.close() }
    let current = try system({ () throws(SystemError) in try directory.status() }, "examine")
    let rootOwner = owner ?? (uid: current.owner, gid: current.group)
    try? images.removeFile(newImageName)  // left by a make that was interrupted
    let file = try system(
      { () throws(SystemError) in try images.openFile(newImageName, O_RDWR | O_CREAT | O_EXCL, mode: 0o600) }, "make")
    var keep = false
    defer {
      file.close()
      if !keep { try? images.removeFile(newImageName) }  // best effort: a leftover is removed by the next make
    }
    do {
      try VolumeImage.format(file, budget: budget, rootOwner: rootOwner, name: imagePath)
    } catch let error as SystemError {
      throw HostError(.ioError, "cannot make the volume \(imagePath) of the \(folder.what) \(folder.path): \(error)")
    }
    let mount = try attachAndMount(file, name: imagePath, readOnly: false)
    defer { mount.close() }
    var copying = false
    do throws(SystemError) {
      let root = try mount.root()
      defer { root.close() }
      if try root.status(of: "lost+found") != nil { try root.removeDirectory("lost+found") }
      copying = true
      try FileTree.copy(from: directory, to: root)
      copying = false
      try root.changeOwner(uid: rootOwner.uid, gid: rootOwner.gid)
      try root.changeMode(owner == nil ? current.permissions : permissions)
      try root.synchronizeFileSystem()
      try images.rename(newImageName, to: imageName)
      keep = true
      try images.synchronize()
      try FileTree.removeContents(of: directory)
      try mount.attach(onto: directory)
    } catch {
      if copying && (error.code == ENOSPC || error.code == EDQUOT) {
        throw HostError(
          .refused,
          "the \(folder.what) \(folder.path) does not fit in a volume of its storage budget of "
            + "\(budget.description): \(error); delete what it no longer needs there, or raise the budget with "
            + "assistant storage set MIB[,FILES]")
      }
      throw HostError(.ioError, "cannot make the volume \(imagePath) of the \(folder.what) \(folder.path): \(error)")
    }
  }

  /// The image, on its loop device (the one already backed by it, else a new one), mounted detached.
  private func mountImage(readOnly: Bool) throws -> DetachedMount {
    guard let images = try system({ () throws(SystemError) in try openImages(creating: false) }, "open") else {
      throw HostError(.ioError, "cannot mount \(imagePath): \(self.images) does not exist")
    }
    defer { images.close() }
    let file = try system({ () throws(SystemError) in try images.openFile(imageName, O_RDWR) }, "open")
    defer { file.close() }
    return try attachAndMount(file, name: imagePath, readOnly: readOnly)
  }

  /// Mounts the image open at `file` (detached, nosuid, nodev, noexec) from the loop device already backed by it,
  /// or from a new one.
  private func attachAndMount(_ file: FileDescriptor, name: String, readOnly: Bool) throws -> DetachedMount {
    do throws(SystemError) {
      let identity = FileIdentity(try file.status())
      let loop: LoopDevice
      if let existing = try LoopDevice.backed(by: identity) {
        loop = existing
      } else {
        loop = try LoopDevice.attach(file, name: name)
      }
      defer { loop.close() }  // the mount holds the device from here
      return try DetachedMount.mount("ext4", from: loop.path, readOnly: readOnly)
    } catch {
      throw HostError(.ioError, "cannot mount the volume \(name) of the \(folder.what) \(folder.path): \(error)")
    }
  }

  // MARK: - Folding back

  /// Turns the folder back into a plain folder holding what its volume held, and removes the image: unmounts the
  /// volume (refused while a process uses it), copies its files into a new folder beside it, puts that folder in
  /// its place, removes the image. Nothing to do without an image. Until the image is removed, it holds everything,
  /// so an interruption loses nothing (the next call starts again).
  /// - Returns: whether there was a volume to fold back.
  /// - Throws: `HostError(.refused)` while the volume is in use, when something else is mounted on the folder, or
  ///   when the folder holds files under the volume; `.ioError` when a copy or a removal fails.
  @discardableResult
  package func foldBack() throws -> Bool {
    // Most folders have no image: nothing to lock, nothing made.
    guard try system({ () throws(SystemError) in try imageIdentity() }, "examine") != nil else { return false }
    guard geteuid() == 0 else { throw notRoot() }
    return try locked { () throws -> Bool in
      let image = try system({ () throws(SystemError) in try imageIdentity() }, "examine")
      guard image != nil else { return false }
      let parent = try system({ () throws(SystemError) in try DirectoryDescriptor.openTrusted(folder.parent) }, "open")
      defer { parent.close() }
      if let directory = try system({ () throws(SystemError) in try openFolder() }, "open") {
        let state = try system({ () throws(SystemError) in try check(directory, image: image) }, "examine")
        let mine = try? MountStatus(of: directory.descriptor).mountID
        directory.close()  // before the unmount, which it would keep busy
        switch state {
        case .volume:
          // Mounted elsewhere too (under another app groups' root, or by hand), its files would go on changing
          // there, and be lost with the image.
          let elsewhere = try system(
            { () throws(SystemError) in try mountPoints(of: image!).filter { $0.id != mine }.map(\.mountPoint) },
            "examine")
          guard elsewhere.isEmpty else { throw mountedElsewhere(elsewhere.joined(separator: ", ")) }
          do throws(SystemError) {
            try unmount(folder.path)
          } catch  where error.code == EBUSY {
            throw HostError(
              .refused,
              "the volume of the \(folder.what) \(folder.path) is in use (a running extension or app, or a shell "
                + "whose working directory is in it); end what uses it and try again")
          } catch {
            throw HostError(.ioError, "cannot unmount the volume of the \(folder.what) \(folder.path): \(error)")
          }
        case .foreign(let what):
          throw HostError(
            .refused,
            "the \(folder.what) \(folder.path) is not its volume: \(what) is mounted on it; unmount it first")
        case .plain:
          break
        }
      }
      // Its loop device detaches itself once its last mount is gone; one still attached is in use somewhere.
      if let still = try system({ () throws(SystemError) in try stillAttached(image!) }, "examine") {
        throw mountedElsewhere(still)
      }
      // The folder, if any, is plain now; what was under the mount must not be mixed with the volume's files.
      if let directory = try system({ () throws(SystemError) in try openFolder() }, "open") {
        defer { directory.close() }
        guard try system({ () throws(SystemError) in try directory.entries() }, "read").isEmpty else {
          throw HostError(
            .refused,
            "cannot fold the volume \(imagePath) back into the \(folder.what) \(folder.path): the folder holds files "
              + "of its own under the volume; move them aside and try again")
        }
      }
      do {
        try copyOut(into: parent)
      } catch {
        // The files are all in the image still: mount it back, so that the folder shows them until a fold succeeds.
        if let directory = try? openFolder() {
          defer { directory.close() }
          if (try? directory.entries())?.isEmpty == true, let mount = try? mountImage(readOnly: false) {
            defer { mount.close() }
            try? mount.attach(onto: directory)
          }
        }
        throw error
      }
      do throws(SystemError) {
        guard let images = try openImages(creating: false) else { return true }
        defer { images.close() }
        try images.removeFile(imageName)
        try? images.removeFile(lockName)
        try images.synchronize()
      } catch {
        throw HostError(
          .ioError, "folded the \(folder.what) \(folder.path) back, but cannot remove its image \(imagePath): \(error)")
      }
      return true
    }
  }

  /// Copies what the volume holds (mounted read-only, detached) into a new folder beside the folder, then puts that
  /// folder in the folder's place (a rename over an empty folder is one step).
  private func copyOut(into parent: DirectoryDescriptor) throws {
    let mount = try mountImage(readOnly: true)
    defer { mount.close() }
    let staging = ".\(folder.identifier).unfolding"
    do throws(SystemError) {
      if try parent.status(of: staging) != nil {  // left by a fold that was interrupted
        let old = try parent.openDirectory(staging)
        defer { old.close() }
        try FileTree.removeContents(of: old)
        try parent.removeDirectory(staging)
      }
      let root = try mount.root()
      defer { root.close() }
      let rootStatus = try root.status()
      let (copy, _) = try parent.makeDirectory(staging, permissions: 0o700)
      defer { copy.close() }
      try FileTree.copy(from: root, to: copy)
      try copy.changeOwner(uid: rootStatus.owner, gid: rootStatus.group)
      try copy.changeMode(rootStatus.permissions)
      try copy.synchronizeFileSystem()
      try parent.rename(staging, to: folder.identifier)
      try parent.synchronize()
    } catch {
      throw HostError(
        .ioError, "cannot fold the volume \(imagePath) back into the \(folder.what) \(folder.path): \(error)")
    }
  }

  // MARK: - Helpers

  /// The mounts of the loop device backed by the image, if one is.
  func mountPoints(of image: FileIdentity) throws(SystemError) -> [MountEntry] {
    guard let loop = try LoopDevice.backed(by: image) else { return [] }
    defer { loop.close() }
    let device = try loop.deviceNumber()
    return try MountEntry.all().filter { $0.device == device }
  }

  /// Where the image is still in use: its loop device's mount points, or the device itself when it stays attached
  /// without a mount (for 100 ms: it detaches itself just after its last unmount); nil once it is free.
  func stillAttached(_ image: FileIdentity) throws(SystemError) -> String? {
    var waits = 0
    while true {
      let points = try mountPoints(of: image)
      if !points.isEmpty { return points.map(\.mountPoint).joined(separator: ", ") }
      guard let loop = try LoopDevice.backed(by: image) else { return nil }
      let path = loop.path
      loop.close()
      if waits == 10 { return "\(path) (attached without a mount)" }
      usleep(10_000)
      waits += 1
    }
  }

  private func mountedElsewhere(_ places: String) -> HostError {
    HostError(
      .refused,
      "cannot fold the volume \(imagePath) back into the \(folder.what) \(folder.path): it is also mounted on "
        + "\(places); unmount it there and try again")
  }

  /// Runs `body` holding the volume's lock (`flock` on `.<id>.ext4.lock` beside the image).
  private func locked<Result>(_ body: () throws -> Result) throws -> Result {
    let lock: FileDescriptor = try system(
      { () throws(SystemError) in
        guard let images = try openImages(creating: true) else { throw SystemError(code: ENOENT, operation: "open") }
        defer { images.close() }
        return try images.openFile(lockName, O_RDWR | O_CREAT, mode: 0o600)
      }, "lock")
    defer { lock.close() }
    try system({ () throws(SystemError) in try lockFile(lock, exclusive: true) }, "lock")
    defer { unlockFile(lock) }
    return try body()
  }

  /// `body`'s `SystemError` as the host's I/O error about this volume, for the steps no other message fits.
  private func system<Result>(_ body: () throws(SystemError) -> Result, _ verb: String) throws -> Result {
    do throws(SystemError) {
      return try body()
    } catch {
      throw HostError(.ioError, "cannot \(verb) the volume of the \(folder.what) \(folder.path): \(error)")
    }
  }

  private func notRoot() -> HostError {
    HostError(
      .refused,
      "the \(folder.what) \(folder.path) is to be a volume of its own (assistant storage set --volumes on), which "
        + "only root can mount; run assistant as root, or turn volumes off with assistant storage set --volumes off "
        + "(as root)")
  }
}
