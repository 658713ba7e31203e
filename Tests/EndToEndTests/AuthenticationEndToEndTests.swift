import Foundation
import TestSupport
import Testing

/// `host/requestAuthentication` through the real binaries: the AuthExtension fixture (an SDK extension) calls
/// `context.requestAuthentication(reason:)` and its dialog names the outcome ("Got approved.", "Not done: denied.");
/// approvals come on stdin with `--authentication-stdin`, and `INTENTHOST_CLOCK_OFFSET` steps past a lockout.
@Suite(.serialized, .tags(.endToEnd))
struct AuthenticationEndToEndTests {
  struct Status: Decodable {
    var locked: Bool
    var failedAttempts: Int
    var lockoutLeft: Double?
  }

  /// A home with the fixture installed, its extension in `mode`, and (unless nil) the passcode set.
  func host(mode: String, appMode: String? = nil, passcode: String? = "2468") async throws -> HostFixture {
    let host = try HostFixture()
    let binary = mode.hasPrefix("Auth") ? "AuthExtension" : "FaultyExtension"
    let app = try TestBundles.fixture(
      extensionName: mode, appMode: appMode, binary: binary, in: host.directory.file("bundles"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    if let passcode {
      let set = try await host.assistant(["passcode", "set", "--passcode-stdin"], input: passcode + "\n")
      #expect(set.code == 0, "\(set)")
    }
    return host
  }

  func ping(_ host: HostFixture, input: String? = nil, options: [String] = ["--authentication-stdin"], offset: Int = 0)
    async throws -> CommandResult
  {
    try await host.assistant(
      ["run", "Fixture", "Ping", "value=20 €"] + options, input: input,
      environment: ["INTENTHOST_CLOCK_OFFSET": String(offset)])
  }

  func status(_ host: HostFixture, offset: Int = 0) async throws -> Status {
    let result = try await host.assistant(
      ["status", "--json"], environment: ["INTENTHOST_CLOCK_OFFSET": String(offset)])
    #expect(result.code == 0, "\(result)")
    return try JSONDecoder().decode(Status.self, from: Data(result.stdout.utf8))
  }

  /// The right passcode, a wrong one, an empty line: approved (exit 0, the count reset), denied (exit 1, counted),
  /// cancelled (exit 1, not counted). The prompt names the extension and its reason, on the prompts' stream (stderr
  /// here: the test runs the host without a terminal), and the passcode never shows.
  @Test func eachOutcomeOfAPasscode() async throws {
    let host = try await host(mode: "AuthInHandle")
    defer { host.directory.remove() }

    let wrong = try await ping(host, input: "1111\n")
    #expect(wrong.code == 1, "\(wrong)")
    #expect(wrong.stdout == "Not done: denied.\n", "\(wrong)")
    #expect(wrong.stderr.contains("AuthInHandle asks you to authenticate: Send 20 € to Ada"), "\(wrong)")
    #expect(wrong.stderr.contains("Wrong passcode (1 failed attempt in a row)."), "\(wrong)")
    #expect(try await status(host).failedAttempts == 1)

    let empty = try await ping(host, input: "\n")
    #expect(empty.code == 1, "\(empty)")
    #expect(empty.stdout == "Not done: cancelled.\n", "\(empty)")
    #expect(try await status(host).failedAttempts == 1)

    let right = try await ping(host, input: "2468\n")
    #expect(right.code == 0, "\(right)")
    #expect(right.stdout == "Got approved.\n", "\(right)")
    #expect(!right.stderr.contains("2468") && !right.stdout.contains("2468"))
    #expect(try await status(host).failedAttempts == 0)
  }

  /// Wrong passcodes at `unlock` and at an extension's request share one count: four at `unlock` and one here start
  /// the lockout, during which the next request is answered lockedOut without reading a passcode; past it (the clock
  /// moved 61 s), the right passcode is approved again. An approval does not unlock the device.
  @Test func aLockoutAnswersLockedOutWithoutAsking() async throws {
    let host = try await host(mode: "AuthInHandle")
    defer { host.directory.remove() }
    #expect(try await host.assistant(["lock"]).code == 0)
    for _ in 1...4 {
      #expect(try await host.assistant(["unlock", "--passcode-stdin"], input: "1111\n").code == 77)
    }
    let fifth = try await ping(host, input: "1111\n")
    #expect(fifth.stdout == "Not done: denied.\n", "\(fifth)")
    #expect(fifth.stderr.contains("try again in 1 min"), "\(fifth)")
    let counted = try await status(host)
    #expect(counted.failedAttempts == 5 && counted.lockoutLeft != nil)

    let lockedOut = try await ping(host, input: "2468\n")
    #expect(lockedOut.code == 1, "\(lockedOut)")
    #expect(lockedOut.stdout == "Not done: lockedOut.\n", "\(lockedOut)")
    #expect(!lockedOut.stderr.contains("Passcode"), "\(lockedOut)")
    #expect(try await status(host).failedAttempts == 5)

    let later = try await ping(host, input: "2468\n", offset: 61)
    #expect(later.code == 0, "\(later)")
    #expect(later.stdout == "Got approved.\n", "\(later)")
    let after = try await status(host, offset: 61)
    #expect(after.failedAttempts == 0 && after.locked)
  }

  /// No terminal and no `--authentication-stdin`: cancelled, with a note saying how to give the passcode; nothing
  /// counted.
  @Test func withNobodyToAskItIsCancelledWithANote() async throws {
    let host = try await host(mode: "AuthInHandle")
    defer { host.directory.remove() }
    let result = try await ping(host, options: [])
    #expect(result.code == 1, "\(result)")
    #expect(result.stdout == "Not done: cancelled.\n", "\(result)")
    #expect(
      result.stderr.contains(
        "assistant: note: AuthInHandle asked to authenticate the user, but the passcode cannot be asked: there is no "
          + "terminal to ask it on: give it with --authentication-stdin; it was answered cancelled"), "\(result)")
    #expect(try await status(host).failedAttempts == 0)
  }

  /// A passcode given with `--passcode-stdin` (to unlock the device) never approves an extension's transaction: the
  /// request is cancelled and the line is not consumed as an approval. The control: the same line with
  /// `--authentication-stdin` approves.
  @Test func anUnlockPasscodeNeverApproves() async throws {
    let host = try await host(mode: "AuthInHandle")
    defer { host.directory.remove() }
    let unlockLine = try await ping(host, input: "2468\n", options: ["--passcode-stdin"])
    #expect(unlockLine.code == 1, "\(unlockLine)")
    #expect(unlockLine.stdout == "Not done: cancelled.\n", "\(unlockLine)")
    #expect(unlockLine.stderr.contains("give it with --authentication-stdin"), "\(unlockLine)")
    let approval = try await ping(host, input: "2468\n", options: ["--authentication-stdin"])
    #expect(approval.stdout == "Got approved.\n", "\(approval)")
  }

  /// With no passcode set, the host asks yes or no: yes approves, no denies. A scripted `--answer` (given for
  /// another question) is never taken as the approval.
  @Test(arguments: [("yes", 0, "Got approved.\n"), ("no", 1, "Not done: denied.\n")])
  func withoutAPasscodeItIsAYesOrNo(answer: String, code: Int32, dialog: String) async throws {
    let host = try await host(mode: "AuthInHandle", passcode: nil)
    defer { host.directory.remove() }
    let result = try await ping(host, input: answer + "\n")
    #expect(result.code == code, "\(result)")
    #expect(result.stdout == dialog, "\(result)")
    #expect(result.stderr.contains("Allow AuthInHandle to go ahead? \(answer)"), "\(result)")
    let scripted = try await ping(host, options: ["--answer", answer])
    #expect(scripted.stdout == "Not done: cancelled.\n", "\(scripted)")
  }

  /// Outside confirm and handle the host refuses the request (notAllowedNow) and asks nothing; the control: the same
  /// SDK call from confirm is served.
  @Test(arguments: [
    ("AuthInResolve", "2468\n", 0, "Got resolve: error notAllowedNow.\n"),
    ("AuthInConfirm", "2468\n", 0, "Got approved.\n"),
    ("AuthInConfirm", "0000\n", 1, "Not done: denied.\n"),
  ])
  func onlyDuringConfirmAndHandle(mode: String, input: String, code: Int32, dialog: String) async throws {
    let host = try await host(mode: mode)
    defer { host.directory.remove() }
    let result = try await ping(host, input: input)
    #expect(result.code == code, "\(result)")
    #expect(result.stdout == dialog, "\(result)")
    #expect(result.stderr.contains("asks you to authenticate") == (mode != "AuthInResolve"), "\(result)")
  }

  /// An app launched for handleInApp may ask too (`InAppIntentHandling.serve`, the same call in its handler).
  @Test func theAppServingHandleInAppMayAsk() async throws {
    let host = try await host(mode: "HandleInApp", appMode: "authenticate")
    defer { host.directory.remove() }
    let result = try await ping(host, input: "2468\n")
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == "Got approved in the app.\n", "\(result)")
    #expect(result.stderr.contains("Fixture asks you to authenticate: Finish in the app"), "\(result)")
  }
}
