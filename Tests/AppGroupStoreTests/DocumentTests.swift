@_spi(Testing) import AppGroupStore
import Foundation
import TestSupport
import Testing

struct Counter: DocumentContent, Equatable {
  static let schemaVersion = 1
  var count = 0
  init() {}
}

@Suite(.tags(.process))
struct DocumentTests {
  @Test func updateThenRead() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let container = try AppGroupContainer(identifier: "group.com.example.test", path: dir.file("g").path)
    let document: Document<Counter> = container.document("counter.json")
    #expect(try await document.read().count == 0)
    for _ in 0..<3 { try await document.update { $0.count += 1 } }
    #expect(try await document.read().count == 3)
  }

  /// Two writers with files of their own (as two processes have) take turns: each update starts from the other's
  /// commit, across checkpoints, though each keeps its last state to skip reading the journal. Control: trusting the
  /// kept state without looking for a newer record loses the other writer's updates.
  @Test(arguments: [true, false])
  func aKeptStateNeverHidesAnotherWritersCommit(checking: Bool) async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    var first = Document<Counter>(path: dir.file("counter.json").path)
    var second = Document<Counter>(path: dir.file("counter.json").path)
    first.compactionRecords = 5
    second.compactionRecords = 5
    first.trustsKeptState = !checking
    second.trustsKeptState = !checking
    for _ in 0..<20 {
      try await first.update { $0.count += 1 }
      try await second.update { $0.count += 1 }
    }
    let count = try await Document<Counter>(path: dir.file("counter.json").path).read().count
    if checking {
      #expect(count == 40)
    } else {
      #expect(count < 40, "the control lost nothing: the kept state was not used")
    }
    // The same writer alone keeps its state and loses nothing either.
    for _ in 0..<10 { try await first.update { $0.count += 1 } }
    #expect(try await second.read().count == count + 10)
  }

  @Test func corruptDocumentIsNamedAndLeftAlone() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
    let document = Document<Counter>(path: path)
    await #expect(throws: StoreError.corrupt(file: path, detail: "not a JSON document with a schemaVersion")) {
      try await document.update { $0.count += 1 }
    }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "{not json")
  }

  @Test func newerSchemaIsRefusedAndLeftAlone() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    let text = #"{"schemaVersion":2,"content":{"count":5}}"#
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    await #expect(throws: StoreError.newerSchema(file: path, found: 2, known: 1)) {
      try await Document<Counter>(path: path).update { $0.count += 1 }
    }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
  }

  @Test(arguments: ["com.example.rooms", "group.", "group.rooms", "group.com..rooms", "group.com.ex ample"])
  func badGroupIdentifiersAreRefused(identifier: String) async throws {
    #expect(AppGroupContainer.identifierProblem(identifier) != nil)
  }

  @Test func goodGroupIdentifierIsAccepted() {
    #expect(AppGroupContainer.identifierProblem("group.com.example.rooms") == nil)
  }
}
