import Foundation
import Testing

/// The toolchain's `swiftc`, to type-check source against the modules of the built package (generated code, code
/// that must not compile).
public enum SwiftCompiler {
  /// `swiftc` on PATH, or nil.
  public static let path: String? = {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    return folders.map { $0 + "/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  /// Whether type-checking can run here: `swiftc` is on PATH and the package is built (ExtensionSDK's module).
  public static var isAvailable: Bool {
    path != nil
      && FileManager.default.fileExists(
        atPath: PackagePaths.binaries.appendingPathComponent("Modules/ExtensionSDK.swiftmodule").path)
  }

  public static let unavailable: Comment = "swiftc is not on PATH, or the package is not built (.build/debug)"

  /// Type-checks `source` (Swift 6 mode, a warning is an error as in this package's build) with the built package's modules importable: `import ExtensionSDK` works as
  /// in a target that depends on it.
  /// - Returns: how swiftc ended, and its diagnostics in `stderr`.
  public static func typeCheck(_ source: String, named name: String = "Checked.swift") async throws -> CommandResult {
    guard let path else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "swiftc"]) }
    let folder = try TemporaryDirectory("intenthost-typecheck")
    defer { folder.remove() }
    let file = folder.file(name)
    try Data(source.utf8).write(to: file)
    let built = PackagePaths.binaries
    // The C modules under the Swift ones (CIntentHostSystem below IntentHostSystem) are found by their module maps.
    let moduleMaps = try FileManager.default.contentsOfDirectory(atPath: built.path).filter { $0.hasSuffix(".build") }
      .sorted().map { built.appendingPathComponent($0).appendingPathComponent("module.modulemap").path }
      .filter { FileManager.default.fileExists(atPath: $0) }
    let arguments =
      ["-typecheck", "-swift-version", "6", "-warnings-as-errors", "-I", built.appendingPathComponent("Modules").path]
      + moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] } + [file.path]
    return try await runCommand(path, arguments, timeout: .seconds(300))
  }
}
