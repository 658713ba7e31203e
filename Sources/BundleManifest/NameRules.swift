import Foundation

/// A bundle whose names break the grammar (`NameGrammar`): `AppBundle.load` refuses it, so nothing above the model
/// ever holds one. Carries one diagnostic per bad name, each naming the file, the key and the rule, with a fix.
public struct InvalidBundleNames: Error, Sendable, CustomStringConvertible {
  /// The bundle's folder.
  public var bundle: String
  public var diagnostics: [Diagnostic]

  public var description: String {
    "\(bundle) has \(diagnostics.count) invalid name\(diagnostics.count == 1 ? "" : "s"):\n"
      + diagnostics.map(\.description).joined(separator: "\n")
  }
}

/// The rules of docs/VALIDATION.md that check names: the grammar of each name where it is parsed
/// (`bundle-id-syntax`, `executable-name`, `app-group-identifier`, `team-identifier` in `InfoPlist` and
/// `Entitlements`), and those between the names of a bundle (`bundle-folder-name`, `bundle-id-prefix`, and an
/// extension's team), shared by `AppBundle.load` and the validator of source folders.
public enum NameRules {
  /// The fix of `bundle-id-syntax`.
  static let identifierFix =
    "use a reverse-DNS name of ASCII letters, digits and hyphens, with at least two components and at most "
    + "\(NameGrammar.maximumIdentifierLength) bytes, such as com.example.rooms"

  /// A `bundle-id-syntax` error for `CFBundleIdentifier` of `file`, nil when `identifier` is valid.
  static func identifierSyntax(_ identifier: String, file: String) -> Diagnostic? {
    BundleIdentifier.problem(identifier).map { problem in
      Diagnostic(
        .error, .bundleIDSyntax, file: file, keyPath: "CFBundleIdentifier",
        "\(NameGrammar.quoted(identifier)) is not a valid bundle identifier: it \(problem)", fix: identifierFix)
    }
  }

  /// An `executable-name` error for `CFBundleExecutable` of `file`, nil when `executable` is one safe file name.
  static func executableName(_ executable: String, file: String) -> Diagnostic? {
    NameGrammar.fileNameProblem(executable).map { problem in
      Diagnostic(
        .error, .executableName, file: file, keyPath: "CFBundleExecutable",
        "\(NameGrammar.quoted(executable)) is not the name of a file in the bundle: it \(problem)",
        fix: "name the executable file directly inside the bundle, such as rooms")
    }
  }

  /// An `app-group-identifier` error for entry `index` of the groups, nil when `group` is valid.
  static func groupSyntax(_ group: String, index: Int, file: String) -> Diagnostic? {
    AppGroupIdentifier.problem(group).map { problem in
      Diagnostic(
        .error, .appGroupIdentifier, file: file, keyPath: "com.apple.security.application-groups[\(index)]",
        problem,
        fix: "use group. followed by a reverse-DNS name, such as group.com.example.app (at most "
          + "\(NameGrammar.maximumIdentifierLength) bytes)")
    }
  }

  /// A `team-identifier` error, nil when `team` is valid.
  static func teamSyntax(_ team: String, file: String) -> Diagnostic? {
    Team.problem(team).map { problem in
      Diagnostic(
        .error, .teamIdentifier, file: file, keyPath: "com.apple.developer.team-identifier",
        "\(NameGrammar.quoted(team)) is not a valid team identifier: it \(problem)",
        fix: "use your team's ID from the Apple developer account (10 letters and digits, such as A1B2C3D4E5), or "
          + "remove the key")
    }
  }

  /// `bundle-id-prefix`: an extension's identifier is its app's plus exactly one more component. nil when it is, or
  /// when either identifier is invalid (their own rule reports that).
  /// - Parameter name: the extension's name (its folder without `.appex`), for the fix.
  public static func extensionIdentifier(_ ext: InfoPlist, named name: String, app: InfoPlist) -> Diagnostic? {
    guard let appIdentifier = BundleIdentifier(validating: app.bundleIdentifier),
      let identifier = BundleIdentifier(validating: ext.bundleIdentifier),
      !identifier.isExtensionIdentifier(of: appIdentifier)
    else { return nil }
    let component = String(
      name.unicodeScalars.filter { $0.isASCII && NameGrammar.isComponentCharacter(UInt8($0.value)) })
    let suggestion = "\(appIdentifier).\(component.isEmpty || component.hasPrefix("-") ? "Extension" : component)"
    let prefixed = identifier.rawValue.hasPrefix(appIdentifier.rawValue + ".")
    return Diagnostic(
      .error, .bundleIDPrefix, file: ext.file, keyPath: "CFBundleIdentifier",
      "\(NameGrammar.quoted(identifier.rawValue)) is not the app's identifier plus one component ("
        + "\"\(appIdentifier).NAME\")"
        + (prefixed
          ? ": it has more than one component after the app's, so it could be the identifier of another app's "
            + "extension"
          : "; Xcode: Embedded binary's bundle identifier is not prefixed with the parent app's bundle identifier"),
      fix: "name it \(suggestion)")
  }

  /// `team-identifier`: an extension belongs to its app's team, so its entitlements may only repeat the app's
  /// `com.apple.developer.team-identifier`. nil when they do, or do not give one.
  public static func extensionTeam(_ ext: Entitlements, app: Entitlements, extensionFile: String) -> Diagnostic? {
    guard let team = ext.teamIdentifier, Team.problem(team) == nil, team != app.teamIdentifier else { return nil }
    return Diagnostic(
      .error, .teamIdentifier, file: ext.file ?? extensionFile, keyPath: "com.apple.developer.team-identifier",
      "is \(team), but "
        + (app.teamIdentifier.map { "the app's is \($0)" } ?? "the app's entitlements give none")
        + ": an extension belongs to its app's team",
      fix: "give the app and its extensions the same team identifier, or remove it from the extension")
  }

  /// `bundle-folder-name`: a bundle's folder is one safe file name.
  static func folderName(_ url: URL) -> Diagnostic? {
    NameGrammar.fileNameProblem(url.lastPathComponent).map { problem in
      Diagnostic(
        .error, .bundleFolderName, file: url.path,
        "is not a safe bundle folder name: \(NameGrammar.quoted(url.lastPathComponent)) \(problem)",
        fix: "rename the folder to the bundle's name, such as Rooms.app or RoomsIntents.appex")
    }
  }

  /// Every name of a bundle that breaks the grammar, one diagnostic each: the folders, each `CFBundleIdentifier`,
  /// `CFBundleExecutable`, app group and team identifier, each extension's identifier against its app's, and each
  /// extension's team. Empty exactly when every name is valid. A name's own diagnostic from loading (unresolved,
  /// missing, syntax) is used when there is one.
  public static func bundleNames(
    app: (url: URL, info: InfoPlist, entitlements: Entitlements),
    extensions: [(url: URL, info: InfoPlist, entitlements: Entitlements)]
  ) -> [Diagnostic] {
    var found: [Diagnostic] = []
    func explain(_ loaded: [Diagnostic], keyPath: String, otherwise: @autoclosure () -> Diagnostic?) {
      let own = loaded.filter { $0.keyPath == keyPath && $0.severity == .error }
      if own.isEmpty { found += otherwise().map { [$0] } ?? [] } else { found += own }
    }
    for bundle in [app] + extensions {
      if let problem = folderName(bundle.url) { found.append(problem) }
      let info = bundle.info
      if BundleIdentifier.problem(info.bundleIdentifier) != nil {
        explain(
          info.diagnostics, keyPath: "CFBundleIdentifier",
          otherwise: identifierSyntax(info.bundleIdentifier, file: info.file))
      }
      if NameGrammar.fileNameProblem(info.executable) != nil {
        explain(
          info.diagnostics, keyPath: "CFBundleExecutable", otherwise: executableName(info.executable, file: info.file))
      }
      let entitlements = bundle.entitlements
      let file = entitlements.file ?? info.file
      for (index, group) in entitlements.applicationGroups.enumerated() where AppGroupIdentifier.problem(group) != nil {
        explain(
          entitlements.diagnostics, keyPath: "com.apple.security.application-groups[\(index)]",
          otherwise: groupSyntax(group, index: index, file: file))
      }
      if let team = entitlements.teamIdentifier, Team.problem(team) != nil {
        explain(
          entitlements.diagnostics, keyPath: "com.apple.developer.team-identifier",
          otherwise: teamSyntax(team, file: file))
      }
    }
    for ext in extensions {
      let name = ext.url.deletingPathExtension().lastPathComponent
      if let problem = extensionIdentifier(ext.info, named: name, app: app.info) { found.append(problem) }
      if let problem = extensionTeam(ext.entitlements, app: app.entitlements, extensionFile: ext.info.file) {
        found.append(problem)
      }
    }
    return found
  }
}
