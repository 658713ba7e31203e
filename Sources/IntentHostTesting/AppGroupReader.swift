import AppGroupStore
import AssistantHost

/// Reads what an app group of a test host holds, as `assistant defaults read` does: the group's shared defaults and
/// its documents (e.g. Rooms' `bookings.json`). Reading makes nothing (no folder, no lock file).
///
/// ```swift
/// let bookings = try await host.appGroup("group.com.example.rooms").document("bookings.json")
/// #expect(bookings.isEmpty == false)
/// let history = try await host.appGroup("group.com.example.ascent").value(forKey: "workoutHistory")
/// ```
public struct AppGroupReader: Sendable {
  /// The group's identifier, e.g. `group.com.example.rooms`.
  public let identifier: String
  let defaults: AppGroupDefaults

  /// The top-level keys of the document `name` in the group's folder, with their values.
  /// - Throws: `TestHostError`: `noMatch` (69) when the group or the document does not exist, `dataError` (65)
  ///   when it cannot be read or is not an object of keys, `usage` (64) for an invalid name.
  public func document(_ name: String) async throws -> [String: JSONValue] {
    try await reportingErrors {
      let value = try await defaults.read(DefaultsTarget(group: identifier, document: name), key: nil)
      guard case .object(let keys) = value else {
        throw TestHostError(.dataError, "\(name) of \(identifier) is not an object of keys")
      }
      return keys
    }
  }

  /// The group's shared defaults (`UserDefaults(suiteName:)` of the SDK), every key with its value.
  /// - Throws: `TestHostError` as `document(_:)`.
  public func defaultsValues() async throws -> [String: JSONValue] {
    try await reportingErrors {
      let value = try await defaults.read(DefaultsTarget(group: identifier), key: nil)
      guard case .object(let keys) = value else {
        throw TestHostError(.dataError, "the shared defaults of \(identifier) are not an object of keys")
      }
      return keys
    }
  }

  /// The value of `key` in the group's shared defaults.
  /// - Throws: `TestHostError(.noMatch)` when the group or the key does not exist; as `document(_:)` otherwise.
  public func value(forKey key: String) async throws -> JSONValue {
    try await reportingErrors { try await defaults.read(DefaultsTarget(group: identifier), key: key) }
  }
}

extension TestHost {
  /// The app group `identifier` of this host (in `appGroups`), to read.
  public func appGroup(_ identifier: String) -> AppGroupReader {
    AppGroupReader(identifier: identifier, defaults: AppGroupDefaults(home: engineHome))
  }
}
