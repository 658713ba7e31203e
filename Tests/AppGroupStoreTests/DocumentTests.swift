import AppGroupStore
import Foundation
import TestSupport
import Testing

struct Counter: DocumentContent, Equatable {
  static let schemaVersion = 1
  var count = 0
  init() {}
}

struct DocumentTests {
  @Test func updateThenRead() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let container = try AppGroupContainer(identifier: "group.com.example.test", path: dir.file("g").path)
    let document: Document<Counter> = container.document("counter.json")
    #expect(try document.read().count == 0)
    for _ in 0..<3 { try document.update { $0.count += 1 } }
    #expect(try document.read().count == 3)
  }

  @Test func corruptDocumentIsNamedAndLeftAlone() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
    let document = Document<Counter>(path: path)
    #expect(throws: StoreError.corrupt(file: path, detail: "not a JSON document with a schemaVersion")) {
      try document.update { $0.count += 1 }
    }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "{not json")
  }

  @Test func newerSchemaIsRefusedAndLeftAlone() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("counter.json").path
    let text = #"{"schemaVersion":2,"content":{"count":5}}"#
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    #expect(throws: StoreError.newerSchema(file: path, found: 2, known: 1)) {
      try Document<Counter>(path: path).update { $0.count += 1 }
    }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
  }

  @Test(arguments: ["com.example.rooms", "group.", "group.rooms", "group.com..rooms", "group.com.ex ample"])
  func badGroupIdentifiersAreRefused(identifier: String) throws {
    #expect(AppGroupContainer.identifierProblem(identifier) != nil)
  }

  @Test func goodGroupIdentifierIsAccepted() {
    #expect(AppGroupContainer.identifierProblem("group.com.example.rooms") == nil)
  }
}
