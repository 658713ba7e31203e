import NameSuggestions

extension Array where Element == Diagnostic {
  /// Adds a finding for each key of `plist` that is likely a misspelling of a key the model reads
  /// (`PlistDictionary.misspeltKeys`), folded into a finding already about either key: one at the meant key (its
  /// absence, such as `extension-point-missing`) gets the misspelling named in its message and its fix, keeping its
  /// rule and severity; one at the misspelt key (`entitlement-unknown`) is replaced; else a `key-misspelt` warning
  /// (the model takes the meant key as absent).
  /// - Parameter plist: the root of a file the model has read.
  mutating func addMisspeltKeys(of plist: PlistDictionary) {
    for typo in plist.misspeltKeys() {
      let rename = "rename \(typo.key) to \(typo.meant)"
      if let index = firstIndex(where: { $0.file == plist.file && $0.keyPath == typo.meantKeyPath }) {
        self[index].message += " (the file has \(typo.key): \(didYouMean([typo.meant])))"
        self[index].fix = rename
        continue
      }
      removeAll { $0.file == plist.file && $0.keyPath == typo.keyPath && $0.rule == .entitlementUnknown }
      append(
        Diagnostic(
          .warning, .keyMisspelt, file: plist.file, keyPath: typo.keyPath,
          "is not a key IntentHost reads, so \(typo.meant) is taken as absent; \(didYouMean([typo.meant]))",
          fix: rename))
    }
  }
}
