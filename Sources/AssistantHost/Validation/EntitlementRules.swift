import BundleManifest
import Foundation
import Understanding

extension Validator {
  /// The sandbox's rules for the read-only paths each entitlements file of `app` asks for (docs/SANDBOX.md,
  /// "Exceptions from entitlements"), checked on this host as a launch checks them again.
  func readOnlyPathRules(_ app: AppBundle) -> [Diagnostic] {
    ([app.entitlements] + app.extensions.map(\.entitlements) + app.appIntentsExtensions.map(\.entitlements))
      .flatMap(readOnlyPathRules)
  }

  /// The same rules for one entitlements file (a source folder's, or a file validated on its own).
  func readOnlyPathRules(_ entitlements: Entitlements) -> [Diagnostic] {
    guard !entitlements.readOnlyPaths.isEmpty else { return [] }
    // Without a home named, the rules still protect the user's and root's homes and the system's folders.
    return ReadOnlyPathRules(home: home ?? (try? AssistantHome())).diagnostics(for: entitlements)
  }

  /// `team-identifier` between files: an extension's entitlements give no team or the app's (`AppBundle.load`
  /// checks the same for a bundle, and refuses it).
  func extensionTeamRules(_ ext: Project.Extension, in project: Project) -> [Diagnostic] {
    let team = NameRules.extensionTeam(ext.entitlements, app: project.appEntitlements, extensionFile: ext.info.file)
    return team.map { [$0] } ?? []
  }

  /// `app-group-not-shared`: each app group an extension's entitlements list (once its build settings are
  /// resolved) is the app's too, so the app sees what the extension writes there.
  func appGroupRules(_ ext: Project.Extension, in project: Project) -> [Diagnostic] {
    let resolved = { (identifier: String) in
      !identifier.isEmpty && !identifier.contains("$(") && !identifier.contains("${")
    }
    var diagnostics: [Diagnostic] = []
    let info = ext.info
    for group in ext.entitlements.applicationGroups
    where !project.appEntitlements.applicationGroups.contains(group) && resolved(group) {
      diagnostics.append(
        Diagnostic(
          .warning, .appGroupNotShared, file: ext.entitlements.file ?? info.file,
          keyPath: "com.apple.security.application-groups",
          "lists \(group), which the app's entitlements do not: the app cannot see what \(ext.name) writes there",
          fix: "add \(group) to the app's entitlements too"))
    }
    return diagnostics
  }
}
