import Understanding

extension ClosestPhrases.ShortcutCandidate {
  /// The user's `shortcut` as a candidate of the closest phrases: its phrase, its identifier and its app.
  package init(_ shortcut: Shortcut) {
    self.init(phrase: shortcut.phrase, identifier: shortcut.identifier, app: shortcut.app)
  }
}
