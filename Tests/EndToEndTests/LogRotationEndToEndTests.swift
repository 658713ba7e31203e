import Foundation
import TestSupport
import Testing

/// A bundle's log is capped: the host rotates `<bundle id>.log` to `.log.1` at a launch once it holds 1 MiB, and
/// each launch logs at most 1 MiB of stderr, so a bundle keeps two files of at most about 2 MiB each however often
/// it runs.
@Suite(.serialized, .tags(.endToEnd))
struct LogRotationEndToEndTests {
  /// The launches a log records: the pids of its start lines.
  static func launches(_ log: String) -> [String] {
    log.split(separator: "\n").filter { $0.hasPrefix("--- ") && $0.contains(" started, pid ") }.map {
      String($0.split(separator: " ").last ?? "")
    }
  }

  @Test func aBundlesLogIsRotatedAtLaunchOnceItHoldsOneMiB() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fixture(extensionName: "ChattyStderr", in: host.directory.file("bundles"))
    #expect(try await host.assistant(["install", app.path]).code == 0)
    let logs = host.home + "/Logs"
    let log = logs + "/com.example.fixture.ChattyStderr.log"
    func read(_ path: String) async throws -> String {
      try await offThePool { try String(contentsOfFile: path, encoding: .utf8) }
    }

    var kept: [[String]] = []  // after each run: the launches of the log, then of the rotated log
    var sizes: [Int] = []
    for _ in 0..<3 {
      let result = try await host.assistant(["run", "Fixture", "Ping", "value=x"])
      #expect(result.code == 0, "\(result)")
      let current = try await read(log)
      let rotated = FileManager.default.fileExists(atPath: log + ".1") ? try await read(log + ".1") : ""
      // Control: every launch logs as much as it may, so without rotation three would make one log of 3 MiB.
      #expect(current.contains("\n--- host: stderr beyond 1048576 bytes not logged\n"), "\(current.suffix(300))")
      kept.append([Self.launches(current).joined(separator: ","), Self.launches(rotated).joined(separator: ",")])
      sizes.append(current.utf8.count + rotated.utf8.count)
    }
    let pids = kept.map { $0[0] }
    #expect(pids.allSatisfy { !$0.isEmpty && !$0.contains(",") }, "one launch per log: \(kept)")
    #expect(kept[0][1] == "", "nothing to rotate before the second launch: \(kept)")
    #expect(kept[1][1] == pids[0] && kept[2][1] == pids[1], "each launch rotated the one before: \(kept)")
    let files = try FileManager.default.contentsOfDirectory(atPath: logs).filter { $0.contains("ChattyStderr") }
    #expect(files.sorted() == ["com.example.fixture.ChattyStderr.log", "com.example.fixture.ChattyStderr.log.1"])
    let cap = 2 * ((1 << 20) + (64 << 10) + 4096)  // two files of one launch each: stderr, host lines, start and end
    #expect(sizes.allSatisfy { $0 < cap }, "\(sizes)")
    #expect(sizes[2] > 2_000_000, "the two kept launches each logged about 1 MiB: \(sizes)")
    #expect(livingProcesses(named: "ChattyStderr", under: host.directory.path).isEmpty)
  }
}
