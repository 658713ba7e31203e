import BundleManifest
import ExtensionProtocol
import Foundation
import Testing

@testable import Understanding

/// The table of utterances issue 13 asks for: each said to the example Rooms app and Apple's SoupChef sample (its
/// manifests from ../shared/corpus, with a small vocabulary of ours) installed together, with the app, intent and
/// values it must reach, or for one that must not match, what the answer suggests. In-process: nothing runs.
@Suite(.tags(.unit)) struct UtteranceTableTests {
  static let present = FileManager.default.fileExists(
    atPath: PackagePaths.corpus.appendingPathComponent("SOURCES.md").path)
  static let skipped: Comment = "../shared/corpus/real-xcode is not beside this clone: SoupChef rows skipped"

  struct Row: Sendable, CustomTestStringConvertible {
    var utterance: String
    /// The bundle id and intent class reached; nil for an utterance that must not match.
    var reached: (app: String, intent: String)?
    var values: [String: ParameterValue] = [:]
    /// For an utterance that must not match: the error's whole message, with what it suggests.
    var message: String = ""
    /// `--locale`: the apps' translated titles and names are understood too.
    var locale: String? = nil
    var testDescription: String { utterance + (locale.map { " (\($0))" } ?? "") }
  }

  static let rooms = "com.example.rooms"
  static let soup = "info.kgomes.SoupChef"
  static let cancel = "isCancellationOfBooking"

  static func book(_ utterance: String, _ values: [String: ParameterValue]) -> Row {
    Row(utterance: utterance, reached: (rooms, "BookRoomIntent"), values: values)
  }
  static func door(_ utterance: String, _ values: [String: ParameterValue]) -> Row {
    Row(utterance: utterance, reached: (rooms, "OpenDoorIntent"), values: values)
  }
  static func order(_ utterance: String, _ values: [String: ParameterValue]) -> Row {
    Row(utterance: utterance, reached: (soup, "OrderSoupIntent"), values: values)
  }
  static func refused(_ utterance: String, _ message: String) -> Row {
    Row(utterance: utterance, reached: nil, message: message)
  }
  static let installed = present ? "Rooms, Soup Chef, Ascent, Meters" : "Rooms, Ascent, Meters"

  /// Rooms (with a spoken name and a pronunciation hint added to its alternative name, and a French name, Salles, in
  /// a fr.lproj/InfoPlist.strings beside its French Intents.strings), SoupChef when the corpus is
  /// there, a small workout app supporting two system intents, and Meters (`Meters.build`: numbers, dates and
  /// durations in its titles).
  static func apps() throws -> [AppBundle] {
    let directory = try TemporaryDirectory("assistanthost-table")
    defer { directory.remove() }
    let rooms = try TestBundles.roomsManifests(in: directory.url)
    try Edit.plist(rooms.appendingPathComponent("Info.plist")) { plist in
      plist["CFBundleSpokenName"] = "Meeting Rooms"
      plist["INAlternativeAppNames"] = [
        ["INAlternativeAppName": "Room Booking", "INAlternativeAppNamePronunciationHint": "Room Bookings"]
      ]
    }
    try "\"CFBundleDisplayName\" = \"Salles\";\n".write(
      to: rooms.appendingPathComponent("fr.lproj/InfoPlist.strings"), atomically: true, encoding: .utf8)
    var apps = [try AppBundle.load(from: rooms)]
    if present { apps.append(try AppBundle.load(from: soupChef(in: directory.url))) }
    apps.append(
      try AppBundle.load(
        from: SmallApp.build(
          name: "Ascent", intents: [], systemIntents: ["INStartWorkoutIntent", "INEndWorkoutIntent"],
          in: directory.url)))
    apps.append(try AppBundle.load(from: Meters.build(in: directory.url)))
    return apps
  }

  /// SoupChef.app as SoupChefTests (end to end) assembles it, with stand-in executables, plus an
  /// AppIntentVocabulary.plist of ours (the sample ships none): synonyms for two soups and two phrases.
  static func soupChef(in directory: URL) throws -> URL {
    let fm = FileManager.default
    func corpus(_ name: String) -> URL {
      PackagePaths.corpus.appendingPathComponent("kevingomes17__ios-swift-soup-chef__" + name)
    }
    func place(_ source: URL, _ destination: URL) throws {
      try fm.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
      try fm.copyItem(at: source, to: destination)
    }
    let app = directory.appendingPathComponent("SoupChef.app")
    try place(corpus("SoupChef__Resources__Info.plist"), app.appendingPathComponent("Info.plist"))
    try place(
      corpus("Shared__Base.lproj__Intents.intentdefinition"),
      app.appendingPathComponent("Base.lproj/Intents.intentdefinition"))
    try "PRODUCT_BUNDLE_IDENTIFIER = info.kgomes.SoupChef\n".write(
      to: app.appendingPathComponent("BuildSettings.xcconfig"), atomically: true, encoding: .utf8)
    try TestBundles.writeStandInExecutable(to: app.appendingPathComponent("SoupChef"))
    let appex = app.appendingPathComponent("PlugIns/SoupChefIntents.appex")
    try place(corpus("Supporting_Targets__SoupChefIntents__Info.plist"), appex.appendingPathComponent("Info.plist"))
    try "PRODUCT_BUNDLE_IDENTIFIER = info.kgomes.SoupChef.SoupChefIntents\n".write(
      to: appex.appendingPathComponent("BuildSettings.xcconfig"), atomically: true, encoding: .utf8)
    try TestBundles.writeStandInExecutable(to: appex.appendingPathComponent("SoupChefIntents"))
    try writePlist(
      [
        "IntentPhrases": [
          [
            "IntentName": "OrderSoupIntent",
            "IntentExamples": ["Order 2 clam chowder with Soup Chef", "Soup Chef, I'm hungry"],
          ]
        ],
        "ParameterVocabularies": [
          [
            "ParameterNames": ["OrderSoupIntent.soup"],
            "ParameterVocabulary": [
              [
                "VocabularyItemIdentifier": "clamChowder",
                "VocabularyItemSynonyms": [["VocabularyItemPhrase": "chowder"]],
              ],
              [
                "VocabularyItemIdentifier": "chickenNoodleSoup",
                "VocabularyItemSynonyms": [["VocabularyItemPhrase": "noodle soup"]],
              ],
            ],
          ]
        ],
      ], to: app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist"))
    return app
  }

  static let tryRooms =
    "\"Book room 12 for Ada with Rooms\", \"Open the door of room 12 with Rooms\", "
    + "\"Cancel room 12 for Ada with Rooms\""

  static let roomsRows: [Row] = [
    // IntentPhrases examples, as written and without their values.
    book("Book room 12 for Ada with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("Cancel room 12 for Ada with Rooms", [cancel: true, "roomNumber": 12, "bookedBy": "Ada"]),
    book("Book a room with Rooms", [cancel: false]),
    book("Book room 7 for Grace with Rooms", [cancel: false, "roomNumber": 7, "bookedBy": "Grace"]),
    door("Open the door of room 12 with Rooms", ["roomNumber": 12]),
    door("Open a door with Rooms", [:]),
    door("Open the door of room 3 with Rooms", ["roomNumber": 3]),
    // Combination titles.
    book("Book a room for Ada with Rooms", [cancel: false, "bookedBy": "Ada"]),
    book("Book room 14 with Rooms", [cancel: false, "roomNumber": 14]),
    book("Cancel a room with Rooms", [cancel: true]),
    book("Cancel a room for Ada with Rooms", [cancel: true, "bookedBy": "Ada"]),
    // Number words.
    book("Book room twelve with Rooms", [cancel: false, "roomNumber": 12]),
    book("Book room twenty one for Ada with Rooms", [cancel: false, "roomNumber": 21, "bookedBy": "Ada"]),
    book("Book room twenty-one with Rooms", [cancel: false, "roomNumber": 21]),
    book("Book room one hundred and five with Rooms", [cancel: false, "roomNumber": 105]),
    door("Open the door of room ninety nine with Rooms", ["roomNumber": 99]),
    door("Open the door of room zero with Rooms", ["roomNumber": 0]),
    // Synonyms from ParameterVocabularies.
    book("Reserve room 12 for Ada with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("Unbook room 12 with Rooms", [cancel: true, "roomNumber": 12]),
    book("Cancel the booking of room 12 for Ada with Rooms", [cancel: true, "roomNumber": 12, "bookedBy": "Ada"]),
    book("Cancel my booking of a room with Rooms", [cancel: true]),
    book("Cancel booking with Rooms", [cancel: true]),
    // The app's other names: alternative, its pronunciation hint, spoken.
    book("Book room 12 with Room Booking", [cancel: false, "roomNumber": 12]),
    book("Book room 12 with Room Bookings", [cancel: false, "roomNumber": 12]),
    book("Book room 12 with Meeting Rooms", [cancel: false, "roomNumber": 12]),
    door("Meeting Rooms, open the door of room 4", ["roomNumber": 4]),
    // The app named first, last (with, using, in, on), or asked.
    book("Rooms, book room 12 for Ada", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    book("Rooms book a room", [cancel: false]),
    book("Book room 12 using Rooms", [cancel: false, "roomNumber": 12]),
    book("Book room 12 in Rooms", [cancel: false, "roomNumber": 12]),
    book("Book room 12 on Rooms", [cancel: false, "roomNumber": 12]),
    book("Ask Rooms to book room 12 for Ada", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    door("Ask Rooms to open the door of room 2", ["roomNumber": 2]),
    book("Book room 12 with com.example.rooms", [cancel: false, "roomNumber": 12]),
    // Case, punctuation, spacing.
    book("BOOK ROOM 12 WITH ROOMS", [cancel: false, "roomNumber": 12]),
    book("book room 12 with rooms", [cancel: false, "roomNumber": 12]),
    book("  Book   room 12   with  Rooms  ", [cancel: false, "roomNumber": 12]),
    book("Book room 12, with Rooms!", [cancel: false, "roomNumber": 12]),
    book("Book room 12 for Ada with Rooms?", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"]),
    door("Open the door of room 12 with Rooms.", ["roomNumber": 12]),
    book("Rooms, book room 12.", [cancel: false, "roomNumber": 12]),
    // An apostrophe inside a word is dropped ("Room's" is "Rooms"), a hyphen or a slash between letters separates
    // words, on both sides (phrases and utterances; issue 14); a text value keeps them as written.
    book("Book-room 12 with Rooms", [cancel: false, "roomNumber": 12]),
    book("Book room/12 with Rooms", [cancel: false, "roomNumber": 12]),
    door("Open the door of room 12 with Room's", ["roomNumber": 12]),
    book("Book room 42 for O’Brien-Smith with Rooms", [cancel: false, "roomNumber": 42, "bookedBy": "O’Brien-Smith"]),
    // A time is one word: "09:30", not "09" and "30".
    book("Book room 12 for Ada at 09:30 with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Ada at 09:30"]),
    // A text slot takes the user's text as written, between the phrase's neighbouring words: little words, case,
    // inner punctuation, symbols, emoji and invisible characters kept; the spaces and sentence punctuation around it
    // not. A value that is only little words is a value ("A" is an initial).
    book("book room 38 for A B with Rooms", [cancel: false, "roomNumber": 38, "bookedBy": "A B"]),
    book("book room 40 for The Ada with Rooms", [cancel: false, "roomNumber": 40, "bookedBy": "The Ada"]),
    book("book room 39 for A with Rooms", [cancel: false, "roomNumber": 39, "bookedBy": "A"]),
    book("book room 41 for the Beatles, with Rooms", [cancel: false, "roomNumber": 41, "bookedBy": "the Beatles"]),
    book("book room 31 for Zoë 🎉 with Rooms", [cancel: false, "roomNumber": 31, "bookedBy": "Zoë 🎉"]),
    book("book room 33 for A\u{202E}B with Rooms", [cancel: false, "roomNumber": 33, "bookedBy": "A\u{202E}B"]),
    book("Rooms, book room 34 for Ada & Co., Ltd.", [cancel: false, "roomNumber": 34, "bookedBy": "Ada & Co., Ltd"]),
    book("Book room 35 for \u{201C}Ada\u{201D} with Rooms", [cancel: false, "roomNumber": 35, "bookedBy": "Ada"]),
    book("Book room 36 for my friend Ada with Rooms", [cancel: false, "roomNumber": 36, "bookedBy": "my friend Ada"]),
    // Little words between the phrase's words may still be left out (the control: "the" is no value here).
    book("Book the room 37 for Ada with Rooms", [cancel: false, "roomNumber": 37, "bookedBy": "Ada"]),
    // Fullwidth and other compatibility forms are their plain letters for names and phrases (NFKC), but a text
    // value keeps them as written.
    book("Ｒｏｏｍｓ, book room 5 for Ada", [cancel: false, "roomNumber": 5, "bookedBy": "Ada"]),
    book("Ｂｏｏｋ ｒｏｏｍ １２ with Rooms", [cancel: false, "roomNumber": 12]),
    book("Book room 6 for Ａｄａ with Ｒｏｏｍｓ", [cancel: false, "roomNumber": 6, "bookedBy": "Ａｄａ"]),
    // Must not match: what is suggested. The app named: its phrases closest to what was said (shared words, then
    // word edits; a number is as good as another), or, when none shares a word, an example of each intent.
    refused(
      "Paint room 12 with Rooms",
      "Rooms has no intent matching \"paint room 12\"; closest: \"Cancel room 12 with Rooms\", "
        + "\"Book room 12 for Ada with Rooms\", \"Cancel room 12 for Ada with Rooms\""),
    refused(
      "Rooms, cancel my reservation",
      "Rooms has no intent matching \"cancel my reservation\"; closest: \"Cancel a room with Rooms\", "
        + "\"Cancel room 12 with Rooms\", \"Cancel room 12 for Ada with Rooms\""),
    refused(
      "Open the dor of my room with Rooms",
      "Rooms has no intent matching \"open the dor of my room\"; closest: "
        + "\"Open the door of room 12 with Rooms\", \"Open a door with Rooms\""),
    refused(
      "Bok a rooom with Rooms",
      "Rooms has no intent matching \"bok a rooom\"; closest: \"Book a room with Rooms\", "
        + "\"Book room 12 for Ada with Rooms\", \"Cancel a room with Rooms\""),
    refused(
      "Fly me to the moon with Rooms",
      "Rooms has no intent matching \"fly me to the moon\"; try: \"Book room 12 for Ada with Rooms\", "
        + "\"Open the door of room 12 with Rooms\", \"Cancel room 12 for Ada with Rooms\""),
    // The app named, nothing asked: what to ask it.
    refused("with Rooms", "you named Rooms but did not say what to do; try: \(tryRooms)"),
    refused("Rooms,", "you named Rooms but did not say what to do; try: \(tryRooms)"),
    refused("Ask Rooms to", "you named Rooms but did not say what to do; try: \(tryRooms)"),
    refused("ask Rooms", "you named Rooms but did not say what to do; try: \(tryRooms)"),
    refused("Meeting Rooms!", "you named Rooms but did not say what to do; try: \(tryRooms)"),
    refused("using com.example.rooms", "you named Rooms but did not say what to do; try: \(tryRooms)"),
    // A misspelt app: the closest names.
    refused(
      "Book room 12 with Roms",
      "\"Book room 12 with Roms\": no installed app is called \"Roms\" (did you mean \"Rooms\"?); "
        + "installed: \(installed)"),
    refused(
      "Book room 12 in Roms",
      "\"Book room 12 in Roms\": no installed app is called \"Roms\" (did you mean \"Rooms\"?); "
        + "installed: \(installed)"),
    refused(
      "Book room 12 for Ada on Room Boking",
      "\"Book room 12 for Ada on Room Boking\": no installed app is called \"Room Boking\" (did you mean "
        + "\"Room Booking\" or \"Room Bookings\"?); installed: \(installed)"),
    // Misspelt and named first, or after "ask": the closest names too (the control: words before a comma that are
    // not close to a name are no name, and the phrases are suggested).
    refused(
      "Roooms, book room 5 for Ada",
      "\"Roooms, book room 5 for Ada\": no installed app is called \"Roooms\" (did you mean \"Rooms\"?); "
        + "installed: \(installed)"),
    refused(
      "Room Boking, book room 5",
      "\"Room Boking, book room 5\": no installed app is called \"Room Boking\" (did you mean \"Room Booking\" or "
        + "\"Room Bookings\"?); installed: \(installed)"),
    refused(
      "Ask Roms to book room 5",
      "\"Ask Roms to book room 5\": no installed app is called \"Roms\" (did you mean \"Rooms\"?); "
        + "installed: \(installed)"),
    refused(
      "Please, book room 12 for Ada",
      "no installed app is named in \"Please, book room 12 for Ada\"; did you mean \"Book room 12 for Ada with Rooms\" "
        + "or \"Cancel room 12 for Ada with Rooms\"?"),
    // "in" and "on" are ordinary words too: words after them that are no app's name are not taken for one.
    refused(
      "Book a room in the morning",
      "no installed app is named in \"Book a room in the morning\"; did you mean \"Book a room with Rooms\" or "
        + "\"Book room 12 for Ada with Rooms\"?"),
    // Words may follow the app's name ("... with Ascent for 30 minutes"): the name meant is the words close to an
    // installed app's name.
    refused(
      "Open the door of room 12 with Roms in the morning",
      "\"Open the door of room 12 with Roms in the morning\": no installed app is called \"Roms\" (did you mean "
        + "\"Rooms\"?); installed: \(installed)"),
    refused(
      "Book room 12 with Hotels",
      "\"Book room 12 with Hotels\": no installed app is called \"Hotels\"; installed: \(installed)"),
    // No app named: the phrases of any app close to the words (two words and half of them shared), with the app's
    // name; otherwise how to name one.
    refused(
      "Book room 12 for Ada",
      "no installed app is named in \"Book room 12 for Ada\"; did you mean \"Book room 12 for Ada with Rooms\" "
        + "or \"Cancel room 12 for Ada with Rooms\"?"),
    refused(
      "Book room 12",
      "no installed app is named in \"Book room 12\"; did you mean \"Book room 12 for Ada with Rooms\", "
        + "\"Cancel room 12 with Rooms\" or \"Book a room with Rooms\"?"),
    refused(
      "Book a table",
      "no installed app is named in \"Book a table\"; end it with \"with APP\" (installed: \(installed))"),
  ]

  static let soupRows: [Row] = [
    order("Order clam chowder with Soup Chef", ["soup": .enumCase("clamChowder")]),
    order("Order 2 clam chowder with Soup Chef", ["soup": .enumCase("clamChowder"), "quantity": 2]),
    order("Order two tomato soup with Soup Chef", ["soup": .enumCase("tomatoSoup"), "quantity": 2]),
    order("Order twelve chicken noodle soup with Soup Chef", ["soup": .enumCase("chickenNoodleSoup"), "quantity": 12]),
    order("Order chowder with Soup Chef", ["soup": .enumCase("clamChowder")]),
    order("Order 3 noodle soup with Soup Chef", ["soup": .enumCase("chickenNoodleSoup"), "quantity": 3]),
    order(
      "Order 2 tomato soup for delivery with Soup Chef",
      ["soup": .enumCase("tomatoSoup"), "quantity": 2, "orderType": .enumCase("delivery")]),
    order(
      "Order two clam chowder for pickup with Soup Chef",
      ["soup": .enumCase("clamChowder"), "quantity": 2, "orderType": .enumCase("pickup")]),
    order("Soup Chef, order tomato soup", ["soup": .enumCase("tomatoSoup")]),
    order("Ask Soup Chef to order 4 clam chowder", ["soup": .enumCase("clamChowder"), "quantity": 4]),
    order("order CLAM CHOWDER using soup chef", ["soup": .enumCase("clamChowder")]),
    order("Soup Chef, I'm hungry", [:]),
    order("Soup Chef I'm hungry!", [:]),
    refused(
      "Order pizza with Soup Chef",
      "Soup Chef has no intent matching \"order pizza\"; closest: \"Order Soup with Soup Chef\", "
        + "\"Order Clam Chowder with Soup Chef\", \"Order 2 clam chowder with Soup Chef\""),
    refused(
      "Soup Chef, feed us now",
      "Soup Chef has no intent matching \"feed us now\"; try: \"Order 2 clam chowder with Soup Chef\", "
        + "\"Soup Chef, I'm hungry\""),
    // "I'm" is the word "im" (issue 14), a misspelling of "am": close.
    refused(
      "Soup Chef, I am starving",
      "Soup Chef has no intent matching \"i am starving\"; closest: \"Soup Chef, I'm hungry\""),
    refused(
      "Order 3 tomato soups",
      "no installed app is named in \"Order 3 tomato soups\"; did you mean \"Order 2 clam chowder with Soup Chef\", "
        + "\"Order 12 Clam Chowder for pickup with Soup Chef\" or "
        + "\"Order 12 Clam Chowder for pickup to Ada with Soup Chef\"?"),
    refused(
      "Order soup with Soup Kitchen",
      "\"Order soup with Soup Kitchen\": no installed app is called \"Soup Kitchen\" (did you mean "
        + "\"Soup Chef\"?); installed: \(installed)"),
  ]

  static let systemRows: [Row] = [
    Row(utterance: "Start a workout with Ascent", reached: ("com.example.ascent", "INStartWorkoutIntent")),
    Row(utterance: "Ascent, end my workout", reached: ("com.example.ascent", "INEndWorkoutIntent")),
    Row(utterance: "Stop my workout with Ascent", reached: ("com.example.ascent", "INEndWorkoutIntent")),
    // Named, nothing asked, and no IntentExamples: its first phrases that can be said.
    refused(
      "Ascent,",
      "you named Ascent but did not say what to do; try: \"Start a workout with Ascent\", "
        + "\"Begin a workout with Ascent\", \"End my workout with Ascent\""),
    // A system intent the app does not support: its supported ones' phrases, those with "my" first.
    refused(
      "Pause my workout with Ascent",
      "Ascent has no intent matching \"pause my workout\"; closest: \"End my workout with Ascent\", "
        + "\"Stop my workout with Ascent\", \"Finish my workout with Ascent\""),
  ]

  static let meters = "com.example.meters"
  static func reading(_ utterance: String, _ values: [String: ParameterValue]) -> Row {
    Row(utterance: utterance, reached: (meters, "LogReadingIntent"), values: values)
  }
  static func date(_ text: String) -> ParameterValue { .date(ParameterValue.parseDate(text)!) }

  /// Numbers, dates and durations in titles: a decimal and an ISO 8601 date-time are one word each, whatever
  /// punctuation they hold; punctuation around them still does not count.
  static let meterRows: [Row] = [
    reading(
      "Log 2.5 litres at 2026-11-21T09:30:00Z with Meters",
      ["amount": .decimal(2.5), "at": date("2026-11-21T09:30:00Z")]),
    reading(
      "Meters, log 0.75 litres at 2026-11-21T09:30:00+02:00.",
      ["amount": .decimal(0.75), "at": date("2026-11-21T07:30:00Z")]),
    reading(
      "Log 2.5 litres at 2026-11-21T09:30:00.250Z, with Meters!",
      ["amount": .decimal(2.5), "at": date("2026-11-21T09:30:00.250Z")]),
    reading(
      "Log two point five litres over half an hour with Meters", ["amount": .decimal(2.5), "length": .decimal(1800)]),
    reading("Log 3 litres over an hour and a half with Meters", ["amount": .decimal(3), "length": .decimal(5400)]),
    reading("Log 1.5 litres over 90 seconds with Meters", ["amount": .decimal(1.5), "length": .decimal(90)]),
    reading("Log Reading with Meters", [:]),
  ]

  static func french(_ row: Row) -> Row {
    var row = row
    row.locale = "fr_FR"
    return row
  }

  /// Under `--locale fr_FR`: Rooms' French titles (fr.lproj/Intents.strings) and name (Salles), their words in any
  /// case; its English phrases still work. The control: without the locale, French is not understood.
  static let frenchRows: [Row] = [
    french(book("Réserver la salle 50 pour Ada with Rooms", [cancel: false, "roomNumber": 50, "bookedBy": "Ada"])),
    french(book("réserver LA SALLE 50 pour Ada with Rooms", [cancel: false, "roomNumber": 50, "bookedBy": "Ada"])),
    french(book("Annuler la salle 12 with Salles", [cancel: true, "roomNumber": 12])),
    french(book("Salles, réserver une salle pour Grace", [cancel: false, "bookedBy": "Grace"])),
    french(book("Réserver une salle with Rooms", [cancel: false])),
    french(door("Ouvrir la porte de la salle 3 with Rooms", ["roomNumber": 3])),
    french(book("Book room 12 for Ada with Rooms", [cancel: false, "roomNumber": 12, "bookedBy": "Ada"])),
    french(book("Book room 12 with Salles", [cancel: false, "roomNumber": 12])),
    refused(
      "Réserver la salle 50 pour Ada with Rooms",
      "Rooms has no intent matching \"réserver la salle 50 pour ada\"; closest: \"Book room 12 for Ada with Rooms\", "
        + "\"Cancel room 12 for Ada with Rooms\", \"Cancel a room for Ada with Rooms\""),
    refused(
      "Book room 12 with Salles",
      "\"Book room 12 with Salles\": no installed app is called \"Salles\"; installed: \(installed)"),
  ]

  static func check(_ row: Row, among apps: [AppBundle]) {
    let matcher = UtteranceMatcher(apps: apps, locale: row.locale)
    do {
      let match = try matcher.match(row.utterance)
      guard let reached = row.reached else {
        Issue.record("\"\(row.utterance)\" reached \(match.intentClass) of \(match.app.identifier.rawValue)")
        return
      }
      #expect(match.app.identifier.rawValue == reached.app)
      #expect(match.intentClass == reached.intent)
      #expect(match.values == row.values)
    } catch let error as UnderstandingError {
      guard row.reached == nil else {
        Issue.record("\"\(row.utterance)\" not understood: \(error.message)")
        return
      }
      #expect(error.kind == .noMatch, "\(error.message)")
      #expect(error.message == row.message)
    } catch {
      Issue.record("\(error)")
    }
  }

  @Test(arguments: roomsRows + systemRows + meterRows + frenchRows)
  func roomsAndSystemIntents(_ row: Row) throws {
    Self.check(row, among: try Self.apps())
  }

  @Test(.enabled(if: present, skipped), arguments: soupRows)
  func soupChef(_ row: Row) throws {
    Self.check(row, among: try Self.apps())
  }

  @Test func theTableIsAtLeastSixtyUtterances() {
    #expect(
      Self.roomsRows.count + Self.soupRows.count + Self.systemRows.count + Self.meterRows.count
        + Self.frenchRows.count >= 60)
  }
}
