import AppIntentsMetadata

/// One finding of the validator: which file and key, how bad, what is wrong, and how to fix it.
public struct Diagnostic: Sendable, Equatable, Codable, CustomStringConvertible {
  public enum Severity: String, Sendable, Codable, Comparable {
    case error, warning, note

    public static func < (a: Severity, b: Severity) -> Bool {
      let order: [Severity] = [.error, .warning, .note]
      return order.firstIndex(of: a)! < order.firstIndex(of: b)!
    }
  }

  public var severity: Severity
  /// The rule, e.g. `.bundleIDPrefix`, printed by its stable name "bundle-id-prefix" (docs/VALIDATION.md lists them).
  public var rule: Rule
  public var file: String
  /// A key path inside the file, e.g. "NSExtension.NSExtensionAttributes.IntentsSupported[0]"; empty for the file.
  public var keyPath: String
  public var message: String
  public var fix: String?

  public init(
    _ severity: Severity, _ rule: Rule, file: String, keyPath: String = "", _ message: String, fix: String? = nil
  ) {
    self.severity = severity
    self.rule = rule
    self.file = file
    self.keyPath = keyPath
    self.message = message
    self.fix = fix
  }

  /// A parse or type error of the loaders, as a diagnostic.
  public init(_ error: ManifestError, rule: Rule = .plist) {
    self.init(.error, rule, file: error.file, keyPath: error.keyPath, error.problem, fix: error.fix)
  }

  /// A finding about App Intents metadata (AppIntentsMetadata's reader and validator), as a diagnostic: its JSON
  /// path (or strings key) is the key path, its rule the same name.
  public init(_ finding: MetadataFinding) {
    let severity: Severity
    switch finding.severity {
    case .error: severity = .error
    case .warning: severity = .warning
    case .note: severity = .note
    }
    self.init(
      severity, Rule(finding.rule), file: finding.file, keyPath: finding.path, finding.message, fix: finding.fix)
  }

  /// `FILE: KEYPATH: error: message [rule]` and, on a second line, the fix.
  public var description: String {
    var text = file
    if !keyPath.isEmpty { text += ": \(keyPath)" }
    text += ": \(severity.rawValue): \(message) [\(rule)]"
    if let fix { text += "\n    fix: \(fix)" }
    return text
  }
}

extension Array where Element == Diagnostic {
  public var errors: [Diagnostic] { filter { $0.severity == .error } }
  public var hasErrors: Bool { contains { $0.severity == .error } }
}
