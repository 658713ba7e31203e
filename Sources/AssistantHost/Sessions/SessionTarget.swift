import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision

/// What a protocol session runs: an extension, or a containing app launched to handle an intent (`handleInApp`). An
/// app opened for the user (`AppLauncher`) is launched from one too, though it speaks no protocol.
struct SessionTarget: Sendable {
  var name: String
  var bundleIdentifier: String
  var executable: String
  var bundlePath: String
  /// The containing app's bundle (`<home>/Applications/NAME.app` once installed).
  var appPath: String
  var entitlements: Entitlements
  /// What it is: an Intents or Intents UI extension, or the containing app.
  var kind: SessionKind
  /// What `initialize` tells it in `extensionPoint`: `NSExtensionPointIdentifier`, or `SessionKind.app`'s point for
  /// an app.
  var extensionPoint: String
  /// The containing app's bundle identifier (whose uid the sandbox runs it as, whose donations it makes).
  var appIdentifier: String
  /// The intent definitions of the containing app and its extensions: what it may donate.
  var appDefinitions: [IntentDefinition]
  /// The App Intents metadata of the containing app and its App Intents extensions: what it may donate of App
  /// Intents.
  var appIntentsMetadata: [AppIntentsMetadataFolder]
  /// Whether the app is launched to perform an App Intent its own `Metadata.appintents` declares (not to handle
  /// what an extension handed over): its faults say so, not `handleInApp`'s advice.
  var performsAppIntents = false

  /// The sandbox's kind for it: its limits.
  var sandboxKind: SandboxPolicy.Kind {
    switch kind {
    case .app: .app
    case .intentsUIExtension: .intentsUIExtension
    case .intentsExtension:
      extensionPoint == AppIntentsExtensionBundle.extensionPoint ? .appIntentsExtension : .intentsExtension
    }
  }

  init(_ bundle: ExtensionBundle, app: AppBundle) {
    self.init(
      app: app, name: bundle.name, bundleIdentifier: bundle.info.bundleIdentifier, executable: bundle.executableURL,
      bundle: bundle.url, entitlements: bundle.entitlements, extensionPoint: bundle.extensionInfo.pointIdentifier)
  }

  /// An App Intents extension (`Extensions/NAME.appex`): an Intents extension's kind and limits, its own extension
  /// point in `initialize`.
  init(_ bundle: AppIntentsExtensionBundle, app: AppBundle) {
    self.init(
      app: app, name: bundle.name, bundleIdentifier: bundle.info.bundleIdentifier, executable: bundle.executableURL,
      bundle: bundle.url, entitlements: bundle.entitlements, extensionPoint: AppIntentsExtensionBundle.extensionPoint)
  }

  /// The containing app, launched in the background to handle an intent (or opened by `AppLauncher`).
  init(app: AppBundle) {
    self.init(
      app: app, name: app.name, bundleIdentifier: app.info.bundleIdentifier, executable: app.executableURL,
      bundle: app.url, entitlements: app.entitlements, extensionPoint: SessionKind.app.extensionPoint)
  }

  /// A part of `app`; its kind is the one `extensionPoint` names (`SessionKind(extensionPoint:)`).
  private init(
    app: AppBundle, name: String, bundleIdentifier: String, executable: URL, bundle: URL, entitlements: Entitlements,
    extensionPoint: String
  ) {
    appIdentifier = app.info.bundleIdentifier
    appPath = app.url.path
    appDefinitions = app.allDefinitions
    appIntentsMetadata = app.allAppIntentsMetadata
    self.name = name
    self.bundleIdentifier = bundleIdentifier
    self.executable = executable.path
    bundlePath = bundle.path
    self.entitlements = entitlements
    self.extensionPoint = extensionPoint
    kind = SessionKind(extensionPoint: extensionPoint)
  }
}
