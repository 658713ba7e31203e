import AppGroupStore
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
