// The entry point of an App Intents extension (or of an app that runs its own intents): serve the host's App
// Intents requests with the intents the `@main` type lists.
import AppIntentsMetadata
import ExtensionProtocol
import ExtensionSDK
import ExtensionTransport

// FoundationEssentials, not Foundation: an extension links the Swift runtime statically, and Foundation's
// internationalization would bring ICU's data with it.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// The `@main` type of an App Intents extension. Swift without macros cannot find the intent types of a module, so
/// this lists them: the one line Apple's framework does not need. The intents a shortcut names are added to them.
///
/// ```swift
/// @main
/// struct FuelOrderIntents: AppIntentsExtension {
///   static let intents: [any AppIntent.Type] = [OrderFuelIntent.self]
///   static let shortcuts: (any AppShortcutsProvider.Type)? = FuelShortcuts.self
/// }
/// ```
///
/// Run by the host, it serves the protocol on stdin and stdout (docs/PROTOCOL.md, "App Intents"). Run as
/// `EXECUTABLE --emit-appintents-metadata DIR`, it writes `DIR/Metadata.appintents` from what it declares.
public protocol AppIntentsExtension {
  static var intents: [any AppIntent.Type] { get }
  static var shortcuts: (any AppShortcutsProvider.Type)? { get }
}

extension AppIntentsExtension {
  public static var shortcuts: (any AppShortcutsProvider.Type)? { nil }

  /// Every intent type: those listed, then those only a shortcut names.
  public static var allIntents: [any AppIntent.Type] {
    var all = intents
    for shortcut in shortcuts?.appShortcuts ?? []
    where !all.contains(where: { $0.identifier == shortcut.intentType.identifier }) {
      all.append(shortcut.intentType)
    }
    return all
  }

  /// Whether the host launched this process to perform App Intents (`INTENTHOST_LAUNCH_REASON=appIntent`), as it
  /// launches an app whose own `Metadata.appintents` declares them, or to perform an `openAppWhenRun` intent. An app
  /// hands such a launch to `main()` and does its own work otherwise:
  ///
  /// ```swift
  /// if PantryAppIntents.isLaunchedToPerform() {
  ///   await PantryAppIntents.main()
  /// } else {
  ///   runCommandLine()
  /// }
  /// ```
  /// - Parameter environment: the process's environment (the default), or another to read.
  public static func isLaunchedToPerform(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> Bool {
    LaunchEnvironment.LaunchReason(environment: environment) == .appIntent
  }

  /// Serves the host; with `--emit-appintents-metadata DIR`, writes the metadata instead (`emitMetadata(into:)`)
  /// and exits with its status.
  public static func main() async {
    let arguments = CommandLine.arguments
    if let flag = arguments.firstIndex(of: "--emit-appintents-metadata") {
      exit(emitMetadata(into: arguments.indices.contains(flag + 1) ? arguments[flag + 1] : nil))
    }
    let digest = try? metadataDocument().digest
    let catalog = IntentCatalog(intents: allIntents)
    await serveMoreMethods(
      MoreMethods(
        methods: [PerformAppIntentRequest.method, AppIntentOptionsRequest.method, EntityQueryRequest.method],
        answer: { message, context in try await catalog.answer(message, context: context) },
        initialized: { result in
          var result = result
          result.appIntentsMetadataDigest = digest
          return result
        }))
  }

  /// Writes `folder/Metadata.appintents/` (`extract.actionsdata` and `version.json`) from what this extension
  /// declares, as Xcode's metadata processor does at build time; the bundle assembly runs it. Prints what went wrong
  /// on stderr.
  /// - Returns: 0; 64 without a folder; 65 when a declared name cannot be an identifier; 73 when the files cannot be
  ///   written.
  public static func emitMetadata(into folder: String?) -> Int32 {
    guard let folder, !folder.hasPrefix("-") else {
      writeToStderr("usage: \(CommandLine.arguments[0]) --emit-appintents-metadata DIR\n")
      return 64
    }
    let document: MetadataDocument
    do {
      document = try metadataDocument()
    } catch {
      writeToStderr("cannot describe the App Intents: \(error)\n")
      return 65
    }
    let metadata = URL(fileURLWithPath: folder).appendingPathComponent("Metadata.appintents")
    do {
      try FileManager.default.createDirectory(at: metadata, withIntermediateDirectories: true)
      try Data(document.canonicalEncoding()).write(to: metadata.appendingPathComponent("extract.actionsdata"))
      try Data(#"{"toolsVersion":"\#(metadataToolsVersion)","version":"3.0"}"#.utf8)
        .write(to: metadata.appendingPathComponent("version.json"))
    } catch {
      writeToStderr("cannot write \(metadata.path): \(error)\n")
      return 73
    }
    return 0
  }
}

/// What `version.json`'s `toolsVersion` says wrote the metadata.
let metadataToolsVersion = "IntentHostSDK 0.1.0"
