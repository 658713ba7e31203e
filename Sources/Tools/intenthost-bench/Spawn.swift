import AssistantHost
import IntentHostSystem
import ProcessSupervision
import Understanding

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
  for (index, variant) in variants.enumerated() { await row(variant.0, samples[index]) }
  // At rest: started, sandboxed, waiting for the handshake.
  let idle = try SupervisedProcess(variants[2].1)
  try await Task.sleep(for: .milliseconds(200))
  print("extension RSS at rest (started, before the handshake): \(memoryLine(idle.pid))")
  idle.standardInput?.close()
  _ = await idle.waitForExit()
  idle.standardOutput?.close()
}
