import Foundation
import Synchronization
import TestSupport
import Testing

@testable import IntentHostSystem

/// The directory-descriptor API: nothing inside a directory can make it follow a link, leave the directory, or open
/// a FIFO, device or socket. The tests run with openat2 and with the per-component fallback; each refusal has a
/// control in which plain `open(2)` or `FileManager` does with the same path what the API refuses.
@Suite(.tags(.process))
struct DirectoryDescriptorTests {
  /// A scratch directory with `inside/a/b/` (under the directory the test opens) and `outside/b/c`, the file an
  /// attacker aims at.
  struct Scene {
    let scratch: TemporaryDirectory
    var inside: String { scratch.file("inside").path }
    var outside: String { scratch.file("outside").path }
    var secret: String { outside + "/b/c" }

    init() throws {
      scratch = try TemporaryDirectory("intenthost-dirfd")
      try FileManager.default.createDirectory(atPath: inside + "/a/b", withIntermediateDirectories: true)
      try FileManager.default.createDirectory(atPath: outside + "/b", withIntermediateDirectories: true)
      try "secret".write(toFile: secret, atomically: false, encoding: .utf8)
    }

    var secretText: String { (try? String(contentsOfFile: secret, encoding: .utf8)) ?? "<missing>" }

    /// Plants a symbolic link at component `position` of `a/b/c` (0: `a`, 1: `a/b`, 2: `a/b/c`) that leads the
    /// path to the secret.
    func plantLink(at position: Int) throws {
      let linked = ["a", "a/b", "a/b/c"][position]
      let target = [outside, outside + "/b", secret][position]
      try? FileManager.default.removeItem(atPath: inside + "/" + linked)
      try FileManager.default.createSymbolicLink(atPath: inside + "/" + linked, withDestinationPath: target)
    }
  }

  static let resolutions: [PathResolution] = [.automatic, .componentwise]

  final class Flag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
  }

  /// Writes "planted" over `path` with `open(2)`, following links as ordinary code does.
  static func plainWrite(_ path: String) -> Bool {
    let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return write(fd, "planted", 7) == 7
  }

  // MARK: - Symbolic links

  /// A symbolic link as the first, middle or last component of `a/b/c` is refused with ELOOP whatever the open is
  /// for, naming the path; the file it leads to keeps its content. Control: `open(2)` of the same path overwrites it.
  @Test(arguments: resolutions, [0, 1, 2])
  func aSymbolicLinkAtAnyPositionIsRefused(resolution: PathResolution, position: Int) throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    try scene.plantLink(at: position)
    let directory = try DirectoryDescriptor.open(scene.inside, resolution: resolution)
    defer { directory.close() }
    for flags in [O_RDONLY, O_WRONLY | O_TRUNC, O_RDWR | O_CREAT, O_RDWR | O_CREAT | O_EXCL] {
      let error = #expect(throws: SystemError.self) { try directory.openFile("a/b/c", flags).close() }
      #expect(error?.code == (flags & O_EXCL != 0 && position == 2 ? EEXIST : ELOOP), "\(String(describing: error))")
      #expect(error?.subject == scene.inside + "/a/b/c")
      if flags & O_EXCL == 0 {
        #expect(error?.isUnsafeFileRefusal == true)
        #expect(error?.description == "open \(scene.inside)/a/b/c: is a symbolic link or passes through one")
      }
    }
    #expect(throws: SystemError.self) { try directory.openDirectory(["a", "a/b", "a/b/c"][position]).close() }
    #expect(throws: SystemError.self) { try directory.makeDirectory("a/b/c/d").directory.close() }
    #expect(scene.secretText == "secret")
    #expect(!FileManager.default.fileExists(atPath: scene.secret + "/d"))
    // Control: the same path through open(2) reaches the file outside.
    #expect(Self.plainWrite(scene.inside + "/a/b/c"))
    #expect(scene.secretText == "planted")
  }

  /// Operations on a name act on the link itself: `status(of:)` says it is a link, `rename` moves the link,
  /// `removeFile` removes it, `makeDirectory` refuses to open it; a link on the way to the name is refused.
  @Test(arguments: resolutions)
  func namesAreNeverFollowed(resolution: PathResolution) throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    try scene.plantLink(at: 2)
    let directory = try DirectoryDescriptor.open(scene.inside, resolution: resolution)
    defer { directory.close() }
    #expect(try directory.status(of: "a/b/c")?.kind == .symbolicLink)
    #expect(try directory.status(of: "a/b/nothing") == nil)
    try directory.rename("a/b/c", to: "a/moved")
    #expect(try directory.status(of: "a/moved")?.kind == .symbolicLink)
    try directory.removeFile("a/moved")
    #expect(try directory.status(of: "a/moved") == nil)
    #expect(scene.secretText == "secret")

    try FileManager.default.createSymbolicLink(atPath: scene.inside + "/d", withDestinationPath: scene.outside)
    let made = #expect(throws: SystemError.self) { try directory.makeDirectory("d", permissions: 0o700) }
    #expect(made?.code == ELOOP)
    try scene.plantLink(at: 0)
    for operation in [
      { try directory.status(of: "a/b/c") } as () throws -> FileStatus?,
      {
        try directory.removeFile("a/b/c") as Void; return nil
      },
      {
        try directory.rename("a/b/c", to: "stolen") as Void; return nil
      },
      {
        try directory.makeDirectory("a/new").directory.close() as Void; return nil
      },
    ] {
      let error = #expect(throws: SystemError.self) { _ = try operation() }
      #expect(error?.code == ELOOP, "\(String(describing: error))")
    }
    #expect(scene.secretText == "secret")
    #expect(try FileManager.default.contentsOfDirectory(atPath: scene.outside) == ["b"])
  }

  /// The directory itself is opened without following a link at its last component. Control: FileManager lists the
  /// directory the link leads to. A root the caller trusts entirely (`openTrusted`) may be a link; what is beneath
  /// it is still reached following none.
  @Test func theDirectoryItselfIsNotFollowed() throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    let link = scene.scratch.file("link").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scene.outside)
    let error = #expect(throws: SystemError.self) { try DirectoryDescriptor.open(link).close() }
    #expect(error?.code == ELOOP)
    #expect(error?.description == "open \(link): is a symbolic link")
    #expect(try FileManager.default.contentsOfDirectory(atPath: link) == ["b"])
    let trusted = try DirectoryDescriptor.openTrusted(link)
    defer { trusted.close() }
    #expect(try trusted.entries() == ["b"])
    try FileManager.default.createSymbolicLink(atPath: scene.outside + "/l", withDestinationPath: scene.secret)
    #expect(throws: SystemError.self) { try trusted.openFile("l", O_RDONLY).close() }
  }

  // MARK: - FIFOs, devices, sockets

  /// A FIFO is refused at once (ENXIO, "is a FIFO"), for reading and writing. Control: a plain `open(2)` of the same
  /// FIFO blocks until a writer comes (the test then comes as the writer, to end it).
  @Test(arguments: resolutions)
  func aFIFOIsRefusedWithoutBlocking(resolution: PathResolution) async throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    let fifo = scene.inside + "/a/fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let directory = try DirectoryDescriptor.open(scene.inside, resolution: resolution)
    defer { directory.close() }
    for flags in [O_RDONLY, O_RDWR, O_WRONLY | O_CREAT] {
      let error = await offThePool {
        () -> SystemError? in
        do throws(SystemError) {
          try directory.openFile("a/fifo", flags).close()
          return nil
        } catch {
          return error
        }
      }
      #expect(error?.code == ENXIO, "\(String(describing: error))")
      #expect(error?.isUnsafeFileRefusal == true)
      #expect(error?.subject == fifo)
      #expect(error?.detail?.contains("FIFO") == true, "\(String(describing: error))")
    }
    let opened = Flag()
    let reader = Task {
      await offThePool { () -> Void in
        let fd = open(fifo, O_RDONLY | O_CLOEXEC)
        opened.set()
        if fd >= 0 { close(fd) }
      }
    }
    try await Task.sleep(for: .milliseconds(200))
    #expect(!opened.isSet, "a plain open of a FIFO returned without a writer")
    // A writer that stays open until the reader is through: opened read-write, which on Linux never waits for a peer
    // and counts as a writer, so the reader's open returns whenever its thread gets to it (a non-blocking write-only
    // open would fail with ENXIO if it came before the reader's open, and the reader would then wait forever).
    let writer = open(fifo, O_RDWR | O_CLOEXEC)
    #expect(writer >= 0)
    await reader.value
    close(writer)
    #expect(opened.isSet)
  }

  /// A socket file is refused, naming what it is.
  @Test(arguments: resolutions)
  func aSocketIsRefused(resolution: PathResolution) throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    #expect(mknod(scene.inside + "/socket", S_IFSOCK | 0o600, 0) == 0)
    let directory = try DirectoryDescriptor.open(scene.inside, resolution: resolution)
    defer { directory.close() }
    let error = #expect(throws: SystemError.self) { try directory.openFile("socket", O_RDONLY).close() }
    #expect(error?.code == ENXIO)
    #expect(error?.isUnsafeFileRefusal == true)
    #expect(try directory.status(of: "socket")?.kind == .socket)
  }

  /// A device node (made by root: nobody else can) is refused after the open and closed, naming what it is.
  /// Control: a plain `open(2)` opens the device.
  @Test(.enabled(if: geteuid() == 0, "only root can make a device node"), arguments: resolutions)
  func aDeviceIsRefused(resolution: PathResolution) throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    let device = scene.inside + "/null"
    #expect(mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)
    let directory = try DirectoryDescriptor.open(scene.inside, resolution: resolution)
    defer { directory.close() }
    let error = #expect(throws: SystemError.self) { try directory.openFile("null", O_WRONLY).close() }
    #expect(error?.code == ENXIO)
    #expect(error?.description == "open \(device): is a character device, not a regular file")
    #expect(Self.plainWrite(device))
  }

  // MARK: - Staying beneath

  /// Absolute paths, `..` anywhere (even one that would come back inside) and empty paths are refused before the
  /// kernel sees them. Control: `open(2)` of the same `..` path reads the file outside.
  @Test(arguments: resolutions)
  func pathsThatLeaveAreRefused(resolution: PathResolution) throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    let directory = try DirectoryDescriptor.open(scene.inside, resolution: resolution)
    defer { directory.close() }
    for path in ["../outside/b/c", "a/../../outside/b/c", "a/../a/b", "..", scene.secret, "", "a/\0b"] {
      let error = #expect(throws: SystemError.self) { try directory.openFile(path, O_RDONLY).close() }
      #expect(error?.code == (path.isEmpty || path.contains("\0") ? EINVAL : EXDEV), "\(path)")
      #expect(throws: SystemError.self) { try directory.openDirectory(path).close() }
      #expect(throws: SystemError.self) { try directory.status(of: path) }
      #expect(throws: SystemError.self) { try directory.rename("a", to: path) }
    }
    #expect(FileManager.default.fileExists(atPath: scene.inside + "/a/b"))
    #expect(try String(contentsOfFile: scene.inside + "/../outside/b/c", encoding: .utf8) == "secret")
  }

  /// The kernel holds RESOLVE_BENEATH itself: a `..` that reaches openat2 (past the check above) fails with EXDEV.
  @Test(.enabled(if: !DirectoryDescriptor.openat2IsMissing, "this kernel has no openat2"))
  func theKernelKeepsOpenat2Beneath() throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    let directory = try DirectoryDescriptor.open(scene.inside)
    defer { directory.close() }
    let error = #expect(throws: SystemError.self) {
      try directory.openBeneath(["..", "outside", "b", "c"], O_RDONLY, mode: 0, relative: "../outside/b/c").close()
    }
    #expect(error?.code == EXDEV)
    // Control: the fallback relies on the check, not on the kernel: there the same components open the secret.
    let fallback = try DirectoryDescriptor.open(scene.inside, resolution: .componentwise)
    defer { fallback.close() }
    try fallback.openBeneath(["..", "outside", "b", "c"], O_RDONLY, mode: 0, relative: "../outside/b/c").close()
  }

  /// Everything goes through the descriptor, never the path: after the directory is moved away and a link to
  /// another directory takes its name, files are still made in the directory that was opened. Control:
  /// FileManager, given the path, writes into the directory the link leads to.
  @Test(arguments: resolutions)
  func theDescriptorNotThePathIsUsed(resolution: PathResolution) throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    let directory = try DirectoryDescriptor.open(scene.inside, resolution: resolution)
    defer { directory.close() }
    let moved = scene.scratch.file("moved").path
    try FileManager.default.moveItem(atPath: scene.inside, toPath: moved)
    try FileManager.default.createSymbolicLink(atPath: scene.inside, withDestinationPath: scene.outside)
    let file = try directory.openFile("new", O_WRONLY | O_CREAT | O_EXCL)
    file.close()
    _ = try directory.makeDirectory("a/made").directory.close()
    #expect(FileManager.default.fileExists(atPath: moved + "/new"))
    #expect(FileManager.default.fileExists(atPath: moved + "/a/made"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: scene.outside) == ["b"])
    #expect(FileManager.default.createFile(atPath: scene.inside + "/new", contents: Data()))
    #expect(FileManager.default.fileExists(atPath: scene.outside + "/new"))
  }

  // MARK: - Making, owning, listing

  /// A directory it makes gets exactly the permissions asked for (the umask plays no part) and, as root, the owner;
  /// one that exists is opened and left alone.
  @Test(arguments: resolutions)
  func makeDirectorySetsModeAndOwnerOnTheNewDescriptor(resolution: PathResolution) throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    let directory = try DirectoryDescriptor.open(scene.inside, resolution: resolution)
    defer { directory.close() }
    let owner: (uid: uid_t, gid: gid_t)? = geteuid() == 0 ? (uid: 123_456, gid: 234_567) : nil
    let (made, created) = try directory.makeDirectory("a/shared", permissions: 0o2770, owner: owner)
    defer { made.close() }
    #expect(created)
    let status = try made.status()
    #expect(status.kind == .directory)
    #expect(status.permissions == 0o2770)
    if let owner {
      #expect(status.owner == owner.uid)
      #expect(status.group == owner.gid)
    }
    let (again, createdAgain) = try directory.makeDirectory("a/shared", permissions: 0o700)
    defer { again.close() }
    #expect(!createdAgain)
    #expect(try again.status().permissions == 0o2770)
    #expect(try again.status().isSameFile(as: status))
  }

  /// `openFile` opens regular files only and leaves them blocking; `openDirectory` opens directories only;
  /// `entries` lists every name but "." and "..".
  @Test(arguments: resolutions)
  func kindsAndEntries(resolution: PathResolution) throws {
    let scene = try Scene()
    defer { scene.scratch.remove() }
    let directory = try DirectoryDescriptor.open(scene.inside, resolution: resolution)
    defer { directory.close() }
    let file = try directory.openFile("a/file", O_RDWR | O_CREAT, mode: 0o600)
    #expect(fcntl(file.rawValue, F_GETFL) & O_NONBLOCK == 0)
    #expect(fcntl(file.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    file.close()
    let isDirectory = #expect(throws: SystemError.self) { try directory.openFile("a/b", O_RDONLY) }
    #expect(isDirectory?.code == EISDIR)
    let notDirectory = #expect(throws: SystemError.self) { try directory.openDirectory("a/file") }
    #expect(notDirectory?.code == ENOTDIR)
    try FileManager.default.createSymbolicLink(atPath: scene.inside + "/a/link", withDestinationPath: scene.secret)
    let a = try directory.openDirectory("a")
    defer { a.close() }
    #expect(try a.entries().sorted() == ["b", "file", "link"])
    #expect(a.path == scene.inside + "/a")
    let itself = try directory.openDirectory(".")
    defer { itself.close() }
    #expect(try itself.status().isSameFile(as: directory.status()))
  }
}
