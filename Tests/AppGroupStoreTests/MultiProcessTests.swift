import AppGroupStore
import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// Many processes on one document, through the real `store-stress` helper. Every wait (for a process, a lock, a
/// sync, a watch) is off the cooperative pool.
@Suite(.serialized, .tags(.process))
struct MultiProcessTests {
  let helper = PackagePaths.executable("store-stress")

  /// Starts `count` helpers at once (a task group of `runCommand`s) and waits for all of them off the cooperative pool.
  func together(_ count: Int, _ arguments: [String]) async -> [CommandResult] {
    let helper = helper
    let outcomes = await withTaskGroup(of: Result<CommandResult, any Error>.self) { group in
      for _ in 0..<count {
        group.addTask {
          do { return .success(try await runCommand(helper, arguments)) } catch { return .failure(error) }
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    var results: [CommandResult] = []
    var failures: [String] = []
    for outcome in outcomes {
      switch outcome {
      case .success(let result): results.append(result)
      case .failure(let error): failures.append("\(error)")
      }
    }
    #expect(failures.isEmpty)
    return results
  }

  /// The count stored in the document at `path`. The read takes the document's shared `flock`, so it runs off the
  /// pool.
  func storedCount(_ path: String) async throws -> Int {
    try await offThePool { try Document<Counter>(path: path).read().count }
  }

  @Test func eightWritersLoseNoUpdate() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    let results = await together(8, ["increment", path, "500", "--quiet", "--compact-every", "16"])
    #expect(results.allSatisfy { $0.code == 0 }, "\(results.filter { $0.code != 0 })")
    #expect(try await storedCount(path) == 4000)
  }

  /// Control: the same run without the lock loses updates, so the test above can fail.
  @Test func withoutTheLockUpdatesAreLost() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    _ = await together(8, ["increment", path, "500", "--quiet", "--compact-every", "16", "--no-lock"])
    let count = (try? await storedCount(path)) ?? 0
    #expect(count < 4000, "8 unlocked writers kept all 4000 increments; the control shows nothing")
  }

  /// Starts a writer, kills it with SIGKILL at a random point (0-15 ms) after its first acknowledged increment, and
  /// returns the last increment it acknowledged. The spawn, the wait for its end and the read of its output are off
  /// the pool.
  func killedWriter(_ path: String, scratch: TemporaryDirectory, extra: [String] = []) async throws -> Int? {
    let out = scratch.file("out").path
    let process = try await spawnWritingOutput(to: out, helper, ["increment", path, "1000000"] + extra)
    // The kill comes at a random point after the writer's first acknowledged increment, so every writer makes
    // progress however loaded the machine is. Cancelled, the waits end early: the writer is killed at once, and
    // waitForExit reaps it and throws.
    _ = try? await eventually(timeout: .seconds(10), interval: .milliseconds(1)) {
      ((try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()).contains(0x0A)
    }
    try? await Task.sleep(for: .microseconds(Int.random(in: 0...15_000)))
    process.send(SIGKILL)
    _ = try await waitForExit(process)
    let text = try await offThePool { try String(contentsOfFile: out, encoding: .utf8) }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    // The last line may be cut by the kill: only whole lines ("ack N" followed by a newline) count.
    return lines.dropLast().compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.last
  }

  /// Writers killed with SIGKILL at random points, 200 times: the document always reads, and holds exactly the
  /// acknowledged increments. An increment committed in the instant between its commit and its "ack" line is the one
  /// extra the count may hold.
  @Test func twoHundredKillsLoseNothingAcknowledged() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    var total = 0
    for kill in 0..<200 {
      // A short compaction period puts kills inside compactions too.
      let acknowledged = try await killedWriter(path, scratch: dir, extra: ["--compact-every", "5"]) ?? total
      let count = try await storedCount(path)
      #expect(
        count == acknowledged || count == acknowledged + 1, "kill \(kill): acked \(acknowledged), stored \(count)")
      #expect(count >= total, "kill \(kill): the count went back from \(total) to \(count)")
      total = count
    }
    #expect(total >= 200, "the writers made too little progress for the kills to mean anything")
  }

  /// Control: a naive writer that rewrites the file in place leaves a torn document under the same kills, so the
  /// test above can fail.
  @Test func killsTearADocumentWrittenInPlace() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    var torn = false
    for _ in 0..<200 where !torn {
      let acknowledged = try await killedWriter(path, scratch: dir, extra: ["--in-place"])
      do {
        let count = try await storedCount(path)
        if let acknowledged, count != acknowledged && count != acknowledged + 1 { torn = true }
      } catch {
        torn = true
        try? FileManager.default.removeItem(atPath: path)
      }
    }
    #expect(torn, "200 kills of an in-place writer never left a torn document; the crash test shows nothing")
  }

  @Test(arguments: [false, true])
  func aWatcherSeesAnotherProcessWrite(polling: Bool) async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = Document<Counter>(path: dir.file("counter.json").path)
    try await offThePool { try document.update { $0.count = 41 } }
    // The watch waits on a dedicated thread. Once it has seen nothing for 100 ms it says so, and a child task starts
    // the writer 200 ms later.
    let (watching, watchingSink) = AsyncStream.makeStream(of: Void.self)
    async let writer: CommandResult? = {
      for await _ in watching {
        try await Task.sleep(for: .milliseconds(200))
        return try await runCommand(helper, ["increment", document.path, "1", "--quiet"])
      }
      return nil
    }()
    let (usesInotify, quietAtFirst, change) = try await offThePool {
      defer { watchingSink.finish() }
      let watch = try DocumentWatch(document, polling: polling)
      let quiet = try watch.next(timeout: .milliseconds(100)) == nil
      watchingSink.yield()
      return (watch.usesInotify, quiet, try watch.next(timeout: .seconds(20)))
    }
    #expect(usesInotify == !polling)
    #expect(quietAtFirst)
    #expect(change?.content.count == 42)
    #expect(change?.sequence == 2)
    _ = try await writer
  }
}
