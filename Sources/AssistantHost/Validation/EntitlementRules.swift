import BundleManifest
import Foundation
import NameSuggestions
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
  /// resolved) is the app's too, so the app sees what the extension writes there. A group that `misspelt` (from
  /// `appGroupSpellingRules`) names, on either side, has its own finding instead.
  func appGroupRules(_ ext: Project.Extension, in project: Project, misspelt: [MisspeltGroup]) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let info = ext.info
    for group in ext.entitlements.applicationGroups
    where !project.appEntitlements.applicationGroups.contains(group) && Self.isResolved(group)
      && !misspelt.contains(where: { ($0.file == ext.entitlements.file && $0.group == group) || $0.meant == group })
    {
      diagnostics.append(
        Diagnostic(
          .warning, .appGroupNotShared, file: ext.entitlements.file ?? info.file,
          keyPath: "com.apple.security.application-groups",
          "lists \(group), which the app's entitlements do not: the app cannot see what \(ext.name) writes there",
          fix: "add \(group) to the app's entitlements too"))
    }
    return diagnostics
  }

  /// An app group of one entitlements file that is likely a misspelling of a group another file of the same app
  /// lists (`appGroupSpellingRules`).
  struct MisspeltGroup {
    var file: String
    var group: String
    var meant: String
  }

  /// `app-group-misspelt`: a group of one entitlements file of an app (the app's or an extension's) that is one or
  /// two edits from a group another file of the app lists, and that fewer files list (the app's file counting
  /// first on a tie), is named with the group it likely means; `appGroupRules` then says nothing more of either.
  /// Groups that differ only in digits (`group.com.example.shop1`, `…shop2`) are taken as meant.
  func appGroupSpellingRules(_ project: Project) -> (diagnostics: [Diagnostic], misspelt: [MisspeltGroup]) {
    let files =
      [(name: "the app", entitlements: project.appEntitlements)]
      + project.extensions.map { (name: $0.name, entitlements: $0.entitlements) }
    var users: [String: [String]] = [:]  // group: the names of the bundles that list it
    for (name, entitlements) in files where entitlements.file != nil {
      for group in Set(entitlements.applicationGroups) where Self.isResolved(group) {
        users[group, default: []].append(name)
      }
    }
    var diagnostics: [Diagnostic] = []
    var misspelt: [MisspeltGroup] = []
    for (name, entitlements) in files {
      guard let file = entitlements.file else { continue }
      for (index, group) in entitlements.applicationGroups.enumerated() where Self.isResolved(group) {
        let count = users[group]?.count ?? 0
        let others = users.keys.filter { other in
          guard other != group, let listing = users[other] else { return false }
          return listing.count > count || (listing.count == count && listing.contains("the app") && name != "the app")
        }.filter { $0.filter { !$0.isNumber } != group.filter { !$0.isNumber } }
        guard let meant = closestNames(to: group, among: others.sorted(), maximumEdits: 2).first else { continue }
        misspelt.append(MisspeltGroup(file: file, group: group, meant: meant))
        let listing = users[meant] ?? []
        diagnostics.append(
          Diagnostic(
            .warning, .appGroupMisspelt, file: file, keyPath: "com.apple.security.application-groups[\(index)]",
            "lists \(group), while \(listing.joined(separator: " and ")) list\(listing.count == 1 ? "s" : "") "
              + "\(meant): \(name) and \(listing.count == 1 ? "it" : "they") would not share documents",
            fix: "did you mean \(meant)? Write \(meant) here"))
      }
    }
    return (diagnostics, misspelt)
  }

  /// Whether an identifier has its build settings resolved (one left unresolved has its own finding).
  static func isResolved(_ identifier: String) -> Bool {
    !identifier.isEmpty && !identifier.contains("$(") && !identifier.contains("${")
  }
}
