import AssistantHost

/// Faults the host injects into a run's real extension processes, to test how a flow reads when an extension
/// crashes, hangs or answers late. Each fault acts once, on a step of one extension (or any), just before the host
/// sends that step's request; what follows is the engine's ordinary handling of a real fault, with the exit status
/// and the one-line report the command line gives:
///
/// - `.crash(at:)`: the process is killed (SIGKILL to its process group), as a crash that leaves it no time; the
///   run ends with `.extensionFault` ("crashed with SIGKILL during handle of BookRoomIntent").
/// - `.hang(at:deadline:)`: the process is stopped (SIGSTOP) and answers nothing; the step's deadline (here `deadline`,
///   1 s by default, instead of the engine's 5-30 s) passes, the host kills it, and the run ends with
///   `.extensionFault` ("did not answer handle of BookRoomIntent within 1 s ... and was killed").
/// - `.slow(at:by:)`: the process is stopped and resumed (SIGCONT) after `by`: it answers late, within the deadline
///   (the run goes on) or not.
///
/// ```swift
/// let crashed = try await host.say("Book room 12 for Ada with Rooms", faults: [.crash(at: .handle)])
/// #expect(crashed.status == .extensionFault)
/// #expect(crashed.errorMessage?.contains("crashed with SIGKILL during handle") == true)
///
/// let late = try await host.say("Book room 12 for Ada with Rooms", faults: [.slow(at: .resolve, by: .milliseconds(300))])
/// #expect(late.isSuccess)
/// ```
///
/// The processes are the real ones, in their sandbox: nothing is simulated but the moment. The extension's log
/// (`Logs/` in the host's home) has a line for each fault applied ("fault plan: crash before handle of ...").
public struct FaultPlan: Sendable, Equatable, ExpressibleByArrayLiteral {
  /// A step of an extension's work that has a request, and a deadline.
  public enum Step: String, Sendable, CaseIterable {
    /// `initialize`, as the extension starts.
    case handshake
    /// Each `intent/resolve` of a parameter.
    case resolve
    /// `intent/confirm`.
    case confirm
    /// `intent/handle` (in the extension, or in the app for `handleInApp`).
    case handle
    /// Each `appIntent/perform` of an App Intent.
    case perform
    /// Each `ui/configureView` of an Intents UI extension.
    case ui

    var phase: Phase {
      switch self {
      case .handshake: .handshake
      case .resolve: .resolve
      case .confirm: .confirm
      case .handle: .handle
      case .perform: .perform
      case .ui: .ui
      }
    }
  }

  /// One fault: what happens, at which step of which extension.
  public struct Fault: Sendable, Equatable {
    enum Action: Sendable, Equatable {
      case crash
      case hang(deadline: Duration)
      case slow(Duration)
    }

    let action: Action
    /// The step whose request it comes before.
    public let step: Step
    /// The extension's (or app's) bundle name, `RoomsIntents`; nil: whichever gets the step's request.
    public let extensionName: String?
    /// Which of the step's requests to that extension, from 1 (`resolve` is asked once per parameter).
    public let occurrence: Int

    /// The extension is killed just before the `occurrence`-th request of `step`.
    /// - Parameter extensionName: the bundle's name (`RoomsIntents`, `RoomsUI`, an app's `Rooms`); nil: any.
    public static func crash(at step: Step, in extensionName: String? = nil, occurrence: Int = 1) -> Fault {
      Fault(action: .crash, step: step, extensionName: extensionName, occurrence: max(1, occurrence))
    }

    /// The extension stops answering just before the `occurrence`-th request of `step`, and the step's deadline for
    /// the run becomes `deadline`.
    public static func hang(
      at step: Step, in extensionName: String? = nil, occurrence: Int = 1, deadline: Duration = .seconds(1)
    ) -> Fault {
      Fault(action: .hang(deadline: deadline), step: step, extensionName: extensionName, occurrence: max(1, occurrence))
    }

    /// The extension is stopped just before the `occurrence`-th request of `step` and resumed `delay` later.
    public static func slow(
      at step: Step, in extensionName: String? = nil, occurrence: Int = 1, by delay: Duration
    ) -> Fault {
      Fault(action: .slow(delay), step: step, extensionName: extensionName, occurrence: max(1, occurrence))
    }
  }

  /// The faults, each acting once.
  public var faults: [Fault]

  public init(_ faults: [Fault] = []) { self.faults = faults }

  public init(arrayLiteral faults: Fault...) { self.faults = faults }

  /// Applies the plan to a run's configuration: the engine's faults, and a hang's deadline for its step.
  func apply(to configuration: inout Assistant.Configuration) {
    configuration.faults = AssistantHost.FaultPlan(
      faults.map { fault in
        let action: AssistantHost.FaultPlan.Action
        switch fault.action {
        case .crash: action = .crash
        case .hang(let deadline):
          action = .hang
          configuration.deadlines[fault.step.phase] = deadline
        case .slow(let delay): action = .slow(delay)
        }
        return .init(action, at: fault.step.phase, in: fault.extensionName, occurrence: fault.occurrence)
      })
  }
}
