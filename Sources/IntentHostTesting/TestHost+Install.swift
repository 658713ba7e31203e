import AssistantHost
import BundleManifest
import Foundation
import IntentHostSystem

/// An app the test host installed.
public struct InstalledApp: Sendable, Hashable {
  /// Its name (`CFBundleName`), e.g. `Rooms`.
  public var name: String
  /// Its bundle identifier, e.g. `com.example.rooms`.
  public var bundleIdentifier: String
  /// The validator's warnings about it, one line each (errors refuse the install).
  public var warnings: [String]

  /// An app, to compare with what `install` returns.
  public init(name: String, bundleIdentifier: String, warnings: [String]) {
    self.name = name
    self.bundleIdentifier = bundleIdentifier
    self.warnings = warnings
  }
}

/// Where bundles to install come from: a folder of assembled `.app` bundles (`AssembledBundles`), or a package's
/// build output.
///
/// - Important: This is the seam for `assistant build`, which assembles a package's bundles: its result conforms by
///   listing the bundles it wrote, and `TestHost.install(from:)` installs them.
public protocol BundleSource: Sendable {
  /// The `.app` bundles to install, in order.
  /// - Throws: what making or finding them throws.
  func bundles() async throws -> [URL]
}

/// The `.app` bundles in a folder, sorted by name: e.g. the examples `Scripts/assemble-bundles .build/debug DIR`
/// writes into `DIR`.
///
/// ```swift
/// try await host.install(from: AssembledBundles(folder: URL(fileURLWithPath: ".build/bundles")))
/// ```
public struct AssembledBundles: BundleSource {
  /// The folder that holds the bundles.
  public var folder: URL

  /// The bundles in `folder`.
  public init(folder: URL) { self.folder = folder }

  /// - Throws: `TestHostError(.noInput)` when the folder cannot be listed or holds no `.app`.
  public func bundles() async throws -> [URL] {
    let folder = folder
    return try await offloaded { () throws(TestHostError) -> [URL] in
      let names: [String]
      do {
        names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      } catch {
        throw TestHostError(.noInput, "cannot list the bundles in \(folder.path): \(error)")
      }
      let apps = names.filter { $0.hasSuffix(".app") }.sorted()
      guard !apps.isEmpty else { throw TestHostError(.noInput, "\(folder.path) holds no .app bundle") }
      return apps.map { folder.appendingPathComponent($0) }
    }
  }
}

/// A package's own bundles, assembled as `assistant build` assembles them from the package's manifest folders and the
/// products `swift test` has just built (no second `swift build`: it would wait for the one running the tests), into
/// a temporary folder.
///
/// ```swift
/// let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
///   .deletingLastPathComponent()  // Tests/CoffeeTests/CoffeeTests.swift
/// try await host.install(from: PackageBundles(package: package))
/// ```
public struct PackageBundles: BundleSource {
  /// The package's folder (its bundles' folders below it).
  public var package: URL
  /// Where the built products are: unless given, the folder of the running test product (`swift test` builds the
  /// package's executables beside it, whatever its `--scratch-path` or `-c`), else the package's `.build/debug`.
  public var binaries: URL

  /// - Parameters:
  ///   - package: the package's folder.
  ///   - binaries: the built products' folder; nil for the running test product's folder (`NAMEPackageTests.xctest`
  ///     in `.build/debug` for a plain `swift test`), else `<package>/.build/debug`.
  public init(package: URL, binaries: URL? = nil) {
    self.package = package
    self.binaries = binaries ?? Self.testProductsFolder ?? package.appendingPathComponent(".build/debug")
  }

  /// The folder of the running executable when it is a SwiftPM test product (its name ends in `.xctest`).
  static var testProductsFolder: URL? {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return executable.pathExtension == "xctest" ? executable.deletingLastPathComponent() : nil
  }

  /// Assembles the bundles (validated as `assistant build` validates them) into a new temporary folder.
  /// - Throws: `TestHostError` with `assistant build`'s status and message: a bundle that does not validate lists
  ///   its errors (65); a product not built names it (66).
  public func bundles() async throws -> [URL] {
    let (package, binaries) = (package, binaries)
    return try await offloaded { () throws(TestHostError) -> [URL] in
      do {
        let sources = try BundleSources.find(in: package)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
          "intenthost-bundles-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let assembler = BundleAssembler(sources: sources, output: output, binaries: binaries)
        let assembled = try assembler.assemble()
        let errors = assembled.flatMap(\.diagnostics).errors
        guard errors.isEmpty else {
          throw HostError(.dataError, errors.map(\.shown).joined(separator: "\n"))
        }
        return assembled.map(\.url)
      } catch {
        throw TestHostError(error)
      }
    }
  }
}

extension TestHost {
  /// Installs the app bundle at `bundle` (an `.app` folder), as `assistant install` does: validated, copied into the
  /// host's home (the source is not changed), its app groups and containers made ready.
  ///
  /// ```swift
  /// let rooms = try await host.install(bundles.appendingPathComponent("Rooms.app"))
  /// #expect(rooms.bundleIdentifier == "com.example.rooms")
  /// ```
  /// - Returns: the app installed.
  /// - Throws: `TestHostError` as `assistant install` fails: `noInput` (66) for a missing path, `dataError` (65)
  ///   for a bundle with errors (listed in the message), `refused` (77) for a bundle another team owns.
  @discardableResult
  public func install(_ bundle: URL) async throws -> InstalledApp {
    try checkOpen()
    return try await reportingErrors {
      let (app, diagnostics) = try await engineHome.install(from: bundle)
      return InstalledApp(
        name: app.name, bundleIdentifier: app.identifier.rawValue,
        warnings: diagnostics.filter { $0.severity == .warning }.map { "\($0)" })
    }
  }

  /// Installs every bundle `source` gives, in order: a folder of assembled bundles (`AssembledBundles`), or a
  /// package's build output.
  /// - Returns: the apps installed.
  /// - Throws: what `source` throws; `TestHostError` as `install(_:)`, for the first bundle that fails.
  @discardableResult
  public func install(from source: some BundleSource) async throws -> [InstalledApp] {
    var installed: [InstalledApp] = []
    for bundle in try await source.bundles() { installed.append(try await install(bundle)) }
    return installed
  }

  /// The installed apps, sorted by their folder's name.
  /// - Throws: `TestHostError` when the home cannot be read.
  public func installedApps() async throws -> [InstalledApp] {
    let home = engineHome
    return try await reportingErrors {
      try await offloaded { () throws in try home.installedApps() }.map {
        InstalledApp(name: $0.name, bundleIdentifier: $0.identifier.rawValue, warnings: [])
      }
    }
  }

  /// Uninstalls the app called `app` (its name or bundle id), as `assistant uninstall` does: its containers and app
  /// groups are kept.
  /// - Throws: `TestHostError(.noMatch)` when no installed app answers to it.
  public func uninstall(_ app: String) async throws {
    try checkOpen()
    let home = engineHome
    try await reportingErrors { _ = try await offloaded { () throws in try home.uninstall(app) } }
  }
}
