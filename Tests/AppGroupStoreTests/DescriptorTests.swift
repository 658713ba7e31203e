import AppGroupStore
import Foundation
import Testing
import TestSupport

/// A document keeps its lock and journal open between operations; dropping it closes them.
struct DescriptorTests {
  func openDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
  }

  @Test func droppedDocumentsCloseTheirFiles() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let before = openDescriptors()
    for _ in 0..<200 {
      let document = Document<Counter>(path: dir.file("counter.json").path)
      try document.update { $0.count += 1 }
      _ = try document.read()
    }
    #expect(openDescriptors() - before < 5, "descriptors leak: \(before) before, \(openDescriptors()) after")
    #expect(try Document<Counter>(path: dir.file("counter.json").path).read().count == 200)
  }
}

struct AsyncDescriptorTests {
  func work(_ path: String) async throws {
    let document = Document<Counter>(path: path)
    try document.update { content in
      content.count += 1
      if content.count % 2 == 0 { throw CancellationError() }
    }
  }

  @Test func droppedDocumentsCloseTheirFilesInTasks() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let before = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    for _ in 0..<100 {
      let task = Task { try await work(dir.file("counter.json").path) }
      _ = try? await task.value
    }
    let after = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    #expect(after - before < 5, "descriptors leak: \(before) before, \(after) after")
  }
}
