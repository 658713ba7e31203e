import AppIntents
import AppIntentsMetadata
import ExtensionProtocol
import Foundation
import TestSupport
import Testing

/// A wait of some length: a `Duration` parameter, where Apple's API has `Measurement<UnitDuration>`.
struct WaitIntent: AppIntent {
  static let title: LocalizedStringResource = "Wait"

  @Parameter(title: "Length", requestValueDialog: "How long should I wait?")
  var length: Duration

  func perform() async throws -> some IntentResult & ProvidesDialog {
    .result(dialog: "Waiting \(length.components.seconds) seconds")
  }
}

struct WaitExtension: AppIntentsExtension {
  static let intents: [any AppIntent.Type] = [WaitIntent.self]
}

/// A `Duration` parameter is a `measurement` of `UnitDuration` in the metadata, which reads back as one, and a number
/// of seconds on the wire; a value that is no length (negative, not a number) is refused.
@Suite(.tags(.unit))
struct DurationParameterTests {
  @Test func theMetadataSaysDurationAndReadsBack() throws {
    let document = try WaitExtension.metadataDocument()
    let length = try #require(document.actions.values.first?.parameters.first)
    #expect(length.valueType == .duration && length.valueType.isDuration)
    let reading = try MetadataReader.read(Data(document.canonicalEncoding()), file: "extract.actionsdata")
    #expect(reading.document.actions.values.first?.parameters.first?.valueType.isDuration == true)
    #expect(reading.findings.isEmpty, "\(reading.findings)")
    // The control: a Double is a primitive, not a duration.
    #expect(!MetadataDocument.ValueType.primitive(.double).isDuration)
  }

  @Test func performGetsSecondsAsADuration() async throws {
    let catalog = IntentCatalog(intents: [WaitIntent.self])
    let result = try await catalog.perform(
      AppIntentInstance(identifier: "WaitIntent", parameters: ["length": .decimal(5400)]),
      conversation: ScriptedConversation(confirms: true))
    #expect(result == .result(dialog: "Waiting 5400 seconds"))
    #expect(Duration.seconds(90).intentValue == .decimal(90))
    #expect(Duration.milliseconds(1500).intentValue == .decimal(1.5))
    for refused: ParameterValue in [.decimal(-1), .decimal(.infinity), .string("90 minutes")] {
      #expect(try await Duration.fromIntentValue(refused) == nil)
    }
  }
}

/// A provider with negative phrases: Apple's `NegativeAppShortcutPhrases { ... }`.
struct WaitShortcuts: AppShortcutsProvider {
  static var appShortcuts: [AppShortcut] {
    AppShortcut(
      intent: WaitIntent(), phrases: ["Wait with \(.applicationName)"], shortTitle: "Wait", systemImageName: "timer")
  }
  static let negativePhrases = NegativeAppShortcutPhrases {
    "Stop waiting with \(.applicationName)"
    "Wait for the bus"
  }
}

struct WaitingExtension: AppIntentsExtension {
  static let intents: [any AppIntent.Type] = [WaitIntent.self]
  static let shortcuts: (any AppShortcutsProvider.Type)? = WaitShortcuts.self
}

@Suite(.tags(.unit))
struct NegativePhraseTests {
  @Test func theMetadataListsTheNegativePhrases() throws {
    let document = try WaitingExtension.metadataDocument()
    #expect(document.negativePhrases.map(\.key) == ["Stop waiting with ${applicationName}", "Wait for the bus"])
    // The control: a provider that declares none has none.
    #expect(try FuelExtension.metadataDocument().negativePhrases.isEmpty)
  }
}
