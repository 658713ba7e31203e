// The home's storage settings: the budget of its containers and app groups, and how it is enforced.
import AppGroupStore
import Foundation
import IntentHostSystem

/// How a home enforces the storage budget of its containers and app groups (docs/SANDBOX.md, **Storage**).
package enum StorageEnforcement: String, Codable, Sendable, CaseIterable {
  /// Each folder is measured before each launch, which is refused while one is over (any user).
  case checked
  /// Each folder is an ext4 file system of its own, `<home>/Volumes/...`, loop-mounted on it: the kernel refuses a
  /// write past the budget with ENOSPC (root and loop devices).
  case volumes
}

/// `State/storage.json`: the home's storage budget (nil: `StorageBudget.standard`) and its enforcement. Written only
/// by `assistant storage set`, read at every launch; a corrupt or planted one is refused (`stateError`), never used.
package struct StorageSettings: DocumentContent, Equatable {
  package static let schemaVersion = 1
  package var budget: StorageBudget? = nil
  package var enforcement: StorageEnforcement = .checked

  package init() {}

  package init(budget: StorageBudget?, enforcement: StorageEnforcement) {
    self.budget = budget
    self.enforcement = enforcement
  }

  enum CodingKeys: String, CodingKey {
    case budget, enforcement
  }

  /// Every key optional (absent: the default); a budget out of range or an unknown enforcement is an error.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    budget = try container.decodeIfPresent(StorageBudget.self, forKey: .budget)
    enforcement = try container.decodeIfPresent(StorageEnforcement.self, forKey: .enforcement) ?? .checked
  }

  /// The budget in force when no run gives its own.
  package var effectiveBudget: StorageBudget { budget ?? .standard }
}

extension AssistantHome {
  /// The home's storage settings: the defaults (`StorageBudget.standard`, checked before each launch) when none
  /// were set or the home does not exist. Reads only.
  /// - Throws: `HostError(.dataError)` for a corrupt or planted `State/storage.json` (naming it and how to start it
  ///   again), `.ioError` when it cannot be read.
  package func storageSettings() throws -> StorageSettings {
    let path = storageFile.path
    return try usingStateDocument(path, "cannot read the storage settings") {
      try Document<StorageSettings>(path: path).read()
    }
  }

  /// Changes the home's storage settings (a locked, synced update of `State/storage.json`) and returns them.
  /// - Precondition: the home is prepared (`prepare()`): `State/` exists.
  /// - Throws: what `storageSettings()` throws, or what `body` throws (nothing is then written).
  @discardableResult
  package func updateStorageSettings(_ body: (inout StorageSettings) throws -> Void) throws -> StorageSettings {
    let path = storageFile.path
    return try usingStateDocument(path, "cannot change the storage settings") {
      try Document<StorageSettings>(path: path).update { settings in
        try body(&settings)
        return settings
      }
    }
  }
}
