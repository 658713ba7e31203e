import IntentHostSystem

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// The shared container of one app group: a directory of JSON documents.
public struct AppGroupContainer: Sendable {
  public let identifier: String
  public let path: String

  /// - Throws: `StoreError.invalidGroupIdentifier` unless `identifier` is `group.` + a reverse-DNS name;
  ///   `StoreError.io` when the directory cannot be created.
  public init(identifier: String, path: String) throws(StoreError) {
    if let problem = Self.identifierProblem(identifier) {
      throw .invalidGroupIdentifier(identifier, problem: problem)
    }
    self.identifier = identifier
    self.path = path
    do {
      try makeDirectories(path + "/Library/Preferences")
    } catch {
      throw .io(error)
    }
  }

  /// The document named `name` (a file name such as "bookings.json").
  public func document<Content: DocumentContent>(_ name: String, as type: Content.Type = Content.self)
    -> Document<Content>
  {
    precondition(!name.contains("/") && !name.hasPrefix("."), "a document name is a plain file name")
    return Document(path: path + "/" + name)
  }

  /// The group's shared defaults (`UserDefaults(suiteName:)`), in `Library/Preferences/GROUP.json`.
  public var defaults: SharedDefaults {
    SharedDefaults(document: Document(path: defaultsPath))
  }

  /// Where the shared defaults live.
  public var defaultsPath: String { path + "/Library/Preferences/" + identifier + ".json" }

  /// The documents in the container (checkpoints and journals, by document name), sorted.
  public func documentNames() -> [String] {
    var names = Set<String>()
    for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
      if name.hasPrefix("."), name.hasSuffix(".journal") {
        names.insert(String(name.dropFirst().dropLast(".journal".count)))
      } else if !name.hasPrefix("."), name.hasSuffix(".json") {
        names.insert(name)
      }
    }
    return names.sorted()
  }

  /// nil when valid, else the problem.
  public static func identifierProblem(_ identifier: String) -> String? {
    guard identifier.hasPrefix("group.") else {
      return "\"\(identifier)\" does not start with \"group.\""
    }
    let labels = identifier.dropFirst("group.".count).split(separator: ".", omittingEmptySubsequences: false)
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
    if labels.count < 2 || labels.contains(where: { $0.isEmpty || !$0.allSatisfy(allowed.contains) }) {
      return "\"\(identifier)\" is not \"group.\" followed by a reverse-DNS name such as com.example.app"
    }
    return nil
  }
}

/// `mkdir -p`, mode 0770 for new directories (less the umask; group members share app-group folders).
public func makeDirectories(_ path: String) throws(SystemError) {
  var current = path.hasPrefix("/") ? "" : "."
  for component in path.split(separator: "/") {
    current += "/" + component
    if mkdir(current, 0o770) != 0 {
      let error = SystemError.current("mkdir", current)
      if error.code != EEXIST { throw error }
    }
  }
}
