#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import IntentHostSystem
#if canImport(Glibc)
  import Glibc
#endif

/// Content stored in a document, with the schema version it is written in.
public protocol DocumentContent: Codable, Sendable {
  /// The schema version this type writes. Documents with a higher version are refused, never overwritten.
  static var schemaVersion: Int { get }
  /// The content of a document that does not exist yet.
  init()
}

/// One JSON document in an app-group container: `{"schemaVersion": N, "content": …}`.
///
/// Reads never see a half-written file: every update writes a temporary file in the same directory, syncs it,
/// renames it over the old one and syncs the directory. Updates are serialised across processes by an exclusive
/// `flock` on a sibling `.lock` file, which the kernel releases when its holder dies.
public struct Document<Content: DocumentContent>: Sendable {
  /// The document's path.
  public let path: String
  private var lockPath: String { directory + "/." + fileName + ".lock" }
  private var directory: String { String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
  private var fileName: String { String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...]) }

  /// The largest document read, in bytes.
  public var maximumSize = 64 << 20

  public init(path: String) {
    self.path = path
  }

  private struct Envelope: Codable {
    var schemaVersion: Int
    var content: Content
  }

  private struct VersionOnly: Decodable {
    var schemaVersion: Int
  }

  /// The current content, or `Content()` when the document does not exist.
  /// - Throws: `StoreError.corrupt`, `.newerSchema` or `.io`.
  public func read() throws(StoreError) -> Content {
    try load() ?? Content()
  }

  /// Runs `body` on the content while holding the document's exclusive lock, then writes the result atomically.
  /// Nothing is written when `body` throws.
  /// - Returns: what `body` returns.
  /// - Throws: `StoreError`, or what `body` throws.
  public func update<Result>(_ body: (inout Content) throws -> Result) throws -> Result {
    let lock: FileDescriptor
    do {
      lock = try FileDescriptor.open(lockPath, O_RDWR | O_CREAT, mode: 0o660)
    } catch {
      throw StoreError.io(error)
    }
    defer { lock.close() }
    do {
      try lockFile(lock, exclusive: true)
    } catch {
      throw StoreError.io(error)
    }
    defer { unlockFile(lock) }
    var content = try load() ?? Content()
    let result = try body(&content)
    try write(content)
    return result
  }

  private func load() throws(StoreError) -> Content? {
    let fd: FileDescriptor
    do {
      fd = try FileDescriptor.open(path, O_RDONLY)
    } catch {
      if error.code == ENOENT { return nil }
      throw .io(error)
    }
    defer { fd.close() }
    let bytes: [UInt8]
    do {
      bytes = try fd.readAll(limit: maximumSize)
    } catch {
      if error.code == EFBIG { throw .corrupt(file: path, detail: "larger than \(maximumSize) bytes") }
      throw .io(error)
    }
    let data = Data(bytes)
    let decoder = JSONDecoder()
    let version: Int
    do {
      version = try decoder.decode(VersionOnly.self, from: data).schemaVersion
    } catch {
      throw .corrupt(file: path, detail: bytes.isEmpty ? "empty file" : "not a JSON document with a schemaVersion")
    }
    if version > Content.schemaVersion {
      throw .newerSchema(file: path, found: version, known: Content.schemaVersion)
    }
    do {
      return try decoder.decode(Envelope.self, from: data).content
    } catch {
      throw .corrupt(file: path, detail: "its content does not match schema version \(version): \(error)")
    }
  }

  private func write(_ content: Content) throws(StoreError) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var bytes: [UInt8]
    do {
      bytes = [UInt8](try encoder.encode(Envelope(schemaVersion: Content.schemaVersion, content: content)))
    } catch {
      throw .corrupt(file: path, detail: "cannot encode the new content: \(error)")
    }
    bytes.append(0x0A)
    let temporary = "\(directory)/.\(fileName).tmp-\(getpid())"
    do throws(SystemError) {
      let fd = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o660)
      do throws(SystemError) {
        try fd.writeAll(bytes)
        if fsync(fd.rawValue) != 0 { throw SystemError.current("fsync", temporary) }
      } catch {
        fd.close()
        unlink(temporary)
        throw error
      }
      fd.close()
      if rename(temporary, path) != 0 {
        let error = SystemError.current("rename", path)
        unlink(temporary)
        throw error
      }
      let dir = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
      defer { dir.close() }
      if fsync(dir.rawValue) != 0 { throw SystemError.current("fsync", directory) }
    } catch {
      throw .io(error)
    }
  }
}
