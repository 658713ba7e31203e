import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

/// Hostile extensions run through the real host. Each attack is refused under the sandbox, and the same fixture
/// with `--no-sandbox` is the control that shows the attack working, so every test can fail. The other app's
/// group, the host's state and the user's files are checked unchanged, and no child outlives a test.
@Suite(.serialized, .tags(.endToEnd))
struct HostileExtensionTests {
  /// A host with the secrets an attacker wants: another app's group document, a host state file, a user's key.
  struct Scene {
    let host: HostFixture
    /// The uid the host runs as when this test process is root and the scene asks for an ordinary user; nil runs it
    /// as this process's user.
    let user: uid_t?
    var otherGroupFile: String { host.groups + "/group.com.example.other/secret.json" }
    var stateFile: String { host.home + "/State/secret-state.json" }
    var userFile: String { host.directory.file("user-home/.ssh/id_rsa").path }
    var outsideFile: String { host.directory.file("outside.txt").path }

    /// - Parameter ordinaryUser: run the host as an ordinary user (as `ordinaryUID` through `setpriv` when the tests
    ///   run as root), so its extensions share its uid and only seccomp and Landlock stand between them and the
    ///   host: the case the process-level rules are for.
    init(ordinaryUser: Bool = false) throws {
      host = try HostFixture()
      user = ordinaryUser && geteuid() == 0 ? HostileExtensionTests.ordinaryUID : nil
      for (path, text) in [
        (otherGroupFile, "{\"owner\":\"other\"}"), (stateFile, "host state"), (userFile, "PRIVATE KEY"),
      ] {
        try FileManager.default.createDirectory(
          atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
      }
      if let user { give(host.directory.path, to: user) }
    }

    /// Runs the assistant as `HostFixture.assistant` does, as `user` when there is one.
    func assistant(
      _ arguments: [String], environment extra: [String: String] = [:], onStart: (@Sendable (pid_t) -> Void)? = nil
    ) async throws -> CommandResult {
      guard let user else { return try await host.assistant(arguments, environment: extra, onStart: onStart) }
      var environment = ProcessInfo.processInfo.environment
      environment["ASSISTANT_APP_GROUPS"] = host.groups
      environment.merge(extra) { _, new in new }
      return try await runCommand(
        "/usr/bin/setpriv",
        [
          "--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--", PackagePaths.executable("assistant"), "--home",
          host.home,
        ] + arguments, environment: environment, onStart: onStart)
    }

    /// The fixture's processes still alive: those named `name` working in this scene's directory (other test runs
    /// on the machine start the same fixtures in theirs).
    func survivors(_ name: String) -> [Int32] { livingProcesses(named: name, under: host.directory.path) }

    func snapshot() -> [String: String] {
      var files: [String: String] = [:]
      for path in [otherGroupFile, stateFile, userFile] {
        files[path] = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<missing>"
      }
      for directory in [host.groups + "/group.com.example.other", host.directory.file("user-home").path] {
        files[directory] = ((try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? []).sorted()
          .joined(separator: ",")
      }
      files["outside"] = FileManager.default.fileExists(atPath: outsideFile) ? "exists" : "absent"
      return files
    }

    /// Installs Fixture.app whose extension runs `attack`, and asks it to handle Ping with `value`. Waits off the
    /// cooperative pool.
    func run(_ attack: String, _ value: String, _ options: [String] = []) async throws -> CommandResult {
      try await install(attack)
      return try await assistant(options + ["run", "Fixture", "Ping", "value=\(value)"])
    }

    /// Installs Fixture.app whose extension runs `attack` (with `groups` in its entitlements).
    func install(_ attack: String, groups: [String] = []) async throws {
      let app = try TestBundles.fixture(
        extensionName: attack, binary: "HostileExtension", in: host.directory.file("bundles"))
      if !groups.isEmpty {
        try writePlist(
          ["com.apple.security.application-groups": groups],
          to: app.appendingPathComponent("PlugIns/\(attack).appex/\(attack).entitlements"))
      }
      if let user { give(app.path, to: user) }
      let installed = try await assistant(["install", app.path])
      #expect(installed.code == 0, "\(installed)")
    }

    /// The extension's private container.
    func container(_ attack: String) -> String { host.home + "/Containers/com.example.fixture.\(attack)" }
  }

  /// The uid of the ordinary user the process-level tests run the host as, when the tests run as root: one no other
  /// process uses, so the controls (which renice every process of the user) touch nothing else.
  static let ordinaryUID: uid_t = 61_234

  /// Runs `attack` sandboxed and unsandboxed; checks the secrets are unchanged after the sandboxed run and that no
  /// process of the fixture remains after either. Waits off the cooperative pool (commands through `runCommand`,
  /// survivors polled with `Task.sleep`).
  func attack(
    _ name: String, _ value: (Scene) -> String, options: [String] = [], ordinaryUser: Bool = false,
    sandboxed: (CommandResult, Scene) -> Void, control: (CommandResult, Scene) -> Void
  ) async throws {
    let scene = try Scene(ordinaryUser: ordinaryUser)
    defer { scene.host.directory.remove() }
    let before = scene.snapshot()
    let refused = try await scene.run(name, value(scene), options)
    sandboxed(refused, scene)
    #expect(scene.snapshot() == before, "the sandboxed \(name) changed something it must not")
    #expect(scene.survivors(name).isEmpty, "left behind: \(scene.survivors(name)) after \(refused)")

    let unconfined = try await scene.run(name, value(scene), options + ["--no-sandbox"])
    #expect(unconfined.stderr.contains("warning: --no-sandbox"), "\(unconfined)")
    control(unconfined, scene)
    // A control may leave children briefly.
    try await eventually(timeout: .seconds(3), interval: .milliseconds(30)) { scene.survivors(name).isEmpty }
    #expect(scene.survivors(name).isEmpty, "left behind: \(scene.survivors(name)) after \(unconfined)")
  }

  func refusedWith(_ error: String) -> (CommandResult, Scene) -> Void {
    { result, _ in
      #expect(result.code == 0, "\(result)")
      #expect(result.stdout.contains("Got refused:"), "\(result)")
      #expect(result.stdout.contains(error), "\(result)")
    }
  }

  func succeeded(_ text: String = "Got done:") -> (CommandResult, Scene) -> Void {
    { result, _ in
      #expect(result.code == 0, "\(result)")
      #expect(result.stdout.contains(text), "\(result)")
    }
  }

  @Test func readingAnotherAppsGroupIsDenied() async throws {
    try await attack(
      "ReadFile", { $0.otherGroupFile }, sandboxed: refusedWith("Permission denied"), control: succeeded())
  }

  @Test func readingTheHostsStateIsDenied() async throws {
    try await attack("ReadFile", { $0.stateFile }, sandboxed: refusedWith("Permission denied"), control: succeeded())
  }

  /// The passcode's hash is host state like any other: no profile grants `<home>/State`, so an extension cannot read
  /// it (to try passcodes offline). The control, unconfined, reads it.
  @Test func readingThePasscodeHashIsDenied() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let set = try await scene.host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n")
    #expect(set.code == 0, "\(set)")
    let file = scene.host.home + "/State/passcode"
    let size = try await offThePool { try Data(contentsOf: URL(fileURLWithPath: file)).count }
    let refused = try await scene.run("ReadFile", file, [])
    refusedWith("Permission denied")(refused, scene)
    let unconfined = try await scene.run("ReadFile", file, ["--no-sandbox"])
    succeeded("Got done: read \(size) bytes of \(file)")(unconfined, scene)
    try await eventually(timeout: .seconds(3), interval: .milliseconds(30)) { scene.survivors("ReadFile").isEmpty }
  }

  @Test func readingTheUsersFilesIsDenied() async throws {
    try await attack("ReadFile", { $0.userFile }, sandboxed: refusedWith("Permission denied"), control: succeeded())
  }

  @Test func readingThroughProcSelfRootIsDenied() async throws {
    try await attack(
      "ReadFile", { "/proc/self/root" + $0.stateFile }, sandboxed: refusedWith("Permission denied"),
      control: succeeded())
  }

  /// As root, the host runs the extension as the app's own uid, so /proc does not show it the host's environment.
  @Test(.enabled(if: geteuid() == 0, "the uid drop needs a root host"))
  func readingTheHostsEnvironmentIsDenied() async throws {
    try await attack(
      "ReadHostEnvironment", { _ in "x" }, sandboxed: refusedWith("Permission denied"), control: succeeded())
  }

  @Test func aKernelWithoutLandlockIsRefusedUnlessNoSandbox() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let app = try TestBundles.fixture(
      extensionName: "ReadFile", binary: "HostileExtension", in: scene.host.directory.file("b"))
    #expect(try await scene.host.assistant(["install", app.path]).code == 0)
    let refused = try await scene.host.assistant(
      ["--simulate", "no-landlock", "run", "Fixture", "Ping", "value=\(scene.stateFile)"])
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("this kernel has no Landlock"), "\(refused)")
    #expect(refused.stderr.contains("--no-sandbox"), "\(refused)")
    #expect(scene.survivors("ReadFile").isEmpty)
    let unconfined = try await scene.host.assistant(
      ["--simulate", "no-landlock", "--no-sandbox", "run", "Fixture", "Ping", "value=\(scene.stateFile)"])
    #expect(unconfined.code == 0, "\(unconfined)")
    #expect(unconfined.stderr.contains("warning: --no-sandbox"))
  }

  @Test func writingOutsideTheContainerIsDenied() async throws {
    try await attack(
      "WriteFile", { $0.outsideFile }, sandboxed: refusedWith("Permission denied"),
      control: { result, scene in
        #expect(result.stdout.contains("Got done: wrote"), "\(result)")
        #expect(FileManager.default.fileExists(atPath: scene.outsideFile))
      })
  }

  @Test func tcpToTheHostsListenerIsDenied() async throws {
    let listener = try Listener(.tcp)
    defer { listener.close() }
    try await attack(
      "TCPConnect", { _ in String(listener.port) },
      sandboxed: { result, scene in
        refusedWith("socket")(result, scene)
        #expect(!listener.receivedSomething(), "the listener got a connection")
      },
      control: { result, scene in
        succeeded()(result, scene)
        #expect(listener.receivedSomething())
      })
  }

  @Test func udpToTheHostIsDenied() async throws {
    let listener = try Listener(.udp)
    defer { listener.close() }
    try await attack(
      "UDPSend", { _ in String(listener.port) },
      sandboxed: { result, scene in
        refusedWith("socket")(result, scene)
        #expect(!listener.receivedSomething())
      },
      control: { result, scene in
        succeeded()(result, scene)
        #expect(listener.receivedSomething())
      })
  }

  @Test(arguments: [false, true])
  func unixSocketsOfTheHostAreDenied(abstract: Bool) async throws {
    let listener = try Listener(abstract ? .abstractUnix : .pathUnix)
    defer { listener.close() }
    try await attack(
      "UnixConnect", { _ in listener.unixName },
      sandboxed: { result, scene in
        refusedWith("socket")(result, scene)
        #expect(!listener.receivedSomething())
      },
      control: { result, scene in
        succeeded()(result, scene)
        #expect(listener.receivedSomething())
      })
  }

  @Test func runningAShellIsDenied() async throws {
    try await attack(
      "RunShell", { $0.outsideFile }, sandboxed: refusedWith("execve /bin/sh: Permission denied"),
      control: { result, scene in
        // The shell replaced the extension, wrote its file and exited: a fault for the host, a success for the attack.
        #expect(result.code == 70, "\(result)")
        #expect(FileManager.default.fileExists(atPath: scene.outsideFile))
      })
  }

  @Test func aForkBombIsDenied() async throws {
    try await attack(
      "ForkBomb", { _ in "x" }, sandboxed: refusedWith("fork: Operation not permitted"),
      control: succeeded("Got done: forked"))
  }

  @Test func fiveHundredMegabytesIsKilledForMemory() async throws {
    try await attack(
      "Allocate", { _ in "500" },
      sandboxed: { result, _ in
        #expect(result.code == 70, "\(result)")
        #expect(
          result.stderr.contains("Allocate (com.example.fixture.Allocate) was killed for using too much memory"),
          "\(result)")
        #expect(result.stderr.contains("limit 30.0 MiB"), "\(result)")
      },
      control: succeeded("Got done: allocated 500 MB"))
  }

  /// Where no cgroup can be made, the host's footprint watchdog enforces the same ceiling.
  @Test func theWatchdogKillsWhenThereIsNoCgroup() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let app = try TestBundles.fixture(
      extensionName: "Allocate", binary: "HostileExtension", in: scene.host.directory.file("b"))
    #expect(try await scene.host.assistant(["install", app.path]).code == 0)
    let result = try await scene.host.assistant(["--simulate", "no-cgroup", "run", "Fixture", "Ping", "value=500"])
    #expect(result.code == 70, "\(result)")
    #expect(result.stderr.contains("was killed for using too much memory"), "\(result)")
    #expect(result.stderr.contains("footprint watchdog"), "\(result)")
    // Control: a ceiling above what it allocates lets it finish under the same watchdog.
    let roomy = try await scene.host.assistant(
      ["--simulate", "no-cgroup", "--memory-limit", "800", "run", "Fixture", "Ping", "value=100"])
    #expect(roomy.code == 0, "\(roomy)")
    #expect(roomy.stdout.contains("Got done: allocated 100 MB"))
  }

  @Test func spinningIsKilledAtTheCPULimit() async throws {
    try await attack(
      "Spin", { _ in "x" }, options: ["--cpu-limit", "1", "--deadline", "handle=6"],
      sandboxed: { result, _ in
        #expect(result.code == 70, "\(result)")
        #expect(result.stderr.contains("was killed for using more than its CPU time (1 s) (SIGXCPU)"), "\(result)")
      },
      control: { result, _ in
        // Without the limit only the deadline stops it.
        #expect(result.code == 70, "\(result)")
        #expect(result.stderr.contains("did not answer handle of PingIntent within 6 s"), "\(result)")
      })
  }

  @Test func signallingTheHostIsDenied() async throws {
    try await attack(
      "KillHost", { _ in "x" }, sandboxed: refusedWith("Operation not permitted"),
      control: { result, _ in #expect(result.status == .signalled(SIGKILL), "\(result)") })
  }

  @Test func tracingTheHostIsDenied() async throws {
    try await attack(
      "TraceHost", { _ in "x" }, sandboxed: refusedWith("Operation not permitted"),
      control: succeeded("Got done: attached to the host"))
  }

  @Test func ioUringIsDenied() async throws {
    try await attack("IOUring", { _ in "x" }, sandboxed: refusedWith("Operation not permitted"), control: succeeded())
  }

  /// Also with the host as an ordinary user, whose extension has a user namespace of its own (and all capabilities
  /// in it until its exec): the hard limits still hold.
  @Test(arguments: [false, true])
  func raisingItsOwnLimitsIsDenied(ordinaryUser: Bool) async throws {
    try await attack(
      "RaiseLimit", { _ in "x" }, ordinaryUser: ordinaryUser, sandboxed: refusedWith("Operation not permitted"),
      control: succeeded())
  }

  @Test func onlyStandardDescriptorsAreInherited() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    // The test process holds a descriptor open (not close-on-exec) that a careless spawn would leak.
    let leak = open(scene.stateFile, O_RDONLY)
    defer { close(leak) }
    for options in [[], ["--no-sandbox"]] {
      let result = try await scene.run("FileDescriptors", "x", options)
      #expect(result.stdout.contains("Got done: open fds 0,1,2."), "\(result)")
    }
  }

  @Test func aHugeLineOnStdoutIsRefused() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let result = try await scene.run("HugeLine", "x")
    #expect(result.code == 70, "\(result)")
    #expect(result.stderr.contains("longer than the 4194304-byte message limit"), "\(result)")
    #expect(scene.survivors("HugeLine").isEmpty)
  }

  @Test func closingStdoutAndLingeringIsKilled() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let result = try await scene.run("CloseStdout", "x")
    #expect(result.code == 70, "\(result)")
    #expect(
      result.stderr.contains(
        "closed its output during handle of PingIntent without answering, kept running, and was killed"), "\(result)")
    #expect(scene.survivors("CloseStdout").isEmpty)
  }

  @Test func floodingStderrIsCappedInTheLog() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let result = try await scene.run("FloodStderr", "x")
    #expect(result.code == 0, "\(result)")
    let log = scene.host.home + "/Logs/com.example.fixture.FloodStderr.log"
    let size = (try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
    #expect(size < (1 << 20) + 4096, "the log grew to \(size) bytes")
    let text = try String(contentsOfFile: log, encoding: .utf8)
    #expect(
      text.contains("\n--- host: stderr beyond 1048576 bytes not logged\n"),
      "log of \(size) bytes ends: \(text.suffix(300))")
    // Every line between the host's start and end lines is one the extension wrote, marked as such.
    let lines = text.split(separator: "\n")
    #expect(lines.count > 2 && lines.dropFirst().allSatisfy { $0.hasPrefix("| ") || $0.hasPrefix("--- ") })
  }

  // MARK: Process-level reach (the host as an ordinary user: the extension then has the host's uid)

  @Test func limitingTheHostsCPUIsDenied() async throws {
    try await attack(
      "LimitHost", { _ in "x" }, ordinaryUser: true,
      sandboxed: refusedWith("prlimit host"),
      control: succeeded("Got done: the host's CPU limit is now 1 s"))
  }

  @Test func renicingTheUsersProcessesIsDenied() async throws {
    try await attack(
      "ReniceUser", { _ in "x" }, ordinaryUser: true,
      sandboxed: refusedWith("setpriority PRIO_USER: Operation not permitted"),
      control: succeeded("Got done: reniced its user; the host's nice value is now 5"))
  }

  /// The extension clears its parent-death signal and stays; the host is SIGKILLed. Sandboxed, the prctl is
  /// refused and the extension dies with the host; the control (--no-sandbox) clears it and outlives the host.
  @Test func clearingTheParentDeathSignalCannotOutliveTheHost() async throws {
    for sandboxed in [true, false] {
      let scene = try Scene(ordinaryUser: true)
      defer { scene.host.directory.remove() }
      try await scene.install("KeepAfterHost")
      let report = scene.container("KeepAfterHost") + "/death-signal"
      let host = Mutex<pid_t>(0)
      async let ended = scene.assistant(
        (sandboxed ? [] : ["--no-sandbox"]) + ["run", "Fixture", "Ping", "value=x"],
        onStart: { pid in host.withLock { $0 = pid } })
      let reported = try await eventually(timeout: .seconds(20)) { FileManager.default.fileExists(atPath: report) }
      #expect(reported, "the extension never said how clearing its parent-death signal went")
      kill(host.withLock { $0 }, SIGKILL)
      let result = try await ended
      #expect(result.status == .signalled(SIGKILL), "\(result)")
      let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
      if sandboxed {
        #expect(text.contains("refused: prctl PR_SET_PDEATHSIG: Operation not permitted"), "\(text)")
        let gone = try await eventually(timeout: .seconds(3)) { scene.survivors("KeepAfterHost").isEmpty }
        #expect(gone, "outlived the host: \(scene.survivors("KeepAfterHost"))")
      } else {
        #expect(text.contains("done: the parent-death signal is now 0"), "\(text)")
        try await Task.sleep(for: .milliseconds(300))
        let left = scene.survivors("KeepAfterHost")
        #expect(!left.isEmpty, "the control should outlive its host")
        for pid in left { kill(pid, SIGKILL) }
        let gone = try await eventually(timeout: .seconds(3)) { scene.survivors("KeepAfterHost").isEmpty }
        #expect(gone)
      }
    }
  }

  /// A thousand threads stop at the cap of 64 wherever the host runs: RLIMIT_NPROC in a user namespace of the
  /// extension's own (an ordinary user), or the watchdog's kill (an ordinary user on a kernel without unprivileged
  /// user namespaces). The mechanisms of a root host: `aThousandThreadsStopAtTheCapOfARootHost`.
  @Test(arguments: ["namespace", "watchdog"])
  func aThousandThreadsStopAtTheCap(mechanism: String) async throws {
    try await thousandThreads(mechanism: mechanism)
  }

  /// A thousand threads stop at the cap of 64 on a root host: the cgroup's pids.max, or RLIMIT_NPROC of the app's
  /// own uid (root without a cgroup).
  @Test(.enabled(if: geteuid() == 0, "the root mechanisms need a root host"), arguments: ["cgroup", "uid"])
  func aThousandThreadsStopAtTheCapOfARootHost(mechanism: String) async throws {
    try await thousandThreads(mechanism: mechanism)
  }

  /// Runs the Threads attack (1000 threads) through `mechanism`, and the unconfined control.
  func thousandThreads(mechanism: String) async throws {
    let ordinary = ["namespace", "watchdog"].contains(mechanism)
    let simulated: [String] =
      switch mechanism {
      case "uid": ["--simulate", "no-cgroup"]
      case "watchdog": ["--simulate", "no-user-namespace"]
      default: []
      }
    let scene = try Scene(ordinaryUser: ordinary)
    defer { scene.host.directory.remove() }
    let capped = try await scene.run("Threads", "1000", simulated)
    if mechanism == "watchdog" {
      #expect(capped.code == 70, "\(capped)")
      #expect(capped.stderr.contains("was killed for running more than 64 threads"), "\(capped)")
    } else {
      refusedWith("Resource temporarily unavailable")(capped, scene)
      let started = capped.stdout.split(separator: " ").drop { $0 != "after" }.dropFirst().first.flatMap { Int($0) }
      #expect((started ?? 1000) < 64, "\(capped)")
    }
    #expect(scene.survivors("Threads").isEmpty)
    let unconfined = try await scene.run("Threads", "1000", simulated + ["--no-sandbox"])
    succeeded("Got done: started 1000 threads")(unconfined, scene)
  }

  // MARK: Bounds

  /// A flood of notifications ends the session as a protocol violation, one line, exit 70, long before it could
  /// pile up in the host; the control sends as many as the budget allows and is answered.
  @Test func aNotificationFloodIsAProtocolViolation() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let flood = try await scene.run("NotificationFlood", "1000000")
    #expect(flood.code == 70, "\(flood)")
    #expect(
      flood.stderr.contains(
        "NotificationFlood (com.example.fixture.NotificationFlood) broke the protocol during handle of PingIntent: "
          + "it sent more than 16 messages of its own"), "\(flood)")
    #expect(flood.stderr.split(separator: "\n").count == 1, "\(flood)")
    #expect(scene.survivors("NotificationFlood").isEmpty)
    let withinBudget = try await scene.run("NotificationFlood", "16")
    succeeded("Got done: sent 16 notifications")(withinBudget, scene)
  }

  /// A launch that fills its container (past the bytes or the files of the budget) gets to finish; the next launch
  /// is refused, naming the container, what it holds and the fix. The control runs with --no-sandbox, which has no
  /// budget.
  @Test(arguments: ["mib=150", "files=10001"])
  func aFullContainerRefusesTheNextLaunch(fill: String) async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    // Writing 10,001 files takes seconds on a loaded machine: a deadline that only a hang reaches.
    let first = try await scene.run("FillContainer", fill, ["--deadline", "handle=120"])
    succeeded("Got done: wrote")(first, scene)
    let refused = try await scene.run("FillContainer", "files=1")
    #expect(refused.code == 77, "\(refused)")
    #expect(
      refused.stderr.contains(
        "FillContainer (com.example.fixture.FillContainer) was not run: its container \(scene.container("FillContainer")) "
          + "holds at least"), "\(refused)")
    #expect(refused.stderr.contains("over its storage budget of 128 MiB and 10000 files"), "\(refused)")
    #expect(refused.stderr.contains("--storage-limit"), "\(refused)")
    #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused)")
    #expect(scene.survivors("FillContainer").isEmpty)
    let unconfined = try await scene.run("FillContainer", "files=1", ["--no-sandbox"])
    succeeded("Got done: wrote 1 files")(unconfined, scene)
    // A larger budget lets it run again.
    let roomy = try await scene.run("FillContainer", "files=1", ["--storage-limit", "1024,100000"])
    succeeded("Got done: wrote 1 files")(roomy, scene)
  }

  /// The same budget holds for each app group the extension's entitlements list.
  @Test func aFullAppGroupRefusesTheNextLaunch() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let group = "group.com.example.fixture"
    try await scene.install("FillContainer", groups: [group])
    let first = try await scene.assistant(
      ["--deadline", "handle=120", "run", "Fixture", "Ping", "value=group:files=10001"])
    succeeded("Got done: wrote 10001 files")(first, scene)
    let refused = try await scene.assistant(["run", "Fixture", "Ping", "value=files=1"])
    #expect(refused.code == 77, "\(refused)")
    #expect(
      refused.stderr.contains("its app group \(group) \(scene.host.groups)/\(group) holds at least"), "\(refused)")
    let profile = try await scene.assistant(["sandbox-profile", "FillContainer"])
    #expect(profile.stdout.contains("app group \(group): at least"), "\(profile)")
    #expect(profile.stdout.contains("(over: the next launch is refused)"), "\(profile)")
  }

  @Test func sandboxProfileShowsTheRules() async throws {
    let scene = try Scene()
    defer { scene.host.directory.remove() }
    let app = try TestBundles.fixture(
      extensionName: "ReadFile", binary: "HostileExtension", in: scene.host.directory.file("b"))
    #expect(try await scene.host.assistant(["install", app.path]).code == 0)
    let profile = try await scene.host.assistant(["--deadline", "handle=3", "sandbox-profile", "ReadFile"])
    #expect(profile.code == 0, "\(profile)")
    #expect(profile.stdout.contains("ReadFile (com.example.fixture.ReadFile): Intents extension"))
    #expect(profile.stdout.contains(scene.host.home + "/Containers/com.example.fixture.ReadFile"))
    #expect(profile.stdout.contains("network: denied"))
    #expect(profile.stdout.contains("memory: 30 MiB"))
    #expect(profile.stdout.contains("handle 3 s"))
    #expect(!profile.stdout.contains(scene.host.home + "/State"))
    #expect(profile.stdout.contains("threads and processes: 64 ("), "\(profile)")
    #expect(profile.stdout.contains("storage: 128 MiB and 10000 files for the container"), "\(profile)")
    #expect(profile.stdout.contains("      container: "), "\(profile)")
    // Libraries are granted as files, never as their folders.
    #expect(profile.stdout.contains("/libc.so.6\n"), "\(profile)")
    for folder in ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"] {
      #expect(!profile.stdout.contains("    \(folder)\n"), "\(profile)")
    }
  }
}

/// Makes `uid` the owner of `path` and everything below it (not following links).
func give(_ path: String, to uid: uid_t) {
  lchown(path, uid, uid)
  for relative in (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? [] {
    lchown(path + "/" + relative, uid, uid)
  }
}

/// A socket the test listens on, to see whether an extension reached it.
final class Listener: @unchecked Sendable {
  // @unchecked: used by the one test task that made it, never from two tasks at once.
  enum Kind { case tcp, udp, pathUnix, abstractUnix }
  let fd: Int32
  let kind: Kind
  var port: UInt16 = 0
  var unixName = ""

  init(_ kind: Kind) throws {
    self.kind = kind
    switch kind {
    case .tcp, .udp:
      fd = socket(AF_INET, Int32(kind == .tcp ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
      }
      port = UInt16(bigEndian: address.sin_port)
    case .pathUnix, .abstractUnix:
      fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
      unixName =
        kind == .abstractUnix
        ? "@intenthost-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        : NSTemporaryDirectory() + "/intenthost-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
      var address = sockaddr_un()
      address.sun_family = sa_family_t(AF_UNIX)
      let bytes = Array(unixName.utf8)
      withUnsafeMutableBytes(of: &address.sun_path) { path in
        for (index, byte) in bytes.enumerated() where index < path.count { path[index] = byte }
        if kind == .abstractUnix { path[0] = 0 }
      }
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sa_family_t>.size + bytes.count))
        }
      }
      if kind == .pathUnix { chmod(unixName, 0o777) }
    }
    if kind != .udp { listen(fd, 16) }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  /// Whether anything connected or arrived (without waiting).
  func receivedSomething() -> Bool {
    if kind == .udp {
      var buffer = [UInt8](repeating: 0, count: 256)
      return recv(fd, &buffer, buffer.count, 0) > 0
    }
    let client = accept(fd, nil, nil)
    if client >= 0 { Glibc.close(client) }
    return client >= 0
  }

  func close() {
    Glibc.close(fd)
    if kind == .pathUnix { unlink(unixName) }
  }
}
