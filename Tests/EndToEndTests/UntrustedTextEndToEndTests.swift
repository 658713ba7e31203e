import Foundation
import TestSupport
import Testing

/// Text from bundles, extensions, stored documents and file names reaches the terminal and the logs only through
/// the sanitizer, in every output mode: control characters, escape sequences and bidirectional controls come out
/// escaped (`\u{1B}`), `--json` stays exact JSON, and an extension cannot forge the host's lines in its log. Each
/// test's control runs the same with `--raw-untrusted-text` (the hidden, test-only bypass of the sanitizer) and
/// sees the raw sequences arrive, so every check here can fail. No process outlives a test.
@Suite(.serialized, .tags(.endToEnd))
struct UntrustedTextEndToEndTests {
  /// What the fixture's Hostile* modes put in every string they send (Tests/Fixtures/FaultyExtension).
  static let hostile = "\u{1B}]0;title\u{07}\u{1B}]52;c;cm0gLXJmIH4=\u{07}\u{1B}[2J\u{9B}31m\u{202E}txet\u{202C}"
  /// How the terminal shows it.
  static let escaped = #"\u{1B}]0;title\u{07}\u{1B}]52;c;cm0gLXJmIH4=\u{07}\u{1B}[2J\u{9B}31m\u{202E}txet\u{202C}"#
  /// The hidden option that bypasses the sanitizer, for the controls.
  static let raw = ["--raw-untrusted-text"]

  /// The characters a terminal acts on: C0 controls but newline and tab, DEL, C1 controls, bidi controls.
  static func unsafeScalars(in text: String) -> [String] {
    text.unicodeScalars.filter { scalar in
      switch scalar.value {
      case 0x0A, 0x09: return false
      case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029:
        return true
      default: return false
      }
    }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
  }

  /// Fixture.app with the Intents extension `mode` (and the UI extension `ui`), installed in a new host home.
  func fixture(_ mode: String, ui: String? = nil) async throws -> HostFixture {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: mode, uiExtensionName: ui, in: host.directory.file("bundles"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return host
  }

  func log(_ host: HostFixture, _ name: String) async throws -> String {
    let path = host.home + "/Logs/com.example.fixture.\(name).log"
    return try await offThePool { try String(contentsOfFile: path, encoding: .utf8) }
  }

  func expectNoSurvivors(_ host: HostFixture, _ names: [String]) async throws {
    for name in names {
      try await eventually(timeout: .seconds(3)) { livingProcesses(named: name, under: host.directory.path).isEmpty }
      #expect(livingProcesses(named: name, under: host.directory.path).isEmpty, "\(name) outlived the test")
    }
  }

  /// A response parameter rendered into the dialog, an `unsupported` message, disambiguation candidates and a
  /// snippet's text, shown on the terminal; the extension's stderr in its log.
  @Test func dialogPromptsCandidatesAndSnippetsAreShownEscaped() async throws {
    let host = try await fixture("HostileText", ui: "HostileSnippet")
    defer { host.directory.remove() }
    let arguments = ["--answer", "y", "--answer", "1", "run", "Fixture", "Ping", "value=x"]
    let result = try await host.assistant(arguments)
    #expect(result.code == 0, "\(result)")
    #expect(Self.unsafeScalars(in: result.stdout).isEmpty, "\(Self.unsafeScalars(in: result.stdout))\n\(result)")
    #expect(Self.unsafeScalars(in: result.stderr).isEmpty, "\(result)")
    let snippet = [
      "[HostileSnippet]",
      "  card \(Self.escaped)",
      #"  Room: 12\u{0A}assistant: forged row"#,  // a row stays in its box
    ]
    // The header (the empty parameter set) and the value: the fixture claims only what it is asked for.
    let expected = ["Got \(Self.escaped)."] + snippet + snippet  // the response parameter in the template
    #expect(result.stdout == expected.joined(separator: "\n") + "\n", "\(result)")
    // The questions, with their scripted answers and what belongs to them (why an answer was not taken, the
    // choices), go to the terminal: stderr here, where there is none.
    let asked = [
      "No: \(Self.escaped)",  // the unsupported message
      "What's the value? y",
      "Which value?",
      "  1. one \(Self.escaped)",
      #"  2. two\u{0A}assistant: forged candidate"#,  // one line per candidate
      "Choose 1-2: 1",
    ]
    #expect(result.stderr.contains(asked.joined(separator: "\n") + "\n"), "\(result)")

    // The extension's stderr is in its log, every line of it marked as its own: the forged host line too.
    let logText = try await log(host, "HostileText")
    let lines = logText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    #expect(lines.contains("| --- host: fault: HostileText (forged) crashed with SIGSEGV"), "\(logText)")
    #expect(lines.contains("| stderr \(Self.escaped)"), "\(logText)")
    #expect(!lines.contains { $0.hasPrefix("--- host: fault:") }, "\(logText)")
    #expect(lines.allSatisfy { $0.hasPrefix("| ") || $0.hasPrefix("--- ") }, "\(logText)")
    #expect(Self.unsafeScalars(in: logText).isEmpty, "\(logText)")
    try await expectNoSurvivors(host, ["HostileText", "HostileSnippet"])

    // Control: with the sanitizer bypassed, the same run puts the raw sequences on the terminal and the forged
    // line in the log as if the host had written it.
    let control = try await host.assistant(Self.raw + arguments)
    #expect(control.code == 0, "\(control)")
    #expect(control.stdout.contains("Got \(Self.hostile)."), "\(control)")
    #expect(control.stdout.contains("  card \(Self.hostile)"), "\(control)")
    #expect(control.stdout.contains("\nassistant: forged row"), "\(control)")
    let rawLog = try await log(host, "HostileText")
    #expect(rawLog.contains("\n--- host: fault: HostileText (forged) crashed with SIGSEGV\n"), "\(rawLog)")
    #expect(rawLog.contains("stderr \(Self.hostile)"), "\(rawLog)")
    try await expectNoSurvivors(host, ["HostileText", "HostileSnippet"])
  }

  /// With `--json`, stdout is exact JSON holding the original strings (with JSON's own escapes for the C1 and bidi
  /// controls an encoder leaves raw), and the dialog beside it on stderr is sanitized.
  @Test func jsonHoldsTheExactValuesAndStderrBesideItIsEscaped() async throws {
    let host = try await fixture("HostileText", ui: "HostileSnippet")
    defer { host.directory.remove() }
    let arguments = ["--json", "--answer", "y", "--answer", "1", "run", "Fixture", "Ping", "value=x"]
    let result = try await host.assistant(arguments)
    #expect(result.code == 0, "\(result)")
    #expect(Self.unsafeScalars(in: result.stdout).isEmpty, "\(Self.unsafeScalars(in: result.stdout))\n\(result)")
    #expect(Self.unsafeScalars(in: result.stderr).isEmpty, "\(result)")
    #expect(result.stderr.contains("Got \(Self.escaped)."), "\(result)")
    #expect(result.stderr.contains("  card \(Self.escaped)"), "\(result)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    #expect(object["dialog"] as? String == "Got \(Self.hostile).")
    #expect((object["parameters"] as? [String: Any])?["value"] as? String == "one \(Self.hostile)")
    let snippet = ((object["views"] as? [[String: Any]])?.first?["snippet"] as? [String: Any])?["stack"] as? [Any]
    #expect((snippet?.first as? [String: Any])?["text"] as? String == "card \(Self.hostile)", "\(result)")
    try await expectNoSurvivors(host, ["HostileText", "HostileSnippet"])

    // Control: bypassed, the JSON carries the C1 and bidi controls raw (still valid JSON), and stderr the rest.
    let control = try await host.assistant(Self.raw + arguments)
    #expect(control.code == 0, "\(control)")
    #expect(control.stdout.contains("\u{9B}31m\u{202E}txet"), "\(control)")
    #expect(control.stderr.contains("Got \(Self.hostile)."), "\(control)")
    try await expectNoSurvivors(host, ["HostileText", "HostileSnippet"])
  }

  /// Fault lines quote an extension's JSON-RPC error message, its last stderr line, an undeclared response code:
  /// each stays one line on stderr, escaped, and in the JSON error object exact.
  @Test(arguments: [
    ("HostileError", "failed handle of PingIntent: error \(escaped)\\u{0A}assistant: forged (handlerFailed)"),
    ("HostileCrash", "its last words on stderr: last words \(escaped)"),
    ("HostileCode", "answered response code \"code\(escaped)\", which PingIntent does not define"),
  ])
  func faultLinesAreOneEscapedLine(mode: String, expected: String) async throws {
    let host = try await fixture(mode)
    defer { host.directory.remove() }
    let result = try await host.assistant(["--json", "run", "Fixture", "Ping", "value=x"])
    #expect(result.code == 70, "\(result)")
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
    #expect(result.stderr.hasPrefix("assistant: \(mode) (com.example.fixture.\(mode))"), "\(result)")
    #expect(result.stderr.contains(expected), "\(result)")
    #expect(Self.unsafeScalars(in: result.stderr + result.stdout).isEmpty, "\(result)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let message = (object?["error"] as? [String: Any])?["message"] as? String
    #expect(message?.contains(Self.hostile) == true, "\(result)")
    // The same fault in the log is the host's line, escaped to one line.
    let logText = try await log(host, mode)
    let faults = logText.split(separator: "\n").filter { $0.hasPrefix("--- host: fault: \(mode) (com.example") }
    #expect(faults.count == 1 && faults[0].contains(expected), "\(logText)")
    #expect(Self.unsafeScalars(in: logText).isEmpty, "\(logText)")
    try await expectNoSurvivors(host, [mode])

    // Control: bypassed, the fault line carries the raw sequences.
    let control = try await host.assistant(Self.raw + ["run", "Fixture", "Ping", "value=x"])
    #expect(control.code == 70, "\(control)")
    #expect(control.stderr.contains(Self.hostile), "\(control)")
    try await expectNoSurvivors(host, [mode])
  }

  /// Stored strings (`defaults read`) and file names (`defaults list`) that an app or extension put in its group.
  @Test func storedStringsAndFileNamesAreShownEscaped() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    // What an app or extension of the group could have stored, and a file it could have made.
    let listJSON = String(decoding: try JSONSerialization.data(withJSONObject: [Self.hostile]), as: UTF8.self)
    for (key, type, value) in [("text", "-string", "line one\n" + Self.hostile), ("list", "-json", listJSON)] {
      let written = try await host.assistant(
        ["defaults", "write", "group.com.example.rooms", key, type, value, "--document", "notes.json"])
      #expect(written.code == 0, "\(written)")
    }
    try Data("{}".utf8).write(
      to: URL(fileURLWithPath: host.groups + "/group.com.example.rooms/name\u{1B}[2J\u{202E}.json"))

    let read = try await host.assistant([
      "defaults", "read", "group.com.example.rooms", "text", "--document", "notes.json",
    ])
    #expect(read.code == 0, "\(read)")
    #expect(read.stdout == "line one\n\(Self.escaped)\n", "\(read)")  // a stored string keeps its newlines
    let json = try await host.assistant([
      "defaults", "read", "group.com.example.rooms", "list", "--document", "notes.json",
    ])
    #expect(json.code == 0, "\(json)")
    #expect(Self.unsafeScalars(in: json.stdout).isEmpty, "\(json)")
    let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String]
    #expect(decoded == [Self.hostile], "\(json)")  // JSON stays exact
    let list = try await host.assistant(["defaults", "list"])
    #expect(list.code == 0, "\(list)")
    #expect(list.stdout.contains(#"  document: name\u{1B}[2J\u{202E}.json"#), "\(list)")
    for result in [read, json, list] {
      #expect(Self.unsafeScalars(in: result.stdout + result.stderr).isEmpty, "\(result)")
    }

    // Control: bypassed, the stored string and the file name reach stdout raw.
    let rawRead = try await host.assistant(
      Self.raw + ["defaults", "read", "group.com.example.rooms", "text", "--document", "notes.json"])
    #expect(rawRead.stdout == "line one\n\(Self.hostile)\n", "\(rawRead)")
    let rawList = try await host.assistant(Self.raw + ["defaults", "list"])
    #expect(rawList.stdout.contains("  document: name\u{1B}[2J\u{202E}.json"), "\(rawList)")
  }

  /// Names from a bundle's manifest, in `install` and `list` output.
  @Test func manifestNamesAreShownEscaped() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try TestBundles.fixture(extensionName: "Polite", in: host.directory.file("bundles"))
    let plist = app.appendingPathComponent("Info.plist")
    var info = try #require(
      try PropertyListSerialization.propertyList(from: Data(contentsOf: plist), format: nil) as? [String: Any])
    info["CFBundleDisplayName"] = "Fixture " + Self.hostile
    try writePlist(info, to: plist)
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    #expect(installed.stdout.hasPrefix("Installed Fixture \(Self.escaped) (com.example.fixture)"), "\(installed)")
    let list = try await host.assistant(["list"])
    #expect(list.code == 0, "\(list)")
    #expect(list.stdout.hasPrefix("Fixture \(Self.escaped) (com.example.fixture)\n"), "\(list)")
    for result in [installed, list] {
      #expect(Self.unsafeScalars(in: result.stdout + result.stderr).isEmpty, "\(result)")
    }

    // Control: bypassed, the display name reaches stdout raw.
    let rawList = try await host.assistant(Self.raw + ["list"])
    #expect(rawList.stdout.hasPrefix("Fixture \(Self.hostile) (com.example.fixture)\n"), "\(rawList)")
  }

  /// What an app launched with `open` writes is relayed to the terminal sanitized (newlines kept), and logged as its
  /// lines.
  @Test func anOpenedAppsOutputIsRelayedEscaped() async throws {
    let host = try await fixture("Polite")
    defer { host.directory.remove() }
    let result = try await host.assistant(["open", "Fixture", "--", "hostile"])
    #expect(result.code == 0, "\(result)")
    #expect(result.stdout == "app says \(Self.escaped)\n", "\(result)")
    #expect(result.stderr == "app complains \(Self.escaped)\n", "\(result)")
    let logText = try await offThePool {
      try String(contentsOfFile: host.home + "/Logs/com.example.fixture.log", encoding: .utf8)
    }
    #expect(logText.contains("\n| app complains \(Self.escaped)\n"), "\(logText)")
    try await expectNoSurvivors(host, ["fixture"])

    // Control: bypassed, the app's sequences reach the terminal raw.
    let control = try await host.assistant(Self.raw + ["open", "Fixture", "--", "hostile"])
    #expect(control.stdout == "app says \(Self.hostile)\n", "\(control)")
    #expect(control.stderr.contains("app complains \(Self.hostile)\n"), "\(control)")
  }

  /// A newline in a response parameter cannot start a dialog line of its own that reads like the host's: the dialog
  /// is one line. Control: with the sanitizer bypassed, the forged line stands at the left edge.
  @Test func aNewlineInTheDialogCannotForgeAHostLine() async throws {
    let host = try await fixture("ForgedLine")
    defer { host.directory.remove() }
    let result = try await host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(result.code == 0, "\(result)")
    #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("assistant:") }, "\(result)")
    #expect(result.stdout.contains("Got ok\\u{0A}assistant: error: FORGED."), "\(result)")
    let raw = try await host.assistant(Self.raw + ["run", "Fixture", "Ping", "value=x"])
    #expect(raw.stdout.split(separator: "\n").contains { $0.hasPrefix("assistant: error: FORGED") }, "\(raw)")
    try await expectNoSurvivors(host, ["ForgedLine"])
  }
}
