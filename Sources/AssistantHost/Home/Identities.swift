// The uids and gids the home gives apps and app groups when the host runs as root.
import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import ProcessSupervision
import UntrustedText

extension AssistantHome {
  /// The uid of an app and the gids of app groups, allocated once and kept in `State/identities.json`.
  /// - Precondition: the home is prepared (`prepare()`): `State/` exists.
  /// - Throws: `HostError(.ioError)` when the record cannot be read or written, `.dataError` when it is corrupt.
  func identities(app: String, groups: [String]) throws -> (uid: uid_t, groups: [gid_t]) {
    let document = Document<IdentityTable>(path: identitiesFile)
    do {
      // Almost always known already: a shared-lock read, no write.
      let known = try document.read()
      if let uid = known.apps[app], case let gids = groups.compactMap({ known.groups[$0] }), gids.count == groups.count
      {
        return (uid, gids)
      }
      return try document.update { table in
        let uid = table.id(for: app, in: \.apps, base: IdentityTable.firstUID)
        return (uid, groups.map { table.id(for: $0, in: \.groups, base: IdentityTable.firstGID) })
      }
    } catch {
      throw stateError(error, "cannot allocate the users the sandbox runs apps as", document: identitiesFile)
    }
  }

  /// What `identities(app:groups:)` gives, without recording anything: the recorded ids, and for the others the ids
  /// the next allocation would give (`recorded` false). Reads the record only when it exists, so a profile shown on
  /// a home no launch has used makes nothing.
  /// - Throws: `HostError(.ioError)` when the record cannot be read, `.dataError` when it is corrupt.
  func expectedIdentities(app: String, groups: [String]) throws -> (uid: uid_t, groups: [gid_t], recorded: Bool) {
    var table: IdentityTable
    do {
      table = try Document<IdentityTable>(path: identitiesFile).read()
    } catch {
      throw stateError(error, "cannot read the users the sandbox runs apps as", document: identitiesFile)
    }
    let recorded = table.apps[app] != nil && groups.allSatisfy { table.groups[$0] != nil }
    let uid = table.id(for: app, in: \.apps, base: IdentityTable.firstUID)
    return (uid, groups.map { table.id(for: $0, in: \.groups, base: IdentityTable.firstGID) }, recorded)
  }
}

extension AssistantHome {
  /// The gids of app groups, allocated once and kept in `State/identities.json` (as `identities(app:groups:)`).
  /// - Precondition: the home is prepared (`prepare()`): `State/` exists.
  func groupIDs(_ groups: [String]) throws -> [gid_t] {
    let document = Document<IdentityTable>(path: identitiesFile)
    do {
      let known = try document.read()
      if case let gids = groups.compactMap({ known.groups[$0] }), gids.count == groups.count { return gids }
      return try document.update { table in
        groups.map { table.id(for: $0, in: \.groups, base: IdentityTable.firstGID) }
      }
    } catch {
      throw stateError(error, "cannot allocate the groups the sandbox gives app groups", document: identitiesFile)
    }
  }
}

/// Which uid each app runs as, and which gid each app group has (host state, `State/identities.json`).
struct IdentityTable: DocumentContent {
  static let schemaVersion = 1
  /// Far above ordinary system and login ids.
  static let firstUID: UInt32 = 200_000
  static let firstGID: UInt32 = 300_000
  var apps: [String: UInt32] = [:]
  var groups: [String: UInt32] = [:]

  init() {}

  mutating func id(for name: String, in table: WritableKeyPath<IdentityTable, [String: UInt32]>, base: UInt32) -> UInt32
  {
    if let id = self[keyPath: table][name] { return id }
    let id = base + UInt32(self[keyPath: table].count)
    self[keyPath: table][name] = id
    return id
  }
}
