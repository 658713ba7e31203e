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
  /// Something other than a regular file (a symbolic link, a FIFO, a device, a socket), or a file with a second
  /// name, is where the store keeps a document's file or a folder on the way to it: whoever can write the folder may
  /// have planted it to lead the store elsewhere. It was neither followed nor opened, and was left as it is.
  case unsafeFile(file: String, detail: String)
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
    case .unsafeFile:
      return description(recoveryCommand: "assistant defaults recover")
    case .io(let error):
      return error.description
    }
  }

  /// The description, naming `recoveryCommand` (such as `assistant defaults recover GROUP --document NAME`) as the
  /// way to move a planted file aside.
  public func description(recoveryCommand: String) -> String {
    guard case .unsafeFile(let file, let detail) = self else { return description }
    return "\(file) \(detail): the store never follows a link or opens anything but a regular file there; "
      + "remove it, or move the document's files aside with `\(recoveryCommand)`"
  }
}
