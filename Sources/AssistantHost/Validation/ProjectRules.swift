import BundleManifest
import Foundation
import Understanding

extension Validator {
  /// What the cross-file rules look at, from a bundle or from a folder of sources.
  struct Project {
    struct Extension {
      var name: String
      var info: InfoPlist
      var entitlements: Entitlements
      var point: InfoPlist.ExtensionInfo { info.extensionInfo! }
    }

    var app: InfoPlist
    var appEntitlements: Entitlements
    var extensions: [Extension]
    var definitions: [IntentDefinition]
    var vocabularies: [Vocabulary]
    var strings: [StringsTable]

    init(
      app: InfoPlist, appEntitlements: Entitlements, extensions: [Extension], definitions: [IntentDefinition],
      vocabularies: [Vocabulary], strings: [StringsTable]
    ) {
      self.app = app
      self.appEntitlements = appEntitlements
      self.extensions = extensions
      self.definitions = definitions
      self.vocabularies = vocabularies
      self.strings = strings
    }

    init(_ bundle: AppBundle) {
      self.init(
        app: bundle.info, appEntitlements: bundle.entitlements,
        extensions: bundle.extensions.map { Extension(name: $0.name, info: $0.info, entitlements: $0.entitlements) },
        definitions: bundle.allDefinitions, vocabularies: bundle.vocabularies, strings: bundle.stringsTables)
    }
  }

  /// The rules for a project, from a bundle or from a folder of sources: each file's own and those between its
  /// files, in this order: the definitions, the app's Info.plist, each extension's Info.plist, names, entitlements
  /// and intents, the intents supported, the vocabularies, the strings tables.
  func rules(_ project: Project) -> [Diagnostic] {
    // Definitions: each on its own, then duplicates across files.
    let definitions = definitionRules(across: project.definitions)
    var diagnostics = definitions.diagnostics
    diagnostics += siriUsageRules(project)
    var handledBy: [String: String] = [:]
    for className in project.app.appIntentsSupported { handledBy[className] = project.app.file }
    let groups = appGroupSpellingRules(project)
    diagnostics += groups.diagnostics
    for ext in project.extensions {
      diagnostics += fileRules(ext.info)
      // Names between files (AppBundle.load checks the same for a bundle, and refuses it).
      diagnostics += extensionIdentifierRules(ext, in: project)
      diagnostics += extensionTeamRules(ext, in: project)
      diagnostics += appGroupRules(ext, in: project, misspelt: groups.misspelt)
      diagnostics += handlerRules(ext, in: project, handledBy: &handledBy)
    }
    // Supported intents must be defined; UI extensions need a handler; phrases are expected.
    diagnostics += supportedIntentRules(project, definedAt: definitions.definedAt, handledBy: handledBy)
    diagnostics += vocabularyRules(project, handledBy: handledBy)
    diagnostics += stringsRules(project)
    return diagnostics
  }
}
