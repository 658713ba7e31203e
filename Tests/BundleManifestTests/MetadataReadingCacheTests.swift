import AppIntentsMetadata
import BundleManifest
import Foundation
import TestSupport
import Testing

/// A long-lived assistant parses an unchanged `extract.actionsdata` once (`MetadataReadingCache`), by the identity
/// of the file it opened: a file written again, one renamed over it, the same file under another path, and a file
/// fixed after it failed are each read again, so that the cache never answers with what a file no longer says.
/// In-process, each test with a cache of its own.
@Suite(.tags(.unit)) struct MetadataReadingCacheTests {
  /// FuelOrder's metadata folder in a fresh directory, with `text` as its `extract.actionsdata`.
  struct Folder {
    let directory: TemporaryDirectory
    var bundle: URL { directory.file("FuelOrderIntents.appex") }
    var folder: URL { bundle.appendingPathComponent("Metadata.appintents") }
    var file: URL { folder.appendingPathComponent("extract.actionsdata") }

    init(_ text: String) throws {
      directory = try TemporaryDirectory()
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data(text.utf8).write(to: file)
    }

    func load(_ cache: MetadataReadingCache) throws -> AppIntentsMetadataFolder {
      try AppIntentsMetadataFolder.load(folder: folder, bundle: bundle, cache: cache)
    }
  }

  static let fuelOrder = AppIntentsFixtures.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases)

  static func cache() -> MetadataReadingCache { MetadataReadingCache(maximumEntries: 8, maximumBytes: 1 << 20) }

  @Test func anUnchangedFileIsParsedOnce() throws {
    let folder = try Folder(Self.fuelOrder)
    defer { folder.directory.remove() }
    let cache = Self.cache()
    let first = try folder.load(cache)
    let second = try folder.load(cache)
    #expect(cache.parses == 1)
    #expect(first.readDocument != nil && first.readDocument == second.readDocument)
  }

  /// The control of the key: a file written again in place, of the same size, is read again and its new text seen.
  @Test func aFileWrittenAgainIsReadAgain() throws {
    let folder = try Folder(Self.fuelOrder)
    defer { folder.directory.remove() }
    let cache = Self.cache()
    #expect(try folder.load(cache).readDocument?.actions.first?.value.title?.key == "Order Fuel")
    let edited = Self.fuelOrder.replacingOccurrences(of: "\"Order Fuel\"", with: "\"Order Fuez\"")
    #expect(edited.utf8.count == Self.fuelOrder.utf8.count && edited != Self.fuelOrder)
    let handle = try FileHandle(forWritingTo: folder.file)
    try handle.write(contentsOf: Data(edited.utf8))
    try handle.close()
    #expect(try folder.load(cache).readDocument?.actions.first?.value.title?.key == "Order Fuez")
    #expect(cache.parses == 2)
  }

  /// A file whose modification time is set back after it is written in place is still read again: its status
  /// change time moved, and nobody can set that one.
  @Test func aFileWhoseModificationTimeIsSetBackIsReadAgain() throws {
    let folder = try Folder(Self.fuelOrder)
    defer { folder.directory.remove() }
    let cache = Self.cache()
    _ = try folder.load(cache)
    var before = stat()
    #expect(stat(folder.file.path, &before) == 0)
    let edited = Self.fuelOrder.replacingOccurrences(of: "\"Order Fuel\"", with: "\"Order Fuez\"")
    let handle = try FileHandle(forWritingTo: folder.file)
    try handle.write(contentsOf: Data(edited.utf8))
    try handle.close()
    var times = [before.st_atim, before.st_mtim]
    #expect(utimensat(AT_FDCWD, folder.file.path, &times, 0) == 0)
    var after = stat()
    #expect(stat(folder.file.path, &after) == 0)
    #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
    #expect(try folder.load(cache).readDocument?.actions.first?.value.title?.key == "Order Fuez")
  }

  /// Another file renamed over it (another inode, the same bytes) is read again; so is the same file under another
  /// path (a hard link), whose findings name that path.
  @Test func anotherFileOrAnotherPathIsReadAgain() throws {
    let folder = try Folder(Self.fuelOrder)
    defer { folder.directory.remove() }
    let cache = Self.cache()
    _ = try folder.load(cache)
    let replacement = folder.directory.file("replacement")
    try Data(Self.fuelOrder.utf8).write(to: replacement)
    #expect(rename(replacement.path, folder.file.path) == 0)
    _ = try folder.load(cache)
    #expect(cache.parses == 2)

    let other = folder.directory.file("Other.appex/Metadata.appintents")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    #expect(link(folder.file.path, other.appendingPathComponent("extract.actionsdata").path) == 0)
    let linked = try AppIntentsMetadataFolder.load(
      folder: other, bundle: other.deletingLastPathComponent(), cache: cache)
    #expect(cache.parses == 3)
    #expect(linked.actionsDataFile.hasSuffix("Other.appex/Metadata.appintents/extract.actionsdata"))
  }

  /// A file that does not read is kept as its failure (not parsed again while it stays), and read again once fixed.
  @Test func aFileFixedAfterItFailedIsReadAgain() throws {
    let folder = try Folder("{\"version\": 1,,}")
    defer { folder.directory.remove() }
    let cache = Self.cache()
    #expect(try folder.load(cache).readDocument == nil)
    #expect(try folder.load(cache).readDocument == nil)
    #expect(cache.parses == 1)
    try Data(Self.fuelOrder.utf8).write(to: folder.file)
    #expect(try folder.load(cache).readDocument != nil)
    #expect(cache.parses == 2)
  }

  /// The cache keeps at most its number of readings, the least recently used going first.
  @Test func theLeastRecentlyUsedReadingGoesFirst() throws {
    let folders = try (0..<3).map { _ in try Folder(Self.fuelOrder) }
    defer { for folder in folders { folder.directory.remove() } }
    let cache = MetadataReadingCache(maximumEntries: 2, maximumBytes: 1 << 20)
    for folder in folders { _ = try folder.load(cache) }
    #expect(cache.parses == 3)
    _ = try folders[2].load(cache)
    _ = try folders[1].load(cache)
    #expect(cache.parses == 3)
    _ = try folders[0].load(cache)
    #expect(cache.parses == 4)
  }
}
