import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// Copying and removing a hostile folder's contents (`FileTree`), and reading the mount table (`MountEntry`).
@Suite(.tags(.unit))
struct FileTreeTests {
  /// A copy keeps folders, files (their holes and size), links as links (never followed), FIFOs and a file's
  /// second name as a second name; set-user-ID bits are dropped. The control: the source's link does lead out.
  @Test func aCopyFollowsNoLinkAndKeepsWhatItCopies() throws {
    let scratch = try TemporaryDirectory("file-tree")
    defer { scratch.remove() }
    let source = scratch.file("source").path
    let fm = FileManager.default
    try fm.createDirectory(atPath: source + "/Documents/deep", withIntermediateDirectories: true)
    try "secret".write(toFile: scratch.file("outside.txt").path, atomically: true, encoding: .utf8)
    try "hello".write(toFile: source + "/Documents/a.txt", atomically: true, encoding: .utf8)
    try fm.createSymbolicLink(atPath: source + "/escape", withDestinationPath: scratch.file("outside.txt").path)
    #expect(link(source + "/Documents/a.txt", source + "/Documents/deep/second-name") == 0)
    #expect(mkfifo(source + "/pipe", 0o600) == 0)
    let sparse = open(source + "/sparse", O_WRONLY | O_CREAT, 0o4755)
    #expect(ftruncate(sparse, 8 << 20) == 0)
    #expect(pwrite(sparse, "end", 3, (8 << 20) - 3) == 3)
    #expect(fchmod(sparse, 0o4755) == 0)
    close(sparse)
    // The control: the link does lead to the file outside.
    #expect(try String(contentsOfFile: source + "/escape", encoding: .utf8) == "secret")

    try fm.createDirectory(atPath: scratch.file("copy").path, withIntermediateDirectories: false)
    let from = try DirectoryDescriptor.open(source)
    defer { from.close() }
    let to = try DirectoryDescriptor.open(scratch.file("copy").path)
    defer { to.close() }
    let report = try FileTree.copy(from: from, to: to)
    #expect(report.skipped.isEmpty)
    let copy = scratch.file("copy").path
    #expect(try fm.destinationOfSymbolicLink(atPath: copy + "/escape") == scratch.file("outside.txt").path)
    #expect(try String(contentsOfFile: copy + "/Documents/deep/second-name", encoding: .utf8) == "hello")
    var first = stat()
    var second = stat()
    #expect(stat(copy + "/Documents/a.txt", &first) == 0 && stat(copy + "/Documents/deep/second-name", &second) == 0)
    #expect(first.st_ino == second.st_ino && first.st_nlink == 2)
    var pipe = stat()
    #expect(lstat(copy + "/pipe", &pipe) == 0 && pipe.st_mode & S_IFMT == S_IFIFO)
    var holey = stat()
    #expect(stat(copy + "/sparse", &holey) == 0)
    #expect(holey.st_size == 8 << 20)
    #expect(Int(holey.st_blocks) * 512 < 1 << 20, "the hole was written out")
    #expect(holey.st_mode & 0o7777 == 0o755)
    // Removing never follows the link either: the file outside stays.
    try FileTree.removeContents(of: to)
    #expect(try fm.contentsOfDirectory(atPath: copy).isEmpty)
    #expect(try String(contentsOfFile: scratch.file("outside.txt").path, encoding: .utf8) == "secret")
  }

  /// A name that is not UTF-8 is copied and removed as the bytes it is. The control: the repaired name that
  /// `DirectoryDescriptor.entries()` gives does not name the file (a copy by it would have lost it).
  @Test func aNameThatIsNotUTF8IsCopiedAsItIs() throws {
    let scratch = try TemporaryDirectory("file-tree")
    defer { scratch.remove() }
    let fm = FileManager.default
    try fm.createDirectory(atPath: scratch.file("source").path, withIntermediateDirectories: false)
    try fm.createDirectory(atPath: scratch.file("copy").path, withIntermediateDirectories: false)
    let raw: [CChar] = (Array(scratch.file("source").path.utf8) + [0x2F, 0x66, 0xFF, 0x00]).map {
      CChar(bitPattern: $0)
    }
    let fd = open(raw, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    #expect(fd >= 0)
    #expect(write(fd, "odd", 3) == 3)
    close(fd)
    let from = try DirectoryDescriptor.open(scratch.file("source").path)
    defer { from.close() }
    let repaired = try #require(try from.entries().first)
    #expect(access(scratch.file("source").path + "/" + repaired, F_OK) != 0)
    let to = try DirectoryDescriptor.open(scratch.file("copy").path)
    defer { to.close() }
    #expect(try FileTree.copy(from: from, to: to).entries == 1)
    let copied: [CChar] = (Array(scratch.file("copy").path.utf8) + [0x2F, 0x66, 0xFF, 0x00]).map {
      CChar(bitPattern: $0)
    }
    var info = stat()
    #expect(stat(copied, &info) == 0 && info.st_size == 3)
    try FileTree.removeContents(of: from)
    #expect(try fm.contentsOfDirectory(atPath: scratch.file("source").path).isEmpty)
  }

  @Test func aMountInfoLineIsParsedWithItsEscapes() throws {
    let line: Substring =
      "42 27 7:3 / /tmp/a\\040home/Containers/com.x rw,nosuid,nodev,noexec,relatime shared:1 - ext4 /dev/loop3 rw"
    let entry = try #require(MountEntry(line: line))
    #expect(entry.id == 42 && entry.parentID == 27)
    #expect(entry.device == DeviceNumber(major: 7, minor: 3))
    #expect(entry.root == "/")
    #expect(entry.mountPoint == "/tmp/a home/Containers/com.x")
    #expect(entry.options.isSuperset(of: ["nosuid", "nodev", "noexec"]))
    #expect(entry.fileSystem == "ext4" && entry.source == "/dev/loop3")
    #expect(MountEntry(line: "garbage") == nil)
    #expect(MountEntry(line: "1 2 x / / rw - ext4 /dev/x rw") == nil)
    // This process's own table parses, and has its root.
    #expect(try MountEntry.all().contains { $0.mountPoint == "/" })
  }
}
