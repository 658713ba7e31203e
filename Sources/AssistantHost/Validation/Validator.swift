import BundleManifest
import Foundation
import Understanding

/// Apple's rules for SiriKit manifests, checked on a bundle, a folder of sources, or single files. Each finding is a
/// `Diagnostic` naming the file, the key path, the severity, the rule and the fix; docs/VALIDATION.md lists the rules.
package struct Validator: Sendable {
  /// Build settings given on the command line (`--setting NAME=VALUE`), over each bundle's own.
  package var settings: [String: String]
  /// The home whose folders no read-only exception may reach (`entitlement-read-only-path`); nil: the one the
  /// environment names (`ASSISTANT_HOME`, ...), if any.
  package var home: AssistantHome?

  package init(settings: [String: String] = [:], home: AssistantHome? = nil) {
    self.settings = settings
    self.home = home
  }

  // MARK: - Entry points

  /// Validates what `path` is: an `.app` bundle, App Intents metadata (a `Metadata.appintents` folder or its
  /// `extract.actionsdata`), a folder of sources, or one file.
  package func validate(path: String) -> [Diagnostic] {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      return [Self.missing(url.path)]
    }
    if Self.isAppIntentsMetadata(url, isDirectory: isDirectory.boolValue) {
      return validateAppIntentsMetadata(url, isDirectory: isDirectory.boolValue)
    }
    if !isDirectory.boolValue { return validateFile(url) }
    if url.pathExtension == "app" { return validateBundle(at: url) }
    return validateSources(in: url)
  }

  /// The finding for a path that does not exist: what `validate` reports and `install` refuses with, both with
  /// exit status 66 (`ExitStatus.noInput`).
  package static func missing(_ path: String) -> Diagnostic {
    Diagnostic(.error, .fileMissing, file: path, "does not exist", fix: "check the path")
  }

  /// The exit status of `assistant validate` for its findings: 66 (`noInput`) when a path does not exist, else 65
  /// (`dataError`) when there is an error, else 0 (warnings and notes only).
  package static func exitStatus(for diagnostics: [Diagnostic]) -> ExitStatus {
    if diagnostics.contains(where: { $0.rule == .fileMissing }) { return .noInput }
    return diagnostics.hasErrors ? .dataError : .success
  }
}
