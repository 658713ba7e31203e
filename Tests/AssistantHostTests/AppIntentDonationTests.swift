import AppIntentsMetadata
import BundleManifest
import ExtensionProtocol
import Foundation
import TestSupport
import Testing

@testable import AssistantHost

/// Donations of App Intents (`host/donate` with `appIntent`) as the host checks and keeps them, and the shortcuts of
/// the user made from them: the intent must be one the app's `Metadata.appintents` declares, each value of its
/// parameter's type; a shortcut of one is inactive once the app stops declaring it.
@Suite(.tags(.unit))
struct AppIntentDonationTests {
  static func order(_ location: ParameterValue = .enumCase("home")) -> DonateAppIntentRequest {
    DonateAppIntentRequest(
      appIntent: AppIntentInstance(identifier: "OrderFuelIntent", parameters: ["location": location]))
  }

  @Test func aDonationOfADeclaredIntentWithItsTypesIsAccepted() throws {
    let (app, directory) = try AppShortcutMatcherTests.fuelOrder()
    defer { directory.remove() }
    let rules = DonationRules(definitions: [], appIntents: app.allAppIntentsMetadata)
    // The control of every refusal below.
    #expect(rules.problem(Self.order()) == nil)
    #expect(rules.problem(DonateAppIntentRequest(appIntent: AppIntentInstance(identifier: "OrderFuelIntent"))) == nil)
    // An intent the app does not declare, a parameter it does not have, a value of another type or no case of the
    // enum, an identifier past its bound.
    #expect(
      rules.problem(DonateAppIntentRequest(appIntent: AppIntentInstance(identifier: "PayEveryoneIntent")))
        == "appIntent.identifier: PayEveryoneIntent is not an App Intent of the app's Metadata.appintents")
    var unknown = Self.order()
    unknown.appIntent.parameters["amount"] = .integer(5)
    #expect(rules.problem(unknown) == "appIntent.parameters.amount: OrderFuelIntent has no parameter amount")
    #expect(
      rules.problem(Self.order(.string("home")))
        == "appIntent.parameters.location: expected a case of the AppEnum Location, not a string")
    #expect(
      rules.problem(Self.order(.enumCase("moon")))
        == "appIntent.parameters.location: moon is not a case of the AppEnum Location (its cases: home, work)")
    var named = Self.order()
    named.identifier = String(repeating: "x", count: 300)
    #expect(rules.problem(named) != nil)
    // An entity's properties are those it declares only (the fixture's has none), and the article fits the type.
    let entity = MetadataDocument.ValueType.entity(try #require(MetadataIdentifier(validating: "Car")))
    #expect(
      rules.appIntentValueProblem(
        .object(ObjectValue(identifier: "c", displayString: "Car", properties: ["x": .integer(1)])), entity,
        in: MetadataDocument(), field: "car") == "car.properties.x: the AppEntity Car declares no property x")
    #expect(
      rules.appIntentValueProblem(
        .object(ObjectValue(identifier: "c", displayString: "Car")), entity,
        in: MetadataDocument(), field: "car") == nil)
    #expect(
      rules.appIntentValueProblem(.integer(3), .primitive(.string), in: MetadataDocument(), field: "n")
        == "n: expected a string, not an integer")
    // An app without App Intents may donate none.
    #expect(DonationRules(definitions: []).problem(Self.order()) != nil)
  }

  /// A duration (a `measurement` of `UnitDuration`) is a number of seconds; any other kind of value is refused.
  @Test func aDurationIsANumberOfSeconds() throws {
    let rules = DonationRules(definitions: [])
    let document = MetadataDocument()
    #expect(rules.appIntentValueProblem(.decimal(90), .duration, in: document, field: "length") == nil)
    #expect(rules.appIntentValueProblem(.integer(90), .duration, in: document, field: "length") == nil)
    #expect(
      rules.appIntentValueProblem(.string("90 minutes"), .duration, in: document, field: "length")
        == "length: expected a number of seconds, not a string")
  }

  /// An identifier names one donation: the same identifier given again with other values replaces the kept one.
  @Test func aGivenIdentifierNamesOneDonation() {
    var record = DonationsRecord()
    func order(_ location: String) -> DonatedInteraction {
      DonatedInteraction(
        intent: Intent(name: "OrderFuelIntent", identifier: "", parameters: ["location": .enumCase(location)]))
    }
    record.add(order("home"), identifier: "usual", groupIdentifier: nil, at: 1, isAppIntent: true)
    record.add(order("work"), identifier: "usual", groupIdentifier: nil, at: 2, isAppIntent: true)
    #expect(record.donations.count == 1)
    #expect(record.donations[0].interaction.intent["location"] == .enumCase("work"))
    // The control: without identifiers, other values are another donation.
    record.add(order("home"), identifier: nil, groupIdentifier: nil, at: 3, isAppIntent: true)
    #expect(record.donations.count == 2)
  }

  @Test func anAppIntentDonationIsKeptApartFromASiriKitOneOfTheSameName() {
    var record = DonationsRecord()
    let intent = Intent(name: "OrderFuelIntent", identifier: "", parameters: ["location": .enumCase("home")])
    let first = record.add(
      DonatedInteraction(intent: intent), identifier: nil, groupIdentifier: nil, at: 1, isAppIntent: true)
    let again = record.add(
      DonatedInteraction(intent: intent), identifier: nil, groupIdentifier: nil, at: 2, isAppIntent: true)
    #expect(first == "d1" && again == "d1" && record.donations.count == 1)
    #expect(record.donations[0].isAppIntent)
    // The control: a SiriKit interaction of the same name and values is another donation.
    record.add(DonatedInteraction(intent: intent), identifier: nil, groupIdentifier: nil, at: 3)
    #expect(record.donations.count == 2 && !record.donations[1].isAppIntent)
    // Deleted by the intent's type, whatever its kind; another type stays.
    record.add(
      DonatedInteraction(intent: Intent(name: "SelectVehicleIntent", identifier: "")), identifier: nil,
      groupIdentifier: nil, at: 4, isAppIntent: true)
    #expect(record.delete(.intentType("OrderFuelIntent")) == 2)
    #expect(record.donations.map(\.interaction.intent.name) == ["SelectVehicleIntent"])
  }

  @Test func aDocumentWrittenBeforeAppIntentsReadsAsSiriKit() throws {
    let old = #"""
      {"identifier": "d1", "identifierGiven": false, "donatedAt": 1,
       "interaction": {"intent": {"name": "BookRoomIntent", "identifier": "R", "parameters": {}}}}
      """#
    let donation = try JSONDecoder().decode(StoredDonation.self, from: Data(old.utf8))
    #expect(!donation.isAppIntent)
    let encoded = try JSONEncoder().encode(donation)
    #expect(!String(decoding: encoded, as: UTF8.self).contains("appIntent"))
  }

  /// A shortcut's phrase that an App Shortcut phrase says, in any language the app has `AppShortcuts.strings` for, is
  /// a clash for a shortcut of any kind; one that says the same intent with another value gets the `--set` that
  /// presets it. The control: a phrase no app says is free.
  @Test func aPhraseAnAppShortcutSaysInAnyLanguageClashes() throws {
    let (app, directory) = try AppShortcutMatcherTests.fuelOrder()
    defer { directory.remove() }
    let german = app.url.appendingPathComponent("Extensions/FuelOrderIntents.appex/de.lproj")
    try FileManager.default.createDirectory(at: german, withIntermediateDirectories: true)
    try Data(#""Fuel my car with ${applicationName}" = "Tanke mein Auto mit ${applicationName}";"#.utf8).write(
      to: german.appendingPathComponent("AppShortcuts.strings"))
    let fuel = try AppBundle.load(from: app.url)
    #expect(ShortcutRules.locales(of: [fuel]).contains("de"))
    func clash(_ phrase: String, appIntent: Bool, presets: [String: ParameterValue] = [:]) -> String? {
      ShortcutRules.clash(
        phrase: phrase, app: fuel, intentClass: appIntent ? "OrderFuelIntent" : "BookRoomIntent", presets: presets,
        apps: [fuel], isAppIntent: appIntent)?.message
    }
    // Another intent (a SiriKit one of the same app here) said by the German phrase.
    let german1 = try #require(clash("Tanke mein Auto mit FuelOrder", appIntent: false))
    #expect(german1.contains("already runs the App Intent OrderFuelIntent of Fuel Order"), "\(german1)")
    #expect(german1.contains(" in de (--locale de)"), "\(german1)")
    // The same App Intent with a value the shortcut does not preset: the --set that does.
    let atWork = try #require(clash("Fuel my car at work with FuelOrder", appIntent: true))
    #expect(atWork.hasSuffix("; choose another phrase, or preset it with --set location=work"), "\(atWork)")
    let contrary = try #require(
      clash("Fuel my car at work with FuelOrder", appIntent: true, presets: ["location": .enumCase("home")]))
    #expect(contrary.contains("no preset can change what the phrase itself says (location work)"), "\(contrary)")
    #expect(
      clash("Fuel my car at work with FuelOrder", appIntent: true, presets: ["location": .enumCase("work")]) == nil)
    #expect(clash("Top up my tank", appIntent: true) == nil)
    #expect(clash("Top up my tank", appIntent: false) == nil)
  }

  @Test func aShortcutOfAnAppIntentIsInactiveOnceTheAppNoLongerDeclaresIt() throws {
    let (app, directory) = try AppShortcutMatcherTests.fuelOrder()
    defer { directory.remove() }
    var shortcut = Shortcut(
      identifier: "k1", phrase: "Fuel up", app: "com.example.fuel", appName: "Fuel Order",
      intentClass: "OrderFuelIntent", presets: ["location": .enumCase("work")], asks: [],
      source: .init(kind: .donation, identifier: "d1"), createdAt: 1, appIntent: true)
    #expect(ShortcutState.of(shortcut, among: [app]) == .active(app))
    #expect(ShortcutRules.describe(.enumCase("work"), "location", of: shortcut, in: app) == "Work")
    #expect(
      ShortcutRules.describedAppIntent("OrderFuelIntent", values: shortcut.presets, app: app)
        == "Order Fuel: location Work")
    var lost = shortcut
    lost.intentClass = "GoneIntent"
    #expect(
      ShortcutState.of(lost, among: [app]).reason
        == "Fuel Order (com.example.fuel) no longer declares the App Intent GoneIntent")
    shortcut.presets["location"] = .enumCase("moon")
    #expect(ShortcutState.of(shortcut, among: [app]).reason?.hasPrefix("a preset no longer fits: ") == true)
    shortcut.presets = [:]
    shortcut.asks = ["vehicle"]
    #expect(
      ShortcutState.of(shortcut, among: [app]).reason
        == "OrderFuelIntent of Fuel Order no longer has the parameter vehicle")
    // The control: the same shortcut as a SiriKit one is judged by the app's definitions, which have no such intent.
    shortcut.appIntent = nil
    shortcut.asks = []
    #expect(ShortcutState.of(shortcut, among: [app]).reason?.contains("no longer supports OrderFuelIntent") == true)
  }
}
