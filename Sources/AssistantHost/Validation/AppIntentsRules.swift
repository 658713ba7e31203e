import AppIntentsMetadata
import BundleManifest
import Foundation

extension Validator {
  /// Whether `url` is App Intents metadata given on its own: a `Metadata.appintents` folder, or an
  /// `extract.actionsdata` file (its folder is then the metadata folder).
  static func isAppIntentsMetadata(_ url: URL, isDirectory: Bool) -> Bool {
    isDirectory
      ? url.lastPathComponent == MetadataReader.folderName : url.lastPathComponent == MetadataReader.actionsDataName
  }

  /// App Intents metadata on its own: the folder's `extract.actionsdata` and `version.json`, and the
  /// `AppShortcuts.strings` tables of the folder that holds it, with every rule of docs/VALIDATION.md's "App
  /// Intents", then Apple's closing line after an error, as in a bundle.
  package func validateAppIntentsMetadata(_ url: URL, isDirectory: Bool) -> [Diagnostic] {
    let folder = isDirectory ? url : url.deletingLastPathComponent()
    do {
      let metadata = try AppIntentsMetadataFolder.load(folder: folder, bundle: folder.deletingLastPathComponent())
      var diagnostics = metadata.findings.map(Diagnostic.init)
      if diagnostics.hasErrors {
        diagnostics.append(Diagnostic(MetadataValidator.haltingFinding(file: metadata.actionsDataFile)))
      }
      return diagnostics
    } catch let error as ManifestError {
      return [Diagnostic(error)]
    } catch {
      return [Diagnostic(.error, .appIntentsMetadata, file: folder.path, "\(error)")]
    }
  }
}
