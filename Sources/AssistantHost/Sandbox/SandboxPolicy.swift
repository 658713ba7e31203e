import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import ProcessSupervision
import UntrustedText

/// How the host confines what it launches. The defaults are documented in docs/SANDBOX.md.
package struct SandboxPolicy: Sendable {
  /// The kinds of process, each with its own limits.
  package enum Kind: String, Sendable, CaseIterable {
    case intentsExtension = "Intents extension"
    case intentsUIExtension = "Intents UI extension"
    /// An App Intents extension: an Intents extension's limits.
    case appIntentsExtension = "App Intents extension"
    case app = "app"
  }

  /// The limits of one kind.
  package struct Limits: Sendable, Equatable {
    /// Memory footprint ceiling in bytes (cgroup, else watchdog); Apple's reported figure for Intents extensions is
    /// about 30 MB.
    package var memory: Int
    /// CPU seconds (RLIMIT_CPU soft; SIGKILL one second later).
    package var cpuSeconds: Int
    package var openFiles: Int = 64
    /// Processes and threads (cgroup pids.max).
    package var threads: Int = 64
    package var fileSize: Int = 64 << 20
    /// RLIMIT_DATA, a backstop behind the memory ceiling.
    package var data: Int = 256 << 20
  }

  /// False with `--no-sandbox`: children run unconfined (a warning is printed on every run).
  package var enabled: Bool
  package var limits: [Kind: Limits]
  /// `--storage-limit` of this run: the budget of each container and app group, instead of the home's
  /// (`StorageBudget.effective`), checked before each launch (a volume keeps its size). nil: the home's.
  package var storageLimit: StorageLimit? = nil
  /// What the kernel is taken to lack, for the tests (the hidden `--simulate`): it can only make the host refuse
  /// more or fall back to a weaker mechanism.
  package var simulatedKernel = SimulatedKernel()

  package init(enabled: Bool = true) {
    self.enabled = enabled
    limits = [
      .intentsExtension: Limits(memory: 30 << 20, cpuSeconds: 10),
      .intentsUIExtension: Limits(memory: 30 << 20, cpuSeconds: 10),
      .appIntentsExtension: Limits(memory: 30 << 20, cpuSeconds: 10),
      .app: Limits(memory: 256 << 20, cpuSeconds: 60, openFiles: 256, threads: 256, data: 1 << 30),
    ]
  }

  /// Sets the memory ceiling of every extension kind (`--memory-limit MIB`).
  package mutating func setExtensionMemory(megabytes: Int) {
    for kind in [Kind.intentsExtension, .intentsUIExtension, .appIntentsExtension] {
      limits[kind]?.memory = megabytes << 20
    }
  }

  /// Sets the CPU time of every extension kind (`--cpu-limit SECONDS`).
  package mutating func setExtensionCPU(seconds: Int) {
    for kind in [Kind.intentsExtension, .intentsUIExtension, .appIntentsExtension] {
      limits[kind]?.cpuSeconds = seconds
    }
  }

  /// The Landlock ABI to use.
  /// - Throws: `HostError(.refused)` when the sandbox is on but the kernel cannot provide it.
  package func landlockABI() throws -> Int32 {
    #if os(Linux)
      // `--simulate no-landlock` makes this host act as on a kernel without Landlock (for the test of the refusal),
      // `--simulate landlock-abi=N` as on one offering ABI N at most (for the tests of what needs a newer one):
      // either can only lower the ABI, so make the host refuse more.
      let abi = simulatedKernel.landlockABI(offered: IntentHostSystem.landlockABI())
      if abi > 0 { return abi }
      throw HostError(
        .refused,
        "this kernel has no Landlock (needed to sandbox extensions; Linux 5.13 or later with landlock in the lsm= "
          + "boot list); refusing to run extensions unconfined. Pass --no-sandbox to run them anyway, unsafely")
    #else
      throw HostError(
        .refused, "sandboxing needs Linux (Landlock and seccomp); pass --no-sandbox to run extensions unconfined")
    #endif
  }

  /// The line `--no-sandbox` prints on every run.
  package static let warning =
    "assistant: warning: --no-sandbox: extensions and apps run unconfined, with the host's user and no limits"
}

extension AssistantHome {
}
