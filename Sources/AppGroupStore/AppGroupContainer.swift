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
///
/// Its path is trusted (the host chose it); everything inside is written by every member of the group, so the store
/// reaches it through the container's descriptor only, following no link (see `Document`).
public struct AppGroupContainer: Sendable {
  public let identifier: String
  public let path: String

  /// - Parameter creatingDirectories: make the container (as `mkdir -p`) and its `Library/Preferences` (through the
  ///   container's descriptor, following no link; group-writable with the set-group-ID bit in a set-group-ID
  ///   container) when they do not exist. Without it nothing is made.
  /// - Throws: `StoreError.invalidGroupIdentifier` unless `identifier` is `group.` + a reverse-DNS name;
  ///   `.unsafeFile` when the container itself is a link; `.io` when the directories cannot be made. A link or file
  ///   planted in place of `Library` or `Preferences` is not an error here: the shared defaults report it when used.
  public init(identifier: String, path: String, creatingDirectories: Bool = true) throws(StoreError) {
    if let problem = Self.identifierProblem(identifier) {
      throw .invalidGroupIdentifier(identifier, problem: problem)
    }
    self.identifier = identifier
    self.path = path
    guard creatingDirectories else { return }
    let container: DirectoryDescriptor
    do throws(SystemError) {
      try makeDirectories(path)
      container = try DirectoryDescriptor.open(path)
    } catch {
      throw error.isUnsafeFileRefusal ? .unsafeFile(file: error.subject, detail: error.reason) : .io(error)
    }
    defer { container.close() }
    do throws(SystemError) {
      let shared = try container.status().permissions & 0o2000 != 0
      let library = try container.makeDirectory("Library", mode: 0o770, permissions: shared ? 0o2770 : nil)
      library.directory.close()
      let preferences = try container.makeDirectory(
        "Library/Preferences", mode: 0o770, permissions: shared ? 0o2770 : nil)
      preferences.directory.close()
    } catch  where error.isUnsafeFileRefusal || error.code == ENOTDIR {
      // Something a member planted in place of `Library` or `Preferences` is left alone, and hurts only the shared
      // defaults: their every use reports it (`StoreError.unsafeFile`); the group's other documents do not need it.
    } catch {
      throw .io(error)
    }
  }

  /// The document named `name` (a file name such as "bookings.json").
  public func document<Content: DocumentContent>(_ name: String, as type: Content.Type = Content.self)
    -> Document<Content>
  {
    precondition(!name.contains("/") && !name.hasPrefix("."), "a document name is a plain file name")
    return Document(in: path, at: name)
  }

  /// The group's shared defaults (`UserDefaults(suiteName:)`), in `Library/Preferences/GROUP.json`, reached from the
  /// container without following a link.
  public var defaults: SharedDefaults {
    SharedDefaults(document: Document(in: path, at: "Library/Preferences/" + identifier + ".json"))
  }

  /// Where the shared defaults live.
  public var defaultsPath: String { path + "/Library/Preferences/" + identifier + ".json" }

  /// The documents in the container (checkpoints and journals, by document name), sorted; listed through the
  /// container's descriptor.
  /// - Throws: `StoreError` when the container cannot be opened (a missing one has no documents).
  public func documentNames() throws(StoreError) -> [String] {
    let entries: [String]
    do throws(SystemError) {
      let container = try DirectoryDescriptor.open(path)
      defer { container.close() }
      entries = try container.entries()
    } catch {
      if error.code == ENOENT { return [] }
      throw error.isUnsafeFileRefusal ? .unsafeFile(file: error.subject, detail: error.reason) : .io(error)
    }
    var names = Set<String>()
    for name in entries {
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
/// - Important: it follows links on the way, as `mkdir -p` does: only for a path the caller trusts, such as the one
///   the host chose for a container. Inside a container, use `DirectoryDescriptor.makeDirectory`.
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
