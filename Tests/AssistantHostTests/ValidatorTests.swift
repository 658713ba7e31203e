import BundleManifest
import Foundation
import TestSupport
import Testing
import Understanding

@testable import AssistantHost

/// One case per rule of docs/VALIDATION.md, in-process: the example Rooms.app (or its sources), which validates
/// clean (the control), with one mistake made in it, checked by `Validator.validate(path:)`.
@Suite(.tags(.unit)) struct ValidatorTests {
  /// What is validated: the assembled bundle, the folder of sources (a copy of `Sources/Examples`), or one file of
  /// that folder.
  enum Subject: Sendable, CustomStringConvertible {
    case bundle
    case sources
    case file(String)

    /// Builds the fixture in `directory`: `Rooms.app` for a bundle, else a copy of `Sources/Examples`.
    func fixture(in directory: URL) throws -> URL {
      switch self {
      case .bundle:
        return try TestBundles.roomsManifests(in: directory)
      case .sources, .file:
        let copy = directory.appendingPathComponent("Examples")
        try FileManager.default.copyItem(
          at: PackagePaths.root.appendingPathComponent("Sources/Examples"), to: copy)
        return copy
      }
    }

    func path(in root: URL) -> String {
      if case .file(let relative) = self { return root.appendingPathComponent(relative).path }
      return root.path
    }

    var description: String {
      switch self {
      case .bundle: return "bundle"
      case .sources: return "sources"
      case .file(let relative): return relative
      }
    }
  }

  struct Case: Sendable, CustomTestStringConvertible {
    var rule: String
    var severity: Diagnostic.Severity
    var subject: Subject = .bundle
    /// The file the diagnostic names, relative to the fixture (Rooms.app or the sources folder).
    var file: String
    /// The key path inside it, when the rule names one.
    var keyPath: String?
    /// Words the message must contain (the thing that is wrong).
    var says: String
    /// Words the fix must contain; nil when the diagnostic has no fix.
    var fix: String?
    /// Tells cases of one rule apart.
    var variant = ""
    var mutate: @Sendable (URL) throws -> Void

    var testDescription: String { "\(rule) [\(subject)\(variant.isEmpty ? "" : ", " + variant)]" }
  }

  static let appex = Edit.appex
  static let definition = "Base.lproj/Intents.intentdefinition"

  static func url(_ root: URL, _ relative: String) -> URL { root.appendingPathComponent(relative) }

  /// Adds `example` to the `IntentExamples` of the `index`th `IntentPhrases` entry (0 BookRoomIntent, 1 OpenDoorIntent).
  static func addExample(_ example: String, to index: Int, in root: URL) throws {
    try Edit.plist(url(root, "Base.lproj/AppIntentVocabulary.plist")) { plist in
      var phrases = plist["IntentPhrases"] as! [[String: Any]]
      phrases[index]["IntentExamples"] = (phrases[index]["IntentExamples"] as! [String]) + [example]
      plist["IntentPhrases"] = phrases
    }
  }

  static let cases: [Case] = [
    // intent-phrase-unreachable, intent-phrase-claimed-twice: warnings in validate (errors in `phrases --check`);
    // the clean example (theExampleIsClean) is the control.
    Case(
      rule: "intent-phrase-unreachable", severity: .warning, file: "Base.lproj/AppIntentVocabulary.plist",
      keyPath: "IntentPhrases.BookRoomIntent", says: "\"Book room 12 for Ada\" does not reach BookRoomIntent",
      fix: "name the app", variant: "no app named"
    ) { root in
      try addExample("Book room 12 for Ada", to: 0, in: root)
    },
    Case(
      rule: "intent-phrase-unreachable", severity: .warning, file: "Base.lproj/AppIntentVocabulary.plist",
      keyPath: "IntentPhrases.BookRoomIntent", says: "reaches BookRoomIntent but loses the value 14",
      fix: "use a combination title with a slot for it", variant: "a value lost"
    ) { root in
      try addExample("Book rooms 12 and 14 with Rooms", to: 0, in: root)
    },
    Case(
      rule: "intent-phrase-claimed-twice", severity: .warning, file: "Base.lproj/AppIntentVocabulary.plist",
      keyPath: "IntentPhrases.BookRoomIntent", says: "is claimed by BookRoomIntent and OpenDoorIntent",
      fix: "reword it so that only BookRoomIntent matches it"
    ) { root in
      try addExample("Open a door with Rooms", to: 0, in: root)
    },
    // plist
    Case(
      rule: "plist", severity: .error, file: "Info.plist", says: "is empty", fix: "write a property list into it",
      variant: "empty"
    ) { root in
      try Data().write(to: url(root, "Info.plist"))
    },
    Case(
      rule: "plist", severity: .error, file: "\(appex)/Info.plist", says: "is not a valid property list",
      fix: "then check it again with `assistant validate ", variant: "truncated XML"
    ) { root in
      try Data("<?xml version=\"1.0\"?><plist><dict><key>CFBundleIdentifier</key></plist>".utf8)
        .write(to: url(root, "\(appex)/Info.plist"))
    },
    Case(
      rule: "plist", severity: .error, file: "Info.plist", says: "has an array at its root, expected a dictionary",
      fix: nil, variant: "array root"
    ) { root in
      try PropertyListSerialization.data(fromPropertyList: ["a"], format: .xml, options: 0)
        .write(to: url(root, "Info.plist"))
    },
    Case(
      rule: "plist", severity: .error, file: "Info.plist", keyPath: "CFBundleIdentifier",
      says: "is a number, expected a string", fix: nil, variant: "wrong type"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleIdentifier"] = 7 }
    },
    Case(
      rule: "plist", severity: .error, subject: .file("Rooms/Info.plist"), file: "Rooms/Info.plist",
      says: "is not a valid property list", fix: "then check it again with `assistant validate "
    ) { root in
      try Data("<?xml version=\"1.0\"?><plist><dict><key>CFBundleName".utf8)
        .write(to: url(root, "Rooms/Info.plist"))
    },
    // build-setting-unresolved: an error in a bundle, a note in sources
    Case(
      rule: "build-setting-unresolved", severity: .error, file: "\(appex)/Info.plist", keyPath: "CFBundleIdentifier",
      says: "is $(PRODUCT_BUNDLE_IDENTIFIER), a build setting with no value",
      fix: "define PRODUCT_BUNDLE_IDENTIFIER in BuildSettings.xcconfig"
    ) { root in
      try Edit.plist(url(root, "\(appex)/Info.plist")) { $0["CFBundleIdentifier"] = "$(PRODUCT_BUNDLE_IDENTIFIER)" }
    },
    Case(
      rule: "build-setting-unresolved", severity: .error, file: "Rooms.entitlements",
      keyPath: "com.apple.security.application-groups[0]", says: "refers to $(GROUP_ID), which has no value",
      fix: "pass --setting GROUP_ID=group.com.example.app", variant: "entitlements"
    ) { root in
      try Edit.plist(url(root, "Rooms.entitlements")) { $0["com.apple.security.application-groups"] = ["$(GROUP_ID)"] }
    },
    Case(
      rule: "build-setting-unresolved", severity: .note, subject: .sources, file: "RoomsIntents/Info.plist",
      keyPath: "CFBundleIdentifier", says: "a build setting with no value", fix: "--setting PRODUCT_BUNDLE_IDENTIFIER="
    ) { root in
      try Edit.plist(url(root, "RoomsIntents/Info.plist")) {
        $0["CFBundleIdentifier"] = "$(PRODUCT_BUNDLE_IDENTIFIER)"
      }
    },
    Case(
      rule: "build-setting-unresolved", severity: .note, subject: .file("RoomsUI/Info.plist"),
      file: "RoomsUI/Info.plist", keyPath: "CFBundleDisplayName",
      says: "\"${APP_NAME} UI\" refers to $(APP_NAME), which has no value", fix: "define APP_NAME"
    ) { root in
      try Edit.plist(url(root, "RoomsUI/Info.plist")) { $0["CFBundleDisplayName"] = "${APP_NAME} UI" }
    },
    // bundle-id-missing: an error in a bundle, else a warning
    Case(
      rule: "bundle-id-missing", severity: .error, file: "Info.plist", keyPath: "CFBundleIdentifier",
      says: "is missing", fix: "add CFBundleIdentifier"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleIdentifier"] = nil }
    },
    Case(
      rule: "bundle-id-missing", severity: .warning, subject: .sources, file: "Rooms/Info.plist",
      keyPath: "CFBundleIdentifier", says: "is missing", fix: "or PRODUCT_BUNDLE_IDENTIFIER in BuildSettings.xcconfig"
    ) { root in
      try Edit.plist(url(root, "Rooms/Info.plist")) { $0["CFBundleIdentifier"] = nil }
    },
    Case(
      rule: "bundle-id-missing", severity: .warning, subject: .file("RoomsIntents/Info.plist"),
      file: "RoomsIntents/Info.plist", keyPath: "CFBundleIdentifier", says: "is missing", fix: "add CFBundleIdentifier"
    ) { root in
      try Edit.plist(url(root, "RoomsIntents/Info.plist")) { $0["CFBundleIdentifier"] = nil }
    },
    // executable-missing cannot fire through the Validator: every folder implies EXECUTABLE_NAME (see
    // `anExecutableNameIsAlwaysImplied`); the missing file is reported instead.
    Case(
      rule: "executable-from-settings", severity: .note, file: "\(appex)/Info.plist", keyPath: "CFBundleExecutable",
      says: "is not in the file; using EXECUTABLE_NAME (RoomsIntents)", fix: nil, variant: "no CFBundleExecutable"
    ) { root in
      try Edit.plist(url(root, "\(appex)/Info.plist")) { $0["CFBundleExecutable"] = nil }
    },
    Case(
      rule: "executable-missing-file", severity: .error, file: "\(appex)/Info.plist", keyPath: "CFBundleExecutable",
      says: "names RoomsIntents, which is not in the bundle", fix: "build the executable into"
    ) { root in
      try FileManager.default.removeItem(at: url(root, "\(appex)/RoomsIntents"))
    },
    Case(
      rule: "executable-missing-file", severity: .error, file: "Info.plist", keyPath: "CFBundleExecutable",
      says: "names Rooms, which is not in the bundle", fix: "build the executable into",
      variant: "implied name"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleExecutable"] = nil }
    },
    Case(
      rule: "executable-not-executable", severity: .error, file: "Info.plist", keyPath: "CFBundleExecutable",
      says: "names rooms, which is not executable", fix: "chmod +x"
    ) { root in
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url(root, "rooms").path)
    },
    // The sandbox's library rules, on the built RoomsIntents (static, RUNPATH $ORIGIN) with one header patched.
    Case(
      rule: "elf-runpath", severity: .error, file: "\(appex)/RoomsIntents", keyPath: "DT_RUNPATH[0]",
      says: "\"/\" is outside the system library folders", fix: "-Wl,-rpath,'$ORIGIN'"
    ) { root in
      try patchedExtension(root, "$ORIGIN", "/")
    },
    Case(
      rule: "elf-needed", severity: .error, file: "\(appex)/RoomsIntents", keyPath: "DT_NEEDED[0]",
      says: "\"/tmp/m.so\" is outside", fix: "by its soname"
    ) { root in
      try patchedExtension(root, "libm.so.6", "/tmp/m.so")
    },
    Case(
      rule: "elf-interpreter", severity: .error, file: "\(appex)/RoomsIntents", keyPath: "PT_INTERP",
      says: "\"/tmp4/ld-linux-x86-64.so.2\" is outside the system library folders", fix: "the system's loader"
    ) { root in
      try patchedExtension(root, "/lib64/ld-linux-x86-64.so.2", "/tmp4/ld-linux-x86-64.so.2")
    },
    // A link out of the bundle (here its executable): the bundle-tree check refuses every link and special file.
    Case(
      rule: "bundle-file-kind", severity: .error, file: "\(appex)/RoomsIntents",
      keyPath: "", says: "is a symbolic link", fix: "a bundle holds only regular files and folders"
    ) { root in
      let executable = url(root, "\(appex)/RoomsIntents").path
      try FileManager.default.removeItem(atPath: executable)
      try FileManager.default.createSymbolicLink(
        atPath: executable, withDestinationPath: PackagePaths.executable("RoomsIntents"))
    },
    // bundle-id-prefix
    Case(
      rule: "bundle-id-prefix", severity: .error, file: "\(appex)/Info.plist", keyPath: "CFBundleIdentifier",
      says: "\"com.other.RoomsIntents\" is not the app's identifier plus one component (\"com.example.rooms.NAME\"); "
        + "Xcode: Embedded binary's bundle identifier is not prefixed with the parent app's bundle identifier",
      fix: "name it com.example.rooms.RoomsIntents"
    ) { root in
      try Edit.plist(url(root, "\(appex)/Info.plist")) { $0["CFBundleIdentifier"] = "com.other.RoomsIntents" }
    },
    Case(
      rule: "bundle-id-prefix", severity: .error, file: "\(appex)/Info.plist", keyPath: "CFBundleIdentifier",
      says: "\"com.example.roomsIntents\" is not the app's identifier plus one component",
      fix: "name it com.example.rooms.RoomsIntents", variant: "no dot"
    ) { root in
      try Edit.plist(url(root, "\(appex)/Info.plist")) { $0["CFBundleIdentifier"] = "com.example.roomsIntents" }
    },
    // The extension of app com.example cannot be com.example.rooms.RoomsIntents (another app's extension).
    Case(
      rule: "bundle-id-prefix", severity: .error, file: "\(appex)/Info.plist", keyPath: "CFBundleIdentifier",
      says: "it has more than one component after the app's, so it could be the identifier of another app's extension",
      fix: "name it com.example.RoomsIntents", variant: "two more components"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleIdentifier"] = "com.example" }
      try Edit.plist(url(root, "PlugIns/RoomsUI.appex/Info.plist")) { $0["CFBundleIdentifier"] = "com.example.RoomsUI" }
    },
    Case(
      rule: "bundle-id-prefix", severity: .error, subject: .sources, file: "RoomsIntents/Info.plist",
      keyPath: "CFBundleIdentifier", says: "\"com.example.rooms.a.RoomsIntents\" is not the app's identifier plus one",
      fix: "name it com.example.rooms.RoomsIntents"
    ) { root in
      try Edit.plist(url(root, "RoomsIntents/Info.plist")) {
        $0["CFBundleIdentifier"] = "com.example.rooms.a.RoomsIntents"
      }
    },
    // bundle-id-syntax: every kind of bad identifier, where it is parsed (the grammar's own table is NameGrammarTests)
    Case(
      rule: "bundle-id-syntax", severity: .error, file: "Info.plist", keyPath: "CFBundleIdentifier",
      says: "\"..\" is not a valid bundle identifier: it has an empty component", fix: "use a reverse-DNS name",
      variant: ".."
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleIdentifier"] = ".." }
    },
    Case(
      rule: "bundle-id-syntax", severity: .error, file: "\(appex)/Info.plist", keyPath: "CFBundleIdentifier",
      says: "\"../../x\" is not a valid bundle identifier: it contains \"/\" (U+002F)",
      fix: "at most 200 bytes, such as com.example.rooms", variant: "../../x"
    ) { root in
      try Edit.plist(url(root, "\(appex)/Info.plist")) { $0["CFBundleIdentifier"] = "../../x" }
    },
    Case(
      rule: "bundle-id-syntax", severity: .error, file: "Info.plist", keyPath: "CFBundleIdentifier",
      says: "contains \"/\" (U+002F); only ASCII letters, digits, \"-\" and \".\" are allowed",
      fix: "use a reverse-DNS name", variant: "a/b"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleIdentifier"] = "com.example/rooms" }
    },
    Case(
      rule: "bundle-id-syntax", severity: .error, file: "Info.plist", keyPath: "CFBundleIdentifier",
      says: "is 6001 bytes long; the limit is 200", fix: "at most 200 bytes", variant: "long"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) {
        $0["CFBundleIdentifier"] = String(repeating: "a.", count: 3000) + "b"
      }
    },
    Case(
      rule: "bundle-id-syntax", severity: .error, file: "Info.plist", keyPath: "CFBundleIdentifier",
      says: "\"com.ex\u{430}mple.rooms\" is not a valid bundle identifier: it contains U+0430",
      fix: "ASCII letters, digits and hyphens", variant: "lookalike"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleIdentifier"] = "com.ex\u{430}mple.rooms" }
    },
    Case(
      rule: "bundle-id-syntax", severity: .error, file: "Info.plist", keyPath: "CFBundleIdentifier",
      says: "has 1 component; at least 2 are needed", fix: "at least two components", variant: "one component"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleIdentifier"] = "rooms" }
    },
    Case(
      rule: "bundle-id-missing", severity: .error, file: "Info.plist", keyPath: "CFBundleIdentifier",
      says: "is missing", fix: "add CFBundleIdentifier", variant: "empty"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleIdentifier"] = "" }
    },
    Case(
      rule: "bundle-id-syntax", severity: .error, subject: .file("RoomsIntents/Info.plist"),
      file: "RoomsIntents/Info.plist", keyPath: "CFBundleIdentifier", says: "has a component starting with \"-\"",
      fix: "use a reverse-DNS name"
    ) { root in
      try Edit.plist(url(root, "RoomsIntents/Info.plist")) { $0["CFBundleIdentifier"] = "com.example.-rf" }
    },
    // executable-name, bundle-folder-name
    Case(
      rule: "executable-name", severity: .error, file: "\(appex)/Info.plist", keyPath: "CFBundleExecutable",
      says: "\"../../../../bin/sh\" is not the name of a file in the bundle: it contains \"/\"",
      fix: "name the executable file directly inside the bundle"
    ) { root in
      try Edit.plist(url(root, "\(appex)/Info.plist")) { $0["CFBundleExecutable"] = "../../../../bin/sh" }
    },
    Case(
      rule: "executable-name", severity: .error, file: "Info.plist", keyPath: "CFBundleExecutable",
      says: "\".rooms\" is not the name of a file in the bundle: it starts with \".\" (a hidden file)",
      fix: "such as rooms", variant: "hidden"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleExecutable"] = ".rooms" }
    },
    Case(
      rule: "executable-name", severity: .error, file: "Info.plist", keyPath: "CFBundleExecutable",
      says: "contains U+001B, a control or invisible character", fix: "such as rooms", variant: "escape"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundleExecutable"] = "rooms\u{1B}[2J" }
    },
    Case(
      rule: "bundle-folder-name", severity: .error, file: "PlugIns/Rooms\u{202E}UI.appex",
      says: "is not a safe bundle folder name: \"Rooms\u{202E}UI.appex\" contains U+202E",
      fix: "rename the folder to the bundle's name"
    ) { root in
      try FileManager.default.moveItem(
        at: url(root, "PlugIns/RoomsUI.appex"), to: url(root, "PlugIns/Rooms\u{202E}UI.appex"))
    },
    // team-identifier
    Case(
      rule: "team-identifier", severity: .error, file: "Rooms.entitlements",
      keyPath: "com.apple.developer.team-identifier",
      says: "\"A1B2/../C3\" is not a valid team identifier: it contains \"/\" (U+002F)",
      fix: "10 letters and digits, such as A1B2C3D4E5"
    ) { root in
      try Edit.plist(url(root, "Rooms.entitlements")) { $0["com.apple.developer.team-identifier"] = "A1B2/../C3" }
    },
    Case(
      rule: "team-identifier", severity: .error, file: "\(appex)/RoomsIntents.entitlements",
      keyPath: "com.apple.developer.team-identifier",
      says: "is A1B2C3D4E5, but the app's entitlements give none: an extension belongs to its app's team",
      fix: "give the app and its extensions the same team identifier", variant: "extension's own team"
    ) { root in
      try Edit.plist(url(root, "\(appex)/RoomsIntents.entitlements")) {
        $0["com.apple.developer.team-identifier"] = "A1B2C3D4E5"
      }
    },
    // extension-point-missing, extension-point-unknown
    Case(
      rule: "extension-point-missing", severity: .error, file: "\(appex)/Info.plist",
      keyPath: "NSExtension.NSExtensionPointIdentifier", says: "is missing",
      fix: "use com.apple.intents-service or com.apple.intents-ui-service"
    ) { root in
      try Edit.extensionInfo(url(root, "\(appex)/Info.plist")) { $0["NSExtensionPointIdentifier"] = nil }
    },
    Case(
      rule: "extension-point-unknown", severity: .error, file: "\(appex)/Info.plist",
      keyPath: "NSExtension.NSExtensionPointIdentifier",
      says: "is \"com.apple.widgetkit-extension\", which is not an extension point IntentHost runs",
      fix: "use com.apple.intents-service (Intents) or com.apple.intents-ui-service (Intents UI)"
    ) { root in
      try Edit.extensionInfo(url(root, "\(appex)/Info.plist")) {
        $0["NSExtensionPointIdentifier"] = "com.apple.widgetkit-extension"
      }
    },
    // restricted-not-supported
    Case(
      rule: "restricted-not-supported", severity: .error, file: "\(appex)/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsRestrictedWhileLocked[0]",
      says: "lists INSendPaymentIntent, which is not in IntentsSupported (Apple: "
        + "INIntentError.restrictedIntentsNotSupportedByExtension)",
      fix: "add INSendPaymentIntent to IntentsSupported, or remove it from IntentsRestrictedWhileLocked"
    ) { root in
      try Edit.attributes(url(root, "\(appex)/Info.plist")) {
        $0["IntentsRestrictedWhileLocked"] = ["INSendPaymentIntent"]
      }
    },
    Case(
      rule: "restricted-not-supported", severity: .error, file: "\(appex)/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsRestrictedWhileProtectedDataUnavailable[1]",
      says: "lists INPlayMediaIntent, which is not in IntentsSupported",
      fix: "remove it from IntentsRestrictedWhileProtectedDataUnavailable", variant: "protected data"
    ) { root in
      try Edit.attributes(url(root, "\(appex)/Info.plist")) {
        $0["IntentsRestrictedWhileProtectedDataUnavailable"] = ["BookRoomIntent", "INPlayMediaIntent"]
      }
    },
    Case(
      rule: "restricted-not-supported", severity: .warning, file: "Info.plist",
      keyPath: "INIntentsRestrictedWhileLocked[0]",
      says: "lists INSendPaymentIntent, which neither the app (INIntentsSupported) nor its Intents extensions handle",
      fix: "add INSendPaymentIntent to INIntentsSupported or an extension's IntentsSupported", variant: "app"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["INIntentsRestrictedWhileLocked"] = ["INSendPaymentIntent"] }
    },
    Case(
      rule: "restricted-not-supported", severity: .warning, file: "Info.plist",
      keyPath: "INIntentsRestrictedWhileProtectedDataUnavailable[1]", says: "lists INPlayMediaIntent",
      fix: "remove it from INIntentsRestrictedWhileProtectedDataUnavailable", variant: "app, protected data"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) {
        $0["INIntentsRestrictedWhileProtectedDataUnavailable"] = ["OpenDoorIntent", "INPlayMediaIntent"]
      }
    },
    Case(
      rule: "restricted-not-supported", severity: .error, subject: .file("RoomsIntents/Info.plist"),
      file: "RoomsIntents/Info.plist", keyPath: "NSExtension.NSExtensionAttributes.IntentsRestrictedWhileLocked[0]",
      says: "lists INSendPaymentIntent", fix: "add INSendPaymentIntent to IntentsSupported"
    ) { root in
      try Edit.attributes(url(root, "RoomsIntents/Info.plist")) {
        $0["IntentsRestrictedWhileLocked"] = ["INSendPaymentIntent"]
      }
    },
    // app-group-identifier, app-group-not-shared
    Case(
      rule: "app-group-identifier", severity: .error, file: "Rooms.entitlements",
      keyPath: "com.apple.security.application-groups[0]", says: "\"com.example.rooms\" does not start with \"group.\"",
      fix: "use group. followed by a reverse-DNS name"
    ) { root in
      try Edit.plist(url(root, "Rooms.entitlements")) {
        $0["com.apple.security.application-groups"] = ["com.example.rooms"]
      }
    },
    Case(
      rule: "app-group-identifier", severity: .error, file: "\(appex)/RoomsIntents.entitlements",
      keyPath: "com.apple.security.application-groups[1]",
      says: "\"group.rooms\" is not \"group.\" followed by a reverse-DNS name", fix: "such as group.com.example.app",
      variant: "one label"
    ) { root in
      try Edit.plist(url(root, "\(appex)/RoomsIntents.entitlements")) {
        $0["com.apple.security.application-groups"] = ["group.com.example.rooms", "group.rooms"]
      }
    },
    Case(
      rule: "app-group-identifier", severity: .error, subject: .file("Rooms/Rooms.entitlements"),
      file: "Rooms/Rooms.entitlements", keyPath: "com.apple.security.application-groups[0]",
      says: "is not \"group.\" followed by a reverse-DNS name", fix: "use group. followed by a reverse-DNS name"
    ) { root in
      try Edit.plist(url(root, "Rooms/Rooms.entitlements")) {
        $0["com.apple.security.application-groups"] = ["group.com..rooms"]
      }
    },
    Case(
      rule: "app-group-identifier", severity: .error, file: "Rooms.entitlements",
      keyPath: "com.apple.security.application-groups[0]", says: "is 207 bytes long; the limit is 200",
      fix: "(at most 200 bytes)", variant: "long"
    ) { root in
      try Edit.plist(url(root, "Rooms.entitlements")) {
        $0["com.apple.security.application-groups"] = ["group.com." + String(repeating: "a", count: 197)]
      }
    },
    Case(
      rule: "app-group-identifier", severity: .error, file: "Rooms.entitlements",
      keyPath: "com.apple.security.application-groups[0]", says: "what follows \"group.\" contains \"/\" (U+002F)",
      fix: "use group. followed by a reverse-DNS name", variant: "path"
    ) { root in
      try Edit.plist(url(root, "Rooms.entitlements")) {
        $0["com.apple.security.application-groups"] = ["group.com.example/../../../etc"]
      }
    },
    Case(
      rule: "app-group-identifier", severity: .error, file: "Rooms.entitlements",
      keyPath: "com.apple.security.application-groups[0]", says: "what follows \"group.\" contains U+0435",
      fix: "use group. followed by a reverse-DNS name", variant: "lookalike"
    ) { root in
      try Edit.plist(url(root, "Rooms.entitlements")) {
        $0["com.apple.security.application-groups"] = ["group.com.\u{435}xample.rooms"]
      }
    },
    Case(
      rule: "app-group-not-shared", severity: .warning, file: "\(appex)/RoomsIntents.entitlements",
      keyPath: "com.apple.security.application-groups",
      says: "lists group.com.example.other, which the app's entitlements do not: the app cannot see what "
        + "RoomsIntents writes there",
      fix: "add group.com.example.other to the app's entitlements too"
    ) { root in
      try Edit.plist(url(root, "\(appex)/RoomsIntents.entitlements")) {
        $0["com.apple.security.application-groups"] = ["group.com.example.rooms", "group.com.example.other"]
      }
    },
    // intent-undefined
    Case(
      rule: "intent-undefined", severity: .error, file: "\(appex)/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsSupported[1]",
      says: "lists BookDeskIntent, which no intent definition of the app defines and which is not a system intent",
      fix: "define it in an Intents.intentdefinition (INIntentName BookDesk), or fix the name"
    ) { root in
      try Edit.attributes(url(root, "\(appex)/Info.plist")) {
        $0["IntentsSupported"] = ["BookRoomIntent", "BookDeskIntent"]
      }
    },
    Case(
      rule: "intent-undefined", severity: .error, file: "\(appex)/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsSupported[0]", says: "lists BookRoom, which no intent",
      fix: "class names end in \"Intent\": INIntentName BookRoom is listed as BookRoomIntent",
      variant: "class name without Intent"
    ) { root in
      try Edit.attributes(url(root, "\(appex)/Info.plist")) { $0["IntentsSupported"] = ["BookRoom"] }
    },
    Case(
      rule: "intent-undefined", severity: .error, file: "Info.plist", keyPath: "INIntentsSupported[0]",
      says: "lists OpenRoomIntent, which no intent definition", fix: "INIntentName OpenRoom", variant: "app"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["INIntentsSupported"] = ["OpenRoomIntent"] }
    },
    Case(
      rule: "intent-undefined", severity: .error, subject: .sources, file: "RoomsIntents/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsSupported[1]", says: "lists BookDeskIntent",
      fix: "INIntentName BookDesk"
    ) { root in
      try Edit.attributes(url(root, "RoomsIntents/Info.plist")) {
        $0["IntentsSupported"] = ["BookRoomIntent", "BookDeskIntent"]
      }
    },
    // intent-supported-twice
    Case(
      rule: "intent-supported-twice", severity: .error, file: "\(appex)/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsSupported",
      says: "lists BookRoomIntent, which", fix: "list each intent in one Intents extension"
    ) { root in
      let more = url(root, "PlugIns/MoreIntents.appex")
      try FileManager.default.createDirectory(at: more, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: url(root, "\(appex)/Info.plist"), to: more.appendingPathComponent("Info.plist"))
      try TestBundles.writeStandInExecutable(to: more.appendingPathComponent("MoreIntents"))
      try Edit.plist(more.appendingPathComponent("Info.plist")) {
        $0["CFBundleIdentifier"] = "com.example.rooms.MoreIntents"
        $0["CFBundleExecutable"] = "MoreIntents"
      }
    },
    // intent-listed-twice
    Case(
      rule: "intent-listed-twice", severity: .warning, file: "\(appex)/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsSupported", says: "lists BookRoomIntent more than once",
      fix: "list it once"
    ) { root in
      try Edit.attributes(url(root, "\(appex)/Info.plist")) {
        $0["IntentsSupported"] = ["BookRoomIntent", "OpenDoorIntent", "BookRoomIntent"]
      }
    },
    // ui-extension-unhandled-intent
    Case(
      rule: "ui-extension-unhandled-intent", severity: .error, file: "PlugIns/RoomsUI.appex/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsSupported",
      says: "draws INStartWorkoutIntent, which no Intents extension of the app handles",
      fix: "add INStartWorkoutIntent to the IntentsSupported of the app's Intents extension, or remove it here"
    ) { root in
      try Edit.attributes(url(root, "PlugIns/RoomsUI.appex/Info.plist")) {
        $0["IntentsSupported"] = ["BookRoomIntent", "INStartWorkoutIntent"]
      }
    },
    // intent-phrases-missing, vocabulary-unknown-intent, vocabulary-empty
    Case(
      rule: "intent-phrases-missing", severity: .warning, file: "\(appex)/Info.plist",
      keyPath: "NSExtension.NSExtensionAttributes.IntentsSupported",
      says: "BookRoomIntent has no example phrases in AppIntentVocabulary.plist", fix: "\"… with Rooms\""
    ) { root in
      try FileManager.default.removeItem(at: url(root, "Base.lproj/AppIntentVocabulary.plist"))
    },
    Case(
      rule: "vocabulary-unknown-intent", severity: .warning, file: "Base.lproj/AppIntentVocabulary.plist",
      keyPath: "IntentPhrases", says: "has phrases for INStartWorkoutIntent, which neither the app nor its extensions",
      fix: "add INStartWorkoutIntent to an Intents extension's IntentsSupported"
    ) { root in
      try Edit.plist(url(root, "Base.lproj/AppIntentVocabulary.plist")) { plist in
        var phrases = plist["IntentPhrases"] as! [[String: Any]]
        phrases.append(["IntentName": "INStartWorkoutIntent", "IntentExamples": ["Start a run with Rooms"]])
        plist["IntentPhrases"] = phrases
      }
    },
    Case(
      rule: "vocabulary-empty", severity: .warning, file: "Base.lproj/AppIntentVocabulary.plist",
      says: "has no intent phrases and no parameter vocabulary", fix: "add IntentPhrases with IntentExamples"
    ) { root in
      try writePlist(
        ["IntentPhrases": [["IntentName": "", "IntentExamples": [""]]]],
        to: url(root, "Base.lproj/AppIntentVocabulary.plist"))
    },
    Case(
      rule: "vocabulary-empty", severity: .warning, subject: .file("Rooms/Base.lproj/AppIntentVocabulary.plist"),
      file: "Rooms/Base.lproj/AppIntentVocabulary.plist", says: "Xcode's unfilled template", fix: "or delete the file"
    ) { root in
      try writePlist([:], to: url(root, "Rooms/Base.lproj/AppIntentVocabulary.plist"))
    },
    // duplicate-definition: an error when the copies differ, else a warning
    Case(
      rule: "duplicate-definition", severity: .warning, file: "\(appex)/\(definition)",
      keyPath: "INIntents[BookRoom]", says: "defines BookRoomIntent again (also in ",
      fix: "keep one definition of each intent", variant: "same copy"
    ) { root in
      try FileManager.default.createDirectory(at: url(root, "\(appex)/Base.lproj"), withIntermediateDirectories: true)
      try FileManager.default.copyItem(at: url(root, definition), to: url(root, "\(appex)/\(definition)"))
    },
    Case(
      rule: "duplicate-definition", severity: .error, file: "\(appex)/\(definition)", keyPath: "INIntents[BookRoom]",
      says: "with other parameters or response codes", fix: "keep one definition of each intent",
      variant: "differing copy"
    ) { root in
      try FileManager.default.createDirectory(at: url(root, "\(appex)/Base.lproj"), withIntermediateDirectories: true)
      try FileManager.default.copyItem(at: url(root, definition), to: url(root, "\(appex)/\(definition)"))
      try Edit.plist(url(root, "\(appex)/\(definition)")) { plist in
        plist["INIntents"] = Array((plist["INIntents"] as! [[String: Any]]).prefix(1))  // BookRoom only
      }
      try Edit.parameters(url(root, "\(appex)/\(definition)")) { $0.removeLast() }
    },
    Case(
      rule: "duplicate-definition", severity: .error, subject: .file("Rooms/\(definition)"),
      file: "Rooms/\(definition)", keyPath: "INIntents[2] (BookRoom)", says: "defines BookRoomIntent twice",
      fix: "remove one of them", variant: "one file"
    ) { root in
      try Edit.plist(url(root, "Rooms/\(definition)")) { plist in
        let intents = plist["INIntents"] as! [[String: Any]]
        plist["INIntents"] = intents + intents
      }
    },
    // duplicate-parameter
    Case(
      rule: "duplicate-parameter", severity: .error, file: definition, keyPath: "INIntents[0] (BookRoom).roomNumber",
      says: "is defined twice", fix: "rename one"
    ) { root in
      try Edit.parameters(url(root, definition)) { $0.append($0[0]) }
    },
    // enum-undefined, type-undefined
    Case(
      rule: "enum-undefined", severity: .error, file: definition,
      keyPath: "INIntents[0] (BookRoom).roomNumber.INIntentParameterEnumType",
      says: "names the enum Floor, which INEnums does not define", fix: "define Floor or pick another enum"
    ) { root in
      try Edit.parameters(url(root, definition)) { $0[0]["INIntentParameterEnumType"] = "Floor" }
    },
    Case(
      rule: "type-undefined", severity: .error, file: definition,
      keyPath: "INIntents[0] (BookRoom).bookedBy.INIntentParameterObjectType",
      says: "names the type Person2, which INTypes does not define", fix: "define Person2 in INTypes"
    ) { root in
      try Edit.parameters(url(root, definition)) {
        $0[1]["INIntentParameterType"] = "Object"
        $0[1]["INIntentParameterObjectType"] = "Person2"
      }
    },
    // relationship-parent, relationship-value
    Case(
      rule: "relationship-parent", severity: .error, file: definition,
      keyPath: "INIntents[0] (BookRoom).bookedBy.INIntentParameterRelationship",
      says: "depends on \"floor\", which is not a parameter of BookRoom",
      fix: "name one of roomNumber, bookedBy, isCancellationOfBooking"
    ) { root in
      try Edit.parameters(url(root, definition)) {
        $0[1]["INIntentParameterRelationship"] = [
          "INIntentParameterRelationshipParentName": "floor",
          "INIntentParameterRelationshipPredicateName": "EnumHasExactValue",
        ]
      }
    },
    Case(
      rule: "relationship-value", severity: .error, file: definition,
      keyPath: "INIntents[0] (BookRoom).bookedBy.INIntentParameterRelationship",
      says: "depends on floor being \"roof\", which is not a case of Floor", fix: "use one of ground, first"
    ) { root in
      try Edit.plist(url(root, definition)) { plist in
        plist["INEnums"] = [
          [
            "INEnumName": "Floor",
            "INEnumValues": [["INEnumValueName": "ground"], ["INEnumValueName": "first", "INEnumValueIndex": 1]],
          ] as [String: Any]
        ]
      }
      try Edit.parameters(url(root, definition)) {
        $0.append([
          "INIntentParameterName": "floor", "INIntentParameterType": "Integer", "INIntentParameterEnumType": "Floor",
        ])
        $0[1]["INIntentParameterRelationship"] = [
          "INIntentParameterRelationshipParentName": "floor",
          "INIntentParameterRelationshipPredicateName": "EnumHasExactValue",
          "INIntentParameterRelationshipPredicateValue": "roof",
        ]
      }
    },
    // combination-unknown-parameter
    Case(
      rule: "combination-unknown-parameter", severity: .error, file: definition,
      keyPath: "INIntents[0] (BookRoom).INIntentParameterCombinations[\"roomNumber,floor\"]",
      says: "names floor, which is not a parameter of BookRoom",
      fix: "remove it from the combination, or add the parameter"
    ) { root in
      try Edit.intent(url(root, definition)) {
        $0["INIntentParameterCombinations"] = [
          "roomNumber,floor": ["INIntentParameterCombinationTitle": "Book ${roomNumber}"]
        ]
      }
    },
    // template-unknown-name: in a response template, and in a prompt
    Case(
      rule: "template-unknown-name", severity: .warning, file: definition,
      keyPath: "INIntents[0] (BookRoom).INIntentResponse.success",
      says: "refers to ${floor}, which is not a response parameter",
      fix: "add a response parameter floor and set it in handle"
    ) { root in
      try Edit.responseCodes(url(root, definition)) {
        $0[0]["INIntentResponseCodeFormatString"] = "Room ${roomNumber} is on floor ${floor}."
      }
    },
    Case(
      rule: "template-unknown-name", severity: .warning, file: definition,
      keyPath: "INIntents[0] (BookRoom).roomNumber Primary prompt",
      says: "refers to ${floor}, which is not a parameter of BookRoom",
      fix: "use one of ${roomNumber}, ${bookedBy}, ${isCancellationOfBooking}", variant: "prompt"
    ) { root in
      try Edit.parameters(url(root, definition)) { parameters in
        var dialogs = parameters[0]["INIntentParameterPromptDialogs"] as! [[String: Any]]
        dialogs[1]["INIntentParameterPromptDialogFormatString"] = "Which room on ${floor}?"
        parameters[0]["INIntentParameterPromptDialogs"] = dialogs
      }
    },
    Case(
      rule: "template-unknown-name", severity: .warning, file: definition,
      keyPath: "INIntents[0] (BookRoom).INIntentResponse.failure", says: "refers to ${booking.floor}",
      fix: "add a response parameter booking", variant: "property path"
    ) { root in
      try Edit.responseCodes(url(root, definition)) {
        $0[1]["INIntentResponseCodeFormatString"] = "Sorry: ${reason} (floor ${booking.floor})."
      }
    },
    // response-codes
    Case(
      rule: "response-codes", severity: .warning, file: definition,
      keyPath: "INIntents[0] (BookRoom).INIntentResponse.INIntentResponseCodes",
      says: "lacks failure; Xcode gives every custom intent both", fix: "add the success and failure codes"
    ) { root in
      try Edit.responseCodes(url(root, definition)) { $0.remove(at: 1) }
    },
    Case(
      rule: "response-codes", severity: .warning, file: definition, keyPath: "INIntents[0] (BookRoom)",
      says: "has no INIntentResponse", fix: "add INIntentResponse with INIntentResponseCodes",
      variant: "no response"
    ) { root in
      try Edit.intent(url(root, definition)) { $0["INIntentResponse"] = nil }
    },
    // package-type
    Case(
      rule: "package-type", severity: .warning, file: "\(appex)/Info.plist", keyPath: "CFBundlePackageType",
      says: "is \"APPL\"; an extension's is XPC!", fix: "set it to XPC!"
    ) { root in
      try Edit.plist(url(root, "\(appex)/Info.plist")) { $0["CFBundlePackageType"] = "APPL" }
    },
    Case(
      rule: "package-type", severity: .warning, file: "Info.plist", keyPath: "CFBundlePackageType",
      says: "is \"BNDL\"; an app's is APPL", fix: "set it to APPL", variant: "app"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["CFBundlePackageType"] = "BNDL" }
    },
    // siri-usage-description
    Case(
      rule: "siri-usage-description", severity: .warning, file: "Info.plist", keyPath: "NSSiriUsageDescription",
      says: "is missing; iOS needs it to ask the user to allow Siri for the app", fix: "add NSSiriUsageDescription"
    ) { root in
      try Edit.plist(url(root, "Info.plist")) { $0["NSSiriUsageDescription"] = nil }
    },
    // strings-stale-key
    Case(
      rule: "strings-stale-key", severity: .note, file: "fr.lproj/Intents.strings", keyPath: "zzzzzz",
      says: "match no ID of the intent definitions", fix: "remove them, or rename each to the ID it translates"
    ) { root in
      let handle = try FileHandle(forWritingTo: url(root, "fr.lproj/Intents.strings"))
      defer { try? handle.close() }
      try handle.seekToEnd()
      try handle.write(contentsOf: Data("\"zzzzzz\" = \"Réserver\";\n".utf8))
    },
  ]

  /// Puts the built RoomsIntents in place of the extension's stand-in, with the one occurrence of `old` replaced by
  /// `new` (padded with NULs to its length): an ELF header made to point elsewhere, without a compiler.
  static func patchedExtension(_ root: URL, _ old: String, _ new: String) throws {
    var bytes = try Data(contentsOf: URL(fileURLWithPath: PackagePaths.executable("RoomsIntents")))
    let from = Data(old.utf8)
    precondition(new.utf8.count <= from.count, "the patch must not be longer than what it replaces")
    let to = Data(new.utf8) + Data(count: from.count - new.utf8.count)
    let range = try #require(bytes.range(of: from), "RoomsIntents holds no \(old)")
    bytes.replaceSubrange(range, with: to)
    let executable = url(root, "\(appex)/RoomsIntents")
    try bytes.write(to: executable)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: executable.path)
  }

  /// The controls: the example bundle and its sources break no rule, so each diagnostic below is its mistake's.
  @Test(arguments: [Subject.bundle, .sources])
  func theExampleIsClean(_ subject: Subject) throws {
    let directory = try TemporaryDirectory("assistanthost-validator")
    defer { directory.remove() }
    let root = try subject.fixture(in: directory.url)
    let diagnostics = Validator().validate(path: subject.path(in: root))
    #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
  }

  @Test(arguments: cases)
  func eachRuleHasItsDiagnostic(_ rule: Case) throws {
    let directory = try TemporaryDirectory("assistanthost-validator")
    defer { directory.remove() }
    let root = try rule.subject.fixture(in: directory.url)
    try rule.mutate(root)
    let diagnostics = Validator().validate(path: rule.subject.path(in: root))
    let all = diagnostics.map(\.description)
    let found = diagnostics.filter { $0.rule.rawValue == rule.rule }
    let file = root.appendingPathComponent(rule.file).path
    let diagnostic = try #require(found.first { $0.file == file }, "\(all)")

    #expect(found.allSatisfy { $0.severity == rule.severity }, "\(all)")
    if let keyPath = rule.keyPath { #expect(diagnostic.keyPath == keyPath) }
    #expect(diagnostic.message.contains(rule.says), "\(diagnostic)")
    if let fix = rule.fix {
      #expect(diagnostic.fix?.contains(fix) == true, "\(diagnostic)")
    } else {
      #expect(diagnostic.fix == nil, "\(diagnostic)")
    }
    // What the user reads: `FILE: KEYPATH: severity: message [rule]`, then the fix on its own line.
    let lines = diagnostic.description.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines[0].hasPrefix(file + ": "))
    #expect(lines[0].hasSuffix(": \(rule.severity.rawValue): \(diagnostic.message) [\(rule.rule)]"))
    #expect(lines.count == (rule.fix == nil ? 1 : 2))
    if let fix = diagnostic.fix { #expect(lines.last == "    fix: \(fix)") }
    // The mistake is an error exactly when its rule is (`assistant validate` exits 65).
    #expect(diagnostics.hasErrors == (rule.severity == .error), "\(all)")
    // No finding sends a Linux user to a macOS-only tool.
    #expect(MacOSOnlyTools.mentions(diagnostics).isEmpty, "\(MacOSOnlyTools.mentions(diagnostics))")
  }

  /// `assistant install` refuses a bundle with an error, with the same diagnostic, and installs one with only
  /// warnings and notes, passing them on.
  @Test(arguments: cases.filter { if case .bundle = $0.subject { true } else { false } })
  func installRefusesExactlyTheErrors(_ rule: Case) async throws {
    let directory = try TemporaryDirectory("assistanthost-install")
    defer { directory.remove() }
    let app = try Subject.bundle.fixture(in: directory.file("bundles"))
    try rule.mutate(app)
    let home = try AssistantHome(root: directory.file("home").path, environment: [:])
    if rule.severity == .error {
      let error = try await #require(throws: HostError.self) { try await home.install(from: app) }
      #expect(error.status == .dataError)
      #expect(error.message.hasPrefix("cannot install \(app.path)"))
      // A link or special file is refused before validation, by the bundle-tree check (only files and folders).
      let byTreeCheck = rule.rule == "bundle-file-kind" && error.message.contains("is a symbolic link")
      #expect(error.message.contains("[\(rule.rule)]") || byTreeCheck, "\(error)")
      #expect(try home.installedApps().isEmpty)
    } else {
      let (installed, diagnostics) = try await home.install(from: app)
      #expect(diagnostics.contains { $0.rule.rawValue == rule.rule && $0.severity == rule.severity })
      #expect(installed.url.path == home.applications.appendingPathComponent("Rooms.app").path)
      #expect(try home.installedApps().map(\.info.bundleIdentifier) == ["com.example.rooms"])
    }
  }
}

/// What `validate(path:)` does with each kind of path, and the rules' edges.
@Suite(.tags(.unit)) struct ValidatorPathTests {
  @Test func aMissingPathIsOneError() {
    let diagnostics = Validator().validate(path: "/nonexistent/intenthost/My.app")
    #expect(diagnostics.map(\.rule) == [.fileMissing])
    #expect(diagnostics.first?.severity == .error)
    #expect(diagnostics.first?.file == "/nonexistent/intenthost/My.app")
    #expect(diagnostics.first?.fix == "check the path")
  }

  @Test func aFolderWithoutManifestsIsOneError() throws {
    let directory = try TemporaryDirectory("assistanthost-validator")
    defer { directory.remove() }
    try Data("// not a manifest\n".utf8).write(to: directory.file("main.swift"))
    let diagnostics = Validator().validate(path: directory.path)
    #expect(diagnostics.map(\.rule) == [.nothingToValidate])
    #expect(diagnostics.first?.message.contains("holds no Info.plist") == true)
  }

  /// An example phrase of a payment app, "Send Ada 5 dollars with Wallet", sends the amount "5 dollars" when run:
  /// validate says nothing is lost (it once warned that it "loses the value 5.0"). The control, a phrase that does
  /// lose a number, is `cases`' "a value lost".
  @Test func aPaymentPhraseKeepsItsAmount() throws {
    let directory = try TemporaryDirectory("assistanthost-validator")
    defer { directory.remove() }
    let app = try SmallApp.build(name: "Wallet", intents: [], systemIntents: ["INSendPaymentIntent"], in: directory.url)
    try writePlist(
      [
        "IntentPhrases": [
          ["IntentName": "INSendPaymentIntent", "IntentExamples": ["Send Ada 5 dollars with Wallet"]]
        ]
      ], to: app.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist"))
    let diagnostics = Validator().validate(path: app.path)
    #expect(!diagnostics.contains { $0.message.contains("loses the value") }, "\(diagnostics.map(\.description))")
    #expect(!diagnostics.contains { $0.rule == .intentPhraseUnreachable }, "\(diagnostics.map(\.description))")
  }

  @Test func aPropertyListOfNoKnownKindIsAWarning() throws {
    let directory = try TemporaryDirectory("assistanthost-validator")
    defer { directory.remove() }
    try writePlist(["Key": "value"], to: directory.file("Settings.plist"))
    let diagnostics = Validator().validate(path: directory.file("Settings.plist").path)
    #expect(diagnostics.map(\.rule) == [.unknownFile])
    #expect(diagnostics.first?.severity == .warning)
    #expect(diagnostics.first?.fix?.contains("name it Info.plist") == true)
  }

  /// Without exactly one app Info.plist a folder is not a project: each file is checked alone, so the rules that
  /// need the definitions (intent-undefined) do not apply, and those of one file (restricted-not-supported) do.
  @Test func aFolderWithoutOneAppIsCheckedFileByFile() throws {
    let directory = try TemporaryDirectory("assistanthost-validator")
    defer { directory.remove() }
    let info = directory.file("RoomsIntents/Info.plist")
    try FileManager.default.createDirectory(
      at: info.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: PackagePaths.root.appendingPathComponent("Sources/Examples/RoomsIntents/Info.plist"), to: info)
    try Edit.attributes(info) {
      $0["IntentsSupported"] = ["BookRoomIntent", "BookDeskIntent"]
      $0["IntentsRestrictedWhileLocked"] = ["INSendPaymentIntent"]
    }
    let diagnostics = Validator().validate(path: directory.path)
    #expect(diagnostics.map(\.rule) == [.restrictedNotSupported], "\(diagnostics.map(\.description))")
  }

  /// `executable-missing` (docs/VALIDATION.md) cannot fire through the Validator: every folder implies
  /// EXECUTABLE_NAME (its own name), so a missing CFBundleExecutable is a note and the implied file is checked
  /// instead. The model reports the rule only when no setting is given at all.
  @Test func anExecutableNameIsAlwaysImplied() throws {
    let plist = PlistDictionary(values: ["CFBundleIdentifier": "com.example.rooms"], file: "Rooms.app/Info.plist")
    let bare = try InfoPlist(plist, settings: BuildSettings(), unresolved: .error)
    #expect(bare.diagnostics.map(\.rule) == [.executableMissing])
    #expect(bare.diagnostics.first?.severity == .error)
    #expect(bare.diagnostics.first?.fix == "name the executable file inside the bundle")
    let lone = try InfoPlist(plist, settings: BuildSettings(), unresolved: .note)
    #expect(lone.diagnostics.first?.severity == .warning)

    let implied = try InfoPlist(plist, settings: BuildSettings.forBundle(at: URL(fileURLWithPath: "/x/Rooms.app")))
    #expect(implied.executable == "Rooms")
    #expect(implied.diagnostics.map(\.rule) == [.executableFromSettings])
  }

  /// `--setting` and a bundle's BuildSettings.xcconfig give `$(NAME)` its value: no diagnostic is left.
  @Test func buildSettingsResolveReferences() throws {
    let directory = try TemporaryDirectory("assistanthost-validator")
    defer { directory.remove() }
    let app = try TestBundles.roomsManifests(in: directory.url)
    let appex = app.appendingPathComponent(Edit.appex)
    try Edit.plist(appex.appendingPathComponent("Info.plist")) {
      $0["CFBundleIdentifier"] = "$(PRODUCT_BUNDLE_IDENTIFIER)"
    }
    #expect(Validator().validate(path: app.path).map(\.rule) == [.buildSettingUnresolved])
    let given = Validator(settings: ["PRODUCT_BUNDLE_IDENTIFIER": "com.example.rooms.RoomsIntents"])
    #expect(given.validate(path: app.path).isEmpty)
    try Data("// the extension's settings\nPRODUCT_BUNDLE_IDENTIFIER = com.example.rooms.$(PRODUCT_NAME)\n".utf8)
      .write(to: appex.appendingPathComponent("BuildSettings.xcconfig"))
    let diagnostics = Validator().validate(path: app.path)
    #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
    #expect(
      try AppBundle.load(from: app).extensions.map(\.info.bundleIdentifier).contains("com.example.rooms.RoomsIntents"))
  }

  @Test func aBinaryInfoPlistIsReadLikeXML() throws {
    let directory = try TemporaryDirectory("assistanthost-validator")
    defer { directory.remove() }
    let app = try TestBundles.roomsManifests(in: directory.url)
    let url = app.appendingPathComponent("\(Edit.appex)/Info.plist")
    try PropertyListSerialization.data(fromPropertyList: Edit.read(url), format: .binary, options: 0).write(to: url)
    #expect(try Data(contentsOf: url).prefix(6) == Data("bplist".utf8))
    #expect(Validator().validate(path: app.path).isEmpty)
    #expect(Validator().validate(path: url.path).isEmpty)
  }

  /// `${orderDetails.total}` reads a property of a response parameter: only the head must be a response parameter.
  @Test func aPropertyPathOfAResponseParameterIsKnown() throws {
    let directory = try TemporaryDirectory("assistanthost-validator")
    defer { directory.remove() }
    let app = try TestBundles.roomsManifests(in: directory.url)
    try Edit.responseCodes(app.appendingPathComponent("Base.lproj/Intents.intentdefinition")) {
      $0[0]["INIntentResponseCodeFormatString"] = "Room ${roomNumber} (${reason.text}) is booked."
    }
    #expect(Validator().validate(path: app.path).isEmpty)
  }

  @Test(arguments: [
    ("Room ${roomNumber} for ${bookedBy}.", ["roomNumber", "bookedBy"]),
    ("${orderDetails.total}", ["orderDetails.total"]),
    ("no placeholders", []),
    ("${a}${b}", ["a", "b"]),
    ("unterminated ${name", []),
    ("$roomNumber {x}", []),
  ])
  func placeholdersAreFoundInOrder(template: String, names: [String]) {
    #expect(placeholders(template) == names)
  }
}

/// What no diagnostic may send a Linux user to: the macOS-only tools (`plutil`, `PlistBuddy`, `xcrun`, `codesign`,
/// Xcode), in a message or a fix. A message may say what Xcode does; only a fix may not ask for it.
enum MacOSOnlyTools {
  static let names = ["plutil", "plistbuddy", "xcrun", "xcodebuild", "codesign", "ibtool", "actool", "open -a"]

  /// The diagnostics that name one, as they print.
  static func mentions(_ diagnostics: [Diagnostic]) -> [String] {
    diagnostics.filter { diagnostic in
      let text = (diagnostic.message + "\n" + (diagnostic.fix ?? "")).lowercased()
      return names.contains { text.contains($0) } || diagnostic.fix?.contains("Xcode") == true
    }.map(\.description)
  }
}

/// A manifest whose name does not say what it is (Xcode's `INFOPLIST_FILE` allows any name) is recognised by its
/// content; one whose content does not say either is `unknown-file`. Content is read with a size limit, from regular
/// files only, never through a link.
@Suite(.tags(.unit)) struct ManifestRecognitionTests {
  static let examples = PackagePaths.root.appendingPathComponent("Sources/Examples")

  struct Case: Sendable, CustomTestStringConvertible {
    /// The example file, relative to Sources/Examples.
    var source: String
    /// The name it gets, which does not say what it is (or, for the controls of names, does).
    var name: String
    /// A rule of that kind of file only, which `mutate`'s one mistake breaks.
    var rule: String
    var mutate: @Sendable (URL) throws -> Void
    var testDescription: String { "\(name) (\(source))" }
  }

  static let cases: [Case] = [
    // The name says it (Xcode's NAME-Info.plist), as before.
    Case(source: "Rooms/Info.plist", name: "MyApp-Info.plist", rule: "bundle-id-missing") { url in
      try Edit.plist(url) { $0["CFBundleIdentifier"] = nil }
    },
    // CFBundle… keys.
    Case(source: "Rooms/Info.plist", name: "MyApp.plist", rule: "bundle-id-missing") { url in
      try Edit.plist(url) { $0["CFBundleIdentifier"] = nil }
    },
    Case(source: "RoomsIntents/Info.plist", name: "RoomsIntents.xml", rule: "restricted-not-supported") { url in
      try Edit.attributes(url) { $0["IntentsRestrictedWhileLocked"] = ["INSendPaymentIntent"] }
    },
    // NSExtension alone (Xcode 14's generated extension Info.plist).
    Case(source: "RoomsIntents/Info.plist", name: "Extension", rule: "restricted-not-supported") { url in
      try Edit.plist(url) { plist in plist = plist.filter { $0.key == "NSExtension" } }
      try Edit.attributes(url) { $0["IntentsRestrictedWhileLocked"] = ["INSendPaymentIntent"] }
    },
    // INIntentDefinitionModelVersion.
    Case(source: "Rooms/Base.lproj/Intents.intentdefinition", name: "Definitions.xml", rule: "duplicate-parameter") {
      url in try Edit.parameters(url) { $0.append($0[0]) }
    },
    // IntentPhrases / ParameterVocabularies.
    Case(source: "Rooms/Base.lproj/AppIntentVocabulary.plist", name: "Phrases.plist", rule: "vocabulary-empty") {
      url in
      try Edit.plist(url) {
        $0["IntentPhrases"] = [Any]()
        $0["ParameterVocabularies"] = [Any]()
      }
    },
    // com.apple.… entitlements.
    Case(source: "Rooms/Rooms.entitlements", name: "Rooms-Entitlements.plist", rule: "app-group-identifier") { url in
      try Edit.plist(url) { $0["com.apple.security.application-groups"] = ["rooms"] }
    },
  ]

  /// The example file under its new name in `directory`.
  static func copy(_ example: Case, into directory: TemporaryDirectory) throws -> URL {
    let url = directory.file(example.name)
    try FileManager.default.copyItem(at: examples.appendingPathComponent(example.source), to: url)
    return url
  }

  /// Clean as the example is (the control), and with the mistake, the rule of its kind, so the file was read as
  /// that kind and not as `unknown-file`.
  @Test(arguments: cases)
  func eachKindIsRecognisedUnderAnotherName(_ example: Case) throws {
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let url = try Self.copy(example, into: directory)
    if example.name != "Extension" {
      #expect(Validator().validate(path: url.path).isEmpty, "\(Validator().validate(path: url.path))")
    }
    try example.mutate(url)
    let diagnostics = Validator().validate(path: url.path)
    #expect(diagnostics.contains { $0.rule.rawValue == example.rule && $0.file == url.path }, "\(diagnostics)")
    #expect(!diagnostics.contains { $0.rule == .unknownFile })
  }

  @Test(
    arguments: [
      (["CFBundleIdentifier": "com.example.rooms"], ManifestKind?.some(.infoPlist)),
      (["NSExtension": [String: String]()], .infoPlist),
      (["INIntentDefinitionModelVersion": "1", "INIntents": [String]()], .intentDefinition),
      // A definition that lists bundle keys is still a definition: the most specific key decides.
      (["INIntentDefinitionModelVersion": "1", "CFBundleName": "x"], .intentDefinition),
      (["IntentPhrases": [String]()], .vocabulary),
      (["ParameterVocabularies": [String]()], .vocabulary),
      (["com.apple.developer.siri": true], .entitlements),
      (["com.apple.security.application-groups": [String](), "aps-environment": "development"], .entitlements),
      // Not only entitlements: a launchd job, a preferences file.
      (["com.apple.developer.siri": true, "Label": "x"], nil),
      (["Label": "com.apple.x", "ProgramArguments": [String]()], nil),
      (["Key": "value"], nil),
      ([:], nil),
    ] as [([String: any Sendable], ManifestKind?)])
  func theKeysSayTheKind(_ keys: [String: any Sendable], _ kind: ManifestKind?) {
    #expect(ManifestKind(recognising: PlistDictionary(values: keys, file: "x.plist")) == kind)
  }

  /// A property list whose name and content say nothing is a warning that lists what content would be recognised.
  @Test(
    arguments: [
      ["Key": "value"], ["com.apple.developer.siri": true, "Label": "x"], ["CFBundleIdentifierX": 1, "Other": 2],
    ] as [[String: any Sendable]])
  func anUnknownPropertyListSaysWhatWouldBeRecognised(_ keys: [String: any Sendable]) throws {
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let url = directory.file("Settings.plist")
    try writePlist(keys, to: url)
    let diagnostics = Validator().validate(path: url.path)
    // CFBundleIdentifierX starts with CFBundle: recognised (an Info.plist's key of Apple's prefix), the control.
    if keys["CFBundleIdentifierX"] != nil {
      #expect(!diagnostics.contains { $0.rule == .unknownFile }, "\(diagnostics)")
      return
    }
    #expect(diagnostics.map(\.rule) == [.unknownFile], "\(diagnostics)")
    let diagnostic = try #require(diagnostics.first)
    #expect(diagnostic.severity == .warning)
    #expect(diagnostic.message.contains("neither its name nor its content says"))
    for words in ["CFBundle", "NSExtension", "INIntentDefinitionModelVersion", "IntentPhrases", "com.apple."] {
      #expect(diagnostic.fix?.contains(words) == true, "\(diagnostic)")
    }
    #expect(diagnostic.fix?.contains("name it Info.plist") == true)
  }

  /// A source folder whose manifests all have other names is still a project: the app, the extensions, the
  /// definition, the vocabulary and the entitlements are found by content. Clean (else `intent-undefined`,
  /// `intent-phrases-missing` and `app-group-not-shared` would say which was missed), and a rule between files fires.
  @Test func aSourceFolderIsWalkedByContent() throws {
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let root = directory.file("Examples")
    try FileManager.default.copyItem(at: Self.examples, to: root)
    for (old, new) in [
      ("Rooms/Info.plist", "Rooms/Rooms-App.xml"), ("RoomsIntents/Info.plist", "RoomsIntents/Extension.plist"),
      ("RoomsUI/Info.plist", "RoomsUI/UI"), ("Rooms/Base.lproj/Intents.intentdefinition", "Rooms/Definitions.xml"),
      ("Rooms/Base.lproj/AppIntentVocabulary.plist", "Rooms/Base.lproj/Phrases.plist"),
      ("Rooms/Rooms.entitlements", "Rooms/Rights.plist"),
      ("RoomsIntents/RoomsIntents.entitlements", "RoomsIntents/Rights.plist"),
    ] {
      try FileManager.default.moveItem(at: root.appendingPathComponent(old), to: root.appendingPathComponent(new))
    }
    let clean = Validator().validate(path: root.path)
    #expect(clean.isEmpty, "\(clean.map(\.description))")

    try Edit.attributes(root.appendingPathComponent("RoomsIntents/Extension.plist")) {
      $0["IntentsSupported"] = ["BookRoomIntent", "OpenDoorIntent", "BookDeskIntent"]
    }
    let diagnostics = Validator().validate(path: root.path)
    #expect(
      diagnostics.map(\.rule) == [.intentUndefined, .intentPhrasesMissing], "\(diagnostics.map(\.description))")
  }

  /// A folder of several apps' sources (Sources/Examples: Rooms and Ascent) is checked as one project per app: each
  /// extension with the app its bundle identifier extends, each definition with the app whose folders hold it. The
  /// control: Ascent's extension listing Rooms' BookRoomIntent is told that Ascent defines no such intent, which a
  /// folder taken as one pool of files would not see.
  @Test func aFolderOfSeveralAppsIsOneProjectPerApp() throws {
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let root = directory.file("Examples")
    try FileManager.default.copyItem(at: Self.examples, to: root)
    let clean = Validator().validate(path: root.path)
    #expect(clean.isEmpty, "\(clean.map(\.description))")

    try Edit.attributes(root.appendingPathComponent("AscentIntents/Info.plist")) {
      $0["IntentsSupported"] = ["INStartWorkoutIntent", "BookRoomIntent"]
    }
    let diagnostics = Validator().validate(path: root.path)
    let undefined = diagnostics.filter { $0.rule == .intentUndefined }
    #expect(undefined.count == 1 && undefined[0].file.hasSuffix("AscentIntents/Info.plist"), "\(diagnostics)")
    #expect(undefined.first?.message.contains("BookRoomIntent") == true)
  }

  /// An extension belongs to the app with the longest identifier that prefixes its own: RoomsPro's
  /// (com.example.rooms.pro.RoomsProIntents) is RoomsPro's, not Rooms', whichever folder comes first. The control: the
  /// same folder validates with errors when the extension's identifier names Rooms' and lists what Rooms' lists.
  @Test func anExtensionBelongsToTheLongestPrefixingApp() throws {
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let root = directory.file("Examples")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let fm = FileManager.default
    for name in ["Rooms", "RoomsIntents", "RoomsUI"] {
      try fm.copyItem(at: Self.examples.appendingPathComponent(name), to: root.appendingPathComponent(name))
    }
    try fm.copyItem(at: Self.examples.appendingPathComponent("Rooms"), to: root.appendingPathComponent("RoomsPro"))
    try fm.copyItem(
      at: Self.examples.appendingPathComponent("RoomsIntents"), to: root.appendingPathComponent("RoomsProIntents"))
    for file in try fm.contentsOfDirectory(atPath: root.appendingPathComponent("RoomsPro").path)
    where file.hasSuffix(".swift") {
      try fm.removeItem(at: root.appendingPathComponent("RoomsPro/" + file))
    }
    try Edit.plist(root.appendingPathComponent("RoomsPro/Info.plist")) {
      $0["CFBundleIdentifier"] = "com.example.rooms.pro"
      $0["CFBundleName"] = "RoomsPro"
      $0["CFBundleDisplayName"] = "Rooms Pro"
    }
    try Edit.plist(root.appendingPathComponent("RoomsProIntents/Info.plist")) {
      $0["CFBundleIdentifier"] = "com.example.rooms.pro.RoomsProIntents"
    }
    let clean = Validator().validate(path: root.path)
    #expect(!clean.hasErrors, "\(clean.map(\.description))")
    #expect(!clean.contains { $0.rule == .intentSupportedTwice }, "\(clean.map(\.description))")

    try Edit.plist(root.appendingPathComponent("RoomsProIntents/Info.plist")) {
      $0["CFBundleIdentifier"] = "com.example.rooms.RoomsProIntents"
    }
    let control = Validator().validate(path: root.path)
    #expect(control.contains { $0.rule == .intentSupportedTwice }, "\(control.map(\.description))")
  }

  /// In a folder, a file that begins as a property list but does not parse is a `plist` error (it may be a
  /// manifest); a link to one is not read, nor is a FIFO (which would block a reader), nor a file that does not
  /// begin as a property list.
  @Test func aFolderReadsOnlyRegularFilesThatBeginAsPropertyLists() throws {
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let root = directory.file("Project")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: Self.examples.appendingPathComponent("RoomsIntents/Info.plist"), to: root.appendingPathComponent("Ext.xml"))
    let broken = Data("<?xml version=\"1.0\"?>\n<plist>\n<dict>\n<key>CFBundleName</key>\n</plist>\n".utf8)
    try broken.write(to: directory.file("Broken.xml"))
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("Linked.xml"), withDestinationURL: directory.file("Broken.xml"))
    #expect(mkfifo(root.appendingPathComponent("Pipe.plist").path, 0o600) == 0)
    try Data("{ \"not\": \"a plist\" }\n<plist>".utf8).write(to: root.appendingPathComponent("notes.json"))
    #expect(Validator().validate(path: root.path).isEmpty, "\(Validator().validate(path: root.path))")

    // The control: the same broken file, copied in, is reported with the parser's line.
    try broken.write(to: root.appendingPathComponent("Copied.xml"))
    let diagnostics = Validator().validate(path: root.path)
    #expect(diagnostics.map(\.rule) == [.plist], "\(diagnostics)")
    #expect(diagnostics.first?.file == root.appendingPathComponent("Copied.xml").path)
    #expect(diagnostics.first?.message.contains("at line 5") == true, "\(diagnostics)")
  }

  /// A file given on its own is read for its content only when it is a regular file, not through a link.
  @Test func aLinkOrAFIFOGivenAloneIsNotRead() throws {
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let target = directory.file("MyApp.plist")
    try FileManager.default.copyItem(at: Self.examples.appendingPathComponent("Rooms/Info.plist"), to: target)
    #expect(Validator().validate(path: target.path).isEmpty)  // the control
    let link = directory.file("Linked.plist")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    let linked = Validator().validate(path: link.path)
    #expect(linked.map(\.rule) == [.plist], "\(linked)")
    #expect(linked.first?.message.contains("is a symbolic link") == true, "\(linked)")
    #expect(linked.first?.fix?.contains("validate the file it points to") == true, "\(linked)")

    let fifo = directory.file("Pipe.plist")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let piped = Validator().validate(path: fifo.path)
    #expect(piped.first?.message.contains("is a FIFO, not a regular file") == true, "\(piped)")
  }

  /// Content is read up to 16 MiB: a larger file that begins as a property list is refused, not read; one of
  /// exactly 16 MiB is read (the control: it then fails to parse, as its padding is no property list).
  @Test(arguments: [1, 0])
  func contentIsReadWithASizeLimit(over: Int) throws {
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let url = directory.file("Huge.xml")
    var bytes = Data("<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n".utf8)
    bytes.append(Data(repeating: 0x20, count: Validator.maximumManifestSize + over - bytes.count))
    try bytes.write(to: url)
    let limit = "is \(Validator.maximumManifestSize + over) bytes, larger than the 16777216-byte limit"
    let alone = Validator().validate(path: url.path)
    let inFolder = Validator().validate(path: directory.path)
    #expect(alone.map(\.rule) == [.plist])
    #expect(inFolder.map(\.rule).first == .plist)
    if over > 0 {
      #expect(alone.first?.message == limit, "\(alone)")
      #expect(inFolder.first?.message == limit, "\(inFolder)")
    } else {
      #expect(alone.first?.message.contains("is not a valid property list") == true, "\(alone)")
      #expect(inFolder.first?.message.contains("is not a valid property list") == true, "\(inFolder)")
    }
  }

  /// Broken files of every kind, by name and by content: each finding says what is wrong where (the parser's line
  /// for XML) and how to fix it with what a Linux user has (`assistant validate FILE`), never a macOS-only tool.
  @Test func noFindingNamesAMacOSOnlyTool() throws {
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let names = [
      "Info.plist", "MyApp.plist", "Rooms.entitlements", "Intents.intentdefinition", "AppIntentVocabulary.plist",
      "Intents.strings", "Other.plist", "Definitions.xml",
    ]
    let contents: [(String, Data)] = try [
      ("empty", Data()),
      ("truncated", Data("<?xml version=\"1.0\"?>\n<plist>\n<dict>\n<key>CFBundleIdentifier</key>\n".utf8)),
      (
        "unclosed",
        Data("<?xml version=\"1.0\"?>\n<plist>\n<dict>\n<key>A</key><string>x</strin>\n</dict></plist>".utf8)
      ),
      ("array", PropertyListSerialization.data(fromPropertyList: ["a"], format: .xml, options: 0)),
      ("binary garbage", Data("bplist00garbage".utf8)),
      (
        "definition without intents",
        PropertyListSerialization.data(
          fromPropertyList: ["INIntentDefinitionModelVersion": "1"], format: .xml, options: 0)
      ),
      (
        "intent without a name",
        PropertyListSerialization.data(
          fromPropertyList: ["INIntentDefinitionModelVersion": "1", "INIntents": [["INIntentTitle": "x"]]],
          format: .xml, options: 0)
      ),
      (
        "wrong types",
        PropertyListSerialization.data(
          fromPropertyList: [
            "CFBundleIdentifier": 7, "com.apple.security.application-groups": "x", "IntentPhrases": "x",
          ], format: .xml, options: 0)
      ),
      ("unknown", PropertyListSerialization.data(fromPropertyList: ["Key": 1], format: .xml, options: 0)),
    ]
    var diagnostics: [Diagnostic] = []
    for name in names {
      for (variant, data) in contents {
        let folder = directory.file(variant.replacingOccurrences(of: " ", with: "-"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try data.write(to: folder.appendingPathComponent(name))
        diagnostics += Validator().validate(path: folder.appendingPathComponent(name).path)
      }
    }
    for folder in try FileManager.default.contentsOfDirectory(at: directory.url, includingPropertiesForKeys: nil) {
      diagnostics += Validator().validate(path: folder.path)
    }
    #expect(diagnostics.count > names.count * contents.count)
    #expect(MacOSOnlyTools.mentions(diagnostics).isEmpty, "\(MacOSOnlyTools.mentions(diagnostics))")
    // Where a property list does not parse, the fix is a command a Linux user has, and XML errors name a line.
    let unparsed = diagnostics.filter { $0.message.contains("is not a valid property list") }
    #expect(!unparsed.isEmpty)
    for diagnostic in unparsed {
      #expect(diagnostic.fix?.contains("`assistant validate \(diagnostic.file)`") == true, "\(diagnostic)")
    }
    #expect(unparsed.contains { $0.message.contains("line 4") }, "\(unparsed.map(\.message))")
    // The control: the check finds a macOS-only tool where there is one.
    let old = Diagnostic(
      .error, .plist, file: "x", "is not a valid property list", fix: "check it with `plutil -lint`")
    let xcode = Diagnostic(
      .warning, .responseCodes, file: "x", "no response", fix: "define it in Xcode's intent editor")
    #expect(MacOSOnlyTools.mentions([old, xcode]).count == 2)
  }

  /// `validate` of a missing path exits 66 (`noInput`); `install` of one says the same finding, with the same status.
  @Test func aMissingPathIsNoInputForValidateAndInstall() async throws {
    let path = "/nonexistent/intenthost/X.app"
    let diagnostics = Validator().validate(path: path)
    #expect(diagnostics == [Validator.missing(path)])
    #expect(Validator.exitStatus(for: diagnostics) == .noInput)
    #expect(AssistantHost.ExitStatus.noInput.rawValue == 66)
    let directory = try TemporaryDirectory("assistanthost-recognition")
    defer { directory.remove() }
    let home = try AssistantHome(root: directory.file("home").path, environment: [:])
    let error = try await #require(throws: HostError.self) { try await home.install(from: URL(fileURLWithPath: path)) }
    #expect(error.status == .noInput)
    #expect(error.message.contains(Validator.missing(path).shown), "\(error)")
    #expect(error.printed.contains("/nonexistent/intenthost/X.app: error: does not exist [file-missing]\n"))

    // A path that exists but is not a folder stays a data error (65), saying what it is.
    let file = directory.file("MyApp-Info.plist")
    try FileManager.default.copyItem(at: Self.examples.appendingPathComponent("Rooms/Info.plist"), to: file)
    let notAFolder = try await #require(throws: HostError.self) { try await home.install(from: file) }
    #expect(notAFolder.status == .dataError)
    #expect(notAFolder.message.contains("it is a regular file, not a bundle folder"), "\(notAFolder)")
    #expect(notAFolder.message.contains("`assistant validate \(file.path)`"), "\(notAFolder)")
  }

  @Test(arguments: [
    ([Diagnostic](), AssistantHost.ExitStatus.success),
    ([Diagnostic(.warning, .unknownFile, file: "x", "w")], .success),
    ([Diagnostic(.error, .plist, file: "x", "e")], .dataError),
    ([Diagnostic(.error, .plist, file: "x", "e"), Validator.missing("/y")], .noInput),
  ])
  func theExitStatusOfValidate(_ diagnostics: [Diagnostic], _ status: AssistantHost.ExitStatus) {
    #expect(Validator.exitStatus(for: diagnostics) == status)
  }
}
