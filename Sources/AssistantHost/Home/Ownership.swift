import AppGroupStore
import BundleManifest
import Foundation

/// Which team owns each bundle identifier and app group on this host: host state in `State/owners.json` (a
/// `Document`: locked updates, synced). A team (`Team`: the app's `com.apple.developer.team-identifier`, else its
/// bundle identifier without the last component) gets an identifier or a group by being the first to install it, and
/// keeps it, through updates and after an uninstall (the container and groups it owns are kept too). Install refuses
/// another team's bundle that uses one, except a group the user shares with `--share-group` (README, "Installing").
///
/// On disk (schema 1):
///
/// ```json
/// {"content": {
///    "bundles": {"com.example.rooms": {"app": "com.example.rooms",
///                                      "team": {"identifier": "com.example", "source": "bundle-identifier"}},
///                "com.example.rooms.RoomsIntents": {"app": "com.example.rooms", "team": {…}}},
///    "groups": {"group.com.example.rooms": {"owner": {"identifier": "com.example", "source": "bundle-identifier"},
///                                           "sharedWith": [{"identifier": "A1B2C3D4E5", "source": "team-identifier"}]}}},
///  "schemaVersion": 1, "sequence": 3}
/// ```
struct OwnerTable: DocumentContent {
  static let schemaVersion = 1

  /// The team that owns a bundle identifier, and the app it belongs to (itself, or the app of an extension).
  struct BundleOwner: Codable, Sendable, Equatable {
    var team: Team
    var app: String
  }

  /// The team that first installed a group, and the teams the user let share it (`--share-group`).
  struct GroupOwner: Codable, Sendable, Equatable {
    var owner: Team
    var sharedWith: [Team]

    func admits(_ team: Team) -> Bool { owner == team || sharedWith.contains(team) }
  }

  /// Keyed by bundle identifier, as installed.
  var bundles: [String: BundleOwner] = [:]
  /// Keyed by app-group identifier.
  var groups: [String: GroupOwner] = [:]

  init() {}

  /// The record of `identifier`, letter case aside (Apple compares bundle identifiers so).
  func owner(of identifier: BundleIdentifier) -> (identifier: String, owner: BundleOwner)? {
    if let owner = bundles[identifier.rawValue] { return (identifier.rawValue, owner) }
    let lowered = identifier.rawValue.lowercased()
    return bundles.sorted { $0.key < $1.key }.first { $0.key.lowercased() == lowered }.map { ($0.key, $0.value) }
  }

  /// The record of `group`, letter case aside.
  func owner(of group: AppGroupIdentifier) -> (identifier: String, owner: GroupOwner)? {
    if let owner = groups[group.rawValue] { return (group.rawValue, owner) }
    let lowered = group.rawValue.lowercased()
    return groups.sorted { $0.key < $1.key }.first { $0.key.lowercased() == lowered }.map { ($0.key, $0.value) }
  }

  /// Records `app`'s identifiers and groups for its team, without checking: for what is installed already.
  /// Nothing recorded is changed, except that a group another team recorded first gets `app`'s team as a sharer
  /// (both were installed with it before the record existed).
  mutating func adopt(_ app: AppBundle) {
    for identifier in app.allIdentifiers where owner(of: identifier) == nil {
      bundles[identifier.rawValue] = BundleOwner(team: app.team, app: app.identifier.rawValue)
    }
    for group in app.applicationGroups {
      if let (key, record) = owner(of: group) {
        if !record.admits(app.team) { groups[key]?.sharedWith.append(app.team) }
      } else {
        groups[group.rawValue] = GroupOwner(owner: app.team, sharedWith: [])
      }
    }
  }

  /// Checks that `app`'s team may install it, then records its identifiers and groups.
  /// - Parameters:
  ///   - installed: the apps installed now (recorded first, if a home from before this record has them).
  ///   - sharing: the groups the user lets `app` share with another team (`--share-group`).
  ///   - source: the bundle's path, for messages.
  /// - Throws: `HostError(.refused)` naming the owner and the fix, when one of `app`'s identifiers belongs to
  ///   another team or is another installed bundle's, or when it lists a group another team owns and `sharing` does
  ///   not name it. Nothing is recorded then.
  mutating func claim(_ app: AppBundle, installed: [AppBundle], sharing: Set<String>, source: String) throws {
    for other in installed { adopt(other) }
    let team = app.team
    func appDescription(_ identifier: String) -> String {
      if let installed = installed.first(where: { $0.identifier.rawValue == identifier }) {
        return "\(installed.name) (\(identifier))"
      }
      return "\(identifier), no longer installed (its container and groups are kept)"
    }
    for identifier in app.allIdentifiers {
      // Another installed bundle with this identifier would share its container and logs, whatever its team.
      for other in installed where other.identifier != app.identifier {
        if let clash = other.allIdentifiers.first(where: { $0.isSame(as: identifier) }) {
          let what = clash == other.identifier ? "the app \(other.name)" : "an extension of \(other.name)"
          throw HostError(
            .refused,
            "cannot install \(source): its identifier \(identifier) is already \(what) (\(clash)); two bundles "
              + "cannot share an identifier, and with it a container. Fix: give the bundle an identifier of its own")
        }
      }
      if let (key, record) = owner(of: identifier), record.team != team {
        throw HostError(
          .refused,
          "cannot install \(source): the bundle identifier \(key) belongs to \(record.team), which installed "
            + "\(appDescription(record.app)); this bundle is from \(team). An identifier stays with the team that "
            + "first installed it, so that another team cannot take over its container, logs and app groups. "
            + "Fix: give the bundle an identifier of its own"
            + (team.source == .bundleIdentifier ? ", such as \(team.identifier).\(identifier.components.last!)" : ""))
      }
    }
    for group in app.applicationGroups {
      guard let (key, record) = owner(of: group), !record.admits(team), !sharing.contains(group.rawValue) else {
        continue
      }
      let users = installed.filter { $0.applicationGroups.contains { $0.rawValue.lowercased() == key.lowercased() } }
        .map { "\($0.name) (\($0.identifier))" }
      throw HostError(
        .refused,
        "cannot install \(source): it lists the app group \(key), which belongs to \(record.owner)"
          + (users.isEmpty ? "" : " (used by \(users.joined(separator: ", ")))") + "; this bundle is from \(team), "
          + "and would read and write that group's data. Fix: remove the group from the bundle's entitlements, or, "
          + "to let this team share it, install with `assistant install --share-group \(key) \(source)`")
    }
    for identifier in app.allIdentifiers {
      let key = owner(of: identifier)?.identifier ?? identifier.rawValue
      bundles[key] = BundleOwner(team: team, app: app.identifier.rawValue)
    }
    adopt(app)
  }
}

extension AssistantHome {
  /// Runs `body` on the owner record under its lock and commits what it changed (nothing when it throws).
  /// Blocks on the lock and the disk: call it off the cooperative pool.
  /// - Precondition: the home is prepared (`prepare()`): `State/` exists.
  /// - Throws: what `body` throws; `HostError(.ioError)` when the record cannot be read or written, `.dataError`
  ///   when it is corrupt.
  func updatingOwners<Result>(_ body: (inout OwnerTable) throws -> Result) throws -> Result {
    do {
      return try Document<OwnerTable>(path: ownersFile.path).update(body)
    } catch let error as StoreError {
      throw stateError(error, "cannot use the owner record \(ownersFile.path)", document: ownersFile.path)
    }
  }
}
