/// The package `assistant new app NAME` writes: an app, its Intents extension and its Intents UI extension sharing
/// one app group, an intent definition with one intent (an enum, a number and a string parameter), a vocabulary with
/// its phrases, and the Swift code of each executable, which builds with `assistant build` and answers its sample
/// phrase at once.
///
/// ```
/// Coffee/Package.swift                       the three executables, depending on the IntentHost SDK
/// Coffee/Coffee/                             the app: Info.plist, Coffee.entitlements, Base.lproj/{Intents.intentdefinition,
///                                            AppIntentVocabulary.plist}, Code/main.swift (the `coffee` executable)
/// Coffee/CoffeeIntents/                      the Intents extension: Info.plist, CoffeeIntents.entitlements, Code/
/// Coffee/CoffeeUI/                           the Intents UI extension: Info.plist, Code/
/// Coffee/README.md                           how to build, install, ask and change it
/// ```
package struct AppTemplate: Sendable {
  /// The app's name: a letter, then letters and digits (`Coffee`).
  package var name: String
  package var intent: NewIntent
  /// Where the IntentHost package is, for the path dependency.
  package var sdkPath: String

  package init(name: String, intent: NewIntent, sdkPath: String) {
    self.name = name
    self.intent = intent
    self.sdkPath = sdkPath
  }

  /// The default intent of an app `NAME`: `OrderNAME` with a size, a quantity and who it is for.
  package static func defaultIntent(for name: String) -> NewIntent {
    NewIntent(
      name: "Order\(name)",
      parameters: [
        .init(name: "size", kind: .enumeration(["small", "medium", "large"])),
        .init(name: "quantity", kind: .integer),
        .init(name: "customer", kind: .string),
      ], phrase: "Order ${quantity} ${size} for ${customer}",
      successDialog: "Your ${quantity} ${size} for ${customer} is ordered.")
  }

  /// Why `name` cannot name an app, or nil.
  package static func nameProblem(_ name: String) -> String? {
    guard NewIntent.isIdentifier(name), name.first!.isUppercase else {
      return "\"\(name)\" is not an app name: give an UpperCamelCase name of letters and digits, e.g. Coffee"
    }
    return nil
  }

  var lower: String { name.lowercased() }
  var bundleIdentifier: String { "com.example.\(lower)" }
  var group: String { "group.com.example.\(lower)" }
  var intentClass: String { intent.name + "Intent" }
  /// The package's identity of the SDK's path dependency: its folder's name.
  var sdkIdentity: String { String(sdkPath.split(separator: "/").last ?? "intenthost") }

  /// The sample phrase: the intent's phrase with a sample value for each parameter, and the app's name.
  package var samplePhrase: String { intent.samplePhrase(app: name) }

  /// Every file: its path in the package and its contents.
  package var files: [(path: String, contents: String)] {
    [
      ("Package.swift", packageManifest),
      ("README.md", readme),
      ("\(name)/Info.plist", appInfo.xmlDocument),
      ("\(name)/\(name).entitlements", entitlements.xmlDocument),
      ("\(name)/Base.lproj/Intents.intentdefinition", intent.definition.xmlDocument),
      ("\(name)/Base.lproj/AppIntentVocabulary.plist", vocabulary.xmlDocument),
      ("\(name)/Code/main.swift", appCode),
      ("\(name)Intents/Info.plist", extensionInfo(ui: false).xmlDocument),
      ("\(name)Intents/\(name)Intents.entitlements", entitlements.xmlDocument),
      ("\(name)Intents/Code/\(name)Intents.swift", extensionCode),
      ("\(name)UI/Info.plist", extensionInfo(ui: true).xmlDocument),
      ("\(name)UI/Code/\(name)UI.swift", uiCode),
      ("Tests/\(name)Tests/\(name)Tests.swift", testCode),
      (".gitignore", ".build/\n.swiftpm/\nPackage.resolved\n"),
    ]
  }

  /// The start of a package manifest of every flavour: what the package is, how it depends on the SDK (`sdk`), and
  /// the static Swift runtime of its executables (`staticSwiftRuntime`).
  func manifestPreamble(_ summary: String) -> String {
    """
    // swift-tools-version: 6.2
    import PackageDescription

    // \(name): \(summary) for IntentHost (`assistant build --install`).
    //
    // The SDK is a path dependency on your IntentHost clone; its package identity is the clone's folder name
    // ("\(sdkIdentity)"), which `.product(..., package:)` names. From a git URL instead, the identity is the URL's last
    // path component without ".git":
    //   .package(url: "https://example.com/you/intenthost.git", branch: "main")  ->  package: "intenthost"
    let sdk: Target.Dependency = .product(name: "ExtensionSDK", package: "\(sdkIdentity)")

    // Extensions link the Swift runtime statically: they start faster and need only the C libraries in their sandbox.
    let staticSwiftRuntime: [LinkerSetting] = [
      .unsafeFlags(
        ["-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims", "-use-ld=lld"], .when(platforms: [.linux]))
    ]


    """
  }

  var packageManifest: String {
    manifestPreamble("an app, its Intents extension and its Intents UI extension") + """
      // Typed Swift (\(intentClass), \(intent.name)IntentHandling, \(intent.name)IntentResponse) generated from
      // \(name)/Base.lproj/Intents.intentdefinition at each build, as Xcode's intent class generation does.
      let typedIntents: [Target.PluginUsage] = [.plugin(name: "IntentDefinitionPlugin", package: "\(sdkIdentity)")]

      let package = Package(
        name: "\(name)",
        platforms: [.macOS(.v15)],
        dependencies: [.package(path: "\(sdkPath)")],
        targets: [
          // The app, launched by `assistant open \(name) -- ARGS`.
          .executableTarget(name: "\(lower)", dependencies: [sdk], path: "\(name)/Code", linkerSettings: staticSwiftRuntime),
          // The Intents extension: resolves, confirms and handles \(intentClass).
          .executableTarget(
            name: "\(name)Intents", dependencies: [sdk], path: "\(name)Intents/Code", linkerSettings: staticSwiftRuntime,
            plugins: typedIntents),
          // The Intents UI extension: draws the card of \(intentClass).
          .executableTarget(
            name: "\(name)UI", dependencies: [sdk], path: "\(name)UI/Code", linkerSettings: staticSwiftRuntime,
            plugins: typedIntents),
          // Siri flows of the app, through the real assistant engine and the built extensions (IntentHostTesting).
          .testTarget(
            name: "\(name)Tests", dependencies: [.product(name: "IntentHostTesting", package: "\(sdkIdentity)")],
            path: "Tests/\(name)Tests"),
        ]
      )

      """
  }

  var readme: String {
    """
    # \(name)

    An app for IntentHost: `\(name)/` is the app, `\(name)Intents/` its Intents extension, `\(name)UI/` its Intents
    UI extension; each folder holds the bundle's manifests (Info.plist, entitlements, `Base.lproj/`) and its Swift
    code in `Code/`. They share the app group `\(group)`.

    ```sh
    assistant build --install               # swift build, assemble .build/bundles/\(name).app, validate, install
    assistant "\(samplePhrase)"
    assistant open \(name) -- list           # the app lists what was ordered
    assistant dev . "\(samplePhrase)"   # again on every change
    swift test                              # Tests/\(name)Tests: the phrase through the real engine
    ```

    The extension's handler conforms to `\(intent.name)IntentHandling`, which the SDK's `IntentDefinitionPlugin`
    generates from the definition at each build with `\(intentClass)` (typed properties) and
    `\(intent.name)IntentResponse`: a value of the wrong type is a compile error.

    The intent is `\(intentClass)` in `\(name)/Base.lproj/Intents.intentdefinition`; its example phrases are in
    `AppIntentVocabulary.plist`.

    """
  }

  var appInfo: PlistValue {
    .dictionary(
      commonInfo(identifier: bundleIdentifier, executable: lower, displayName: name).merging(
        ["CFBundlePackageType": .string("APPL"), "NSSiriUsageDescription": .string("\(name) takes orders by voice.")]
      ) { $1 })
  }

  func extensionInfo(ui: Bool) -> PlistValue {
    let suffix = ui ? "UI" : "Intents"
    var attributes: [String: PlistValue] = ["IntentsSupported": .array([.string(intentClass)])]
    if !ui {
      attributes["IntentsRestrictedWhileLocked"] = .array([])
      attributes["IntentsRestrictedWhileProtectedDataUnavailable"] = .array([])
    }
    var nsExtension: [String: PlistValue] = [
      "NSExtensionAttributes": .dictionary(attributes),
      "NSExtensionPointIdentifier": .string(ui ? "com.apple.intents-ui-service" : "com.apple.intents-service"),
    ]
    if ui {
      nsExtension["NSExtensionMainStoryboard"] = .string("MainInterface")
    } else {
      nsExtension["NSExtensionPrincipalClass"] = .string("\(name)Intents.IntentHandler")
    }
    return .dictionary(
      commonInfo(
        identifier: "\(bundleIdentifier).\(name)\(suffix)", executable: "\(name)\(suffix)",
        displayName: "\(name)\(suffix)"
      ).merging(["CFBundlePackageType": .string("XPC!"), "NSExtension": .dictionary(nsExtension)]) { $1 })
  }

  func commonInfo(identifier: String, executable: String, displayName: String) -> [String: PlistValue] {
    [
      "CFBundleDevelopmentRegion": .string("en"),
      "CFBundleDisplayName": .string(displayName),
      "CFBundleExecutable": .string(executable),
      "CFBundleIdentifier": .string(identifier),
      "CFBundleInfoDictionaryVersion": .string("6.0"),
      "CFBundleName": .string(displayName),
      "CFBundleShortVersionString": .string("1.0"),
      "CFBundleVersion": .string("1"),
    ]
  }

  var entitlements: PlistValue {
    .dictionary([
      "com.apple.developer.siri": .boolean(true),
      "com.apple.security.application-groups": .array([.string(group)]),
    ])
  }

  var vocabulary: PlistValue {
    .dictionary([
      "IntentPhrases": .array([
        .dictionary([
          "IntentExamples": .array([.string(samplePhrase)]),
          "IntentName": .string(intentClass),
        ])
      ])
    ])
  }

  /// The resolve method of one parameter: its value, or needed (an enum's `unknown` is no value).
  func resolveMethod(_ parameter: NewIntent.Parameter) -> String {
    let type: String
    var check = "let value = intent.\(parameter.name)"
    switch parameter.kind {
    case .integer: type = "Int"
    case .decimal: type = "Double"
    case .boolean: type = "Bool"
    case .string:
      type = "String"
      check += ", !value.isEmpty"
    case .enumeration:
      type = parameter.enumName
      check += ", value != .unknown"
    }
    let method = "resolve" + parameter.name.prefix(1).uppercased() + parameter.name.dropFirst()
    return """
        func \(method)(for intent: \(intentClass), in context: ExtensionContext) async throws
          -> TypedResolutionResult<\(type)>
        {
          guard \(check) else { return .needsValue }
          return .success(with: value)
        }
      """
  }

  /// How a parameter's value is written into the order's record.
  func recorded(_ parameter: NewIntent.Parameter) -> String {
    switch parameter.kind {
    case .string: parameter.name
    case .enumeration: "\(parameter.name).rawValue"
    case .integer, .decimal, .boolean: "Swift.String(\(parameter.name))"
    }
  }

  var extensionCode: String {
    let names = intent.parameters.map(\.name)
    let record = intent.parameters.map { "\"\($0.name)\": \(recorded($0))" }.joined(separator: ", ")
    let arguments = names.map { "\($0): \($0)" }.joined(separator: ", ")
    let bindings = names.map { "let \($0) = intent.\($0)" }.joined(separator: ", ")
    return """
      // The \(name) Intents extension: resolves and handles \(intentClass), and records each order in the app group
      // \(group), where the \(name) app reads it. \(intentClass), \(intent.name)IntentHandling and
      // \(intent.name)IntentResponse are generated from \(name)/Base.lproj/Intents.intentdefinition at each build.
      import ExtensionSDK

      @main
      struct \(name)IntentsExtension: IntentsExtension {
        func handler(for intent: Intent) -> (any IntentHandler)? {
          intent.name == \(intentClass).className ? \(intent.name)Handler() : nil
        }
      }

      /// The orders placed, as the app group's document `orders.json` holds them.
      struct \(name)Orders: DocumentContent {
        static let schemaVersion = 1
        var orders: [[Swift.String: Swift.String]] = []
      }

      struct \(intent.name)Handler: \(intent.name)IntentHandling {
      \(intent.parameters.map(resolveMethod).joined(separator: "\n\n"))

        func handle(intent: \(intentClass), in context: ExtensionContext) async throws -> \(intent.name)IntentResponse {
          guard \(bindings) else {
            return \(intent.name)IntentResponse(code: .failure, reason: "a value is missing")
          }
          let orders = try context.appGroup("\(group)").document("orders.json", as: \(name)Orders.self)
          try await orders.update { $0.orders.append([\(record)]) }
          return \(intent.name)IntentResponse(code: .success, \(arguments))
        }
      }

      """
  }

  var uiCode: String {
    let rows = intent.parameters.map { parameter -> String in
      let shown: String
      switch parameter.kind {
      case .string: shown = "$0"
      case .enumeration: shown = "$0.rawValue"
      case .integer, .decimal, .boolean: shown = "Swift.String($0)"
      }
      return "intent.\(parameter.name).map { SnippetNode.row(label: \"\(parameter.displayName)\", value: \(shown)) },"
    }.joined(separator: "\n      ")
    return """
      // The \(name) Intents UI extension: draws the card of \(intentClass) with the values it was given, read through
      // the typed \(intentClass) generated from the definition.
      import ExtensionSDK

      @main
      struct \(name)Card: IntentViewController {
        func configureView(for parameters: [String], of interaction: Interaction, in context: ViewContext) async throws
          -> ConfiguredView
        {
          let intent = \(intentClass)(interaction.intent)
          let rows: [SnippetNode] = [
            \(rows)
          ].compactMap { $0 }
          return ConfiguredView(
            success: true, parameters: [\(intent.parameters.map { "\"\($0.name)\"" }.joined(separator: ", "))],
            size: ViewSize(width: min(320, context.maximumSize.width), height: 88),
            snippet: .stack([.text("\(name)")] + rows))
        }
      }

      """
  }

  /// A Swift Testing test of the sample phrase through the real engine and the built extensions.
  var testCode: String {
    testFile(
      built: "extensions", test: "theSamplePhraseIsHandled", say: "\"\(samplePhrase)\"",
      dialogExpectation: "result.dialog == [\"\(samplePhraseDialog)\"]")
  }

  /// The package's test file of every flavour: it installs the package's bundles from what `swift test` built, says
  /// `say` (the arguments of `host.say`) through the real engine, and expects success, `dialogExpectation` and an
  /// order in the app group.
  func testFile(built: String, test: String, say: String, dialogExpectation: String) -> String {
    """
    // \(name)'s Siri flows, through the real assistant engine and the \(built) `swift test` built (IntentHostTesting):
    // each test has a home of its own, a fresh device.
    import Foundation
    import IntentHostTesting
    import Testing

    /// The package's folder (this file is Tests/\(name)Tests/\(name)Tests.swift).
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()

    @Test func \(test)() async throws {
      try await withTestHost { host in
        try await host.install(from: PackageBundles(package: package))
        let result = try await host.say(\(say))
        #expect(result.isSuccess, "\\(result.transcript)")
        #expect(\(dialogExpectation), "\\(result.transcript)")
        let orders = try await host.appGroup("\(group)").document("orders.json")
        #expect(orders["orders"] != nil, "the extension recorded no order")
      }
    }

    """
  }

  /// What the sample phrase answers: the success dialog with the sample values.
  var samplePhraseDialog: String {
    var text = intent.successTemplate
    for (parameter, sample) in intent.samples {
      text = text.replacingOccurrences(of: "${\(parameter.name)}", with: sample)
    }
    return text
  }

  var appCode: String {
    """
    // The \(name) app: `\(lower) list` prints the orders the Intents extension recorded in the app group \(group).
    // Launched by the assistant: `assistant open \(name) -- list`.
    import ExtensionSDK

    #if canImport(Glibc)
      import Glibc
    #endif

    struct Orders: DocumentContent {
      static let schemaVersion = 1
      var orders: [[String: String]] = []
    }

    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.first == "list" else {
      print("usage: \(lower) list")
      exit(arguments.isEmpty ? 0 : 64)
    }
    let context = try AppContext.current()
    let orders = try context.appGroup("\(group)").document("orders.json", as: Orders.self).read().orders
    if orders.isEmpty { print("No orders yet.") }
    for order in orders {
      print(order.keys.sorted().map { "\\($0): \\(order[$0]!)" }.joined(separator: ", "))
    }

    """
  }
}
