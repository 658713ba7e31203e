import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// The app group through the real binaries: concurrent `rooms` processes, `assistant defaults`, entitlements.
@Suite(.serialized, .tags(.endToEnd))
struct AppGroupEndToEndTests {
  /// Runs the installed `rooms` app directly, with the environment the host gives it. Waits off the cooperative pool
  /// (`runCommand`).
  func rooms(_ host: HostFixture, _ arguments: [String]) async throws -> CommandResult {
    let app = host.home + "/Applications/Rooms.app"
    return try await runCommand(
      app + "/rooms", arguments,
      environment: [
        "INTENTHOST_BUNDLE_IDENTIFIER": "com.example.rooms", "INTENTHOST_BUNDLE_PATH": app,
        "INTENTHOST_CONTAINER": host.home + "/Containers/com.example.rooms",
        "INTENTHOST_APP_GROUPS": "group.com.example.rooms=\(host.groups)/group.com.example.rooms",
      ])
  }

  @Test func eightProcessesBookTwoHundredRooms() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    // Eight workers at once, each booking its rooms one after another.
    let codes = await withTaskGroup(of: [Int32].self) { group in
      for worker in 0..<8 {
        group.addTask {
          var codes: [Int32] = []
          for room in stride(from: 1 + worker, through: 200, by: 8) {
            codes.append((try? await rooms(host, ["book", String(room), "--by", "Worker \(worker)"]))?.code ?? -1)
          }
          return codes
        }
      }
      return await group.reduce(into: []) { $0 += $1 }
    }
    #expect(codes.count == 200)
    #expect(codes.allSatisfy { $0 == 0 })
    let list = try await rooms(host, ["list"])
    #expect(list.stdout.split(separator: "\n").filter { $0.hasPrefix("Room ") }.count == 200, "\(list)")
    #expect(list.stdout.contains("Free: rooms 201-300"))
  }

  @Test func eightProcessesBookTheSameRoomAndOneWins() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let all = await withTaskGroup(of: CommandResult?.self) { group in
      for worker in 0..<8 {
        group.addTask { try? await rooms(host, ["book", "42", "--by", "Worker \(worker)"]) }
      }
      return await group.reduce(into: [CommandResult]()) { all, result in if let result { all.append(result) } }
    }
    #expect(all.count == 8)
    #expect(all.filter { $0.code == 0 }.count == 1, "\(all)")
    let losers = all.filter { $0.code != 0 }
    #expect(losers.count == 7)
    #expect(losers.allSatisfy { $0.stderr.contains("room 42 is already booked by Worker") }, "\(losers)")
  }

  @Test func defaultsWriteReadDeleteAndTypes() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let group = "group.com.example.rooms"
    #expect(try await host.assistant(["defaults", "write", group, "launches", "-int", "3"]).code == 0)
    #expect(try await host.assistant(["defaults", "write", group, "darkMode", "-bool", "yes"]).code == 0)
    #expect(try await host.assistant(["defaults", "write", group, "greeting", "Hello there"]).code == 0)
    #expect(try await host.assistant(["defaults", "write", group, "recent", "-json", "[12, 7]"]).code == 0)
    let all = try await host.assistant(["defaults", "read", group])
    #expect(all.code == 0, "\(all)")
    let object = try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any]
    #expect(object?["launches"] as? Int == 3)
    #expect(object?["darkMode"] as? Bool == true)
    #expect(object?["greeting"] as? String == "Hello there")
    #expect(object?["recent"] as? [Int] == [12, 7])
    #expect(try await host.assistant(["defaults", "read", group, "greeting"]).stdout == "Hello there\n")
    #expect(try await host.assistant(["defaults", "delete", group, "greeting"]).code == 0)
    let missing = try await host.assistant(["defaults", "read", group, "greeting"])
    #expect(missing.code == 69)
    #expect(missing.stderr.contains("has no key \"greeting\""))
    // Where UserDefaults(suiteName:) keeps a group's defaults on iOS.
    #expect(
      FileManager.default.fileExists(atPath: "\(host.groups)/\(group)/Library/Preferences/.\(group).json.journal"))
    let badType = try await host.assistant(["defaults", "write", group, "launches", "-int", "three"])
    #expect(badType.code == 64)
    #expect(badType.stderr.contains("-int needs a whole number, not \"three\""))
  }

  @Test(arguments: [
    (["defaults", "read", "com.example.rooms"], "does not start with \"group.\""),
    (["defaults", "write", "group.rooms", "k", "v"], "not \"group.\" followed by a reverse-DNS name"),
  ])
  func badGroupIdentifiersAreRefused(arguments: [String], message: String) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let result = try await host.assistant(arguments)
    #expect(result.code == 64, "\(result)")
    #expect(result.stderr.contains(message), "\(result)")
    #expect(!FileManager.default.fileExists(atPath: host.groups + "/" + arguments[2]))
  }

  /// Writes `text` as Rooms' bookings document and checks that the app and the extension refuse it, naming the file
  /// and the problem, and leave it as it was. Waits for the commands off the cooperative pool.
  func refusedByRooms(_ text: String, message: String) async throws -> (HostFixture, String) {
    let host = try HostFixture()
    try await host.installRooms()
    let directory = host.groups + "/group.com.example.rooms"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/bookings.json"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let booked = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=5", "bookedBy=Ada"])
    #expect(booked.code == 70, "\(booked)")
    #expect(booked.stderr.contains(path), "\(booked)")
    #expect(booked.stderr.contains(message), "\(booked)")
    let app = try await host.assistant(["open", "Rooms", "--", "book", "5", "--by", "Ada"])
    #expect(app.code != 0)
    #expect(app.stderr.contains(message), "\(app)")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    return (host, directory)
  }

  @Test func aCorruptDocumentIsNamedLeftAloneAndRecoveredOnlyOnRequest() async throws {
    let text = "{\"bookings\": "
    let (host, directory) = try await refusedByRooms(
      text, message: "is corrupt (not a JSON document with a schemaVersion)")
    defer { host.directory.remove() }
    let read = try await host.assistant(["defaults", "read", "group.com.example.rooms", "--document", "bookings.json"])
    #expect(read.code == 65)
    #expect(read.stderr.contains("assistant defaults recover group.com.example.rooms --document bookings.json"))
    #expect(try String(contentsOfFile: directory + "/bookings.json", encoding: .utf8) == text)

    let recovered = try await host.assistant([
      "defaults", "recover", "group.com.example.rooms", "--document", "bookings.json",
    ])
    #expect(recovered.code == 0, "\(recovered)")
    #expect(recovered.stdout.contains("aside"))
    let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
      $0.hasPrefix("bookings.json.unreadable-")
    }
    #expect(aside.count == 1)
    #expect(try String(contentsOfFile: directory + "/" + aside[0], encoding: .utf8) == text)
    #expect(try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=5", "bookedBy=Ada"]).code == 0)
  }

  @Test func aDocumentOfANewerSchemaIsRefusedAndLeftAlone() async throws {
    let text = "{\"schemaVersion\": 7, \"content\": {\"bookings\": {}, \"floors\": 3}}"
    let (host, _) = try await refusedByRooms(text, message: "has schema version 7, newer than version 1")
    defer { host.directory.remove() }
    // `defaults` reads any version (it writes back the version it read).
    let read = try await host.assistant([
      "defaults", "read", "group.com.example.rooms", "floors", "--document", "bookings.json",
    ])
    #expect(read.code == 0, "\(read)")
    #expect(read.stdout == "3\n")
  }

  @Test func anExtensionCannotOpenAGroupItsEntitlementsDoNotList() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fixture(extensionName: "ForeignGroup", in: host.directory.file("bundles"))
    #expect(try await host.assistant(["install", app.path]).code == 0)
    let result = try await host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(result.code == 1, "\(result)")
    let log = try String(contentsOfFile: host.home + "/Logs/com.example.fixture.ForeignGroup.log", encoding: .utf8)
    #expect(
      log.contains(
        "no container for group.com.example.other: the entitlements of com.example.fixture.ForeignGroup does not list it in com.apple.security.application-groups (add it there)"
      ),
      "\(log)")
    #expect(!FileManager.default.fileExists(atPath: host.groups + "/group.com.example.other"))
  }

  @Test func watchPrintsEachChangeAnotherProcessMakes() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let group = "group.com.example.rooms"
    #expect(try await host.assistant(["defaults", "write", group, "launches", "-int", "1"]).code == 0)
    let out = host.directory.file("watch.out").path
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    let assistant = PackagePaths.executable("assistant")
    let arguments = ["--home", host.home, "defaults", "watch", group, "launches", "--count", "2", "--timeout", "30"]
    // Its output goes to a file this test reads while it runs.
    let watcher = try await spawnWritingOutput(to: out, assistant, arguments, environment: environment)
    func output() -> String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
    do {
      // The first line is the current value: the watch is established once it appears.
      try await eventually(timeout: .seconds(6)) { !output().isEmpty }
      #expect(output() == "1\n")
      #expect(try await host.assistant(["defaults", "write", group, "other", "-int", "9"]).code == 0)  // not watched
      #expect(try await host.assistant(["defaults", "write", group, "launches", "-int", "2"]).code == 0)
      try await eventually(timeout: .seconds(6)) { output() == "1\n2\n" }
      #expect(try await host.assistant(["defaults", "delete", group, "launches"]).code == 0)
    } catch {
      _ = try? await waitForExit(watcher, timeout: .zero)  // no time left: killed and reaped before the test ends
      throw error
    }
    let status = try await waitForExit(watcher, timeout: .seconds(30))
    #expect(status == .exited(0))
    #expect(output() == "1\n2\nnull\n")
  }
}
