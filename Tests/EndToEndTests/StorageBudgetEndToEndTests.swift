import AssistantHost
import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// The storage budget of containers and app groups, through the real host and the FillContainer fixture: with
/// volumes (`assistant storage set --volumes on`) the kernel stops a launch at the budget with ENOSPC and nothing
/// outside its container grows; the control, checked before each launch, lets one launch go over and refuses the
/// next. Each has a run under the budget that succeeds.
@Suite(.serialized, .tags(.endToEnd))
struct StorageBudgetEndToEndTests {
  typealias Scene = HostileExtensionTests.Scene

  /// The budget the tests set for the home: small, so that filling it is quick.
  static let budget = (megabytes: 64, files: 1000)

  /// What the tests look at outside the filled container: the fixture app's own container (a sibling), the home's
  /// other folders (`Applications`, `State`), the groups' root and the volume image's size, each as entries and
  /// bytes.
  static func outside(_ scene: Scene) -> [String: String] {
    var seen: [String: String] = [:]
    let home = scene.host.home
    for path in [
      home + "/Containers/com.example.fixture", home + "/Applications", home + "/State", scene.host.groups,
    ] {
      let usage = try? DiskUsage.measure(path, bytes: Int.max, entries: Int.max)
      seen[path] = usage.map { "\($0.entries) entries, \($0.bytes) bytes" } ?? "absent"
    }
    let image = home + "/Volumes/Containers/com.example.fixture.FillContainer.ext4"
    var info = stat()
    seen[image] = stat(image, &info) == 0 ? "\(info.st_size) bytes long" : "absent"
    return seen
  }

  /// Installs FillContainer, and writes a file into the fixture app's container (its sibling), made by an `open`
  /// of the app, so that the sibling is a real container of the home.
  func prepare(_ scene: Scene, volumes: Bool) async throws {
    try await scene.install("FillContainer")
    let set = try await scene.assistant(
      ["storage", "set", "\(Self.budget.megabytes),\(Self.budget.files)"] + (volumes ? ["--volumes", "on"] : []))
    #expect(set.code == 0, "\(set)")
    let sibling = scene.host.home + "/Containers/com.example.fixture"
    try FileManager.default.createDirectory(atPath: sibling, withIntermediateDirectories: true)
    try "the app's own".write(toFile: sibling + "/kept.txt", atomically: true, encoding: .utf8)
  }

  /// Runs the installed FillContainer with `value` (`files=N`, `mib=N`), with room for a slow machine.
  func runFill(_ scene: Scene, _ value: String, _ options: [String] = []) async throws -> CommandResult {
    try await scene.assistant(options + ["--deadline", "handle=120", "run", "Fixture", "Ping", "value=\(value)"])
  }

  /// What the filled container holds (a walk, unbounded).
  func held(_ scene: Scene) throws -> DiskUsage {
    try DiskUsage.measure(scene.container("FillContainer"), bytes: Int.max, entries: Int.max)
  }

  @Test(
    .needsLoopMounts,
    arguments: ["mib=100", "files=1500"])
  func aVolumeStopsAFillAtTheBudget(fill: String) async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await prepare(scene, volumes: true)
    // Under the budget: the same extension fills a little, and is not told anything.
    let small = fill.hasPrefix("mib") ? "mib=16" : "files=100"
    let under = try await runFill(scene, small)
    #expect(under.code == 0, "\(under)")
    #expect(under.stdout.contains("Got done: wrote"), "\(under)")
    #expect(!under.stderr.contains("is full"), "\(under)")
    let before = Self.outside(scene)
    // Over it: the kernel refuses the writes past the budget, and the extension says so.
    let over = try await runFill(scene, fill)
    #expect(over.code == 0, "\(over)")
    #expect(over.stdout.contains("Got refused:"), "\(over)")
    #expect(over.stdout.contains("No space left on device"), "\(over)")
    let container = scene.container("FillContainer")
    let lines = over.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(over)")
    #expect(
      over.stderr.contains("assistant: FillContainer's container \(container) is full: "), "\(over)")
    #expect(over.stderr.contains("of its budget of 64 MiB and 1000 files"), "\(over)")
    #expect(over.stderr.contains("assistant storage set MIB"), "\(over)")
    // It holds no more than the budget; nothing outside it grew.
    let usage = try held(scene)
    if fill.hasPrefix("mib") {
      #expect(usage.bytes <= Self.budget.megabytes << 20, "\(usage)")
      #expect(usage.bytes > (Self.budget.megabytes - 2) << 20, "\(usage)")
    } else {
      // ext4 counts inodes in whole inode-table blocks (16): the volume has up to 15 fewer than the budget.
      #expect(usage.entries <= Self.budget.files, "\(usage)")
      #expect(usage.entries > Self.budget.files - 16, "\(usage)")
    }
    #expect(Self.outside(scene) == before)
    // Its next launch runs (the kernel holds the budget: nothing to refuse), and is told it is still full.
    let next = try await runFill(scene, "files=1")
    #expect(next.code == 0, "\(next)")
    #expect(next.stderr.contains("is full"), "\(next)")
    #expect(scene.survivors("FillContainer").isEmpty)
    // Full to the last inode or block, with a folder the host makes at each launch removed (as the extension may
    // remove its own tmp): the launch still runs, without it, so that the extension can make room.
    try FileManager.default.removeItem(atPath: container + "/tmp")
    var filler = 0
    while FileManager.default.createFile(atPath: container + "/filler-\(filler)", contents: Data(count: 1 << 20)) {
      filler += 1
      if filler > 200 { break }
    }
    let full = try await runFill(scene, "files=1")
    #expect(full.code == 0, "\(full)")
    #expect(!full.stderr.contains("cannot prepare"), "\(full)")
  }

  /// The control: checked before each launch, the same fill goes past the budget (its launch is not stopped), the
  /// user is told in one line, and the next launch is refused.
  @Test(arguments: ["mib=100", "files=1500"])
  func aCheckedBudgetLetsOneLaunchGoOver(fill: String) async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await prepare(scene, volumes: false)
    let small = fill.hasPrefix("mib") ? "mib=16" : "files=100"
    let under = try await runFill(scene, small)
    #expect(under.code == 0, "\(under)")
    #expect(under.stdout.contains("Got done: wrote"), "\(under)")
    #expect(!under.stderr.contains("is full"), "\(under)")
    let over = try await runFill(scene, fill)
    #expect(over.code == 0, "\(over)")
    #expect(over.stdout.contains("Got done: wrote"), "\(over)")
    let container = scene.container("FillContainer")
    #expect(over.stderr.split(separator: "\n").count == 1, "\(over)")
    #expect(
      over.stderr.contains("assistant: FillContainer's container \(container) is full: it holds at least "),
      "\(over)")
    #expect(over.stderr.contains("over its budget of 64 MiB and 1000 files"), "\(over)")
    let usage = try held(scene)
    if fill.hasPrefix("mib") {
      #expect(usage.bytes > Self.budget.megabytes << 20, "\(usage)")
    } else {
      #expect(usage.entries > Self.budget.files, "\(usage)")
    }
    let refused = try await runFill(scene, "files=1")
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("over its storage budget of 64 MiB and 1000 files"), "\(refused)")
    // The run's own budget wins over the home's.
    let roomy = try await runFill(scene, "files=1", ["--storage-limit", "1024,100000"])
    #expect(roomy.code == 0, "\(roomy)")
    #expect(roomy.stdout.contains("Got done: wrote 1 files"), "\(roomy)")
  }

  /// An app group's volume is one file system for every process: the extension books a room (the group's
  /// bookings document), the app, launched after it, reads the booking, and the folder is a loop mount of the
  /// group's image. Folding the volume back keeps the booking (the control: the same data in a plain folder).
  @Test(
    .needsLoopMounts
  )
  func anAppGroupVolumeIsSharedByTheAppAndItsExtension() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let on = try await host.assistant(["storage", "set", "--volumes", "on"])
    #expect(on.code == 0, "\(on)")
    let booked = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(booked.code == 0, "\(booked)")
    let group = host.groups + "/group.com.example.rooms"
    let mount = try #require(try MountEntry.all().first { $0.mountPoint == group }, "the group is not mounted")
    #expect(mount.fileSystem == "ext4")
    #expect(mount.device.major == DeviceNumber.loopMajor)
    #expect(mount.options.isSuperset(of: ["nosuid", "nodev", "noexec"]))
    let shown = try await host.assistant(["open", "Rooms", "--", "show", "12"])
    #expect(shown.code == 0, "\(shown)")
    #expect(shown.stdout.hasPrefix("Room 12 is booked by Ada"), "\(shown)")
    let storage = try await host.assistant(["storage", "--json"])
    #expect(storage.stdout.contains("\"enforcement\":\"volumes\""), "\(storage)")
    #expect(storage.stdout.contains("\"volume\":\"mounted\""), "\(storage)")

    let off = try await host.assistant(["storage", "set", "--volumes", "off"])
    #expect(off.code == 0, "\(off)")
    #expect(off.stdout.contains("folded back: "), "\(off)")
    #expect(try MountEntry.all().first { $0.mountPoint.hasPrefix(host.home) || $0.mountPoint == group } == nil)
    let still = try await host.assistant(["open", "Rooms", "--", "show", "12"])
    #expect(still.stdout.hasPrefix("Room 12 is booked by Ada"), "\(still)")
  }

  /// Uninstalling an app folds the volumes of its containers, and of the app groups no other app lists, back into
  /// plain folders that keep their files. The control: before, they were mounts.
  @Test(.needsLoopMounts)
  func uninstallingAnAppFoldsItsVolumesBack() async throws {
    let host = try await Self.roomsWithABookingOnVolumes()
    defer { host.directory.remove() }
    let group = host.groups + "/group.com.example.rooms"
    let container = host.home + "/Containers/com.example.rooms.RoomsIntents"
    let mounted = try MountEntry.all().map(\.mountPoint)
    #expect(mounted.contains(group) && mounted.contains(container), "\(mounted)")
    let removed = try await host.assistant(["uninstall", "Rooms"])
    #expect(removed.code == 0, "\(removed)")
    #expect(removed.stderr.isEmpty, "\(removed)")
    let after = try MountEntry.all().map(\.mountPoint)
    #expect(!after.contains { $0.hasPrefix(host.directory.path) }, "\(after)")
    let bookings = try await host.assistant(
      ["defaults", "read", "group.com.example.rooms", "bookings", "--document", "bookings.json"])
    #expect(bookings.stdout.contains("Ada"), "\(bookings)")
    #expect(FileManager.default.fileExists(atPath: container + "/Library"))
  }

  /// An uninstall while one of the app's volumes is in use (here a file the test holds open in its app group) is
  /// refused with 77 before anything is removed: the app stays installed and its volumes stay mounted. The control:
  /// once the file is closed, the same uninstall folds the volumes back and removes the app.
  @Test(.needsLoopMounts)
  func anUninstallWhileAVolumeIsInUseRemovesNothing() async throws {
    let host = try await Self.roomsWithABookingOnVolumes()
    defer { host.directory.remove() }
    let group = host.groups + "/group.com.example.rooms"
    let held = try FileDescriptor.open(group + "/held-open", O_WRONLY | O_CREAT | O_CLOEXEC)
    let refused = try await host.assistant(["uninstall", "Rooms"])
    held.close()
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("cannot uninstall Rooms, which stays installed"), "\(refused)")
    #expect(refused.stderr.contains("in use"), "\(refused)")
    #expect(FileManager.default.fileExists(atPath: host.home + "/Applications/Rooms.app"))
    #expect(try MountEntry.all().map(\.mountPoint).contains(group))
    let removed = try await host.assistant(["uninstall", "Rooms"])
    #expect(removed.code == 0, "\(removed)")
    #expect(!FileManager.default.fileExists(atPath: host.home + "/Applications/Rooms.app"))
    #expect(try !MountEntry.all().map(\.mountPoint).contains { $0.hasPrefix(host.directory.path) })
  }

  /// A volume also mounted somewhere else is not folded back (its files would go on changing there, and be lost
  /// with its image): refused, naming where. The control: once that mount is gone, it is folded back.
  @Test(.needsLoopMounts)
  func aVolumeMountedElsewhereIsNotFoldedBack() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await prepare(scene, volumes: true)
    #expect(try await runFill(scene, "files=2").code == 0)
    let container = scene.container("FillContainer")
    let elsewhere = scene.host.directory.file("elsewhere").path
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
    let bound = try await runCommand("/bin/mount", ["--bind", container, elsewhere])
    #expect(bound.code == 0, "\(bound)")
    let refused = try await scene.assistant(["storage", "set", "--volumes", "off"])
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("it is also mounted on \(elsewhere)"), "\(refused)")
    #expect(
      FileManager.default.fileExists(
        atPath: scene.host.home + "/Volumes/Containers/com.example.fixture.FillContainer.ext4"))
    try unmount(elsewhere)
    let off = try await scene.assistant(["storage", "set", "--volumes", "off"])
    #expect(off.code == 0, "\(off)")
    #expect(try MountEntry.all().first { $0.mountPoint == container } == nil)
    let fills = try FileManager.default.contentsOfDirectory(atPath: container).filter { $0.hasPrefix("fill-") }
    #expect(fills.count == 1, "\(fills)")
  }

  /// An ordinary user cannot have volumes: `storage set --volumes on` is refused with the reason, and nothing
  /// changes. (The tests above, as root, are the control.)
  @Test func volumesNeedRoot() async throws {
    let scene = try Scene(ordinaryUser: true)
    defer { scene.host.directory.remove() }
    let refused = try await scene.assistant(["storage", "set", "--volumes", "on"])
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("only root can mount a file system"), "\(refused)")
    #expect(refused.stderr.contains("nothing was changed"), "\(refused)")
    let shown = try await scene.assistant(["storage", "--json"])
    #expect(shown.stdout.contains("\"enforcement\":\"checked\""), "\(shown)")
  }

  /// A volume unmounted behind the host's back (a reboot) is mounted again at the next launch, with what it held;
  /// a folder that holds files while its volume is not mounted is refused, not hidden.
  @Test(
    .needsLoopMounts
  )
  func anUnmountedVolumeIsMountedAgain() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await prepare(scene, volumes: true)
    let first = try await runFill(scene, "files=3")
    #expect(first.code == 0, "\(first)")
    let container = scene.container("FillContainer")
    try await Self.unmountWhenFree(container)
    #expect(try FileManager.default.contentsOfDirectory(atPath: container).isEmpty)
    let again = try await runFill(scene, "files=2")
    #expect(again.code == 0, "\(again)")
    let fills = try FileManager.default.contentsOfDirectory(atPath: container).filter { $0.hasPrefix("fill-") }
    #expect(fills.count == 2, "\(fills)")

    try await Self.unmountWhenFree(container)
    try "in the way".write(toFile: container + "/stray.txt", atomically: true, encoding: .utf8)
    let refused = try await runFill(scene, "files=1")
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("holds files while its volume"), "\(refused)")
    #expect(refused.stderr.contains("is not mounted on it"), "\(refused)")
    // The control: once the folder is empty again, the volume comes back.
    try FileManager.default.removeItem(atPath: container + "/stray.txt")
    let back = try await runFill(scene, "files=1")
    #expect(back.code == 0, "\(back)")
  }

  /// A folder whose image is still there is its volume, whatever the home's setting says: a `--volumes off` that
  /// failed or was interrupted after the unmount (the setting already "checked", the files still in the image)
  /// leaves the next launch mounting the image, not running on an empty folder that hides the app's files. The
  /// control: once the fold back succeeds, the folder is plain and the next launch mounts nothing.
  @Test(.needsLoopMounts)
  func aFolderWithAnImageIsItsVolumeWhateverTheSetting() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await prepare(scene, volumes: true)
    let first = try await runFill(scene, "files=1")
    #expect(first.code == 0, "\(first)")
    let container = scene.container("FillContainer")
    try "the app's notes".write(toFile: container + "/notes.txt", atomically: true, encoding: .utf8)
    // What an interruption left: the volume unmounted, the setting "checked", the image in place.
    try await Self.unmountWhenFree(container)
    try AssistantHome(root: scene.host.home, environment: [:]).updateStorageSettings { $0.enforcement = .checked }
    #expect(!FileManager.default.fileExists(atPath: container + "/notes.txt"))

    let again = try await runFill(scene, "files=1")
    #expect(again.code == 0, "\(again)")
    #expect(try String(contentsOfFile: container + "/notes.txt", encoding: .utf8) == "the app's notes")
    #expect(try Self.isMountRoot(container), "the image is mounted on the folder again")

    // The control: folded back, the folder is plain, its files still there, and a launch mounts nothing.
    let off = try await scene.assistant(["storage", "set", "--volumes", "off"])
    #expect(off.code == 0, "\(off)")
    let plain = try await runFill(scene, "files=1")
    #expect(plain.code == 0, "\(plain)")
    #expect(try String(contentsOfFile: container + "/notes.txt", encoding: .utf8) == "the app's notes")
    #expect(try !Self.isMountRoot(container))
  }

  /// Unmounts `path` as a reboot would, once the launch that just ended has let go of it: on a loaded machine the
  /// extension's last descriptors close a moment after the host returns (EBUSY until then, for at most 10 s).
  static func unmountWhenFree(_ path: String) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while try !unmountUnlessBusy(path, retrying: ContinuousClock.now < deadline) {
      try await Task.sleep(for: .milliseconds(50))
    }
  }

  /// Unmounts `path`: true when it did, false when it is busy and `retrying`; throws otherwise.
  static func unmountUnlessBusy(_ path: String, retrying: Bool) throws -> Bool {
    do throws(SystemError) {
      try unmount(path)
      return true
    } catch {
      guard error.code == EBUSY, retrying else { throw error }
      return false
    }
  }

  /// A home with Rooms installed and volumes on, after a booking (so its container and app group are mounted).
  static func roomsWithABookingOnVolumes() async throws -> HostFixture {
    let host = try HostFixture()
    try await host.installRooms()
    #expect(try await host.assistant(["storage", "set", "--volumes", "on"]).code == 0)
    let booked = try await host.assistant(["Book room 7 for Ada with Rooms"])
    #expect(booked.code == 0, "\(booked)")
    return host
  }

  /// Whether `path` is the root of a mount (statx).
  static func isMountRoot(_ path: String) throws -> Bool {
    let folder = try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    defer { folder.close() }
    return try MountStatus(of: folder).isMountRoot
  }

  /// Turning volumes on moves what each folder holds into its volume, or refuses (naming the folder, changing
  /// nothing) when a folder holds more than the budget; without root or loop devices it is refused with the reason.
  @Test(
    .needsLoopMounts
  )
  func turningVolumesOnMovesWhatFitsAndRefusesWhatDoesNot() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("FillContainer")
    let filled = try await runFill(scene, "mib=20")
    #expect(filled.code == 0, "\(filled)")
    let container = scene.container("FillContainer")
    let refused = try await scene.assistant(["storage", "set", "16", "--volumes", "on"])
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("the container \(container) holds"), "\(refused)")
    #expect(refused.stderr.contains("nothing was changed"), "\(refused)")
    #expect(try MountEntry.all().first { $0.mountPoint == container } == nil)
    let shown = try await scene.assistant(["storage", "--json"])
    #expect(shown.stdout.contains("\"enforcement\":\"checked\""), "\(shown)")
    // The control: a budget it fits in.
    let before = try held(scene)
    let on = try await scene.assistant(["storage", "set", "32", "--volumes", "on"])
    #expect(on.code == 0, "\(on)")
    #expect(on.stdout.contains("made volumes of: "), "\(on)")
    #expect(try MountEntry.all().first { $0.mountPoint == container } != nil)
    let after = try held(scene)
    #expect(after.entries == before.entries, "\(before) then \(after)")
  }
}

extension Trait where Self == ConditionTrait {
  /// Runs the test only where loop mounts work (`LoopMounts`, a real probe, which prints why when they do not).
  static var needsLoopMounts: Self {
    .enabled("loop mounts are possible here (else LoopMounts says why)") { await LoopMounts.unavailableReason() == nil }
  }
}
