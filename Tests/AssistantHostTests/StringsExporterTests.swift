import Foundation
import TestSupport
import Testing

@testable import AssistantHost

/// The strings exporter writes only tables it can read back: a table over the size limit is refused before it is
/// written (naming the file and the limit, the old table left as it was), and one found over it is read as a data
/// error naming it; the control, a limit the table fits.
@Suite(.tags(.unit))
struct StringsExporterTests {
  @Test func exportNeverWritesATableItCannotReadBack() async throws {
    let directory = try TemporaryDirectory("strings-limit")
    defer { directory.remove() }
    try await offThePool { () throws in
      let app = try TestBundles.roomsManifests(in: directory.url)
      let first = try StringsExporter.export(path: app.path, locale: "de", xliff: false, limit: 1 << 20)
      let table = first[0].file
      let size = try Data(contentsOf: URL(fileURLWithPath: table)).count
      // Control: a limit the table fits is fine, again.
      #expect(try StringsExporter.export(path: app.path, locale: "de", xliff: false, limit: size).count == 1)
      // One byte less: refused before writing, naming the file and the limit; the table is left as it was.
      let write = try #require(throws: HostError.self) {
        try StringsExporter.export(path: app.path, locale: "de", xliff: false, limit: size - 1)
      }
      #expect(write.status == .dataError, "\(write)")
      #expect(write.message.contains(table) && write.message.contains("limit of \(size - 1) bytes"), "\(write)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: table)).count == size)
      // A table over the limit is read as 65 naming it and the limit (not 73 with no path).
      try Data(count: size + 10).write(to: URL(fileURLWithPath: table))
      let read = try #require(throws: HostError.self) {
        try StringsExporter.export(path: app.path, locale: "de", xliff: false, limit: size)
      }
      #expect(read.status == .dataError, "\(read)")
      #expect(read.message.contains(table) && read.message.contains("limit of \(size) bytes"), "\(read)")
    }
  }
}
