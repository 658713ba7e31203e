import AppIntentsMetadata
import Foundation
import TestSupport
import Testing

typealias Document = MetadataDocument

/// FuelOrder's document with `phrases`.
func fuelOrder(_ phrases: [String] = AppIntentsFixtures.correctedPhrases) throws -> Document {
  try read(AppIntentsFixtures.fuelOrder(phrases: phrases)).document
}

/// The findings of the validator on `document` (and `strings`), for one rule.
func findings(
  _ document: Document, _ rule: MetadataRule, strings: [AppShortcutsStrings] = []
) -> [MetadataFinding] {
  MetadataValidator.validate(document, file: "/M/extract.actionsdata", strings: strings).filter { $0.rule == rule }
}

/// A table of `en.lproj` (or `language`) whose keys are `phrases`, translated as themselves.
func table(_ phrases: [String], language: String? = "en", file: String? = nil) -> AppShortcutsStrings {
  AppShortcutsStrings(
    file: file ?? "/B/\(language.map { "\($0).lproj/" } ?? "")AppShortcuts.strings", language: language,
    strings: Dictionary(uniqueKeysWithValues: phrases.map { ($0, $0) }))
}

/// Seed 000's own phrases break Apple's rule, in the code and in its strings table; the corrected ones pass.
@Suite(.tags(.unit))
struct SeedPhrasesTests {
  @Test func theSeedsPhrasesEachLackTheAppName() throws {
    let document = try fuelOrder(AppIntentsFixtures.seedPhrases)
    let found = MetadataValidator.validate(
      document, file: "/M/extract.actionsdata", strings: [table(AppIntentsFixtures.seedPhrases)])
    #expect(found.allSatisfy { $0.rule == .utterance && $0.severity == .error }, "\(found)")
    #expect(
      found.map { "\($0.file) \($0.path)" } == [
        "/M/extract.actionsdata autoShortcuts[0].phraseTemplates[0]",
        "/M/extract.actionsdata autoShortcuts[0].phraseTemplates[1]",
        "/B/en.lproj/AppShortcuts.strings Fuel my car", "/B/en.lproj/AppShortcuts.strings Fuel my car at ${location}",
      ])
    #expect(
      found[0].message
        == "Invalid Utterance. Every App Shortcut utterance should have one '${applicationName}' in it. "
        + "(\"Fuel my car\" has none)")
    #expect(
      found[0].fix
        == "add ${applicationName} where the app's name is said, such as \"Fuel my car with ${applicationName}\"")
    #expect(found[1].message.hasSuffix("(\"Fuel my car at ${location}\" has none)"))
    // The seed's `location` is an AppEnum: its slot is allowed.
    #expect(findings(document, .parameterType).isEmpty)
  }

  @Test func theCorrectedPhrasesPass() throws {
    let document = try fuelOrder(AppIntentsFixtures.correctedPhrases)
    let found = MetadataValidator.validate(
      document, file: "/M/extract.actionsdata", strings: [table(AppIntentsFixtures.correctedPhrases)])
    #expect(found.isEmpty, "\(found)")
  }
}

/// Every rule of docs/VALIDATION.md's "App Intents", each with the document that breaks it and its clean control.
@Suite(.tags(.unit))
struct MetadataValidatorTests {
  @Test func twoAppNamesAreInvalidToo() throws {
    let found = findings(try fuelOrder(["${applicationName} fuel ${applicationName}"]), .utterance)
    #expect(found.count == 1)
    #expect(found.first?.message.hasSuffix("has 2)") == true)
  }

  @Test func aTranslationWithoutTheAppNameIsInvalid() throws {
    let key = "Fuel my car with ${applicationName}"
    let strings = [
      AppShortcutsStrings(file: "/B/fr.lproj/AppShortcuts.strings", language: "fr", strings: [key: "Fais le plein"])
    ]
    let found = findings(try fuelOrder(), .utterance, strings: strings)
    #expect(found.map(\.path) == [key])
    #expect(found.first?.message.contains("its translation \"Fais le plein\" has none") == true)
    let control = [
      AppShortcutsStrings(
        file: "/B/fr.lproj/AppShortcuts.strings", language: "fr",
        strings: [key: "Fais le plein avec ${applicationName}"])
    ]
    #expect(findings(try fuelOrder(), .utterance, strings: control).isEmpty)
  }

  @Test func aShortcutNeedsAPhrase() throws {
    let found = findings(try fuelOrder([]), .phraseMissing)
    #expect(found.map(\.message) == ["App Shortcuts should have at least one phrase"])
    #expect(found.map(\.path) == ["autoShortcuts[0].phraseTemplates"])
    #expect(found.first?.fix?.contains("Order Fuel with ${applicationName}") == true)
    #expect(findings(try fuelOrder(), .phraseMissing).isEmpty)
  }

  @Test func aPhraseParameterMustBeAnEntityOrAnEnum() throws {
    var document = try fuelOrder(["Fuel ${amount} with ${applicationName}"])
    document.actions[id("OrderFuelIntent")]!.parameters.append(
      Document.Parameter(name: id("amount"), title: "Amount", valueType: .primitive(.string)))
    let found = findings(document, .parameterType)
    #expect(
      found.map(\.message) == ["Invalid parameter type. AppEntity and AppEnum are the only allowed types for amount"])
    #expect(found.first?.fix?.contains("it is a String") == true)
    // The controls: an enum parameter, and an entity parameter.
    #expect(findings(try fuelOrder(), .parameterType).isEmpty)
    document.actions[id("OrderFuelIntent")]!.parameters[1].valueType = .entity(id("Vehicle"))
    #expect(findings(document, .parameterType).isEmpty)
  }

  @Test func aPhraseParameterIsAParameterOfTheIntent() throws {
    let found = findings(try fuelOrder(["Fuel my car at ${place} with ${applicationName}"]), .parameterUnknown)
    #expect(found.map(\.message) == ["names ${place}, which is not a parameter of OrderFuelIntent"])
    #expect(found.first?.fix?.contains("${location}") == true)
    #expect(findings(try fuelOrder(), .parameterUnknown).isEmpty)
  }

  @Test func aPhraseHasAtMostOneParameter() throws {
    var document = try fuelOrder(["Fuel ${vehicle} at ${location} with ${applicationName}"])
    document.actions[id("OrderFuelIntent")]!.parameters.append(
      Document.Parameter(name: id("vehicle"), title: "Vehicle", valueType: .entity(id("Vehicle"))))
    let found = findings(document, .parameterCount)
    #expect(found.map(\.message) == ["names 2 parameters (${vehicle}, ${location}); a phrase has at most one"])
    #expect(findings(try fuelOrder(), .parameterCount).isEmpty)
    // One parameter said twice is two slots: refused too (each slot is a reading of the utterance's words).
    let twice = findings(
      try fuelOrder(["Fuel at ${location} then ${location} with ${applicationName}"]), .parameterCount)
    #expect(twice.map(\.message) == ["has 2 parameter slots (${location}, ${location}); a phrase has at most one"])
  }

  @Test func anAppHasAtMostTenShortcuts() throws {
    var document = try fuelOrder()
    let shortcut = document.autoShortcuts[0]
    document.autoShortcuts = Array(repeating: shortcut, count: 10)
    #expect(findings(document, .tooManyShortcuts).isEmpty)
    document.autoShortcuts.append(shortcut)
    let found = findings(document, .tooManyShortcuts)
    #expect(found.map(\.path) == ["autoShortcuts"])
    #expect(found.first?.message.hasPrefix("has 11 App Shortcuts; an app has at most 10") == true)
  }

  @Test func aShortcutNamesAnAction() throws {
    var document = try fuelOrder()
    document.autoShortcuts[0].actionIdentifier = id("OrderGasIntent")
    let found = findings(document, .actionUnknown)
    #expect(found.map(\.message) == ["names OrderGasIntent, which is not an action of the file"])
    #expect(found.first?.fix?.contains("OrderFuelIntent") == true)
    #expect(findings(try fuelOrder(), .actionUnknown).isEmpty)
  }

  @Test func oneSetOfShortcutsTables() throws {
    let document = try fuelOrder()
    let phrases = AppIntentsFixtures.correctedPhrases
    // The control: one table per language.
    #expect(findings(document, .stringsFiles, strings: [table(phrases), table(phrases, language: "fr")]).isEmpty)
    let twice = findings(
      document, .stringsFiles,
      strings: [table(phrases), table(phrases, language: "EN", file: "/B/EN.lproj/AppShortcuts.strings")])
    #expect(twice.map(\.file) == ["/B/EN.lproj/AppShortcuts.strings"])
    let top = findings(document, .stringsFiles, strings: [table(phrases), table(phrases, language: nil)])
    #expect(top.map(\.file) == ["/B/AppShortcuts.strings"])
    #expect(top.first?.severity == .error)
    let catalog = AppShortcutsStrings(file: "/B/AppShortcuts.xcstrings", language: nil, strings: [:])
    #expect(findings(document, .stringsFiles, strings: [table(phrases), catalog]).map(\.severity) == [.error])
    #expect(findings(document, .stringsFiles, strings: [catalog]).map(\.severity) == [.warning])
  }

  @Test func anEntitysDefaultQueryExists() throws {
    // Apple's Weather names its query with its module: the control.
    let weather = try read(AppIntentsFixtures.weather).document
    #expect(findings(weather, .defaultQuery).isEmpty)
    var document = weather
    document.entities[id("LocationSearchEntity")]!.defaultQueryIdentifier = QualifiedName(
      validating: "Weather.PlaceQuery")
    let found = findings(document, .defaultQuery)
    #expect(found.map(\.path) == ["entities.LocationSearchEntity.defaultQueryIdentifier"])
    #expect(found.first?.message == "default query is missing: Weather.PlaceQuery is not a query of the file")
    document.entities[id("LocationSearchEntity")]!.defaultQueryIdentifier = nil
    #expect(findings(document, .defaultQuery).first?.message.hasPrefix("default query is missing") == true)
    // A query named by its fullyQualifiedIdentifier or its key is found.
    document.entities[id("LocationSearchEntity")]!.defaultQueryIdentifier = QualifiedName(
      validating: "LocationSearchEntityQuery")
    #expect(findings(document, .defaultQuery).isEmpty)
    document.queries[id("LocationSearchEntityQuery")]!.fullyQualifiedIdentifier = QualifiedName(
      validating: "WeatherKit.LocationSearchEntityQuery")
    document.entities[id("LocationSearchEntity")]!.defaultQueryIdentifier = QualifiedName(
      validating: "WeatherKit.LocationSearchEntityQuery")
    #expect(findings(document, .defaultQuery).isEmpty)
    // With a fully qualified name given, another module's query of that name is not it.
    document.entities[id("LocationSearchEntity")]!.defaultQueryIdentifier = QualifiedName(
      validating: "Weather.LocationSearchEntityQuery")
    #expect(findings(document, .defaultQuery).count == 1)
  }

  @Test func titlesArePresent() throws {
    #expect(findings(try fuelOrder(), .titleMissing).isEmpty)
    var document = try fuelOrder()
    document.actions[id("OrderFuelIntent")]!.title = nil
    document.actions[id("OrderFuelIntent")]!.parameters[0].title = ""
    document.enums[0].cases[1].title = nil
    let found = findings(document, .titleMissing)
    #expect(
      found.map(\.path) == [
        "actions.OrderFuelIntent.title", "actions.OrderFuelIntent.parameters[0].title",
        "enums[0].cases[1].displayRepresentation.title",
      ])
    #expect(
      found.map(\.message) == [
        "is missing: an intent needs a title", "is empty: a parameter needs a title",
        "is missing: an enum case needs a title",
      ])
  }

  @Test func enumAndCaseIdentifiersAreUnique() throws {
    #expect(findings(try fuelOrder(), .duplicateIdentifier).isEmpty)
    var document = try fuelOrder()
    document.enums[0].cases.append(Document.Enumeration.Case(identifier: id("home"), title: "Home again"))
    document.enums.append(Document.Enumeration(identifier: id("Location"), displayTypeName: "Again"))
    let found = findings(document, .duplicateIdentifier)
    #expect(found.map(\.path) == ["enums[0].cases[2].identifier", "enums[1].identifier"])
  }

  @Test func anEnumDefaultIsADeclaredCase() throws {
    func withDefault(_ value: MetadataJSON) throws -> Document {
      var document = try fuelOrder()
      document.actions[id("OrderFuelIntent")]!.parameters[0].typeSpecificMetadata = .init([
        .init(
          key: Document.TypeSpecificMetadata.defaultValueKey, value: .object(["string": .object(["wrapper": value])]))
      ])
      return document
    }
    #expect(findings(try withDefault(.string("home")), .defaultValue).isEmpty)
    let found = findings(try withDefault(.string("hme")), .defaultValue)
    #expect(found.map(\.path) == ["actions.OrderFuelIntent.parameters[0].typeSpecificMetadata"])
    #expect(
      found.first?.message == "the default value of location is \"hme\", which is not a case of Location (home, work)")
    #expect(findings(try withDefault(.integer(1)), .defaultValue).count == 1)
  }

  /// The AppEntity or AppEnum a parameter or a property names, itself or as an array's member, is defined in the
  /// file: otherwise the document would validate clean and fail when the intent runs. The controls: FuelOrder's
  /// Location and Weather's LocationSearchEntity are defined.
  @Test func aParameterTypeIsOneTheFileDefines() throws {
    #expect(findings(try fuelOrder(), .typeUnknown).isEmpty)
    let weather = try read(AppIntentsFixtures.weather).document
    #expect(findings(weather, .typeUnknown).isEmpty)

    var document = try fuelOrder()
    document.enums = []
    document.actions[id("OrderFuelIntent")]!.parameters.append(
      Document.Parameter(name: id("vehicles"), title: "Vehicles", valueType: .array(.entity(id("Vehicle")))))
    let found = findings(document, .typeUnknown)
    #expect(found.allSatisfy { $0.severity == .error }, "\(found)")
    #expect(
      found.map(\.path) == [
        "actions.OrderFuelIntent.parameters[0].valueType", "actions.OrderFuelIntent.parameters[1].valueType",
      ])
    #expect(
      found.map(\.message) == [
        "cannot find type 'Location' in scope: the parameter location of OrderFuelIntent is the enum Location, which "
          + "enums does not define",
        "cannot find type 'Vehicle' in scope: the parameter vehicles of OrderFuelIntent is the entity Vehicle, which "
          + "entities does not define",
      ])
    #expect(
      found.map(\.fix) == [
        "add an enum with the identifier Location to enums, with its cases, or make location one of the file's enums "
          + "(none)",
        "add Vehicle to entities, with its default query, or make vehicles one of the file's entities (none)",
      ])

    // An entity's property too; the fix lists what the file has.
    var property = weather
    property.entities[id("LocationSearchEntity")]!.properties[0].valueType = .enumeration(id("Position"))
    let propertyFound = findings(property, .typeUnknown)
    #expect(propertyFound.map(\.path) == ["entities.LocationSearchEntity.properties[0].valueType"])
    #expect(
      propertyFound.first?.message
        == "cannot find type 'Position' in scope: the property name of LocationSearchEntity is the enum Position, "
        + "which enums does not define")
    #expect(propertyFound.first?.fix?.hasSuffix("one of the file's enums (AirQualityPosition)") == true)
  }

  /// Every error is listed, not only the first; the closing line is Apple's.
  @Test func everyErrorIsListedThenTheHaltingLine() throws {
    var document = try fuelOrder(AppIntentsFixtures.seedPhrases + ["${applicationName} at ${place}"])
    document.actions[id("OrderFuelIntent")]!.title = nil
    document.autoShortcuts.append(Document.AutoShortcut(actionIdentifier: id("Nope"), phraseTemplates: []))
    let found = MetadataValidator.validate(document, file: "/M/extract.actionsdata")
    #expect(
      found.map(\.rule) == [.utterance, .utterance, .parameterUnknown, .actionUnknown, .phraseMissing, .titleMissing])
    let halting = MetadataValidator.haltingFinding(file: "/B/FuelOrder.app")
    #expect(halting.message == "At least one halting error produced.")
    #expect(halting.severity == .error && halting.rule == .haltingError)
  }
}
