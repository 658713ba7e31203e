/// The App Intents flavour of `assistant new app NAME --app-intents`: the app and an App Intents extension sharing one
/// app group, with the intent written in Swift against the SDK's `AppIntents` library (Apple's API): an `AppIntent`
/// with a `@Parameter` for each parameter, an `AppEnum` for each enum, and an `AppShortcutsProvider` whose phrase says
/// the first enum in its slot. There is no definition and no vocabulary: `assistant build` runs the extension with
/// `--emit-appintents-metadata` and puts the `Metadata.appintents` it writes into the `.appex`, as Xcode does.
///
/// ```
/// Coffee/Package.swift                the app and the extension, depending on the IntentHost SDK
/// Coffee/Coffee/                      the app: Info.plist, Coffee.entitlements, Code/main.swift
/// Coffee/CoffeeAppIntents/            the App Intents extension: Info.plist, CoffeeAppIntents.entitlements, Code/
/// Coffee/Tests/CoffeeTests/           the App Shortcut phrase through the real engine (IntentHostTesting)
/// ```
package struct AppIntentsAppTemplate: Sendable {
  package var base: AppTemplate

  package init(base: AppTemplate) { self.base = base }

  var name: String { base.name }
  var intent: NewIntent { base.intent }
  var extensionName: String { "\(name)AppIntents" }
  var intentType: String { "\(intent.name)Intent" }
  /// The intent's title: its name in words ("Order Coffee").
  var title: String {
    var words: [String] = []
    for character in intent.name {
      if character.isUppercase || words.isEmpty {
        words.append(String(character))
      } else {
        words[words.count - 1].append(character)
      }
    }
    return words.joined(separator: " ")
  }
  /// The parameter an App Shortcut phrase says in its slot: the first enum (Apple allows an `AppEnum` or an
  /// `AppEntity` there, never a number or free text).
  var slot: NewIntent.Parameter? {
    intent.parameters.first { if case .enumeration = $0.kind { true } else { false } }
  }
  /// The phrase's words before the slot: the title, without the app's name at its end when there is a slot
  /// ("Order \(\.$size)", not "Order Coffee \(\.$size)").
  var verb: String {
    let words = title.split(separator: " ")
    guard slot != nil, words.count > 1, words.last.map(String.init) == name else { return title }
    return words.dropLast().joined(separator: " ")
  }

  /// The App Shortcut phrase, in Apple's spelling.
  var shortcutPhrase: String {
    if let slot { return "\(verb) \\(\\.$\(slot.name)) with \\(.applicationName)" }
    return "\(title) with \\(.applicationName)"
  }

  /// The phrase said whole: the slot's sample value and the app's name.
  package var samplePhrase: String {
    if let slot, case .enumeration(let cases) = slot.kind { return "\(verb) \(cases.last ?? "") with \(name)" }
    return "\(title) with \(name)"
  }

  /// What the user answers when asked, in the parameters' order: a sample of each parameter the phrase does not say.
  package var sampleAnswers: [String] {
    intent.samples.filter { $0.0.name != slot?.name }.map(\.1)
  }

  /// Every file: its path in the package and its contents.
  package var files: [(path: String, contents: String)] {
    [
      ("Package.swift", packageManifest),
      ("README.md", readme),
      ("\(name)/Info.plist", appInfo.xmlDocument),
      ("\(name)/\(name).entitlements", base.entitlements.xmlDocument),
      ("\(name)/Code/main.swift", base.appCode),
      ("\(extensionName)/Info.plist", extensionInfo.xmlDocument),
      ("\(extensionName)/\(extensionName).entitlements", base.entitlements.xmlDocument),
      ("\(extensionName)/Code/\(extensionName).swift", extensionCode),
      ("Tests/\(name)Tests/\(name)Tests.swift", testCode),
      (".gitignore", ".build/\n.swiftpm/\nPackage.resolved\n"),
    ]
  }

  var packageManifest: String {
    let sdkIdentity = base.sdkIdentity
    return base.manifestPreamble("an app and its App Intents extension") + """
      let appIntents: Target.Dependency = .product(name: "AppIntents", package: "\(sdkIdentity)")

      let package = Package(
        name: "\(name)",
        platforms: [.macOS(.v15)],
        dependencies: [.package(path: "\(base.sdkPath)")],
        targets: [
          // The app, launched by `assistant open \(name) -- ARGS`.
          .executableTarget(name: "\(base.lower)", dependencies: [sdk], path: "\(name)/Code", linkerSettings: staticSwiftRuntime),
          // The App Intents extension: performs \(intentType). `assistant build` runs it with --emit-appintents-metadata
          // to write the Metadata.appintents the assistant reads, as Xcode does at build time.
          .executableTarget(
            name: "\(extensionName)", dependencies: [appIntents, sdk], path: "\(extensionName)/Code",
            linkerSettings: staticSwiftRuntime),
          // Siri flows of the app, through the real assistant engine and the built extension (IntentHostTesting).
          .testTarget(
            name: "\(name)Tests", dependencies: [.product(name: "IntentHostTesting", package: "\(sdkIdentity)")],
            path: "Tests/\(name)Tests"),
        ]
      )

      """
  }

  var readme: String {
    let answers = sampleAnswers.map { "--answer \(shellWord($0)) " }.joined()
    return """
      # \(name)

      An app for IntentHost with App Intents: `\(name)/` is the app, `\(extensionName)/` its App Intents extension;
      each folder holds the bundle's manifests (Info.plist, entitlements) and its Swift code in `Code/`. They share
      the app group `\(base.group)`.

      ```sh
      assistant build --install           # swift build, assemble .build/bundles/\(name).app with its metadata, install
      assistant "\(samplePhrase)"\(sampleAnswers.isEmpty ? "" : "   # then answer what it asks")
      assistant \(answers)"\(samplePhrase)"
      assistant open \(name) -- list       # the app lists what was ordered
      assistant dev . "\(samplePhrase)"   # again on every change
      swift test                          # Tests/\(name)Tests: the phrase through the real engine
      ```

      `\(extensionName)/Code/\(extensionName).swift` declares `\(intentType)` (an `AppIntent`), its enums (`AppEnum`)
      and `\(name)Shortcuts`, whose phrase `\(shortcutPhrase)` runs the intent with no setup. A parameter
      the phrase does not say is asked, with its `requestValueDialog`. `assistant build` writes the extension's
      `Metadata.appintents` from these declarations (`\(extensionName) --emit-appintents-metadata DIR`); the
      assistant reads only that file to know what the app can do.

      """
  }

  var appInfo: PlistValue {
    .dictionary(
      base.commonInfo(identifier: base.bundleIdentifier, executable: base.lower, displayName: name).merging(
        ["CFBundlePackageType": .string("APPL")]
      ) { $1 })
  }

  var extensionInfo: PlistValue {
    .dictionary(
      base.commonInfo(
        identifier: "\(base.bundleIdentifier).\(extensionName)", executable: extensionName, displayName: extensionName
      ).merging([
        "CFBundlePackageType": .string("XPC!"),
        "EXAppExtensionAttributes": .dictionary([
          "EXExtensionPointIdentifier": .string("com.apple.appintents-extension")
        ]),
      ]) { $1 })
  }

  /// The Swift type of a parameter's value.
  func swiftType(_ parameter: NewIntent.Parameter) -> String {
    switch parameter.kind {
    case .integer: "Int"
    case .decimal: "Double"
    case .boolean: "Bool"
    case .string: "String"
    case .enumeration: parameter.enumName
    }
  }

  /// How a parameter's value reads in a dialog, a view or the order's record.
  func text(_ parameter: NewIntent.Parameter) -> String {
    switch parameter.kind {
    case .string: parameter.name
    case .enumeration: "\(parameter.name).rawValue"
    case .integer, .decimal, .boolean: "String(\(parameter.name))"
    }
  }

  /// An `AppEnum` for each enum parameter.
  var enumDeclarations: [String] {
    intent.parameters.compactMap { parameter in
      guard case .enumeration(let cases) = parameter.kind else { return nil }
      let representations = cases.map { ".\($0): \"\(NewIntent.Parameter.words($0))\"" }.joined(separator: ", ")
      return """
        /// The \(parameter.displayName.lowercased()) of an order, as the assistant offers it: said by its title or its name.
        enum \(parameter.enumName): String, CaseIterable, AppEnum {
          case \(cases.joined(separator: ", "))

          static let typeDisplayRepresentation = TypeDisplayRepresentation(name: "\(parameter.displayName)")
          static let caseDisplayRepresentations: [\(parameter.enumName): DisplayRepresentation] = [
            \(representations),
          ]
        }
        """
    }
  }

  /// The success dialog, with each value interpolated.
  var dialog: String {
    var text = intent.successTemplate
    for parameter in intent.parameters {
      text = text.replacingOccurrences(of: "${\(parameter.name)}", with: "\\(\(self.text(parameter)))")
    }
    return text
  }

  var extensionCode: String {
    let parameters = intent.parameters.map { parameter in
      """
        @Parameter(title: "\(parameter.displayName)", requestValueDialog: "\(NewIntent.prompt(for: parameter))")
        var \(parameter.name): \(swiftType(parameter))
      """
    }.joined(separator: "\n\n")
    let record = intent.parameters.map { "\"\($0.name)\": \(text($0))" }.joined(separator: ", ")
    let rows = intent.parameters.map { "LabeledContent(\"\($0.displayName)\", value: \(text($0)))" }
      .joined(separator: "\n        ")
    return """
      // The \(name) App Intents extension: performs \(intentType) and records each order in the app group \(base.group),
      // where the \(name) app reads it. Run by the assistant it serves the intent; run as
      // `\(extensionName) --emit-appintents-metadata DIR` (`assistant build` does), it writes DIR/Metadata.appintents
      // from these declarations, as Xcode does at build time.
      import AppIntents
      import ExtensionSDK

      @main
      struct \(extensionName): AppIntentsExtension {
        static let intents: [any AppIntent.Type] = [\(intentType).self]
        static let shortcuts: (any AppShortcutsProvider.Type)? = \(name)Shortcuts.self
      }

      /// The phrases that run the intents with no setup: each says the app's name, and at most one parameter (an enum).
      struct \(name)Shortcuts: AppShortcutsProvider {
        static var appShortcuts: [AppShortcut] {
          AppShortcut(
            intent: \(intentType)(), phrases: ["\(shortcutPhrase)"], shortTitle: "\(title)",
            systemImageName: "cart")
        }
      }

      /// The orders placed, as the app group's document `orders.json` holds them.
      struct \(name)Orders: DocumentContent {
        static let schemaVersion = 1
        var orders: [[String: String]] = []
      }

      \(enumDeclarations.joined(separator: "\n\n"))

      struct \(intentType): AppIntent {
        static let title: LocalizedStringResource = "\(title)"

      \(parameters)

        func perform() async throws -> some IntentResult & ProvidesDialog & ShowsSnippetView {
          let orders = try ExtensionContext.current().appGroup("\(base.group)")
            .document("orders.json", as: \(name)Orders.self)
          try await orders.update { $0.orders.append([\(record)]) }
          return .result(
            dialog: "\(dialog)",
            view: VStack {
              Text("\(name)")
              \(rows)
            })
        }
      }

      """
  }

  /// A Swift Testing test of the App Shortcut phrase, with the answers to what it asks.
  var testCode: String {
    let answers = sampleAnswers.map { "\"\($0)\"" }.joined(separator: ", ")
    return base.testFile(
      built: "extension", test: "theShortcutPhraseIsPerformed", say: "\"\(samplePhrase)\", answers: [\(answers)]",
      dialogExpectation: "result.dialog.last == \"\(base.samplePhraseDialog)\"")
  }

  /// A word for a POSIX shell: as it is when it is safe, else in single quotes.
  func shellWord(_ word: String) -> String {
    word.allSatisfy { $0.isLetter || $0.isNumber || ".-_".contains($0) } ? word : "'" + word + "'"
  }
}
