import Foundation
import TestSupport
import Testing

/// The response codes the driver treats apart, each with the real host and a fixture extension, for those not run
/// elsewhere. Elsewhere: success, failure and the definition's own codes `successCancelledBooking` and
/// `failureCancelledBooking` (RoomsEndToEndTests.bookDoubleBookAndCancel); `ready` with the confirmation step
/// (ConfirmationStepEndToEndTests), a confirm answer other than `ready` (ResolutionEndToEndTests); `continueInApp`,
/// `failureRequiringAppLaunch` and `inProgress` then a final answer (ContinueInAppEndToEndTests); `handleInApp`
/// (HandleInAppEndToEndTests); `ready` from handle and an undeclared code (FaultEndToEndTests).
@Suite(.serialized, .tags(.endToEnd))
struct ResponseCodeEndToEndTests {
  func run(_ mode: String, _ arguments: [String]) async throws -> (CommandResult, HostFixture) {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: mode, in: host.directory.file("b"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return (try await host.assistant(arguments + ["run", "Fixture", "Ping", "value=x"]), host)
  }

  /// `unspecified`, which the definition gives no template: Siri's generic failure, and the failure's exit status.
  @Test func unspecifiedIsAFailureInGeneralWords() async throws {
    let (result, host) = try await run("Unspecified", [])
    defer { host.directory.remove() }
    #expect(result.code == 1, "\(result)")
    #expect(result.stdout == "Sorry, there was a problem with Fixture.\n", "\(result)")
    #expect(result.stderr == "", "\(result)")
  }

  /// `inProgress` at every ask: handle is asked 5 times in all, then the last answer stands ("… is working on
  /// it.", not a success). No spinner without a terminal.
  @Test func inProgressEveryTimeIsTheAnswerAfterFiveAsks() async throws {
    let (result, host) = try await run("AlwaysBusy", [])
    defer { host.directory.remove() }
    #expect(result.code == 1, "\(result)")
    #expect(result.stdout == "Fixture is working on it.\n", "\(result)")
    #expect(result.stderr == "", "\(result)")
    let asked = try await offThePool {
      try String(contentsOfFile: host.home + "/Containers/com.example.fixture.AlwaysBusy/handled", encoding: .utf8)
    }
    #expect(asked == "5")
  }

  /// A code of the definition that begins with `failureRequiringAppLaunch`: its own template is said, then "Open
  /// Fixture?"; yes opens the app with the activity (status `failure`); with nobody to answer, the app stays closed
  /// and the run still ends with the failure.
  @Test func aDomainCodeRequiringTheAppOffersToOpenIt() async throws {
    let (yes, host) = try await run("NeedsTheAppToVerify", ["--answer", "yes"])
    defer { host.directory.remove() }
    #expect(yes.code == 1, "\(yes)")
    #expect(yes.stderr == "Open Fixture? yes\n", "\(yes)")
    #expect(
      yes.stdout
        == "Verify your account in Fixture first.\n"
        + "Fixture app continues PingIntent [] for PingIntent (failureRequiringAppLaunchMustVerifyCredentials, "
        + "failure)\n", "\(yes)")
    let nobody = try await host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(nobody.code == 1, "\(nobody)")
    #expect(nobody.stdout == "Verify your account in Fixture first.\n", "\(nobody)")
  }
}
