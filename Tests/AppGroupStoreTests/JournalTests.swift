import AppGroupStore
import Foundation
import TestSupport
import Testing

/// The on-disk format: journal records, compaction, torn tails, leftovers, recovery.
@Suite(.tags(.process))
struct JournalTests {
  func counter(_ dir: TemporaryDirectory, compactEvery: Int = 64) -> Document<Counter> {
    var document = Document<Counter>(path: dir.file("counter.json").path)
    document.compactionRecords = compactEvery
    return document
  }

  @Test func updatesAppendToTheJournalAndCompactionFoldsThem() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = counter(dir, compactEvery: 4)
    for _ in 0..<3 { try await document.update { $0.count += 1 } }
    #expect(!FileManager.default.fileExists(atPath: document.path))
    let journal = try String(contentsOfFile: document.journalPath, encoding: .utf8)
    // The rest of the file is zeros, allocated ahead for the next records.
    let lines = journal.split(separator: "\n").filter { $0.hasPrefix("IHJ1 ") }
    #expect(lines.count == 3)
    #expect(journal.hasSuffix("\0"))
    #expect(lines[2].hasPrefix("IHJ1 00000036 "))
    #expect(lines[2].hasSuffix(" 0000000000000003 " + #"{"content":{"count":3},"schemaVersion":1,"sequence":3}"#))
    // The fourth update writes a checkpoint; the journal's records are now older than it.
    try await document.update { $0.count += 1 }
    let checkpoint = try String(contentsOfFile: document.path, encoding: .utf8)
    #expect(checkpoint.contains(#""count" : 4"#))
    #expect(checkpoint.contains(#""sequence" : 4"#))
    #expect(try await document.snapshot().sequence == 4)
    // The fifth is written over the old records from the start; the file does not grow.
    let size = try FileManager.default.attributesOfItem(atPath: document.journalPath)[.size] as? Int
    try await document.update { $0.count += 1 }
    #expect(try FileManager.default.attributesOfItem(atPath: document.journalPath)[.size] as? Int == size)
    let rewritten = try String(contentsOfFile: document.journalPath, encoding: .utf8)
    #expect(rewritten.hasPrefix("IHJ1 00000036 "))
    #expect(rewritten.contains(" 0000000000000005 " + #"{"content":{"count":5},"schemaVersion":1,"sequence":5}"#))
    let snapshot = try await document.snapshot()
    #expect(snapshot.content.count == 5)
    #expect(snapshot.sequence == 5)
  }

  @Test(arguments: [
    "IHJ1 0000",  // a header cut short
    "IHJ1 00000036 00000000 0000000000000003 {\"content\":{\"count\":99}",  // a record cut short
    "IHJ1 00000036 12345678 0000000000000003 {\"content\":{\"count\":99},\"schemaVersion\":1,\"sequence\":3}\n",
    "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",  // zeros
  ])
  func aTornTailIsIgnoredThenOverwritten(tail: String) async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = counter(dir)
    for _ in 0..<2 { try await document.update { $0.count += 1 } }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: document.journalPath))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(tail.utf8))
    try handle.close()
    #expect(try await document.snapshot().content.count == 2)
    for _ in 0..<2 { try await document.update { $0.count += 1 } }
    let snapshot = try await document.snapshot()
    #expect(snapshot.content.count == 4)
    #expect(snapshot.sequence == 4)
    let journal = try String(contentsOfFile: document.journalPath, encoding: .utf8)
    #expect(journal.split(separator: "\n").prefix(4).allSatisfy { $0.hasPrefix("IHJ1 ") && !$0.contains("99") })
  }

  @Test func journalRecordsOlderThanTheCheckpointAreIgnored() async throws {
    // A compaction killed after its rename but before emptying the journal leaves records the checkpoint has.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = counter(dir, compactEvery: 3)
    for _ in 0..<2 { try await document.update { $0.count += 1 } }
    let stale = try Data(contentsOf: URL(fileURLWithPath: document.journalPath))
    try await document.update { $0.count += 1 }  // compacts: checkpoint holds 3
    try stale.write(to: URL(fileURLWithPath: document.journalPath))
    #expect(try await document.read().count == 3)
    try await document.update { $0.count += 1 }
    #expect(try await document.read().count == 4)
  }

  @Test func temporaryFilesOfKilledWritersAreRemoved() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = counter(dir, compactEvery: 1)
    let leftover = dir.file(".counter.json.tmp-999999").path
    _ = FileManager.default.createFile(atPath: leftover, contents: Data("half a docu".utf8))
    #expect(try await document.read().count == 0)  // readers ignore it
    try await document.update { $0.count += 1 }
    #expect(!FileManager.default.fileExists(atPath: leftover))
    #expect(try await document.read().count == 1)
  }

  @Test func aCorruptJournalRecordIsAnErrorNotALoss() async throws {
    // A record with a valid checksum whose JSON is not a document is real corruption, not a torn write.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = counter(dir)
    try await document.update { $0.count += 1 }
    let payload = Array(#"{"nonsense":true}"#.utf8)
    let record =
      "IHJ1 " + String(format: "%08x", payload.count) + " " + String(format: "%08x", crc32(payload))
      + " 0000000000000002 " + String(decoding: payload, as: UTF8.self) + "\n"
    // Written right after the first record, where the second belongs.
    var bytes = try Data(contentsOf: URL(fileURLWithPath: document.journalPath))
    let second = bytes.firstIndex(of: 0x0A)! + 1
    bytes.replaceSubrange(second..<second + record.utf8.count, with: Data(record.utf8))
    let before = bytes
    try before.write(to: URL(fileURLWithPath: document.journalPath))
    await #expect(
      throws: StoreError.corrupt(file: document.journalPath, detail: "its newest intact record is not a document")
    ) {
      try await document.update { $0.count += 1 }
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: document.journalPath)) == before)
  }

  @Test func recoveryKeepsTheBadFileAsideAndUsesWhatIsReadable() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = counter(dir, compactEvery: 3)
    for _ in 0..<4 { try await document.update { $0.count += 1 } }  // checkpoint 3, journal holds 4
    try Data("{garbage".utf8).write(to: URL(fileURLWithPath: document.path))
    await #expect(throws: StoreError.self) { try await document.read() }
    let report = try await document.recover()
    #expect(report.steps.count == 2, "\(report.steps)")
    #expect(report.steps[0].contains("moved \(document.path) aside"))
    let aside = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".unreadable-") }
    #expect(aside.count == 1)
    #expect(try String(contentsOfFile: dir.file(aside[0]).path, encoding: .utf8) == "{garbage")
    #expect(try await document.read().count == 4)
    #expect(try await document.recover().steps == ["\(document.path) is readable (sequence 5); nothing to recover"])
  }

  @Test func sharedDefaultsRoundTrip() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let container = try AppGroupContainer(identifier: "group.com.example.test", path: dir.file("g").path)
    try await container.defaults.set(.integer(3), forKey: "launches")
    try await container.defaults.set(.string("Ada"), forKey: "lastUser")
    #expect(try await container.defaults.integer(forKey: "launches") == 3)
    #expect(try await container.defaults.string(forKey: "lastUser") == "Ada")
    try await container.defaults.set(nil, forKey: "launches")
    #expect(try await container.defaults.dictionaryRepresentation() == ["lastUser": .string("Ada")])
    #expect(container.defaultsPath.hasSuffix("/Library/Preferences/group.com.example.test.json"))
  }
}

/// CRC-32 as zlib computes it, written out here so the test does not trust the code under test.
func crc32(_ bytes: [UInt8]) -> UInt32 {
  var crc: UInt32 = 0xFFFF_FFFF
  for byte in bytes {
    crc ^= UInt32(byte)
    for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
  }
  return crc ^ 0xFFFF_FFFF
}
