import Foundation
import IntentHostSystem
import TestSupport
import Testing

@testable import AssistantHost

/// The host makes containers and app-group folders through descriptors, once, with their owner and mode; it never
/// builds a path from an identifier that is not one path component, never walks a folder that is already its app's,
/// and hands over one made by an earlier host without following a link or touching a file with a second name. The
/// ownership tests need root (only root can give a folder away). Each has a control in which the path-following
/// call (`chown(2)`, `chmod(2)`) changes the file outside.
@Suite(.tags(.unit))
struct ContainerTests {
  struct Scene {
    let directory: TemporaryDirectory
    let home: AssistantHome
    var outside: String { directory.file("outside.txt").path }

    init() throws {
      directory = try TemporaryDirectory("intenthost-containers")
      home = try AssistantHome(
        root: directory.file("home").path, environment: ["ASSISTANT_APP_GROUPS": directory.file("groups").path])
      try home.prepare()  // as a launch does first
      try "secret".write(toFile: outside, atomically: false, encoding: .utf8)
      #expect(chmod(outside, 0o600) == 0)
    }

    func status(_ path: String) -> FileStatus? {
      var info = stat()
      return lstat(path, &info) == 0 ? FileStatus(info) : nil
    }

    /// Everything in the scene's folder, to show that nothing was made outside the home.
    func tree() -> [String] {
      (FileManager.default.subpaths(atPath: directory.path) ?? []).sorted()
    }
  }

  static let isRoot = geteuid() == 0
  static let app: (uid: uid_t, gid: gid_t) = (uid: 200_777, gid: 200_777)

  /// An identifier that is not exactly one path component never becomes part of a path, and nothing is made.
  @Test(arguments: ["", ".", "..", "../escape", "a/b", "/tmp/escape", "com.example\0x"])
  func identifiersThatAreNotOneComponentAreRefused(identifier: String) throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let before = scene.tree()
    for attempt in [
      { _ = try scene.home.container(for: identifier) },
      { _ = try scene.home.appGroupLocation(identifier) },
      { try scene.home.prepareContainer(identifier, owner: nil) },
      { _ = try scene.home.prepareAppGroup(identifier, gid: nil) },
      { _ = try scene.home.appGroupContainer(identifier) },
    ] as [() throws -> Void] {
      let error = #expect(throws: HostError.self) { try attempt() }
      #expect(error?.message.contains("is not a single path component") == true, "\(String(describing: error))")
    }
    #expect(scene.tree() == before)
  }

  /// A new container is made with its final mode, and as root its final owner, with Documents, Library and tmp.
  @Test func aContainerIsMadeWithItsOwnerAndMode() throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let owner = Self.isRoot ? Self.app : nil
    try scene.home.prepareContainer("com.example.app", owner: owner)
    let container = scene.home.containers.path + "/com.example.app"
    for path in [container] + ["Documents", "Library", "tmp"].map({ container + "/" + $0 }) {
      let status = scene.status(path)
      #expect(status?.kind == .directory, "\(path)")
      #expect(status?.permissions == 0o700, "\(path)")
      if let owner { #expect(status?.owner == owner.uid && status?.group == owner.gid, "\(path)") }
    }
  }

  /// A group folder is made mode 2770 (0770 without root), and as root owned by root and the group's gid, with its
  /// Library/Preferences alike.
  @Test func aGroupFolderIsMadeWithItsGroupAndMode() throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let gid: gid_t? = Self.isRoot ? 300_777 : nil
    let location = try scene.home.prepareAppGroup("group.com.example.app", gid: gid)
    for path in [location.path, location.path + "/Library", location.path + "/Library/Preferences"] {
      let status = scene.status(path)
      #expect(status?.permissions == (gid == nil ? 0o770 : 0o2770), "\(path)")
      if let gid { #expect(status?.owner == 0 && status?.group == gid, "\(path)") }
    }
  }

  /// A container that is already its app's is not walked: whatever the app did inside stays as it is, and only the
  /// container's own mode is set back (an app may chmod its own container, and used to trigger the walk that way).
  @Test(.enabled(if: isRoot, "giving a folder away needs root"))
  func anExistingContainerIsNotWalked() throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    try scene.home.prepareContainer("com.example.app", owner: Self.app)
    let container = scene.home.containers.path + "/com.example.app"
    let mine = container + "/Documents/mine"
    try "mine".write(toFile: mine, atomically: false, encoding: .utf8)
    #expect(chmod(mine, 0o604) == 0)
    try FileManager.default.createSymbolicLink(
      atPath: container + "/Documents/link", withDestinationPath: scene.outside)
    #expect(chmod(container, 0o755) == 0)
    try scene.home.prepareContainer("com.example.app", owner: Self.app)
    #expect(scene.status(container)?.permissions == 0o700)
    #expect(scene.status(mine)?.owner == 0)
    #expect(scene.status(mine)?.permissions == 0o604)
    #expect(scene.status(scene.outside)?.owner == 0)
    #expect(scene.status(scene.outside)?.permissions == 0o600)
  }

  /// A container made by an earlier host (owned by root) is handed to the app: its folders and files, through
  /// descriptors; a link to a file outside, a hard link to one, a FIFO are left alone. Control: `chown(2)` and
  /// `chmod(2)` through the link change the file outside.
  @Test(.enabled(if: isRoot, "giving a folder away needs root"))
  func aContainerMadeByAnEarlierHostIsHandedOverWithoutFollowing() throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let container = scene.home.containers.path + "/com.example.app"
    try FileManager.default.createDirectory(atPath: container + "/Documents/deep", withIntermediateDirectories: true)
    try "old".write(toFile: container + "/Documents/deep/old", atomically: false, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: container + "/Documents/link", withDestinationPath: scene.outside)
    let second = scene.directory.file("second.txt").path
    try "second".write(toFile: second, atomically: false, encoding: .utf8)
    #expect(link(second, container + "/Documents/hard") == 0)
    #expect(mkfifo(container + "/Documents/fifo", 0o600) == 0)
    try scene.home.prepareContainer("com.example.app", owner: Self.app)
    for path in [container, container + "/Documents", container + "/Documents/deep", container + "/Documents/deep/old"]
    {
      #expect(scene.status(path)?.owner == Self.app.uid, "\(path)")
    }
    #expect(scene.status(container)?.permissions == 0o700)
    for path in [scene.outside, second, container + "/Documents/fifo"] {
      #expect(scene.status(path)?.owner == 0, "\(path)")
    }
    #expect(scene.status(scene.outside)?.permissions == 0o600)
    #expect(scene.status(container + "/Documents/link")?.kind == .symbolicLink)
    // Control: the same link, by path.
    #expect(chown(container + "/Documents/link", Self.app.uid, Self.app.gid) == 0)
    #expect(chmod(container + "/Documents/link", 0o666) == 0)
    #expect(scene.status(scene.outside)?.owner == Self.app.uid)
    #expect(scene.status(scene.outside)?.permissions == 0o666)
  }

  /// A link planted in place of a folder on the way to a bundle stops the walk that makes folders searchable: the
  /// folder it leads to keeps its mode. Control: `chmod(2)` through the link changes it.
  @Test func makingFoldersSearchableFollowsNoLink() throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let private_ = scene.directory.file("private").path
    try FileManager.default.createDirectory(atPath: private_, withIntermediateDirectories: true)
    #expect(chmod(private_, 0o700) == 0)
    let app = scene.home.applications.path + "/Evil.app"
    try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: app + "/PlugIns", withDestinationPath: private_)
    scene.home.makeSearchable(ancestorsOf: "Evil.app/PlugIns/X.appex", inside: scene.home.applications.path)
    #expect(scene.status(private_)?.permissions == 0o700)
    #expect((scene.status(app)?.permissions ?? 0) & 0o001 != 0)
    #expect(chmod(app + "/PlugIns", 0o701) == 0)
    #expect(scene.status(private_)?.permissions == 0o701)
  }
}
