import Foundation
import TestSupport
import Testing

/// `handleInApp`: the extension hands the intent to its containing app, which the host launches in the background.
@Suite(.serialized, .tags(.endToEnd))
struct HandleInAppEndToEndTests {
  /// Installs a fixture with these modes and asks it to handle Ping (JSON output); waits off the cooperative pool.
  func run(extensionMode: String, appMode: String?) async throws -> (CommandResult, HostFixture) {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: extensionMode, appMode: appMode, in: host.directory.file("b"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return (try await host.assistant(["--json", "run", "Fixture", "Ping", "value=x"]), host)
  }

  @Test func theAppHandlesWhatTheExtensionHandsOver() async throws {
    let (result, host) = try await run(extensionMode: "HandleInApp", appMode: "serve")
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout.contains(#""dialog":"Got x from the app.""#), "\(result)")
    #expect(result.stdout.contains(#""code":"success""#), "\(result)")
    // The app ran in its own container, not the extension's.
    #expect(FileManager.default.fileExists(atPath: host.home + "/Containers/com.example.fixture/handled-in-app"))
  }

  /// Control: an extension that handles the intent itself never launches the app.
  @Test func anExtensionThatHandlesItselfDoesNotLaunchTheApp() async throws {
    let (result, host) = try await run(extensionMode: "Polite", appMode: "serve")
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout.contains(#""dialog":"Got pong.""#), "\(result)")
    #expect(!FileManager.default.fileExists(atPath: host.home + "/Containers/com.example.fixture/handled-in-app"))
  }

  @Test func anAppThatDoesNotServeTheIntentIsAFault() async throws {
    let (result, host) = try await run(extensionMode: "HandleInApp", appMode: "ignore")
    defer { host.directory.remove() }
    #expect(result.code == 70, "\(result)")
    #expect(result.stderr.hasPrefix("assistant: Fixture (com.example.fixture)"), "\(result)")
    #expect(result.stderr.contains("InAppIntentHandling.serve"), "\(result)")
  }

  @Test func anAppThatCrashesInHandleIsAFault() async throws {
    let (result, host) = try await run(extensionMode: "HandleInApp", appMode: "crash")
    defer { host.directory.remove() }
    #expect(result.code == 70, "\(result)")
    #expect(result.stderr.contains("crashed with SIGILL during handle of PingIntent in the app"), "\(result)")
    #expect(result.stderr.contains("the fixture app gave up"), "\(result)")
  }
}
