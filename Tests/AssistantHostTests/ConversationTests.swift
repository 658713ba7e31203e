import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

/// `TerminalConversation` on pipes: questions on the prompts' stream, dialog on its own, answers read from input.
/// The end-to-end counterpart, on a real pseudo-terminal, is EndToEndTests/TerminalEndToEndTests.swift.
@Suite(.tags(.process))
struct ConversationTests {
  /// A conversation whose three streams are pipes held by the test.
  final class Rig: Sendable {
    let prompts: (read: FileDescriptor, write: FileDescriptor)
    let dialog: (read: FileDescriptor, write: FileDescriptor)
    let input: (read: FileDescriptor, write: FileDescriptor)
    /// The descriptors not closed yet: each is closed once (a number closed twice may be another test's by then).
    private let open: Mutex<Set<FileDescriptor>>

    init() throws {
      prompts = try FileDescriptor.pipe()
      dialog = try FileDescriptor.pipe()
      input = try FileDescriptor.pipe()
      open = Mutex(
        [prompts.read, prompts.write, dialog.read, dialog.write, input.read, input.write])
    }

    func conversation(answers: [String] = [], interactive: Bool) -> TerminalConversation {
      TerminalConversation(
        answers: answers, interactive: interactive, prompts: .descriptor(prompts.write), dialog: dialog.write,
        input: input.read)
    }

    func close(_ fd: FileDescriptor) {
      if open.withLock({ $0.remove(fd) }) != nil { fd.close() }
    }

    /// Types `text` (small: a pipe holds it without a reader) and, with `end`, closes the input.
    func type(_ text: String, end: Bool = false) throws {
      try input.write.writeAll(Array(text.utf8))
      if end { close(input.write) }
    }

    /// Everything written to the prompts' and the dialog's streams; closes them. Reads off the pool.
    func written() async throws -> (prompts: String, dialog: String) {
      close(prompts.write)
      close(dialog.write)
      return try await offThePool { () throws(SystemError) in
        (
          String(decoding: try self.prompts.read.readAll(limit: 1 << 20), as: UTF8.self),
          String(decoding: try self.dialog.read.readAll(limit: 1 << 20), as: UTF8.self)
        )
      }
    }

    deinit {
      for fd in open.withLock({ $0 }) { fd.close() }
    }
  }

  @Test func aScriptedAnswerIsEchoedWithTheQuestionAndDialogStaysApart() async throws {
    let rig = try Rig()
    let conversation = rig.conversation(answers: ["Ada"], interactive: false)
    let answer = try await conversation.ask("Who is the booking for?", need: "Booked by")
    await conversation.say("Room 3 is now booked by Ada.")
    await conversation.show(
      ConfiguredView(success: true, parameters: [], size: .zero, snippet: .text("Room 3")), from: "RoomsUI")
    #expect(answer == "Ada")
    let (prompts, dialog) = try await rig.written()
    #expect(prompts == "Who is the booking for? Ada\n")
    #expect(dialog == "Room 3 is now booked by Ada.\n[RoomsUI]\n  Room 3\n")
  }

  @Test func aPersonAnswersOnTheInputAfterThePrompt() async throws {
    let rig = try Rig()
    let conversation = rig.conversation(interactive: true)
    try rig.type("Grace\n")
    let answer = try await conversation.ask("Who is the booking for?", need: "Booked by")
    #expect(answer == "Grace")
    let (prompts, dialog) = try await rig.written()
    #expect(prompts == "Who is the booking for? ")  // the person's Enter ends the line on a terminal
    #expect(dialog.isEmpty)
  }

  @Test func endOfInputEndsThePromptLineBeforeTheError() async throws {
    let rig = try Rig()
    let conversation = rig.conversation(interactive: true)
    try rig.type("", end: true)
    do {
      _ = try await conversation.ask("Who is the booking for?", need: "Booked by")
      Issue.record("end of input should be an error")
    } catch let error as HostError {
      #expect(error.status == .valueNeeded)
      #expect(error.message.hasSuffix("but input ended"), "\(error)")
    }
    let (prompts, dialog) = try await rig.written()
    #expect(prompts == "Who is the booking for? \n")
    #expect(dialog.isEmpty)
  }

  /// With nobody at the terminal, nothing is asked and nothing is read: the input's line is still there after.
  @Test func withoutATerminalNothingIsAskedOrRead() async throws {
    let rig = try Rig()
    let conversation = rig.conversation(interactive: false)
    try rig.type("Mallory\n")
    await #expect(throws: HostError.self) {
      _ = try await conversation.ask("Who is the booking for?", need: "Booked by")
    }
    // Control: the same input, read by an interactive conversation, gives the line that was left unread.
    let reader = rig.conversation(interactive: true)
    #expect(try await reader.ask("Who?", need: "Booked by") == "Mallory")
    let (prompts, _) = try await rig.written()
    #expect(prompts == "Who? ")  // the control's prompt only
  }

  @Test func aPromptIsShownSanitizedOnOneLine() async throws {
    let rig = try Rig()
    let conversation = rig.conversation(answers: ["x\u{1B}[2J"], interactive: false)
    _ = try await conversation.ask("Who\n\u{1B}[31mis it?", need: "Booked by")
    let (prompts, _) = try await rig.written()
    #expect(!prompts.contains("\u{1B}"), "\(prompts)")
    #expect(prompts.split(separator: "\n").count == 1, "\(prompts)")
  }
}
