import BundleManifest
import ExtensionProtocol
import Foundation
import TestSupport
import Testing
import Understanding

@testable import AssistantHost

/// The user's vocabulary in the matcher: a slot of a parameter with a vocabulary type takes the app's term as
/// spelled, a reading with a term beats one without, a term lets a slot reach further than eight words; each test
/// with its control, the same utterance without the terms. In-process: nothing runs.
@Suite(.tags(.unit))
struct VocabularyMatchTests {
  /// Ascent (start and end a workout), Stride (start a workout, another app), Pay (payments and messages) and Cards
  /// (its own SendCardIntent whose `value` is a Person), in a directory gone when this returns.
  static let apps: [AppBundle] = {
    let directory = try! TemporaryDirectory("vocabulary-match")
    defer { directory.remove() }
    func small(_ name: String, _ system: [String], intents: [(name: String, title: String)] = []) throws -> URL {
      try SmallApp.build(name: name, intents: intents, systemIntents: system, in: directory.url)
    }
    let cards = try! small("Cards", [], intents: [("SendCard", "Send a card to ${value}")])
    try! Edit.plist(cards.appendingPathComponent("Base.lproj/Intents.intentdefinition")) { plist in
      var intents = plist["INIntents"] as! [[String: Any]]
      intents[0]["INIntentParameters"] = [["INIntentParameterName": "value", "INIntentParameterType": "Person"]]
      plist["INIntents"] = intents
    }
    return try! [
      small("Ascent", ["INStartWorkoutIntent", "INEndWorkoutIntent"]), small("Stride", ["INStartWorkoutIntent"]),
      small("Pay", ["INSendPaymentIntent", "INSendMessageIntent", "INStartCallIntent"]), cards,
    ].map { try AppBundle.load(from: $0) }
  }()

  static func matcher(_ terms: [String: [VocabularyStringType: [String]]] = [:]) -> UtteranceMatcher {
    UtteranceMatcher(apps: apps, vocabulary: terms.mapValues { UserVocabulary(terms: $0) })
  }

  static func values(_ utterance: String, _ terms: [String: [VocabularyStringType: [String]]] = [:]) throws
    -> [String: ParameterValue]
  {
    try matcher(terms).match(utterance).values
  }

  static let ascent = "com.example.ascent"
  static let pay = "com.example.pay"

  @Test func aSlotTakesTheTermAsSpelled() throws {
    let terms = [Self.ascent: [VocabularyStringType.workoutActivityName: ["Tempo Run"]]]
    // Control: without the term, the words as written.
    #expect(try Self.values("Start a tempo run workout with Ascent") == ["workoutName": .string("tempo run")])
    #expect(try Self.values("Start a tempo run workout with Ascent", terms) == ["workoutName": .string("Tempo Run")])
    // Case, punctuation and spacing aside; the other phrases of the intent, and the other intents, too.
    #expect(try Self.values("start   TEMPO RUN? with Ascent", terms) == ["workoutName": .string("Tempo Run")])
    // A hyphen between letters separates words (issue 14): "tempo-run" is the term's two words; "temporun" is not.
    #expect(try Self.values("start tempo-run with Ascent", terms) == ["workoutName": .string("Tempo Run")])
    #expect(try Self.values("start temporun with Ascent", terms) == ["workoutName": .string("temporun")])
    #expect(try Self.values("start tempo, run with Ascent", terms) == ["workoutName": .string("Tempo Run")])
    #expect(try Self.values("End my tempo run workout with Ascent", terms) == ["workoutName": .string("Tempo Run")])
    // Words that are not a term stay as written.
    #expect(try Self.values("Start a hill run workout with Ascent", terms) == ["workoutName": .string("hill run")])
  }

  /// "Tempo Run Workout" is a term: the phrase "start a ${workoutName}" cut short, with the term, beats the whole
  /// phrase "start a ${workoutName} workout" reading "Tempo Run", which is not one.
  @Test func aReadingWithATermBeatsOneWithout() throws {
    let terms = [Self.ascent: [VocabularyStringType.workoutActivityName: ["Tempo Run Workout"]]]
    #expect(try Self.values("Start a tempo run workout with Ascent") == ["workoutName": .string("tempo run")])
    #expect(
      try Self.values("Start a tempo run workout with Ascent", terms) == ["workoutName": .string("Tempo Run Workout")])
  }

  /// Two text slots side by side: without terms the first takes one word; with the contact "Ada Lovelace" it takes
  /// the name and the amount is the rest.
  @Test func aTermSplitsTwoSlots() throws {
    let utterance = "Send Ada Lovelace 5 dollars with Pay"
    #expect(try Self.values(utterance) == ["payee": .string("Ada"), "currencyAmount": .string("Lovelace 5 dollars")])
    let terms = [Self.pay: [VocabularyStringType.contactName: ["Ada Lovelace"]]]
    #expect(
      try Self.values(utterance, terms) == ["payee": .string("Ada Lovelace"), "currencyAmount": .string("5 dollars")])
  }

  /// A slot holds at most eight words, unless they are a term: a group name of ten words is understood only when the
  /// app registered it.
  @Test func aLongTermLetsAPhraseSplitThatWouldNotOtherwise() throws {
    let name = "The Friday Evening Board Game And Pizza Club Of Springfield"
    let utterance = "Message \(name) saying see you at eight with Pay"
    #expect(throws: UnderstandingError.self) { try Self.values(utterance) }
    let terms = [Self.pay: [VocabularyStringType.contactName: [name]]]
    #expect(
      try Self.values(utterance, terms)
        == ["recipients": .array([.string(name)]), "content": .string("see you at eight")])
    // Control: nine words that are not the term are still too many.
    #expect(throws: UnderstandingError.self) {
      try Self.values("Message The Friday Evening Board Game And Pizza Club Of Shelbyville saying hi with Pay", terms)
    }
  }

  @Test func eachItemOfSeveralValuesAndLeadingLittleWords() throws {
    let terms = [Self.pay: [VocabularyStringType.contactName: ["Ada Lovelace", "Mom"]]]
    #expect(
      try Self.values("Message ada lovelace, grace hopper saying hi with Pay", terms)
        == ["recipients": .array([.string("Ada Lovelace"), .string("grace hopper")]), "content": .string("hi")])
    // "my Mom" is the contact "Mom"; control: without the term, as written.
    #expect(try Self.values("Call my mom with Pay", terms) == ["contacts": .array([.string("Mom")])])
    #expect(try Self.values("Call my mom with Pay") == ["contacts": .array([.string("my mom")])])
  }

  /// Terms are per app: Ascent's never count for Stride, and a type's terms never count for another type's slot.
  @Test func anotherAppsTermsNeverCount() throws {
    let terms: [String: [VocabularyStringType: [String]]] = [
      Self.ascent: [.workoutActivityName: ["Tempo Run"]], Self.pay: [.contactName: ["Tempo Run"]],
    ]
    #expect(try Self.values("Start a tempo run workout with Stride", terms) == ["workoutName": .string("tempo run")])
    #expect(try Self.values("Start a tempo run workout with Ascent", terms) == ["workoutName": .string("Tempo Run")])
    let contacts = [Self.ascent: [VocabularyStringType.contactName: ["Tempo Run"]]]
    #expect(try Self.values("Start a tempo run workout with Ascent", contacts) == ["workoutName": .string("tempo run")])
  }

  /// A parameter of an app's own definition whose type is Person takes contact names.
  @Test func aPersonParameterTakesContactNames() throws {
    let terms = ["com.example.cards": [VocabularyStringType.contactName: ["Grace Hopper"]]]
    #expect(try Self.values("Send a card to grace hopper with Cards") == ["value": .string("grace hopper")])
    #expect(try Self.values("Send a card to grace hopper with Cards", terms) == ["value": .string("Grace Hopper")])
  }

  @Test func theTypesOfParameters() throws {
    func types(_ intent: String, _ parameter: String) -> [VocabularyStringType] {
      let spec = SystemIntent.named(intent)!.spec.parameter(named: parameter)!
      return UserVocabulary.types(of: spec, intentClass: intent)
    }
    #expect(types("INStartWorkoutIntent", "workoutName") == [.workoutActivityName])
    #expect(types("INSendPaymentIntent", "payee") == [.contactName])
    #expect(types("INSendMessageIntent", "recipients") == [.contactName])
    #expect(types("INSendMessageIntent", "speakableGroupName") == [.contactGroupName])
    #expect(types("INAppendToNoteIntent", "targetNote") == [.notebookItemTitle])
    #expect(types("INSearchForPhotosIntent", "albumName") == [.photoAlbumName])
    #expect(types("INSearchForPhotosIntent", "searchTerms") == [.photoTag])
    #expect(types("INSearchForMessagesIntent", "searchTerms") == [])
    #expect(types("INPlayMediaIntent", "mediaItems").first == .mediaPlaylistTitle)
    #expect(types("INSetSeatSettingsInCarIntent", "carName") == [.carName])
    #expect(types("INSendPaymentIntent", "note") == [])
    // An app's own parameters: Person only.
    let rooms = try Rooms.app()
    let spec = rooms.runnableSpec(className: "BookRoomIntent")!.spec
    #expect(UserVocabulary.types(of: spec.parameter(named: "bookedBy")!, intentClass: "BookRoomIntent") == [])
  }

  /// `host/setVocabulary` replaces the app's set of a type: after the second registration the old term no longer
  /// counts and the new one does, read from the store as an utterance reads it.
  @Test func aNewSetReplacesThePreviousOne() async throws {
    let directory = try TemporaryDirectory("vocabulary-replace")
    defer { directory.remove() }
    try await offThePool {
      let home = try AssistantHome(root: directory.file("home").path, environment: [:])
      let store = DonationStore(home: home)
      func values(_ utterance: String) throws -> [String: ParameterValue] {
        let terms = store.userVocabularies(of: Self.apps)
        #expect(terms.problems.isEmpty)
        return try UtteranceMatcher(apps: Self.apps, vocabulary: terms.vocabularies).match(utterance).values
      }
      #expect(try values("Start a tempo run workout with Ascent") == ["workoutName": .string("tempo run")])
      try store.setVocabulary(["Tempo Run"], of: .workoutActivityName, for: Self.ascent)
      #expect(try values("Start a tempo run workout with Ascent") == ["workoutName": .string("Tempo Run")])
      try store.setVocabulary(["Hill Sprints"], of: .workoutActivityName, for: Self.ascent)
      #expect(try values("Start a tempo run workout with Ascent") == ["workoutName": .string("tempo run")])
      #expect(try values("Start a hill sprints workout with Ascent") == ["workoutName": .string("Hill Sprints")])
      // Another type's set is not touched by it.
      try store.setVocabulary(["Ada Lovelace"], of: .contactName, for: Self.ascent)
      #expect(try values("Start a hill sprints workout with Ascent") == ["workoutName": .string("Hill Sprints")])
    }
  }
}
