import BundleManifest
import Foundation
import IntentHostSystem
import Understanding
import UntrustedText

/// What the installed apps answer to (`assistant phrases`, and "What can you do?"): each app's phrases
/// (`PhraseBook.entries`) and the user's shortcuts of those apps that can run now. `--json` prints it as it is.
package struct PhraseList: Encodable, Sendable {
  package var apps: [PhraseBook.Entry]
  /// The user's active shortcuts of those apps, oldest first.
  package var shortcuts: [ShortcutPhrase]

  /// A shortcut as the list shows it: said as it is, no app name needed.
  package struct ShortcutPhrase: Encodable, Sendable {
    package var identifier: String
    package var phrase: String
    package var bundleIdentifier: String
    package var intent: String
  }

  /// The phrases of the installed apps, or of the app called `name`; under `locale`, with the titles translated for
  /// it, and `name` may be a name translated for it. The user's own phrases come first when said
  /// (docs/CONVERSATION.md, "Shortcuts"): only those that can run now are listed. Shortcuts that cannot be read (a
  /// corrupt or planted document) are left out with a warning on stderr: they hide no app's phrases.
  /// - Throws: `HostError` when the apps cannot be listed, or none answers to `name` (`Router.app(named:)`).
  package static func of(_ name: String?, in home: AssistantHome, locale: String?) async throws -> PhraseList {
    let installed = try home.installedApps()
    let apps = try name.map { [try Router(apps: installed, locale: locale).app(named: $0)] } ?? installed
    let entries = PhraseBook.entries(apps, locale: locale)
    let saved: [Shortcut]
    do {
      saved = try await offloaded { try ShortcutStore(home: home).shortcuts() }
    } catch let error as HostError {
      await FileDescriptor.standardError.write(
        Untrusted.shown("assistant: warning: \(error.message); only the apps' phrases are listed") + "\n")
      saved = []
    }
    let shortcuts = saved.filter { shortcut in
      apps.contains { $0.identifier.rawValue == shortcut.app }
        && ShortcutState.of(shortcut, among: installed).reason == nil
    }.map {
      ShortcutPhrase(identifier: $0.identifier, phrase: $0.phrase, bundleIdentifier: $0.app, intent: $0.intentClass)
    }
    return PhraseList(apps: entries, shortcuts: shortcuts)
  }
}
