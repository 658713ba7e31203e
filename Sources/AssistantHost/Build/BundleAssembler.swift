import BundleManifest
import Foundation
import IntentHostSystem
import UntrustedText

/// Builds a package's executables with `swift build` and assembles its app bundles from them and the manifest folders,
/// as Xcode's build phases do (`assistant build`): each app's folder becomes `NAME.app` (its Info.plist,
/// entitlements, `.lproj` folders, definitions, a static `Metadata.appintents`, its executable), each extension's
/// `NAME.appex` goes into the app's `PlugIns` (Intents, Intents UI) or `Extensions` (App Intents, whose
/// `Metadata.appintents` its executable writes with `--emit-appintents-metadata`, as Xcode's metadata processor
/// does at build time), then each bundle is validated.
///
/// Every method blocks (on `swift build`, on the disk): call it off the cooperative pool.
package struct BundleAssembler: Sendable {
  /// A build configuration of `swift build -c`.
  package enum Configuration: String, Sendable, CaseIterable {
    case debug, release
  }

  /// An assembled app bundle and what validating it found.
  package struct Assembled: Sendable {
    package var name: String
    package var url: URL
    package var extensions: [String]
    package var diagnostics: [Diagnostic]
  }

  package var sources: BundleSources
  package var configuration: Configuration
  /// Where `NAME.app` folders are written: `<package>/.build/bundles` unless given.
  package var output: URL
  /// Where the built products are: `<package>/.build/<configuration>` unless given (`--binaries`).
  package var binaries: URL
  /// Whether `buildProducts` runs `swift build` (no `--binaries` given).
  package var builds: Bool

  /// The seconds an App Intents executable may take to write its metadata.
  static let metadataSeconds = 60

  package init(sources: BundleSources, configuration: Configuration = .debug, output: URL?, binaries: URL?) {
    self.sources = sources
    self.configuration = configuration
    let base = (sources.package ?? sources.root).appendingPathComponent(".build")
    self.output = output ?? base.appendingPathComponent("bundles")
    self.binaries = binaries ?? base.appendingPathComponent(configuration.rawValue)
    builds = binaries == nil
  }

  /// `assistant build`'s and `assistant dev`'s use case: builds the products (unless they were given), assembles
  /// and validates every bundle, and installs them into `home` when given and no bundle has an error.
  /// - Parameter building: called before `swift build` runs (for a progress line).
  /// - Returns: the bundles assembled, and where each was installed (none when a bundle has an error).
  /// - Throws: what `buildProducts`, `assemble` and `AssistantHome.install` throw.
  package func run(
    environment: [String: String], installingInto home: AssistantHome?, building: @Sendable () async -> Void = {}
  ) async throws -> (bundles: [Assembled], installed: [URL]) {
    if builds && !sources.products.isEmpty {
      await building()
      try await offloaded { () throws in try buildProducts(environment: environment) }
    }
    let bundles = try await offloaded { () throws in try assemble(home: home) }
    guard let home, !bundles.flatMap(\.diagnostics).hasErrors else { return (bundles, []) }
    try await home.prepare()
    var installed: [URL] = []
    for bundle in bundles { installed.append(try await home.install(from: bundle.url).app.url) }
    return (bundles, installed)
  }

  /// Where `swift build`'s output goes: shown only when it fails.
  package var log: URL {
    (sources.package ?? sources.root).appendingPathComponent(".build/assistant-build.log")
  }

  /// Builds the package as `swift build` does (every product but the tests, so one invocation plans the build
  /// once), the compiler's output in `log`; nothing when every executable is a script.
  /// - Throws: `HostError(.dataError)` with the end of the log when the build fails, or when it does not make a
  ///   product a bundle names; `.noInput` when no `swift` is on `PATH` or no package holds the sources.
  package func buildProducts(environment: [String: String]) throws {
    let products = sources.products
    guard !products.isEmpty else { return }
    guard let package = sources.package else {
      throw HostError(
        .noInput,
        "cannot build \(sources.root.path): \(products.joined(separator: ", ")) is no file in its bundle's folder and "
          + "no Package.swift is at or above it to build it from")
    }
    guard let swift = Self.executable(named: "swift", in: environment["PATH"] ?? "/usr/bin:/bin") else {
      throw HostError(.noInput, "cannot build \(package.path): no `swift` on PATH; install a Swift toolchain")
    }
    try FileManager.default.createDirectory(
      at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
    let logFile: FileDescriptor
    do {
      logFile = try FileDescriptor.open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode: 0o644)
    } catch {
      throw HostError(.cannotCreate, "cannot write the build log \(log.path): \(error)")
    }
    defer { logFile.close() }
    let arguments = ["build", "--package-path", package.path, "-c", configuration.rawValue]
    let termination = try Self.run(
      swift, arguments: arguments, environment: environment, directory: package.path, output: logFile)
    guard termination == .exited(0) else {
      let tail = Self.tail(of: log, lines: 40).map { "  " + Untrusted.shown($0) }.joined(separator: "\n")
      throw HostError(
        .dataError,
        "the build of \(package.lastPathComponent) failed (swift build \(termination)); the end of \(log.path):\n"
          + tail)
    }
  }

  /// Assembles every app (replacing what `output` had of it), then validates each.
  /// - Parameter home: the home whose installed apps the validation compares with, if any.
  /// - Returns: the bundles, in the order of `sources.apps`.
  /// - Throws: `HostError` naming the bundle, the file and the fix when a file cannot be copied (a link, a missing
  ///   product, a script that is not executable) or an App Intents executable cannot write its metadata.
  package func assemble(home: AssistantHome? = nil) throws -> [Assembled] {
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    var result: [Assembled] = []
    for app in sources.apps {
      let final = output.appendingPathComponent(app.app.name + ".app")
      let staging = output.appendingPathComponent(".\(app.app.name).app.assembling-\(getpid())")
      try? FileManager.default.removeItem(at: staging)
      do {
        try fill(staging, from: app.app)
        for part in app.extensions {
          let folder = staging.appendingPathComponent(
            part.kind == .appIntentsExtension ? AppIntentsExtensionBundle.folderName : "PlugIns")
          try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
          let bundle = folder.appendingPathComponent(part.name + ".appex")
          try fill(bundle, from: part)
          if part.kind == .appIntentsExtension && !part.executableInFolder
            && !FileManager.default.fileExists(atPath: bundle.appendingPathComponent("Metadata.appintents").path)
          {
            try emitMetadata(of: part, in: bundle)
          }
        }
        try replace(final, with: staging)
      } catch {
        try? FileManager.default.removeItem(at: staging)
        throw error
      }
      let diagnostics = Validator(home: home).validate(path: final.path)
      result.append(
        Assembled(name: app.app.name, url: final, extensions: app.extensions.map(\.name), diagnostics: diagnostics))
    }
    return result
  }

  /// Makes `bundle` from `source`: the folder's regular files but Swift sources, its `.lproj` and
  /// `Metadata.appintents` folders, and the executable.
  private func fill(_ bundle: URL, from source: BundleSources.Source) throws {
    let fm = FileManager.default
    try fm.createDirectory(at: bundle, withIntermediateDirectories: false)
    let names = try fm.contentsOfDirectory(atPath: source.folder.path).sorted()
    for name in names where !name.hasPrefix(".") {
      let from = source.folder.appendingPathComponent(name)
      var status = stat()
      guard lstat(from.path, &status) == 0 else { continue }
      switch FileKind(mode: status.st_mode) {
      case .regular where !name.hasSuffix(".swift"):
        try copyFile(from, to: bundle.appendingPathComponent(name), mode: status.st_mode & 0o755)
      case .directory where name.hasSuffix(".lproj") || name == "Metadata.appintents":
        do {
          try BundleTree.copy(from, to: bundle.appendingPathComponent(name))
        } catch let problem as BundleTreeProblem {
          throw HostError(.dataError, "cannot assemble \(source.name): \(problem)")
        }
      case .symbolicLink where Self.isResourceName(name) || name == source.executable:
        throw HostError(
          .dataError,
          "cannot assemble \(source.name): \(Untrusted.shown(from.path)) is a symbolic link; a bundle holds regular "
            + "files and folders only: copy what it points to instead")
      default:
        continue  // Swift sources, the Code/ folder, anything that is no bundle resource
      }
    }
    let executable = bundle.appendingPathComponent(source.executable)
    if source.executableInFolder {
      guard access(executable.path, X_OK) == 0 else {
        throw HostError(
          .dataError,
          "cannot assemble \(source.name): its executable \(source.folder.path)/\(source.executable) is not "
            + "executable; `chmod +x` it (and give a script a #! line)")
      }
      return
    }
    let built = binaries.appendingPathComponent(source.executable)
    guard BundleSources.isRegularFile(built) || FileManager.default.fileExists(atPath: built.path) else {
      throw HostError(
        .noInput,
        "cannot assemble \(source.name): its executable \(source.executable) (CFBundleExecutable) is not in "
          + "\(binaries.path); name an executable product of the package, or put the script in \(source.folder.path)")
    }
    try copyFile(built, to: executable, mode: 0o755)
  }

  /// Runs `EXECUTABLE --emit-appintents-metadata BUNDLE` for an App Intents extension built with the SDK.
  private func emitMetadata(of source: BundleSources.Source, in bundle: URL) throws {
    let executable = bundle.appendingPathComponent(source.executable).path
    let run: BoundedRun
    do {
      run = try runBounded(
        executable, arguments: ["--emit-appintents-metadata", bundle.path], seconds: Self.metadataSeconds,
        outputLimit: 64 << 10)
    } catch {
      throw HostError(
        .dataError, "cannot assemble \(source.name): \(source.executable) --emit-appintents-metadata: \(error)")
    }
    guard run.termination == .exited(0) else {
      let said = String(decoding: run.output.suffix(2000), as: UTF8.self)
      throw HostError(
        .dataError,
        "cannot assemble \(source.name): \(source.executable) --emit-appintents-metadata \(run.termination) (an App "
          + "Intents extension built with the AppIntents SDK writes its Metadata.appintents; one in another "
          + "language puts the folder beside its Info.plist)" + (said.isEmpty ? "" : ":\n" + Untrusted.shown(said)))
    }
  }

  /// Copies one regular file (a new file: `to` must not exist) with the permission bits `mode`.
  private func copyFile(_ from: URL, to: URL, mode: mode_t) throws {
    do throws(SystemError) {
      let input = try FileDescriptor.open(from.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
      defer { input.close() }
      try BundleTree.copyBytes(from: input, to: to.path, mode: mode)
    } catch {
      throw HostError(.ioError, "cannot copy \(Untrusted.shown(from.path)) to \(to.path): \(error)")
    }
  }

  /// Puts `staging` at `final`, replacing what was there.
  private func replace(_ final: URL, with staging: URL) throws {
    let fm = FileManager.default
    let old = final.deletingLastPathComponent().appendingPathComponent(
      ".\(final.lastPathComponent).old-\(getpid())")
    try? fm.removeItem(at: old)
    if fm.fileExists(atPath: final.path) { try fm.moveItem(at: final, to: old) }
    try fm.moveItem(at: staging, to: final)
    try? fm.removeItem(at: old)
  }

  /// Whether a file or folder of this name is one a bundle is assembled from (so a link of that name is refused, not
  /// skipped).
  static func isResourceName(_ name: String) -> Bool {
    [".lproj", ".plist", ".entitlements", ".intentdefinition", ".strings", ".appintents", ".xcconfig"].contains {
      name.hasSuffix($0)
    }
  }

  /// Runs `program` to its end, its output and errors into `output`, stdin on /dev/null, in the caller's process
  /// group (so Ctrl-C stops it too).
  static func run(
    _ program: String, arguments: [String], environment: [String: String], directory: String,
    output: FileDescriptor
  ) throws -> Termination {
    let null = try FileDescriptor.open("/dev/null", O_RDONLY)
    defer { null.close() }
    var options = SpawnOptions(
      executable: program, arguments: [program] + arguments, environment: environment, workingDirectory: directory,
      standardInput: null, standardOutput: output, standardError: output)
    options.newSession = false
    return try runToEnd(options)
  }

  /// Spawns `options` and waits for the process to end: no deadline (a build, or what the user runs, takes what
  /// it takes; Ctrl-C reaches it in the caller's process group).
  package static func runToEnd(_ options: SpawnOptions) throws -> Termination {
    let process = try spawn(options)
    defer { process.pidfd.close() }
    while true {
      if let termination = try process.reap() { return termination }
      _ = try process.pidfd.waitReadable(timeoutMilliseconds: -1)
    }
  }

  /// The last `lines` lines of a file (at most its last 64 KiB).
  static func tail(of file: URL, lines: Int) -> [String] {
    guard let handle = try? FileHandle(forReadingFrom: file) else { return [] }
    defer { try? handle.close() }
    let size = (try? handle.seekToEnd()) ?? 0
    try? handle.seek(toOffset: size > 65536 ? size - 65536 : 0)
    let data = (try? handle.readToEnd()) ?? Data()
    return Array(String(decoding: data, as: UTF8.self).split(separator: "\n").suffix(lines).map(String.init))
  }

  /// The first executable `name` in the folders of `path` (a `PATH` value).
  static func executable(named name: String, in path: String) -> String? {
    for folder in path.split(separator: ":") where !folder.isEmpty {
      let candidate = "\(folder)/\(name)"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }
}
