import BundleManifest
import Foundation

/// One run of the generator (what `intenthost-intentgen` and the tests call): the definitions and the extension's
/// Info.plist the plugin found for a target (docs/INTENT-CODEGEN.md, "Where the definition is found"), read as
/// untrusted files.
package struct IntentCodegenRequest: Sendable {
  /// Paths of `.intentdefinition` files.
  package var definitions: [String]
  /// The extension's Info.plist, whose `IntentsSupported` system intents (`INStartWorkoutIntent`) get typed Swift
  /// too, unless a definition defines them.
  package var infoPlist: String?

  package init(definitions: [String], infoPlist: String? = nil) {
    self.definitions = definitions
    self.infoPlist = infoPlist
  }

  /// The generated Swift.
  /// - Throws: `IntentCodegenError` for a file that does not parse, a definition that cannot be Swift, or nothing to
  ///   generate.
  package func source() throws(IntentCodegenError) -> String {
    var loaded: [IntentDefinition] = []
    for path in definitions {
      do {
        loaded.append(try IntentDefinition.load(contentsOf: URL(fileURLWithPath: path)))
      } catch {
        throw Self.unreadable(path, error, fix: "open the definition in Xcode and save it, or fix the key named")
      }
    }
    var systemIntents: [String] = []
    if let infoPlist {
      let info: InfoPlist
      do {
        info = try InfoPlist.load(contentsOf: URL(fileURLWithPath: infoPlist), unresolved: .warning)
      } catch {
        throw Self.unreadable(infoPlist, error, fix: "fix the Info.plist")
      }
      let defined = Set(loaded.flatMap(\.intents).map(\.className))
      var seen: Set<String> = []
      for name in info.extensionInfo?.intentsSupported ?? []
      where SystemIntent.named(name) != nil && !defined.contains(name) && seen.insert(name).inserted {
        systemIntents.append(name)
      }
    }
    guard !loaded.flatMap(\.intents).isEmpty || !systemIntents.isEmpty else {
      throw IntentCodegenError(
        file: infoPlist ?? definitions.first ?? "intenthost-intentgen", subject: "the target",
        problem: "has no intent to generate: no definition with an intent, and no system intent in IntentsSupported",
        fix: "add an intent to the Intents.intentdefinition, or remove the plugin from the target")
    }
    return try IntentSourceGenerator.source(
      for: loaded, systemIntents: systemIntents, systemIntentsFile: infoPlist ?? "IntentsSupported")
  }

  private static func unreadable(_ path: String, _ error: any Error, fix: String) -> IntentCodegenError {
    if let error = error as? ManifestError {
      return IntentCodegenError(
        file: path, subject: error.keyPath.isEmpty ? "the file" : error.keyPath, problem: error.problem,
        fix: error.fix ?? fix)
    }
    return IntentCodegenError(file: path, subject: "the file", problem: "cannot be read: \(error)", fix: fix)
  }
}
