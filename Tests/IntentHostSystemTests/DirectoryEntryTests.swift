import Foundation
import Glibc
import IntentHostSystem
import TestSupport
import Testing

/// A `readdir` record is as long as its name: its fields are read in place, never by copying a whole `dirent`.
@Suite(.tags(.unit))
struct DirectoryEntryTests {
  /// A short record placed so that it ends where a page that cannot be read begins, as the last record of the
  /// kernel's buffer can: reading its name and type touches no byte past it. Copying `entry.pointee` (280 bytes)
  /// crashes here, as listing /usr/share did.
  @Test func aShortRecordAtTheEndOfAPageIsReadInPlace() throws {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let mapping = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
    try #require(mapping != MAP_FAILED)
    defer { munmap(mapping, 2 * page) }
    #expect(mprotect(mapping + page, page, PROT_NONE) == 0)
    let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    let recordLength = (nameOffset + 2 + 7) & ~7  // "a" and its NUL, rounded to 8 as the kernel does
    let record = mapping + page - recordLength
    record.storeBytes(
      of: UInt16(recordLength), toByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_reclen)!, as: UInt16.self)
    record.storeBytes(of: UInt8(DT_DIR), toByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_type)!, as: UInt8.self)
    record.storeBytes(of: UInt8(ascii: "a"), toByteOffset: nameOffset, as: UInt8.self)
    record.storeBytes(of: UInt8(0), toByteOffset: nameOffset + 1, as: UInt8.self)
    let entry = record.assumingMemoryBound(to: dirent.self)
    #expect(entry.name == "a")
    #expect(entry.type == UInt8(DT_DIR))
    #expect(entry.isDirectoryOrUnknown)
    #expect(strcmp(entry.namePointer, "a") == 0)
  }

  @Test func aFolderIsListedByName() throws {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    for name in ["one", "caf\u{E9}"] {
      #expect(FileManager.default.createFile(atPath: folder.path + "/" + name, contents: nil))
    }
    let stream = try #require(opendir(folder.path))
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      guard entry.name != "." && entry.name != ".." else { continue }
      names.append(entry.name)
      #expect(entry.type == UInt8(DT_REG))
    }
    #expect(names.sorted() == ["caf\u{E9}", "one"])
  }
}
