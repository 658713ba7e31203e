import Foundation
import TestSupport
import Testing

/// The answers that send the user to the app (`continueInApp`, `failureRequiringAppLaunch`) and `inProgress`, with
/// the real host, extension and app.
@Suite(.serialized)
struct ContinueInAppEndToEndTests {
  func run(extensionMode: String, _ extra: [String] = []) async throws -> (CommandResult, HostFixture) {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: extensionMode, appMode: nil, in: host.directory.file("b"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return (try await host.assistant(extra + ["run", "Fixture", "Ping", "value=x"]), host)
  }

  /// The app is launched in the foreground after the answer and receives the response's user activity, with the
  /// intent and the response, through `AppContext`.
  @Test func continueInAppLaunchesTheAppWithTheActivity() async throws {
    let (result, host) = try await run(extensionMode: "ContinueInApp")
    defer { host.directory.remove() }
    #expect(result.code == 1, "\(result)")  // continueInApp is not a success of the intent
    #expect(
      result.stdout
        == "Continue in Fixture.\n"
        + "Fixture app continues com.example.fixture.ping [value=x] for PingIntent (continueInApp, "
        + "deferredToApplication)\n", "\(result)")
  }

  /// `--json`: stdout is the outcome only; the app's output goes to stderr.
  @Test func continueInAppWithJSONKeepsStdoutForTheOutcome() async throws {
    let (result, host) = try await run(extensionMode: "ContinueInApp", ["--json"])
    defer { host.directory.remove() }
    #expect(result.stdout.hasPrefix("{") && result.stdout.contains(#""code":"continueInApp""#), "\(result)")
    #expect(result.stderr.contains("Fixture app continues com.example.fixture.ping"), "\(result)")
  }

  /// `failureRequiringAppLaunch`: "yes" opens the app with an activity named after the intent; "no" does not.
  @Test func failureRequiringAppLaunchOpensTheAppOnlyWhenTheUserAgrees() async throws {
    let (yes, host) = try await run(extensionMode: "NeedsTheApp", ["--answer", "yes"])
    defer { host.directory.remove() }
    #expect(yes.code == 1, "\(yes)")
    #expect(yes.stderr.contains("Open Fixture? yes"), "\(yes)")
    #expect(
      yes.stdout == "You need to open Fixture to do that.\n"
        + "Fixture app continues PingIntent [] for PingIntent (failureRequiringAppLaunch, failure)\n", "\(yes)")
    let no = try await host.assistant(["--answer", "no", "run", "Fixture", "Ping", "value=x"])
    #expect(no.code == 1, "\(no)")
    #expect(no.stdout == "You need to open Fixture to do that.\n", "\(no)")
  }

  /// `inProgress` from handle: asked again, the final response is the answer (no spinner without a terminal).
  @Test func inProgressEndsWithTheFinalResponse() async throws {
    let (result, host) = try await run(extensionMode: "SlowPing")
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == "Got late pong.\n", "\(result)")
    #expect(!result.stderr.contains("working on it"), "\(result)")
  }
}

/// One end-to-end run per resolution kind (for `value` of Ping) and for an answer given at the confirm step. The
/// others are covered elsewhere: needsValue and unsupported with a reason (RoomsEndToEndTests), disambiguation and
/// unsupported with a message (UntrustedTextEndToEndTests), notRequired (every Polite run), handleInApp
/// (HandleInAppEndToEndTests); the codes success, failure and a code of the definition (RoomsEndToEndTests).
@Suite(.serialized)
struct ResolutionEndToEndTests {
  func run(_ mode: String, _ arguments: [String]) async throws -> (CommandResult, HostFixture) {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: mode, appMode: nil, in: host.directory.file("b"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return (try await host.assistant(arguments), host)
  }

  @Test(arguments: [
    // confirmationRequired: yes keeps the value; no asks for another one.
    (
      "AskConfirm", ["--answer", "yes", "run", "Fixture", "Ping", "value=x"], "Just to confirm, you wanted x? yes",
      "Got x.\n"
    ),
    (
      "AskConfirm", ["--answer", "no", "--answer", "z", "run", "Fixture", "Ping", "value=x"], "What's the value? z",
      "Got z.\n"
    ),
    // needsValue: the value is asked for (its name in words).
    ("AskNeedsValue", ["--answer", "w", "run", "Fixture", "Ping"], "What's the value? w", "Got w.\n"),
    // unsupported without a reason or a message: Siri's generic sentence, then asked again.
    (
      "AskUnsupported", ["--answer", "v", "run", "Fixture", "Ping", "value=x"], "Sorry, that value can't be used.",
      "Got v.\n"
    ),
    // success with another value: the extension's value replaces the user's.
    ("AskSuccessValue", ["run", "Fixture", "Ping", "value=x"], "", "Got resolved.\n"),
  ])
  func eachResolutionKind(mode: String, arguments: [String], asked: String, dialog: String) async throws {
    let (result, host) = try await run(mode, arguments)
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == dialog, "\(result)")
    if !asked.isEmpty { #expect(result.stderr.contains(asked), "\(result)") }
  }

  /// A response other than `ready` from confirm is the answer: handle is never asked.
  @Test func aFailureAtTheConfirmStepIsTheAnswer() async throws {
    let (result, host) = try await run("ConfirmFailure", ["run", "Fixture", "Ping", "value=x"])
    defer { host.directory.remove() }
    #expect(result.code == 1, "\(result)")
    #expect(result.stdout == "Not done: refused at confirm.\n", "\(result)")
    #expect(
      !FileManager.default.fileExists(atPath: host.home + "/Containers/com.example.fixture.ConfirmFailure/handled"))
  }
}
