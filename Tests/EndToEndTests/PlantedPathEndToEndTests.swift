import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

/// The host never follows a path an untrusted party controls: what a member of an app group plants in the group
/// (a link in place of a document's journal, lock or checkpoint, or of `Library`; a FIFO; a link to /dev/stdin), and
/// what an app leaves in its own container, through the real `assistant`, the Rooms app and its extensions. Every
/// test has a control in which the test itself follows the same planted path with a plain `open`, `FileManager` or
/// `cat` and reaches outside, and checks that no process outlives it.
@Suite(.serialized, .tags(.endToEnd))
struct PlantedPathEndToEndTests {
  static let group = "group.com.example.rooms"

  /// Rooms installed, one room booked (so the group's folder, the containers and the bookings' files exist), and a
  /// file outside the group that an attacker wants overwritten.
  struct Scene {
    let host: HostFixture
    var groupPath: String { host.groups + "/" + PlantedPathEndToEndTests.group }
    var outside: String { host.directory.file("outside.txt").path }
    var created: String { host.directory.file("created.txt").path }
    var extensionContainer: String { host.home + "/Containers/com.example.rooms.RoomsIntents" }

    init() async throws {
      host = try HostFixture()
      try await host.installRooms()
      try "secret".write(toFile: outside, atomically: false, encoding: .utf8)
      let first = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=1", "bookedBy=Ada"])
      #expect(first.code == 0, "\(first)")
    }

    /// Replaces `name` in the group's folder with a link to `target`.
    func plantLink(_ name: String, to target: String) throws {
      let path = groupPath + "/" + name
      try? FileManager.default.removeItem(atPath: path)
      try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    func book(_ room: Int) async throws -> CommandResult {
      try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=\(room)", "bookedBy=Grace"])
    }

    func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<missing>" }

    /// The group's entry whose name starts with `prefix` (what `recover` moved aside).
    func entry(startingWith prefix: String) -> String? {
      ((try? FileManager.default.contentsOfDirectory(atPath: groupPath)) ?? []).first { $0.hasPrefix(prefix) }
        .map { groupPath + "/" + $0 }
    }

    /// Rooms' processes still alive in this scene's folder.
    var survivors: [pid_t] {
      ["RoomsIntents", "RoomsUI", "rooms", "Rooms"].flatMap { livingProcesses(named: $0, under: host.directory.path) }
    }

    func expectNoSurvivors() async throws {
      try await eventually(timeout: .seconds(3), interval: .milliseconds(30)) { survivors.isEmpty }
      #expect(survivors.isEmpty, "left behind: \(survivors)")
    }
  }

  /// `.bookings.json.journal` planted as a link to a file outside the group: `defaults write` and `read` (the host),
  /// a booking (the extension's SDK store) and `rooms book` (the app) all refuse, naming the journal and the fix,
  /// and the file outside keeps its content; `defaults recover` moves the link aside and bookings work again.
  /// Control: writing through the same link with FileHandle overwrites the file outside.
  @Test func aPlantedJournalIsFollowedByNobody() async throws {
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let journal = scene.groupPath + "/.bookings.json.journal"
    try scene.plantLink(".bookings.json.journal", to: scene.outside)

    let write = try await scene.host.assistant([
      "defaults", "write", Self.group, "k", "v", "--document", "bookings.json",
    ])
    #expect(write.code == 65, "\(write)")
    #expect(write.stderr.contains("\(journal) is a symbolic link"), "\(write)")
    #expect(
      write.stderr.contains("`assistant defaults recover \(Self.group) --document bookings.json`"), "\(write)")
    let read = try await scene.host.assistant(["defaults", "read", Self.group, "--document", "bookings.json"])
    #expect(read.code == 65, "\(read)")
    let booked = try await scene.book(5)
    #expect(booked.code == 70, "\(booked)")
    #expect(booked.stderr.contains("\(journal) is a symbolic link"), "\(booked)")
    let app = try await scene.host.assistant(["open", "Rooms", "--", "book", "6", "--by", "Grace"])
    #expect(app.code == 65, "\(app)")
    #expect(app.stderr.contains(journal), "\(app)")
    #expect(scene.text(scene.outside) == "secret")

    let recovered = try await scene.host.assistant(["defaults", "recover", Self.group, "--document", "bookings.json"])
    #expect(recovered.code == 0, "\(recovered)")
    #expect(recovered.stdout.contains("moved \(journal) aside"), "\(recovered)")
    #expect(try await scene.book(7).code == 0)
    #expect(scene.text(scene.outside) == "secret")
    try await scene.expectNoSurvivors()

    // Control: the same link (moved aside) followed by a plain open for writing.
    let aside = try #require(scene.entry(startingWith: "bookings.json.journal.unreadable-"))
    let handle = try #require(FileHandle(forWritingAtPath: aside))
    try handle.write(contentsOf: Data("overwritten".utf8))
    try handle.close()
    #expect(scene.text(scene.outside).hasPrefix("overwritten"))
  }

  /// One member plants the journal as a link to a private file in another member's container (Rooms' Intents
  /// extension, which may write it): the extension's own store refuses it, and the private file keeps its content.
  /// Control: writing through the link changes the private file.
  @Test func aJournalPlantedByOneMemberDoesNotTurnAnothersStoreAgainstItsContainer() async throws {
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let secret = scene.extensionContainer + "/Documents/private.json"
    try "private".write(toFile: secret, atomically: false, encoding: .utf8)
    var container = stat()
    #expect(stat(scene.extensionContainer, &container) == 0)
    #expect(chown(secret, container.st_uid, container.st_gid) == 0)  // the extension's own file
    try scene.plantLink(".bookings.json.journal", to: secret)
    let booked = try await scene.book(5)
    #expect(booked.code == 70, "\(booked)")
    #expect(booked.stderr.contains(scene.groupPath + "/.bookings.json.journal is a symbolic link"), "\(booked)")
    #expect(scene.text(secret) == "private")
    try await scene.expectNoSurvivors()

    let handle = try #require(FileHandle(forWritingAtPath: scene.groupPath + "/.bookings.json.journal"))
    try handle.write(contentsOf: Data("IHJ1 overwritten".utf8))
    try handle.close()
    #expect(scene.text(secret).hasPrefix("IHJ1 overwritten"))
  }

  /// `.bookings.json.lock` planted as a link to where a file would be made: `defaults read` and a booking refuse
  /// and make nothing there; `defaults recover` moves the link aside. Control: `open(O_CREAT)` of the link, as the
  /// store used to open its lock, makes the file.
  @Test func aPlantedLockMakesNothing() async throws {
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let lock = scene.groupPath + "/.bookings.json.lock"
    try scene.plantLink(".bookings.json.lock", to: scene.created)
    let read = try await scene.host.assistant(["defaults", "read", Self.group, "--document", "bookings.json"])
    #expect(read.code == 65, "\(read)")
    #expect(read.stderr.contains("\(lock) is a symbolic link"), "\(read)")
    let booked = try await scene.book(5)
    #expect(booked.code == 70, "\(booked)")
    #expect(booked.stderr.contains(lock), "\(booked)")
    #expect(!FileManager.default.fileExists(atPath: scene.created))
    let recovered = try await scene.host.assistant(["defaults", "recover", Self.group, "--document", "bookings.json"])
    #expect(recovered.code == 0, "\(recovered)")
    #expect(recovered.stdout.contains("moved \(lock) aside"), "\(recovered)")
    #expect(try await scene.book(5).code == 0)
    #expect(!FileManager.default.fileExists(atPath: scene.created))
    try await scene.expectNoSurvivors()

    // Control: the same link opened as the store used to open its lock.
    let aside = try #require(scene.entry(startingWith: ".bookings.json.lock.unsafe-"))
    let fd = open(aside, O_RDWR | O_CREAT | O_CLOEXEC, 0o660)
    #expect(fd >= 0)
    close(fd)
    #expect(FileManager.default.fileExists(atPath: scene.created))
  }

  /// `Library` planted as a link to a folder elsewhere: `defaults list` makes nothing and says why, `defaults write`
  /// and `read` of the shared defaults refuse naming it, bookings still work, and nothing appears where the link
  /// leads; `defaults recover` moves it aside and makes the folder. Control: FileManager makes the folders through
  /// the link.
  @Test func aPlantedLibraryMakesNoFolders() async throws {
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let elsewhere = scene.host.directory.file("elsewhere").path
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
    try scene.plantLink("Library", to: elsewhere)
    let list = try await scene.host.assistant(["defaults", "list"])
    #expect(list.code == 0, "\(list)")
    #expect(list.stdout.contains("refused: \(scene.groupPath)/Library"), "\(list)")
    #expect(list.stdout.contains("document: bookings.json"), "\(list)")
    let write = try await scene.host.assistant(["defaults", "write", Self.group, "greeting", "hi"])
    #expect(write.code == 65, "\(write)")
    #expect(write.stderr.contains("\(scene.groupPath)/Library"), "\(write)")
    #expect(try await scene.host.assistant(["defaults", "read", Self.group]).code == 65)
    #expect(try await scene.book(5).code == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)

    let recovered = try await scene.host.assistant(["defaults", "recover", Self.group])
    #expect(recovered.code == 0, "\(recovered)")
    #expect(recovered.stdout.contains("moved \(scene.groupPath)/Library aside"), "\(recovered)")
    #expect(try await scene.host.assistant(["defaults", "write", Self.group, "greeting", "hi"]).code == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    try await scene.expectNoSurvivors()

    let aside = try #require(scene.entry(startingWith: "Library.unsafe-"))
    try FileManager.default.createDirectory(atPath: aside + "/Preferences", withIntermediateDirectories: true)
    #expect(FileManager.default.fileExists(atPath: elsewhere + "/Preferences"))
  }

  /// `bookings.json` planted as a link to /dev/stdin, then as a FIFO: `defaults read` refuses at once, naming it,
  /// and reads nothing the user typed; a booking refuses it too (without waiting for its deadline). Control: `cat`
  /// of the same link prints what was typed, and `cat` of the FIFO blocks until it is killed.
  @Test func aDocumentThatIsStdinOrAFIFOIsNotOpened() async throws {
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let document = scene.groupPath + "/bookings.json"
    try scene.plantLink("bookings.json", to: "/dev/stdin")
    let typed = "what the user typed\n"
    let read = try await scene.host.assistant(
      ["defaults", "read", Self.group, "--document", "bookings.json"], input: typed)
    #expect(read.code == 65, "\(read)")
    #expect(read.stderr.contains("\(document) is a symbolic link"), "\(read)")
    #expect(read.stdout.isEmpty)
    let cat = try await runCommand("/bin/cat", [document], input: typed)
    #expect(cat.stdout == typed)

    try FileManager.default.removeItem(atPath: document)
    #expect(mkfifo(document, 0o660) == 0)
    let blocked = try await runCommand("/bin/cat", [document], timeout: .seconds(1))
    #expect(blocked.timedOut, "\(blocked)")
    let fifoRead = try await runCommand(
      PackagePaths.executable("assistant"),
      ["--home", scene.host.home, "defaults", "read", Self.group, "--document", "bookings.json"],
      environment: ProcessInfo.processInfo.environment.merging(["ASSISTANT_APP_GROUPS": scene.host.groups]) {
        _, new in new
      }, timeout: .seconds(20))
    #expect(!fifoRead.timedOut && fifoRead.code == 65, "\(fifoRead)")
    #expect(fifoRead.stderr.contains("\(document) is a FIFO, not a regular file"), "\(fifoRead)")
    let booked = try await scene.book(5)
    #expect(booked.code == 70, "\(booked)")
    #expect(booked.stderr.contains("\(document) is a FIFO"), "\(booked)")
    try await scene.expectNoSurvivors()
  }

  /// Swaps `path` between a file and a link to `target` until stopped, as an earlier launch still running could
  /// while the host walks the container.
  final class Swapper: Sendable {
    private let stopped = Atomic(false)
    private let done = Atomic(false)

    init(_ path: String, target: String) {
      detachThread { [self] in
        let file = path + ".file"
        let link = path + ".link"
        while !stopped.load(ordering: .relaxed) {
          _ = FileManager.default.createFile(atPath: file, contents: Data("app".utf8))
          _ = symlink(target, link)
          _ = rename(file, path)
          _ = rename(link, path)
        }
        done.store(true, ordering: .relaxed)
      }
    }

    func stop() async throws {
      stopped.store(true, ordering: .relaxed)
      try await eventually(timeout: .seconds(5), interval: .milliseconds(5)) { done.load(ordering: .relaxed) }
    }
  }

  /// As root the host gives a container made by an earlier host to the app's uid through descriptors, and never
  /// follows what is inside: a link to a root file, a hard link to another, and a name swapped between a file and a
  /// link while it walks leave the files outside root's, mode 0600. A container that is already the app's is not
  /// walked at all (the app's own file keeps its mode) even when the app changed the container's mode. Control:
  /// `chown(2)` and `chmod(2)` through the link give the file outside to the app.
  @Test(.enabled(if: geteuid() == 0, "the host gives containers away only as root"))
  func theRootHostsContainerWalkFollowsNoLink() async throws {
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let documents = scene.extensionContainer + "/Documents"
    var container = stat()
    #expect(stat(scene.extensionContainer, &container) == 0)
    let app = (uid: container.st_uid, gid: container.st_gid)
    #expect(app.uid != 0)
    let second = scene.host.directory.file("second.txt").path
    let third = scene.host.directory.file("third.txt").path
    for path in [scene.outside, second, third] {
      try "root's".write(toFile: path, atomically: false, encoding: .utf8)
      #expect(chmod(path, 0o600) == 0)
    }
    try FileManager.default.createSymbolicLink(atPath: documents + "/link", withDestinationPath: scene.outside)
    #expect(link(second, documents + "/hard") == 0)
    func owners() -> [String] {
      [scene.outside, second, third].map { path in
        var info = stat()
        return lstat(path, &info) == 0
          ? "\(info.st_uid):\(info.st_gid) \(String(info.st_mode & 0o7777, radix: 8))" : "?"
      }
    }
    #expect(owners() == ["0:0 600", "0:0 600", "0:0 600"])

    let swapper = Swapper(documents + "/swap", target: third)
    for room in 10..<16 {
      // As an earlier host left it: root's, so the launch hands it over and walks it.
      #expect(chown(scene.extensionContainer, 0, 0) == 0)
      let booked = try await scene.book(room)
      #expect(booked.code == 0, "\(booked)")
    }
    try await swapper.stop()
    #expect(owners() == ["0:0 600", "0:0 600", "0:0 600"])
    var after = stat()
    #expect(stat(scene.extensionContainer, &after) == 0)
    #expect(after.st_uid == app.uid && after.st_mode & 0o7777 == 0o700)

    // The app's own container, with a mode the app changed: only the mode is set back, nothing inside is walked.
    let mine = documents + "/mine"
    try "mine".write(toFile: mine, atomically: false, encoding: .utf8)
    #expect(chown(mine, app.uid, app.gid) == 0 && chmod(mine, 0o640) == 0)
    #expect(chmod(scene.extensionContainer, 0o755) == 0)
    #expect(try await scene.book(20).code == 0)
    #expect(stat(scene.extensionContainer, &after) == 0 && after.st_mode & 0o7777 == 0o700)
    var own = stat()
    #expect(stat(mine, &own) == 0 && own.st_mode & 0o7777 == 0o640)
    #expect(owners() == ["0:0 600", "0:0 600", "0:0 600"])
    try await scene.expectNoSurvivors()

    // Control: the same link, by path.
    #expect(chown(documents + "/link", app.uid, app.gid) == 0 && chmod(documents + "/link", 0o660) == 0)
    #expect(owners()[0] == "\(app.uid):\(app.gid) 660")
  }
}
