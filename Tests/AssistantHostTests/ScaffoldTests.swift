import BundleManifest
import Foundation
import TestSupport
import Testing

@testable import AssistantHost

/// What `assistant new` writes: intent definitions the manifest model reads back as written, and parameters read from
/// `--param NAME:TYPE` or refused with the form.
@Suite(.tags(.unit))
struct ScaffoldTests {
  @Test func aNewDefinitionReadsBackWithItsEnumAndTypes() throws {
    let intent = AppTemplate.defaultIntent(for: "Coffee")
    let directory = try TemporaryDirectory("intenthost-scaffold")
    defer { directory.remove() }
    let file = directory.file("Intents.intentdefinition")
    try Data(intent.definition.xmlDocument.utf8).write(to: file)
    let definition = try IntentDefinition.load(contentsOf: file)
    let spec = try #require(definition.intents.first)
    #expect(spec.className == "OrderCoffeeIntent")
    #expect(spec.parameters.map(\.name) == ["size", "quantity", "customer"])
    #expect(definition.enums.map(\.name) == ["Size"])
    #expect(definition.enums.first?.values.map(\.name) == ["unknown", "small", "medium", "large"])
    #expect(spec.response?.codes.map(\.name) == ["success", "failure"])
    #expect(spec.combinations.first?.title == "Order ${quantity} ${size} for ${customer}")
  }

  @Test(arguments: [
    ("drink:enum(espresso,latte)", NewIntent.Kind.enumeration(["espresso", "latte"])),
    ("quantity:integer", .integer), ("price:decimal", .decimal), ("iced:boolean", .boolean), ("note:string", .string),
  ])
  func parametersAreRead(text: String, kind: NewIntent.Kind) throws {
    #expect(try NewIntent.parameter(text).kind == kind)
  }

  @Test(arguments: [
    "drink", "drink:", ":integer", "dr-ink:integer", "drink:float", "drink:enum()", "drink:enum(a,,b)",
    "drink:enum(a,a)", "drink:enum(unknown,latte)", "drink:enum(la tte)", "../x:string",
  ])
  func malformedParametersAreRefused(text: String) {
    #expect(throws: HostError.self) { try NewIntent.parameter(text) }
  }

  /// Text that would break the XML is escaped (a control shows the raw text is in the value).
  @Test func plistTextIsEscaped() {
    let xml = PlistValue.dictionary(["a<b": .string("x & </string><true/>")]).xmlDocument
    #expect(xml.contains("<key>a&lt;b</key>"))
    #expect(xml.contains("<string>x &amp; &lt;/string&gt;&lt;true/&gt;</string>"))
  }

  /// `assistant new intent`: the intent and its enum join the definition, the extensions that support the
  /// definition's intents list it, the vocabulary gets its phrase, and the package still validates clean. The same
  /// name twice is refused; a folder with two definitions asks which.
  @Test func anIntentIsAddedToAnExistingPackage() throws {
    let directory = try TemporaryDirectory("intenthost-scaffold")
    defer { directory.remove() }
    let template = AppTemplate(name: "Coffee", intent: AppTemplate.defaultIntent(for: "Coffee"), sdkPath: "/sdk")
    for (path, contents) in template.files {
      let file = directory.url.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(contents.utf8).write(to: file)
    }
    let cancel = NewIntent(
      name: "CancelOrder",
      parameters: [try NewIntent.parameter("customer:string"), try NewIntent.parameter("why:enum(late,wrong)")])
    let addition = try cancel.add(to: directory.url)
    #expect(addition.definition.hasSuffix("Coffee/Base.lproj/Intents.intentdefinition"))
    #expect(
      addition.infoPlists.map { URL(fileURLWithPath: $0).deletingLastPathComponent().lastPathComponent } == [
        "CoffeeIntents", "CoffeeUI",
      ])
    #expect(addition.phrase == "Cancel order Ada wrong with Coffee")
    let definition = try IntentDefinition.load(contentsOf: URL(fileURLWithPath: addition.definition))
    #expect(definition.intents.map(\.name) == ["OrderCoffee", "CancelOrder"])
    #expect(definition.enums.map(\.name) == ["Size", "Why"])
    let diagnostics = Validator().validate(path: directory.path)
    #expect(diagnostics.filter { $0.severity != .note }.isEmpty, "\(diagnostics.map(\.shown))")

    #expect(throws: HostError.self) { try cancel.add(to: directory.url) }
    // Control: before the addition there was no warning to hide: the extensions did not list CancelOrderIntent.
    let info = try String(contentsOf: directory.url.appendingPathComponent("CoffeeIntents/Info.plist"), encoding: .utf8)
    #expect(info.contains("<string>CancelOrderIntent</string>"))

    try Data(template.intent.definition.xmlDocument.utf8).write(
      to: directory.url.appendingPathComponent("Coffee/Other.intentdefinition"))
    let ambiguous = #expect(throws: HostError.self) {
      try NewIntent(name: "Refund", parameters: []).add(to: directory.url)
    }
    #expect(ambiguous?.status == .usage)
  }
}
