import IntentHostTesting
import TestSupport
import Testing

/// A failing expectation of a result says what differed, with the transcript; a holding one records nothing.
@Suite(.serialized, .tags(.process))
struct FailureReportTests {
  @Test func aFailingExpectationCarriesTheTranscript() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let result = try await host.say("Book room 12 for Ada with Rooms")
      #expect(result.expect(\.dialog, ["Room 12 is now booked by Ada."]))
      #expect(result.expectSuccess())
      withKnownIssue {
        #expect(result.expect(\.dialog, ["Room 12 is now booked by Grace."]) == false)
      } matching: { issue in
        let text = issue.comments.map(\.rawValue).joined()
        return text.contains("Room 12 is now booked by Grace.") && text.contains("--- transcript\n> Book room 12")
          && text.contains("exit 0 (success)")
      }
      let refused = try await host.say("Book room 12 for Grace with Rooms")
      withKnownIssue {
        refused.expectSuccess()
      } matching: { issue in
        issue.comments.map(\.rawValue).joined().contains("already booked by Ada")
      }
    }
  }
}
