import AppGroupStore
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

/// The host's home and `AppGroupDefaults`, in-process on a temporary home: what reads make (nothing), what writes
/// make, and every operation's statuses. Each "makes nothing" check compares the whole temporary folder before and
/// after, and has a control in which a writer (or the old path, `appGroupContainer`) does make the folder, so the
/// check can fail.
@Suite(.tags(.unit)) struct DefaultsTests {
  static let group = "group.com.example.rooms"

  /// A temporary folder holding a home (`home`, not made) and its app groups' root (`home/AppGroup`).
  struct Scene: Sendable {
    let directory: TemporaryDirectory
    let home: AssistantHome
    var defaults: AppGroupDefaults { AppGroupDefaults(home: home) }
    var groupPath: String { home.appGroupsRoot.path + "/" + DefaultsTests.group }

    init(environment: [String: String] = [:]) throws {
      directory = try TemporaryDirectory("assistanthost-defaults")
      home = try AssistantHome(root: directory.file("home").path, environment: environment)
    }

    /// Every path in the scene's folder, to show that nothing was made.
    func tree() -> [String] {
      [directory.path] + ((FileManager.default.subpaths(atPath: directory.path) ?? []).sorted())
    }

    func exists(_ path: String) -> Bool {
      var info = stat()
      return lstat(path, &info) == 0
    }

    func remove() { directory.remove() }
  }

  /// The status of the `HostError` that `body` throws, or nil (with an issue recorded) when it throws none.
  static func status(_ body: () async throws -> Void) async -> (status: AssistantHost.ExitStatus, message: String)? {
    do {
      try await body()
      Issue.record("expected a HostError")
      return nil
    } catch let error as HostError {
      return (error.status, error.message)
    } catch {
      Issue.record("expected a HostError, got \(error)")
      return nil
    }
  }

  // MARK: - The home

  /// Making an `AssistantHome` of a missing root makes nothing, and reading it gives no apps; `exists` tells the
  /// missing home apart. Control: `prepare()` makes the home and its folders, and then `exists` is true.
  @Test func aMissingHomeIsReadAsEmptyAndNotMade() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let before = scene.tree()
    let home = try AssistantHome(root: scene.directory.file("home/deeper").path, environment: [:])
    #expect(!home.exists)
    #expect(try home.installedApps().isEmpty)
    #expect(try await AppGroupDefaults(home: home).list(group: nil).isEmpty)
    #expect(scene.tree() == before)

    try await home.prepare()
    #expect(home.exists)
    for folder in [home.applications, home.containers, home.logs, home.state, home.appGroupsRoot] {
      #expect(scene.exists(folder.path), "\(folder.path)")
    }
    try await home.prepare()  // again: nothing to do
    #expect(try home.installedApps().isEmpty)
  }

  /// No `--home`, no `ASSISTANT_HOME`, no `XDG_DATA_HOME` and no `HOME`: a usage error (64), nothing made.
  @Test func noHomeAtAllIsAUsageError() async throws {
    let outcome = await Self.status { _ = try AssistantHome(root: nil, environment: [:]) }
    #expect(outcome?.status == .usage)
    #expect(outcome?.message.contains("--home") == true)
  }

  /// A home under a regular file cannot be made: `prepare()` gives 73 naming the home, the file in the way and the
  /// fix, and `exists` is false. The same for app groups' root under a file, whose fix names
  /// `ASSISTANT_APP_GROUPS`. Control: beside the file, the same home is made.
  @Test func anUncreatableHomeIs73() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let file = scene.directory.file("file").path
    try "not a folder".write(toFile: file, atomically: false, encoding: .utf8)
    let home = try AssistantHome(root: file + "/home", environment: [:])
    #expect(!home.exists)
    let outcome = await Self.status { try await home.prepare() }
    #expect(outcome?.status == .cannotCreate)
    #expect(ExitStatus.cannotCreate.rawValue == 73)
    let message = outcome?.message ?? ""
    #expect(message.hasPrefix("cannot create the home \(file)/home: \(file) exists and is not a folder"), "\(message)")
    #expect(message.contains("pass --home DIR"), "\(message)")
    // A writer reports the same; a reader reads an empty home.
    let write = await Self.status {
      try await AppGroupDefaults(home: home).write(DefaultsTarget(group: Self.group), key: "k", value: .integer(1))
    }
    #expect(write?.status == .cannotCreate, "\(String(describing: write))")
    #expect(try home.installedApps().isEmpty)

    let groups = try AssistantHome(
      root: scene.directory.file("home").path, environment: ["ASSISTANT_APP_GROUPS": file + "/groups"])
    let groupsOutcome = await Self.status { try await groups.prepare() }
    #expect(groupsOutcome?.status == .cannotCreate)
    #expect(groupsOutcome?.message.contains("cannot create the app groups' folder \(file)/groups") == true)
    #expect(groupsOutcome?.message.contains("ASSISTANT_APP_GROUPS") == true)

    // Control.
    let beside = try AssistantHome(root: scene.directory.file("home").path, environment: [:])
    try await beside.prepare()
    #expect(beside.exists)
  }

  /// A home whose `Applications` cannot be read is an I/O error (74), not "no apps"; a missing one is no apps.
  @Test func anUnreadableApplicationsFolderIs74() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    try await scene.home.prepare()
    try FileManager.default.removeItem(at: scene.home.applications)
    try "a file".write(to: scene.home.applications, atomically: false, encoding: .utf8)
    let outcome = await Self.status { _ = try scene.home.installedApps() }
    #expect(outcome?.status == .ioError)
    #expect(ExitStatus.ioError.rawValue == 74)
    #expect(outcome?.message.contains(scene.home.applications.path) == true)
    try FileManager.default.removeItem(at: scene.home.applications)
    #expect(try scene.home.installedApps().isEmpty)
  }

  /// As root, `profile(of:)` (`sandbox-profile`) records no identity: it shows what the first launch would allocate
  /// and makes no `State/identities.json`. Control: allocating (as a launch does) makes it, and then the profile
  /// shows the recorded ids.
  @Test(.enabled(if: geteuid() == 0, "identities are allocated only by a root host"))
  func aProfileRecordsNoIdentity() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let app = try await scene.home.install(from: TestBundles.roomsManifests(in: scene.directory.file("bundles"))).app
    // Its files: a checkpoint, a journal, a lock.
    func identities() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: scene.home.state.path).filter { $0.contains("identities") }
    }
    var policy = SandboxPolicy()
    policy.enabled = true
    let profile = try scene.home.profile(of: app, extensionNamed: nil, policy: policy)
    #expect(!profile.identityRecorded)
    #expect(profile.identity?.uid == IdentityTable.firstUID)
    #expect(try identities().isEmpty)
    let shown = profile.description(deadlines: nil, memoryMechanism: "test")
    #expect(shown.contains("not recorded yet"), "\(shown)")

    // Control.
    _ = try scene.home.identities(app: app.info.bundleIdentifier, groups: app.entitlements.applicationGroups)
    #expect(try !identities().isEmpty)
    let recorded = try scene.home.profile(of: app, extensionNamed: nil, policy: policy)
    #expect(recorded.identityRecorded)
    #expect(recorded.identity?.uid == profile.identity?.uid)
  }

  // MARK: - Reading makes nothing

  /// `read` of a group that does not exist is 69 ("has no data") and makes nothing: not the group, the home, nor
  /// the app groups' root; nor do `list GROUP`, `watch`, `delete` and `recover` of it. Controls: the old path
  /// (`appGroupContainer`) makes the group, and a `write` makes it, after which `read` finds the value.
  @Test func readingAMissingGroupMakesNothing() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let target = DefaultsTarget(group: Self.group)
    let before = scene.tree()
    let read = await Self.status { _ = try await scene.defaults.read(target, key: nil) }
    #expect(read?.status == .noMatch)
    #expect(read?.message == "group \(Self.group) has no data (nothing was written to it)")
    #expect(await Self.status { _ = try await scene.defaults.read(target, key: "k") }?.status == .noMatch)
    let document = DefaultsTarget(group: Self.group, document: "bookings.json")
    #expect(await Self.status { _ = try await scene.defaults.read(document, key: nil) }?.status == .noMatch)
    #expect(await Self.status { _ = try await scene.defaults.list(group: Self.group) }?.status == .noMatch)
    #expect(await Self.status { try await scene.defaults.delete(target, key: nil) }?.status == .noMatch)
    #expect(await Self.status { _ = try await scene.defaults.recover(target) }?.status == .noMatch)
    let watch = await Self.status {
      try await scene.defaults.watch(target, key: nil, polling: false, count: 1, timeout: nil) { _ in
        Issue.record("nothing to emit")
      }
    }
    #expect(watch?.status == .noMatch)
    #expect(watch?.message.contains("no folder to watch") == true, "\(String(describing: watch))")
    #expect(try await scene.defaults.list(group: nil).isEmpty)
    #expect(scene.tree() == before)
    #expect(!scene.home.exists)

    // Control: the old path made the group (and the home) for a read.
    let other = try Scene()
    defer { other.remove() }
    _ = try other.home.appGroupContainer(Self.group)
    #expect(other.exists(other.groupPath))

    // Control: a write makes it, and the value reads back.
    try await scene.defaults.write(target, key: "k", value: .string("v"))
    #expect(scene.exists(scene.groupPath))
    #expect(scene.home.exists)
    #expect(try await scene.defaults.read(target, key: "k") == .string("v"))
    #expect(try await scene.defaults.list(group: nil).map(\.identifier) == [Self.group])
  }

  /// In a group that exists, `read` of a document that does not exist is 69 and makes nothing, not even the
  /// document's lock file; neither does reading one that does. Control: a write makes the document's files.
  @Test func readingAMissingDocumentMakesNoLockFile() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    try await scene.defaults.write(DefaultsTarget(group: Self.group), key: "k", value: .bool(true))
    let target = DefaultsTarget(group: Self.group, document: "bookings")
    let before = scene.tree()
    let read = await Self.status { _ = try await scene.defaults.read(target, key: nil) }
    #expect(read?.status == .noMatch)
    #expect(read?.message == "group \(Self.group) has no document bookings")
    #expect(try await scene.defaults.read(DefaultsTarget(group: Self.group), key: "k") == .bool(true))
    #expect(scene.tree() == before)

    // Control: a write makes the files; then the message suggests the name with .json.
    let json = DefaultsTarget(group: Self.group, document: "bookings.json")
    try await scene.defaults.write(json, key: "12", value: .string("Ada"))
    #expect(scene.tree() != before)
    #expect(scene.exists(scene.groupPath + "/.bookings.json.lock"))
    let suggested = await Self.status { _ = try await scene.defaults.read(target, key: nil) }
    #expect(suggested?.message.hasSuffix("did you mean --document bookings.json?") == true)
    #expect(try await scene.defaults.read(json, key: nil) == .object(["12": .string("Ada")]))
  }

  // MARK: - Operations and statuses

  /// write, read (a key, the whole document), delete (a key, then everything), with 69 for what is not there, and
  /// a delete that finds nothing to delete writes nothing.
  @Test func writeReadDelete() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let defaults = scene.defaults
    for target in [DefaultsTarget(group: Self.group), DefaultsTarget(group: Self.group, document: "bookings.json")] {
      try await defaults.write(target, key: "flag", value: .bool(true))
      try await defaults.write(target, key: "text", value: .string("true"))
      try await defaults.write(target, key: "n", value: .integer(12))
      #expect(try await defaults.read(target, key: "flag") == .bool(true))
      #expect(try await defaults.read(target, key: "text") == .string("true"))
      #expect(
        try await defaults.read(target, key: nil)
          == .object(["flag": .bool(true), "text": .string("true"), "n": .integer(12)]))
      let missing = await Self.status { _ = try await defaults.read(target, key: "nope") }
      #expect(missing?.status == .noMatch)
      #expect(missing?.message.hasSuffix("has no key \"nope\"") == true, "\(String(describing: missing))")

      try await defaults.delete(target, key: "flag")
      #expect(await Self.status { _ = try await defaults.read(target, key: "flag") }?.status == .noMatch)
      #expect(await Self.status { try await defaults.delete(target, key: "flag") }?.status == .noMatch)
      try await defaults.delete(target, key: nil)
      #expect(try await defaults.read(target, key: nil) == .object([:]))
      let document = AppGroupDefaults.document(target, inGroupAt: scene.groupPath)
      let sequence = try await document.snapshot().sequence
      let empty = await Self.status { try await defaults.delete(target, key: nil) }
      #expect(empty?.status == .noMatch)
      #expect(empty?.message.hasSuffix("has no keys") == true)
      #expect(try await document.snapshot().sequence == sequence, "nothing was written")
    }
    // A document that holds something other than an object of keys.
    let array = DefaultsTarget(group: Self.group, document: "list.json")
    try await Document<AnyDocumentContent>(in: scene.groupPath, at: "list.json").update { $0.value = .array([]) }
    #expect(try await defaults.read(array, key: nil) == .array([]))
    #expect(await Self.status { _ = try await defaults.read(array, key: "k") }?.status == .dataError)
    #expect(await Self.status { try await defaults.write(array, key: "k", value: .null) }?.status == .dataError)
  }

  /// An invalid group identifier or document name is a usage error (64) for every operation, and nothing is made.
  @Test(arguments: [
    DefaultsTarget(group: "com.example.rooms"), DefaultsTarget(group: "group.x"),
    DefaultsTarget(group: "group.com.example/../x"), DefaultsTarget(group: Self.group, document: ""),
    DefaultsTarget(group: Self.group, document: "a/b.json"), DefaultsTarget(group: Self.group, document: ".hidden"),
    DefaultsTarget(group: Self.group, document: ".."), DefaultsTarget(group: Self.group, document: "a\0b"),
    DefaultsTarget(group: Self.group, document: String(repeating: "x", count: 201)),
  ])
  func invalidTargetsAreUsageErrors(target: DefaultsTarget) async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let before = scene.tree()
    let defaults = scene.defaults
    let operations: [() async throws -> Void] = [
      { _ = try await defaults.read(target, key: nil) },
      { try await defaults.write(target, key: "k", value: .null) },
      { try await defaults.delete(target, key: "k") },
      { _ = try await defaults.recover(target) },
      { try await defaults.watch(target, key: nil, polling: true, count: 1, timeout: nil) { _ in } },
    ]
    for operation in operations {
      let outcome = await Self.status(operation)
      #expect(outcome?.status == .usage, "\(String(describing: outcome))")
    }
    if target.document == nil {
      #expect(await Self.status { _ = try await defaults.list(group: target.group) }?.status == .usage)
    }
    #expect(scene.tree() == before)
  }

  /// `list`: each group with its shared defaults and documents, a folder with an invalid name reported as such,
  /// and a `Library` planted as a link reported (not followed: nothing is made where it leads), beside the groups
  /// that are fine (the command line's text and JSON renderings: `DefaultsTextTests`).
  @Test func listShowsGroupsAndProblems() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let defaults = scene.defaults
    try await defaults.write(DefaultsTarget(group: Self.group), key: "k", value: .integer(1))
    try await defaults.write(DefaultsTarget(group: Self.group, document: "bookings.json"), key: "12", value: .null)
    let other = "group.com.example.other"
    try await defaults.write(DefaultsTarget(group: other, document: "notes.json"), key: "k", value: .null)
    let elsewhere = scene.directory.file("elsewhere").path
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
    let otherPath = scene.home.appGroupsRoot.path + "/" + other
    try FileManager.default.removeItem(atPath: otherPath + "/Library")
    try FileManager.default.createSymbolicLink(atPath: otherPath + "/Library", withDestinationPath: elsewhere)
    try FileManager.default.createDirectory(
      atPath: scene.home.appGroupsRoot.path + "/group.bad_name", withIntermediateDirectories: true)

    let listings = try await defaults.list(group: nil)
    #expect(listings.map(\.identifier) == ["group.bad_name", other, Self.group])
    #expect(listings[0].problems.first?.hasPrefix("not a valid app group identifier") == true)
    #expect(listings[1].defaults == nil)
    #expect(listings[1].documents == ["notes.json"])
    #expect(listings[1].problems.first?.contains("Library") == true, "\(listings[1].problems)")
    #expect(
      listings[2]
        == GroupListing(
          identifier: Self.group, path: scene.groupPath, defaults: "Library/Preferences/\(Self.group).json",
          documents: ["bookings.json"], problems: []))
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    #expect(try await defaults.list(group: Self.group) == [listings[2]])
  }

  /// A corrupt document is 65 naming the recovery command; `recover` moves it aside and the document is usable
  /// again. `recover` of a readable one says there is nothing to recover.
  @Test func aCorruptDocumentIs65AndRecovers() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let target = DefaultsTarget(group: Self.group, document: "my notes.json")
    try await scene.defaults.write(target, key: "k", value: .integer(1))
    #expect(try await scene.defaults.recover(target).first?.hasSuffix("nothing to recover") == true)
    // A checkpoint that is not JSON, and no journal.
    try? FileManager.default.removeItem(atPath: scene.groupPath + "/.my notes.json.journal")
    try "garbage".write(toFile: scene.groupPath + "/my notes.json", atomically: false, encoding: .utf8)
    let read = await Self.status { _ = try await scene.defaults.read(target, key: "k") }
    #expect(read?.status == .dataError)
    #expect(read?.message.contains("`assistant defaults recover \(Self.group) --document 'my notes.json'`") == true)
    let steps = try await scene.defaults.recover(target)
    #expect(steps.contains { $0.hasPrefix("moved ") }, "\(steps)")
    try await scene.defaults.write(target, key: "k", value: .integer(2))
    #expect(try await scene.defaults.read(target, key: "k") == .integer(2))
  }

  /// The store's errors as the README's statuses: an I/O error is 74 (never 77 or 70).
  @Test func storeErrorsMapToStatuses() {
    let target = DefaultsTarget(group: Self.group)
    let io = AppGroupDefaults.hostError(.io(SystemError(code: EIO, operation: "read", subject: "/x")), target)
    #expect(io.status == .ioError)
    #expect(io.message == "read /x: \(String(cString: strerror(EIO)))")
    #expect(AppGroupDefaults.hostError(.corrupt(file: "/x", detail: "d"), target).status == .dataError)
    #expect(AppGroupDefaults.hostError(.unsafeFile(file: "/x", detail: "d"), target).status == .dataError)
    #expect(AppGroupDefaults.hostError(.newerSchema(file: "/x", found: 2, known: 1), target).status == .dataError)
    #expect(AppGroupDefaults.hostError(.invalidGroupIdentifier("g", problem: "p"), target).status == .usage)
    #expect(
      stateError(StoreError.io(SystemError(code: EIO, operation: "open")), "cannot", document: "/x").status == .ioError)
    #expect(stateError(StoreError.corrupt(file: "/x", detail: "d"), "cannot", document: "/x").status == .dataError)
  }

  // MARK: - watch

  /// What a watch emitted, and what it saw when it did.
  final class Emitted: Sendable {
    let values = Mutex<[JSONValue]>([])
    func append(_ value: JSONValue) -> Int {
      values.withLock {
        $0.append(value)
        return $0.count
      }
    }
    var all: [JSONValue] { values.withLock { $0 } }
  }

  /// `watch` emits the current value, then each change, and ends after `count` changes; the change is made from
  /// `emit` itself (on its own thread), so no timing is involved. A document not written yet starts as an empty
  /// object (a key as null) and its lock file is not made by the watch: it is absent when the first value comes.
  @Test(arguments: [false, true])
  func watchEmitsTheValueThenEachChange(polling: Bool) async throws {
    let scene = try Scene()
    defer { scene.remove() }
    try await scene.defaults.write(DefaultsTarget(group: Self.group), key: "k", value: .integer(1))
    let target = DefaultsTarget(group: Self.group, document: "later.json")
    let lock = scene.groupPath + "/.later.json.lock"
    let writer = Document<AnyDocumentContent>(in: scene.groupPath, at: "later.json")
    let emitted = Emitted()
    let lockAtFirst = Mutex<Bool?>(nil)
    try await scene.defaults.watch(target, key: nil, polling: polling, count: 1, timeout: nil) { value in
      if emitted.append(value) == 1 {
        lockAtFirst.withLock { $0 = scene.exists(lock) }
        try writer.update { $0.value = .object(["k": .string("v")]) }
      }
    }
    #expect(emitted.all == [.object([:]), .object(["k": .string("v")])])
    #expect(lockAtFirst.withLock { $0 } == false)

    // A key: null, then its value; a change to another key is not a change of it.
    let keyed = Emitted()
    let defaults = DefaultsTarget(group: Self.group)
    let shared = AppGroupDefaults.document(defaults, inGroupAt: scene.groupPath)
    try await scene.defaults.watch(defaults, key: "x", polling: polling, count: 1, timeout: nil) { value in
      if keyed.append(value) == 1 {
        try shared.update { $0.value = .object(["k": .integer(2)]) }
        try shared.update { $0.value = .object(["k": .integer(2), "x": .bool(false)]) }
      }
    }
    #expect(keyed.all == [.null, .bool(false)])
  }

  /// `emit` throwing (a closed pipe) ends the watch with that very error; a timeout ends it normally.
  @Test func watchEndsWhenEmitThrowsOrTimesOut() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let target = DefaultsTarget(group: Self.group)
    try await scene.defaults.write(target, key: "k", value: .integer(1))
    await #expect(throws: SystemError(code: EPIPE, operation: "write")) {
      try await scene.defaults.watch(target, key: nil, polling: false, count: nil, timeout: nil) { _ in
        throw SystemError(code: EPIPE, operation: "write")
      }
    }
    let emitted = Emitted()
    try await scene.defaults.watch(target, key: "k", polling: false, count: nil, timeout: .milliseconds(1)) {
      _ = emitted.append($0)
    }
    #expect(emitted.all == [.integer(1)])
  }

  /// A group whose `Library/Preferences` is missing has no folder for its shared defaults to watch: 69, nothing
  /// made. Control: `write` makes it again.
  @Test func watchRefusesAMissingDefaultsFolder() async throws {
    let scene = try Scene()
    defer { scene.remove() }
    let target = DefaultsTarget(group: Self.group)
    try await scene.defaults.write(DefaultsTarget(group: Self.group, document: "d.json"), key: "k", value: .null)
    try FileManager.default.removeItem(atPath: scene.groupPath + "/Library")
    let before = scene.tree()
    let outcome = await Self.status {
      try await scene.defaults.watch(target, key: nil, polling: false, count: 1, timeout: nil) { _ in }
    }
    #expect(outcome?.status == .noMatch)
    #expect(outcome?.message.contains("has no folder to watch yet") == true, "\(String(describing: outcome))")
    #expect(scene.tree() == before)
    try await scene.defaults.write(target, key: "k", value: .null)
    #expect(scene.exists(scene.groupPath + "/Library/Preferences"))
    #expect(try await scene.defaults.read(target, key: nil) == .object(["k": .null]))
  }

  /// The recovery command quotes a document name for a shell when it needs it.
  @Test func recoveryCommands() {
    #expect(
      AppGroupDefaults.recoveryCommand(DefaultsTarget(group: Self.group)) == "assistant defaults recover \(Self.group)")
    #expect(
      AppGroupDefaults.recoveryCommand(DefaultsTarget(group: Self.group, document: "bookings.json"))
        == "assistant defaults recover \(Self.group) --document bookings.json")
    #expect(
      AppGroupDefaults.recoveryCommand(DefaultsTarget(group: Self.group, document: "it's $x.json"))
        == "assistant defaults recover \(Self.group) --document 'it'\\''s $x.json'")
  }
}
