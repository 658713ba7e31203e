import Foundation
import TestSupport
import Testing

@testable import AssistantHost

/// The storage budget as the user writes it (`MIB[,FILES]`), which budget a run gets (its own, else the home's,
/// else the standard one), and the home's settings document, `State/storage.json`, hostile or damaged.
@Suite(.tags(.unit))
struct StorageSettingsTests {
  struct Parsed: Sendable, CustomStringConvertible {
    var text: String
    var limit: StorageLimit?
    var description: String { "\"\(text)\"" }
  }

  @Test(arguments: [
    Parsed(text: "256", limit: StorageLimit(megabytes: 256)),
    Parsed(text: "256,20000", limit: StorageLimit(megabytes: 256, files: 20000)),
    Parsed(text: "1,1", limit: StorageLimit(megabytes: 1, files: 1)),
    Parsed(text: "1048576,10000000", limit: StorageLimit(megabytes: 1_048_576, files: 10_000_000)),
    Parsed(text: "0", limit: nil), Parsed(text: "-5", limit: nil), Parsed(text: "1048577", limit: nil),
    Parsed(text: "12,0", limit: nil), Parsed(text: "12,10000001", limit: nil), Parsed(text: "12,", limit: nil),
    Parsed(text: ",12", limit: nil), Parsed(text: "", limit: nil), Parsed(text: "1.5", limit: nil),
    Parsed(text: "1,2,3", limit: nil), Parsed(text: " 12", limit: nil), Parsed(text: "+12", limit: nil),
    Parsed(text: "١٢", limit: nil), Parsed(text: "99999999999999999999999", limit: nil),
  ])
  func aLimitIsMiBAndFilesInRange(_ case_: Parsed) {
    do {
      let limit = try StorageLimit(parsing: case_.text)
      #expect(limit == case_.limit)
    } catch {
      #expect(case_.limit == nil, "\(error)")
      #expect(error.description.contains("\"\(case_.text)\""), "\(error)")
      #expect(error.description.contains("1 to"), "\(error)")
    }
  }

  /// A run's limit wins, its missing file count taken from the home's budget; the home's wins over the standard.
  @Test func theRunsBudgetWinsOverTheHomesWhichWinsOverTheStandard() {
    let home = StorageBudget(bytes: 64 << 20, entries: 500)
    #expect(StorageBudget.effective(run: nil, home: nil) == (.standard, .standard))
    #expect(StorageBudget.effective(run: nil, home: home) == (home, .home))
    #expect(
      StorageBudget.effective(run: StorageLimit(megabytes: 256), home: home)
        == (StorageBudget(bytes: 256 << 20, entries: 500), .run))
    #expect(
      StorageBudget.effective(run: StorageLimit(megabytes: 256, files: 7), home: home)
        == (StorageBudget(bytes: 256 << 20, entries: 7), .run))
    #expect(
      StorageBudget.effective(run: StorageLimit(megabytes: 1), home: nil)
        == (StorageBudget(bytes: 1 << 20, entries: StorageBudget.standard.entries), .run))
  }

  /// A home with no document has the defaults, makes nothing when read, and keeps what `storage set` writes.
  @Test func theHomesSettingsAreKeptInItsState() throws {
    let directory = try TemporaryDirectory("storage-settings")
    defer { directory.remove() }
    let home = try AssistantHome(root: directory.file("home").path)
    #expect(try home.storageSettings() == StorageSettings())
    #expect(!FileManager.default.fileExists(atPath: home.state.path))
    try home.prepare()
    let written = try home.updateStorageSettings {
      $0.budget = StorageBudget(bytes: 32 << 20, entries: 100)
      $0.enforcement = .volumes
    }
    #expect(try home.storageSettings() == written)
    #expect(try home.storageSettings().effectiveBudget == StorageBudget(bytes: 32 << 20, entries: 100))
  }

  struct Planted: Sendable, CustomStringConvertible {
    var content: String
    var says: String
    var description: String { content }
  }

  /// A document written by hand or planted is refused with what is wrong, where, and how to start again (65),
  /// never used; missing keys are the defaults.
  @Test(arguments: [
    Planted(content: #"{"budget": {"megabytes": -5, "files": 10}}"#, says: "the size -5 MiB is out of range"),
    Planted(content: #"{"budget": {"megabytes": 5, "files": 0}}"#, says: "the file count 0 is out of range"),
    Planted(content: #"{"budget": {"megabytes": 2000000, "files": 10}}"#, says: "out of range"),
    Planted(content: #"{"budget": {"megabytes": "many", "files": 10}}"#, says: "does not match schema version 1"),
    Planted(content: #"{"enforcement": "quota"}"#, says: "does not match schema version 1"),
    Planted(content: #"{"budget": {"files": 10}}"#, says: "does not match schema version 1"),
  ])
  func aPlantedDocumentIsRefused(_ planted: Planted) throws {
    let directory = try TemporaryDirectory("storage-settings")
    defer { directory.remove() }
    let home = try AssistantHome(root: directory.file("home").path)
    try home.prepare()
    try Data(#"{"schemaVersion": 1, "sequence": 1, "content": \#(planted.content)}"#.utf8).write(to: home.storageFile)
    do {
      _ = try home.storageSettings()
      Issue.record("read \(planted.content)")
    } catch let error as HostError {
      #expect(error.status == .dataError, "\(error)")
      #expect(error.message.contains(home.storageFile.path), "\(error)")
      #expect(error.message.contains(planted.says), "\(error)")
      #expect(error.message.contains("move aside or remove"), "\(error)")
    }
  }

  @Test func notJSONAndALinkAreRefusedAndMissingKeysAreTheDefaults() throws {
    let directory = try TemporaryDirectory("storage-settings")
    defer { directory.remove() }
    let home = try AssistantHome(root: directory.file("home").path)
    try home.prepare()
    try Data("{}{".utf8).write(to: home.storageFile)
    #expect(throws: HostError.self) { try home.storageSettings() }
    try FileManager.default.removeItem(at: home.storageFile)
    try FileManager.default.createSymbolicLink(atPath: home.storageFile.path, withDestinationPath: "/etc/passwd")
    do {
      _ = try home.storageSettings()
      Issue.record("followed a link")
    } catch let error as HostError {
      #expect(error.status == .dataError, "\(error)")
    }
    try FileManager.default.removeItem(at: home.storageFile)
    try Data(#"{"schemaVersion": 1, "sequence": 1, "content": {}}"#.utf8).write(to: home.storageFile)
    #expect(try home.storageSettings() == StorageSettings())
  }

  /// `VolumeUsage.isFull`: under 1% of the bytes or of the entries left.
  @Test func aVolumeIsFullWithLessThanOnePercentLeft() {
    let roomy = VolumeUsage(usedBytes: 50, availableBytes: 50, usedEntries: 10, availableEntries: 90)
    #expect(!roomy.isFull)
    #expect(VolumeUsage(usedBytes: 995, availableBytes: 5, usedEntries: 10, availableEntries: 90).isFull)
    #expect(VolumeUsage(usedBytes: 50, availableBytes: 50, usedEntries: 999, availableEntries: 0).isFull)
    #expect(!VolumeUsage(usedBytes: 990, availableBytes: 10, usedEntries: 990, availableEntries: 10).isFull)
  }
}
