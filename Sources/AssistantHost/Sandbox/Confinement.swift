// The one place a launch is confined: its folders made ready, then the sandbox profile of the policy applied.
import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision
import UntrustedText

extension AssistantHome {
  /// Gets the home (`prepare()`: the log's folder, the identities' record), the launch's container and app groups
  /// ready (`prepareDirectories`, as volumes when the home's are), then adds the sandbox of `policy`: the profile's
  /// paths and identity, its limits, its memory ceiling. With `--no-sandbox`, only the folders. Every launch goes
  /// through here.
  /// - Returns: what to check of its folders once it has run (`StorageWatch`); nil with `--no-sandbox`, which has no
  ///   budget.
  /// - Throws: `HostError(.cannotCreate)` when the home cannot be made; `.refused` when a folder cannot be prepared,
  ///   or the sandbox is on but cannot be provided; `.dataError` for a corrupt `State/storage.json`.
  @discardableResult
  func confine(
    _ specification: inout LaunchSpecification, name: String, bundleIdentifier: String, bundlePath: String,
    kind: SandboxPolicy.Kind, container: URL, appGroups: [AppGroupLocation], entitlements: Entitlements,
    appIdentifier: String, policy: SandboxPolicy
  ) throws -> StorageCheck? {
    // As root the folders belong to the app's uid and the groups' gids whether or not this launch is sandboxed, so
    // that a later sandboxed launch finds them ready.
    try prepare()
    let storage = try storageSettings()
    let identity = geteuid() == 0 ? try identities(app: appIdentifier, groups: appGroups.map(\.identifier)) : nil
    try prepareDirectories(
      bundleIdentifier: bundleIdentifier, appGroups: appGroups, identity: identity,
      volumes: storage.enforcement == .volumes ? storage.effectiveBudget : nil)
    guard policy.enabled else { return nil }
    let abi = try policy.landlockABI()
    let profile: SandboxProfile
    do {
      profile = try sandboxProfile(
        name: name, bundleIdentifier: bundleIdentifier, bundlePath: bundlePath, executable: specification.executable,
        kind: kind, container: container, appGroups: appGroups, entitlements: entitlements,
        appIdentifier: appIdentifier, policy: policy, storage: storage, recordingIdentity: true)
      if let refusal = profile.network.refusal(abi: abi) {
        throw HostError(.refused, "\(name) (\(bundleIdentifier)) cannot be sandboxed: \(refusal); it was not run")
      }
    } catch let error as HostError where error.status == .refused {
      // Refused before anything ran: the same line in its log (best effort, as in `startProcess`).
      if let log = specification.logPath { ExtensionLog.appendHostLine("fault: \(error.message)", toLogAt: log) }
      throw error
    }
    if let full = profile.storageOverBudget {
      throw HostError(.refused, full.refusal("\(name) (\(bundleIdentifier))"))
    }
    if let script = profile.interpreter {
      // The interpreter recorded at install runs the script, with the arguments the kernel would give it.
      specification.arguments = script.arguments(script: specification.executable) + specification.arguments
      specification.argumentZero = script.argumentZero
      specification.executable = script.program
      specification.environment.merge(script.environment) { _, new in new }
    }
    if profile.identity != nil {
      // The app's uid must reach its folders and its bundle.
      makeSearchable(ancestorsOf: container.lastPathComponent, inside: containers.path)
      for group in appGroups { makeSearchable(ancestorsOf: group.identifier, inside: appGroupsRoot.path) }
      let applicationsPath = applications.path + "/"
      if bundlePath.hasPrefix(applicationsPath) {
        makeSearchable(ancestorsOf: String(bundlePath.dropFirst(applicationsPath.count)), inside: applications.path)
      }
    }
    specification.sandbox = profile.spec(abi: abi)
    specification.memoryLimit = profile.limits.memory
    specification.processLimit = profile.limits.threads
    specification.simulatedKernel = policy.simulatedKernel
    return StorageCheck(
      name: name, folders: profile.storage.map { StorageCheck.Folder(what: $0.what, path: $0.path) },
      budget: profile.storageBudget,
      byVolume: profile.storageEnforcement == .volumes, logPath: specification.logPath)
  }
}

extension AssistantHome {
  /// The launch the host makes for one of `app`'s extensions (or the app itself when `extensionNamed` is nil or
  /// names none), confined by `policy`: what `Scripts/bench` measures against a plain spawn. Its stderr is discarded
  /// (no log), so that the measurement is of the launch alone.
  package func launchSpecification(of app: AppBundle, extensionNamed: String?, policy: SandboxPolicy) throws
    -> LaunchSpecification
  {
    let ext = extensionNamed.flatMap { name in app.extensions.first { $0.name == name } }
    let target = ext.map { SessionTarget($0, app: app) } ?? SessionTarget(app: app)
    var specification = try PreparedLaunch(target, home: self, locale: "en_US", policy: policy).specification
    specification.logPath = nil
    return specification
  }
}
