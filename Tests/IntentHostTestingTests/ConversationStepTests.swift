import ExtensionProtocol
import IntentHostTesting
import TestSupport
import Testing

/// Stepped conversations: the engine waits at each question until the test answers it, over the engine's
/// conversation seam (the one the command line's terminal fills), with the real extensions.
@Suite(.serialized, .tags(.process))
struct ConversationStepTests {
  @Test func eachQuestionIsSeenBeforeItIsAnswered() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let result = try await host.conversation("Book room 14 with Rooms") { siri in
        let question = try await siri.expect("Who is the booking for?", kind: .value)
        #expect(question == .init(prompt: "Who is the booking for?", kind: .value))
        // Nothing is booked while the question waits: the app group has no booking yet.
        await #expect(throws: TestHostError.self) {
          _ = try await host.appGroup("group.com.example.rooms").document("bookings.json")
        }
        try await siri.answer("Ada")
        return try await siri.result()
      }
      #expect(result.status == .success)
      #expect(result.dialog == ["Room 14 is now booked by Ada."])
      #expect(result.parameters["bookedBy"] == .string("Ada"))
      #expect(result.transcript.lines.contains("Who is the booking for? Ada"))
    }
  }

  @Test func aQuestionLeftUnansweredEndsTheRunWithValueNeeded() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      let result = try await host.conversation("Book room 14 with Rooms") { siri in
        try await siri.result()
      }
      #expect(result.status == .valueNeeded)
      #expect(result.questions == ["Who is the booking for?"])
      #expect(result.transcript.lines.contains("Who is the booking for? (not answered)"))

      // A body that throws: the run still ends (its processes stopped) before the error reaches the test.
      struct Stop: Error {}
      await #expect(throws: Stop.self) {
        try await host.conversation("Book room 15 with Rooms") { siri in
          _ = try await siri.nextQuestion()
          throw Stop()
        }
      }
      // The run that ended without an answer booked nothing.
      let free = try await host.say("Book room 15 for Grace with Rooms")
      #expect(free.status == .success)
    }
  }

  @Test func aRunWithoutQuestionsEndsTheStep() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      try await host.conversation("Book room 12 for Ada with Rooms") { siri in
        let error = await #expect(throws: SiriConversation.StepError.self) { try await siri.nextQuestion() }
        #expect(error?.description.contains("Room 12 is now booked by Ada.") == true, "\(String(describing: error))")
        let status = try await siri.result().status
        #expect(status == .success)
      }
    }
  }

  @Test func aWrongPromptIsRecordedAsAnIssue() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      try await host.conversation("Book room 14 with Rooms") { siri in
        try await withKnownIssue {
          try await siri.expect("Which room?")
        } matching: { issue in
          issue.comments.contains { $0.rawValue.contains("not \"Which room?\"") }
        }
        try await siri.answer("Ada")
        let dialog = try await siri.result().dialog
        #expect(dialog == ["Room 14 is now booked by Ada."])
      }
    }
  }

  /// The passcode prompt is a question of its own kind: a locked device asks it before the restricted intent runs.
  @Test func thePasscodeIsEnteredWhenAsked() async throws {
    try await withTestHost { host in
      try await host.installExample("Rooms")
      #expect(try await host.say("Book room 12 for Ada with Rooms").isSuccess)
      try await host.setPasscode("2468")
      try await host.lock()
      let result = try await host.conversation("Open the door of room 12 with Rooms") { siri in
        let question = try await siri.nextQuestion()
        #expect(question.kind == .passcode, "\(question)")
        // A passcode question is not a yes/no question.
        await #expect(throws: SiriConversation.StepError.self) { try await siri.confirm() }
        try await siri.enterPasscode("2468")
        return try await siri.result()
      }
      #expect(result.status == .success, "\(result.transcript)")
      #expect(result.dialog.last == "The door of room 12 is open.")
      #expect(!result.transcript.description.contains("2468"))
      #expect(try await host.deviceStatus().isLocked == false)
    }
  }
}
