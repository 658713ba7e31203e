import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// Grants come from the sandbox's rules, never from the binary: an executable whose ELF headers point outside the
/// trusted library folders and its bundle (`DT_RUNPATH "/"`, an absolute `DT_NEEDED`, a foreign `PT_INTERP`, a
/// relative RUNPATH, an executable that is a link out of its bundle) is refused by `validate`, by `install`, and by a
/// launch of an installed copy changed afterwards. The control shows what the grant it asked for would have given:
/// under Landlock with read on its RUNPATH folder, the same binary reads the user's key.
@Suite(
  .serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "needs a C compiler"),
  .tags(.endToEnd))
struct LibraryGrantTests {
  /// A test directory with the user's secret, and ELF files built with `cc` to ask for what they should not get.
  struct Scene {
    let host: HostFixture
    var secret: String { host.directory.file("user-home/.ssh/id_rsa").path }
    var elves: URL { host.directory.file("elves") }
    /// A library outside every trusted folder, linked by its absolute path (it has no soname).
    var leak: String { elves.appendingPathComponent("lib/libleak.so").path }

    init() throws {
      host = try HostFixture()
      try FileManager.default.createDirectory(
        atPath: (secret as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try "PRIVATE KEY".write(toFile: secret, atomically: true, encoding: .utf8)
      try FileManager.default.createDirectory(
        at: elves.appendingPathComponent("lib"), withIntermediateDirectories: true)
    }

    /// Compiles `reader.c` (prints the file named by its first argument) with `flags` into `elves/NAME`, linked
    /// with `leak` by its absolute path when `withLeak`.
    func build(_ name: String, _ flags: [String], withLeak: Bool = true) async throws -> String {
      let source = elves.appendingPathComponent("reader.c").path
      try """
      #include <fcntl.h>
      #include <stdio.h>
      #include <string.h>
      #include <errno.h>
      #include <unistd.h>
      #ifdef WITH_LEAK
      int leak(void);
      #else
      static int leak(void) { return 0; }
      #endif
      int main(int argc, char **argv) {
        int fd = open(argc > 1 ? argv[1] : "/", O_RDONLY);
        if (fd < 0) { printf("refused: %s\\n", strerror(errno)); return 1; }
        char buffer[256];
        ssize_t count = read(fd, buffer, sizeof buffer - 1);
        buffer[count > 0 ? count : 0] = 0;
        printf("read: %s (leak %d)\\n", buffer, leak());
        return 0;
      }
      """.write(toFile: source, atomically: true, encoding: .utf8)
      var linked: [String] = []
      if withLeak {
        let library = elves.appendingPathComponent("leak.c").path
        try "int leak(void) { return 42; }\n".write(toFile: library, atomically: true, encoding: .utf8)
        let shared = try await runCommand("/usr/bin/cc", ["-shared", "-fPIC", "-o", leak, library])
        #expect(shared.code == 0, "\(shared)")
        linked = ["-DWITH_LEAK", leak]
      }
      let output = elves.appendingPathComponent(name).path
      let built = try await runCommand("/usr/bin/cc", ["-o", output, source] + linked + flags)
      #expect(built.code == 0, "\(built)")
      return output
    }

    /// Fixture.app whose extension `Evil` runs `executable` (copied in), in `bundles/`.
    func bundle(with executable: String) throws -> URL {
      let app = try TestBundles.fixture(
        extensionName: "Evil", binary: "HostileExtension", in: host.directory.file("bundles"))
      let target = app.appendingPathComponent("PlugIns/Evil.appex/FaultyExtension").path
      try FileManager.default.removeItem(atPath: target)
      try FileManager.default.copyItem(atPath: executable, toPath: target)
      return app
    }

    func readelf(_ path: String) async throws -> String {
      try await runCommand("/usr/bin/readelf", ["-d", "-l", path]).stdout
    }
  }

  /// The fixture: DT_RUNPATH "/" and DT_NEEDED with an absolute path outside. Validation and install refuse it
  /// with both rules; the control shows what the old grant (read on the RUNPATH folder) would have given.
  @Test func runpathSlashAndAnAbsoluteNeededAreRefusedByValidateAndInstall() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let evil = try await scene.build("evil", ["-Wl,-rpath,/", "-Wl,--enable-new-dtags"])
    let headers = try await scene.readelf(evil)
    #expect(headers.contains("Library runpath: [/]"), "\(headers)")
    #expect(headers.contains("Shared library: [\(scene.leak)]"), "\(headers)")

    let app = try scene.bundle(with: evil)
    let validated = try await scene.host.assistant(["validate", app.path])
    #expect(validated.code == 65, "\(validated)")
    #expect(validated.stdout.contains("FaultyExtension: DT_RUNPATH[0]: error: \"/\" is outside"), "\(validated)")
    #expect(validated.stdout.contains("[elf-runpath]"), "\(validated)")
    #expect(validated.stdout.contains("DT_NEEDED[0]: error: \"\(scene.leak)\" is outside"), "\(validated)")
    #expect(validated.stdout.contains("[elf-needed]"), "\(validated)")
    #expect(validated.stdout.contains("fix: link with -Wl,-rpath,'$ORIGIN'"), "\(validated)")
    let installed = try await scene.host.assistant(["install", app.path])
    #expect(installed.code == 65, "\(installed)")
    #expect(installed.stderr.contains("[elf-runpath]"), "\(installed)")

    // Control: the same binary under Landlock with the grants its headers asked for (its RUNPATH folder "/" and
    // the library by path) reads the user's key; with the library alone (and the system folders) it cannot.
    let asked = try await runSandboxed(evil, reading: scene.secret, readPaths: ["/", scene.leak], in: scene)
    #expect(asked.contains("read: PRIVATE KEY"), "\(asked)")
    let exact = try await runSandboxed(
      evil, reading: scene.secret, readPaths: ["/lib", "/lib64", "/usr/lib", "/usr/lib64", scene.leak], in: scene)
    #expect(exact.contains("refused: Permission denied"), "\(exact)")
  }

  /// An installed copy changed after validation (or installed by an older host) is refused at launch: exit 77, one
  /// line naming the extension, the ELF entry and the fix, and nothing runs.
  @Test func aLaunchRefusesWhatValidationWouldHave() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let evil = try await scene.build("evil", ["-Wl,-rpath,/", "-Wl,--enable-new-dtags"])
    let app = try TestBundles.fixture(
      extensionName: "Evil", binary: "HostileExtension", in: scene.host.directory.file("bundles"))
    #expect(try await scene.host.assistant(["install", app.path]).code == 0)
    let installed = scene.host.home + "/Applications/Fixture.app/PlugIns/Evil.appex/FaultyExtension"
    try FileManager.default.removeItem(atPath: installed)
    try FileManager.default.copyItem(atPath: evil, toPath: installed)

    let refused = try await scene.host.assistant(["run", "Fixture", "Ping", "value=\(scene.secret)"])
    #expect(refused.code == 77, "\(refused)")
    #expect(
      refused.stderr.contains(
        "assistant: Evil (com.example.fixture.Evil) cannot be sandboxed: \(installed): DT_RUNPATH[0] \"/\" is outside "
          + "the system library folders"), "\(refused)")
    #expect(refused.stderr.contains("link with -Wl,-rpath,'$ORIGIN'"), "\(refused)")
    #expect(refused.stderr.contains("(and 1 more problem; `assistant validate` lists them)"), "\(refused)")
    #expect(refused.stderr.contains("it was not run"), "\(refused)")
    #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused)")
    #expect(!refused.stdout.contains("PRIVATE KEY"))
    #expect(livingProcesses(named: "Evil", under: scene.host.directory.path).isEmpty)
    let profile = try await scene.host.assistant(["sandbox-profile", "Evil"])
    #expect(profile.code == 77, "\(profile)")
  }

  /// Each way a header can point outside has its rule; a clean build of the same program is the control.
  @Test(
    arguments: [
      ("clean", [String](), nil),
      ("interpreter", ["-Wl,--dynamic-linker=/tmp/ld.so"], "[elf-interpreter]"),
      ("relative", ["-Wl,-rpath,lib", "-Wl,--enable-new-dtags"], "is relative to the working directory"),
      ("rpath", ["-Wl,-rpath,/home", "-Wl,--disable-new-dtags"], "DT_RPATH[0]: error: \"/home\" is outside"),
      ("token", ["-Wl,-rpath,$LIB", "-Wl,--enable-new-dtags"], "uses a token other than $ORIGIN"),
      ("dotdot", ["-Wl,-rpath,/usr/lib/../../home", "-Wl,--enable-new-dtags"], "is outside"),
    ] as [(String, [String], String?)])
  func eachWayOutIsARule(name: String, flags: [String], expected: String?) async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let program = try await scene.build(name, flags, withLeak: false)
    let app = try scene.bundle(with: program)
    let validated = try await scene.host.assistant(["validate", app.path])
    if let expected {
      #expect(validated.code == 65, "\(validated)")
      #expect(validated.stdout.contains(expected), "\(validated)")
    } else {
      #expect(!validated.stdout.contains("[elf-"), "\(validated)")
    }
  }

  /// An executable that is a link to a file outside its bundle is refused: its grant would be that file.
  @Test func anExecutableLinkingOutOfTheBundleIsRefused() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let app = try TestBundles.fixture(
      extensionName: "Evil", binary: "HostileExtension", in: scene.host.directory.file("bundles"))
    let executable = app.appendingPathComponent("PlugIns/Evil.appex/FaultyExtension").path
    try FileManager.default.removeItem(atPath: executable)
    try FileManager.default.createSymbolicLink(
      atPath: executable, withDestinationPath: PackagePaths.executable("HostileExtension"))
    let validated = try await scene.host.assistant(["validate", app.path])
    #expect(validated.code == 65, "\(validated)")
    // The bundle-tree check comes first: a bundle holds only regular files and folders.
    #expect(validated.stdout.contains("[bundle-file-kind]"), "\(validated)")
    #expect(validated.stdout.contains("is a symbolic link"), "\(validated)")
  }

  /// Runs `executable FILE` confined by Landlock (and the seccomp filter) with read on `readPaths`, and returns
  /// what it printed.
  func runSandboxed(_ executable: String, reading file: String, readPaths: [String], in scene: Scene) async throws
    -> String
  {
    let output = scene.host.directory.file("sandboxed-\(UInt32.random(in: 0...UInt32.max)).txt").path
    let process = try await offThePool { () throws -> SpawnedProcess in
      let out = try FileDescriptor.open(output, O_WRONLY | O_CREAT | O_TRUNC)
      defer { out.close() }
      let null = try FileDescriptor.open("/dev/null", O_RDWR)
      defer { null.close() }
      var options = SpawnOptions(
        executable: executable, arguments: [executable, file], environment: [:], standardInput: null,
        standardOutput: out, standardError: null)
      options.sandbox = SandboxSpec(
        landlockABI: landlockABI(), executePaths: [executable, "/lib64/ld-linux-x86-64.so.2"], readPaths: readPaths,
        writePaths: [])
      return try spawn(options)
    }
    _ = try await waitForExit(process, timeout: .seconds(30))
    return try await offThePool { try String(contentsOfFile: output, encoding: .utf8) }
  }
}
