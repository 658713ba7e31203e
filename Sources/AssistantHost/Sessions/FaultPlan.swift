// Faults injected into a run's real extension processes, at a step, for tests of how a flow reads when an extension
// fails: the testing library's fault plans (IntentHostTesting's `FaultPlan`). Nothing of the command line sets one.
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What to do to an extension's process, and when: each fault acts once, on the `occurrence`-th request of `phase`
/// the host sends to the extension (or app) named `target`, just before it is sent. The faults are the operating
/// system's, on the real process, so what follows is the engine's ordinary handling of them:
/// - `crash`: SIGKILL to its process group, and the request meets a closed pipe ("crashed with SIGKILL during ...").
/// - `hang`: SIGSTOP, so it answers nothing; the phase's deadline passes and the host kills it.
/// - `slow(d)`: SIGSTOP, and SIGCONT `d` later (or when the request ends first): it answers late, within the
///   deadline or not.
package struct FaultPlan: Sendable, Equatable {
  package enum Action: Sendable, Equatable {
    case crash, hang
    case slow(Duration)
  }

  package struct Fault: Sendable, Equatable {
    package var action: Action
    package var phase: Phase
    /// The bundle's name (`RoomsIntents`, an app's `Rooms`); nil: any.
    package var target: String?
    /// Which request of the phase to that target, from 1.
    package var occurrence: Int

    package init(_ action: Action, at phase: Phase, in target: String? = nil, occurrence: Int = 1) {
      self.action = action
      self.phase = phase
      self.target = target
      self.occurrence = max(1, occurrence)
    }
  }

  package var faults: [Fault]

  package init(_ faults: [Fault] = []) { self.faults = faults }
}

/// A plan applied to one run: it counts the requests each fault waits for, across the run's sessions.
package final class FaultInjector: Sendable {
  let plan: FaultPlan
  /// Per fault: the requests it has seen; a fault acts when its count reaches its occurrence, once.
  private let seen: Mutex<[Int]>

  package init(_ plan: FaultPlan) {
    self.plan = plan
    seen = Mutex(Array(repeating: 0, count: plan.faults.count))
  }

  /// The action due now, before a request of `phase` to `target`; counts the request for each fault it matches.
  func action(for target: String, phase: Phase) -> FaultPlan.Action? {
    seen.withLock { seen in
      var due: FaultPlan.Action? = nil
      for (index, fault) in plan.faults.enumerated()
      where fault.phase == phase && (fault.target == nil || fault.target == target) {
        seen[index] += 1
        if seen[index] == fault.occurrence && due == nil { due = fault.action }
      }
      return due
    }
  }
}

extension ExtensionSession {
  /// Applies the run's fault plan before a request of `phase` (`what`, for the log), then runs `send`: a `slow`
  /// fault's SIGCONT is sent by a child task that has ended when this returns.
  func withFaults<T: Sendable>(phase: Phase, what: String, _ send: () async throws -> T) async throws -> T {
    guard let action = faults.withLock({ $0 })?.action(for: target.name, phase: phase) else { return try await send() }
    peer.appendToLog("fault plan: \(action) before \(what)")
    switch action {
    case .crash:
      await peer.kill()
      return try await send()
    case .hang:
      peer.signalGroup(SIGSTOP)
      return try await send()
    case .slow(let delay):
      peer.signalGroup(SIGSTOP)
      return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { [peer] in
          try? await Task.sleep(for: delay)
          peer.signalGroup(SIGCONT)
        }
        defer { group.cancelAll() }
        return try await send()
      }
    }
  }
}
