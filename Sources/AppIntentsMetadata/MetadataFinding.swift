/// One finding about App Intents metadata, from the reader (a key it does not read) or the validator (a rule
/// broken): which file, where in it, how bad, what is wrong and how to fix it. BundleManifest turns each into its
/// `Diagnostic` with the same rule name; docs/VALIDATION.md lists the rules.
public struct MetadataFinding: Sendable, Hashable, CustomStringConvertible {
  public enum Severity: String, Sendable, Hashable {
    case error, warning, note
  }

  public var severity: Severity
  public var rule: MetadataRule
  /// The file: `…/Metadata.appintents/extract.actionsdata`, or a `LANG.lproj/AppShortcuts.strings`.
  public var file: String
  /// Where in the file: a JSON path (`actions.OrderFuelIntent.parameters[0].title`) or a strings key; empty for the
  /// whole file.
  public var path: String
  public var message: String
  public var fix: String?

  public init(
    _ severity: Severity, _ rule: MetadataRule, file: String, path: String = "", _ message: String,
    fix: String? = nil
  ) {
    self.severity = severity
    self.rule = rule
    self.file = file
    self.path = path
    self.message = message
    self.fix = fix
  }

  /// `FILE: PATH: error: message [rule]` and, on a second line, the fix (BundleManifest's `Diagnostic` form).
  public var description: String {
    located(file, path) + ": \(severity.rawValue): \(message) [\(rule.rawValue)]"
      + (fix.map { "\n    fix: \($0)" } ?? "")
  }
}

/// The rules of App Intents metadata, by the stable names `assistant validate` prints (docs/VALIDATION.md).
public enum MetadataRule: String, Sendable, Hashable, CaseIterable {
  /// The files parse: JSON within the size and nesting limits, each key of the type Xcode writes, every identifier
  /// well formed.
  case metadata = "app-intents-metadata"
  /// A key, a `valueType` tag or a primitive type IntentHost does not read (a note).
  case unknownKey = "app-intents-unknown-key"
  /// `version` is the one IntentHost knows.
  case version = "app-intents-version"
  /// Every phrase has exactly one `${applicationName}` (Apple's words).
  case utterance = "app-shortcut-utterance"
  /// Every App Shortcut has a phrase (Apple's words).
  case phraseMissing = "app-shortcut-phrase-missing"
  /// A phrase's parameter is an `AppEntity` or `AppEnum` parameter (Apple's words).
  case parameterType = "app-shortcut-parameter-type"
  /// A phrase's parameter is a parameter of the shortcut's intent.
  case parameterUnknown = "app-shortcut-parameter-unknown"
  /// A phrase has at most one parameter.
  case parameterCount = "app-shortcut-parameter-count"
  /// An app has at most 10 App Shortcuts.
  case tooManyShortcuts = "app-shortcuts-too-many"
  /// Each `actionIdentifier` names an action of the file.
  case actionUnknown = "app-shortcut-action-unknown"
  /// A bundle has one set of `AppShortcuts.strings` tables: at most one per language, all in `LANG.lproj` folders.
  case stringsFiles = "app-shortcuts-strings-files"
  /// Each entity's `defaultQueryIdentifier` names a query of the file.
  case defaultQuery = "app-intents-default-query"
  /// Actions, parameters, enums, enum cases and entities have a title.
  case titleMissing = "app-intents-title-missing"
  /// Enum identifiers are unique, and case identifiers within an enum.
  case duplicateIdentifier = "app-intents-duplicate-identifier"
  /// An enum parameter's default value is a case of its enum.
  case defaultValue = "app-intents-default-value"
  /// Two actions of a file do not have the same title (a warning).
  case duplicateTitle = "app-intents-duplicate-title"
  /// The `AppEntity` or `AppEnum` a parameter or a property names is one the file defines.
  case typeUnknown = "app-intents-type-unknown"
  /// After the errors of App Intents metadata, Apple's closing line.
  case haltingError = "app-intents-halting-error"
}

/// Why `extract.actionsdata` or `version.json` cannot be read: the file, the JSON path, what is wrong, the fix.
/// The reader's only failure; it never traps on any input.
public struct MetadataError: Error, Sendable, Hashable, CustomStringConvertible {
  public var file: String
  /// A JSON path in the file (`actions.OrderFuelIntent.parameters[0].name`); empty for the whole file.
  public var path: String
  public var problem: String
  public var fix: String?

  public init(file: String, path: String = "", problem: String, fix: String? = nil) {
    self.file = file
    self.path = path
    self.problem = problem
    self.fix = fix
  }

  /// The error as an `app-intents-metadata` finding.
  public var finding: MetadataFinding { MetadataFinding(.error, .metadata, file: file, path: path, problem, fix: fix) }

  public var description: String { located(file, path) + ": \(problem)" + (fix.map { " (\($0))" } ?? "") }
}

/// `FILE: PATH`, or `FILE` for the whole file.
private func located(_ file: String, _ path: String) -> String { path.isEmpty ? file : "\(file): \(path)" }
