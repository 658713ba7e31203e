import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// Attacks on script interpreters, each with its control: a link on the way to the interpreter that
/// someone other than root could change is refused by `validate` and `install` (the install-time query never runs
/// it); the query's answer is recorded only as Python library folders, never `/`; user site-packages in the
/// container do not run at launch; a folder in place of the executable is refused at validate.
@Suite(
  .serialized,
  .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs the system's python3"),
  .tags(.endToEnd))
struct ScriptInterpreterAttackTests {
  typealias Scene = ScriptExtensionTests.Scene

  /// The real program /usr/bin/python3 is.
  static var python: String? {
    guard let real = realpath("/usr/bin/python3", nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
  }

  /// Runs `assistant` with `arguments` in a private mount namespace where `/mnt/sysbin` is a folder of root's
  /// (a tmpfs, mode 755) holding the root-owned link `python3 -> target`: the shape of `sudo ln -s
  /// /home/dev/py/bin/python3 /usr/local/bin/python3`. Nothing is written to a system path. nil where the machine
  /// cannot make the namespace.
  func inNamespace(_ scene: Scene, link target: String, _ arguments: [String]) async throws -> CommandResult? {
    let script =
      "mount -t tmpfs -o mode=755 tmpfs /mnt && mkdir -m 755 /mnt/sysbin && ln -s \"$1\" /mnt/sysbin/python3 "
      + "&& shift && exec \"$@\""
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = scene.host.groups
    let probe = try await runCommand(
      "/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", "/bin/sh", "/bin/true"],
      environment: environment)
    guard probe.code == 0 else { return nil }
    return try await runCommand(
      "/usr/bin/unshare",
      [
        "-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", target, PackagePaths.executable("assistant"),
        "--home", scene.host.home,
      ] + arguments, environment: environment)
  }

  /// Whether this machine can make the private mount namespace of `inNamespace`: root, `/usr/bin/unshare`, and a
  /// tmpfs mounted in it.
  static func canMakeMountNamespace() async throws -> Bool {
    guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
    let probe = try await runCommand(
      "/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", "mount -t tmpfs -o mode=755 tmpfs /mnt"])
    return probe.code == 0
  }

  /// Review 16, finding 1: `/mnt/sysbin/python3` (root's link in root's folder) points to a link in a folder others
  /// can write (here the test's, under /tmp; owned by another uid as the attacker's would be), which points to the
  /// system's python. `validate` and `install` refuse it, naming that link's folder; nothing is recorded. The control:
  /// root's link straight to the system's python validates and installs, and what the query (run by its checked
  /// descriptor, as nobody, confined) answered is recorded as Python library folders only, never `/`.
  @Test(.enabled("needs root, /usr/bin/unshare and a private mount namespace") { try await canMakeMountNamespace() })
  func aLinkOthersCanChangeOnTheWayIsRefused() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let python = try #require(Self.python)
    let app = try scene.bundle("PyPing", script: "#!/mnt/sysbin/python3\nimport sys\n")

    let control = try #require(try await inNamespace(scene, link: python, ["validate", app.path]))
    #expect(control.code == 0, "\(control)")
    let installed = try #require(try await inNamespace(scene, link: python, ["install", app.path]))
    #expect(installed.code == 0, "\(installed)")
    let profile = try #require(try await inNamespace(scene, link: python, ["sandbox-profile", "PyPing", "--json"]))
    let report = try #require(ScriptExtensionTests.profile(profile), "\(profile)")
    let interpreter = try #require(report["interpreter"] as? [String: Any], "\(profile)")
    #expect(interpreter["realPath"] as? String == python, "\(profile)")
    let folders = try #require(interpreter["libraryFolders"] as? [String], "\(profile)")
    #expect(!folders.isEmpty, "\(profile)")
    for folder in folders {
      #expect(folder.contains("/python3."), "\(folder)")
      #expect(!["/", "/usr", "/usr/lib", "/etc"].contains(folder), "\(folder)")
    }
    let uninstalled = try await scene.host.assistant(["uninstall", "Fixture"])
    #expect(uninstalled.code == 0, "\(uninstalled)")

    let hop = scene.host.directory.file("py").path
    try FileManager.default.createSymbolicLink(atPath: hop, withDestinationPath: python)
    #expect(lchown(hop, 61999, 61999) == 0)
    let validated = try #require(try await inNamespace(scene, link: hop, ["validate", app.path]))
    #expect(validated.code == 65, "\(validated)")
    #expect(validated.stdout.contains("[script-interpreter]"), "\(validated)")
    #expect(validated.stdout.contains("is reached through /tmp, which others can write"), "\(validated)")
    let refused = try #require(try await inNamespace(scene, link: hop, ["install", app.path]))
    #expect(refused.code == 65, "\(refused)")
    #expect(refused.stderr.contains("[script-interpreter]"), "\(refused)")
    #expect(!FileManager.default.fileExists(atPath: scene.host.home + "/Applications/Fixture.app"))
  }

  /// Review 16, finding 2: a `usercustomize.py` planted in the container's user site-packages (`$HOME/.local`) is not
  /// run by a sandboxed launch (PYTHONNOUSERSITE). The control: the same launch without the sandbox (and so without
  /// the launch environment it adds) runs it.
  @Test func userSitePackagesInTheContainerDoNotRun() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let python = try #require(Self.python)
    try await scene.install("PyPing", script: ScriptExtensionTests.python)
    let first = try await scene.host.assistant(["run", "Fixture", "Ping", "value=hello"])
    #expect(first.code == 0, "\(first)")
    let container = scene.host.home + "/Containers/com.example.fixture.PyPing"
    let site = container + "/.local/lib/\((python as NSString).lastPathComponent)/site-packages"
    try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
    let marker = container + "/usercustomize-ran"
    try "import os\nopen(os.path.join(os.environ['HOME'], 'usercustomize-ran'), 'w').close()\n"
      .write(toFile: site + "/usercustomize.py", atomically: true, encoding: .utf8)
    var owner = stat()
    if geteuid() == 0, stat(container, &owner) == 0 {
      // The app's uid owns its container: the planted files are its own, as if it had written them.
      var path = container
      for component in [".local", "lib", (python as NSString).lastPathComponent, "site-packages", "usercustomize.py"] {
        path += "/" + component
        #expect(chown(path, owner.st_uid, owner.st_gid) == 0, "\(path)")
      }
    }

    let sandboxed = try await scene.host.assistant(["run", "Fixture", "Ping", "value=hello"])
    #expect(sandboxed.code == 0, "\(sandboxed)")
    #expect(!FileManager.default.fileExists(atPath: marker), "usercustomize ran in the sandbox")
    let control = try await scene.host.assistant(["run", "Fixture", "Ping", "value=hello", "--no-sandbox"])
    #expect(control.code == 0, "\(control)")
    #expect(FileManager.default.fileExists(atPath: marker), "the control did not run usercustomize: \(control)")
  }

  /// Review 16, finding 4: a folder in place of an executable (searchable, so "executable" to FileManager) is refused
  /// at validate and install; the control is the bundle before the change.
  @Test func aFolderInPlaceOfTheExecutableIsRefused() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let app = try scene.bundle("ShPing", script: ScriptExtensionTests.shell)
    let control = try await scene.host.assistant(["validate", app.path])
    #expect(control.code == 0, "\(control)")
    let executable = app.appendingPathComponent("PlugIns/ShPing.appex/FaultyExtension").path
    try FileManager.default.removeItem(atPath: executable)
    try FileManager.default.createDirectory(atPath: executable, withIntermediateDirectories: false)
    let validated = try await scene.host.assistant(["validate", app.path])
    #expect(validated.code == 65, "\(validated)")
    #expect(validated.stdout.contains("which is a folder, not a file"), "\(validated)")
    let installed = try await scene.host.assistant(["install", app.path])
    #expect(installed.code == 65, "\(installed)")
  }

  /// A shell script that needs a new process (`$(...)`) fails in the sandbox, and the fault says why. The control:
  /// without the sandbox the same script runs (and ends without answering: a fault with no such hint).
  @Test func aShellScriptThatForksGetsAHint() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("ShFork", script: "#!/bin/sh\nnow=$(echo now)\nexit 3\n")
    let refused = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(refused.code == 70, "\(refused)")
    #expect(refused.stderr.contains("the sandbox refuses new processes"), "\(refused)")
    let control = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x", "--no-sandbox"])
    #expect(control.code == 70, "\(control)")
    #expect(control.stderr.contains("exited with status 3"), "\(control)")
    #expect(!control.stderr.contains("the sandbox refuses new processes"), "\(control)")
  }

  /// The ping extension in perl, with the core module JSON::PP (from @INC's folders, granted at install).
  static let perl = #"""
    #!/usr/bin/perl
    use strict; use warnings; use JSON::PP;
    $| = 1;
    my $json = JSON::PP->new->canonical;
    while (my $line = <STDIN>) {
      my $request = $json->decode($line);
      my $method = $request->{method} // "";
      exit 0 if $method eq "exit";
      next unless exists $request->{id};
      my $result = {};
      $result = {protocolVersion => 1, implementation => "ping.pl"} if $method eq "initialize";
      $result = {kind => "success"} if $method eq "intent/resolve";
      $result = {code => "ready", parameters => {}} if $method eq "intent/confirm";
      if ($method eq "intent/handle") {
        my $read = open(my $file, "<", "/etc/hostname") ? "read" : "refused";
        $result = {code => "success", parameters => {value => {type => "string", value => "perl $read"}}};
      }
      print $json->encode({jsonrpc => "2.0", id => $request->{id}, result => $result}), "\n";
    }
    """#

  /// A perl extension runs sandboxed: its core modules import from the folders of @INC recorded at install (each
  /// shaped like a perl library folder), and it cannot read /etc/hostname; the control, without the sandbox, can.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/perl")))
  func aPerlScriptRunsSandboxed() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    try await scene.install("PlPing", script: Self.perl)
    let ran = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x"])
    #expect(ran.code == 0, "\(ran)")
    #expect(ran.stdout == "Got perl refused.\n", "\(ran)")
    let control = try await scene.host.assistant(["run", "Fixture", "Ping", "value=x", "--no-sandbox"])
    #expect(control.stdout == "Got perl read.\n", "\(control)")
    let profile = try await scene.host.assistant(["sandbox-profile", "PlPing", "--json"])
    let report = try #require(ScriptExtensionTests.profile(profile), "\(profile)")
    let interpreter = try #require(report["interpreter"] as? [String: Any], "\(profile)")
    let folders = try #require(interpreter["libraryFolders"] as? [String], "\(profile)")
    #expect(!folders.isEmpty, "\(profile)")
    #expect(
      folders.allSatisfy { $0.contains("perl") && !["/", "/usr", "/usr/lib", "/etc"].contains($0) }, "\(folders)")
  }
}
