// intenthost-bench: the measurements of Scripts/bench that need the engine in-process.
//
//   intenthost-bench warm HOME COUNT APP INTENT [NAME=VALUE...]
//   intenthost-bench throughput HOME COUNT CLIENTS APP INTENT [NAME=VALUE...]
//   intenthost-bench spawn HOME COUNT APP EXTENSION
//
// warm: runs the intent COUNT times over kept-alive extensions (after 20 warm-up runs) and prints one table row with
// the median and p99 per intent in ms, then the extension's resident memory, and the memory of this process (the
// host) and of each extension, private and shared (/proc/PID/smaps_rollup). In values, `{n}` becomes 1 + i mod 300
// and `{cancel}` is false on even passes over the 300 and true on odd ones, so a BookRoom loop books and cancels in
// turn and every run succeeds.
//
// throughput: for each count of clients in CLIENTS (comma-separated, e.g. 1,2,8), that many concurrent warm clients
// run COUNT intents between them (`throughputBench`); prints the intents per second.
//
// spawn: the sandboxed launch of an extension against a plain spawn of it (`spawnBench`).
//
// Every row is also appended to the file `BENCH_RESULTS` names, a JSON object a line, when it is set.
import AssistantHost
import Foundation
import IntentHostSystem
import Understanding
import UntrustedText

/// Says nothing and answers nothing: every value is given.
struct Silent: CheckedConversation {
  func say(_ text: String) {}
  func ask(_ prompt: String, need: String) throws -> String {
    throw HostError(.valueNeeded, "the benchmark cannot answer \"\(prompt)\" (\(need)); give every value")
  }
}

/// An assistant that keeps its extensions running in `warm` between intents and checks no lock rule (the benchmark's
/// device), saying nothing.
func warmAssistant(home: AssistantHome) -> (Assistant, WarmExtensions) {
  var configuration = Assistant.Configuration(home: home, conversation: Silent())
  let warm = WarmExtensions()
  configuration.warm = warm
  configuration.device = .unchecked
  return (Assistant(configuration), warm)
}

/// `values` with `{n}` as `room` and `{cancel}` as `cancel`.
func filled(_ values: [String], room: Int, cancel: Bool) -> [String] {
  values.map {
    $0.replacingOccurrences(of: "{n}", with: String(room)).replacingOccurrences(of: "{cancel}", with: String(cancel))
  }
}

/// The warm row: one intent after another over the same kept-alive extensions.
func warmBench(home: AssistantHome, count: Int, app: String, intent: String, values: [String]) async throws {
  let (assistant, warm) = warmAssistant(home: home)
  var samples: [Double] = []
  var afterFirst = ""
  let clock = ContinuousClock()
  do {
    for i in -20..<count {
      let k = i + 20
      let given = filled(values, room: 1 + k % 300, cancel: (k / 300) % 2 == 1)
      // Resolved before the clock starts: the installed apps are read (off the cooperative pool), and the values
      // typed, outside the timing.
      let invocation = try await offloaded { try assistant.invocation(app: app, intent: intent, values: given) }
      let start = clock.now
      let outcome = try await assistant.run(invocation)
      let elapsed = clock.now - start
      guard outcome.isSuccess else { throw HostError(.failureResponse, "run \(k) failed: \(outcome.dialog)") }
      if k == 0, let pid = warm.processIDs.first { afterFirst = memoryLine(pid) }
      if i >= 0 {
        samples.append(elapsed.inMilliseconds)
      }
    }
  } catch {
    await warm.shutdownAll()
    throw error
  }
  await row("warm: one intent, kept-alive extension", samples)
  if let pid = warm.processIDs.first {
    print("idle extension RSS after 1 intent: \(afterFirst)")
    print("idle extension RSS after \(count + 20) intents: \(memoryLine(pid))")
  }
  // The host is this process: the engine in-process, its extensions kept, after all the intents.
  if let host = await ProcessMemory.of(getpid()) { await host.report(as: "host") }
  var extensions: [ProcessMemory] = []
  for pid in warm.processIDs {
    if let memory = await ProcessMemory.of(pid) { extensions.append(memory) }
  }
  for memory in extensions.sorted(by: { $0.name < $1.name }) { await memory.report(as: "extension") }
  await warm.shutdownAll()
}

func main() async -> Int32 {
  let arguments = Array(CommandLine.arguments.dropFirst())
  do {
    switch arguments.first {
    case "spawn" where arguments.count == 5:
      guard let count = Int(arguments[2]), count > 0 else { break }
      try await spawnBench(
        home: try AssistantHome(root: arguments[1]), count: count, app: arguments[3], extension: arguments[4])
      return 0
    case "warm" where arguments.count >= 5:
      guard let count = Int(arguments[2]), count > 0 else { break }
      try await warmBench(
        home: try AssistantHome(root: arguments[1]), count: count, app: arguments[3], intent: arguments[4],
        values: Array(arguments.dropFirst(5)))
      return 0
    case "throughput" where arguments.count >= 6:
      let clients = arguments[3].split(separator: ",").compactMap { Int($0) }
      guard let count = Int(arguments[2]), count > 0, !clients.isEmpty, clients.allSatisfy({ (1...300).contains($0) })
      else { break }
      let home = try AssistantHome(root: arguments[1])
      for each in clients {
        try await throughputBench(
          home: home, count: count, clients: each, app: arguments[4], intent: arguments[5],
          values: Array(arguments.dropFirst(6)))
      }
      return 0
    default:
      break
    }
    FileHandle.standardError.write(
      Data(
        """
        usage: intenthost-bench warm HOME COUNT APP INTENT [NAME=VALUE...]
               intenthost-bench throughput HOME COUNT CLIENTS APP INTENT [NAME=VALUE...]
               intenthost-bench spawn HOME COUNT APP EXTENSION

        """.utf8))
    return 64
  } catch let error as HostError {
    FileHandle.standardError.write(Data("intenthost-bench: \(Untrusted.shown(error.message))\n".utf8))
    return error.status.rawValue
  } catch let error as UnderstandingError {
    FileHandle.standardError.write(Data("intenthost-bench: \(Untrusted.shown(error.message))\n".utf8))
    return HostError(error).status.rawValue
  } catch {
    FileHandle.standardError.write(Data("intenthost-bench: \(Untrusted.shown("\(error)"))\n".utf8))
    return 70
  }
}

exit(await main())
