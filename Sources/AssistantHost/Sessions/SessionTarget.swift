import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision

/// What a protocol session runs: an extension, or a containing app launched to handle an intent (`handleInApp`).
struct SessionTarget: Sendable {
  var name: String
  var bundleIdentifier: String
  var executable: String
  var bundlePath: String
  var entitlements: Entitlements
  /// `NSExtensionPointIdentifier`, or `appExtensionPoint` for an app.
  var extensionPoint: String
  /// The containing app's bundle identifier (whose uid the sandbox runs it as, whose donations it makes).
  var appIdentifier: String
  /// The intent definitions of the containing app and its extensions: what it may donate.
  var appDefinitions: [IntentDefinition]

  var kind: SandboxPolicy.Kind {
    switch extensionPoint {
    case appExtensionPoint: return .app
    case ExtensionPoint.intentsUIService.rawValue: return .intentsUIExtension
    default: return .intentsExtension
    }
  }

  init(_ bundle: ExtensionBundle, app: AppBundle) {
    appIdentifier = app.info.bundleIdentifier
    appDefinitions = app.allDefinitions
    name = bundle.name
    bundleIdentifier = bundle.info.bundleIdentifier
    executable = bundle.executableURL.path
    bundlePath = bundle.url.path
    entitlements = bundle.entitlements
    extensionPoint = bundle.extensionInfo.pointIdentifier
  }

  /// The containing app, launched in the background to handle an intent.
  init(app: AppBundle) {
    appIdentifier = app.info.bundleIdentifier
    appDefinitions = app.allDefinitions
    name = app.name
    bundleIdentifier = app.info.bundleIdentifier
    executable = app.executableURL.path
    bundlePath = app.url.path
    entitlements = app.entitlements
    extensionPoint = appExtensionPoint
  }
}

/// The `extensionPoint` the host sends to a containing app it launched for `handleInApp`.
let appExtensionPoint = "com.intenthost.app.handle-intent"
