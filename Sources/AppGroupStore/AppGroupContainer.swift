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

  /// The longest app-group identifier, in bytes (with the store's suffixes, its file names stay within NAME_MAX).
  public static let maximumIdentifierLength = 200

  /// nil when valid, else the problem. Valid is `group.` followed by a reverse-DNS name of at least two components,
  /// each ASCII letters, digits and `-` (not first), at most `maximumIdentifierLength` bytes in all: the grammar of
  /// BundleManifest's `AppGroupIdentifier`, which checks entitlements where they are parsed (a test holds the two
  /// together; this module cannot import that one).
  public static func identifierProblem(_ identifier: String) -> String? {
    let bytes = Array(identifier.utf8)
    let quoted =
      identifier.count <= 60 ? "\"\(identifier)\"" : "\"\(identifier.prefix(57))…\" (\(bytes.count) bytes)"
    guard identifier.hasPrefix("group.") else {
      return "\(quoted) does not start with \"group.\""
    }
    if bytes.count > maximumIdentifierLength {
      return "\(quoted) is \(bytes.count) bytes long; the limit is \(maximumIdentifierLength)"
    }
    func isLabelByte(_ byte: UInt8) -> Bool {
      (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
        || byte == 0x2D
    }
    let labels = bytes.dropFirst("group.".utf8.count).split(separator: 0x2E, omittingEmptySubsequences: false)
    if labels.count < 2
      || labels.contains(where: { $0.isEmpty || $0.first == 0x2D || !$0.allSatisfy(isLabelByte) })
    {
      return "\(quoted) is not \"group.\" followed by a reverse-DNS name such as com.example.app"
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
