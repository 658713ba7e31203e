import ProcessSupervision
import TestSupport
import Testing

/// The kernel facts of `assistant --simulate`: each spelling sets its fact, an unknown one is refused, and each
/// only takes a capability away (the Landlock ABI never rises, a probe never says yes where the kernel says no).
@Suite(.tags(.unit))
struct SimulatedKernelTests {
  @Test func eachFactIsSetBySpelling() {
    var kernel = SimulatedKernel()
    #expect(kernel == SimulatedKernel())
    for fact in ["no-landlock", "no-cgroup", "no-user-namespace", "landlock-abi=2"] {
      let known = kernel.simulate(fact)
      #expect(known, "\(fact)")
    }
    #expect(kernel.noLandlock && kernel.noControlGroups && kernel.noUserNamespaces)
    #expect(kernel.landlockABICeiling == 2)
    let again = kernel.simulate("landlock-abi=5")
    #expect(again)
    #expect(kernel.landlockABICeiling == 2, "a second ceiling never raises the first")
  }

  @Test(arguments: ["", "no-seccomp", "landlock-abi=", "landlock-abi=three", "NO-CGROUP", "no-cgroup=1"])
  func anUnknownFactIsRefused(_ fact: String) {
    var kernel = SimulatedKernel()
    let known = kernel.simulate(fact)
    #expect(!known)
    #expect(kernel == SimulatedKernel())
  }

  @Test func theLandlockABIOnlyGoesDown() {
    #expect(SimulatedKernel().landlockABI(offered: 6) == 6)  // the control: the kernel's own
    #expect(SimulatedKernel().landlockABI(offered: 0) == 0)
    var old = SimulatedKernel()
    _ = old.simulate("landlock-abi=3")
    #expect(old.landlockABI(offered: 6) == 3)
    #expect(old.landlockABI(offered: 2) == 2, "never above what the kernel offers")
    var negative = SimulatedKernel()
    _ = negative.simulate("landlock-abi=-1")
    #expect(negative.landlockABI(offered: 6) == 0)
    var none = SimulatedKernel()
    _ = none.simulate("no-landlock")
    #expect(none.landlockABI(offered: 6) == 0)
  }

  @Test func theProbesSayNoWhenSimulated() {
    var kernel = SimulatedKernel()
    _ = kernel.simulate("no-cgroup")
    _ = kernel.simulate("no-user-namespace")
    #expect(ControlGroupProbe.version(simulating: kernel) == nil)
    #expect(!ControlGroupProbe.hasPidsController(simulating: kernel))
    #expect(!ControlGroupProbe.userNamespacesAllowed(simulating: kernel))
    #expect(ControlGroup.create(name: "t", memoryLimit: 1 << 30, processLimit: 64, simulating: kernel) == nil)
  }
}
