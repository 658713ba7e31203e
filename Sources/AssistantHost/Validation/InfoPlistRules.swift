import BundleManifest
import Foundation
import Understanding

extension Validator {
  /// The rules one Info.plist can be checked against alone.
  func fileRules(_ info: InfoPlist) -> [Diagnostic] {
    guard let ext = info.extensionInfo else { return [] }
    var diagnostics: [Diagnostic] = []
    let key = "NSExtension.NSExtensionAttributes"
    if !ext.pointIdentifier.isEmpty && ext.point == nil {
      diagnostics.append(
        Diagnostic(
          .error, .extensionPointUnknown, file: info.file, keyPath: "NSExtension.NSExtensionPointIdentifier",
          "is \"\(ext.pointIdentifier)\", which is not an extension point IntentHost runs",
          fix: "use com.apple.intents-service (Intents) or com.apple.intents-ui-service (Intents UI)"))
    }
    let supported = Set(ext.intentsSupported)
    for (list, name) in [
      (ext.intentsRestrictedWhileLocked, "IntentsRestrictedWhileLocked"),
      (ext.intentsRestrictedWhileProtectedDataUnavailable, "IntentsRestrictedWhileProtectedDataUnavailable"),
      (ext.intentsRestrictedWhileLockedAfterQuestions, InfoPlist.ExtensionInfo.restrictedAfterQuestionsKey),
    ] {
      for (index, className) in list.enumerated() where !supported.contains(className) {
        diagnostics.append(
          Diagnostic(
            .error, .restrictedNotSupported, file: info.file, keyPath: "\(key).\(name)[\(index)]",
            "lists \(className), which is not in IntentsSupported (Apple: "
              + "INIntentError.restrictedIntentsNotSupportedByExtension)",
            fix: "add \(className) to IntentsSupported, or remove it from \(name)"))
      }
    }
    var seen = Set<String>()
    for className in ext.intentsSupported where !seen.insert(className).inserted {
      diagnostics.append(
        Diagnostic(
          .warning, .intentListedTwice, file: info.file, keyPath: "\(key).IntentsSupported",
          "lists \(className) more than once", fix: "list it once"))
    }
    return diagnostics
  }

  /// `package-type`: `CFBundlePackageType`, when given, is `APPL` for the app and `XPC!` for each extension.
  func packageTypeRules(_ app: AppBundle) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    if app.info.packageType != nil && app.info.packageType != "APPL" {
      diagnostics.append(
        Diagnostic(
          .warning, .packageType, file: app.info.file, keyPath: "CFBundlePackageType",
          "is \"\(app.info.packageType!)\"; an app's is APPL", fix: "set it to APPL"))
    }
    for info in app.extensions.map(\.info) + app.appIntentsExtensions.map(\.info)
    where info.packageType != nil && info.packageType != "XPC!" {
      diagnostics.append(
        Diagnostic(
          .warning, .packageType, file: info.file, keyPath: "CFBundlePackageType",
          "is \"\(info.packageType!)\"; an extension's is XPC!", fix: "set it to XPC!"))
    }
    return diagnostics
  }

  /// `siri-usage-description`: an app with extensions says why it uses Siri.
  func siriUsageRules(_ project: Project) -> [Diagnostic] {
    let app = project.app
    guard !project.extensions.isEmpty && app.siriUsageDescription == nil else { return [] }
    return [
      Diagnostic(
        .warning, .siriUsageDescription, file: app.file, keyPath: "NSSiriUsageDescription",
        "is missing; iOS needs it to ask the user to allow Siri for the app",
        fix: "add NSSiriUsageDescription with a sentence saying what Siri does with the app")
    ]
  }

  /// `bundle-id-prefix` between files: an extension's identifier is its app's plus one component (`AppBundle.load`
  /// checks the same for a bundle, and refuses it).
  func extensionIdentifierRules(_ ext: Project.Extension, in project: Project) -> [Diagnostic] {
    NameRules.extensionIdentifier(ext.info, named: ext.name, app: project.app).map { [$0] } ?? []
  }
}
