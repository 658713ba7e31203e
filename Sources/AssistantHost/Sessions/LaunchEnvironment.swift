import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision

/// The environment a child gets, built from nothing (docs/PROTOCOL.md lists the variables).
func childEnvironment(
  bundleIdentifier: String, bundlePath: String, container: URL, appGroups: [AppGroupLocation], locale: String
) -> [String: String] {
  [
    "HOME": container.path,
    "TMPDIR": container.appendingPathComponent("tmp").path,
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "SWIFT_BACKTRACE": "enable=no",
    "INTENTHOST_BUNDLE_IDENTIFIER": bundleIdentifier,
    "INTENTHOST_BUNDLE_PATH": bundlePath,
    "INTENTHOST_CONTAINER": container.path,
    "INTENTHOST_LOCALE": locale,
    "INTENTHOST_APP_GROUPS": appGroups.map { "\($0.identifier)=\($0.path)" }.joined(separator: ":"),
  ]
}

/// The app groups a bundle's entitlements grant, with their containers.
func grantedAppGroups(_ entitlements: Entitlements, home: AssistantHome) throws -> [AppGroupLocation] {
  try entitlements.applicationGroups.map { identifier in
    if let problem = AppGroupContainer.identifierProblem(identifier) {
      throw HostError(.dataError, "\(entitlements.file ?? "entitlements"): \(problem)")
    }
    let path = try home.appGroupLocation(identifier).path
    if path.contains(":") {
      throw HostError(.dataError, "app group path \(path) contains \":\"; choose an ASSISTANT_APP_GROUPS without one")
    }
    return AppGroupLocation(identifier: identifier, path: path)
  }
}
