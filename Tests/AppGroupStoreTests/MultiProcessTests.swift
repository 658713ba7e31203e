import AppGroupStore
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

/// Many processes on one document, through the real `store-stress` helper.
@Suite(.serialized)
struct MultiProcessTests {
  let helper = PackagePaths.executable("store-stress")

  /// Starts `count` helpers at once and waits for all of them.
  func together(_ count: Int, _ arguments: [String]) throws -> [CommandResult] {
    let results = Mutex<[CommandResult]>([])
    let failures = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: count) { _ in
      do {
        let result = try runCommand(helper, arguments)
        results.withLock { $0.append(result) }
      } catch {
        failures.withLock { $0.append("\(error)") }
      }
    }
    #expect(failures.withLock { $0 }.isEmpty)
    return results.withLock { $0 }
  }

  @Test func eightWritersLoseNoUpdate() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    let results = try together(8, ["increment", path, "500", "--quiet", "--compact-every", "16"])
    #expect(results.allSatisfy { $0.code == 0 }, "\(results.filter { $0.code != 0 })")
    #expect(try Document<Counter>(path: path).read().count == 4000)
  }

  /// Control: the same run without the lock loses updates, so the test above can fail.
  @Test func withoutTheLockUpdatesAreLost() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    _ = try together(8, ["increment", path, "500", "--quiet", "--compact-every", "16", "--no-lock"])
    let count = (try? Document<Counter>(path: path).read().count) ?? 0
    #expect(count < 4000, "8 unlocked writers kept all 4000 increments; the control shows nothing")
  }

  /// Starts a writer, kills it with SIGKILL after a random 2-25 ms, and returns the last increment it acknowledged
  /// (nil when it acknowledged none).
  func killedWriter(_ path: String, scratch: TemporaryDirectory, extra: [String] = []) throws -> Int? {
    let out = scratch.file("out").path
    let outFD = try FileDescriptor.open(out, O_WRONLY | O_CREAT | O_TRUNC)
    let devNull = try FileDescriptor.open("/dev/null", O_RDWR)
    let options = SpawnOptions(
      executable: helper, arguments: [helper, "increment", path, "1000000"] + extra,
      environment: [:], standardInput: devNull, standardOutput: outFD, standardError: devNull)
    let process = try spawn(options)
    outFD.close()
    devNull.close()
    usleep(UInt32.random(in: 2_000...25_000))
    process.send(SIGKILL)
    var status: Termination? = nil
    while status == nil {
      _ = try process.pidfd.waitReadable(timeoutMilliseconds: 100)
      status = try process.reap()
    }
    process.pidfd.close()
    let lines = try String(contentsOfFile: out, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    // The last line may be cut by the kill: only whole lines ("ack N" followed by a newline) count.
    return lines.dropLast().compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.last
  }

  /// Writers killed with SIGKILL at random points, 200 times: the document always reads, and holds exactly the
  /// acknowledged increments. An increment committed in the instant between its commit and its "ack" line is the one
  /// extra the count may hold.
  @Test func twoHundredKillsLoseNothingAcknowledged() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    var total = 0
    for kill in 0..<200 {
      // A short compaction period puts kills inside compactions too.
      let acknowledged = try killedWriter(path, scratch: dir, extra: ["--compact-every", "5"]) ?? total
      let count = try Document<Counter>(path: path).read().count
      #expect(
        count == acknowledged || count == acknowledged + 1, "kill \(kill): acked \(acknowledged), stored \(count)")
      #expect(count >= total, "kill \(kill): the count went back from \(total) to \(count)")
      total = count
    }
    #expect(total > 200, "the writers made too little progress for the kills to mean anything")
  }

  /// Control: a naive writer that rewrites the file in place leaves a torn document under the same kills, so the
  /// test above can fail.
  @Test func killsTearADocumentWrittenInPlace() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    var torn = false
    for _ in 0..<200 where !torn {
      let acknowledged = try killedWriter(path, scratch: dir, extra: ["--in-place"])
      do {
        let count = try Document<Counter>(path: path).read().count
        if let acknowledged, count != acknowledged && count != acknowledged + 1 { torn = true }
      } catch {
        torn = true
        try? FileManager.default.removeItem(atPath: path)
      }
    }
    #expect(torn, "200 kills of an in-place writer never left a torn document; the crash test shows nothing")
  }

  @Test(arguments: [false, true])
  func aWatcherSeesAnotherProcessWrite(polling: Bool) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = Document<Counter>(path: dir.file("counter.json").path)
    try document.update { $0.count = 41 }
    let watch = try DocumentWatch(document, polling: polling)
    #expect(watch.usesInotify == !polling)
    #expect(try watch.next(timeout: .milliseconds(100)) == nil)
    let writer = Thread {
      usleep(200_000)
      _ = try? runCommand(PackagePaths.executable("store-stress"), ["increment", document.path, "1", "--quiet"])
    }
    writer.start()
    let change = try watch.next(timeout: .seconds(20))
    #expect(change?.content.count == 42)
    #expect(change?.sequence == 2)
  }
}
