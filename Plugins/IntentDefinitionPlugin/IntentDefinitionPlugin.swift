import Foundation
import PackagePlugin

/// Generates the typed Swift of a target's intents (docs/INTENT-CODEGEN.md): `BookRoomIntent`,
/// `BookRoomIntentHandling`, `BookRoomIntentResponse` and the definition's enums, by running `intenthost-intentgen`
/// before the target compiles.
///
/// Where the definition is found, first match wins:
/// 1. the target's own `.intentdefinition` files;
/// 2. `*.intentdefinition` in the first `*.lproj` folder that has one (Base.lproj first) of the target's bundle folder: the target's
///    folder, or its parent when the target's folder is `Code` (the examples' layout);
/// 3. the same in the containing app's bundle folder: the sibling folder whose name is the longest that the bundle
///    folder's name starts with (`Rooms` for `RoomsIntents` and `RoomsUI`), as Xcode names an app's extensions.
///
/// The bundle folder's `Info.plist`, if any, is read too: the system intents its `IntentsSupported` lists
/// (`INStartWorkoutIntent`) get typed Swift from IntentHost's catalog.
@main
struct IntentDefinitionPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let target = target as? SourceModuleTarget else { return [] }
    let own = target.sourceFiles.map(\.url).filter { $0.pathExtension == "intentdefinition" }
    let bundle = Self.bundleFolder(of: target.directoryURL)
    let definitions = own.isEmpty ? Self.conventionalDefinitions(for: bundle) : own
    let infoPlist = bundle.appendingPathComponent("Info.plist")
    let hasInfoPlist = FileManager.default.fileExists(atPath: infoPlist.path)
    guard !definitions.isEmpty || hasInfoPlist else {
      throw PluginError(
        "\(target.name): no intent definition found: add Intents.intentdefinition to the target, or put it in "
          + "Base.lproj of \(bundle.path) or of the containing app's folder beside it (docs/INTENT-CODEGEN.md)")
    }
    let output = context.pluginWorkDirectoryURL.appendingPathComponent("GeneratedIntents.swift")
    var arguments = ["--output", output.path]
    var inputs = definitions
    if hasInfoPlist {
      arguments += ["--info-plist", infoPlist.path]
      inputs.append(infoPlist)
    }
    arguments += definitions.map(\.path)
    return [
      .buildCommand(
        displayName: "Generating the typed intents of \(target.name)",
        executable: try context.tool(named: "intenthost-intentgen").url, arguments: arguments, inputFiles: inputs,
        outputFiles: [output])
    ]
  }

  /// The bundle folder of a target in `directory`: the parent of a `Code` folder, else the folder itself.
  static func bundleFolder(of directory: URL) -> URL {
    directory.lastPathComponent == "Code" ? directory.deletingLastPathComponent() : directory
  }

  /// The definitions of `bundle`'s `*.lproj` folders, else of the containing app's bundle folder beside it.
  static func conventionalDefinitions(for bundle: URL) -> [URL] {
    let own = definitions(in: bundle)
    if !own.isEmpty { return own }
    let name = bundle.lastPathComponent
    // The parent of a target's folder exists; listing it fails only when it cannot be read, and then no app is found.
    let siblings = (try? FileManager.default.contentsOfDirectory(atPath: bundle.deletingLastPathComponent().path)) ?? []
    let apps = siblings.filter { $0 != name && name.hasPrefix($0) }.sorted { $0.count > $1.count }
    for app in apps {
      let found = definitions(in: bundle.deletingLastPathComponent().appendingPathComponent(app))
      if !found.isEmpty { return found }
    }
    return []
  }

  /// `*.intentdefinition` of the first `*.lproj` folder of `bundle` that has one (Base.lproj first, then by name),
  /// in name order: Xcode keeps a definition in one folder and its translations as `.strings` in the others. A folder
  /// that cannot be listed has none (the convention looks in folders that may not exist).
  static func definitions(in bundle: URL) -> [URL] {
    let manager = FileManager.default
    let folders = ((try? manager.contentsOfDirectory(atPath: bundle.path)) ?? []).filter { $0.hasSuffix(".lproj") }
      .sorted { a, b in (a == "Base.lproj") != (b == "Base.lproj") ? a == "Base.lproj" : a < b }
    for folder in folders {
      let url = bundle.appendingPathComponent(folder)
      let found = ((try? manager.contentsOfDirectory(atPath: url.path)) ?? []).filter {
        $0.hasSuffix(".intentdefinition")
      }
      if !found.isEmpty { return found.sorted().map { url.appendingPathComponent($0) } }
    }
    return []
  }
}

struct PluginError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
