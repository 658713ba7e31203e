import AppGroupStore
import BundleManifest
import Foundation
import TestSupport
import Testing
import Understanding

@testable import AssistantHost

/// Identities belong to their owner (`OwnerTable`, `State/owners.json`): in-process installs into a temporary home,
/// each refusal beside the install that is allowed (the control). End-to-end: IdentityEndToEndTests.
@Suite(.tags(.unit)) struct OwnershipTests {
  /// A temporary home and a folder to build bundles in.
  struct Scene {
    let directory: TemporaryDirectory
    let home: AssistantHome
    var count = 0

    init() throws {
      directory = try TemporaryDirectory("assistanthost-owners")
      home = try AssistantHome(
        root: directory.file("home").path, environment: ["ASSISTANT_APP_GROUPS": directory.file("groups").path])
    }

    /// Rooms.app from the example's manifests, with `change` made to it, in a folder of its own.
    mutating func rooms(_ change: (URL) throws -> Void = { _ in }) throws -> URL {
      count += 1
      let app = try TestBundles.roomsManifests(in: directory.file("bundles-\(count)"))
      try change(app)
      return app
    }

    func remove() { directory.remove() }
  }

  /// Gives Rooms.app the team identifier `team` (in the app's entitlements).
  static func team(_ team: String) -> (URL) throws -> Void {
    { app in
      try Edit.plist(app.appendingPathComponent("Rooms.entitlements")) {
        $0["com.apple.developer.team-identifier"] = team
      }
    }
  }

  /// Gives Rooms.app the identifier `identifier` and its extensions that plus their names.
  static func identifier(_ identifier: String) -> (URL) throws -> Void {
    { app in
      try Edit.plist(app.appendingPathComponent("Info.plist")) { $0["CFBundleIdentifier"] = identifier }
      for name in ["RoomsIntents", "RoomsUI"] {
        try Edit.plist(app.appendingPathComponent("PlugIns/\(name).appex/Info.plist")) {
          $0["CFBundleIdentifier"] = "\(identifier).\(name)"
        }
      }
    }
  }

  func owners(_ home: AssistantHome) throws -> OwnerTable {
    try Document<OwnerTable>(path: home.ownersFile.path).read()
  }

  /// A bundle of another team with Rooms' identifier is refused, naming the owner; the same team's update is the
  /// control, and installs.
  @Test func anotherTeamCannotTakeAnIdentifier() async throws {
    var scene = try Scene()
    defer { scene.remove() }
    try await scene.home.install(from: scene.rooms())
    let impostor = try scene.rooms(Self.team("EVILTEAM01"))
    let error = try await #require(throws: HostError.self) { try await scene.home.install(from: impostor) }
    #expect(error.status == .refused)
    #expect(error.status.rawValue == 77)
    #expect(
      error.message.contains(
        "the bundle identifier com.example.rooms belongs to team com.example (from the bundle identifier), which "
          + "installed Rooms (com.example.rooms); this bundle is from team EVILTEAM01"), "\(error)")
    #expect(error.message.contains("Fix: give the bundle an identifier of its own"))
    let installed = try scene.home.installedApps()
    #expect(installed.map(\.team.identifier) == ["com.example"])

    // The control: an update from the same team installs over it.
    let update = try scene.rooms { app in
      try Edit.plist(app.appendingPathComponent("Info.plist")) { $0["CFBundleDisplayName"] = "Rooms 2" }
    }
    let (app, _) = try await scene.home.install(from: update)
    #expect(app.name == "Rooms 2")
    #expect(try scene.home.installedApps().map(\.identifier.rawValue) == ["com.example.rooms"])
    let table = try owners(scene.home)
    #expect(table.bundles["com.example.rooms"]?.team == Team(identifier: "com.example", source: .bundleIdentifier))
    #expect(table.bundles["com.example.rooms.RoomsIntents"]?.app == "com.example.rooms")
    #expect(table.groups["group.com.example.rooms"]?.owner.identifier == "com.example")
  }

  /// A team that declares its identifier keeps its ids from a bundle that derives the same prefix, and letter case
  /// does not make another identifier.
  @Test func aDeclaredTeamIsNotADerivedOne() async throws {
    var scene = try Scene()
    defer { scene.remove() }
    try await scene.home.install(from: scene.rooms(Self.team("A1B2C3D4E5")))
    let derived = try scene.rooms()
    let error = try await #require(throws: HostError.self) { try await scene.home.install(from: derived) }
    #expect(error.message.contains("belongs to team A1B2C3D4E5, which installed Rooms"), "\(error)")
    let cased = try scene.rooms(Self.identifier("com.Example.Rooms"))
    let casedError = try await #require(throws: HostError.self) { try await scene.home.install(from: cased) }
    #expect(casedError.message.contains("is already the app Rooms (com.example.rooms)"), "\(casedError)")
    // The control: the same declared team updates it.
    try await scene.home.install(from: scene.rooms(Self.team("A1B2C3D4E5")))
  }

  /// An app whose identifier is another app's extension's would get that extension's container.
  @Test func anAppCannotTakeAnExtensionsIdentifier() async throws {
    var scene = try Scene()
    defer { scene.remove() }
    try await scene.home.install(from: scene.rooms())
    let squatter = try SmallApp.build(
      name: "Squatter", identifier: "com.example.rooms.RoomsIntents", intents: [("Squat", "Squat ${value}")],
      in: scene.directory.file("squatter"))
    let error = try await #require(throws: HostError.self) { try await scene.home.install(from: squatter) }
    #expect(error.status == .refused)
    #expect(
      error.message.contains(
        "its identifier com.example.rooms.RoomsIntents is already an extension of Rooms (com.example.rooms.RoomsIntents)"
      ), "\(error)")
    // The control: under an identifier of its own it installs.
    let own = try SmallApp.build(
      name: "Squatter", identifier: "com.example.squatter", intents: [("Squat", "Squat ${value}")],
      in: scene.directory.file("own"))
    try await scene.home.install(from: own)
  }

  /// Another team's bundle that lists Rooms' group is refused unless the user shares the group with it; once
  /// shared, its updates need no flag; a third team still does.
  @Test func aGroupIsSharedOnlyWithTheUsersWord() async throws {
    var scene = try Scene()
    defer { scene.remove() }
    try await scene.home.install(from: scene.rooms())
    func spy(_ name: String, _ identifier: String) throws -> URL {
      try SmallApp.build(
        name: name, identifier: identifier, intents: [("Peek", "Peek ${value}")],
        appGroups: ["group.com.example.rooms"], in: scene.directory.file(identifier))
    }
    let error = try await #require(throws: HostError.self) {
      try await scene.home.install(from: spy("Spy", "com.other.spy"))
    }
    #expect(error.status == .refused)
    #expect(
      error.message.contains(
        "it lists the app group group.com.example.rooms, which belongs to team com.example (from the bundle "
          + "identifier) (used by Rooms (com.example.rooms)); this bundle is from team com.other (from the bundle "
          + "identifier)"), "\(error)")
    #expect(error.message.contains("assistant install --share-group group.com.example.rooms "), "\(error)")
    #expect(try scene.home.installedApps().count == 1)

    // The user's word: shared, installed, recorded.
    try await scene.home.install(from: spy("Spy", "com.other.spy"), sharing: ["group.com.example.rooms"])
    #expect(try owners(scene.home).groups["group.com.example.rooms"]?.sharedWith.map(\.identifier) == ["com.other"])
    try await scene.home.install(from: spy("Spy", "com.other.spy"))  // an update needs no flag
    await #expect(throws: HostError.self) { try await scene.home.install(from: spy("Third", "org.third.app")) }
    // The same team needs no word.
    try await scene.home.install(from: spy("Desk", "com.example.desk"))
  }

  /// Uninstall keeps the team's record (its container and groups are kept too).
  @Test func uninstallKeepsTheRecord() async throws {
    var scene = try Scene()
    defer { scene.remove() }
    try await scene.home.install(from: scene.rooms())
    _ = try await offThePool { [home = scene.home] in try home.uninstall("com.example.rooms").app }
    #expect(try scene.home.installedApps().isEmpty)
    let impostor = try scene.rooms(Self.team("EVILTEAM01"))
    let error = try await #require(throws: HostError.self) { try await scene.home.install(from: impostor) }
    #expect(error.message.contains("which installed com.example.rooms, no longer installed"), "\(error)")
  }

  /// A home whose apps were installed before the record existed: they are recorded first, so they are protected.
  @Test func whatIsInstalledIsRecordedFirst() async throws {
    var scene = try Scene()
    defer { scene.remove() }
    try await scene.home.install(from: scene.rooms())
    for name in try FileManager.default.contentsOfDirectory(atPath: scene.home.state.path) where name.contains("owners")
    {
      try FileManager.default.removeItem(at: scene.home.state.appendingPathComponent(name))
    }
    let impostor = try scene.rooms(Self.team("EVILTEAM01"))
    await #expect(throws: HostError.self) { try await scene.home.install(from: impostor) }
  }

  /// Two apps called Rooms are both kept (the second under its bundle id), and nothing that takes a name picks one.
  @Test func twoAppsWithOneNameAreBothKept() async throws {
    var scene = try Scene()
    defer { scene.remove() }
    try await scene.home.install(from: scene.rooms())
    let other = try SmallApp.build(
      name: "Rooms", identifier: "com.other.rooms", intents: [("BookRoom", "Book room ${value}")],
      in: scene.directory.file("other"))
    let (installed, _) = try await scene.home.install(from: other)
    #expect(installed.url.lastPathComponent == "com.other.rooms.app")
    let apps = try scene.home.installedApps()
    #expect(apps.map(\.identifier.rawValue).sorted() == ["com.example.rooms", "com.other.rooms"])

    let listed =
      "2 installed apps: com.example.rooms (Rooms), com.other.rooms (Rooms); use the bundle id instead of "
      + "the name to say which"
    let router = Router(apps: apps)
    for name in ["Rooms", "rooms", "ROOMS"] {
      let error = try #require(throws: UnderstandingError.self) { try router.app(named: name) }
      #expect(error.status == .noMatch)
      #expect(error.message == "\"\(name)\" is the name of \(listed)")
    }
    // The controls: each by its bundle id, and a name only one has.
    #expect(try router.app(named: "com.example.rooms").name == "Rooms")
    #expect(try router.app(named: "com.other.rooms").identifier.rawValue == "com.other.rooms")
    #expect(try router.app(named: "Room Booking").identifier.rawValue == "com.example.rooms")

    let matcher = UtteranceMatcher(apps: apps)
    let error = try #require(throws: UnderstandingError.self) { try matcher.match("Book room 12 for Ada with Rooms") }
    #expect(error.status == .noMatch)
    #expect(
      error.message == "\"Book room 12 for Ada with Rooms\" names \(listed), e.g. "
        + "\"Book room 12 for Ada with com.example.rooms\"")
    let byIdentifier = try matcher.match("Book room 12 for Ada with com.example.rooms")
    #expect(byIdentifier.app.identifier.rawValue == "com.example.rooms")
    #expect(byIdentifier.values == ["isCancellationOfBooking": false, "roomNumber": 12, "bookedBy": "Ada"])
    #expect(try matcher.match("Book room 7 with com.other.rooms.").app.identifier.rawValue == "com.other.rooms")
    #expect(try matcher.match("Book room 12 for Ada with Room Booking").app.identifier.rawValue == "com.example.rooms")

    let uninstall = try await #require(throws: HostError.self) {
      try await offThePool { [home = scene.home] in try home.uninstall("Rooms").app }
    }
    #expect(uninstall.status == .noMatch)
    #expect(try scene.home.installedApps().count == 2)
  }
}
