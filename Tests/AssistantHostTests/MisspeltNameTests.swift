import BundleManifest
import ExtensionProtocol
import Foundation
import TestSupport
import Testing
import Understanding

@testable import AssistantHost

/// A misspelt name gets a "did you mean": a template's `${name}`, an app group, a word of an example phrase, a
/// manifest key. Each case makes one typo in a small coffee-ordering project (an app, its Intents and Intents UI
/// extensions, a definition, a vocabulary) that validates clean (the control), and names the finding it must give.
@Suite(.tags(.unit)) struct MisspeltNameTests {
  /// The project's files, relative to its folder, as property lists.
  static func project() -> [String: [String: Any]] {
    let group = ["com.apple.security.application-groups": ["group.com.example.coffeeshop"]]
    func extensionInfo(_ name: String, point: String) -> [String: Any] {
      [
        "CFBundleIdentifier": "com.example.coffee.\(name)", "CFBundleExecutable": name, "CFBundlePackageType": "XPC!",
        "NSExtension": [
          "NSExtensionPointIdentifier": point, "NSExtensionPrincipalClass": "\(name).Handler",
          "NSExtensionAttributes": ["IntentsSupported": ["OrderCoffeeIntent"]],
        ],
      ]
    }
    func parameter(_ name: String, _ type: String, prompt: String, enumType: String? = nil) -> [String: Any] {
      var parameter: [String: Any] = [
        "INIntentParameterName": name, "INIntentParameterType": type,
        "INIntentParameterPromptDialogs": [
          ["INIntentParameterPromptDialogType": "Primary", "INIntentParameterPromptDialogFormatString": prompt]
        ],
      ]
      parameter["INIntentParameterEnumType"] = enumType
      return parameter
    }
    func responseParameter(_ name: String, _ type: String) -> [String: Any] {
      ["INIntentResponseParameterName": name, "INIntentResponseParameterType": type]
    }
    let definition: [String: Any] = [
      "INIntentDefinitionModelVersion": "1.2",
      "INIntents": [
        [
          "INIntentName": "OrderCoffee", "INIntentCategory": "order", "INIntentTitle": "Order Coffee",
          "INIntentParameters": [
            parameter("quantity", "Integer", prompt: "How many?"),
            parameter("size", "String", prompt: "Which size of ${drink}?"),
            parameter("drink", "Integer", prompt: "Which drink?", enumType: "Drink"),
          ],
          "INIntentResponse": [
            "INIntentResponseParameters": [
              responseParameter("quantity", "Integer"), responseParameter("size", "String"),
              responseParameter("drink", "Integer"),
            ],
            "INIntentResponseCodes": [
              [
                "INIntentResponseCodeName": "success", "INIntentResponseCodeSuccess": true,
                "INIntentResponseCodeFormatString": "Your ${quantity} ${size} ${drink} is ordered.",
              ],
              ["INIntentResponseCodeName": "failure", "INIntentResponseCodeFormatString": "Sorry."],
            ],
          ],
        ] as [String: Any]
      ],
      "INEnums": [
        [
          "INEnumName": "Drink",
          "INEnumValues": [
            ["INEnumValueName": "unknown", "INEnumValueIndex": 0],
            ["INEnumValueName": "latte", "INEnumValueDisplayName": "Latte", "INEnumValueIndex": 1],
            ["INEnumValueName": "espresso", "INEnumValueDisplayName": "Espresso", "INEnumValueIndex": 2],
          ],
        ] as [String: Any]
      ],
    ]
    let vocabulary: [String: Any] = [
      "IntentPhrases": [
        [
          "IntentName": "OrderCoffeeIntent",
          // "lattes" is a plural of a case, not a misspelling (a control).
          "IntentExamples": ["Order 2 lattes with Coffee", "Order a grande espresso with Coffee"],
        ]
      ],
      "ParameterVocabularies": [
        [
          "ParameterNames": ["OrderCoffeeIntent.size"],
          "ParameterVocabulary": [
            [
              "VocabularyItemIdentifier": "large",
              "VocabularyItemSynonyms": [["VocabularyItemPhrase": "grande"]],
            ]
          ],
        ] as [String: Any]
      ],
    ]
    return [
      "Coffee/Info.plist": [
        "CFBundleIdentifier": "com.example.coffee", "CFBundleExecutable": "coffee", "CFBundleName": "Coffee",
        "CFBundlePackageType": "APPL", "NSSiriUsageDescription": "Siri orders your coffee.",
      ],
      "Coffee/Coffee.entitlements": group,
      "Coffee/Intents.intentdefinition": definition,
      "Coffee/AppIntentVocabulary.plist": vocabulary,
      "CoffeeIntents/Info.plist": extensionInfo("CoffeeIntents", point: "com.apple.intents-service"),
      "CoffeeIntents/CoffeeIntents.entitlements": group,
      "CoffeeUI/Info.plist": extensionInfo("CoffeeUI", point: "com.apple.intents-ui-service"),
      "CoffeeUI/CoffeeUI.entitlements": group,
    ]
  }

  /// Writes `files` (the project, changed) into `folder` as XML property lists.
  static func write(_ files: [String: [String: Any]], to folder: URL) throws {
    for (path, plist) in files {
      let url = folder.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: url)
    }
  }

  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var rule: Diagnostic.Rule
    var severity: Diagnostic.Severity
    /// The file the finding names, relative to the project's folder.
    var file: String
    var keyPath: String
    /// Words the message must contain (the typo), and the fix (the name meant).
    var says: String
    var fix: String
    /// Rules the typo must not also give (the finding it replaces or folds into).
    var not: [Diagnostic.Rule] = []
    var change: @Sendable (inout [String: [String: Any]]) -> Void

    var testDescription: String { name }
  }

  /// Sets `value` at the dictionary path `keys` of `plist`.
  static func set(_ plist: inout [String: Any], _ keys: [String], _ value: Any?) {
    guard let first = keys.first else { return }
    if keys.count == 1 {
      plist[first] = value
    } else {
      var inner = plist[first] as? [String: Any] ?? [:]
      set(&inner, Array(keys.dropFirst()), value)
      plist[first] = inner
    }
  }

  /// Renames the key at the dictionary path `keys` of `plist` to `name`.
  static func rename(_ plist: inout [String: Any], _ keys: [String], to name: String) {
    var inner = plist
    for key in keys.dropLast() { inner = inner[key] as! [String: Any] }
    let value = inner[keys.last!]
    set(&plist, keys, nil)
    set(&plist, keys.dropLast() + [name], value)
  }

  /// Changes the first intent of the definition.
  static func intent(_ files: inout [String: [String: Any]], _ change: (inout [String: Any]) -> Void) {
    var intents = files["Coffee/Intents.intentdefinition"]!["INIntents"] as! [[String: Any]]
    change(&intents[0])
    files["Coffee/Intents.intentdefinition"]!["INIntents"] = intents
  }

  static func successTemplate(_ template: String) -> @Sendable (inout [String: [String: Any]]) -> Void {
    { files in
      intent(&files) { intent in
        var response = intent["INIntentResponse"] as! [String: Any]
        var codes = response["INIntentResponseCodes"] as! [[String: Any]]
        codes[0]["INIntentResponseCodeFormatString"] = template
        response["INIntentResponseCodes"] = codes
        intent["INIntentResponse"] = response
      }
    }
  }

  static func example(_ example: String) -> @Sendable (inout [String: [String: Any]]) -> Void {
    { files in
      var phrases = files["Coffee/AppIntentVocabulary.plist"]!["IntentPhrases"] as! [[String: Any]]
      phrases[0]["IntentExamples"] = [example]
      files["Coffee/AppIntentVocabulary.plist"]!["IntentPhrases"] = phrases
    }
  }

  static func groups(_ file: String, _ groups: [String]) -> @Sendable (inout [String: [String: Any]]) -> Void {
    { $0[file]!["com.apple.security.application-groups"] = groups }
  }

  static let definition = "Coffee/Intents.intentdefinition"
  static let response = "INIntents[0] (OrderCoffee).INIntentResponse.success"

  static let cases: [Case] = [
    // 1. Templates: a name one or two edits from a parameter is an error that names it.
    Case(
      name: "response template ${sise}", rule: .templateMisspeltName, severity: .error, file: definition,
      keyPath: response, says: "refers to ${sise}, which is not a response parameter", fix: "did you mean ${size}?",
      not: [.templateUnknownName], change: successTemplate("Your ${quantity} ${sise} ${drink} is ordered.")),
    Case(
      name: "response template, a property of ${drnk.name}", rule: .templateMisspeltName, severity: .error,
      file: definition, keyPath: response, says: "${drnk.name}", fix: "did you mean ${drink.name}?",
      change: successTemplate("Your ${drnk.name} is ordered.")),
    Case(
      name: "prompt ${drnk}", rule: .templateMisspeltName, severity: .error, file: definition,
      keyPath: "INIntents[0] (OrderCoffee).size Primary prompt", says: "refers to ${drnk}, which is not a parameter",
      fix: "did you mean ${drink}?"
    ) { files in
      intent(&files) { intent in
        var parameters = intent["INIntentParameters"] as! [[String: Any]]
        parameters[1]["INIntentParameterPromptDialogs"] = [
          ["INIntentParameterPromptDialogType": "Primary", "INIntentParameterPromptDialogFormatString": "${drnk}?"]
        ]
        intent["INIntentParameters"] = parameters
      }
    },
    // The control: a name near no parameter keeps its warning.
    Case(
      name: "response template ${weather}, near no parameter", rule: .templateUnknownName, severity: .warning,
      file: definition, keyPath: response, says: "refers to ${weather}", fix: "add a response parameter weather",
      not: [.templateMisspeltName], change: successTemplate("Your ${drink}, whatever the ${weather}.")),

    // 2. App groups: the group meant, not "add the typo to the app".
    Case(
      name: "an extension's group misspelt", rule: .appGroupMisspelt, severity: .warning,
      file: "CoffeeIntents/CoffeeIntents.entitlements", keyPath: "com.apple.security.application-groups[0]",
      says: "lists group.com.example.cofeeshop, while the app and CoffeeUI list group.com.example.coffeeshop",
      fix: "did you mean group.com.example.coffeeshop?", not: [.appGroupNotShared],
      change: groups("CoffeeIntents/CoffeeIntents.entitlements", ["group.com.example.cofeeshop"])),
    Case(
      name: "the app's group misspelt", rule: .appGroupMisspelt, severity: .warning,
      file: "Coffee/Coffee.entitlements", keyPath: "com.apple.security.application-groups[0]",
      says: "lists group.com.example.cofeeshop, while CoffeeIntents and CoffeeUI list group.com.example.coffeeshop",
      fix: "did you mean group.com.example.coffeeshop?", not: [.appGroupNotShared],
      change: groups("Coffee/Coffee.entitlements", ["group.com.example.cofeeshop"])),
    // The control: groups that differ in digits are meant.
    Case(
      name: "a numbered group", rule: .appGroupNotShared, severity: .warning,
      file: "CoffeeIntents/CoffeeIntents.entitlements", keyPath: "com.apple.security.application-groups",
      says: "lists group.com.example.coffeeshop2, which the app's entitlements do not",
      fix: "add group.com.example.coffeeshop2 to the app's entitlements", not: [.appGroupMisspelt],
      change: groups("CoffeeIntents/CoffeeIntents.entitlements", ["group.com.example.coffeeshop2"])),

    // 3. Example phrases: a word one edit from a case or a synonym.
    Case(
      name: "an example's lattte", rule: .intentPhraseMisspeltValue, severity: .warning,
      file: "Coffee/AppIntentVocabulary.plist", keyPath: "IntentPhrases (OrderCoffeeIntent).IntentExamples",
      says: "\"Order a lattte with Coffee\" says \"lattte\", which is no value of OrderCoffeeIntent: did you mean "
        + "\"latte\" (a case of Drink)?",
      fix: "write \"latte\"", change: example("Order a lattte with Coffee")),
    Case(
      name: "an example's grnde", rule: .intentPhraseMisspeltValue, severity: .warning,
      file: "Coffee/AppIntentVocabulary.plist", keyPath: "IntentPhrases (OrderCoffeeIntent).IntentExamples",
      says: "did you mean \"grande\" (a synonym of size)?", fix: "write \"grande\"",
      change: example("Order a grnde latte with Coffee")),

    // 4. Manifest keys: the key meant, a warning, or folded into the finding about its absence.
    Case(
      name: "IntentsSuported", rule: .keyMisspelt, severity: .warning, file: "CoffeeIntents/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsSuported",
      says: "is not a key IntentHost reads, so IntentsSupported is taken as absent; did you mean \"IntentsSupported\"?",
      fix: "rename IntentsSuported to IntentsSupported"
    ) {
      rename(
        &$0["CoffeeIntents/Info.plist"]!, ["NSExtension", "NSExtensionAttributes", "IntentsSupported"],
        to: "IntentsSuported")
    },
    Case(
      name: "NSExtensionAtributes", rule: .keyMisspelt, severity: .warning, file: "CoffeeIntents/Info.plist",
      keyPath: "NSExtension.NSExtensionAtributes", says: "did you mean \"NSExtensionAttributes\"?",
      fix: "rename NSExtensionAtributes to NSExtensionAttributes"
    ) {
      rename(&$0["CoffeeIntents/Info.plist"]!, ["NSExtension", "NSExtensionAttributes"], to: "NSExtensionAtributes")
    },
    Case(
      name: "INIntentParameterTyp", rule: .keyMisspelt, severity: .warning, file: definition,
      keyPath: "INIntents[0].INIntentParameters[0].INIntentParameterTyp",
      says: "did you mean \"INIntentParameterType\"?", fix: "rename INIntentParameterTyp to INIntentParameterType"
    ) { files in
      intent(&files) { intent in
        var parameters = intent["INIntentParameters"] as! [[String: Any]]
        rename(&parameters[0], ["INIntentParameterType"], to: "INIntentParameterTyp")
        intent["INIntentParameters"] = parameters
      }
    },
    Case(
      name: "com.apple.security.application-group", rule: .keyMisspelt, severity: .warning,
      file: "Coffee/Coffee.entitlements", keyPath: "com.apple.security.application-group",
      says: "did you mean \"com.apple.security.application-groups\"?",
      fix: "rename com.apple.security.application-group to com.apple.security.application-groups",
      not: [.entitlementUnknown]
    ) {
      rename(
        &$0["Coffee/Coffee.entitlements"]!, ["com.apple.security.application-groups"],
        to: "com.apple.security.application-group")
    },
    Case(
      name: "VocabularyItemPhrse", rule: .keyMisspelt, severity: .warning, file: "Coffee/AppIntentVocabulary.plist",
      keyPath: "ParameterVocabularies[0].ParameterVocabulary[0].VocabularyItemSynonyms[0].VocabularyItemPhrse",
      says: "did you mean \"VocabularyItemPhrase\"?", fix: "rename VocabularyItemPhrse to VocabularyItemPhrase"
    ) { files in
      files["Coffee/AppIntentVocabulary.plist"]!["ParameterVocabularies"] = [
        [
          "ParameterNames": ["OrderCoffeeIntent.size"],
          "ParameterVocabulary": [
            [
              "VocabularyItemIdentifier": "large",
              "VocabularyItemSynonyms": [["VocabularyItemPhrse": "grande"]],
            ]
          ],
        ] as [String: Any]
      ]
    },
    // Folded: the absence is an error already, and names the misspelling.
    Case(
      name: "NSExtensionPointIdentifer", rule: .extensionPointMissing, severity: .error,
      file: "CoffeeIntents/Info.plist",
      keyPath: "NSExtension.NSExtensionPointIdentifier",
      says: "is missing (the file has NSExtensionPointIdentifer: did you mean \"NSExtensionPointIdentifier\"?)",
      fix: "rename NSExtensionPointIdentifer to NSExtensionPointIdentifier", not: [.keyMisspelt]
    ) {
      rename(
        &$0["CoffeeIntents/Info.plist"]!, ["NSExtension", "NSExtensionPointIdentifier"], to: "NSExtensionPointIdentifer"
      )
    },
    Case(
      name: "INIntentNam", rule: .plist, severity: .error, file: definition, keyPath: "INIntents[0].INIntentName",
      says: "is missing, and the file has INIntentNam, which IntentHost does not read",
      fix: "rename INIntentNam to INIntentName"
    ) { files in intent(&files) { rename(&$0, ["INIntentName"], to: "INIntentNam") } },
  ]

  /// The control: the project breaks no rule, so each finding below is its typo's; keys the model does not read and
  /// that are near none it does (`CFBundleVersion`) are left alone.
  @Test func theProjectIsClean() throws {
    let directory = try TemporaryDirectory("assistanthost-misspelt")
    defer { directory.remove() }
    var files = Self.project()
    files["Coffee/Info.plist"]!["CFBundleVersion"] = "1"
    files["Coffee/Info.plist"]!["CFBundleShortVersionString"] = "1.0"
    try Self.write(files, to: directory.url)
    let diagnostics = Validator().validate(path: directory.url.path)
    #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
  }

  @Test(arguments: cases)
  func aTypoNamesWhatItMeant(_ typo: Case) throws {
    let directory = try TemporaryDirectory("assistanthost-misspelt")
    defer { directory.remove() }
    var files = Self.project()
    typo.change(&files)
    try Self.write(files, to: directory.url)
    let diagnostics = Validator().validate(path: directory.url.path)
    let all = diagnostics.map(\.description)
    let file = directory.url.appendingPathComponent(typo.file).path
    let found = try #require(diagnostics.first { $0.rule == typo.rule && $0.file == file }, "\(all)")
    #expect(found.severity == typo.severity, "\(found)")
    #expect(found.keyPath == typo.keyPath, "\(found)")
    #expect(found.message.contains(typo.says), "\(found)")
    #expect(found.fix?.contains(typo.fix) == true, "\(found)")
    for rule in typo.not { #expect(!diagnostics.contains { $0.rule == rule }, "\(all)") }
  }

  /// The edit reach of a template name: one edit for up to four letters, two for longer; nil when none is close.
  @Test(
    arguments: [
      ("sise", ["size", "drink"], "size"), ("drnk", ["size", "drink"], "drink"), ("quantty", ["quantity"], "quantity"),
      ("qantty", ["quantity"], "quantity"), ("sze", ["size"], "size"), ("xyz", ["size", "drink"], nil),
      ("weather", ["size", "drink"], nil), ("sz", ["size"], nil),
    ] as [(String, [String], String?)])
  func aTemplateNameMeansTheNearestParameter(name: String, parameters: [String], meant: String?) {
    #expect(Validator.meantName(name, among: parameters) == meant)
  }

  /// A run never says a name the response does not declare as nothing: `${sise}` is said as written (the
  /// validator names it); a declared parameter the extension left unset is still said as nothing (the control).
  @Test func aRunSaysAnUndeclaredNameAsWritten() throws {
    let plist = PlistDictionary(
      values: Self.project()["Coffee/Intents.intentdefinition"]!, file: "Intents.intentdefinition")
    var spec = try #require(try IntentDefinition(plist).intents.first)
    func answer(_ template: String) -> String {
      spec.response!.codes[0].template = template
      return IntentDriver.answer(
        to: IntentResponse(code: .success, parameters: ["quantity": .integer(1), "size": .string("large")]),
        of: Intent(name: "OrderCoffeeIntent", identifier: "1", parameters: [:]), appName: "Coffee", spec: spec,
        interpreter: ValueInterpreter(intentClass: "OrderCoffeeIntent", definition: nil, vocabularies: [])
      ).dialog
    }
    #expect(answer("Your ${quantity} ${size} latte") == "Your 1 large latte")
    #expect(answer("Your ${quantity} ${sise} latte") == "Your 1 ${sise} latte")
    #expect(answer("Your ${quantity} ${drink}") == "Your 1 ")
  }
}
