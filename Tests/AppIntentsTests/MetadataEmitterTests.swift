import AppIntents
import AppIntentsMetadata
import ExtensionProtocol
import Foundation
import TestSupport
import Testing

/// What the declarations of DeclarationTests and RuntimeTests would be as an App Intents extension.
struct FuelExtension: AppIntentsExtension {
  static let intents: [any AppIntent.Type] = [FillIntent.self]
  static let shortcuts: (any AppShortcutsProvider.Type)? = Shortcuts.self
}

/// The SDK writes `Metadata.appintents` in Xcode's shape from what an extension declares; the reader reads it back,
/// and Apple's rules pass.
@Suite(.tags(.unit))
struct MetadataEmitterTests {
  @Test func theDocumentHasTheIntentsEnumsEntitiesQueriesAndShortcuts() throws {
    let document = try FuelExtension.metadataDocument()
    #expect(document.actions.keys.map(\.rawValue).sorted() == ["FillIntent", "OrderFuelIntent"])
    let order = try #require(document.actions.values.first { $0.identifier.rawValue == "OrderFuelIntent" })
    #expect(order.title?.key == "Order Fuel")
    #expect(order.authenticationPolicy == .requiresAuthentication)
    #expect(order.description?.categoryName?.key == "Fuel Ordering")
    #expect(order.parameters.map(\.name.rawValue) == ["location", "note", "litres"])
    let location = order.parameters[0]
    #expect(location.valueType == .enumeration(MetadataIdentifier(validating: "Location")!))
    #expect(location.intentHost?.requestValueDialog?.key == "Where should the order be?")
    #expect(order.parameters[1].isOptional && order.parameters[1].valueType == .primitive(.string))
    #expect(order.parameters[2].typeSpecificMetadata.defaultValue?.value == .integer(40))
    let enumeration = try #require(document.enums.first)
    #expect(enumeration.cases.map(\.identifier.rawValue) == ["home", "work"])
    #expect(enumeration.cases[0].synonyms.map(\.key) == ["my house"])
    let car = try #require(document.entities.values.first)
    #expect(car.defaultQueryIdentifier?.lastComponent == "CarQuery")
    #expect(document.queries.values.first?.answers == [.identifiers, .suggested, .string])
    #expect(
      document.autoShortcuts.first?.phraseTemplates.map(\.key) == [
        "Fuel my car with ${applicationName}", "Fuel my car at ${location} with ${applicationName}",
      ])
    #expect(MetadataValidator.validate(document, file: "x").filter { $0.severity == .error }.isEmpty)
  }

  /// The files it writes read back to the same document (so its digest is the one `initialize` reports).
  @Test func emittedFilesReadBack() throws {
    let directory = try TemporaryDirectory("intenthost-emit")
    defer { directory.remove() }
    #expect(FuelExtension.emitMetadata(into: directory.path) == 0)
    let folder = directory.path + "/Metadata.appintents/"
    let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "extract.actionsdata"))
    let reading = try MetadataReader.read(bytes, file: "extract.actionsdata")
    #expect(reading.findings.isEmpty, "\(reading.findings)")
    #expect(try reading.document == FuelExtension.metadataDocument())
    #expect(reading.document.digest == (try FuelExtension.metadataDocument().digest))
    let version = try MetadataReader.readVersion(
      try Data(contentsOf: URL(fileURLWithPath: folder + "version.json")), file: "version.json")
    #expect(version.version.version == "3.0" && version.findings.isEmpty)
    #expect(FuelExtension.emitMetadata(into: nil) == 64)
    #expect(FuelExtension.emitMetadata(into: "/proc/no-such/place") == 73)
  }

  /// The reader's limit on an action's parameters is the protocol's on an intent's: whatever metadata reads can be
  /// sent to perform.
  @Test func theParameterLimitIsTheProtocols() {
    #expect(MetadataLimits.maximumParameters == AppIntentLimits.maximumItems)
  }
}
