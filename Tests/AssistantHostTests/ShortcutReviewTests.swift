import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

/// What the adversarial review of issue 14 found in shortcuts, donations and strings export, each with its control:
/// an identifier that reads as another app's `APP:ID`, a phrase another locale understands, a preset whose type
/// changed, invisible code points, an intent the app does not support, the host's paths in an answer to a sender,
/// integers that are not, a table too large to read back, and host-state documents that cannot be used.
struct ShortcutReviewTests {
  static let book = "BookRoomIntent"
  static let door = "OpenDoorIntent"

  static func donation(_ identifier: String, _ intent: String = door, given: Bool = true) -> StoredDonation {
    StoredDonation(
      identifier: identifier, identifierGiven: given,
      interaction: DonatedInteraction(
        intent: Intent(name: intent, identifier: "x", parameters: ["roomNumber": .integer(66)])),
      donatedAt: 1)
  }

  // MARK: - 1. No identifier shadows a qualified reading

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

  // MARK: - 2. Every locale the apps speak

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

  // MARK: - 3. Presets typed as the parameters are now

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

  // MARK: - 8. Small ones

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

  @Test func theSenderIsNeverToldTheHostsPaths() throws {
    let logged = Mutex<[String]>([])
    let error = #expect(throws: ResponseError.self) {
      try DonationServer.keeping(DonateRequest.method, log: { line in logged.withLock { $0.append(line) } }) {
        () -> Int in
        throw HostError(.cannotCreate, "cannot create /secret/home/State/donations: Permission denied")
      }
    }
    #expect(error?.code == .internalError)
    #expect(error?.message == "host/donate: the host could not keep it")
    #expect(logged.withLock { $0 }.first?.contains("/secret/home/State/donations") == true)  // the host logs it
    // Control: what is kept is answered.
    #expect(try DonationServer.keeping(DonateRequest.method, log: { _ in }) { 7 } == 7)
  }

  @Test(arguments: ["1.5", "1e300", "-1e300"])
  func anIntegerThatIsNotOneIsSaidSo(_ number: String) throws {
    let text = "{\"type\":\"integer\",\"value\":\(number)}"
    let error = try #require(throws: DecodingError.self) {
      try JSONDecoder().decode(ParameterValue.self, from: Data(text.utf8))
    }
    guard case .dataCorrupted(let context) = error else { Issue.record("\(error)"); return }
    #expect(context.debugDescription.contains("not an integer"), "\(context.debugDescription)")
    // Control: an integer is one.
    #expect(
      try JSONDecoder().decode(ParameterValue.self, from: Data("{\"type\":\"integer\",\"value\":12}".utf8))
        == .integer(12))
  }
}

// MARK: - 5. Strings tables the exporter can read back

extension ShortcutReviewTests {
  @Test func exportNeverWritesATableItCannotReadBack() async throws {
    let directory = try TemporaryDirectory("strings-limit")
    defer { directory.remove() }
    try await offThePool { () throws in
      let app = try TestBundles.roomsManifests(in: directory.url)
      let first = try StringsExporter.export(path: app.path, locale: "de", xliff: false, limit: 1 << 20)
      let table = first[0].file
      let size = try Data(contentsOf: URL(fileURLWithPath: table)).count
      // Control: a limit the table fits is fine, again.
      #expect(try StringsExporter.export(path: app.path, locale: "de", xliff: false, limit: size).count == 1)
      // One byte less: refused before writing, naming the file and the limit; the table is left as it was.
      let write = try #require(throws: HostError.self) {
        try StringsExporter.export(path: app.path, locale: "de", xliff: false, limit: size - 1)
      }
      #expect(write.status == .dataError, "\(write)")
      #expect(write.message.contains(table) && write.message.contains("limit of \(size - 1) bytes"), "\(write)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: table)).count == size)
      // A table over the limit is read as 65 naming it and the limit (not 73 with no path).
      try Data(count: size + 10).write(to: URL(fileURLWithPath: table))
      let read = try #require(throws: HostError.self) {
        try StringsExporter.export(path: app.path, locale: "de", xliff: false, limit: size)
      }
      #expect(read.status == .dataError, "\(read)")
      #expect(read.message.contains(table) && read.message.contains("limit of \(size) bytes"), "\(read)")
    }
  }
}

// MARK: - 6, 7. Host-state documents that cannot be used

extension ShortcutReviewTests {
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

  @Test func forgettingGoesOnPastADocumentThatCannotBeUsed() async throws {
    let directory = try TemporaryDirectory("forget-corrupt")
    defer { directory.remove() }
    try await offThePool { () throws in
      let home = try AssistantHome(root: directory.file("home").path, environment: [:])
      let store = DonationStore(home: home)
      let booking = DonatedInteraction(
        intent: Intent(name: Self.book, identifier: "x", parameters: ["roomNumber": .integer(12)]))
      try store.donate(DonateRequest(interaction: booking), for: "com.example.rooms")
      try store.setVocabulary(["Ada"], of: .contactName, for: "com.example.rooms")
      try store.setSuggestions(
        [ShortcutSuggestion(intent: booking.intent, phrase: "Book my room")], for: "com.example.rooms")
      #expect(store.forget("com.example.other").isEmpty)  // control: nothing to forget, nothing wrong
      let donations = store.donationsFile(for: "com.example.rooms")
      try Data("garbage".utf8).write(to: donations)
      let problems = store.forget("com.example.rooms")
      #expect(problems.count == 1, "\(problems)")
      #expect(problems.first?.contains("the donations of com.example.rooms could not be forgotten") == true)
      #expect(problems.first?.contains("move aside or remove \(donations.path)") == true, "\(problems)")
      // The others were forgotten all the same.
      #expect(try store.vocabulary(of: "com.example.rooms").isEmpty)
      #expect(try store.suggestions(of: "com.example.rooms").isEmpty)
    }
  }
}
