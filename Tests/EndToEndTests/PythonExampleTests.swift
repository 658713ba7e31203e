import Foundation
import TestSupport
import Testing

/// The Python example of docs/examples/python (Notes.app: an app, an Intents extension and an Intents UI extension,
/// each a `#!/usr/bin/env python3` script), assembled by the documented `Scripts/make-python-example`, validated,
/// installed and run sandboxed through the real host, as its README shows; and refused by the sandbox (exit 77, one
/// line, logged) when its interpreter is not one the sandbox allows.
///
/// The machine's /usr/bin/python3 runs the scripts (the `#!/usr/bin/env python3` is looked up in the host's fixed
/// PATH, never the user's): a machine without it fails these tests, saying so, rather than skipping them.
@Suite(.serialized, .tags(.endToEnd))
struct PythonExampleTests {
  /// The interpreter `#!/usr/bin/env python3` finds in the host's fixed PATH on the machines the suite runs on.
  static let python = "/usr/bin/python3"

  /// A fresh home, and Notes.app assembled in it by the documented script.
  struct Scene {
    let host: HostFixture
    let app: URL
    var installed: String { host.home + "/Applications/Notes.app" }
    var intentsLog: String { host.home + "/Logs/com.example.notes.NotesIntents.log" }

    /// Assembles Notes.app with `Scripts/make-python-example` into a fresh home's folder.
    init() async throws {
      host = try HostFixture()
      app = try await PythonExampleTests.assemble("Notes.app", with: PythonExampleTests.script, in: host)
    }

    /// Runs `assistant --home HOME` with `arguments` (`HostFixture.assistant`).
    func assistant(_ arguments: [String]) async throws -> CommandResult {
      try await host.assistant(arguments)
    }

    /// Assembles and installs Notes.app.
    static func installed() async throws -> Scene {
      let scene = try await Scene()
      let result = try await scene.assistant(["install", scene.app.path])
      #expect(result.code == 0, "\(result)")
      #expect(result.stdout == "Installed Notes (com.example.notes) in \(scene.installed)\n", "\(result)")
      return scene
    }

    /// The app's own listing, `assistant open Notes -- list` (the app, sandboxed, reads the group).
    func list() async throws -> String {
      let listed = try await assistant(["open", "Notes", "--", "list"])
      #expect(listed.code == 0, "\(listed)")
      return listed.stdout
    }
  }

  static var script: String { PackagePaths.root.appendingPathComponent("Scripts/make-python-example").path }

  /// Fails, naming what is missing, when the machine has no /usr/bin/python3: the example cannot run without it.
  static func requirePython() -> Bool {
    let present = FileManager.default.isExecutableFile(atPath: python)
    #expect(
      present,
      "\(python) is missing: the Python example's scripts (#!/usr/bin/env python3) need a system python3 in the host's fixed PATH; install Debian's python3"
    )
    return present
  }

  /// The lines a command wrote to stderr, without empty ones.
  static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

  /// Assembles `bundle` (`Notes.app`) with the example's `script` into the folder `bundles` of `host`'s directory,
  /// checking that the script says where: the bundle. The script runs through `runCommand`, so the wait is off the
  /// cooperative pool.
  static func assemble(_ bundle: String, with script: String, in host: HostFixture) async throws -> URL {
    let out = host.directory.file("bundles")
    let made = try await runCommand("/bin/sh", [script, out.path])
    #expect(made.code == 0, "\(made)")
    let app = out.appendingPathComponent(bundle)
    #expect(made.stdout == app.path + "\n", "\(made)")
    return app
  }

  /// An example's assembling `script` explains itself with `--help`, and without its argument prints its usage line
  /// (`Scripts/NAME OUTPUT_DIR`) and exits 64.
  static func expectHelpAndUsage(of script: String) async throws {
    let line = "usage: Scripts/\((script as NSString).lastPathComponent) OUTPUT_DIR"
    let help = try await runCommand("/bin/sh", [script, "--help"])
    #expect(help.code == 0, "\(help)")
    #expect(help.stdout.contains(line), "\(help)")
    let usage = try await runCommand("/bin/sh", [script])
    #expect(usage.code == 64, "\(usage)")
    #expect(usage.stderr == line + "\n", "\(usage)")
  }

  @Test func theScriptAssemblesTheBundleAsDocumented() async throws {
    try await Self.expectHelpAndUsage(of: Self.script)
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let app = scene.app.path
    let layout = try await fileModes(under: app)
    let scripts = ["notes", "PlugIns/NotesIntents.appex/NotesIntents", "PlugIns/NotesUI.appex/NotesUI"]
    let files = [
      "Info.plist", "Notes.entitlements", "notebooks.py", "appgroup.py", "Base.lproj/Intents.intentdefinition",
      "Base.lproj/AppIntentVocabulary.plist", "PlugIns/NotesIntents.appex/Info.plist",
      "PlugIns/NotesIntents.appex/NotesIntents.entitlements", "PlugIns/NotesIntents.appex/intenthost.py",
      "PlugIns/NotesIntents.appex/notebooks.py", "PlugIns/NotesIntents.appex/appgroup.py",
      "PlugIns/NotesUI.appex/Info.plist",
      "PlugIns/NotesUI.appex/intenthost.py",
    ]
    let folders = ["Base.lproj", "PlugIns", "PlugIns/NotesIntents.appex", "PlugIns/NotesUI.appex"]
    var expected: [String: Int] = [:]
    for path in scripts { expected[path] = 0o755 }
    for path in folders { expected[path] = 0o755 }
    for path in files { expected[path] = 0o644 }
    #expect(layout == expected)
    for path in scripts {
      let first = try await offThePool { () throws in
        try String(contentsOfFile: app + "/" + path, encoding: .utf8).split(separator: "\n").first.map(String.init)
      }
      #expect(first == "#!/usr/bin/env python3", "\(path)")
    }

    // Assembling again replaces the bundle.
    let again = try await runCommand("/bin/sh", [Self.script, scene.host.directory.file("bundles").path])
    #expect(again.code == 0, "\(again)")
  }

  @Test func theBundleValidatesCleanAndItsPhrasesReachTheirIntents() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let validated = try await scene.assistant(["validate", scene.app.path])
    #expect(validated.code == 0, "\(validated)")
    #expect(validated.stdout == "0 errors, 0 warnings in \(scene.app.path)\n", "\(validated)")
    let checked = try await scene.assistant(["phrases", "--check", scene.app.path])
    #expect(checked.code == 0, "\(checked)")
    // The sources themselves, as a project folder.
    let sources = PackagePaths.root.appendingPathComponent("docs/examples/python").path
    let project = try await scene.assistant(["validate", sources])
    #expect(project.code == 0, "\(project)")
    #expect(!project.stdout.contains("warning:"), "\(project)")
  }

  @Test func anUtteranceAddsANoteSandboxed() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene.installed()
    defer { scene.host.directory.remove() }
    let added = try await scene.assistant(["Add bread to Home with Notes"])
    #expect(added.code == 0, "\(added)")
    #expect(!added.stderr.contains("--no-sandbox"), "\(added)")
    #expect(added.stdout == "Added “bread” to Home.\n[NotesUI]\n  Home\n  Added: bread\n  Now: 1 note\n", "\(added)")
    // The extension's stderr is its log; its stray output cannot reach the protocol's stdout.
    let log = try await offThePool { () throws in try String(contentsOfFile: scene.intentsLog, encoding: .utf8) }
    #expect(log.contains("| added a note to Home, which now has 1"), "\(log)")
    // The app reads what the extension wrote, through the app group.
    #expect(try await scene.list() == "Home (1 note)\n  - bread\nWork (0 notes)\n")
  }

  /// The extension's profile: the interpreter `install` recorded for `#!/usr/bin/env python3` (the real program of
  /// /usr/bin/python3) is what the sandbox executes, enforced.
  @Test func theProfileExecutesTheSystemPython() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene.installed()
    defer { scene.host.directory.remove() }
    let result = try await scene.assistant(["sandbox-profile", "--json", "NotesIntents"])
    #expect(result.code == 0, "\(result)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    let profile = try #require((report["profiles"] as? [[String: Any]])?.first, "\(result)")
    #expect(profile["enforced"] as? Bool == true, "\(result)")
    let python = URL(fileURLWithPath: Self.python).resolvingSymlinksInPath().path
    #expect((profile["execute"] as? [String])?.first == python, "\(result)")
  }

  /// As an ordinary user (the tests' own, or `ordinaryUID` through `setpriv` when they run as root), with no uid of
  /// its own for the app: the example installs and runs sandboxed, and its app reads what the extension wrote.
  @Test func itRunsForAnOrdinaryUser() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let user: uid_t? = geteuid() == 0 ? Self.ordinaryUID : nil
    if let user { give(scene.host.directory.path, to: user) }
    func assistant(_ arguments: [String]) async throws -> CommandResult {
      guard let user else { return try await scene.assistant(arguments) }
      var environment = ProcessInfo.processInfo.environment
      environment["ASSISTANT_APP_GROUPS"] = scene.host.groups
      return try await runCommand(
        "/usr/bin/setpriv",
        [
          "--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--", PackagePaths.executable("assistant"),
          "--home", scene.host.home,
        ] + arguments, environment: environment)
    }
    let installed = try await assistant(["install", scene.app.path])
    #expect(installed.code == 0, "\(installed)")
    let added = try await assistant(["Add bread to Home with Notes"])
    #expect(added.code == 0, "\(added)")
    #expect(added.stdout == "Added “bread” to Home.\n[NotesUI]\n  Home\n  Added: bread\n  Now: 1 note\n", "\(added)")
    let listed = try await assistant(["open", "Notes", "--", "list"])
    #expect(listed.code == 0, "\(listed)")
    #expect(listed.stdout == "Home (1 note)\n  - bread\nWork (0 notes)\n", "\(listed)")
  }

  /// The uid the ordinary-user test runs the host as when the tests run as root: one no other test uses.
  static let ordinaryUID: uid_t = 61_237

  /// `assistant run` gives the values on the command line, and `--json` returns the outcome with the values the
  /// extension resolved ("work" is the notebook Work), its response's parameters and the card NotesUI drew.
  @Test func runWithJSONGivesTheOutcome() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene.installed()
    defer { scene.host.directory.remove() }
    let result = try await scene.assistant(["--json", "run", "Notes", "AddNote", "notebook=work", "text=call Ada"])
    #expect(result.code == 0, "\(result)")
    let outcome = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    #expect(outcome["app"] as? String == "Notes")
    #expect(outcome["intent"] as? String == "AddNoteIntent")
    #expect(outcome["code"] as? String == "success")
    #expect(outcome["success"] as? Bool == true)
    #expect(outcome["dialog"] as? String == "Added “call Ada” to Work.")
    #expect(outcome["parameters"] as? [String: String] == ["notebook": "Work", "text": "call Ada"])
    let response = try #require(outcome["responseParameters"] as? [String: Any])
    #expect(response["count"] as? Int == 1)
    let views = try #require(outcome["views"] as? [[String: Any]])
    #expect(views.count == 1)
    let snippet = try #require(views.first?["snippet"] as? [String: Any])
    let card = try JSONSerialization.data(withJSONObject: snippet, options: [.sortedKeys])
    #expect(
      String(decoding: card, as: UTF8.self)
        == #"{"stack":[{"text":"Work"},{"row":{"label":"Added","value":"call Ada"}},{"row":{"label":"Now","value":"1 note"}}]}"#
    )
    #expect(views.first?["parameters"] as? [String] == ["notebook", "text"])
  }

  /// The conversation: no notebook given is a disambiguation (the definition's introduction, then the list), a
  /// missing text is asked with the Primary prompt (needsValue), and a note the notebook already has is confirmed
  /// (confirmationRequired, the definition's Confirmation prompt); "no" to it asks for the text again.
  @Test func missingValuesAreAskedAndADuplicateConfirmed() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene.installed()
    defer { scene.host.directory.remove() }
    let first = try await scene.assistant(
      ["--answer", "2", "--answer", "call Ada", "Add a note with Notes"])
    #expect(first.code == 0, "\(first)")
    #expect(
      Self.lines(first.stderr) == [
        "There are 2 notebooks.", "  1. Home", "  2. Work", "Choose 1-2: 2", "What should the note say? call Ada",
      ], "\(first)")
    #expect(first.stdout == "Added “call Ada” to Work.\n[NotesUI]\n  Work\n  Added: call Ada\n  Now: 1 note\n")

    let declined = try await scene.assistant(
      ["--answer", "no", "--answer", "book a room", "Add call Ada to Work with Notes"])
    #expect(declined.code == 0, "\(declined)")
    #expect(
      Self.lines(declined.stderr) == [
        "Work already has the note “call Ada”. Add it again? no", "What should the note say? book a room",
      ], "\(declined)")
    #expect(declined.stdout.hasPrefix("Added “book a room” to Work.\n"), "\(declined)")

    let confirmed = try await scene.assistant(["--answer", "yes", "Add call Ada to Work with Notes"])
    #expect(confirmed.code == 0, "\(confirmed)")
    #expect(Self.lines(confirmed.stderr) == ["Work already has the note “call Ada”. Add it again? yes"])
    #expect(confirmed.stdout.hasSuffix("  Now: 3 notes\n"), "\(confirmed)")
    #expect(try await scene.list() == "Home (0 notes)\nWork (3 notes)\n  - call Ada\n  - book a room\n  - call Ada\n")
  }

  /// A notebook that does not exist is unsupported: the definition's text for `noSuchNotebook`, and the question
  /// again. With nobody to answer, the run ends there (exit 75) and nothing is added.
  @Test func anUnknownNotebookIsUnsupported() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene.installed()
    defer { scene.host.directory.remove() }
    let unanswered = try await scene.assistant(["run", "Notes", "AddNote", "notebook=Garden", "text=seeds"])
    #expect(unanswered.code == 75, "\(unanswered)")
    #expect(unanswered.stderr.hasPrefix("There is no notebook called Garden.\n"), "\(unanswered)")
    let answered = try await scene.assistant(
      ["--answer", "home", "run", "Notes", "AddNote", "notebook=Garden", "text=seeds"])
    #expect(answered.code == 0, "\(answered)")
    #expect(
      Self.lines(answered.stderr) == ["There is no notebook called Garden.", "Which notebook? home"], "\(answered)")
    #expect(answered.stdout.hasPrefix("Added “seeds” to Home.\n"), "\(answered)")
  }

  /// ClearNotes asks before it deletes (INIntentUserConfirmationRequired): NotesUI draws the confirmation step (what
  /// will be deleted), then the question; "no" ends the run (`cancelledByUser`, exit 1) with nothing deleted, "yes"
  /// handles it and NotesUI draws the answer. An empty notebook is refused by confirm, without the question.
  @Test func clearingAsksForConfirmationFirst() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene.installed()
    defer { scene.host.directory.remove() }
    for note in ["bread", "eggs"] {
      let added = try await scene.assistant(["open", "Notes", "--", "add", "Home", note])
      #expect(added.code == 0, "\(added)")
    }
    let declined = try await scene.assistant(["--answer", "no", "Clear the notes in Home with Notes"])
    #expect(declined.code == 1, "\(declined)")
    #expect(declined.stdout == "[NotesUI]\n  Home\n  To delete: 2 notes\nOK, I won't.\n", "\(declined)")
    #expect(Self.lines(declined.stderr) == ["Do you want to clear notes? no"], "\(declined)")
    #expect(try await scene.list() == "Home (2 notes)\n  - bread\n  - eggs\nWork (0 notes)\n")

    let cleared = try await scene.assistant(["--answer", "1", "--answer", "yes", "Clear my notes with Notes"])
    #expect(cleared.code == 0, "\(cleared)")
    #expect(
      cleared.stdout
        == "[NotesUI]\n  Home\n  To delete: 2 notes\nDeleted the notes in Home.\n[NotesUI]\n  Home\n  Deleted: 2 notes\n",
      "\(cleared)")
    #expect(
      Self.lines(cleared.stderr) == [
        "There are 2 notebooks.", "  1. Home", "  2. Work", "Choose 1-2: 1", "Do you want to clear notes? yes",
      ], "\(cleared)")
    #expect(try await scene.list() == "Home (0 notes)\nWork (0 notes)\n")

    let empty = try await scene.assistant(["Clear the notes in Work with Notes"])
    #expect(empty.code == 1, "\(empty)")
    #expect(
      empty.stdout
        == "Sorry, Work was not cleared: it has no notes.\n[NotesUI]\n  Work\n  Unchanged: it has no notes\n",
      "\(empty)")
    #expect(empty.stderr == "", "\(empty)")
  }

  /// ShowNotebook is answered `continueInApp` with a user activity: the host says so, and launches the app in the
  /// foreground with the activity (`INTENTHOST_USER_ACTIVITY`), which shows the notebook the activity names. The run's
  /// status is the intent's (1: continueInApp is not a success of the intent).
  @Test func showingANotebookContinuesInTheApp() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene.installed()
    defer { scene.host.directory.remove() }
    let added = try await scene.assistant(["open", "Notes", "--", "add", "Work", "call Ada"])
    #expect(added.code == 0, "\(added)")
    let shown = try await scene.assistant(["Show the work notebook with Notes"])
    #expect(shown.code == 1, "\(shown)")
    #expect(shown.stdout == "Continue in Notes.\nWork (1 note)\n  - call Ada\n", "\(shown)")
    #expect(shown.stderr == "", "\(shown)")
    // The control: the app without the activity does not show one notebook but all of them.
    #expect(try await scene.list() == "Home (0 notes)\nWork (1 note)\n  - call Ada\n")
  }

  /// The installed copy's `#!` line changed to an interpreter in a writable folder (a copy of python3 in the test's
  /// temporary folder): the launch is refused by the sandbox, exit 77, in one line naming the extension, the
  /// interpreter and the rule, and the same line is in the extension's log. The control: the same command before the
  /// change runs.
  @Test func aChangedInterpreterIsRefusedAtLaunch() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene.installed()
    defer { scene.host.directory.remove() }
    let control = try await scene.assistant(["run", "Notes", "AddNote", "notebook=Home", "text=bread"])
    #expect(control.code == 0, "\(control)")

    let interpreter = try await writableInterpreter(in: scene.host.directory)
    try await replaceShebang(
      of: scene.installed + "/PlugIns/NotesIntents.appex/NotesIntents", with: "#!" + interpreter)
    let refused = try await scene.assistant(["run", "Notes", "AddNote", "notebook=Home", "text=eggs"])
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stdout == "", "\(refused)")
    let lines = Self.lines(refused.stderr)
    #expect(lines.count == 1, "\(refused)")
    let line = try #require(lines.first)
    #expect(line.hasPrefix("assistant: NotesIntents (com.example.notes.NotesIntents)"), "\(line)")
    #expect(line.contains(interpreter), "\(line)")
    #expect(line.contains("script-interpreter"), "\(line)")
    let log = try await offThePool { () throws in try String(contentsOfFile: scene.intentsLog, encoding: .utf8) }
    let message = String(line.dropFirst("assistant: ".count))
    #expect(log.contains(message), "the log does not hold the refusal: \(log)")
    #expect(try await scene.list() == "Home (1 note)\n  - bread\nWork (0 notes)\n", "the refused run added a note")
  }

  /// The bundle as assembled, but with its Intents extension's `#!` naming an interpreter in a writable folder:
  /// `validate` and `install` refuse it with the rule named (exit 65), and nothing is installed.
  @Test func aBundleWithAWritableInterpreterIsRefusedAtInstall() async throws {
    guard Self.requirePython() else { return }
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    // The control: as assembled, it validates.
    let clean = try await scene.assistant(["validate", scene.app.path])
    #expect(clean.code == 0, "\(clean)")
    let interpreter = try await writableInterpreter(in: scene.host.directory)
    try await replaceShebang(
      of: scene.app.path + "/PlugIns/NotesIntents.appex/NotesIntents", with: "#!" + interpreter)
    let validated = try await scene.assistant(["validate", scene.app.path])
    #expect(validated.code == 65, "\(validated)")
    #expect(validated.stdout.contains("[script-interpreter]"), "\(validated)")
    #expect(validated.stdout.contains("NotesIntents"), "\(validated)")
    let installed = try await scene.assistant(["install", scene.app.path])
    #expect(installed.code == 65, "\(installed)")
    #expect(installed.stderr.contains("[script-interpreter]"), "\(installed)")
    #expect(!FileManager.default.fileExists(atPath: scene.installed), "the refused bundle was installed")
  }

  /// docs/examples/python/README.md's sessions run as shown: every ```console block's `$ ` commands, in order, in a
  /// fresh folder standing for the repository's root (`Scripts/` is the repository's, `build/` the folder's own) with
  /// its own home and app groups, each printing exactly the lines under it (stdout and stderr together, in any
  /// order), the folder's path shown as the page's `/home/you/intenthost`.
  @Test func theWalkthroughRunsAsShown() async throws {
    guard Self.requirePython() else { return }
    let page = try await offThePool { () throws in
      try String(
        contentsOf: PackagePaths.root.appendingPathComponent("docs/examples/python/README.md"), encoding: .utf8)
    }
    var examples: [(command: String, output: [String])] = []
    var inConsole = false
    for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inConsole = line == "```console"
      } else if inConsole, line.hasPrefix("$ ") {
        examples.append((String(line.dropFirst(2)), []))
      } else if inConsole, !examples.isEmpty {
        examples[examples.count - 1].output.append(String(line))
      }
    }
    #expect(examples.count >= 10, "the page's sessions were not found")
    let directory = try TemporaryDirectory("intenthost-python-walkthrough")
    defer { directory.remove() }
    var environment = ProcessInfo.processInfo.environment
    environment["INTENTHOST_NO_BUILD"] = "1"
    environment["ASSISTANT_HOME"] = directory.file(".assistant-home").path
    environment["ASSISTANT_APP_GROUPS"] = directory.file("AppGroup").path
    let scripts = PackagePaths.root.appendingPathComponent("Scripts").path
    for example in examples {
      #expect(example.command.hasPrefix("Scripts/"), "\(example.command)")
      let command = scripts + example.command.dropFirst("Scripts".count)
      let result = try await runCommand(
        "/bin/bash", ["-c", "cd \"$1\" && " + command, "bash", directory.path], environment: environment)
      let printed = (result.stdout + result.stderr).replacingOccurrences(
        of: directory.path, with: "/home/you/intenthost"
      )
      .split(separator: "\n").map(String.init)
      #expect(printed.sorted() == example.output.sorted(), "$ \(example.command)\n\(result)")
    }
  }

  /// A copy of the system python3 in a folder of the test's (under the temporary folder, which anyone may write):
  /// it would run, but the sandbox must not grant it.
  func writableInterpreter(in directory: TemporaryDirectory) async throws -> String {
    let copy = directory.file("interpreters/python3").path
    try await offThePool { () throws in
      try FileManager.default.createDirectory(
        atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: URL(fileURLWithPath: Self.python).resolvingSymlinksInPath().path, toPath: copy)
    }
    return copy
  }

  /// Replaces the first line of the script at `path` (its mode is kept; made writable for the change when it is
  /// not).
  func replaceShebang(of path: String, with line: String) async throws {
    try await offThePool { () throws in
      let fm = FileManager.default
      let mode = try fm.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? 0o755
      let script = try String(contentsOfFile: path, encoding: .utf8)
      let body = script.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).dropFirst()
      try fm.setAttributes([.posixPermissions: mode | 0o200], ofItemAtPath: path)
      try Data(([Substring(line)] + body).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
      try fm.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }
  }
}
