import Foundation
import IntentHostSystem
import TestSupport
import Testing

@testable import AssistantHost

/// Every launch is built by one builder over the session's target, so each gets the sandbox of its kind: the
/// benchmark's launch of an Intents UI extension gets the UI extension's limits, not an Intents extension's.
struct LaunchKindTests {
  @Test(.enabled(if: (try? SandboxPolicy().landlockABI()) != nil, "the sandbox needs Landlock"))
  func eachLaunchGetsTheLimitsOfItsKind() async throws {
    let directory = try TemporaryDirectory("assistanthost-launch-kind")
    defer { directory.remove() }
    let home = try AssistantHome(root: directory.file("home").path, environment: [:])
    let app = try await home.install(from: TestBundles.roomsManifests(in: directory.file("bundles"))).app
    // Three different ceilings tell the kinds apart.
    var policy = SandboxPolicy()
    policy.limits[.intentsExtension]?.memory = 31 << 20
    policy.limits[.intentsUIExtension]?.memory = 33 << 20
    policy.limits[.app]?.memory = 35 << 20
    let limits = try await offloaded { [policy] () throws -> [Int?] in
      try ["RoomsIntents", "RoomsUI", nil].map {
        try home.launchSpecification(of: app, extensionNamed: $0, policy: policy).memoryLimit
      }
    }
    #expect(limits == [31 << 20, 33 << 20, 35 << 20])
    #expect(SessionTarget(app.extensions.first { $0.name == "RoomsUI" }!, app: app).kind == .intentsUIExtension)
    #expect(SessionTarget(app: app).extensionPoint == "com.intenthost.app.handle-intent")
  }
}
