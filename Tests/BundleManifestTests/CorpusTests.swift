import BundleManifest
import Foundation
import TestSupport
import Testing

/// The real Xcode files in ../shared/corpus/real-xcode (read where they are; never copied into this repository).
/// On a clone without ../shared these tests are skipped, and say so; with CI set, a missing corpus fails.
enum Corpus {
  static let folder = PackagePaths.corpus
  static let present = FileManager.default.fileExists(atPath: folder.appendingPathComponent("SOURCES.md").path)
  static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }
  static let skipped: Comment = "../shared/corpus/real-xcode is not beside this clone: corpus tests skipped"
}

@Suite(.tags(.unit))
struct CorpusTests {
  @Test func theCorpusIsThereOnCI() {
    if ProcessInfo.processInfo.environment["CI"] != nil {
      #expect(Corpus.present, "CI is set but \(Corpus.folder.path) is missing: the corpus tests would be skipped")
    }
  }

  @Test(.enabled(if: Corpus.present, Corpus.skipped))
  func everyFileLoads() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Corpus.folder.path).filter { $0 != "SOURCES.md" }
    #expect(names.count == 35)
    for name in names.sorted() {
      let url = Corpus.url(name)
      if name.hasSuffix(".intentdefinition") {
        _ = try IntentDefinition.load(contentsOf: url)
      } else if name.hasSuffix("AppIntentVocabulary.plist") {
        _ = try Vocabulary.load(contentsOf: url)
      } else if name.hasSuffix(".entitlements") {
        _ = try Entitlements.load(contentsOf: url, unresolved: .note)
      } else if name.hasSuffix(".strings") {
        _ = try StringsTable.load(contentsOf: url)
      } else {
        #expect(name.hasSuffix("Info.plist"), "\(name)")
        let info = try InfoPlist.load(contentsOf: url, unresolved: .note)
        #expect(!info.diagnostics.hasErrors, "\(name): \(info.diagnostics)")
      }
    }
  }

  struct DefinitionFacts: Sendable, CustomTestStringConvertible {
    var file: String
    var model: String
    /// Intent name, parameter types, response codes.
    var intents: [(String, [String], [String])]
    var enums: Int
    var types: Int
    var testDescription: String { String(file.prefix(30)) }
  }

  @Test(
    .enabled(if: Corpus.present, Corpus.skipped),
    arguments: [
      DefinitionFacts(
        file: "kevingomes17__ios-swift-soup-chef__Shared__Base.lproj__Intents.intentdefinition", model: "1.1",
        intents: [
          (
            "OrderSoup", ["Integer", "Integer", "Object", "Integer", "Placemark", "Placemark"],
            ["success", "failure", "failureOutOfStock", "successReadySoon"]
          )
        ], enums: 2, types: 1),
      DefinitionFacts(
        file: "UberJason__SiriIntentsEnumBug__Intents.intentdefinition", model: "1.0",
        intents: [("FooIntent", ["Integer"], ["failure", "success"])], enums: 1, types: 0),
      DefinitionFacts(
        file: "designatednerd__TravelPlanner__SharedFramework__Intents__Intents.intentdefinition", model: "1.0",
        intents: [
          (
            "DepartureTime", ["String", "String"],
            ["failure", "success", "failureNoDestination", "failureNoFuturePlansToDestination"]
          ),
          (
            "ArrivalTime", ["String", "String"],
            ["failure", "success", "failureNoDestination", "failureNoFuturePlansToDestination"]
          ),
          ("TripDetailClipboard", ["String", "String"], ["failure", "success"]),
        ], enums: 0, types: 0),
      DefinitionFacts(
        file: "element-hq__element-ios__SiriIntents__Intents.intentdefinition", model: "1.2",
        intents: [
          (
            "SendMessage", ["SpeakableString", "Person", "String", "String", "String", "Person", "Integer", "Object"],
            []
          ),
          ("StartAudioCall", ["Person", "Integer"], []), ("StartVideoCall", ["Person"], []),
        ], enums: 0, types: 0),
      DefinitionFacts(
        file: "holzschu__a-shell__Base.lproj__Intents.intentdefinition", model: "1.2",
        intents: [
          ("ExecuteCommand", ["String", "Integer", "Boolean"], ["success", "failure"]),
          ("GetFile", ["String", "Boolean", "Boolean"], ["success", "failure"]),
          ("PutFile", ["File", "Boolean"], ["success", "failure"]),
        ], enums: 1, types: 0),
      DefinitionFacts(
        file: "thompsonate__Shifty__Shifty__Intents.intentdefinition", model: "1.2",
        intents: [
          ("GetNightShiftState", [], ["success", "failure"]),
          ("SetNightShiftState", ["Boolean"], ["success", "failure"]),
          ("GetColorTemperature", [], ["success", "failure"]),
          ("SetColorTemperature", ["Decimal"], ["success", "failure"]),
          ("SetDisableTimer", ["TimeInterval"], ["success", "failure"]),
          ("GetTrueToneState", [], ["success", "failure", "trueToneNotSupported", "trueToneNotAvailable"]),
          ("SetTrueToneState", ["Boolean"], ["success", "failure", "trueToneNotSupported", "trueToneNotAvailable"]),
        ], enums: 0, types: 0),
      DefinitionFacts(
        file: "traccar__traccar-client-ios__Intents.intentdefinition", model: "1.2",
        intents: [
          ("StartTrackingService", [], ["success", "failure"]), ("StopTrackingService", [], ["success", "failure"]),
        ],
        enums: 0, types: 0),
      DefinitionFacts(
        file: "TelegramMessenger__Telegram-iOS__Telegram__SiriIntents__Intents.intentdefinition", model: "1.2",
        intents: [("SelectFriends", ["Integer", "Object"], ["success", "failure"])], enums: 1, types: 1),
    ])
  func definitionFacts(_ facts: DefinitionFacts) throws {
    let definition = try IntentDefinition.load(contentsOf: Corpus.url(facts.file))
    #expect(definition.modelVersion == facts.model)
    #expect(definition.intents.map(\.name) == facts.intents.map(\.0))
    for (intent, expected) in zip(definition.intents, facts.intents) {
      #expect(intent.parameters.map(\.type.rawValue) == expected.1, "\(intent.name)")
      #expect((intent.response?.codes.map(\.name) ?? []) == expected.2, "\(intent.name)")
    }
    #expect(definition.enums.count == facts.enums)
    #expect(definition.types.count == facts.types)
  }

  @Test(.enabled(if: Corpus.present, Corpus.skipped))
  func soupChefDetails() throws {
    let definition = try IntentDefinition.load(
      contentsOf: Corpus.url("kevingomes17__ios-swift-soup-chef__Shared__Base.lproj__Intents.intentdefinition"))
    let order = try #require(definition.intent(named: "OrderSoupIntent"))
    #expect(order.className == "OrderSoupIntent")
    #expect(order.userConfirmationRequired)
    #expect(order.restrictions == 1)
    #expect(order.parameter(named: "quantity")?.prompts["Primary"] == "How many soups do you want to order?")
    #expect(order.parameter(named: "soup")?.enumType == "Soup")
    #expect(order.parameter(named: "toppings")?.supportsMultipleValues == true)
    #expect(order.parameter(named: "toppings")?.objectType == nil)  // Object without an object type, as the file has it
    #expect(order.parameter(named: "deliveryLocation")?.relationship?.value == "delivery")
    let reasons = order.parameter(named: "quantity")?.unsupportedReasonSpecs.map(\.code) ?? []
    #expect(
      reasons == ["negativeNumbersNotSupported", "greaterThanMaximumValue", "lessThanMinimumValue", "notEnoughInStock"])
    #expect(order.response?.code(named: "successReadySoon")?.isSuccess == true)
    #expect(order.response?.code(named: "failureOutOfStock")?.isSuccess == false)
    #expect(order.combinations.map(\.key).contains("soup,quantity,orderType,deliveryLocation,toppings"))
    let soup = try #require(definition.enumeration(named: "Soup"))
    #expect(soup.values.map(\.index) == [0, 1, 2, 3])  // "unknown" has no index: 0
    #expect(definition.type(named: "OrderDetails")?.properties.map(\.name).suffix(2) == ["estimatedTime", "total"])
  }

  struct InfoFacts: Sendable, CustomTestStringConvertible {
    var file: String
    var point: String?
    var supported: [String]
    var restricted: [String]
    var testDescription: String { String(file.prefix(30)) }
  }

  @Test(
    .enabled(if: Corpus.present, Corpus.skipped),
    arguments: [
      InfoFacts(
        file: "ManiPalanivel__SiriKitIntegrationforAccountInfo__iPayIntentExtension__Info.plist",
        point: "com.apple.intents-service", supported: ["INSendPaymentIntent", "INSearchForAccountsIntent"],
        restricted: ["INSendPaymentIntent", "INSearchForAccountsIntent"]),
      InfoFacts(
        file: "TelegramMessenger__Telegram-iOS__SiriIntents__Info.plist", point: "com.apple.intents-service",
        supported: ["INSendMessageIntent", "INStartAudioCallIntent"], restricted: []),
      InfoFacts(
        file: "UberJason__SiriIntentsEnumBug__MyIntents__Info.plist", point: "com.apple.intents-service",
        supported: ["FooIntentIntent"], restricted: []),
      InfoFacts(
        file: "bignerdranch__BNRun-SiriKit-Sample__Part-04__BNRun-CustomUI__BNRRunIntentsUIExtension__Info.plist",
        point: "com.apple.intents-ui-service", supported: ["INStartWorkoutIntent", "INEndWorkoutIntent"], restricted: []
      ),
      InfoFacts(
        file: "chockenberry__NowPlayingPlus__IntentsExtension__Info.plist", point: "com.apple.intents-service",
        supported: ["SelectStyleIntent"], restricted: []),
      InfoFacts(
        file: "element-hq__element-ios__SiriIntents__Info.plist", point: "com.apple.intents-service",
        supported: ["INStartAudioCallIntent", "INStartVideoCallIntent", "INSendMessageIntent"], restricted: []),
      InfoFacts(
        file: "holzschu__a-shell__a-Shell-Intents__Info.plist", point: "com.apple.intents-service",
        supported: ["ExecuteCommandIntent", "GetFileIntent", "PutFileIntent"], restricted: []),
      InfoFacts(
        file: "kevingomes17__ios-swift-soup-chef__SoupChefIntentsUI__Info.plist", point: "com.apple.intents-ui-service",
        supported: ["OrderSoupIntent"], restricted: []),
      InfoFacts(
        file: "designatednerd__TravelPlanner__TravelPlanner__Info.plist", point: nil, supported: [], restricted: []),
    ])
  func infoPlistFacts(_ facts: InfoFacts) throws {
    let info = try InfoPlist.load(contentsOf: Corpus.url(facts.file), unresolved: .note)
    #expect(info.extensionInfo?.pointIdentifier == facts.point)
    #expect((info.extensionInfo?.intentsSupported ?? []) == facts.supported)
    #expect((info.extensionInfo?.intentsRestrictedWhileLocked ?? []) == facts.restricted)
  }

  @Test(.enabled(if: Corpus.present, Corpus.skipped))
  func appKeysAndBuildSettings() throws {
    let bnrun = try InfoPlist.load(
      contentsOf: Corpus.url("bignerdranch__BNRun-SiriKit-Sample__Part-04__BNRun-CustomUI__BNRun__Info.plist"),
      unresolved: .note)
    #expect(bnrun.alternativeAppNames == ["B N R Run", "Raymond Luxury Yacht"])
    #expect(bnrun.siriUsageDescription == "Allow Siri to control your workouts.")
    let shifty = try InfoPlist.load(
      contentsOf: Corpus.url("thompsonate__Shifty__Shifty__Info.plist"), unresolved: .note)
    #expect(shifty.appIntentsSupported.count == 7)
    // $(PRODUCT_BUNDLE_IDENTIFIER) and ${APP_NAME} resolve from settings; without them they are reported.
    let telegram = Corpus.url("TelegramMessenger__Telegram-iOS__SiriIntents__Info.plist")
    let unresolved = try InfoPlist.load(contentsOf: telegram)
    #expect(
      unresolved.diagnostics.filter { $0.rule == .buildSettingUnresolved }.map(\.keyPath)
        == [
          "CFBundleIdentifier", "CFBundleExecutable", "CFBundleName", "CFBundleDisplayName",
          "NSExtension.NSExtensionPrincipalClass",
        ])
    let settings = BuildSettings(values: [
      "PRODUCT_BUNDLE_IDENTIFIER": "org.telegram.Telegram.SiriIntents", "APP_NAME": "Telegram",
      "EXECUTABLE_NAME": "SiriIntents", "PRODUCT_NAME": "SiriIntents", "PRODUCT_MODULE_NAME": "SiriIntents",
    ])
    let resolved = try InfoPlist.load(contentsOf: telegram, settings: settings)
    #expect(resolved.diagnostics.isEmpty, "\(resolved.diagnostics)")
    #expect(resolved.bundleIdentifier == "org.telegram.Telegram.SiriIntents")
    #expect(resolved.displayName == "Telegram")
    #expect(resolved.extensionInfo?.principalClass == "SiriIntents.IntentHandler")
    // NowPlayingPlus holds only NSExtension: the identifier must come from settings.
    let bare = try InfoPlist.load(
      contentsOf: Corpus.url("chockenberry__NowPlayingPlus__IntentsExtension__Info.plist"),
      settings: BuildSettings(values: ["PRODUCT_BUNDLE_IDENTIFIER": "com.iconfactory.NowPlaying.Intents"]))
    #expect(bare.bundleIdentifier == "com.iconfactory.NowPlaying.Intents")
    #expect(
      bare.diagnostics.map(\.rule) == [.bundleIDFromSettings, .executableMissing, .buildSettingUnresolved])
  }

  @Test(.enabled(if: Corpus.present, Corpus.skipped))
  func entitlementsVocabulariesAndStrings() throws {
    let soupChef = try Entitlements.load(
      contentsOf: Corpus.url("kevingomes17__ios-swift-soup-chef__SoupChef__Resources__SoupChef.entitlements"))
    #expect(soupChef.applicationGroups == ["group.info.kgomes.SoupChef"])
    #expect(soupChef.siri)
    let element = try Entitlements.load(
      contentsOf: Corpus.url("element-hq__element-ios__SiriIntents__SiriIntents.entitlements"),
      settings: BuildSettings(values: ["APPLICATION_GROUP_IDENTIFIER": "group.im.vector"]))
    #expect(element.applicationGroups == ["group.im.vector"])

    let bnrun = try Vocabulary.load(
      contentsOf: Corpus.url(
        "bignerdranch__BNRun-SiriKit-Sample__Part-04__BNRun-CustomUI__BNRun__Base.lproj__AppIntentVocabulary.plist"))
    #expect(bnrun.intentPhrases["INStartWorkoutIntent"]?.count == 7)
    #expect(bnrun.intentPhrases["INEndWorkoutIntent"]?.count == 3)
    let linphone = try Vocabulary.load(
      contentsOf: Corpus.url("BelledonneCommunications__linphone-iphone__AppIntentVocabulary.plist"))
    #expect(linphone.intentPhrases["INStartCallIntent"]?.count == 17)
    let account = try Vocabulary.load(
      contentsOf: Corpus.url("ManiPalanivel__SiriKitIntegrationforAccountInfo__AppIntentVocabulary.plist"))
    #expect(account.items.first?.parameterNames == ["INSearchForAccountsIntent.accountNickName"])
    let sparky = try Vocabulary.load(
      contentsOf: Corpus.url("joschiservice__sparky-ios__Base.lproj__AppIntentVocabulary.plist"))
    #expect(sparky.items.isEmpty)  // Xcode's unfilled template entry is skipped
    #expect(sparky.intentPhrases["StartClimateControlIntent"] == ["Aktiviere Klimatisierung", "Starte Klimatisierung"])

    let french = try StringsTable.load(contentsOf: Corpus.url("holzschu__a-shell__fr.lproj__Intents.strings"))
    #expect(french.strings.count == 60)
    #expect(french.strings["rz0Hmn"] == "Exécuter une commande")
    let definition = try IntentDefinition.load(
      contentsOf: Corpus.url("holzschu__a-shell__Base.lproj__Intents.intentdefinition"))
    let localized = definition.localized(by: french.strings)
    #expect(definition.intent(named: "ExecuteCommandIntent")?.title == "Execute Command")
    #expect(localized.intent(named: "ExecuteCommandIntent")?.title == "Exécuter une commande")
    #expect(localized.variants["0ltuRO-EzhjO7"] == "There are ${count} options matching ‘yes’.")
  }
}
