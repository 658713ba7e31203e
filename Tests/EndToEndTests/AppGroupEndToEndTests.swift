import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

/// The app group through the real binaries: concurrent `rooms` processes, `assistant defaults`, entitlements.
@Suite(.serialized)
struct AppGroupEndToEndTests {
  /// Runs the installed `rooms` app directly, with the environment the host gives it.
  func rooms(_ host: HostFixture, _ arguments: [String]) throws -> CommandResult {
    let app = host.home + "/Applications/Rooms.app"
    return try runCommand(
      app + "/rooms", arguments,
      environment: [
        "INTENTHOST_BUNDLE_IDENTIFIER": "com.example.rooms", "INTENTHOST_BUNDLE_PATH": app,
        "INTENTHOST_CONTAINER": host.home + "/Containers/com.example.rooms",
        "INTENTHOST_APP_GROUPS": "group.com.example.rooms=\(host.groups)/group.com.example.rooms",
      ])
  }

  @Test func eightProcessesBookTwoHundredRooms() throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try host.installRooms()
    let codes = Mutex<[Int32]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      for room in stride(from: 1 + worker, through: 200, by: 8) {
        let code = (try? rooms(host, ["book", String(room), "--by", "Worker \(worker)"]))?.code ?? -1
        codes.withLock { $0.append(code) }
      }
    }
    #expect(codes.withLock { $0 }.count == 200)
    #expect(codes.withLock { $0 }.allSatisfy { $0 == 0 })
    let list = try rooms(host, ["list"])
    #expect(list.stdout.split(separator: "\n").filter { $0.hasPrefix("Room ") }.count == 200, "\(list)")
    #expect(list.stdout.contains("Free: rooms 201-300"))
  }

  @Test func eightProcessesBookTheSameRoomAndOneWins() throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try host.installRooms()
    let results = Mutex<[CommandResult]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      if let result = try? rooms(host, ["book", "42", "--by", "Worker \(worker)"]) {
        results.withLock { $0.append(result) }
      }
    }
    let all = results.withLock { $0 }
    #expect(all.count == 8)
    #expect(all.filter { $0.code == 0 }.count == 1, "\(all)")
    let losers = all.filter { $0.code != 0 }
    #expect(losers.count == 7)
    #expect(losers.allSatisfy { $0.stderr.contains("room 42 is already booked by Worker") }, "\(losers)")
  }

  @Test func defaultsWriteReadDeleteAndTypes() throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let group = "group.com.example.rooms"
    #expect(try host.assistant(["defaults", "write", group, "launches", "-int", "3"]).code == 0)
    #expect(try host.assistant(["defaults", "write", group, "darkMode", "-bool", "yes"]).code == 0)
    #expect(try host.assistant(["defaults", "write", group, "greeting", "Hello there"]).code == 0)
    #expect(try host.assistant(["defaults", "write", group, "recent", "-json", "[12, 7]"]).code == 0)
    let all = try host.assistant(["defaults", "read", group])
    #expect(all.code == 0, "\(all)")
    let object = try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any]
    #expect(object?["launches"] as? Int == 3)
    #expect(object?["darkMode"] as? Bool == true)
    #expect(object?["greeting"] as? String == "Hello there")
    #expect(object?["recent"] as? [Int] == [12, 7])
    #expect(try host.assistant(["defaults", "read", group, "greeting"]).stdout == "Hello there\n")
    #expect(try host.assistant(["defaults", "delete", group, "greeting"]).code == 0)
    let missing = try host.assistant(["defaults", "read", group, "greeting"])
    #expect(missing.code == 69)
    #expect(missing.stderr.contains("has no key \"greeting\""))
    // Where UserDefaults(suiteName:) keeps a group's defaults on iOS.
    #expect(
      FileManager.default.fileExists(atPath: "\(host.groups)/\(group)/Library/Preferences/.\(group).json.journal"))
    let badType = try host.assistant(["defaults", "write", group, "launches", "-int", "three"])
    #expect(badType.code == 64)
    #expect(badType.stderr.contains("-int needs a whole number, not \"three\""))
  }

  @Test(arguments: [
    (["defaults", "read", "com.example.rooms"], "does not start with \"group.\""),
    (["defaults", "write", "group.rooms", "k", "v"], "not \"group.\" followed by a reverse-DNS name"),
  ])
  func badGroupIdentifiersAreRefused(arguments: [String], message: String) throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let result = try host.assistant(arguments)
    #expect(result.code == 64, "\(result)")
    #expect(result.stderr.contains(message), "\(result)")
    #expect(!FileManager.default.fileExists(atPath: host.groups + "/" + arguments[2]))
  }

  /// Writes `text` as Rooms' bookings document and checks that the app and the extension refuse it, naming the file
  /// and the problem, and leave it as it was.
  func refusedByRooms(_ text: String, message: String) throws -> (HostFixture, String) {
    let host = try HostFixture()
    try host.installRooms()
    let directory = host.groups + "/group.com.example.rooms"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/bookings.json"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let booked = try host.assistant(["run", "Rooms", "BookRoom", "roomNumber=5", "bookedBy=Ada"])
    #expect(booked.code == 70, "\(booked)")
    #expect(booked.stderr.contains(path), "\(booked)")
    #expect(booked.stderr.contains(message), "\(booked)")
    let app = try host.assistant(["open", "Rooms", "--", "book", "5", "--by", "Ada"])
    #expect(app.code != 0)
    #expect(app.stderr.contains(message), "\(app)")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    return (host, directory)
  }

  @Test func aCorruptDocumentIsNamedLeftAloneAndRecoveredOnlyOnRequest() throws {
    let text = "{\"bookings\": "
    let (host, directory) = try refusedByRooms(text, message: "is corrupt (not a JSON document with a schemaVersion)")
    defer { host.directory.remove() }
    let read = try host.assistant(["defaults", "read", "group.com.example.rooms", "--document", "bookings.json"])
    #expect(read.code == 65)
    #expect(read.stderr.contains("assistant defaults recover group.com.example.rooms --document bookings.json"))
    #expect(try String(contentsOfFile: directory + "/bookings.json", encoding: .utf8) == text)

    let recovered = try host.assistant([
      "defaults", "recover", "group.com.example.rooms", "--document", "bookings.json",
    ])
    #expect(recovered.code == 0, "\(recovered)")
    #expect(recovered.stdout.contains("aside"))
    let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
      $0.hasPrefix("bookings.json.unreadable-")
    }
    #expect(aside.count == 1)
    #expect(try String(contentsOfFile: directory + "/" + aside[0], encoding: .utf8) == text)
    #expect(try host.assistant(["run", "Rooms", "BookRoom", "roomNumber=5", "bookedBy=Ada"]).code == 0)
  }

  @Test func aDocumentOfANewerSchemaIsRefusedAndLeftAlone() throws {
    let text = "{\"schemaVersion\": 7, \"content\": {\"bookings\": {}, \"floors\": 3}}"
    let (host, _) = try refusedByRooms(text, message: "has schema version 7, newer than version 1")
    defer { host.directory.remove() }
    // `defaults` reads any version (it writes back the version it read).
    let read = try host.assistant([
      "defaults", "read", "group.com.example.rooms", "floors", "--document", "bookings.json",
    ])
    #expect(read.code == 0, "\(read)")
    #expect(read.stdout == "3\n")
  }

  @Test func anExtensionCannotOpenAGroupItsEntitlementsDoNotList() throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fixture(extensionName: "ForeignGroup", in: host.directory.file("bundles"))
    #expect(try host.assistant(["install", app.path]).code == 0)
    let result = try host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(result.code == 1, "\(result)")
    let log = try String(contentsOfFile: host.home + "/Logs/com.example.fixture.ForeignGroup.log", encoding: .utf8)
    #expect(
      log.contains(
        "no container for group.com.example.other: the entitlements of com.example.fixture.ForeignGroup does not list it in com.apple.security.application-groups (add it there)"
      ),
      "\(log)")
    #expect(!FileManager.default.fileExists(atPath: host.groups + "/group.com.example.other"))
  }

  @Test func watchPrintsEachChangeAnotherProcessMakes() throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let group = "group.com.example.rooms"
    #expect(try host.assistant(["defaults", "write", group, "launches", "-int", "1"]).code == 0)
    let out = host.directory.file("watch.out").path
    let outFD = try FileDescriptor.open(out, O_WRONLY | O_CREAT | O_TRUNC)
    let devNull = try FileDescriptor.open("/dev/null", O_RDWR)
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    let assistant = PackagePaths.executable("assistant")
    let watcher = try spawn(
      SpawnOptions(
        executable: assistant,
        arguments: [
          assistant, "--home", host.home, "defaults", "watch", group, "launches", "--count", "2", "--timeout", "30",
        ],
        environment: environment, standardInput: devNull, standardOutput: outFD, standardError: devNull))
    outFD.close()
    devNull.close()
    func output() -> String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
    // The first line is the current value: the watch is established once it appears.
    for _ in 0..<300 where output().isEmpty { usleep(20_000) }
    #expect(output() == "1\n")
    #expect(try host.assistant(["defaults", "write", group, "other", "-int", "9"]).code == 0)  // not watched
    #expect(try host.assistant(["defaults", "write", group, "launches", "-int", "2"]).code == 0)
    for _ in 0..<300 where output() != "1\n2\n" { usleep(20_000) }
    #expect(try host.assistant(["defaults", "delete", group, "launches"]).code == 0)
    var status: Termination? = nil
    for _ in 0..<600 where status == nil {
      _ = try watcher.pidfd.waitReadable(timeoutMilliseconds: 50)
      status = try watcher.reap()
    }
    watcher.pidfd.close()
    #expect(status == .exited(0))
    #expect(output() == "1\n2\nnull\n")
  }
}
