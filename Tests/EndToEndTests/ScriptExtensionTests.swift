import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// Extensions written as `#!` scripts run sandboxed (docs/SANDBOX.md, "Interpreted extensions"): a python3 and an sh
/// extension answer through the real host with the sandbox on; an interpreter of the bundle, of a writable folder,
/// or one that is itself a script is refused by `validate` and `install`, and an installed copy whose `#!` line
/// changed is refused at launch (77, one line, the same line in its log). A hostile python script gets nothing the
/// native hostile extension does not: each attempt is denied, and the same attempt with `--no-sandbox` is the
/// control that shows it working.
@Suite(
  .serialized,
  .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs the system's python3"),
  .tags(.endToEnd))
struct ScriptExtensionTests {
  /// A JSON-RPC extension in python3 (docs/PROTOCOL.md): the handshake, then PingIntent, whose handle does what its
  /// `value` says and answers what came of it ("Got refused: Permission denied.").
  static let python = #"""
    #!/usr/bin/env python3
    import json, os, socket, subprocess, sys

    def attempt(value):
        try:
            if value == "argv":
                return json.dumps([sys.argv[0], sys.executable, os.getcwd()])
            if value.startswith("read:"):
                with open(value[5:]) as file:
                    return "read " + file.read()
            if value.startswith("exec:"):
                os.execv("/bin/sh", ["sh", "-c", 'printf "%s\\n" "$0"', value[5:]])
            if value == "fork":
                pid = os.fork()
                if pid == 0:
                    os._exit(7)
                return "forked, child exited %d" % os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            if value == "subprocess":
                return "ran, status %d" % subprocess.run(["/bin/true"]).returncode
            if value == "system":
                return "system returned %d" % os.system("/bin/true")
            if value.startswith("connect:"):
                socket.create_connection(("127.0.0.1", int(value[8:])), timeout=5).close()
                return "connected"
            return "python " + value
        except OSError as error:
            return "refused: " + (error.strerror or str(error))

    def answer(request):
        method, params = request["method"], request.get("params", {})
        if method == "initialize":
            return {"protocolVersion": 1, "implementation": "ping.py"}
        if method == "intent/resolve":
            return {"kind": "success"}
        if method == "intent/confirm":
            return {"code": "ready", "parameters": {}}
        if method == "intent/handle":
            value = params["intent"]["parameters"].get("value", {}).get("value", "")
            if value.startswith("exec:"):  # the exec'd program answers, if it runs: a handle response for this id
                value = "exec:" + json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {
                    "code": "success", "parameters": {"value": {"type": "string", "value": "exec ran /bin/sh"}}}})
            return {"code": "success", "parameters": {"value": {"type": "string", "value": attempt(value)}}}
        return {}

    for line in sys.stdin:
        request = json.loads(line)
        if request.get("method") == "exit":
            sys.exit(0)
        if "id" in request:
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": answer(request)}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    """#

  /// The same extension in sh, with builtins only (the sandbox runs no other program).
  static let shell = #"""
    #!/bin/sh
    while IFS= read -r line; do
      id=${line#*\"id\":}
      id=${id%%[,\}]*}
      case $line in
        *'"method":"exit"'*) exit 0 ;;
        *'"method":"initialize"'*) result='{"protocolVersion":1,"implementation":"ping.sh"}' ;;
        *'"method":"intent/resolve"'*) result='{"kind":"success"}' ;;
        *'"method":"intent/confirm"'*) result='{"code":"ready","parameters":{}}' ;;
        *'"method":"intent/handle"'*) result='{"code":"success","parameters":{"value":{"type":"string","value":"sh"}}}' ;;
        *'"method":"ui/configureView"'*)
          result='{"parameters":["value"],"size":{"height":20,"width":100},"snippet":{"text":"drawn by sh"},"success":true}' ;;
        *) result='{}' ;;
      esac
      printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$result"
    done
    """#

  /// A host and the bundles of its script extensions.
  struct Scene {
    let host: HostFixture
    var bundles: URL { host.directory.file("bundles") }
    /// A file of the user's, outside everything the sandbox grants.
    var userFile: String { host.directory.file("user-home/.ssh/id_rsa").path }
    /// A file in another app's container.
    var otherContainerFile: String { host.home + "/Containers/com.example.other/Documents/secret.txt" }

    init() throws {
      host = try HostFixture()
      for (path, text) in [(userFile, "PRIVATE KEY"), (otherContainerFile, "OTHER APP")] {
        try FileManager.default.createDirectory(
          atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
      }
    }

    /// Fixture.app whose extension `name` is the script `text`, in `bundles/`.
    func bundle(_ name: String, script text: String) throws -> URL {
      let app = try TestBundles.fixture(extensionName: name, in: bundles)
      let executable = app.appendingPathComponent("PlugIns/\(name).appex/FaultyExtension").path
      try FileManager.default.removeItem(atPath: executable)
      try text.write(toFile: executable, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: executable)
      return app
    }

    /// Installs Fixture.app with the script extension `name`.
    func install(_ name: String, script text: String) async throws {
      let installed = try await host.assistant(["install", try bundle(name, script: text).path])
      #expect(installed.code == 0, "\(installed)")
    }

    /// The installed copy of extension `name`'s script.
    func installedScript(_ name: String) -> String {
      host.home + "/Applications/Fixture.app/PlugIns/\(name).appex/FaultyExtension"
    }

    /// The host's lines in extension `name`'s log.
    func hostLines(_ name: String) -> [String] {
      let log =
        (try? String(contentsOfFile: host.home + "/Logs/com.example.fixture.\(name).log", encoding: .utf8)) ?? ""
      return log.split(separator: "\n").map(String.init).filter { $0.hasPrefix("--- host: ") }
    }

    /// A copy of /bin/sh in a folder of the test's: an interpreter anyone who can write there could replace.
    func writableShell() throws -> String {
      let copy = host.directory.file("bin/sh").path
      try FileManager.default.createDirectory(
        atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try? FileManager.default.removeItem(atPath: copy)
      try FileManager.default.copyItem(atPath: Self.systemShell, toPath: copy)
      return copy
    }

    /// The program /bin/sh is (a copy of the link would be a link).
    static var systemShell: String {
      guard let real = realpath("/bin/sh", nil) else { return "/bin/sh" }
      defer { free(real) }
      return String(cString: real)
    }
  }

  // MARK: - Running

  /// The python3 extension runs sandboxed and answers; argv is what the kernel would give it (its script's path
  /// after the interpreter), and `sandbox-profile` names the interpreter resolved at install and its folders.
  @Test func aPythonScriptRunsSandboxed() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("PyPing", script: Self.python)
    let ran = try await scene.host.assistant(["run", "Fixture", "Ping", "value=hello"])
    #expect(ran.code == 0, "\(ran)")
    #expect(ran.stdout == "Got python hello.\n", "\(ran)")
    #expect(!ran.stderr.contains("--no-sandbox"), "\(ran)")

    let argv = try await scene.host.assistant(["run", "Fixture", "Ping", "value=argv"])
    #expect(argv.code == 0, "\(argv)")
    let script = scene.installedScript("PyPing")
    let container = scene.host.home + "/Containers/com.example.fixture.PyPing"
    let program = try #require(
      realpath("/usr/bin/python3", nil).map { pointer in
        defer { free(pointer) }
        return String(cString: pointer)
      })
    // argv[0] is the real program checked at install, never the path through a link (sys.executable follows it).
    #expect(argv.stdout == "Got [\"\(script)\", \"\(program)\", \"\(container)\"].\n", "\(argv)")

    let profile = try await scene.host.assistant(["sandbox-profile", "PyPing"])
    #expect(profile.code == 0, "\(profile)")
    #expect(
      profile.stdout.contains("  interpreter: \(program) (from #!/usr/bin/env python3, resolved at install)"),
      "\(profile)")
    #expect(profile.stdout.contains("  execute:\n    \(program)\n"), "\(profile)")
    #expect(!profile.stdout.contains("execute:\n    \(script)"), "the script itself is not executed: \(profile)")
    let json = try await scene.host.assistant(["sandbox-profile", "PyPing", "--json"])
    let report = try #require(Self.profile(json), "\(json)")
    let interpreter = try #require(report["interpreter"] as? [String: Any], "\(json)")
    #expect(interpreter["path"] as? String == "/usr/bin/python3")
    #expect(interpreter["realPath"] as? String == program)
    #expect(interpreter["resolvedAtInstall"] as? Bool == true)
    let folders = try #require(interpreter["libraryFolders"] as? [String])
    #expect(folders.contains { $0.hasSuffix("/lib-dynload") }, "\(folders)")
    // Nothing of the system is granted wholesale beyond the interpreter's own folders.
    let read = try #require(report["read"] as? [String])
    #expect(!read.contains { ["/", "/usr", "/usr/lib", "/usr/bin", "/etc", "/lib"].contains($0) }, "\(read)")
    // The control: an ELF executable (the app's) has no interpreter.
    let app = try await scene.host.assistant(["sandbox-profile", "Fixture", "--json"])
    let appReport = try #require(Self.profile(app), "\(app)")
    #expect(appReport["interpreter"] is NSNull, "\(app)")
  }

  /// The one profile `sandbox-profile --json` printed.
  static func profile(_ result: CommandResult) -> [String: Any]? {
    let json = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return (json?["profiles"] as? [[String: Any]])?.first
  }

  /// The sh extension (builtins only) runs sandboxed and answers.
  @Test func aShellScriptRunsSandboxed() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("ShPing", script: Self.shell)
    let ran = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(ran.code == 0, "\(ran)")
    #expect(ran.stdout == "Got sh.\n", "\(ran)")
    let profile = try await scene.host.assistant(["sandbox-profile", "ShPing"])
    #expect(profile.stdout.contains("  interpreter: "), "\(profile)")
    #expect(profile.stdout.contains("(from #!/bin/sh)"), "\(profile)")
  }

  /// An app and an Intents UI extension that are scripts run sandboxed too (the same launch path): `open` runs the
  /// app, whose `$0` is its script; the UI extension draws its snippet. A changed app script is refused (77, the
  /// line in its log).
  @Test func aScriptAppAndUIExtensionRunSandboxed() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let app = try TestBundles.fixture(extensionName: "ShPing", uiExtensionName: "ShUI", in: scene.bundles)
    for executable in ["PlugIns/ShPing.appex/FaultyExtension", "PlugIns/ShUI.appex/FaultyExtension", "fixture"] {
      let path = app.appendingPathComponent(executable).path
      try FileManager.default.removeItem(atPath: path)
      let text = executable == "fixture" ? #"#!/bin/sh"# + "\n" + #"printf 'app %s %s\n' "$0" "$*""# + "\n" : Self.shell
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }
    let installed = try await scene.host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")

    let ran = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(ran.code == 0, "\(ran)")
    #expect(ran.stdout == "Got sh.\n[ShUI]\n  drawn by sh\n", "\(ran)")
    let script = scene.host.home + "/Applications/Fixture.app/fixture"
    let opened = try await scene.host.assistant(["open", "Fixture", "--", "one", "two"])
    #expect(opened.code == 0, "\(opened)")
    #expect(opened.stdout == "app \(script) one two\n", "\(opened)")

    try "#!/bin/bash\nexit 0\n".write(toFile: script, atomically: false, encoding: .utf8)
    let refused = try await scene.host.assistant(["open", "Fixture"])
    #expect(refused.code == 77, "\(refused)")
    let lines = refused.stderr.split(separator: "\n").map(String.init)
    #expect(lines.count == 1, "\(refused)")
    let line = try #require(lines.first)
    #expect(
      line.hasPrefix("assistant: Fixture (com.example.fixture) was refused by the sandbox: its interpreter /bin/bash"))
    let log = try String(contentsOfFile: scene.host.home + "/Logs/com.example.fixture.log", encoding: .utf8)
    #expect(log.hasSuffix("--- host: fault: " + line.dropFirst("assistant: ".count) + "\n"), "\(log)")
  }

  // MARK: - Refusals

  /// A root-owned program of the system that is itself a script (Debian's `ldd`, `which`, ...): a chain.
  static func systemScript() -> String? {
    for folder in ["/usr/bin", "/bin"] {
      for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
        let path = folder + "/" + name
        guard let handle = FileHandle(forReadingAtPath: path) else { continue }
        defer { try? handle.close() }
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == 0,
          status.st_mode & 0o022 == 0, status.st_mode & 0o111 != 0
        else { continue }
        if let head = try? handle.read(upToCount: 2), head == Data("#!".utf8) { return path }
      }
    }
    return nil
  }

  /// Each way a `#!` line can ask for what the sandbox must not grant is refused by `validate` and `install` with
  /// the rule named; the sound lines are the control.
  @Test func validationRefusesInterpretersOutsideTheSystem() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let appex = scene.bundles.appendingPathComponent("Fixture.app/PlugIns/Bad.appex").path
    let chain = try #require(Self.systemScript(), "no system program here is a script")
    // A writable folder: /tmp (as root), or one of another user's (as an ordinary user).
    let writable = ["is inside /tmp", "which belongs to uid", "which others can write"]
    let cases: [(line: String, expected: [String]?)] = [
      ("#!/usr/bin/env python3", nil),
      ("#!/bin/sh", nil),
      ("#!/usr/bin/python3 -I", nil),
      ("#!\(appex)/sh", ["is inside \(scene.bundles.path)/Fixture.app"]),
      ("#!\(try scene.writableShell())", writable),
      ("#!\(chain)", ["is itself a script"]),
      ("#!/usr/bin/env -S python3 -u", ["options such as -S"]),
      ("#!/usr/bin/env python3 -u", ["not one program name"]),
      ("#!/usr/bin/env no-such-interpreter", ["not in /usr/local/bin:/usr/bin:/bin"]),
      ("#!python3", ["not an absolute path"]),
      (
        "#!/usr/bin/env node",
        ["supports sh, dash, bash, python3 (python3.N), perl); node is not supported yet", "not in /usr/local/bin"]
      ),
      // The kernel passes "-I -S" as one argument, which python refuses.
      ("#!/usr/bin/python3 -I -S", ["as one argument", "(#!/usr/bin/python3 -IS)"]),
      ("#!/usr/bin/python3 -I\u{202E}", ["other than printable ASCII"]),
      // A path of the kernel's file systems means something else in each process.
      ("#!/proc/self/root/usr/bin/python3", ["in a kernel file system"]),
      // A folder is not a program.
      ("#!/usr/bin", ["is not a regular file"]),
    ]
    for (line, expected) in cases {
      let app = try scene.bundle("Bad", script: line + "\nexit 0\n")
      try FileManager.default.copyItem(atPath: Scene.systemShell, toPath: appex + "/sh")
      let validated = try await scene.host.assistant(["validate", app.path])
      guard let expected else {
        #expect(validated.code == 0, "\(line): \(validated)")
        #expect(!validated.stdout.contains("[script-interpreter]"), "\(line): \(validated)")
        continue
      }
      #expect(validated.code == 65, "\(line): \(validated)")
      #expect(validated.stdout.contains("FaultyExtension: #!: error: "), "\(line): \(validated)")
      #expect(expected.contains { validated.stdout.contains($0) }, "\(line): \(validated)")
      #expect(validated.stdout.contains("[script-interpreter]"), "\(line): \(validated)")
      let installed = try await scene.host.assistant(["install", app.path])
      #expect(installed.code == 65, "\(line): \(installed)")
      #expect(installed.stderr.contains("[script-interpreter]"), "\(line): \(installed)")
    }
  }

  /// An installed script whose `#!` line changed after install (here to a copy of sh in a writable folder) is
  /// refused at launch: exit 77, one line naming the extension, the interpreter and the rule, the same line in its
  /// log, and nothing runs. The control is the unchanged script, which runs.
  @Test func aChangedInterpreterIsRefusedAtLaunch() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("ShPing", script: Self.shell)
    let control = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(control.code == 0, "\(control)")

    let shell = try scene.writableShell()
    let script = scene.installedScript("ShPing")
    let changed = Self.shell.replacingOccurrences(of: "#!/bin/sh", with: "#!\(shell)")
    try changed.write(toFile: script, atomically: false, encoding: .utf8)
    let refused = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stdout.isEmpty, "\(refused)")
    let lines = refused.stderr.split(separator: "\n").map(String.init)
    #expect(lines.count == 1, "\(refused)")
    let line = try #require(lines.first)
    #expect(
      line.hasPrefix(
        "assistant: ShPing (com.example.fixture.ShPing) was refused by the sandbox: its interpreter \(shell) is not "
          + "allowed (rule script-interpreter: "), "\(line)")
    #expect(line.contains("not the \"#!/bin/sh\" recorded at install"), "\(line)")
    #expect(line.hasSuffix("; it was not run"), "\(line)")
    #expect(scene.hostLines("ShPing").last == "--- host: fault: " + line.dropFirst("assistant: ".count), "\(line)")
  }

  /// A sandboxed exec that fails (an executable that is neither ELF nor a script: ENOEXEC) is a refusal: 77, one
  /// line, the same in the log. Unconfined, the same failure is a fault (70) as before: the control.
  @Test func anExecFailureInTheSandboxIsARefusal() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("ShPing", script: Self.shell)
    try "not a program\n".write(toFile: scene.installedScript("ShPing"), atomically: false, encoding: .utf8)
    let refused = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(refused.code == 77, "\(refused)")
    let lines = refused.stderr.split(separator: "\n").map(String.init)
    #expect(lines.count == 1, "\(refused)")
    let line = try #require(lines.first)
    #expect(
      line.hasPrefix(
        "assistant: ShPing (com.example.fixture.ShPing) was refused by the sandbox: its executable "
          + "\(scene.installedScript("ShPing")) could not be executed (Exec format error"), "\(line)")
    #expect(scene.hostLines("ShPing").last == "--- host: fault: " + line.dropFirst("assistant: ".count), "\(line)")
    let unconfined = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x", "--no-sandbox"])
    #expect(unconfined.code == 70, "\(unconfined)")
    #expect(unconfined.stderr.contains("could not be started"), "\(unconfined)")
  }

  // MARK: - A hostile script

  /// Runs the python extension with `value` sandboxed and then with `--no-sandbox`; returns both answers.
  func attempt(_ value: String, in scene: Scene) async throws -> (sandboxed: CommandResult, control: CommandResult) {
    let sandboxed = try await scene.host.assistant(["run", "Fixture", "Ping", "value=\(value)"])
    let control = try await scene.host.assistant(["run", "Fixture", "Ping", "value=\(value)", "--no-sandbox"])
    #expect(sandboxed.code == 0, "\(sandboxed)")
    #expect(control.code == 0, "\(control)")
    return (sandboxed, control)
  }

  @Test func aHostilePythonScriptReadsNothingOutside() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("PyPing", script: Self.python)
    for (file, content) in [(scene.userFile, "PRIVATE KEY"), (scene.otherContainerFile, "OTHER APP")] {
      let (sandboxed, control) = try await attempt("read:\(file)", in: scene)
      #expect(sandboxed.stdout == "Got refused: Permission denied.\n", "\(sandboxed)")
      #expect(control.stdout == "Got read \(content).\n", "\(control)")
    }
  }

  @Test func aHostilePythonScriptStartsNoOtherProgram() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("PyPing", script: Self.python)
    let exec = try await attempt("exec:", in: scene)
    #expect(exec.sandboxed.stdout == "Got refused: Permission denied.\n", "\(exec.sandboxed)")
    #expect(exec.control.stdout == "Got exec ran /bin/sh.\n", "\(exec.control)")
    let fork = try await attempt("fork", in: scene)
    #expect(fork.sandboxed.stdout == "Got refused: Operation not permitted.\n", "\(fork.sandboxed)")
    #expect(fork.control.stdout == "Got forked, child exited 7.\n", "\(fork.control)")
    let spawned = try await attempt("subprocess", in: scene)
    #expect(spawned.sandboxed.stdout.hasPrefix("Got refused: "), "\(spawned.sandboxed)")
    #expect(spawned.control.stdout == "Got ran, status 0.\n", "\(spawned.control)")
    let system = try await attempt("system", in: scene)
    #expect(system.sandboxed.stdout != "Got system returned 0.\n", "\(system.sandboxed)")
    #expect(system.control.stdout == "Got system returned 0.\n", "\(system.control)")
  }

  @Test func aHostilePythonScriptHasNoNetwork() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("PyPing", script: Self.python)
    let listener = try Listener(.tcp)
    defer { listener.close() }
    let sandboxed = try await scene.host.assistant(["run", "Fixture", "Ping", "value=connect:\(listener.port)"])
    #expect(sandboxed.stdout == "Got refused: Permission denied.\n", "\(sandboxed)")
    #expect(!listener.receivedSomething(), "the listener got a connection")
    let control = try await scene.host.assistant(
      ["run", "Fixture", "Ping", "value=connect:\(listener.port)", "--no-sandbox"])
    #expect(control.stdout == "Got connected.\n", "\(control)")
    #expect(listener.receivedSomething())
  }
}
