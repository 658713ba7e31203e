import IntentHostSystem

/// Why a store operation failed. Every case names the file or group.
public enum StoreError: Error, Sendable, CustomStringConvertible, Equatable {
  /// The group identifier is not `group.` followed by a reverse-DNS name.
  case invalidGroupIdentifier(String, problem: String)
  /// The process's entitlements do not list the group.
  case notEntitled(group: String, entitlements: String)
  /// The document is not valid JSON or not a document at all. It was left untouched.
  case corrupt(file: String, detail: String)
  /// The document was written by a newer schema than this reader knows. It was left untouched.
  case newerSchema(file: String, found: Int, known: Int)
  case io(SystemError)

  public var description: String {
    switch self {
    case .invalidGroupIdentifier(_, let problem):
      return "invalid app group identifier: \(problem)"
    case .notEntitled(let group, let entitlements):
      return "no container for \(group): \(entitlements) does not list it in "
        + "com.apple.security.application-groups (add it there)"
    case .corrupt(let file, let detail):
      return "\(file) is corrupt (\(detail)); it was left as it is: move it aside or restore it from a backup"
    case .newerSchema(let file, let found, let known):
      return "\(file) has schema version \(found), newer than version \(known) this program knows; "
        + "update the program, it was left as it is"
    case .io(let error):
      return error.description
    }
  }
}
