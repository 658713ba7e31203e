import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import ProcessSupervision
import UntrustedText

/// Facts about this machine's sandbox support, for messages and `sandbox-profile`.
package enum SandboxReport {
  /// How memory ceilings are enforced here: a cgroup (v1 or v2) when the host can make one, else the watchdog.
  package static func memoryMechanism(simulating kernel: SimulatedKernel) -> String {
    if geteuid() == 0, let version = ControlGroupProbe.version(simulating: kernel) { return "cgroup v\(version)" }
    return "footprint watchdog every 10 ms"
  }

  /// How the thread cap is enforced here: the cgroup's `pids.max`; else RLIMIT_NPROC, of the app's own uid
  /// (`ownUID`, a root host) or inside a user namespace of the child's own (an ordinary host), with the watchdog
  /// as the backstop; the watchdog alone where the kernel refuses unprivileged user namespaces.
  package static func threadMechanism(ownUID: Bool, simulating kernel: SimulatedKernel) -> String {
    if geteuid() == 0, ControlGroupProbe.hasPidsController(simulating: kernel) { return "cgroup pids.max" }
    let watchdog = "the watchdog kills it past the cap, checked every 10 ms"
    if ownUID { return "RLIMIT_NPROC of the app's own uid; \(watchdog)" }
    if ControlGroupProbe.userNamespacesAllowed(simulating: kernel) {
      return "RLIMIT_NPROC in a user namespace of its own, so only its own threads count; \(watchdog)"
    }
    return "\(watchdog) (this kernel refuses unprivileged user namespaces, so RLIMIT_NPROC cannot count its "
      + "threads alone)"
  }
}
