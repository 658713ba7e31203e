import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import TestSupport
import Testing
import Understanding

@testable import AssistantHost

/// The conversation around a question, in-process with the driver's rig: yes and no in the user's language, an
/// unclear answer asked about again, a value given at a value's confirmation, "cancel" at any question, why a value
/// is asked for again (naming the parameter as the user knows it) and what the app knows, the advice when nobody can
/// be asked, and the app named with the locale's connector. The end-to-end counterpart is
/// EndToEndTests/QuestionsAndAnswersEndToEndTests.swift.
@Suite(.serialized, .tags(.process))
struct QuestionsAndAnswersTests {
  // MARK: Yes, no and cancel in words

  @Test(arguments: [
    "yes", "Yes!", "ok", "oui", "Oui !", "ouais", "d'accord", "d’accord", "sí", "si", "vale", "ja", "Jawohl", "sì",
    "certo", "sim", "はい", "はい。", "of course",
  ])
  func yesInEveryLanguage(_ text: String) {
    #expect(SpokenAnswer.yesNo(text) == true)
    #expect(SpokenAnswer.answer(to: text) == true)
  }

  @Test(arguments: ["no", "No.", "non", "Non merci", "nein", "não", "nao", "いいえ", "cancel", "nope"])
  func noInEveryLanguage(_ text: String) {
    #expect(SpokenAnswer.yesNo(text) == false)
    #expect(SpokenAnswer.answer(to: text) == false)
  }

  /// Neither yes nor no: a workout's name, "maybe" in two languages, an empty answer.
  @Test(arguments: ["maybe", "peut-être", "wall climb", "", "yes no", "oui non"])
  func neitherYesNorNo(_ text: String) {
    #expect(SpokenAnswer.answer(to: text) == nil)
  }

  /// A cancel word is a no at a yes/no question, but not a Boolean value said in words (control: the matcher's
  /// Booleans do not take "stop" or "annuler" for false).
  @Test(arguments: ["cancel", "Stop", "never mind", "quit", "annuler", "cancelar", "abbrechen", "annulla", "キャンセル"])
  func cancelWords(_ text: String) {
    #expect(SpokenAnswer.isCancel(text))
    #expect(SpokenAnswer.answer(to: text) == false)
    if text != "cancel" { #expect(SpokenAnswer.yesNo(text) == nil) }
  }

  @Test func neitherYesNorNoIsNoCancel() {
    for text in ["yes", "no", "oui", "wall climb", "cancel room 12"] where text != "cancel" {
      #expect(!SpokenAnswer.isCancel(text), "\(text)")
    }
  }

  // MARK: The intent's confirmation

  /// A rig whose BookRoomIntent asks the user to confirm it before it is handled.
  func confirmingRig() async throws -> Rig {
    try await Rig(manifests: { bundle in
      try Edit.intent(bundle.appendingPathComponent("Base.lproj/Intents.intentdefinition")) {
        $0["INIntentUserConfirmationRequired"] = true
      }
    })
  }

  func handled(_ rig: Rig) -> Bool {
    rig.launcher.transcript("RoomsIntents").contains("intent/handle")
  }

  /// "oui" confirms under any locale; "non" refuses (the control: an answer is not a yes because it is French).
  @Test(arguments: [("oui", true), ("non", false), ("Sí", true), ("nein", false), ("はい", true)])
  func aForeignYesConfirmsAndAForeignNoRefuses(_ answer: String, _ confirms: Bool) async throws {
    let rig = try await confirmingRig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: [answer])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.isSuccess == confirms)
    #expect(outcome.code == (confirms ? .success : "cancelledByUser"))
    #expect(handled(rig) == confirms)
    #expect(conversation.asked.count == 1)
    #expect(rig.launcher.allEnded)
  }

  /// An answer that is neither yes nor no is asked about once more; the second answer decides.
  @Test func anUnclearAnswerIsAskedAboutOnceMore() async throws {
    let rig = try await confirmingRig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["maybe", "yes"])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.isSuccess)
    #expect(conversation.asked.count == 2)
    #expect(conversation.asked[0] == conversation.asked[1])
    #expect(conversation.said.contains("Please answer yes or no."))
    #expect(handled(rig))
  }

  /// Two unclear answers are a no: the intent is not handled.
  @Test func twoUnclearAnswersAreANo() async throws {
    let rig = try await confirmingRig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["maybe", "perhaps"])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.code == "cancelledByUser")
    #expect(outcome.dialog == "OK, I won't.")
    #expect(conversation.asked.count == 2)
    #expect(!handled(rig))
    #expect(rig.launcher.allEnded)
  }

  /// A script that answers unclearly and has nothing more: the second question cannot be asked (75), rather than a
  /// silent no.
  @Test func aScriptWithOneUnclearAnswerStopsAtTheSecondQuestion() async throws {
    let rig = try await confirmingRig()
    defer { rig.remove() }
    do {
      _ = try await rig.driver(ScriptedConversation(answers: ["maybe"])).run(
        rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
      Issue.record("the run should have needed an answer")
    } catch let error as HostError {
      #expect(error.status == .valueNeeded)
    }
    #expect(!handled(rig))
    #expect(rig.launcher.allEnded)
  }

  // MARK: An extension's request to authenticate, with no passcode set

  /// "Allow RoomsIntents to go ahead?": "ja" approves; "maybe" is asked about once more; "non" denies (the control).
  @Test(arguments: [
    (["ja"], AuthenticationOutcome.approved, 1), (["maybe", "oui"], .approved, 2), (["non"], .denied, 1),
    (["maybe", "perhaps"], .denied, 2),
  ])
  func anApprovalTakesYesNoInAnyLanguage(_ answers: [String], _ outcome: AuthenticationOutcome, _ asked: Int)
    async throws
  {
    let rig = try await Rig()
    defer { rig.remove() }
    let device = try await AuthenticationTests.device(rig, passcode: nil, failures: 0)
    let conversation = ScriptedConversation(answers: answers)
    let authenticator = HostAuthenticator(conversation: conversation, device: device)
    #expect(try await authenticator.authenticate(reason: "Pay", for: "RoomsIntents") == outcome)
    #expect(conversation.asked.count == asked)
    #expect(conversation.said.contains("Please answer yes or no.") == (asked == 2))
  }

  // MARK: A value's confirmation

  /// roomNumber 12 is confirmed the first time it is resolved (confirmationRequired), then taken.
  func confirmingRoomRig() async throws -> Rig {
    try await Rig(
      behaviour: Behaviour(resolve: { parameter, intent in
        switch parameter {
        case "roomNumber":
          if case .integer(12)? = intent["roomNumber"] { return .confirmationRequired(.integer(12)) }
          return intent["roomNumber"].map { .success($0) } ?? .needsValue
        case "isCancellationOfBooking": return .notRequired
        default: return intent[parameter].map { .success($0) } ?? .needsValue
        }
      }))
  }

  /// "Just to confirm, you wanted 12?" "13": 13 is the value, resolved again (and not confirmed again), as Siri does.
  @Test func aValueAtAValuesConfirmationIsTheValueMeant() async throws {
    let rig = try await confirmingRoomRig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["13"])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.isSuccess)
    #expect(outcome.parameters["roomNumber"] == .integer(13))
    #expect(conversation.asked.count == 1)
    #expect(
      rig.launcher.transcript("RoomsIntents").filter { $0 == "intent/resolve roomNumber" }.count == 2)
  }

  /// Control: "yes" keeps 12; "no" asks for the room.
  @Test func yesKeepsTheValueAndNoAsksForAnother() async throws {
    let rig = try await confirmingRoomRig()
    defer { rig.remove() }
    let yes = ScriptedConversation(answers: ["oui"])
    let kept = try await rig.driver(yes).run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(kept.parameters["roomNumber"] == .integer(12))

    let no = ScriptedConversation(answers: ["no", "14"])
    let asked = try await rig.driver(no).run(rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(asked.parameters["roomNumber"] == .integer(14))
    #expect(no.asked.count == 2)
    #expect(no.asked[1] != no.asked[0])
  }

  /// An answer that is no room number (a number parameter) is neither a value nor yes/no: asked once more.
  @Test func anAnswerThatIsNoValueIsAskedAboutOnceMore() async throws {
    let rig = try await confirmingRoomRig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["maybe", "yes"])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.parameters["roomNumber"] == .integer(12))
    #expect(conversation.said.contains("Please answer yes or no."))
    #expect(conversation.asked.count == 2)
  }

  // MARK: Cancel

  /// "cancel" at a value's question ends the intent: nothing more is resolved, confirmed or handled.
  @Test(arguments: ["cancel", "Annuler", "never mind"])
  func cancelAtAQuestionEndsTheIntent(_ word: String) async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: [word])
    let outcome = try await rig.driver(conversation).run(rig.invocation(["roomNumber": .integer(12)]))
    #expect(outcome.code == "cancelledByUser")
    #expect(!outcome.isSuccess)
    #expect(outcome.dialog == "OK, I won't.")
    #expect(conversation.said.first == "OK, I won't.")
    let calls = rig.launcher.transcript("RoomsIntents").filter { $0.hasPrefix("intent/") }
    #expect(calls == ["intent/resolve roomNumber", "intent/resolve bookedBy"])
    #expect(rig.launcher.allEnded)
  }

  /// Control: where "cancel" is a value the parameter is said with (a ParameterVocabularies synonym), it is that value.
  @Test func cancelThatIsAValueIsTheValue() async throws {
    let rig = try await Rig(manifests: { bundle in
      try addVocabulary(to: bundle, items: ["Cancel Club": ["cancel"]])
    })
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["cancel"])
    let outcome = try await rig.driver(conversation).run(rig.invocation(["roomNumber": .integer(12)]))
    #expect(outcome.isSuccess)
    #expect(outcome.parameters["bookedBy"] == .string("Cancel Club"))
  }

  /// "cancel" at a choice ends the intent too.
  @Test func cancelAtAChoiceEndsTheIntent() async throws {
    let rig = try await Rig(behaviour: Behaviour(disambiguate: "roomNumber"))
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["cancel"])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Ada")]))
    #expect(outcome.code == "cancelledByUser")
    #expect(!handled(rig))
  }

  // MARK: needsValue for a value the user gave

  /// bookedBy: only Ada and Grace are taken; any other name is asked for again (needsValue), as Ascent does.
  static func picky(_ parameter: String, _ intent: Intent) -> ResolutionResult? {
    switch parameter {
    case "bookedBy":
      if case .string(let name)? = intent["bookedBy"], ["Ada", "Grace"].contains(name) {
        return .success(.string(name))
      }
      return .needsValue
    case "isCancellationOfBooking": return .notRequired
    default: return intent[parameter].map { .success($0) } ?? .needsValue
    }
  }

  /// Why first, then what the app's vocabulary knows, then the question.
  @Test func aValueAskedForAgainIsExplainedWithTheAppsTerms() async throws {
    let rig = try await Rig(
      behaviour: Behaviour(resolve: Self.picky),
      manifests: { bundle in try addVocabulary(to: bundle, items: ["Ada": ["Ada"], "Grace": ["Grace", "Amazing"]]) })
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["Ada"])
    let outcome = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Zed")]))
    #expect(outcome.isSuccess)
    #expect(
      conversation.events.prefix(3) == [
        "say: Sorry, Rooms can't use \"Zed\".", "say: You can say Ada or Grace (or \"cancel\" to stop).",
        "ask: Who is the booking for?",
      ])
  }

  /// Control: a value that was never given is simply asked for, with no apology and no list.
  @Test func aMissingValueIsAskedForWithoutAnExplanation() async throws {
    let rig = try await Rig(
      behaviour: Behaviour(resolve: Self.picky),
      manifests: { bundle in try addVocabulary(to: bundle, items: ["Ada": ["Ada"], "Grace": ["Grace"]]) })
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["Ada"])
    _ = try await rig.driver(conversation).run(rig.invocation(["roomNumber": .integer(12)]))
    #expect(conversation.events.first == "ask: Who is the booking for?")
    #expect(!conversation.said.contains { $0.hasPrefix("Sorry") || $0.hasPrefix("You can say") })
  }

  /// Without terms, the first refusal says why only; from the second on, how to stop.
  @Test func withoutTermsTheSecondRefusalSaysHowToStop() async throws {
    let rig = try await Rig(behaviour: Behaviour(resolve: Self.picky))
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["Bob", "Ada"])
    _ = try await rig.driver(conversation).run(
      rig.invocation(["roomNumber": .integer(12), "bookedBy": .string("Zed")]))
    #expect(
      conversation.events.prefix(5) == [
        "say: Sorry, Rooms can't use \"Zed\".", "ask: Who is the booking for?",
        "say: Sorry, Rooms can't use \"Bob\".", "say: Say \"cancel\" to stop.", "ask: Who is the booking for?",
      ])
  }

  /// The user's own terms (host/setVocabulary) for a system intent's parameter count too, after the app's.
  @Test func theUsersTermsAreKnownToo() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    _ = try await offloaded { () throws in
      try DonationStore(home: rig.home).setVocabulary(
        ["Spin class", "wall climb"], of: .workoutActivityName, for: rig.app.identifier.rawValue)
    }
    let parameter = try #require(
      SystemIntent.named("INStartWorkoutIntent")?.spec.parameters.first { $0.name == "workoutName" })
    let interpreter = ValueInterpreter(intentClass: "INStartWorkoutIntent", definition: nil, vocabularies: [])
    let known = await rig.driver(ScriptedConversation(answers: [])).knownTerms(
      for: parameter, of: rig.app, interpreter: interpreter)
    #expect(known == ["Spin class", "wall climb"])
  }

  /// An answer that is no whole number is refused naming the parameter by its display name, as the `need` of the
  /// same run and `run`'s own refusal do ("Room number (Integer) needs a whole number").
  @Test func theReAskNamesTheParameterByItsDisplayName() async throws {
    let rig = try await Rig()
    defer { rig.remove() }
    let conversation = ScriptedConversation(answers: ["twelvish", "12", "yes"])
    _ = try await rig.driver(conversation).run(rig.invocation(["bookedBy": .string("Ada")]))
    #expect(conversation.said.contains("Sorry, Room number needs a whole number."), "\(conversation.events)")
  }

  @Test func termsAreListedWithOr() {
    #expect(IntentDriver.orList(["a"]) == "a")
    #expect(IntentDriver.orList(["a", "b"]) == "a or b")
    #expect(IntentDriver.orList(["a", "b", "c"]) == "a, b or c")
  }

  // MARK: The advice when nobody can be asked

  @Test func theAdviceFitsTheQuestion() async throws {
    let rig = try ConversationTests.Rig()
    let single = rig.conversation(interactive: false)
    #expect(single.noTerminalAdvice(for: .yesNo).contains("--answer yes"))
    #expect(single.noTerminalAdvice(for: .value).contains("--answer VALUE"))
    #expect(single.noTerminalAdvice(for: .choice).contains("--answer NUMBER"))
    do {
      _ = try await single.ask("Ready?", need: "a confirmation", kind: .yesNo)
      Issue.record("nobody should have been asked")
    } catch let error as HostError {
      #expect(error.status == .valueNeeded)
      #expect(error.message.hasSuffix("answer it with --answer yes (or --answer no), or run it on a terminal"))
    }
    // A session takes no --answer: a yes/no needs a terminal, or the utterance alone; never Rooms' example.
    let session = TerminalConversation(
      answers: [], interactive: false, prompts: .descriptor(rig.prompts.write), dialog: rig.dialog.write,
      input: rig.input.read, takesAnswerOptions: false)
    for kind in [AnswerKind.value, .yesNo, .choice] {
      let advice = session.noTerminalAdvice(for: kind)
      #expect(!advice.contains("Rooms"))
      #expect(advice.contains("assistant --answer"))
    }
    #expect(session.noTerminalAdvice(for: .yesNo).contains("run `assistant shell` on a terminal"))
    #expect(session.noTerminalAdvice(for: .value).hasPrefix("say it in the utterance"))
  }

  // MARK: The app named with the locale's words

  @Test func theLocalesConnectorNamesTheApp() async throws {
    let apps = [try Rooms.app()]
    let french = UtteranceMatcher(apps: apps, locale: "fr_FR")
    let match = try french.match("Réserver la salle 51 pour Ada avec Rooms")
    #expect(match.intentClass == "BookRoomIntent")
    #expect(match.values["roomNumber"] == .integer(51))
    #expect(match.values["bookedBy"] == .string("Ada"))
    #expect(try french.match("Réserver la salle 51 pour Ada en utilisant Rooms").values["roomNumber"] == .integer(51))
    // English connectors stay under any locale.
    #expect(try french.match("Book room 12 for Ada with Rooms").values["roomNumber"] == .integer(12))
  }

  /// Control: under English, "avec" is not a connector, so the French request is not understood.
  @Test func anotherLanguagesConnectorIsNoConnector() throws {
    let english = UtteranceMatcher(apps: [try Rooms.app()], locale: "en_US")
    #expect(throws: UnderstandingError.self) { try english.match("Réserver la salle 51 pour Ada avec Rooms") }
    #expect(UtteranceMatcher.appConnectors("en_US") == UtteranceMatcher.appConnectors(nil))
    let french = UtteranceMatcher.appConnectors("fr_FR")
    #expect(french.contains(["en", "utilisant"]) && french.contains(["avec"]) && french.contains(["with"]))
    #expect(french.map(\.count) == french.map(\.count).sorted(by: >))  // the longest first
  }
}

/// Replaces the bundle's AppIntentVocabulary.plist ParameterVocabularies with one for BookRoomIntent.bookedBy: item
/// identifier to its phrases, the items in identifier order.
func addVocabulary(to bundle: URL, items: [String: [String]]) throws {
  try Edit.plist(bundle.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist")) { plist in
    plist["ParameterVocabularies"] = [
      [
        "ParameterNames": ["BookRoomIntent.bookedBy"],
        "ParameterVocabulary": items.keys.sorted().map { identifier in
          [
            "VocabularyItemIdentifier": identifier,
            "VocabularyItemSynonyms": (items[identifier] ?? []).map { ["VocabularyItemPhrase": $0] },
          ]
        },
      ]
    ]
  }
}
