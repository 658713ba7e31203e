import BundleManifest
import ExtensionProtocol
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

/// The use cases, in-process (`Assistant`): what an utterance comes to (phrases for a capability question, the user's
/// shortcut before the apps' phrases, "which one?" when two apps answer), running an intent by name, and what is
/// checked after the intent (a scripted answer nobody asked for). The extensions are the driver tests' in-process
/// servers; the user is a script.
@Suite(.serialized)
struct AssistantTests {
  /// The engine over `home`, talking to `user`, its extensions served by `launcher`; no device rules (no device
  /// record is read).
  static func assistant(
    _ home: AssistantHome, _ user: ScriptedUser, _ launcher: any SessionLauncher, recorder: TranscriptRecorder? = nil
  ) -> Assistant {
    var configuration = Assistant.Configuration(home: home, conversation: user)
    configuration.device = .unchecked
    configuration.launcher = launcher
    configuration.recorder = recorder
    return Assistant(configuration)
  }

  /// "What can you do?" answers with every app's phrases, "What can I say to Rooms?" with Rooms' only; neither asks
  /// nor runs anything. The control: an utterance that names an intent runs it.
  @Test func aCapabilityQuestionAnswersWithThePhrasesAndRunsNothing() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let user = ScriptedUser(answers: [])
    let assistant = Self.assistant(rig.home, user, rig.launcher)
    for question in ["What can you do?", "What can I say to Rooms?"] {
      guard case .phrases(let list) = try await assistant.say(question) else {
        Issue.record("\(question) ran an intent")
        continue
      }
      #expect(list.apps.map(\.bundleIdentifier) == ["com.example.rooms"])
      #expect(list.apps[0].phrases.contains { $0.intent == "BookRoomIntent" }, "\(list.apps[0].phrases)")
      #expect(list.shortcuts.isEmpty)
    }
    #expect(user.asked.isEmpty && user.said.isEmpty)
    #expect(rig.launcher.launched.isEmpty)

    guard case .outcome(let outcome) = try await assistant.say("Book room 12 for Ada with Rooms") else {
      Issue.record("a booking was taken for a capability question")
      return
    }
    #expect(outcome.isSuccess)
    #expect(user.said.first == "Room 12 is now booked by Ada.")
    #expect(rig.launcher.launched.sorted() == ["RoomsIntents", "RoomsUI"])
  }

  /// Two apps called Notes answer "Add note with Notes": the user is asked which one, the choices listed with their
  /// bundle ids, and the one chosen runs (its extension, not the other's). An answer that is not one of the numbers
  /// is a usage error (64), and nothing runs.
  @Test(arguments: [("1", "com.example.notes"), ("2", "com.other.notes")])
  func theUserSaysWhichOne(_ answer: String, _ chosen: String) async throws {
    let (directory, home) = try await Self.twoNotesApps()
    defer { directory.remove() }
    let launcher = TargetRecordingLauncher()
    let user = ScriptedUser(answers: [answer])
    let outcome = try await Self.assistant(home, user, launcher).say("Add note with Notes")
    guard case .outcome(let outcome) = outcome else {
      Issue.record("no intent ran")
      return
    }
    #expect(outcome.isSuccess)
    #expect(
      user.explained == [
        "\"Add note with Notes\" could mean:", "  1. AddNoteIntent of Notes (com.example.notes)",
        "  2. AddNoteIntent of Notes (com.other.notes)",
      ])
    #expect(user.asked == ["Which one? (1-2)"])
    #expect(launcher.launchedBundles == ["\(chosen).notesIntents"])
  }

  @Test func anAnswerToWhichOneThatIsNoNumberOfTheListIsAUsageError() async throws {
    let (directory, home) = try await Self.twoNotesApps()
    defer { directory.remove() }
    let launcher = TargetRecordingLauncher()
    for answer in ["3", "the second", "0"] {
      let user = ScriptedUser(answers: [answer])
      let error = await #expect(throws: HostError.self) {
        _ = try await Self.assistant(home, user, launcher).say("Add note with Notes")
      }
      #expect(error?.status == .usage)
      #expect(error?.message == "\"\(answer)\" is not one of 1-2", "\(String(describing: error))")
    }
    #expect(launcher.launchedBundles.isEmpty)
  }

  /// "cancel" to "which one?" runs nothing and ends as the user's cancel ("OK, I won't.", `cancelledByUser`, exit
  /// 1), not as a usage error (64), which the control above keeps for an answer that is no number of the list.
  @Test(arguments: ["cancel", "Never mind", "annuler"])
  func cancellingWhichOneIsTheUsersCancel(_ answer: String) async throws {
    let (directory, home) = try await Self.twoNotesApps()
    defer { directory.remove() }
    let launcher = TargetRecordingLauncher()
    let user = ScriptedUser(answers: [answer])
    guard case .outcome(let outcome) = try await Self.assistant(home, user, launcher).say("Add note with Notes") else {
      Issue.record("no outcome")
      return
    }
    #expect(outcome.code == "cancelledByUser" && !outcome.isSuccess && outcome.dialog == "OK, I won't.")
    #expect(user.said == ["OK, I won't."])
    #expect(user.asked == ["Which one? (1-2)"])
    #expect(launcher.launchedBundles.isEmpty)
  }

  /// A scripted answer nobody asked for ends the use case with 64 once the intent has run (the booking is made), and
  /// names the answer. The control: the same intent without it succeeds.
  @Test func aScriptedAnswerNobodyAskedForIsAnErrorAfterTheRun() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let values = ["roomNumber=12", "bookedBy=Ada"]
    let spare = ScriptedUser(answers: ["Grace"])
    let error = await #expect(throws: HostError.self) {
      _ = try await Self.assistant(rig.home, spare, rig.launcher).run(app: "Rooms", intent: "BookRoom", values: values)
    }
    #expect(error?.status == .usage)
    #expect(
      error?.message
        == "an answer was not used (no question was asked for --answer \"Grace\"); the intent ended with success; "
        + "remove the extra --answer or check which questions were asked", "\(String(describing: error))")
    #expect(rig.launcher.transcript("RoomsIntents").contains("intent/handle"))
    #expect(spare.said.first == "Room 12 is now booked by Ada.")

    let user = ScriptedUser(answers: [])
    let outcome = try await Self.assistant(rig.home, user, rig.launcher).run(
      app: "Rooms", intent: "Book Room", values: values)
    #expect(outcome.isSuccess)
    #expect(outcome.intent == "BookRoomIntent")
    #expect(user.asked.isEmpty)
  }

  /// One of the user's shortcuts runs before the apps' phrases, with its presets, asking what it asks each time; the
  /// transcript has its `shortcut` line, the question and answer, and the intent's answer.
  @Test func aShortcutRunsFirstAndIsRecorded() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let home = rig.home
    let shortcut = try await offThePool { () throws in
      try ShortcutStore(home: home, clock: HostClock(offset: 0)).add(
        ShortcutDraft(
          phrase: "Get me room twelve", app: "com.example.rooms", appName: "Rooms", intentClass: "BookRoomIntent",
          presets: ["roomNumber": .integer(12), "isCancellationOfBooking": .boolean(false)], asks: ["bookedBy"],
          source: Shortcut.Source(kind: .intent)))
    }
    let recorder = TranscriptRecorder()
    let user = ScriptedUser(answers: ["Ada"])
    let answer = try await Self.assistant(home, user, rig.launcher, recorder: recorder).say("get me room twelve!")
    guard case .outcome(let outcome) = answer else {
      Issue.record("no intent ran")
      return
    }
    #expect(outcome.isSuccess)
    #expect(outcome.shortcut?.identifier == shortcut.identifier)
    #expect(user.asked == ["Who is the booking for?"])
    let entries = try recorder.lines.map { try TranscriptEntry(JSON(parsing: Data($0.utf8))) }
    #expect(
      entries.first
        == .shortcut(
          .init(
            identifier: shortcut.identifier, phrase: "Get me room twelve", app: "com.example.rooms",
            intent: "BookRoomIntent",
            presets: try JSON(encoding: shortcut.presets), asks: ["bookedBy"])))
    #expect(entries.contains(.user(.init(question: "Who is the booking for?", reply: .answer("Ada")))))
    #expect(
      entries.last
        == .assistant(
          .answer(
            code: "success", success: true, dialog: "Room 12 is now booked by Ada.",
            voiceDialog: outcome.voiceDialog)))
  }

  /// A home with two apps called Notes (com.example.notes and com.other.notes), each with `AddNoteIntent` ("Add
  /// note"), installed.
  static func twoNotesApps() async throws -> (TemporaryDirectory, AssistantHome) {
    let directory = try TemporaryDirectory("assistant-notes")
    let home = try AssistantHome(
      root: directory.file("home").path, environment: ["ASSISTANT_APP_GROUPS": directory.file("groups").path])
    for identifier in ["com.example.notes", "com.other.notes"] {
      let app = try SmallApp.build(
        name: "Notes", identifier: identifier, intents: [("AddNote", "Add note")],
        in: directory.file("bundles/\(identifier)"))
      try await home.install(from: app)
    }
    return (directory, home)
  }
}

/// A user who answers from a script and remembers what was said, explained and asked; the answers left over are
/// `unusedAnswers`, as `--answer`'s are.
final class ScriptedUser: CheckedConversation {
  private struct State {
    var answers: [String]
    var said: [String] = []
    var explained: [String] = []
    var asked: [String] = []
  }
  private let state: Mutex<State>

  init(answers: [String]) { state = Mutex(State(answers: answers)) }

  var said: [String] { state.withLock { $0.said } }
  var explained: [String] { state.withLock { $0.explained } }
  var asked: [String] { state.withLock { $0.asked } }
  var unusedAnswers: [String] { state.withLock { $0.answers } }

  func say(_ text: String) async { state.withLock { $0.said.append(text) } }
  func explain(_ text: String) async { state.withLock { $0.explained.append(text) } }

  func ask(_ prompt: String, need: String) async throws -> String {
    let answer = state.withLock { state -> String? in
      state.asked.append(prompt)
      return state.answers.isEmpty ? nil : state.answers.removeFirst()
    }
    guard let answer else { throw HostError(.valueNeeded, "\(need) is needed (\"\(prompt)\"); the script has none") }
    return answer
  }
}

/// The in-process launcher of the driver tests, answering every intent (a missing value is not required), that
/// remembers the bundle identifier of each extension it started.
final class TargetRecordingLauncher: SessionLauncher {
  private let launcher = InProcessLauncher(behaviour: Behaviour(missingIsNotRequired: true))
  private let targets = Mutex<[String]>([])

  var launchedBundles: [String] { targets.withLock { $0 } }

  func launch(_ target: SessionTarget, home: AssistantHome, locale: String, sandbox: SandboxPolicy) async throws
    -> LaunchedSession
  {
    targets.withLock { $0.append(target.bundleIdentifier) }
    return try await launcher.launch(target, home: home, locale: locale, sandbox: sandbox)
  }
}
