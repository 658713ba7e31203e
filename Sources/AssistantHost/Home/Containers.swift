// The home's containers and app-group folders, made ready for a launch through descriptors only.
import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import ProcessSupervision
import UntrustedText

extension AssistantHome {
  /// Gets a launch's container and app-group folders ready, through descriptors only (`DirectoryDescriptor`):
  ///
  /// - A folder that does not exist is made once with its final owner and mode, set on its new descriptor (`mkdirat`,
  ///   then `fchown` and `fchmod`): the container (and its `Documents`, `Library`, `tmp`) mode 0700, owned by the
  ///   app's uid when the host is root; each group folder mode 2770, owned by root and the group's gid (the
  ///   set-group-ID bit gives everything made inside to the group). Not root: the host's user, 0700 and 0770.
  /// - A folder that exists costs one open and one `fstat`. Its own owner, group or mode, if wrong, is set again on
  ///   its descriptor. Nothing inside is walked, unless the folder belongs to another owner (a container made by an
  ///   earlier host as root, or by a root `--no-sandbox` launch) or another group (a group folder made by an earlier
  ///   host): only then is it handed over, by `adopt`, which never follows a link. An app cannot bring that about:
  ///   it cannot give its container away, nor change a group folder, which is root's.
  ///
  /// Nothing here follows a link an app or a group member could have planted: the parents (`Containers/`, the app
  /// groups' root) are the host's or the user's (opened as trusted, a link of the user's own followed), and each
  /// folder is made and opened beneath them following no link.
  /// With volumes (`StorageEnforcement.volumes`), each folder is made first, then made or mounted as its volume
  /// (`Volume.ensureMounted`), and what is above is done in the volume.
  /// - Parameters:
  ///   - identity: the app's uid and each group's gid when the host is root; nil otherwise.
  ///   - volumes: the budget of each folder's volume when the home's folders are volumes; nil otherwise.
  /// - Throws: `HostError(.refused)` naming the folder that cannot be made or opened (for example a link), or whose
  ///   volume cannot be mounted (`Volume.ensureMounted`).
  func prepareDirectories(
    bundleIdentifier: String, appGroups: [AppGroupLocation], identity: (uid: uid_t, groups: [gid_t])?,
    volumes: StorageBudget? = nil
  ) throws {
    try prepareContainer(bundleIdentifier, owner: identity.map { (uid: $0.uid, gid: $0.uid) }, volume: volumes)
    for (index, group) in appGroups.enumerated() {
      _ = try prepareAppGroup(group.identifier, gid: identity?.groups[index], volume: volumes)
    }
  }

  /// The budget to mount `folder`'s volume with when the home checks before each launch but the folder still has an
  /// image (a fold back that failed or was interrupted): its files are in the image, so it is mounted (the budget
  /// only sizes a new image, and this one exists). Nil for a folder without one.
  private func leftVolume(_ folder: StorageFolder) -> StorageBudget? {
    volume(of: folder).hasImage ? StorageBudget.standard : nil
  }

  /// Makes or checks `Containers/<bundle id>` (see `prepareDirectories`).
  /// - Parameter volume: the budget of its volume when it is to be one; nil otherwise.
  /// - Precondition: the home is prepared (`prepare()`): `Containers/` exists.
  func prepareContainer(_ bundleIdentifier: String, owner: (uid: uid_t, gid: gid_t)?, volume: StorageBudget? = nil)
    throws
  {
    let name = try Self.pathComponent(bundleIdentifier, "bundle identifier")
    var created = false
    let volume = try volume ?? leftVolume(containerFolder(name))
    if let volume {
      try preparing(containers.path + "/" + name) { () throws(SystemError) in
        let containers = try DirectoryDescriptor.openTrusted(self.containers.path)
        defer { containers.close() }
        let made = try containers.makeDirectory(name, permissions: 0o700, owner: owner)
        made.directory.close()
        created = made.created
      }
      try self.volume(of: try containerFolder(name)).ensureMounted(budget: volume, owner: owner, permissions: 0o700)
    }
    try preparing(containers.path + "/" + name) { () throws(SystemError) in
      let containers = try DirectoryDescriptor.openTrusted(self.containers.path)
      defer { containers.close() }
      let (container, madeNow) = try containers.makeDirectory(name, permissions: 0o700, owner: owner)
      defer { container.close() }
      if !(created || madeNow) || volume != nil {
        try settle(container, owner: owner, permissions: 0o700, shared: false)
      }
      // The app may have removed or replaced these: it is its own container, so what is there is left alone. A
      // full volume has no room for them: the launch goes on without, so that the extension may make room.
      for sub in ["Documents", "Library", "tmp"] where try container.status(of: sub) == nil {
        do throws(SystemError) {
          try container.makeDirectory(sub, permissions: 0o700, owner: owner).directory.close()
        } catch  where volume != nil && (error.code == ENOSPC || error.code == EDQUOT) {
          continue
        }
      }
    }
  }

  /// Makes or checks the folder of app group `identifier` (see `prepareDirectories`) and its
  /// `Library/Preferences`, where the group's shared defaults live.
  /// - Parameters:
  ///   - gid: the group's gid when the host is root; nil otherwise.
  ///   - volume: the budget of its volume when it is to be one; nil otherwise.
  /// - Returns: the folder's location.
  /// - Precondition: the home is prepared (`prepare()`): the app groups' root exists.
  func prepareAppGroup(_ identifier: String, gid: gid_t?, volume: StorageBudget? = nil) throws -> URL {
    let location = try appGroupLocation(identifier)
    let owner = gid.map { (uid: uid_t(0), gid: $0) }
    let permissions: mode_t = gid == nil ? 0o770 : 0o2770
    var created = false
    let volume = try volume ?? leftVolume(appGroupFolder(identifier))
    if let volume {
      try preparing(location.path) { () throws(SystemError) in
        let root = try DirectoryDescriptor.openTrusted(appGroupsRoot.path)
        defer { root.close() }
        let made = try root.makeDirectory(location.lastPathComponent, permissions: permissions, owner: owner)
        made.directory.close()
        created = made.created
      }
      try self.volume(of: try appGroupFolder(identifier)).ensureMounted(
        budget: volume, owner: owner, permissions: permissions)
    }
    try preparing(location.path) { () throws(SystemError) in
      let root = try DirectoryDescriptor.openTrusted(appGroupsRoot.path)
      defer { root.close() }
      let (group, madeNow) = try root.makeDirectory(location.lastPathComponent, permissions: permissions, owner: owner)
      defer { group.close() }
      if volume != nil { try settle(group, owner: owner, permissions: permissions, shared: true) }
      if created || madeNow {
        try group.makeDirectory("Library", permissions: permissions, owner: owner).directory.close()
        try group.makeDirectory("Library/Preferences", permissions: permissions, owner: owner).directory.close()
      } else if volume == nil {
        try settle(group, owner: owner, permissions: permissions, shared: true)
      }
    }
    return location
  }

  /// Runs `body`, which prepares the folder at `path`, and turns its failure into a refusal naming the folder.
  func preparing(_ path: String, _ body: () throws(SystemError) -> Void) throws {
    do throws(SystemError) {
      try body()
    } catch {
      throw HostError(.refused, "cannot prepare \(path) for the launch: \(error)")
    }
  }

  /// Checks an existing container or group folder against its owner and mode, on its descriptor: a folder of the
  /// right owner (uid for a container, gid for a group) only gets its own ownership and mode set again if they
  /// changed; one of another owner is handed over with everything in it (`adopt`).
  func settle(
    _ folder: DirectoryDescriptor, owner: (uid: uid_t, gid: gid_t)?, permissions: mode_t, shared: Bool
  ) throws(SystemError) {
    guard let owner else { return }
    let status = try folder.status()
    let foreign = shared ? status.group != owner.gid : status.owner != owner.uid
    if foreign {
      // Made by an earlier host or a root launch: hand over what it holds.
      try adopt(folder, owner: owner, shared: shared, depth: 0)
    }
    if foreign || status.owner != owner.uid || status.group != owner.gid {
      try folder.changeOwner(uid: owner.uid, gid: owner.gid)
    }
    if foreign || status.permissions != permissions { try folder.changeMode(permissions) }
  }

  /// Gives everything in `folder` to `owner`, through descriptors only: each entry is opened beneath its folder
  /// without following a link (`openDirectory`, or `openFile` read-only, which refuses FIFOs, devices and sockets),
  /// checked on its descriptor, and changed there (`fchown`, `fchmod`: user bits kept, group bits as the folder
  /// shares them). Links, special files, files with a second name (a hard link to a file elsewhere) and anything
  /// deeper than 64 folders are left as they are, and an entry that changes under the walk is skipped, never
  /// followed.
  func adopt(
    _ folder: DirectoryDescriptor, owner: (uid: uid_t, gid: gid_t), shared: Bool, depth: Int
  ) throws(SystemError) {
    guard depth < 64 else { return }
    for name in try folder.entries() {
      guard let status = try? folder.status(of: name) else { continue }  // gone, or renamed: nothing to hand over
      switch status.kind {
      case .directory:
        guard let child = try? folder.openDirectory(name) else { continue }  // replaced under the walk: skipped
        defer { child.close() }
        try adopt(child, owner: owner, shared: shared, depth: depth + 1)
        let current = try child.status()
        try child.changeOwner(uid: owner.uid, gid: owner.gid)
        try child.changeMode((current.permissions & 0o700) | (shared ? 0o2770 : 0o700))
      case .regular:
        guard let file = try? folder.openFile(name, O_RDONLY) else { continue }  // replaced under the walk: skipped
        defer { file.close() }
        let current = try file.status()
        guard current.linkCount == 1 else { continue }
        try file.changeOwner(uid: owner.uid, gid: owner.gid)
        try file.changeMode((current.permissions & 0o700) | (shared ? 0o660 : 0o600))
      default:
        continue
      }
    }
  }

  /// Adds search permission for others (o+x) to each folder above `relative` inside `trusted`, and to `trusted` and
  /// the folders above it, so that an app's uid can reach its container, its groups and its bundle. `trusted` (the
  /// home, the app groups' root) is resolved first, as the user may reach it through a link; from `/` down, each
  /// folder is then opened from the one above without following a link and changed on its descriptor (`fchmod`). A
  /// link below `trusted` (planted in a bundle, say) ends the walk there. Best effort: a folder it cannot open is
  /// left, and the launch then fails with the app's own error.
  func makeSearchable(ancestorsOf relative: String, inside trusted: String) {
    guard let resolved = realpath(trusted, nil) else { return }
    let top = String(cString: resolved)
    free(resolved)
    let names = (top.split(separator: "/") + relative.split(separator: "/").dropLast()).map(String.init)
    guard var current = try? DirectoryDescriptor.openTrusted("/") else { return }
    defer { current.close() }
    for name in names where name != "." {
      guard let next = try? current.openDirectory(name) else { return }
      current.close()
      current = next
      if let status = try? current.status(), status.permissions & 0o001 == 0 {
        _ = try? current.changeMode(status.permissions | 0o001)  // best effort, as above
      }
    }
  }
}
