import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import TestSupport
import Testing
import Understanding

@testable import AssistantHost

/// The user's shortcuts as the host keeps them (identifiers, the bound, phrases compared as the matcher compares
/// words, removal), the clash rule against the apps' phrases, the presets a donation or a suggestion gives, and what
/// `--from ID` names.
@Suite(.tags(.unit))
struct ShortcutTests {
  static func draft(
    _ phrase: String, intent: String = "BookRoomIntent", presets: [String: ParameterValue] = [:]
  ) -> ShortcutDraft {
    ShortcutDraft(
      phrase: phrase, app: "com.example.rooms", appName: "Rooms", intentClass: intent, presets: presets, asks: [],
      source: Shortcut.Source(kind: .intent))
  }

  @Test func identifiersAreNeverReused() throws {
    var record = ShortcutsRecord()
    #expect(try record.add(Self.draft("Book room with Rooms"), at: 1).identifier == "k1")
    #expect(try record.add(Self.draft("Cancel booking with Rooms"), at: 2).identifier == "k2")
    #expect(record.remove("k2")?.phrase == "Cancel booking with Rooms")
    #expect(try record.add(Self.draft("Cancel my booking"), at: 3).identifier == "k3")
    #expect(record.shortcuts.map(\.identifier) == ["k1", "k3"])
  }

  @Test(arguments: [
    "book room with rooms", "Book room, with Rooms!", "  BOOK   ROOM with ROOMS.", "Ｂｏｏｋ room with Rooms",
  ])
  func theSamePhraseIsRefusedWhateverItsCasePunctuationSpacingOrWidth(_ variant: String) throws {
    var record = ShortcutsRecord()
    try record.add(Self.draft("Book room with Rooms"), at: 1)
    #expect(record.shortcut(saying: ShortcutPhrase.words(variant))?.identifier == "k1")
    #expect {
      try record.add(Self.draft(variant), at: 2)
    } throws: { error in
      let error = error as! HostError
      return error.status == .dataError && error.message.contains("shortcut k1 (\"Book room with Rooms\", Rooms)")
    }
    // Control: another phrase is another shortcut.
    #expect(try record.add(Self.draft(variant + " now"), at: 3).identifier == "k2")
  }

  @Test func theHomeKeepsAtMostTheBound() throws {
    var record = ShortcutsRecord()
    for index in 1..<ShortcutsRecord.maximumShortcuts { try record.add(Self.draft("phrase \(index)"), at: 1) }
    // Control: the last one that fits is kept.
    #expect(try record.add(Self.draft("the last"), at: 1).identifier == "k\(ShortcutsRecord.maximumShortcuts)")
    #expect {
      try record.add(Self.draft("one too many"), at: 1)
    } throws: { error in
      (error as? HostError)?.message.contains("\(ShortcutsRecord.maximumShortcuts) shortcuts, the most") == true
    }
    #expect(record.shortcuts.count == ShortcutsRecord.maximumShortcuts)
  }

  @Test(arguments: [
    ("", "no word"), ("?!", "no word"), ("Book\nroom", "control character"), ("Book\u{202E}room", "control character"),
    (String(repeating: "a", count: DonationLimits.maximumPhraseLength + 1), "the limit is"),
  ])
  func aPhraseMustBeOne(_ phrase: String, _ problem: String) {
    #expect(ShortcutPhrase.problem(phrase)?.contains(problem) == true)
    var record = ShortcutsRecord()
    #expect(throws: HostError.self) { try record.add(Self.draft(phrase), at: 1) }
  }

  @Test func aPhraseAtTheLimitIsOne() throws {
    let phrase = String(repeating: "a", count: DonationLimits.maximumPhraseLength)
    #expect(ShortcutPhrase.problem(phrase) == nil)
    #expect(ShortcutPhrase.problem("x") == nil)
  }

  @Test func removeTakesTheIdentifierFirstThenThePhrase() throws {
    var record = ShortcutsRecord()
    try record.add(Self.draft("k2"), at: 1)  // k1, said "k2"
    try record.add(Self.draft("Open my door"), at: 2)  // k2
    #expect(record.remove("k2")?.phrase == "Open my door")
    #expect(record.remove("K2")?.identifier == "k1")  // now by its phrase
    #expect(record.remove("k1") == nil)
  }

  @Test func theStoreKeepsShortcutsInTheHomesState() async throws {
    let directory = try TemporaryDirectory("shortcuts")
    defer { directory.remove() }
    try await offThePool { () throws in
      let home = try AssistantHome(root: directory.file("home").path, environment: [:])
      let store = ShortcutStore(home: home, clock: HostClock(offset: 0))
      #expect(try store.shortcuts().isEmpty)
      #expect(try store.shortcut(saying: "Book room with Rooms") == nil)
      #expect(throws: HostError.self) { try store.remove("k1") }
      let added = try store.add(
        Self.draft("Book room with Rooms", presets: ["isCancellationOfBooking": .boolean(false)]))
      #expect(try Document<ShortcutsRecord>(path: store.file.path).exists())
      #expect(store.file.path == home.state.appendingPathComponent("shortcuts.json").path)
      #expect(try store.shortcut(saying: "book room, with rooms")?.identifier == added.identifier)
      #expect(try store.shortcut(saying: "book room with rooms please") == nil)
      #expect(try store.shortcuts() == [added])
      let removed = try store.remove("BOOK ROOM WITH ROOMS")
      #expect(removed == added)
      #expect(throws: HostError.self) { try store.remove("k1") }
    }
  }
}

extension ShortcutTests {
  static let book = "BookRoomIntent"

  func clash(_ phrase: String, _ intent: String = book, _ presets: [String: ParameterValue] = [:], apps: [AppBundle])
    -> String?
  {
    let app = apps.first { $0.identifier.rawValue == "com.example.rooms" }!
    return ShortcutRules.clash(phrase: phrase, app: app, intentClass: intent, presets: presets, apps: apps)?.message
  }

  @Test func seed004sPhrasesAreAcceptedWithTheirPresets() throws {
    let apps = [try Rooms.app()]
    #expect(clash("Book room with Rooms", Self.book, ["isCancellationOfBooking": .boolean(false)], apps: apps) == nil)
    #expect(
      clash("Cancel booking with Rooms", Self.book, ["isCancellationOfBooking": .boolean(true)], apps: apps) == nil)
    // A phrase nothing understands is the shortcut's alone.
    #expect(clash("Get me a room", Self.book, [:], apps: apps) == nil)
  }

  @Test func aPhraseThatRunsAnotherValueClashes() throws {
    let apps = [try Rooms.app()]
    let refused = clash("Book room with Rooms", Self.book, ["isCancellationOfBooking": .boolean(true)], apps: apps)
    #expect(refused?.contains("already runs BookRoomIntent of Rooms (com.example.rooms)") == true, "\(refused ?? "")")
    #expect(refused?.contains("presets isCancellationOfBooking to Cancel") == true, "\(refused ?? "")")
    // A value the phrase gives that the shortcut does not preset: saying it would lose the value.
    let lost = clash("Book room 12 with Rooms", Self.book, ["isCancellationOfBooking": .boolean(false)], apps: apps)
    #expect(lost?.contains("roomNumber 12, and the shortcut does not preset it") == true, "\(lost ?? "")")
    // Control: preset the same way, accepted.
    #expect(
      clash(
        "Book room 12 with Rooms", Self.book, ["isCancellationOfBooking": .boolean(false), "roomNumber": .integer(12)],
        apps: apps) == nil)
  }

  /// Every value the phrase gives differently, in one message (issue 14): the one `--set` line that fixes them when
  /// none is preset; when one is preset otherwise, that no preset can change what the phrase says.
  @Test func everyDifferingValueIsNamedInOneMessage() throws {
    let apps = [try Rooms.app()]
    let phrase = "Book room 12 for Ada with Rooms"
    let already =
      "\"\(phrase)\" already runs BookRoomIntent of Rooms (com.example.rooms) (its phrase "
      + "\"${isCancellationOfBooking} room ${roomNumber} for ${bookedBy}\") with "
    #expect(
      clash(phrase, Self.book, [:], apps: apps)
        == already + "roomNumber 12, bookedBy Ada and isCancellationOfBooking Book, and the shortcut does not preset "
        + "roomNumber, bookedBy or isCancellationOfBooking; choose another phrase, or preset them with "
        + "--set roomNumber=12 --set bookedBy=Ada --set isCancellationOfBooking=false")
    #expect(
      clash(phrase, Self.book, ["roomNumber": .integer(13)], apps: apps)
        == already + "roomNumber 12, bookedBy Ada and isCancellationOfBooking Book, and the shortcut presets "
        + "roomNumber to 13 and does not preset bookedBy or isCancellationOfBooking; choose another phrase: no "
        + "preset can change what the phrase itself says (roomNumber 12)")
    // Control: the --set line the first message gives makes the phrase the shortcut's.
    #expect(
      clash(
        phrase, Self.book,
        ["isCancellationOfBooking": .boolean(false), "roomNumber": .integer(12), "bookedBy": .string("Ada")],
        apps: apps) == nil)
  }

  /// The empty state of `shortcuts suggested` names only installed apps (issue 14).
  @Test func theDonationExampleIsOfAnInstalledApp() throws {
    let rooms = try Rooms.app()
    let example = ShortcutRules.donationExample(among: [rooms])
    #expect(example?.phrase == "Book room 12 for Ada with Rooms")
    #expect(example?.app.name == "Rooms")
    #expect(ShortcutRules.donationExample(among: []) == nil)
  }

  @Test func aPhraseOfAnotherIntentClashes() throws {
    let apps = [try Rooms.app()]
    let refused = clash("Open the door of room 12 with Rooms", Self.book, ["roomNumber": .integer(12)], apps: apps)
    #expect(refused?.contains("already runs OpenDoorIntent of Rooms") == true, "\(refused ?? "")")
    // Control: the same phrase for that intent with that value.
    #expect(
      clash("Open the door of room 12 with Rooms", "OpenDoorIntent", ["roomNumber": .integer(12)], apps: apps) == nil)
  }

  @Test func aPhraseOfAnotherAppClashes() async throws {
    let apps = try await Rooms.installed(with: [
      { try SmallApp.build(name: "Notes", intents: [("Jot", "Jot ${value}")], in: $0) }
    ])
    let refused = clash("Jot milk with Notes", Self.book, [:], apps: apps)
    #expect(refused?.contains("already runs JotIntent of Notes (com.example.notes)") == true, "\(refused ?? "")")
    #expect(clash("Jot milk", Self.book, [:], apps: apps) == nil)  // control: no app named, not understood
  }

  @Test(arguments: ["What can you do?", "what can I say to Rooms", "Help!", "quit", "exit"])
  func theAssistantsOwnPhrasesClash(_ phrase: String) throws {
    #expect(clash(phrase, apps: [try Rooms.app()])?.contains("the assistant itself answers") == true)
  }

  @Test func presetsOfADonationASuggestionAndTheOptions() {
    let intent = Intent(
      name: Self.book, identifier: "x",
      parameters: ["roomNumber": .integer(12), "bookedBy": .string("Ada"), "isCancellationOfBooking": .boolean(false)])
    let app = try! Rooms.app()
    let donation = ShortcutOrigin(
      app: app,
      item: .donation(
        StoredDonation(
          identifier: "d1", identifierGiven: false, interaction: DonatedInteraction(intent: intent), donatedAt: 1)))
    let suggestion = ShortcutOrigin(
      app: app,
      item: .suggestion(
        StoredSuggestion(
          identifier: "s1", suggestion: ShortcutSuggestion(intent: intent, phrase: "Book my room"), publishedAt: 1)))
    let cancel: [String: ParameterValue] = ["isCancellationOfBooking": .boolean(true)]
    // A donation gives the intent only, its values with keepValues.
    #expect(ShortcutRules.presets(from: donation, keepValues: false, set: cancel, asks: []) == cancel)
    #expect(
      ShortcutRules.presets(from: donation, keepValues: true, set: cancel, asks: ["bookedBy"])
        == ["roomNumber": .integer(12), "isCancellationOfBooking": .boolean(true)])
    // A suggestion's values come with it; --set overrides, --ask removes.
    #expect(
      ShortcutRules.presets(from: suggestion, keepValues: false, set: cancel, asks: ["roomNumber"])
        == ["bookedBy": .string("Ada"), "isCancellationOfBooking": .boolean(true)])
    #expect(ShortcutRules.described(Self.book, values: intent.parameters, app: app) == "Book room 12 for Ada")
  }

  @Test func fromNamesOneDonationOrSuggestionOrSaysWhichAreMeant() throws {
    let app = try Rooms.app()
    let intent = Intent(name: Self.book, identifier: "x", parameters: [:])
    let donations = [
      StoredDonation(
        identifier: "d1", identifierGiven: false, interaction: DonatedInteraction(intent: intent), donatedAt: 1),
      StoredDonation(
        identifier: "s1", identifierGiven: true, interaction: DonatedInteraction(intent: intent), donatedAt: 2),
    ]
    let suggestions = [
      StoredSuggestion(identifier: "s1", suggestion: ShortcutSuggestion(intent: intent, phrase: "Book"), publishedAt: 1)
    ]
    func origin(_ reference: String) throws -> ShortcutOrigin {
      try ShortcutRules.origin(reference, apps: [app], donations: { _ in donations }, suggestions: { _ in suggestions })
    }
    #expect(try origin("d1").source == Shortcut.Source(kind: .donation, identifier: "d1"))
    #expect(try origin("Rooms:d1").identifier == "d1")
    #expect(try origin("com.example.rooms:d1").identifier == "d1")
    #expect {
      try origin("s1")
    } throws: { error in
      let error = error as! HostError
      return error.status == .usage && error.message.contains("donation s1 of Rooms")
        && error.message.contains("suggestion s1 of Rooms")
        && error.message.contains("--from com.example.rooms:donation:s1 or --from com.example.rooms:suggestion:s1")
    }
    #expect(
      try origin("com.example.rooms:suggestion:s1").source == Shortcut.Source(kind: .suggestion, identifier: "s1"))
    #expect(try origin("donation:s1").source == Shortcut.Source(kind: .donation, identifier: "s1"))
    #expect(throws: HostError.self) { try origin("d2") }
    #expect(throws: HostError.self) { try origin("Other:d1") }
  }
}

extension ShortcutTests {
  @Test func forgettingAnAppEmptiesItsDonationsSuggestionsAndVocabularyWithoutReusingIdentifiers() async throws {
    let directory = try TemporaryDirectory("forget")
    defer { directory.remove() }
    try await offThePool { () throws in
      let home = try AssistantHome(root: directory.file("home").path, environment: [:])
      let store = DonationStore(home: home)
      #expect(store.forget("com.example.rooms").isEmpty)  // nothing kept yet: nothing to do, nothing made
      #expect(!FileManager.default.fileExists(atPath: home.state.appendingPathComponent("donations").path))
      let booking = DonatedInteraction(
        intent: Intent(name: Self.book, identifier: "x", parameters: ["roomNumber": .integer(12)]))
      #expect(try store.donate(DonateRequest(interaction: booking), for: "com.example.rooms") == "d1")
      try store.setSuggestions(
        [ShortcutSuggestion(intent: booking.intent, phrase: "Book my room")], for: "com.example.rooms")
      try store.setVocabulary(["Ada"], of: .contactName, for: "com.example.rooms")
      try store.donate(DonateRequest(interaction: booking), for: "com.example.other")  // control: another app
      #expect(store.forget("com.example.rooms").isEmpty)
      #expect(try store.donations(of: "com.example.rooms").isEmpty)
      #expect(try store.suggestions(of: "com.example.rooms").isEmpty)
      #expect(try store.vocabulary(of: "com.example.rooms").isEmpty)
      #expect(try store.donations(of: "com.example.other").count == 1)
      // Installed again, the app's next donation and suggestion get new identifiers.
      #expect(try store.donate(DonateRequest(interaction: booking), for: "com.example.rooms") == "d2")
      #expect(
        try store.setSuggestions(
          [ShortcutSuggestion(intent: booking.intent, phrase: "Book my room")], for: "com.example.rooms") == ["s2"])
    }
  }
}

/// What a shortcut can never be mistaken for or keep: an identifier that reads as another app's `APP:ID`, a phrase
/// another locale of the apps understands, presets of another type than the parameters have now, invisible code
/// points and the sanitizer's controls in a phrase, a donation of an intent the app does not support, and a shortcuts
/// document that cannot be used; each with its control.
extension ShortcutTests {
  static let door = "OpenDoorIntent"

  static func donation(_ identifier: String, _ intent: String = door, given: Bool = true) -> StoredDonation {
    StoredDonation(
      identifier: identifier, identifierGiven: given,
      interaction: DonatedInteraction(
        intent: Intent(name: intent, identifier: "x", parameters: ["roomNumber": .integer(66)])),
      donatedAt: 1)
  }

  @Test func anIdentifierThatReadsAsAnotherAppsNeverStandsInForIt() async throws {
    let apps = try await Rooms.installed(with: [
      { try SmallApp.build(name: "Notes", intents: [("Jot", "Jot ${value}")], in: $0) }
    ])
    let rooms = [Self.donation("d1", given: false)]
    // An old or planted donation of Notes, named as Rooms' d1 qualified.
    var notes = [Self.donation("com.example.rooms:d1")]
    func origin(_ reference: String) throws -> ShortcutOrigin {
      try ShortcutRules.origin(
        reference, apps: apps, donations: { $0 == "com.example.rooms" ? rooms : notes }, suggestions: { _ in [] })
    }
    // Control: without it, the qualified form names Rooms' d1.
    notes = []
    #expect(try origin("com.example.rooms:d1").app.identifier.rawValue == "com.example.rooms")
    notes = [Self.donation("com.example.rooms:d1")]
    let error = try #require(throws: HostError.self) { try origin("com.example.rooms:d1") }
    #expect(error.status == .usage, "\(error)")
    #expect(error.message.contains("donation com.example.rooms:d1 of Notes (com.example.notes)"), "\(error)")
    #expect(error.message.contains("donation d1 of Rooms (com.example.rooms)"), "\(error)")
    #expect(
      error.message.contains(
        "--from com.example.notes:com.example.rooms:d1 or --from com.example.rooms:donation:d1"), "\(error)")
    // Each form it gives names its thing alone.
    #expect(try origin("com.example.rooms:donation:d1").app.identifier.rawValue == "com.example.rooms")
    #expect(try origin("com.example.notes:com.example.rooms:d1").app.identifier.rawValue == "com.example.notes")
    // A bare d1 that both apps have is ambiguous too (as before).
    notes = [Self.donation("d1")]
    #expect(throws: HostError.self) { try origin("d1") }
    #expect(try origin("Rooms:d1").app.identifier.rawValue == "com.example.rooms")
  }

  @Test func aPhraseAnotherLocaleUnderstandsClashesNamingTheLocale() throws {
    let app = try Rooms.app()
    #expect(ShortcutRules.locales(of: [app]) == ["fr"])
    let phrase = "Ouvrir la porte de la salle 12 with Rooms"
    let presets: [String: ParameterValue] = [
      "isCancellationOfBooking": .boolean(true), "roomNumber": .integer(12), "bookedBy": .string("Ada"),
    ]
    let refused = ShortcutRules.clash(phrase: phrase, app: app, intentClass: Self.book, presets: presets, apps: [app])
    #expect(refused?.status == .dataError)
    #expect(
      refused?.message.contains("already runs OpenDoorIntent of Rooms (com.example.rooms) in fr (--locale fr)")
        == true, "\(refused?.message ?? "accepted")")
    // Control: without a locale, the matcher does not understand it (the check before the fix).
    #expect(
      ShortcutRules.clash(
        phrase: phrase, app: app, intentClass: Self.book, presets: presets, apps: [app], locale: nil) == nil)
    // Control: the same phrase for that intent and value.
    #expect(
      ShortcutRules.clash(
        phrase: phrase, app: app, intentClass: Self.door, presets: ["roomNumber": .integer(12)], apps: [app]) == nil)
  }

  static func shortcut(_ presets: [String: ParameterValue], intent: String = door) -> Shortcut {
    Shortcut(
      identifier: "k1", phrase: "open door four", app: "com.example.rooms", appName: "Rooms", intentClass: intent,
      presets: presets, asks: [], source: Shortcut.Source(kind: .intent), createdAt: 1)
  }

  @Test func aPresetOfAnotherTypeThanTheParameterMakesTheShortcutInactive() throws {
    let app = try Rooms.app()
    #expect(ShortcutState.of(Self.shortcut(["roomNumber": .integer(4)]), among: [app]) == .active(app))
    #expect(
      ShortcutState.of(Self.shortcut(["roomNumber": .string("4")]), among: [app]).reason
        == "roomNumber of OpenDoorIntent is now Integer; the shortcut presets a String")
    #expect(
      ShortcutState.of(Self.shortcut(["isCancellationOfBooking": .integer(1)], intent: Self.book), among: [app]).reason
        == "isCancellationOfBooking of BookRoomIntent is now Boolean; the shortcut presets an Integer")
    // The same type that does not fit (a string past the bound a donation's has) says why.
    let long = ShortcutState.of(
      Self.shortcut(["bookedBy": .string(String(repeating: "A", count: 1001))], intent: Self.book), among: [app])
    #expect(long.reason?.contains("the shortcut presets a String that does not fit it") == true, "\(long)")
  }

  @Test func aReinstallThatChangesAParameterTypeMakesTheShortcutInactive() async throws {
    let directory = try TemporaryDirectory("retyped")
    defer { directory.remove() }
    let url = try TestBundles.roomsManifests(in: directory.url)
    let shortcut = Self.shortcut(["roomNumber": .integer(4)])
    #expect(ShortcutState.of(shortcut, among: [try AppBundle.load(from: url)]).reason == nil)  // control
    try Edit.plist(url.appendingPathComponent("Base.lproj/Intents.intentdefinition")) { plist in
      var intents = plist["INIntents"] as! [[String: Any]]
      let index = intents.firstIndex { $0["INIntentName"] as? String == "OpenDoor" }!
      var parameters = intents[index]["INIntentParameters"] as! [[String: Any]]
      parameters[0]["INIntentParameterType"] = "String"
      parameters[0]["INIntentParameterMetadata"] = nil
      intents[index]["INIntentParameters"] = parameters
      plist["INIntents"] = intents
    }
    #expect(
      ShortcutState.of(shortcut, among: [try AppBundle.load(from: url)]).reason
        == "roomNumber of OpenDoorIntent is now String; the shortcut presets an Integer")
  }

  @Test(arguments: ["\u{00AD}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{FEFF}", "\u{2060}"])
  func invisibleCodePointsAreNotPartOfAPhrase(_ invisible: String) {
    #expect(ShortcutPhrase.words("Book\(invisible)room now") == ["bookroom", "now"])
    #expect(ShortcutPhrase.words("\(invisible)") == [])
    // Control: a visible separator still separates.
    #expect(ShortcutPhrase.words("Book-room now") == ["book", "room", "now"])
    #expect(ShortcutPhrase.words("Open my room’s door") == ["open", "my", "rooms", "door"])
    #expect(ShortcutPhrase.words("Book room now") == ["book", "room", "now"])
  }

  @Test(arguments: ["\u{061C}", "\u{2028}", "\u{2029}"])
  func theSanitizersControlsAreControls(_ control: String) {
    #expect(ShortcutPhrase.problem("Book\(control)room")?.contains("control character") == true)
    #expect(DonationLimits.identifierProblem("a\(control)b", field: "identifier")?.contains("control") == true)
    #expect(DonationLimits.identifierProblem("ab", field: "identifier") == nil)  // control
  }

  @Test func aDonationOfAnIntentTheAppDoesNotSupportSaysSo() throws {
    let app = try Rooms.app()
    let message = ShortcutOrigin(app: app, item: .donation(Self.donation("d1", "INSendMessageIntent")))
    let error = try #require(throws: HostError.self) { try ShortcutRules.checkSupported(message) }
    #expect(error.status == .noMatch)
    #expect(error.message.contains("which Rooms does not support"), "\(error)")
    #expect(!error.message.contains("no longer"), "\(error)")
    try ShortcutRules.checkSupported(ShortcutOrigin(app: app, item: .donation(Self.donation("d2"))))  // control
  }

  @Test func aCorruptStateDocumentNamesTheFilesToMoveAsideNotDefaultsRecover() async throws {
    let directory = try TemporaryDirectory("state-corrupt")
    defer { directory.remove() }
    try await offThePool { () throws in
      let home = try AssistantHome(root: directory.file("home").path, environment: [:])
      try home.prepare()
      let store = ShortcutStore(home: home)
      #expect(try store.shortcuts().isEmpty)  // control
      try Data("{not json".utf8).write(to: store.file)
      let error = try #require(throws: HostError.self) { try store.shortcuts() }
      #expect(error.status == .dataError, "\(error)")
      #expect(!error.message.contains("defaults recover"), "\(error)")
      let folder = home.state.path
      #expect(
        error.message.contains(
          "move aside or remove \(folder)/shortcuts.json, \(folder)/.shortcuts.json.journal, "
            + "\(folder)/.shortcuts.json.lock"), "\(error)")
      // Planted as a link: the same advice, the link named.
      try FileManager.default.removeItem(at: store.file)
      try FileManager.default.createSymbolicLink(atPath: store.file.path, withDestinationPath: "/etc/hostname")
      let planted = try #require(throws: HostError.self) { try store.shortcut(saying: "hello") }
      #expect(planted.status == .dataError && !planted.message.contains("defaults recover"), "\(planted)")
      #expect(planted.message.contains("move aside or remove \(folder)/shortcuts.json"), "\(planted)")
    }
  }
}
