// What the assistant makes of an `UnderstandingError`, for the engine's tests that pin its exit status and line.

import AssistantHost
import Understanding

extension UnderstandingError {
  /// The exit status the assistant gives this error (`HostError.init(_:)`), for the tests that pin it.
  var status: ExitStatus { HostError(self).status }

  /// The line the assistant prints for this error (`HostError.printed`).
  var printed: String { HostError(self).printed }
}
