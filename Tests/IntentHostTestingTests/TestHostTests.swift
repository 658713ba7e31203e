import AppGroupStore
import ExtensionProtocol
import Foundation
import IntentHostSystem
import IntentHostTesting
import TestSupport
import Testing

/// The host itself: a home of its own, removed on every path; installs; hosts that share nothing, in parallel; a
/// host that was shut down refuses to run.
@Suite(.serialized, .tags(.process))
struct TestHostTests {
  @Test func theHomeIsRemovedWhenTheBodyReturnsOrThrows() async throws {
    let home = try await withTestHost { host in
      try await host.installExample("Rooms")
      #expect(try await host.say("Book room 12 for Ada with Rooms").isSuccess)
      #expect(
        FileManager.default.fileExists(atPath: host.appGroups.appendingPathComponent("group.com.example.rooms").path))
      #expect(host.appGroups.path.hasPrefix(host.home.path + "/"))
      return host.home
    }
    #expect(!FileManager.default.fileExists(atPath: home.deletingLastPathComponent().path))
    #expect(try await processes(runningFrom: home).isEmpty)

    struct Failure: Error {}
    var thrownHome: URL?
    await #expect(throws: Failure.self) {
      try await withTestHost { host in
        thrownHome = host.home
        try await host.installExample("Rooms")
        throw Failure()
      }
    }
    let folder = try #require(thrownHome).deletingLastPathComponent()
    #expect(!FileManager.default.fileExists(atPath: folder.path))
  }

  @Test func aShutDownHostRefusesToRun() async throws {
    let host = try await TestHost()
    await host.shutdown()
    await host.shutdown()  // again: nothing
    await #expect(throws: TestHostError.self) { _ = try await host.say("Book room 12 for Ada with Rooms") }
    #expect(!FileManager.default.fileExists(atPath: host.home.deletingLastPathComponent().path))
  }

  /// The same room booked in two hosts at once: each host has its own app group, so both bookings succeed; in one
  /// host (the control) the second is refused.
  @Test func twoHostsInParallelShareNothing() async throws {
    let people = ["Ada", "Grace"]
    let results = try await withThrowingTaskGroup(of: (String, SiriResult, URL).self) { group in
      for person in people {
        group.addTask {
          try await withTestHost { host in
            try await host.installExample("Rooms")
            return (person, try await host.say("Book room 12 for \(person) with Rooms"), host.home)
          }
        }
      }
      var results: [(String, SiriResult, URL)] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(results.count == 2)
    for (person, result, _) in results {
      #expect(result.status == .success, "\(result.transcript)")
      #expect(result.dialog == ["Room 12 is now booked by \(person)."])
    }
    #expect(Set(results.map(\.2)).count == 2)

    try await withTestHost { host in
      try await host.installExample("Rooms")
      #expect(try await host.say("Book room 12 for Ada with Rooms").isSuccess)
      #expect(try await host.say("Book room 12 for Grace with Rooms").status == .failureResponse)
    }
  }

  /// A test process holds many descriptors (its runner's, other tests' runs): a sandboxed launch still starts, as the
  /// child closes the host's descriptors before its limit on open files (64) applies. Without that, every descriptor
  /// the child opened to confine itself was numbered above the limit and the launch failed with EMFILE.
  @Test func aLaunchStartsWhileTheProcessHoldsManyDescriptors() async throws {
    let held = try await offThePool { () throws(SystemError) -> [FileDescriptor] in
      try (0..<200).map { _ throws(SystemError) in try FileDescriptor.open("/dev/null", O_RDONLY | O_CLOEXEC) }
    }
    defer { for fd in held { fd.close() } }
    #expect(held.contains { $0.rawValue > 64 })
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let result = try await host.say("Book room 12 for Ada with Rooms")
      #expect(result.status == .success, "\(result.transcript)")
      #expect(result.views.map(\.extensionName) == ["RoomsUI"], "\(result.transcript)")
    }
  }

  @Test func installingReportsWhatIsWrong() async throws {
    try await withTestHost { host in
      let missing = await #expect(throws: TestHostError.self) {
        try await host.install(URL(fileURLWithPath: "/nonexistent/Nothing.app"))
      }
      #expect(missing?.status == .noInput, "\(String(describing: missing))")
      #expect(try await host.installedApps().isEmpty)

      // A folder of assembled bundles: the seam a package's build output installs through.
      let installed = try await host.install(
        from: AssembledBundles(folder: ExampleApps.bundle("Rooms").deletingLastPathComponent()))
      #expect(installed.map(\.name) == ["Ascent", "FuelOrder", "Rooms"])
      #expect(
        try await host.installedApps().map(\.bundleIdentifier).sorted() == [
          "com.example.ascent", "com.example.fuelorder", "com.example.rooms",
        ])
      try await host.uninstall("Rooms")
      #expect(try await host.say("Book room 12 for Ada with Rooms").status == .noMatch)
    }
  }
}

/// The pids of the processes whose executable is under `folder` (read from `/proc/PID/exe`, off the pool).
func processes(runningFrom folder: URL) async throws -> [Int32] {
  try await offThePool { () throws -> [Int32] in
    try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { name -> Int32? in
      guard let pid = Int32(name),
        let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(name)/exe")
      else { return nil }
      return executable.hasPrefix(folder.path + "/") ? pid : nil
    }
  }
}
