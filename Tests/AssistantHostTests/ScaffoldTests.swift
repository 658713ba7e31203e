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

  /// `new app --app-intents`: the phrase says the first enum in its slot and the app's name; what it does not say is
  /// asked, in the parameters' order; the extension's Info.plist is an App Intents extension's.
  @Test func anAppIntentsAppSaysItsEnumAndAsksTheRest() throws {
    let template = AppIntentsAppTemplate(
      base: AppTemplate(name: "Coffee", intent: AppTemplate.defaultIntent(for: "Coffee"), sdkPath: "/sdk/intenthost"))
    #expect(template.samplePhrase == "Order large with Coffee")
    #expect(template.sampleAnswers == ["2", "Ada"])
    #expect(template.shortcutPhrase == #"Order \(\.$size) with \(.applicationName)"#)
    #expect(template.base.samplePhraseDialog == "Your 2 large for Ada is ordered.")
    let code = template.extensionCode
    #expect(code.contains("enum Size: String, CaseIterable, AppEnum {\n  case small, medium, large"))
    #expect(
      code.contains("var quantity: Int") && code.contains("var customer: String") && code.contains("var size: Size"))
    #expect(code.contains(#"dialog: "Your \(String(quantity)) \(size.rawValue) for \(customer) is ordered.""#))
    #expect(template.packageManifest.contains(#".product(name: "AppIntents", package: "intenthost")"#))
    #expect(
      !template.files.contains { $0.path.hasSuffix(".intentdefinition") || $0.path.hasSuffix("Vocabulary.plist") })

    let directory = try TemporaryDirectory("intenthost-scaffold")
    defer { directory.remove() }
    let file = directory.file("Info.plist")
    try Data(template.extensionInfo.xmlDocument.utf8).write(to: file)
    let info = try InfoPlist.load(contentsOf: file)
    #expect(info.appExtensionPointIdentifier == AppIntentsExtensionBundle.extensionPoint)
    #expect(info.bundleIdentifier == "com.example.coffee.CoffeeAppIntents" && info.executable == "CoffeeAppIntents")
  }

  /// Without an enum the phrase has no slot and every value is asked; each kind has its Swift type.
  @Test func anAppIntentWithoutAnEnumSaysItsTitle() throws {
    let intent = NewIntent(
      name: "BrewTea",
      parameters: [
        try NewIntent.parameter("cups:integer"), try NewIntent.parameter("strength:decimal"),
        try NewIntent.parameter("iced:boolean"),
      ])
    let template = AppIntentsAppTemplate(base: AppTemplate(name: "Tea", intent: intent, sdkPath: "/sdk"))
    #expect(template.shortcutPhrase == #"Brew Tea with \(.applicationName)"#)
    #expect(template.samplePhrase == "Brew Tea with Tea")
    #expect(template.sampleAnswers == ["2", "1.5", "yes"])
    #expect(
      template.extensionCode.contains("var strength: Double") && template.extensionCode.contains("var iced: Bool"))
  }

  /// `new intent` in an App Intents package names where its intents are declared instead.
  @Test func newIntentInAnAppIntentsPackageSaysWhereIntentsAre() throws {
    let directory = try TemporaryDirectory("intenthost-scaffold")
    defer { directory.remove() }
    let template = AppIntentsAppTemplate(
      base: AppTemplate(name: "Coffee", intent: AppTemplate.defaultIntent(for: "Coffee"), sdkPath: "/sdk"))
    for (path, contents) in template.files {
      let file = directory.url.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(contents.utf8).write(to: file)
    }
    let refused = #expect(throws: HostError.self) {
      try NewIntent(name: "Refund", parameters: []).add(to: directory.url)
    }
    #expect(refused?.status == .noInput)
    #expect(refused?.message.contains("add an AppIntent struct") == true, "\(String(describing: refused))")
  }
}
