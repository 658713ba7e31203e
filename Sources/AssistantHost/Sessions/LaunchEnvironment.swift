import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision

extension LaunchEnvironment {
  /// The whole environment of a child whose container is `container`, built from nothing (docs/PROTOCOL.md lists
  /// it): `HOME` (the container), `TMPDIR` (its `tmp`), `PATH`, `LANG`, `SWIFT_BACKTRACE`, and these variables.
  func processEnvironment(container: URL) -> [String: String] {
    encode().merging(
      [
        "HOME": container.path,
        "TMPDIR": container.appendingPathComponent("tmp").path,
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "SWIFT_BACKTRACE": "enable=no",
      ]
    ) { own, _ in own }
  }
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
