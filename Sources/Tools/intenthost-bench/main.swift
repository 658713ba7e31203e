// intenthost-bench: the measurements of Scripts/bench that need the engine in-process.
//
//   intenthost-bench warm HOME COUNT APP INTENT [NAME=VALUE...]
//   intenthost-bench spawn HOME COUNT APP EXTENSION
//
// Runs the intent COUNT times over one kept-alive extension (after 20 warm-up runs) and prints one table row with
// the median and p99 per intent in ms, then the extension's resident memory at rest. In values, `{n}` becomes
// 1 + i mod 300 and `{cancel}` is false on even passes over the 300 and true on odd ones, so a BookRoom loop books
// and cancels in turn and every run succeeds.
import AssistantHost
import Foundation
import IntentHostSystem
import ProcessSupervision
import Understanding
import UntrustedText

/// Says nothing and answers nothing: every value is given.
struct Silent: CheckedConversation {
  func say(_ text: String) {}
  func ask(_ prompt: String, need: String) throws -> String {
    throw HostError(.valueNeeded, "the benchmark cannot answer \"\(prompt)\" (\(need)); give every value")
  }
}

func row(_ name: String, _ samples: [Double]) {
  let sorted = samples.sorted()
  let median = sorted[sorted.count / 2]
  let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
  print(name.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: " %9.3f %9.3f", median, p99))
}

/// A field of /proc/PID/status in KiB, e.g. "VmRSS".
func statusKiB(_ pid: Int32, _ field: String) -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
  for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
  }
  return nil
}

func memoryLine(_ pid: Int32) -> String {
  func mib(_ field: String) -> String { statusKiB(pid, field).map { String(format: "%.1f", Double($0) / 1024) } ?? "?" }
  return "\(mib("VmRSS")) MiB (anonymous \(mib("RssAnon")), file-backed \(mib("RssFile")))"
}

/// Launches of one extension until it exits at stdin's end (the SDK exits when the host hangs up): plain, with
/// the sandbox (Landlock, seccomp, limits, and the uid drop as root), and with the sandbox and a memory cgroup,
/// interleaved so a slow patch of the machine hits all alike.
func spawnBench(home: AssistantHome, count: Int, app name: String, extension extensionName: String) async throws {
  let app = try Router(apps: try home.installedApps()).app(named: name)
  var plain = SandboxPolicy()
  plain.enabled = false
  var noCgroup = try home.launchSpecification(of: app, extensionNamed: extensionName, policy: SandboxPolicy())
  noCgroup.memoryLimit = nil
  let variants: [(String, LaunchSpecification)] = [
    ("launch: plain spawn", try home.launchSpecification(of: app, extensionNamed: extensionName, policy: plain)),
    ("launch: sandboxed (no cgroup)", noCgroup),
    (
      "launch: sandboxed + memory cgroup",
      try home.launchSpecification(of: app, extensionNamed: extensionName, policy: SandboxPolicy())
    ),
  ]
  var samples = Array(repeating: [Double](), count: variants.count)
  let clock = ContinuousClock()
  for round in 0..<count + 10 {
    for (index, variant) in variants.enumerated() {
      let start = clock.now
      // The spawn is timed inline, on purpose: nothing else runs in this process, so it starves no one.
      let process = try SupervisedProcess(variant.1)
      process.standardInput?.close()
      _ = await process.waitForExit()
      let elapsed = clock.now - start
      process.standardOutput?.close()
      if round >= 10 {
        samples[index].append(elapsed.inMilliseconds)
      }
    }
  }
  for (index, variant) in variants.enumerated() { row(variant.0, samples[index]) }
  // At rest: started, sandboxed, waiting for the handshake.
  let idle = try SupervisedProcess(variants[2].1)
  try await Task.sleep(for: .milliseconds(200))
  print("extension RSS at rest (started, before the handshake): \(memoryLine(idle.pid))")
  idle.standardInput?.close()
  _ = await idle.waitForExit()
  idle.standardOutput?.close()
}

func main() async -> Int32 {
  let arguments = Array(CommandLine.arguments.dropFirst())
  if arguments.first == "spawn", arguments.count == 5, let count = Int(arguments[2]) {
    do {
      try await spawnBench(
        home: try AssistantHome(root: arguments[1]), count: count, app: arguments[3], extension: arguments[4])
      return 0
    } catch {
      FileHandle.standardError.write(Data("intenthost-bench: \(Untrusted.shown("\(error)"))\n".utf8))
      return 70
    }
  }
  guard arguments.count >= 4, arguments[0] == "warm", let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: intenthost-bench warm HOME COUNT APP INTENT [NAME=VALUE...]\n".utf8))
    return 64
  }
  do {
    var configuration = Assistant.Configuration(home: try AssistantHome(root: arguments[1]), conversation: Silent())
    let warm = WarmExtensions()
    configuration.warm = warm
    configuration.device = .unchecked
    let assistant = Assistant(configuration)
    var samples: [Double] = []
    var afterFirst = ""
    let clock = ContinuousClock()
    for i in -20..<count {
      let k = i + 20
      let values = arguments.dropFirst(5).map {
        $0.replacingOccurrences(of: "{n}", with: String(1 + k % 300))
          .replacingOccurrences(of: "{cancel}", with: (k / 300) % 2 == 1 ? "true" : "false")
      }
      // Resolved before the clock starts: the installed apps are read, and the values typed, outside the timing.
      let invocation = try assistant.invocation(app: arguments[3], intent: arguments[4], values: values)
      let start = clock.now
      let outcome = try await assistant.run(invocation)
      let elapsed = clock.now - start
      guard outcome.isSuccess else { throw HostError(.failureResponse, "run \(k) failed: \(outcome.dialog)") }
      if k == 0, let pid = warm.processIDs.first { afterFirst = memoryLine(pid) }
      if i >= 0 {
        samples.append(elapsed.inMilliseconds)
      }
    }
    row("warm: one intent, kept-alive extension", samples)
    if let pid = warm.processIDs.first {
      print("idle extension RSS after 1 intent: \(afterFirst)")
      print("idle extension RSS after \(count + 20) intents: \(memoryLine(pid))")
    }
    await warm.shutdownAll()
    return 0
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
