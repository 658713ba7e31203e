@_spi(Testing) import AppGroupStore
import Foundation
import TestSupport
import Testing

/// The on-disk format as AppGroup/README.md documents it, proven with a second implementation written from that page
/// alone: docs/examples/python/appgroup.py, run with the system's /usr/bin/python3 (not sandboxed). Python writes and
/// Swift reads, Swift writes and Python reads, through journal records, checkpoints, records written over older ones
/// and a torn tail; and the two take the same lock.
@Suite(.serialized, .tags(.process))
struct JournalFormatTests {
  static let python = "/usr/bin/python3"
  static let script = PackagePaths.root.appendingPathComponent("docs/examples/python/appgroup.py").path

  /// What the Python side reads: the content as JSON text (keys sorted) and the sequence.
  struct Read: Equatable, CustomStringConvertible {
    var content: String
    var sequence: UInt64
    var description: String { "\(content) @\(sequence)" }
  }

  /// Runs appgroup.py with `arguments`, failing the test (not skipping it) when Python is missing or the script fails.
  @discardableResult
  static func appgroup(_ arguments: [String]) async throws -> String {
    guard FileManager.default.isExecutableFile(atPath: python) else {
      Issue.record("\(python) is missing: these tests need the system's Python 3 (Debian's python3 package)")
      throw CancellationError()
    }
    let result = try await runCommand(python, [script] + arguments, timeout: .seconds(60))
    #expect(result.code == 0, "appgroup.py \(arguments.joined(separator: " ")): \(result)")
    return result.stdout
  }

  /// The document as Python reads it.
  static func pythonRead(_ folder: String, _ name: String) async throws -> Read {
    let output = try await appgroup(["read", folder, name])
    let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
    let content = try JSONSerialization.data(
      withJSONObject: object["content"]!, options: [.sortedKeys, .fragmentsAllowed])
    return Read(
      content: String(decoding: content, as: UTF8.self), sequence: (object["sequence"] as! NSNumber).uint64Value)
  }

  /// The document as Swift reads it, in the same form.
  static func swiftRead(_ document: Document<AnyDocumentContent>) async throws -> Read {
    let snapshot = try await document.snapshot()
    let content = try JSONSerialization.data(
      withJSONObject: JSONSerialization.jsonObject(
        with: Data(snapshot.content.value.jsonText().utf8), options: [.fragmentsAllowed]),
      options: [.sortedKeys, .fragmentsAllowed])
    return Read(content: String(decoding: content, as: UTF8.self), sequence: snapshot.sequence)
  }

  static func document(_ dir: TemporaryDirectory, compactEvery: Int = 4) -> Document<AnyDocumentContent> {
    var document = Document<AnyDocumentContent>(path: dir.file("notes.json").path)
    document.compactionRecords = compactEvery
    return document
  }

  /// The README's test vector is what the Swift store writes: the record of a counter's third update.
  @Test func theDocumentedRecordIsTheStoresOwn() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = Document<Counter>(path: dir.file("counter.json").path)
    for _ in 0..<3 { try await document.update { $0.count += 1 } }
    let journal = try String(contentsOfFile: document.journalPath, encoding: .utf8)
    let lines = journal.split(separator: "\n").filter { $0.hasPrefix("IHJ1 ") }
    #expect(
      lines.last
        == #"IHJ1 00000036 b2dc9603 0000000000000003 {"content":{"count":3},"schemaVersion":1,"sequence":3}"#)
    #expect(try await Self.pythonRead(dir.path, "counter.json") == Read(content: #"{"count":3}"#, sequence: 3))
  }

  /// Swift writes; Python reads the same state at every step: records only, a checkpoint, records written over the
  /// old ones from offset 0, and a torn tail.
  @Test func swiftWritesAndPythonReads() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = Self.document(dir)
    #expect(try await Self.pythonRead(dir.path, "notes.json") == Read(content: "null", sequence: 0))
    let texts = ["milk", "thé vert", "日本語", "a \"quoted\" line\nand a second", "emoji 🧗", "last"]
    for (index, text) in texts.enumerated() {
      try await document.update { content in
        var notes: [JSONValue] = []
        if case .array(let old)? = content.value["notes"] { notes = old }
        notes.append(.string(text))
        content.value = .object(["notes": .array(notes), "count": .integer(index + 1)])
      }
      // 1-3: journal records; 4: a checkpoint; 5-6: records over the old ones.
      #expect(
        try await Self.pythonRead(dir.path, "notes.json") == Self.swiftRead(document), "after update \(index + 1)")
    }
    #expect(FileManager.default.fileExists(atPath: document.path))
    #expect(try await Self.pythonRead(dir.path, "notes.json").sequence == 6)
    // A writer killed mid-record: a torn record after the chain is ignored by both.
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: document.journalPath))
    let records = try String(contentsOfFile: document.journalPath, encoding: .utf8).components(separatedBy: "\n")
      .prefix(2).map { $0.utf8.count + 1 }.reduce(0, +)
    try handle.seek(toOffset: UInt64(records))
    try handle.write(contentsOf: Data(#"IHJ1 00000036 00000000 0000000000000007 {"content":{"#.utf8))
    try handle.close()
    #expect(try await Self.pythonRead(dir.path, "notes.json") == Self.swiftRead(document))
    #expect(try await Self.pythonRead(dir.path, "notes.json").sequence == 6)
  }

  /// Python writes; Swift reads the same state at every step, and then writes after Python's records, which Python
  /// reads back.
  @Test func pythonWritesAndSwiftReads() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = Self.document(dir, compactEvery: 256)
    var expected: [Read] = []
    let steps: [(json: String, checkpoint: Bool)] = [
      (#"{"notes":["milk"]}"#, false), (#"{"notes":["milk","thé vert"]}"#, false),
      (#"{"notes":["milk","thé vert","日本語"]}"#, true),  // a checkpoint: the two records are old now
      (#"{"notes":["emoji 🧗"]}"#, false),  // written at offset 0, over the old first record
      (#"{"notes":["emoji 🧗","last"],"count":5}"#, false),
    ]
    for (index, step) in steps.enumerated() {
      try await Self.appgroup(["write", dir.path, "notes.json", step.json] + (step.checkpoint ? ["--checkpoint"] : []))
      let swift = try await Self.swiftRead(document)
      expected.append(swift)
      #expect(swift.sequence == UInt64(index + 1))
      #expect(swift == (try await Self.pythonRead(dir.path, "notes.json")), "after step \(index + 1)")
    }
    #expect(expected[2].content == #"{"notes":["milk","thé vert","日本語"]}"#)
    #expect(expected[4].content == #"{"count":5,"notes":["emoji 🧗","last"]}"#)
    // Swift goes on after Python's records, and Python reads what it wrote.
    try await document.update { $0.value = .object(["notes": .array([.string("from Swift")])]) }
    #expect(
      try await Self.pythonRead(dir.path, "notes.json") == Read(content: #"{"notes":["from Swift"]}"#, sequence: 6))
    try await Self.appgroup(["increment", dir.path, "notes.json", "count", "3"])
    #expect(try await Self.swiftRead(document) == Read(content: #"{"count":3,"notes":["from Swift"]}"#, sequence: 9))
  }

  /// Both count on one document, 60 updates each at once: none is lost, so the two take the same lock.
  @Test func pythonAndSwiftShareTheLock() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let document = Document<Counter>(path: dir.file("counter.json").path)
    async let python: String = Self.appgroup(["increment", dir.path, "counter.json", "count", "60"])
    for _ in 0..<60 { try await document.update { $0.count += 1 } }
    _ = try await python
    #expect(try await document.snapshot().content.count == 120)
    #expect(try await document.snapshot().sequence == 120)
  }

  /// While Python holds the lock between its read and its write, a Swift update waits for it, so the count is 2.
  /// Control: a Swift writer that skips the lock writes at once, and Python's write then loses it (the count is 1).
  @Test(arguments: [true, false])
  func aSwiftUpdateWaitsForPythonsLock(locking: Bool) async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    var document = Document<Counter>(path: dir.file("counter.json").path)
    document.lockingDisabled = !locking
    let ready = dir.file("ready").path
    let go = dir.file("go").path
    async let python: String = Self.appgroup(["hold", dir.path, "counter.json", ready, go])
    #expect(try await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: ready) })
    // Python has read the count (0) and holds the lock.
    let swift = Task { [document] in try await document.update { $0.count += 1 } }
    if !locking {
      try await swift.value  // nothing stops it: it writes 1 while Python still holds 0
      #expect(try await document.snapshot().content.count == 1)
    }
    #expect(FileManager.default.createFile(atPath: go, contents: nil))
    _ = try await python
    try await swift.value
    let snapshot = try await document.snapshot()
    #expect(snapshot.content.count == (locking ? 2 : 1))
  }
}
