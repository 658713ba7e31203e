import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision

/// The host's version, shown in `initialize` and `--version`.
package let hostVersion = "0.1.0"
