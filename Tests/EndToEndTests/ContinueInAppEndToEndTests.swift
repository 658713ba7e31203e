import Foundation
import TestSupport
import Testing

/// The answers that send the user to the app (`continueInApp`, `failureRequiringAppLaunch`) and `inProgress`, with
/// the real host, extension and app.
@Suite(.serialized, .tags(.endToEnd))
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

/// One end-to-end run per resolution kind (for `value` of Ping) and for an answer given at the confirm step. Also
/// covered elsewhere: needsValue and unsupported with a reason (RoomsEndToEndTests), disambiguation and unsupported
/// with a message, shown escaped (UntrustedTextEndToEndTests). The response codes are in ResponseCodeEndToEndTests,
/// the confirmation step in ConfirmationStepEndToEndTests.
@Suite(.serialized, .tags(.endToEnd))
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
    // unsupported with a reason the definition does not word: the extension's message, then asked again.
    (
      "AskUnsupportedMessage", ["--answer", "v", "run", "Fixture", "Ping", "value=x"],
      "No value like that here.\nWhat's the value? v\n", "Got v.\n"
    ),
    // success with another value: the extension's value replaces the user's.
    ("AskSuccessValue", ["run", "Fixture", "Ping", "value=x"], "", "Got resolved.\n"),
    // success without a value: the user's value stands.
    ("AskSuccessKeep", ["run", "Fixture", "Ping", "value=x"], "", "Got x.\n"),
  ])
  func eachResolutionKind(mode: String, arguments: [String], asked: String, dialog: String) async throws {
    let (result, host) = try await run(mode, arguments)
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == dialog, "\(result)")
    if !asked.isEmpty { #expect(result.stderr.contains(asked), "\(result)") }
  }

  /// unsupported with a reason the definition words: its text, filled with the refused value, is said where the
  /// question is (not the extension's message), and the value is asked again.
  @Test func anUnsupportedReasonIsSaidInTheDefinitionsWords() async throws {
    let (result, host) = try await run(
      "AskUnsupportedReason", ["--answer", "v", "run", "Fixture", "Ping", "value=waytoolong"])
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stderr == "Sorry, waytoolong is too long.\nWhat's the value? v\n", "\(result)")
    #expect(result.stdout == "Got v.\n", "\(result)")
  }

  /// notRequired: nothing is asked, and the parameter is left as it was: the given value reaches handle, and a
  /// missing one stays missing (the handler gets none). Control: the same run with a needsValue extension asks, and
  /// with nobody to answer exits 75.
  @Test func notRequiredAsksNothingAndLeavesTheValue() async throws {
    let (given, host) = try await run("AskNotRequired", ["run", "Fixture", "Ping", "value=x"])
    defer { host.directory.remove() }
    #expect(given.code == 0, "\(given)")
    #expect(given.stdout == "Got x.\n", "\(given)")
    #expect(given.stderr == "", "\(given)")
    let missing = try await host.assistant(["run", "Fixture", "Ping"])
    #expect(missing.code == 0, "\(missing)")
    #expect(missing.stdout == "Got -.\n", "\(missing)")
    #expect(missing.stderr == "", "\(missing)")
    let (control, controlHost) = try await run("AskNeedsValue", ["run", "Fixture", "Ping"])
    defer { controlHost.directory.remove() }
    #expect(control.code == 75, "\(control)")
    #expect(control.stderr.contains("What's the value?"), "\(control)")
  }

  /// disambiguation: the candidates are listed, numbered, where the question is; the user picks one by number or by
  /// name, and an answer that is neither is asked again.
  @Test func disambiguationListsTheCandidatesAndTakesThePick() async throws {
    let (second, host) = try await run("AskDisambiguation", ["--answer", "2", "run", "Fixture", "Ping", "value=a"])
    defer { host.directory.remove() }
    #expect(second.code == 0, "\(second)")
    #expect(second.stderr == "Which value?\n  1. alpha\n  2. beta\n  3. gamma\nChoose 1-3: 2\n", "\(second)")
    #expect(second.stdout == "Got beta.\n", "\(second)")
    let byName = try await host.assistant(["--answer", "Gamma", "run", "Fixture", "Ping", "value=a"])
    #expect(byName.code == 0, "\(byName)")
    #expect(byName.stdout == "Got gamma.\n", "\(byName)")
    let again = try await host.assistant(["--answer", "7", "--answer", "1", "run", "Fixture", "Ping", "value=a"])
    #expect(again.code == 0, "\(again)")
    #expect(
      again.stderr.hasSuffix(
        "Choose 1-3: 7\nPlease answer with a number from 1 to 3 or one of the names.\nChoose 1-3: 1\n"), "\(again)")
    #expect(again.stdout == "Got alpha.\n", "\(again)")
  }

  /// A value the extension never accepts: after 5 passes the assistant gives up (exit 75), having asked 5 times.
  @Test func aValueNeverAcceptedEndsAfterFivePasses() async throws {
    let answers = ["a", "b", "c", "d", "e"].flatMap { ["--answer", $0] }
    let (result, host) = try await run("AskForever", answers + ["run", "Fixture", "Ping", "value=x"])
    defer { host.directory.remove() }
    #expect(result.code == 75, "\(result)")
    #expect(result.stdout == "", "\(result)")
    #expect(result.stderr.components(separatedBy: "Sorry, that value can't be used.\n").count == 6, "\(result)")
    #expect(result.stderr.contains("What's the value? e\n"), "\(result)")
    #expect(result.stderr.contains("value (value) for Fixture was still not accepted after 5 tries"), "\(result)")
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
