import Foundation
import IntentHostSystem

/// A per-launch control group holding one child: its memory ceiling (no swap) and a process/thread cap, with the
/// counters that tell a memory kill from a crash. cgroup v2 (`memory.max`, `memory.events`) where the unified
/// hierarchy has the memory controller, else cgroup v1 (`memory.limit_in_bytes`, `memory.oom_control`, `pids.max`).
/// Creating one needs write access to the hierarchy (root, or a delegated subtree); without it `create` returns nil
/// and the supervisor watches the child's memory itself.
public struct ControlGroup: Sendable {
  /// The directories of this group (one per v1 controller, or one v2 directory).
  public let directories: [String]
  let memoryDirectory: String
  let version: Int

  /// The `cgroup.procs` files the child writes itself into.
  public var procsFiles: [String] { directories.map { $0 + "/cgroup.procs" } }

  /// Where IntentHost makes its groups, by controller, or nil when this machine offers none we can use.
  static func roots(simulating kernel: SimulatedKernel) -> (version: Int, memory: String, pids: String?)? {
    // `--simulate no-cgroup` acts as a machine without usable cgroups, so the tests reach the watchdog.
    if kernel.noControlGroups { return nil }
    let fm = FileManager.default
    let unified = "/sys/fs/cgroup"
    if let controllers = try? String(contentsOfFile: unified + "/cgroup.controllers", encoding: .utf8),
      controllers.split(separator: " ").contains(where: {
        $0.trimmingCharacters(in: .whitespacesAndNewlines) == "memory"
      })
    {
      return (2, unified + "/intenthost", nil)
    }
    if fm.fileExists(atPath: "/sys/fs/cgroup/memory/memory.limit_in_bytes") {
      let pids = fm.fileExists(atPath: "/sys/fs/cgroup/pids/cgroup.procs") ? "/sys/fs/cgroup/pids/intenthost" : nil
      return (1, "/sys/fs/cgroup/memory/intenthost", pids)
    }
    return nil
  }

  /// Makes a group named `name` with the limits, or nil when none can be made here (or `kernel` says none can).
  public static func create(
    name: String, memoryLimit: Int, processLimit: Int, simulating kernel: SimulatedKernel
  ) -> ControlGroup? {
    guard let roots = roots(simulating: kernel) else { return nil }
    let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
    let leaf = "\(safe)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    func make(_ root: String) -> String? {
      if mkdir(root, 0o755) != 0 && errno != EEXIST { return nil }
      sweep(root)
      let directory = root + "/" + leaf
      return mkdir(directory, 0o755) == 0 ? directory : nil
    }
    if roots.version == 2 {
      // Enable the controllers for our subtree, then make the leaf.
      _ = write("+memory +pids", to: "/sys/fs/cgroup/cgroup.subtree_control")
      guard let directory = make(roots.memory) else { return nil }
      _ = write("+memory +pids", to: roots.memory + "/cgroup.subtree_control")
      guard write(String(memoryLimit), to: directory + "/memory.max") else {
        rmdir(directory)
        return nil
      }
      _ = write("0", to: directory + "/memory.swap.max")
      _ = write(String(processLimit), to: directory + "/pids.max")
      return ControlGroup(directories: [directory], memoryDirectory: directory, version: 2)
    }
    guard let memory = make(roots.memory) else { return nil }
    guard write(String(memoryLimit), to: memory + "/memory.limit_in_bytes") else {
      rmdir(memory)
      return nil
    }
    _ = write(String(memoryLimit), to: memory + "/memory.memsw.limit_in_bytes")  // only with swap accounting
    var directories = [memory]
    if let pidsRoot = roots.pids, let pids = make(pidsRoot) {
      if write(String(processLimit), to: pids + "/pids.max") { directories.append(pids) } else { rmdir(pids) }
    }
    return ControlGroup(directories: directories, memoryDirectory: memory, version: 1)
  }

  /// The most memory the group used, in bytes.
  public func peakMemory() -> Int? {
    let file = version == 2 ? "/memory.peak" : "/memory.max_usage_in_bytes"
    return (try? String(contentsOfFile: memoryDirectory + file, encoding: .utf8))
      .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
  }

  /// How many times the kernel killed a process of the group for memory.
  public func oomKills() -> Int {
    let file = version == 2 ? "/memory.events" : "/memory.oom_control"
    guard let text = try? String(contentsOfFile: memoryDirectory + file, encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("oom_kill ") {
      return Int(line.dropFirst("oom_kill ".count)) ?? 0
    }
    return 0
  }

  /// Removes the group (its processes must be gone).
  public func remove() {
    for directory in directories { rmdir(directory) }
  }

  /// SIGKILLs every process in the group: `cgroup.kill` on cgroup v2, each pid of `cgroup.procs` on v1 (whose
  /// processes cannot fork, so the list cannot grow behind the loop).
  public func killAll() {
    Self.killAll(in: directories)
  }

  static func killAll(in directories: [String]) {
    for directory in directories {
      if write("1", to: directory + "/cgroup.kill") { continue }
      guard let fd = try? FileDescriptor.open(directory + "/cgroup.procs", O_RDONLY) else { continue }
      defer { fd.close() }
      let text = String(decoding: (try? fd.readAll(limit: 1 << 20)) ?? [], as: UTF8.self)
      for pid in text.split(separator: "\n").compactMap({ pid_t($0) }) where pid > 0 { kill(pid, SIGKILL) }
    }
  }

  /// Removes groups left by hosts that died. A group's name carries its host's pid (`NAME-PID-RANDOM`); the groups
  /// of a living host are left alone, since one may be empty only because its child has not joined yet.
  private static func sweep(_ root: String) {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
      let parts = name.split(separator: "-")
      guard parts.count >= 3, let host = pid_t(parts[parts.count - 2]), !processExists(host) else { continue }
      // Its host died without tearing it down: nothing it started may outlive it.
      killAll(in: [root + "/" + name])
      rmdir(root + "/" + name)  // fails, harmlessly, while a killed process is still being reaped
    }
  }

  private static func write(_ text: String, to path: String) -> Bool {
    guard let fd = try? FileDescriptor.open(path, O_WRONLY) else { return false }
    defer { fd.close() }
    return (try? fd.writeAll(Array(text.utf8))) != nil
  }
}

/// What the watchdog reads of a child in one look at `/proc/PID/status`.
public struct ProcessStatus: Sendable, Equatable {
  /// The memory footprint as iOS's jetsam counts it: anonymous and shared-memory pages (`RssAnon + RssShmem`), not
  /// the file-backed pages of its binary and libraries.
  public var footprint: Int
  /// Its threads (`Threads`).
  public var threads: Int

  /// The status of `pid`; nil once the process is gone.
  public static func read(_ pid: pid_t) -> ProcessStatus? {
    guard let fd = try? FileDescriptor.open("/proc/\(pid)/status", O_RDONLY) else { return nil }
    defer { fd.close() }
    guard let bytes = try? fd.readAll(limit: 1 << 16) else { return nil }
    var status = ProcessStatus(footprint: 0, threads: 0)
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      let value = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
      if line.hasPrefix("RssAnon:") || line.hasPrefix("RssShmem:") { status.footprint += value * 1024 }
      if line.hasPrefix("Threads:") { status.threads = Int(line.dropFirst("Threads:".count).trimmed) ?? 0 }
    }
    return status
  }
}

extension Substring {
  fileprivate var trimmed: Substring { drop { $0 == " " || $0 == "\t" } }
}

/// A child's memory footprint (see `ProcessStatus.footprint`); nil once the process is gone.
public func memoryFootprint(of pid: pid_t) -> Int? { ProcessStatus.read(pid)?.footprint }

/// Which cgroup version IntentHost would use on this machine, if any.
public enum ControlGroupProbe {
  public static func version(simulating kernel: SimulatedKernel) -> Int? {
    ControlGroup.roots(simulating: kernel)?.version
  }

  /// Whether the groups IntentHost makes have a `pids.max` (v2 always has the controller with memory; v1 needs the
  /// `pids` hierarchy).
  public static func hasPidsController(simulating kernel: SimulatedKernel) -> Bool {
    guard let roots = ControlGroup.roots(simulating: kernel) else { return false }
    return roots.version == 2 || roots.pids != nil
  }

  /// Whether this kernel lets an ordinary user make a user namespace (the `max_user_namespaces`, Debian's
  /// `unprivileged_userns_clone` and Ubuntu's AppArmor restriction switches).
  public static func userNamespacesAllowed(simulating kernel: SimulatedKernel) -> Bool {
    // `--simulate no-user-namespace` acts as such a kernel, so the tests reach the thread watchdog.
    if kernel.noUserNamespaces { return false }
    func value(_ path: String) -> Int? {
      (try? String(contentsOfFile: path, encoding: .utf8)).flatMap {
        Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
      }
    }
    if let most = value("/proc/sys/user/max_user_namespaces"), most == 0 { return false }
    if value("/proc/sys/kernel/unprivileged_userns_clone") == 0 { return false }
    if value("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1 { return false }
    return true
  }
}
