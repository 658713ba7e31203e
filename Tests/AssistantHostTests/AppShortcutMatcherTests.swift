import AppIntentsMetadata
import BundleManifest
import ExtensionProtocol
import Foundation
import TestSupport
import Testing
import Understanding

@testable import AssistantHost

/// `AppShortcutMatcher` (App Shortcut phrases against an utterance) and the App Intents driver's readers of the
/// user's words, on seed 000's FuelOrder metadata with the corrected phrases. In-process.
@Suite(.tags(.unit)) struct AppShortcutMatcherTests {
  /// FuelOrder.app with the corrected phrases, loaded; its display name "Fuel Order" beside its bundle name.
  static func fuelOrder(displayName: String? = "Fuel Order") throws -> (AppBundle, TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    let url = try TestBundles.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases, in: directory.url)
    if let displayName {
      try writePlist(
        [
          "CFBundleIdentifier": "com.example.fuel", "CFBundleExecutable": "fuelorder", "CFBundleName": "FuelOrder",
          "CFBundleDisplayName": displayName, "CFBundlePackageType": "APPL",
        ], to: url.appendingPathComponent("Info.plist"))
    }
    return (try AppBundle.load(from: url), directory)
  }

  @Test(
    arguments: [
      ("Fuel my car with FuelOrder", nil),
      ("fuel my car with fuelorder", nil),
      ("Hey Siri, fuel my car with Fuel Order.", nil),
      ("Fuel my car at home with FuelOrder", "home"),
      ("Fuel my car at work with Fuel Order", "work"),
      ("Fuel my car at the work with FuelOrder", "work"),
      ("Fuel my car at my house with FuelOrder", "home"),  // a synonym
      ("Fuel my car at HOME with FuelOrder!", "home"),
    ] as [(String, String?)])
  func aPhraseSaidWholeNamesTheIntentAndItsSlot(_ utterance: String, _ location: String?) throws {
    let (app, directory) = try Self.fuelOrder()
    defer { directory.remove() }
    let found = AppShortcutMatcher(apps: [app]).matches(utterance)
    try #require(found.count == 1, "\(utterance)")
    #expect(found[0].identifier == "OrderFuelIntent")
    #expect(found[0].values == (location.map { ["location": .enumCase($0)] } ?? [:]), "\(utterance)")
    #expect(found[0].metadata.bundleURL.lastPathComponent == "FuelOrderIntents.appex")
  }

  /// The control: what is not a phrase said whole matches nothing, so the SiriKit matcher gets it.
  @Test(arguments: [
    "Fuel my car",  // no app name
    "Fuel my car at the beach with FuelOrder",  // no such case
    "Fuel my car with Rooms",  // another app's name
    "Please fuel my car with FuelOrder",  // a word the phrase does not have
    "Fuel my car at with FuelOrder",  // an empty slot
    "Fuel my car at home",
  ])
  func whatIsNotAPhraseMatchesNothing(_ utterance: String) throws {
    let (app, directory) = try Self.fuelOrder()
    defer { directory.remove() }
    #expect(AppShortcutMatcher(apps: [app]).matches(utterance).isEmpty, "\(utterance)")
  }

  /// A phrase with two slots (which install refuses, and a changed file could still have) never matches: a reading
  /// of one slot is bounded by the utterance's words, of several it would not be.
  @Test func aPhraseWithTwoSlotsNeverMatches() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let url = try TestBundles.fuelOrder(
      phrases: [
        "Fuel my car at ${location} then ${location} with ${applicationName}",
        "Fuel at ${location} with ${applicationName}",
      ],
      in: directory.url)
    let matcher = AppShortcutMatcher(apps: [try AppBundle.load(from: url)])
    #expect(matcher.matches("Fuel my car at home then work with FuelOrder").isEmpty)
    #expect(matcher.matches("Fuel at work with FuelOrder").first?.values == ["location": .enumCase("work")])  // control
  }

  /// A phrase's translation in `LANG.lproj/AppShortcuts.strings` is said in that language (`--locale de_DE`), and
  /// only in it (the control: without the locale, the German words match nothing).
  @Test func aTranslatedPhraseIsSaidInItsLanguage() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let url = try TestBundles.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases, in: directory.url)
    let german = url.appendingPathComponent("Extensions/FuelOrderIntents.appex/de.lproj")
    try FileManager.default.createDirectory(at: german, withIntermediateDirectories: true)
    try Data(
      #""Fuel my car at ${location} with ${applicationName}" = "Tanke mein Auto bei ${location} mit ${applicationName}";"#
        .utf8
    ).write(to: german.appendingPathComponent("AppShortcuts.strings"))
    let app = try AppBundle.load(from: url)
    let found = AppShortcutMatcher(apps: [app], locale: "de_DE").matches("Tanke mein Auto bei Work mit FuelOrder")
    #expect(found.first?.values == ["location": .enumCase("work")], "\(found.map(\.phrase))")
    #expect(AppShortcutMatcher(apps: [app], locale: "de_DE").matches("Fuel my car at work with FuelOrder").count == 1)
    #expect(AppShortcutMatcher(apps: [app]).matches("Tanke mein Auto bei Work mit FuelOrder").isEmpty)
    #expect(AppShortcutMatcher(apps: [app], locale: "fr_FR").matches("Tanke mein Auto bei Work mit FuelOrder").isEmpty)
  }

  /// `phrases --check` says each App Shortcut phrase as a user would and checks it reaches its own intent: a phrase
  /// another intent claims too, and one that reaches nothing, are errors; the corrected phrases pass (the control).
  @Test func theCheckSaysEveryAppShortcutPhrase() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let url = try TestBundles.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases, in: directory.url)
    #expect(PhraseBook.check(try AppBundle.load(from: url)).isEmpty)
    #expect(PhraseBook.checkedPhraseCount(try AppBundle.load(from: url)) == 2)
    // A second intent with the first phrase, and a phrase with two slots (which the matcher never reads).
    let file = url.appendingPathComponent("Extensions/FuelOrderIntents.appex/Metadata.appintents/extract.actionsdata")
    var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    var actions = try #require(json["actions"] as? [String: Any])
    var copy = try #require(actions["OrderFuelIntent"] as? [String: Any])
    copy["identifier"] = "RefuelIntent"
    actions["RefuelIntent"] = copy
    json["actions"] = actions
    var shortcuts = try #require(json["autoShortcuts"] as? [[String: Any]])
    var refuel = shortcuts[0]
    refuel["actionIdentifier"] = "RefuelIntent"
    refuel["phraseTemplates"] = [["key": "Fuel my car with ${applicationName}", "alternatives": [String]()]]
    var phrases = try #require(shortcuts[0]["phraseTemplates"] as? [[String: Any]])
    phrases.append(["key": "Fuel at ${location} and ${location} with ${applicationName}", "alternatives": [String]()])
    shortcuts[0]["phraseTemplates"] = phrases
    json["autoShortcuts"] = shortcuts + [refuel]
    try JSONSerialization.data(withJSONObject: json).write(to: file)
    let found = PhraseBook.check(try AppBundle.load(from: url))
    let claimed = "\"Fuel my car with FuelOrder\" is claimed by OrderFuelIntent and RefuelIntent"
    #expect(
      found.map(\.message) == [claimed, "\"Fuel at Home and Home with FuelOrder\" reaches nothing", claimed],
      "\(found)")
    #expect(found.map(\.rule) == [.intentPhraseClaimedTwice, .intentPhraseUnreachable, .intentPhraseClaimedTwice])
    #expect(found[1].keyPath == "autoShortcuts[0].phraseTemplates[2]")
  }

  @Test func theDisplayNameIsANameOnlyWhenTheAppHasIt() throws {
    let (app, directory) = try Self.fuelOrder(displayName: nil)
    defer { directory.remove() }
    #expect(AppShortcutMatcher(apps: [app]).matches("Fuel my car with Fuel Order").isEmpty)
    #expect(AppShortcutMatcher(apps: [app]).matches("Fuel my car with FuelOrder").count == 1)
  }

  @Test func anEnumAnswerReadsByIdentifierTitleOrSynonym() throws {
    let (app, directory) = try Self.fuelOrder()
    defer { directory.remove() }
    let invocation = try #require(try Assistant.appIntent(named: "OrderFuelIntent", in: app))
    #expect(try Assistant.appIntent(named: "order fuel", in: app)?.identifier == "OrderFuelIntent")  // its title
    #expect(try Assistant.appIntent(named: "BookRoomIntent", in: app) == nil)
    let location = try #require(invocation.action.parameter("location"))
    let document = invocation.document
    #expect(IntentDriver.read("Home", for: location, in: document) == .enumCase("home"))
    #expect(IntentDriver.read("my house", for: location, in: document) == .enumCase("home"))
    #expect(IntentDriver.read("the work", for: location, in: document) == .enumCase("work"))
    #expect(IntentDriver.read("the beach", for: location, in: document) == nil)
    #expect(IntentDriver.words(for: .enumCase("work"), in: document) == "Work")
    #expect(IntentDriver.expectation(for: location, in: document) == "one of Home, Work")
  }

  /// A title two App Intents share names neither: `run` refuses it as a usage error (64) listing the type names that
  /// name each, and `validate` warns about the second title (`app-intents-duplicate-title`). The controls: each
  /// type name still names its intent, and the fixture's single title names it.
  @Test func aTitleSeveralIntentsShareNamesNone() throws {
    let (app, directory) = try Self.fuelOrder()
    defer { directory.remove() }
    #expect(try Assistant.appIntent(named: "Order Fuel", in: app)?.identifier == "OrderFuelIntent")
    let file = app.url.appendingPathComponent(
      "Extensions/FuelOrderIntents.appex/Metadata.appintents/extract.actionsdata")
    let text = try String(contentsOf: file, encoding: .utf8)
    let actions = #""actions": {"OrderFuelIntent": {"#
    #expect(text.contains(actions))
    try Data(
      text.replacingOccurrences(
        of: actions,
        with: #""actions": {"RefuelIntent": {"title": {"key": "order fuel!", "alternatives": []}, "#
          + #""descriptionMetadata": {"descriptionText": {"key": "Refuels", "alternatives": []}}}, "#
          + #""OrderFuelIntent": {"#
      ).utf8
    ).write(to: file)
    let twice = try AppBundle.load(from: app.url)
    #expect {
      try Assistant.appIntent(named: "Order Fuel", in: twice)
    } throws: { error in
      let error = error as? HostError
      return error?.status == .usage
        && error?.message
          == "\"Order Fuel\" is the title of 2 App Intents of Fuel Order (OrderFuelIntent, RefuelIntent), so it does "
          + "not say which; name one by its identifier instead: OrderFuelIntent or RefuelIntent"
    }
    #expect(try Assistant.appIntent(named: "OrderFuelIntent", in: twice)?.identifier == "OrderFuelIntent")
    #expect(try Assistant.appIntent(named: "refuel", in: twice)?.identifier == "RefuelIntent")

    let warned = twice.appIntentsDiagnostics
    #expect(warned.map(\.rule) == [.appIntentsDuplicateTitle], "\(warned)")
    #expect(warned.first?.severity == .warning)
    #expect(warned.first?.keyPath == "actions.RefuelIntent.title")
    #expect(
      warned.first?.message
        == "is \"order fuel!\", as the title of OrderFuelIntent is: a person who names the intent by its title "
        + "(`assistant run APP TITLE`, Shortcuts' list) cannot tell the two apart")
  }

  /// A Date is read as ISO 8601, a URL as an absolute URL; anything else is refused with what it must be (the control).
  @Test func aDateOrAURLAnswerIsRead() throws {
    let document = MetadataDocument()
    let when = MetadataDocument.Parameter(
      name: try #require(MetadataIdentifier(validating: "when")), title: "When", valueType: .primitive(.date))
    let link = MetadataDocument.Parameter(
      name: try #require(MetadataIdentifier(validating: "link")), title: "Link", valueType: .primitive(.url))
    let date = try #require(ParameterValue.parseDate("2026-11-21T09:30:00Z"))
    #expect(IntentDriver.read(" 2026-11-21T09:30:00Z", for: when, in: document) == .date(date))
    #expect(IntentDriver.read("next tuesday", for: when, in: document) == nil)
    #expect(IntentDriver.expectation(for: when, in: document) == "a date and time, as 2026-11-21T09:30:00Z")
    #expect(IntentDriver.read("https://example.com/a", for: link, in: document) == .string("https://example.com/a"))
    #expect(IntentDriver.read("example", for: link, in: document) == nil)
    // A duration in words, seconds on the wire; a bare number is minutes, as for SiriKit's durations.
    let length = MetadataDocument.Parameter(
      name: try #require(MetadataIdentifier(validating: "length")), title: "Length", valueType: .duration)
    #expect(IntentDriver.read("1 hour 30 minutes", for: length, in: document) == .decimal(5400))
    #expect(IntentDriver.read("90 s", for: length, in: document) == .decimal(90))
    #expect(IntentDriver.read("45", for: length, in: document) == .decimal(2700))
    #expect(IntentDriver.read("soon", for: length, in: document) == nil)
    #expect(
      IntentDriver.expectation(for: length, in: document)
        == "a duration, as 90 seconds, 45 minutes or 1 hour 30 minutes")
  }

  /// A negative phrase said whole bypasses the app's App Shortcuts, even one its own phrase would match; the
  /// controls: the app's other phrases still match, and without the negative phrase the same words do.
  @Test func aNegativePhraseBypassesTheAppsShortcuts() throws {
    let (app, directory) = try Self.fuelOrder()
    defer { directory.remove() }
    let said = "Fuel my car at work with FuelOrder"
    #expect(AppShortcutMatcher(apps: [app]).matches(said).count == 1)
    let file = app.url.appendingPathComponent(
      "Extensions/FuelOrderIntents.appex/Metadata.appintents/extract.actionsdata")
    let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(
      of: #""negativePhrases": []"#,
      with: #""negativePhrases": [{"key": "Fuel my car at work with ${applicationName}", "alternatives": []}]"#)
    try Data(text.utf8).write(to: file)
    let negative = try AppBundle.load(from: app.url)
    #expect(negative.allAppIntentsMetadata.first?.readDocument?.negativePhrases.count == 1)
    #expect(AppShortcutMatcher(apps: [negative]).matches(said).isEmpty)
    #expect(AppShortcutMatcher(apps: [negative]).matches("fuel my car at work with fuel order").isEmpty)
    #expect(AppShortcutMatcher(apps: [negative]).matches("Fuel my car at home with FuelOrder").count == 1)
  }

  /// An array parameter is given as items separated by commas (as a SiriKit parameter with multiple values), each
  /// read as a value of its member type, into an `array` value; one item that does not read refuses the whole, with
  /// what each must be. An AppEntity list is read by its query. The control: a String of one value keeps its commas.
  @Test func aListAnswerIsReadItemByItem() throws {
    let (app, directory) = try Self.fuelOrder()
    defer { directory.remove() }
    let document = try #require(try Assistant.appIntent(named: "OrderFuelIntent", in: app)).document
    func parameter(_ name: String, _ type: MetadataDocument.ValueType) throws -> MetadataDocument.Parameter {
      MetadataDocument.Parameter(name: try #require(MetadataIdentifier(validating: name)), title: "T", valueType: type)
    }
    let places = try parameter("places", .array(.enumeration(try #require(MetadataIdentifier(validating: "Location")))))
    #expect(
      IntentDriver.read("home, the work", for: places, in: document) == .array([.enumCase("home"), .enumCase("work")]))
    #expect(
      IntentDriver.read("my house,,work,", for: places, in: document) == .array([.enumCase("home"), .enumCase("work")]))
    #expect(IntentDriver.read("work", for: places, in: document) == .array([.enumCase("work")]))
    #expect(IntentDriver.read("home, the beach", for: places, in: document) == nil)
    #expect(IntentDriver.read(" , ", for: places, in: document) == nil)
    #expect(IntentDriver.expectation(for: places, in: document) == "one of Home, Work, or several separated by commas")

    let counts = try parameter("counts", .array(.primitive(.int)))
    #expect(
      IntentDriver.read("1, 2,12", for: counts, in: document) == .array([.integer(1), .integer(2), .integer(12)]))
    #expect(IntentDriver.read("1, many", for: counts, in: document) == nil)
    #expect(IntentDriver.expectation(for: counts, in: document) == "a whole number, or several separated by commas")
    let tags = try parameter("tags", .array(.primitive(.string)))
    #expect(IntentDriver.read("red, green", for: tags, in: document) == .array([.string("red"), .string("green")]))
    let text = try parameter("text", .primitive(.string))
    #expect(IntentDriver.read("red, green", for: text, in: document) == .string("red, green"))

    // A list of AppEntities is words for its query, as one AppEntity is; a list of enums is read at once.
    #expect(
      IntentDriver.readsByQuery(
        try parameter("cars", .array(.entity(try #require(MetadataIdentifier(validating: "Car")))))))
    #expect(
      IntentDriver.readsByQuery(try parameter("car", .entity(try #require(MetadataIdentifier(validating: "Car"))))))
    #expect(!IntentDriver.readsByQuery(places))
    #expect(IntentDriver.choosePrompt(3, several: true) == "Choose one or more of 1-3, separated by commas:")
  }

  /// A list of one choice is asked naturally ("Say 1 to choose it:", not "Choose 1-1:"), and a choice whose title or
  /// display string is blank is shown by its identifier, never empty. The controls: several choices, and a title.
  @Test func oneChoiceAndABlankTitleAreSaidNaturally() throws {
    #expect(IntentDriver.choosePrompt(1) == "Say 1 to choose it:")
    #expect(IntentDriver.choosePrompt(1, several: true) == "Say 1 to choose it:")
    #expect(IntentDriver.choosePrompt(2) == "Choose 1-2:")
    #expect(IntentDriver.numbers(1) == "1" && IntentDriver.numbers(3) == "a number from 1 to 3")
    var document = try MetadataReader.read(
      Array(AppIntentsFixtures.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases).utf8),
      file: "/M/extract.actionsdata"
    ).document
    #expect(IntentDriver.words(for: .object(ObjectValue(identifier: "v1", displayString: " ")), in: document) == "v1")
    #expect(
      IntentDriver.words(for: .object(ObjectValue(identifier: "v1", displayString: "Blue Golf")), in: document)
        == "Blue Golf")
    #expect(IntentDriver.words(for: .enumCase("work"), in: document) == "Work")
    document.enums[0].cases[1].title = ""
    #expect(IntentDriver.words(for: .enumCase("work"), in: document) == "work")
  }

  @Test func thePolicyIsALockRuleUpFront() throws {
    let (app, directory) = try Self.fuelOrder()
    defer { directory.remove() }
    // The fixture's OrderFuelIntent has authenticationPolicy 2.
    let invocation = try #require(try Assistant.appIntent(named: "OrderFuelIntent", in: app))
    let rules = IntentDriver.lockRules(of: invocation)
    #expect(rules.map(\.name) == ["app-intent-authentication-policy", "continue-in-app"])
    #expect(rules[0].knownUpFront && rules[0].need == .unlockedDevice)
    #expect(rules[0].source.contains("authenticationPolicy is requiresLocalDeviceAuthentication"), "\(rules[0])")
    #expect(!rules[1].knownUpFront)
    // The control: an intent that is always allowed has only continueInForeground's rule.
    var allowed = invocation
    allowed.action.authenticationPolicy = .none
    #expect(IntentDriver.lockRules(of: allowed).map(\.name) == ["continue-in-app"])
    // `openAppWhenRun`: the app comes to the foreground first, a rule known up front, and none for continuing there.
    var opening = allowed
    opening.action.openAppWhenRun = true
    let opens = IntentDriver.lockRules(of: opening)
    #expect(opens.map(\.name) == ["open-app-when-run"])
    #expect(opens[0].knownUpFront && opens[0].need == .unlockedDevice)
    #expect(
      opens[0].source.hasPrefix("OrderFuelIntent opens Fuel Order when run (openAppWhenRun in Extensions/"),
      "\(opens[0])")
    // Where it runs: the app, though an App Intents extension declares it.
    #expect(try IntentDriver.target(of: opening).kind == .app)
    #expect(try IntentDriver.target(of: allowed).kind == .intentsExtension)
  }

  @Test func aConfirmationActionIsSaidAsItsWords() {
    #expect(IntentDriver.verb(.order) == "order")
    #expect(IntentDriver.verb(.checkIn) == "check in")
    #expect(IntentDriver.verb(.addData) == "add data")
  }
}
