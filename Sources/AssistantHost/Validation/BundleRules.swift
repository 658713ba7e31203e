import BundleManifest
import Foundation
import Understanding
import UntrustedText

extension Validator {
  /// Validates an app bundle as `assistant install` does.
  package func validateBundle(at url: URL) -> [Diagnostic] {
    // Only regular files and folders, as install requires: nothing is read through a link or from a FIFO.
    do {
      try BundleTree.check(url)
    } catch let problem as BundleTreeProblem {
      return [
        Diagnostic(
          .error, .bundleFileKind, file: problem.file, problem.problem, fix: BundleTreeProblem.fix)
      ]
    } catch {
      return [Diagnostic(.error, .bundleFileKind, file: url.path, "\(error)")]
    }
    do {
      return validate(try AppBundle.load(from: url, settings: settings))
    } catch let error as InvalidBundleNames {
      // The model refuses a bundle with a bad name: those are the findings, until they are fixed.
      return error.diagnostics
    } catch let error as ManifestError {
      return [Diagnostic(error)]
    } catch {
      return [Diagnostic(.error, .plist, file: url.path, "\(error)")]
    }
  }

  /// Every rule for a loaded bundle, executables included.
  package func validate(_ app: AppBundle) -> [Diagnostic] {
    var diagnostics = app.loadDiagnostics
    diagnostics += executableRules(app)
    diagnostics += packageTypeRules(app)
    for url in [app.executableURL] + app.extensions.map(\.executableURL) + app.appIntentsExtensions.map(\.executableURL)
    where ScriptInterpreter.isExecutableFile(url.path) {
      diagnostics += libraryRules(executable: url.path, app: app.url.path)
      diagnostics += scriptRules(executable: url.path, app: app.url.path)
    }
    diagnostics += readOnlyPathRules(app)
    diagnostics += rules(Project(app))
    // The phrases reach their intents (`PhraseBook.check`), once the definitions they use are sound.
    // Warnings here, so install does not refuse an app whose phrases are worded badly; `phrases --check` makes
    // them errors (exit 65). Notes (`phrase-reads-text`) stay notes.
    if diagnostics.errors.isEmpty {
      diagnostics += PhraseBook.check(app).map {
        var warning = $0
        if warning.severity == .error { warning.severity = .warning }
        return warning
      }
    }
    // App Intents last: every finding of the metadata and its phrases, then Apple's closing line after an error.
    diagnostics += app.appIntentsDiagnostics
    return diagnostics
  }

  /// `executable-missing-file`, `executable-not-executable`: the executable each Info.plist of `app` names is in
  /// the bundle, a file (not a folder) and executable.
  func executableRules(_ app: AppBundle) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let fm = FileManager.default
    let bundles =
      [(app.executableURL, app.info)] + app.extensions.map { ($0.executableURL, $0.info) }
      + app.appIntentsExtensions.map { ($0.executableURL, $0.info) }
    for (url, info) in bundles
    where !info.executable.isEmpty && !ScriptInterpreter.isExecutableFile(url.path) {
      let exists = fm.fileExists(atPath: url.path)
      // A folder is "executable" to FileManager (searchable): the kernel refuses to run it.
      let regular = ((try? fm.attributesOfItem(atPath: url.path)[.type]) as? FileAttributeType) != .typeDirectory
      diagnostics.append(
        Diagnostic(
          .error, exists ? .executableNotExecutable : .executableMissingFile, file: info.file,
          keyPath: "CFBundleExecutable",
          "names \(url.lastPathComponent), which is "
            + (exists ? (regular ? "not executable" : "a folder, not a file") : "not in the bundle"),
          fix: exists && regular
            ? "chmod +x \(url.path)" : "build the executable into \(url.deletingLastPathComponent().path)"))
    }
    return diagnostics
  }

  /// The sandbox's rules for an executable's ELF headers (docs/SANDBOX.md, "What it may touch"): its loader in the
  /// system library folders, its RUNPATH/RPATH folders and libraries named by path in the trusted library folders
  /// or the app bundle, the executable itself a file of the bundle. A launch refuses what breaks them.
  func libraryRules(executable: String, app: String) -> [Diagnostic] {
    LibraryGrants.resolve(executable: executable, appBundle: app).problems.map { problem in
      Diagnostic(
        .error, problem.rule, file: problem.file, keyPath: problem.entry,
        "\"\(Untrusted.sanitized(problem.value))\" \(problem.reason), so the sandbox would not grant it",
        fix: problem.fix)
    }
  }

  /// The sandbox's rule for a script's interpreter (docs/SANDBOX.md, "Interpreted extensions"): its `#!` line names
  /// a program of the system (by its absolute path, or `/usr/bin/env NAME` found in the fixed PATH), not one of the
  /// bundle or of a writable folder, not another script, and one the sandbox knows how to grant. A launch refuses
  /// what breaks it.
  func scriptRules(executable: String, app: String) -> [Diagnostic] {
    do {
      _ = try ScriptInterpreter.inspect(executable: executable, appBundle: app)
      return []
    } catch {
      return [error.diagnostic(executable: executable)]
    }
  }
}
