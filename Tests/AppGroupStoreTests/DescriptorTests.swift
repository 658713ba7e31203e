import AppGroupStore
import Foundation
import TestSupport
import Testing

/// A document keeps its lock and journal open between operations; dropping it closes them.
@Suite(.tags(.process))
struct DescriptorTests {
  /// Descriptors of this process open on files under `directory` (other tests run beside this one).
  static func openDescriptors(under directory: String) -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).filter { fd in
      ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? "").hasPrefix(directory)
    }.count
  }

  @Test func droppedDocumentsCloseTheirFiles() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    for _ in 0..<200 {
      let document = Document<Counter>(path: dir.file("counter.json").path)
      try await document.update { $0.count += 1 }
      _ = try await document.read()
    }
    #expect(Self.openDescriptors(under: dir.path) == 0)
    #expect(try await Document<Counter>(path: dir.file("counter.json").path).read().count == 200)
  }
}

@Suite(.tags(.process))
struct AsyncDescriptorTests {
  func work(_ path: String) async throws {
    let document = Document<Counter>(path: path)
    try await document.update { content in
      content.count += 1
      if content.count % 2 == 0 { throw CancellationError() }
    }
  }

  @Test func droppedDocumentsCloseTheirFilesInTasks() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    for _ in 0..<100 {
      let task = Task { try await work(dir.file("counter.json").path) }
      _ = try? await task.value
    }
    #expect(DescriptorTests.openDescriptors(under: dir.path) == 0)
  }
}
