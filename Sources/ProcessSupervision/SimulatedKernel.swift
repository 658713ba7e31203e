/// Kernel facts the host acts as if this machine lacked, so that the tests reach the paths a weaker kernel takes:
/// the refusal without Landlock, the footprint watchdog without cgroups, the thread watchdog without unprivileged
/// user namespaces. The tests give them with the hidden option `assistant --simulate FACT` (repeatable); nothing
/// reads them from the environment. Each one only takes a capability away: the host refuses more or falls back to
/// a weaker mechanism, never confines less than the real kernel would let it.
public struct SimulatedKernel: Sendable, Equatable {
  /// `no-landlock`: the kernel has no Landlock, so a sandboxed launch is refused.
  public var noLandlock = false
  /// `landlock-abi=N`: the kernel offers Landlock ABI N at most (never more than it really does).
  public var landlockABICeiling: Int32? = nil
  /// `no-cgroup`: no control group can be made, so the footprint watchdog enforces the memory ceiling.
  public var noControlGroups = false
  /// `no-user-namespace`: the kernel refuses unprivileged user namespaces, so the thread watchdog caps threads.
  public var noUserNamespaces = false

  /// The real kernel, as it is.
  public init() {}

  /// The facts of `assistant --simulate`, as a usage message lists them.
  public static let factNames = ["no-landlock", "landlock-abi=N", "no-cgroup", "no-user-namespace"]

  /// Adds one fact, as `--simulate` spells it.
  /// - Returns: false when `fact` is none of `factNames` (or its N is not a whole number).
  public mutating func simulate(_ fact: String) -> Bool {
    switch fact {
    case "no-landlock": noLandlock = true
    case "no-cgroup": noControlGroups = true
    case "no-user-namespace": noUserNamespaces = true
    default:
      guard fact.hasPrefix("landlock-abi="), let abi = Int32(fact.dropFirst("landlock-abi=".count)) else {
        return false
      }
      landlockABICeiling = min(landlockABICeiling ?? abi, abi)
    }
    return true
  }

  /// The Landlock ABI the host may use when the kernel offers `offered`: 0 with `noLandlock`, else at most the
  /// ceiling (never below 0, never above `offered`).
  public func landlockABI(offered: Int32) -> Int32 {
    if noLandlock { return 0 }
    guard let ceiling = landlockABICeiling, ceiling < offered else { return offered }
    return max(ceiling, 0)
  }
}
