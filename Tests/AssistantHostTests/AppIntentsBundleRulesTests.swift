import BundleManifest
import Foundation
import TestSupport
import Testing

/// The App Intents rules of a whole bundle (`AppBundle.appIntentsDiagnostics`): one provider of App Shortcuts, and
/// each intent declared once, whether in the app or in an App Intents extension. In-process.
@Suite(.tags(.unit)) struct AppIntentsBundleRulesTests {
  @Test func anIntentAndTheShortcutsAreDeclaredOnce() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let url = try TestBundles.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases, in: directory.url)
    // The control: the extension alone declares them, and nothing is found.
    let alone = try AppBundle.load(from: url).appIntentsDiagnostics
    #expect(alone.isEmpty, "\(alone)")
    // The app declares the same document: the intent twice, the App Shortcuts twice, each an error, then Apple's
    // closing line.
    try FileManager.default.copyItem(
      at: url.appendingPathComponent("Extensions/FuelOrderIntents.appex/Metadata.appintents"),
      to: url.appendingPathComponent("Metadata.appintents"))
    let twice = try AppBundle.load(from: url).appIntentsDiagnostics
    #expect(
      twice.map(\.rule) == [.appShortcutsProviderTwice, .appIntentsActionTwice, .appIntentsHaltingError], "\(twice)")
    let action = try #require(twice.first { $0.rule == .appIntentsActionTwice })
    #expect(action.file.hasSuffix("Extensions/FuelOrderIntents.appex/Metadata.appintents/extract.actionsdata"))
    #expect(
      action.message.hasPrefix(
        "declares OrderFuelIntent, as \(url.path)/Metadata.appintents/extract.actionsdata does: an intent runs in the "
          + "one bundle that declares it"), "\(action.message)")
  }

  /// A parameter whose AppEnum the file does not define is an error of the bundle, followed by Apple's closing line,
  /// so that `validate` reports it and `install` refuses the bundle instead of an intent that fails when it runs. The
  /// control: the same bundle with the enum it names.
  @Test func aParameterOfATypeTheFileDoesNotDefineIsAnError() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let url = try TestBundles.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases, in: directory.url)
    #expect(try AppBundle.load(from: url).appIntentsDiagnostics.isEmpty)
    let file = url.appendingPathComponent("Extensions/FuelOrderIntents.appex/Metadata.appintents/extract.actionsdata")
    let text = try String(contentsOf: file, encoding: .utf8)
    let named = #"{"linkEnumeration": {"wrapper": {"identifier": "Location"}}}"#
    #expect(text.contains(named))
    try Data(
      text.replacingOccurrences(of: named, with: #"{"linkEnumeration": {"wrapper": {"identifier": "Place"}}}"#).utf8
    ).write(to: file)
    let found = try AppBundle.load(from: url).appIntentsDiagnostics
    #expect(found.map(\.rule) == [.appIntentsTypeUnknown, .appIntentsHaltingError], "\(found)")
    #expect(found.first?.keyPath == "actions.OrderFuelIntent.parameters[0].valueType")
    #expect(found.first?.message.hasPrefix("cannot find type 'Place' in scope: the parameter location of ") == true)
  }

  /// An intent of the app whose title an intent of its App Intents extension has is warned about as within one file
  /// (`assistant run APP TITLE` looks in both); the control: the extension alone has no such warning.
  @Test func aTitleTheAppAndAnExtensionShareIsWarnedAbout() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let url = try TestBundles.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases, in: directory.url)
    #expect(try AppBundle.load(from: url).appIntentsDiagnostics.isEmpty)
    let folder = url.appendingPathComponent("Metadata.appintents")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(
      (#"{"version": 1, "actions": {"RefuelIntent": {"title": {"key": "Order fuel", "alternatives": []}, "#
        + #""descriptionMetadata": {"descriptionText": {"key": "Refuels", "alternatives": []}}}}}"#).utf8
    ).write(to: folder.appendingPathComponent("extract.actionsdata"))
    let found = try AppBundle.load(from: url).appIntentsDiagnostics
    #expect(found.map(\.rule) == [.appIntentsDuplicateTitle], "\(found)")
    #expect(found.first?.severity == .warning)
    // The app's folder is read first: the extension's intent is the second of the title.
    #expect(found.first?.keyPath == "actions.OrderFuelIntent.title")
    #expect(found.first?.file.hasSuffix("FuelOrderIntents.appex/Metadata.appintents/extract.actionsdata") == true)
    #expect(
      found.first?.message.hasPrefix(
        "is \"Order Fuel\", as the title of RefuelIntent in \(folder.path)/extract.actionsdata is: ") == true,
      "\(found)")
  }
}
