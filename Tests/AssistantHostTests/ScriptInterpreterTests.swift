import AppGroupStore
import Foundation
import IntentHostSystem
import TestSupport
import Testing

@testable import AssistantHost

/// The `#!` line as the kernel reads it, and the interpreter rules, in-process (the end-to-end side is
/// ScriptExtensionTests).
@Suite(.tags(.process)) struct ScriptInterpreterTests {
  @Test(
    arguments: [
      ("#!/bin/sh\n", "/bin/sh", nil),
      ("#! /usr/bin/python3  -I \t\nprint()\n", "/usr/bin/python3", "-I"),
      ("#!/usr/bin/env python3\n", "/usr/bin/env", "python3"),
      // One argument, as the kernel gives it: the rest of the line.
      ("#!/usr/bin/python3 -I -S\n", "/usr/bin/python3", "-I -S"),
      ("#!\t/bin/sh\n", "/bin/sh", nil),
    ] as [(String, String, String?)])
  func aLineIsReadAsTheKernelReadsIt(text: String, interpreter: String, argument: String?) throws {
    let shebang = try #require(try Shebang.parse(Array(text.utf8)))
    #expect(shebang.interpreter == interpreter)
    #expect(shebang.argument == argument)
    #expect(shebang.line == String(text.dropFirst(2).prefix { $0 != "\n" }))
  }

  @Test func aFileWithoutHashBangIsNotAScript() throws {
    #expect(try Shebang.parse([0x7F, 0x45, 0x4C, 0x46, 2, 1]) == nil)
    #expect(try Shebang.parse(Array("# a comment\n".utf8)) == nil)
    #expect(try Shebang.parse([]) == nil)
  }

  @Test(
    arguments: [
      ("#!/bin/sh\r\n", "carriage return"),
      ("#!\n", "names no interpreter"),
      ("#!   \n", "names no interpreter"),
      ("#!/bin/sh\u{1B}[2J\n", "other than printable ASCII"),
      ("#!/" + String(repeating: "a", count: 300) + "\n", "longer than the 255 bytes"),
    ])
  func aLineTheSandboxDoesNotRunIsAProblem(text: String, reason: String) {
    #expect(throws: ScriptProblem.self) { try Shebang.parse(Array(text.utf8)) }
    do {
      _ = try Shebang.parse(Array(text.utf8))
    } catch {
      #expect(error.reason.contains(reason), "\(error)")
    }
  }

  @Test func aLineThatIsNotUTF8IsAProblem() {
    #expect(throws: ScriptProblem.self) { try Shebang.parse([0x23, 0x21, 0x2F, 0xFF, 0x0A]) }
  }

  @Test(
    arguments: [
      ("sh", ScriptInterpreter.Kind.shell), ("dash", .shell), ("bash", .shell), ("python3", .python),
      ("python3.11", .python), ("python3.13", .python), ("python3.11-config", nil), ("python", nil),
      ("python3.", nil), ("perl", .perl), ("perl5.36.0", .perl), ("perl5.", nil), ("node", nil),
    ] as [(String, ScriptInterpreter.Kind?)])
  func theKnownInterpreters(name: String, kind: ScriptInterpreter.Kind?) {
    #expect(ScriptInterpreter.Kind(program: name) == kind)
  }

  /// A system program passes; a copy in a temporary folder, and a folder of the bundle, do not (the control and
  /// the two failures of the same check).
  @Test func onlyAProgramOfTheSystemPasses() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let shell = try #require(realPath("/bin/sh"))
    #expect(ScriptInterpreter.systemPlaceProblem("/bin/sh", real: shell, forbidden: []) == nil)
    let copy = directory.file("sh").path
    try FileManager.default.copyItem(atPath: shell, toPath: copy)
    let problem = ScriptInterpreter.systemPlaceProblem(copy, real: copy, forbidden: ["/tmp"])
    #expect(problem != nil)
    // Even with no folder forbidden, the copy is in a folder someone else than root may write, or not root's.
    #expect(ScriptInterpreter.systemPlaceProblem(copy, real: copy, forbidden: []) != nil)
    #expect(
      ScriptInterpreter.systemPlaceProblem("/bin/sh", real: shell, forbidden: ["/usr/bin"])?.contains("is inside")
        == true)
  }

  /// `#!/usr/bin/env NAME` is looked up in the fixed PATH, not the user's: python3 is found in /usr/bin whatever
  /// `PATH` says (here a pyenv shim may come first).
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
  func envIsResolvedInTheFixedPath() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let app = directory.file("Fixture.app").path
    try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
    let script = app + "/run"
    try "#!/usr/bin/env python3\nprint()\n".write(toFile: script, atomically: true, encoding: .utf8)
    let interpreter = try #require(try ScriptInterpreter.inspect(executable: script, appBundle: app))
    #expect(ScriptInterpreter.searchPath.contains((interpreter.path as NSString).deletingLastPathComponent))
    #expect(interpreter.resolvedFromEnv)
    #expect(interpreter.argument == nil)
    #expect(interpreter.kind == .python)
    #expect(interpreter.arguments(script: script) == [script])
    // Asked at install: the library folders, each a folder of the system.
    let full = try interpreter.withLibraryFolders(forbidden: [])
    #expect(full.libraryFolders.contains { $0.hasSuffix("/lib-dynload") }, "\(full.libraryFolders)")
    #expect(full.libraryFolders.allSatisfy { $0.hasPrefix("/usr/") || $0.hasPrefix("/lib") }, "\(full)")
  }

  /// An App Intents extension written as a script (`Extensions/NAME.appex`) has its interpreter recorded at install,
  /// as an Intents extension's is (without the record, each launch is refused: "none was recorded for this script at
  /// install"), and forgotten at uninstall. The control: the app's own executable, an ELF program, has none.
  @Test func anAppIntentsExtensionsScriptIsRecordedAtInstallAndForgottenAtUninstall() async throws {
    let directory = try TemporaryDirectory("assistanthost-appintents-script")
    defer { directory.remove() }
    let home = try AssistantHome(
      root: directory.file("home").path, environment: ["ASSISTANT_APP_GROUPS": directory.file("groups").path])
    let bundle = try TestBundles.fuelOrder(
      phrases: AppIntentsFixtures.correctedPhrases, in: directory.file("bundles"))
    let script = bundle.appendingPathComponent("Extensions/FuelOrderIntents.appex/FuelOrderIntents")
    try FileManager.default.removeItem(at: script)
    try Data("#!/bin/sh\nexit 0\n".utf8).write(to: script)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
    let app = try await home.install(from: bundle).app
    let ext = try #require(app.appIntentsExtensions.first)
    let (extensionsRecord, appsRecord) = try await offThePool {
      () throws in
      (
        try home.recordedInterpreter(
          name: ext.name, bundleIdentifier: ext.info.bundleIdentifier, executable: ext.executableURL.path,
          appBundle: app.url.path),
        try home.recordedInterpreter(
          name: app.name, bundleIdentifier: app.info.bundleIdentifier, executable: app.executableURL.path,
          appBundle: app.url.path)
      )
    }
    #expect(extensionsRecord?.shebang == "/bin/sh")
    #expect(appsRecord == nil)

    let table = try await offThePool { () throws -> InterpreterTable in
      _ = try home.uninstall("FuelOrder")
      return try Document<InterpreterTable>(path: home.interpretersFile).read()
    }
    #expect(table.scripts[ext.info.bundleIdentifier] == nil, "\(table.scripts)")
  }
}

/// The install-time query and the walk to an interpreter, against review 16's attacks, each with its control.
@Suite(.tags(.process))
struct ScriptInterpreterHardeningTests {
  /// Every link and folder on the way is checked, component by component: a link in a folder others can write (or
  /// of another user's) is refused though its target is the system's program; the system's own path is the control.
  @Test func everyLinkOnTheWayIsChecked() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let shell = try #require(realPath("/bin/sh"))
    guard case .found(let real, _) = ScriptInterpreter.walk("/bin/sh") else {
      Issue.record("/bin/sh did not pass")
      return
    }
    #expect(real == shell)
    let link = directory.file("sh").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: shell)
    guard case .problem(let reason) = ScriptInterpreter.walk(link) else {
      Issue.record("a link in a writable folder passed")
      return
    }
    #expect(reason.contains("is reached through /tmp"), "\(reason)")
    #expect(ScriptInterpreter.systemPlaceProblem(link, real: shell, forbidden: []) != nil)
    #expect(throws: ScriptProblem.self) { try ScriptInterpreter.checkSystemProgram(link, forbidden: []) }
  }

  /// Paths through /proc, /sys and /dev are refused (they mean something else in each process).
  @Test(arguments: ["/proc/self/root/usr/bin/python3", "/proc/self/exe", "/dev/fd/0"])
  func kernelFileSystemsAreRefused(path: String) {
    guard case .problem(let reason) = ScriptInterpreter.walk(path) else {
      Issue.record("\(path) passed")
      return
    }
    #expect(reason.contains("kernel file system"), "\(reason)")
  }

  /// Only folders shaped like Python's library folders are accepted as its answer; never `/`, `/usr`, `/usr/lib`,
  /// `/etc`, or a folder above the interpreter.
  @Test(
    arguments: [
      ("/usr/lib/python3.11", true), ("/usr/lib/python3.11/lib-dynload", true), ("/usr/lib64/python3.12", true),
      ("/usr/local/lib/python3.13", true), ("/opt/py/lib/python3.11/lib-dynload", true), ("/", false),
      ("/usr", false), ("/usr/lib", false), ("/etc", false), ("/usr/lib/python3", false),
      ("/usr/lib/python3.11/site-packages", false), ("/home/u/python3.11", false), ("/usr/lib/lib-dynload", false),
    ])
  func libraryFoldersAreShapedLikePythons(folder: String, accepted: Bool) {
    let problem = ScriptInterpreter.libraryFolderShapeProblem(folder, program: "/usr/bin/python3.11")
    #expect((problem == nil) == accepted, "\(folder): \(problem ?? "accepted")")
  }

  @Test func aFolderAboveTheInterpreterIsRefused() {
    #expect(
      ScriptInterpreter.libraryFolderShapeProblem("/opt/lib/python3.11", program: "/opt/lib/python3.11/bin/python3")
        != nil)
    #expect(ScriptInterpreter.libraryFolderShapeProblem("/opt/lib/python3.11", program: "/opt/bin/python3") == nil)
  }

  /// Review 16, finding 5: a program that closes its output and keeps running is killed at the deadline, its wait
  /// included. The control: one that answers and exits is read.
  @Test func theQueryIsBoundedAfterItsOutputEnds() throws {
    #expect(
      try ScriptInterpreter.ask("/bin/sh", arguments: ["sh", "-c", "echo hi"], seconds: 30) == Array("hi\n".utf8))
    do {
      _ = try ScriptInterpreter.ask("/bin/sh", arguments: ["sh", "-c", "exec >&-; sleep 60"], seconds: 1)
      Issue.record("a program still running was waited for")
    } catch let error as SystemError {
      #expect(error.code == ETIMEDOUT, "\(error)")
    }
  }

  /// The query executes the checked descriptor, not a path walked again: here the descriptor is /bin/echo's while
  /// the path given is one that does not exist.
  @Test func theQueryExecutesTheDescriptor() throws {
    let echo = try #require(realPath("/bin/echo"))
    let (_, descriptor) = try ScriptInterpreter.openSystemProgram(echo, forbidden: [])
    defer { descriptor.close() }
    let answer = try ScriptInterpreter.ask("/no/such/program", arguments: ["echo", "by", "fd"], executable: descriptor)
    #expect(answer == Array("by fd\n".utf8))
  }

  /// The query runs confined (as nobody when the host is root, Landlock on the system's folders): it cannot read
  /// /etc/passwd; the control, unconfined, can.
  @Test(.enabled(if: landlockABI() > 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
  func theQueryRunsConfined() throws {
    let program = try #require(realPath("/usr/bin/python3"))
    let code =
      "import os\ntry:\n  open('/etc/passwd').close(); r = 'read'\nexcept OSError:\n  r = 'refused'\n"
      + "print(os.geteuid(), r)"
    let arguments = [program, "-I", "-S", "-c", code]
    let confined = try ScriptInterpreter.ask(
      program, arguments: arguments, sandbox: ScriptInterpreter.querySandbox(program: program))
    let uid = geteuid() == 0 ? 65534 : geteuid()
    #expect(String(decoding: confined, as: UTF8.self) == "\(uid) refused\n")
    let control = try ScriptInterpreter.ask(program, arguments: arguments)
    #expect(String(decoding: control, as: UTF8.self) == "\(geteuid()) read\n")
  }

  /// Review 16, finding 4: an argument with a blank (passed by the kernel as one) is refused, with the joined form
  /// as the fix; one word is the control.
  @Test func anArgumentWithABlankIsRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let app = directory.file("Fixture.app").path
    try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
    let script = app + "/run"
    try "#!/bin/sh -e -u\n".write(toFile: script, atomically: true, encoding: .utf8)
    do {
      _ = try ScriptInterpreter.inspect(executable: script, appBundle: app)
      Issue.record("\"-e -u\" passed")
    } catch {
      #expect(error.reason.contains("as one argument"), "\(error)")
      #expect(error.fix.contains("#!/bin/sh -eu"), "\(error)")
    }
    try "#!/bin/sh -eu\n".write(toFile: script, atomically: true, encoding: .utf8)
    #expect(try ScriptInterpreter.inspect(executable: script, appBundle: app)?.argument == "-eu")
  }
}
