import AppGroupStore
import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// What a member of a group can plant in the group's folder, in place of a document's checkpoint, journal, lock or
/// temporary file, or of a folder on the way to the shared defaults: a link to a file outside, a link to where a file
/// would be made, a FIFO, a socket, a device, a second hard link. The store neither follows nor opens any of them: it
/// refuses with `StoreError.unsafeFile` naming the file, nothing outside the folder is created, truncated or read, and
/// `recover()` moves the planted file aside. Each test has a control in which a plain `open(2)` or `FileManager` call
/// through the same planted name reaches outside, as the store did before.
@Suite(.tags(.process))
struct PlantedFileTests {
  /// A group folder beside `outside.txt` (what the attacker wants overwritten) and `created.txt` (where the
  /// attacker wants a file made; it must never appear).
  struct Scene {
    let directory: TemporaryDirectory
    var group: String { directory.file("group").path }
    var outside: String { directory.file("outside.txt").path }
    var created: String { directory.file("created.txt").path }

    init() throws {
      directory = try TemporaryDirectory("intenthost-planted")
      try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: true)
      try "secret".write(toFile: outside, atomically: false, encoding: .utf8)
    }

    func document(compactEvery: Int = 256) -> Document<Counter> {
      var document = Document<Counter>(in: group, at: "counter.json")
      document.compactionRecords = compactEvery
      return document
    }

    var outsideText: String { (try? String(contentsOfFile: outside, encoding: .utf8)) ?? "<missing>" }
    var untouched: Bool { outsideText == "secret" && !FileManager.default.fileExists(atPath: created) }
  }

  /// What is planted.
  enum Plant: String, CaseIterable, Sendable {
    case linkToOutside, linkToNothing, fifo, socket

    func plant(at path: String, in scene: Scene) throws {
      try? FileManager.default.removeItem(atPath: path)
      switch self {
      case .linkToOutside: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scene.outside)
      case .linkToNothing: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scene.created)
      case .fifo: #expect(mkfifo(path, 0o666) == 0)
      case .socket: #expect(mknod(path, S_IFSOCK | 0o666, 0) == 0)
      }
    }
  }

  /// Runs a store call on a thread of its own and waits at most 10 s: a store that opened a planted FIFO would
  /// block there for ever, and the test must fail, not hang.
  /// - Returns: the call's error, nil when it succeeded.
  func outcome(_ body: @escaping @Sendable () throws -> Void) async -> (any Error)? {
    let (results, sink) = AsyncStream.makeStream(of: Result<Void, any Error>.self)
    detachThread {
      sink.yield(Result { try body() })
      sink.finish()
    }
    let first = await withTaskGroup(of: Result<Void, any Error>?.self) { group in
      group.addTask {
        for await result in results { return result }
        return nil
      }
      group.addTask {
        do { try await Task.sleep(for: .seconds(10)) } catch {}
        return nil
      }
      defer { group.cancelAll() }
      return await group.next() ?? nil
    }
    guard let first else {
      Issue.record("the store call blocked for 10 s")
      return nil
    }
    if case .failure(let error) = first { return error }
    return nil
  }

  /// Whether `error` is `StoreError.unsafeFile` naming `file`.
  func isRefusal(_ error: (any Error)?, naming file: String) -> Bool {
    guard case .unsafeFile(let named, _)? = error as? StoreError else { return false }
    return named == file
  }

  static let documentFiles = ["counter.json", ".counter.json.journal", ".counter.json.lock"]

  /// A link, FIFO or socket in place of the checkpoint, the journal or the lock: reads and updates, by the
  /// document that kept its descriptors and by a fresh one, are refused naming it, and nothing outside changes;
  /// `recover()` moves it aside, after which updates work again. Control: a plain open of the moved-aside link
  /// writes outside (or makes the file there).
  @Test(arguments: documentFiles, Plant.allCases)
  func aPlantedDocumentFileIsRefused(name: String, plant: Plant) async throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let document = scene.document(compactEvery: 2)
    try await document.update { $0.count = 1 }
    try await document.update { $0.count = 2 }  // a checkpoint, and a journal after it
    try await document.update { $0.count = 3 }
    let planted = scene.group + "/" + name
    try plant.plant(at: planted, in: scene)
    for user in [document, scene.document()] {
      let read = await outcome { _ = try user.read() }
      #expect(isRefusal(read, naming: planted), "\(String(describing: read))")
      let update = await outcome { try user.update { $0.count += 100 } }
      #expect(isRefusal(update, naming: planted), "\(String(describing: update))")
      #expect("\(String(describing: update))".contains("assistant defaults recover"))
    }
    #expect(scene.untouched)

    let report = try await document.recover()
    #expect(report.steps.contains { $0.hasPrefix("moved \(planted) aside") }, "\(report.steps)")
    try await document.update { $0.count += 1 }
    // The journal held the newest state: without it the document restarts from the checkpoint (2).
    #expect(try await document.read().count == (name == ".counter.json.journal" ? 3 : 4))
    #expect(scene.untouched)

    // Control: the same link, moved aside, followed by open(2) as the store used to.
    let aside = try FileManager.default.contentsOfDirectory(atPath: scene.group).first {
      $0.hasPrefix(name + ".unsafe-") || $0.hasPrefix(name.dropFirst() + ".unreadable-")
        || $0.hasPrefix(name + ".unreadable-")
    }
    #expect(aside != nil)
    if let aside, plant == .linkToOutside || plant == .linkToNothing {
      let fd = open(scene.group + "/" + aside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      #expect(fd >= 0)
      close(fd)
      #expect(!scene.untouched, "the control reached nothing outside")
    }
  }

  /// A device in place of the journal (only root can make one) is refused; control: a plain open writes to it.
  @Test(.enabled(if: geteuid() == 0, "only root can make a device node"))
  func aPlantedDeviceIsRefused() async throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let document = scene.document()
    try await document.update { $0.count = 1 }
    let journal = scene.group + "/.counter.json.journal"
    try FileManager.default.removeItem(atPath: journal)
    #expect(mknod(journal, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)  // the null device
    let error = await outcome { try scene.document().update { $0.count += 1 } }
    #expect(isRefusal(error, naming: journal), "\(String(describing: error))")
    #expect("\(String(describing: error))".contains("is a character device, not a regular file"))
    let fd = open(journal, O_WRONLY | O_CLOEXEC)
    #expect(fd >= 0 && write(fd, "x", 1) == 1)
    close(fd)
  }

  /// A journal with a second name (a hard link to a file outside) is refused rather than written through, and
  /// recovery moves it aside. Control: writing the journal's name writes the file outside.
  @Test func aHardLinkedJournalIsRefused() async throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let document = scene.document()
    try await document.update { $0.count = 1 }
    let journal = scene.group + "/.counter.json.journal"
    try FileManager.default.removeItem(atPath: journal)
    #expect(link(scene.outside, journal) == 0)
    let error = await outcome { try document.update { $0.count += 1 } }
    #expect(isRefusal(error, naming: journal), "\(String(describing: error))")
    #expect("\(String(describing: error))".contains("has 2 hard links"))
    #expect(scene.untouched)
    let report = try await document.recover()
    #expect(report.steps.contains { $0.hasPrefix("moved \(journal) aside") }, "\(report.steps)")
    try await document.update { $0.count += 1 }
    #expect(scene.untouched)
    let fd = open(
      scene.group + "/"
        + (try FileManager.default.contentsOfDirectory(atPath: scene.group).first {
          $0.hasPrefix("counter.json.journal.unreadable-")
        } ?? "missing"), O_WRONLY | O_TRUNC | O_CLOEXEC)
    #expect(fd >= 0)
    close(fd)
    #expect(scene.outsideText == "", "the control did not reach the file outside")
  }

  /// A link in place of the temporary file a checkpoint is written to is removed (never followed) and the checkpoint
  /// is written. Control: opening the link as the store used to (`O_CREAT | O_TRUNC`) makes the file outside.
  @Test(arguments: [Plant.linkToNothing, .linkToOutside, .fifo])
  func aPlantedTemporaryFileIsRemovedNotFollowed(plant: Plant) async throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let document = scene.document(compactEvery: 1)  // every update writes a checkpoint
    let temporary = scene.group + "/.counter.json.tmp-\(getpid())"
    try plant.plant(at: temporary, in: scene)
    let error = await outcome { try document.update { $0.count = 1 } }
    #expect(error == nil, "\(String(describing: error))")
    #expect(try await document.read().count == 1)
    #expect(!FileManager.default.fileExists(atPath: temporary))
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: temporary)) == nil)
    #expect(scene.untouched)
    if plant == .linkToNothing {
      try plant.plant(at: temporary, in: scene)
      let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o660)
      #expect(fd >= 0)
      close(fd)
      #expect(FileManager.default.fileExists(atPath: scene.created), "the control made nothing outside")
    }
  }

  /// A link in place of `Library` or `Library/Preferences`: the container still opens and its documents work; the
  /// shared defaults are refused naming the folder, and nothing is made or written where the link leads; recovery
  /// moves the link aside and makes the folder. Control: `FileManager` makes the folders through the link.
  @Test(arguments: ["Library", "Library/Preferences"])
  func aPlantedDefaultsFolderIsRefused(folder: String) async throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let elsewhere = scene.directory.file("elsewhere").path
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
    if folder != "Library" {
      try FileManager.default.createDirectory(atPath: scene.group + "/Library", withIntermediateDirectories: true)
    }
    try FileManager.default.createSymbolicLink(atPath: scene.group + "/" + folder, withDestinationPath: elsewhere)
    let container = try AppGroupContainer(identifier: "group.com.example.test", path: scene.group)
    let error = await outcome { try container.defaults.set(.integer(1), forKey: "launches") }
    guard case .unsafeFile(let file, _)? = error as? StoreError else {
      Issue.record("not refused: \(String(describing: error))")
      return
    }
    #expect(file.hasPrefix(scene.group + "/Library"), "\(file)")
    let read = await outcome { _ = try container.defaults.dictionaryRepresentation() }
    #expect(read is StoreError)
    let counter: Document<Counter> = container.document("counter.json")
    try await counter.update { $0.count = 1 }
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)

    let report = try await container.defaults.document.recover()
    #expect(report.steps.first?.hasPrefix("moved \(scene.group)/\(folder) aside") == true, "\(report.steps)")
    try await container.defaults.set(.integer(2), forKey: "launches")
    #expect(try await container.defaults.integer(forKey: "launches") == 2)
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)

    // Control: mkdir -p through the link (moved aside, it still leads elsewhere) makes folders there.
    let aside = try FileManager.default.contentsOfDirectory(
      atPath: scene.group + "/" + (folder as NSString).deletingLastPathComponent
    )
    .first { $0.contains(".unsafe-") }
    let base = (folder as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(
      atPath: scene.group + "/" + (base.isEmpty ? "" : base + "/") + (aside ?? "missing") + "/Preferences",
      withIntermediateDirectories: true)
    #expect(FileManager.default.fileExists(atPath: elsewhere + "/Preferences"))
  }

  /// A document keeps its folder open between operations, and opens it again when the folder it names is another
  /// one: after the group's folder is deleted and made again, updates go to the new one.
  @Test func aReplacedFolderIsOpenedAgain() async throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    let document = scene.document()
    try await document.update { $0.count = 5 }
    try FileManager.default.removeItem(atPath: scene.group)
    #expect(try await document.read().count == 0)
    try FileManager.default.createDirectory(atPath: scene.group, withIntermediateDirectories: true)
    try await document.update { $0.count += 1 }
    #expect(try await document.read().count == 1)
    #expect(FileManager.default.fileExists(atPath: scene.group + "/.counter.json.journal"))
  }

  /// In a set-group-ID folder (an app group under a root host) the files the store makes, and the shared defaults'
  /// folders, are group-writable whatever the umask, so every member can use them.
  @Test func filesInASharedFolderAreGroupWritable() async throws {
    let scene = try Scene()
    defer { scene.directory.remove() }
    #expect(chmod(scene.group, 0o2770) == 0)
    let container = try AppGroupContainer(identifier: "group.com.example.test", path: scene.group)
    try await container.defaults.set(.integer(1), forKey: "launches")
    var counter = scene.document()
    counter.compactionRecords = 2
    for _ in 0..<3 { try await counter.update { $0.count += 1 } }
    for path in [
      ".counter.json.lock", ".counter.json.journal", "counter.json",
      "Library/Preferences/.group.com.example.test.json.lock",
    ] {
      let attributes = try FileManager.default.attributesOfItem(atPath: scene.group + "/" + path)
      #expect((attributes[.posixPermissions] as? Int) == 0o660, "\(path)")
    }
    for path in ["Library", "Library/Preferences"] {
      var info = stat()
      #expect(stat(scene.group + "/" + path, &info) == 0)
      #expect(info.st_mode & 0o7777 == 0o2770, "\(path)")
    }
  }
}
