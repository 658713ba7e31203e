import BundleManifest
import Foundation
import Understanding

extension Validator {
  /// `intent-supported-twice`: no intent is listed by two Intents extensions of one app. Records in `handledBy`
  /// (class name: the Info.plist of the app or extension that handles it) the intents `ext` handles.
  func handlerRules(
    _ ext: Project.Extension, in project: Project, handledBy: inout [String: String]
  ) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let app = project.app
    let info = ext.info
    if ext.point.point == .intentsService {
      for className in ext.point.intentsSupported {
        if let other = handledBy[className], other != app.file, other != info.file {
          diagnostics.append(
            Diagnostic(
              .error, .intentSupportedTwice, file: info.file,
              keyPath: "NSExtension.NSExtensionAttributes.IntentsSupported",
              "lists \(className), which \(other) also lists: Siri cannot tell which extension handles it",
              fix: "list each intent in one Intents extension"))
        }
        handledBy[className] = info.file
      }
    }
    return diagnostics
  }

  /// The intents the app and its extensions support: `intent-undefined` (each is defined by a definition of the
  /// app, or a system intent), `ui-extension-unhandled-intent` (an Intents UI extension draws only intents the app
  /// or an Intents extension handles), `intent-phrases-missing` (each intent of an Intents extension has example
  /// phrases), and `restricted-not-supported` for the app's restriction lists (they name intents it handles).
  /// - Parameters:
  ///   - definedAt: the class names the project's definitions define (`definitionRules(across:)`).
  ///   - handledBy: the intents the app and its Intents extensions handle (`handlerRules`).
  func supportedIntentRules(
    _ project: Project, definedAt: [String: (IntentSpec, String)], handledBy: [String: String]
  ) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let app = project.app
    func isDefined(_ className: String) -> Bool {
      definedAt[className] != nil || SystemIntent.named(className) != nil
    }

    let phrases = project.vocabularies.reduce(into: [String: [String]]()) { result, vocabulary in
      for (name, examples) in vocabulary.intentPhrases { result[name, default: []] += examples }
    }
    for ext in project.extensions {
      let key = "NSExtension.NSExtensionAttributes.IntentsSupported"
      for (index, className) in ext.point.intentsSupported.enumerated() where !isDefined(className) {
        diagnostics.append(
          Diagnostic(
            .error, .intentUndefined, file: ext.info.file, keyPath: "\(key)[\(index)]",
            "lists \(className), which no intent definition of the app defines and which is not a system intent",
            fix: intentFix(className, definedAt.keys)))
      }
      if ext.point.point == .intentsUIService {
        for className in ext.point.intentsSupported where handledBy[className] == nil {
          diagnostics.append(
            Diagnostic(
              .error, .uiExtensionUnhandledIntent, file: ext.info.file, keyPath: key,
              "draws \(className), which no Intents extension of the app handles",
              fix: "add \(className) to the IntentsSupported of the app's Intents extension, or remove it here"))
        }
      } else if ext.point.point == .intentsService {
        for className in ext.point.intentsSupported where (phrases[className] ?? []).isEmpty {
          diagnostics.append(
            Diagnostic(
              .warning, .intentPhrasesMissing, file: ext.info.file, keyPath: key,
              "\(className) has no example phrases in AppIntentVocabulary.plist",
              fix:
                "add an IntentPhrases entry for \(className) with IntentExamples such as \"… with \(app.userFacingName)\""
            ))
        }
      }
    }
    for (index, className) in app.appIntentsSupported.enumerated() where !isDefined(className) {
      diagnostics.append(
        Diagnostic(
          .error, .intentUndefined, file: app.file, keyPath: "INIntentsSupported[\(index)]",
          "lists \(className), which no intent definition of the app defines and which is not a system intent",
          fix: intentFix(className, definedAt.keys)))
    }
    // The app's restriction lists name intents the app or one of its Intents extensions handles.
    for (list, key) in [
      (app.appIntentsRestrictedWhileLocked, "INIntentsRestrictedWhileLocked"),
      (app.appIntentsRestrictedWhileProtectedDataUnavailable, "INIntentsRestrictedWhileProtectedDataUnavailable"),
    ] {
      for (index, className) in list.enumerated() where handledBy[className] == nil {
        diagnostics.append(
          Diagnostic(
            .warning, .restrictedNotSupported, file: app.file, keyPath: "\(key)[\(index)]",
            "lists \(className), which neither the app (INIntentsSupported) nor its Intents extensions handle, so "
              + "the restriction applies to nothing",
            fix: "add \(className) to INIntentsSupported or an extension's IntentsSupported, or remove it from \(key)"))
      }
    }
    return diagnostics
  }

  private func intentFix(_ className: String, _ defined: Dictionary<String, (IntentSpec, String)>.Keys) -> String {
    if className.hasSuffix("Intent"), defined.contains(className + "Intent") {
      return "the definition names it \(className)Intent (its INIntentName ends in \"Intent\" already)"
    }
    if !className.hasSuffix("Intent") {
      return "class names end in \"Intent\": INIntentName \(className) is listed as \(className)Intent"
    }
    return "define it in an Intents.intentdefinition (INIntentName \(className.dropLast(6))), or fix the name"
  }
}
