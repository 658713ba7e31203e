// How the engine's tests see Understanding: as the engine does.
//
// ConversationFindingsTests, ReviewSixteenTests and ShortcutReviewTests use Understanding's API without importing
// it (another branch of issue 25 renames them); the re-export lets them build until they import it themselves.

import AssistantHost
@_exported import Understanding

extension UnderstandingError {
  /// The exit status the assistant gives this error (`HostError.init(_:)`), for the tests that pin it.
  var status: ExitStatus { HostError(self).status }

  /// The line the assistant prints for this error (`HostError.printed`).
  var printed: String { HostError(self).printed }
}
