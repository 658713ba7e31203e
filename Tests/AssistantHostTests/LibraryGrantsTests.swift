import Foundation
import IntentHostSystem
import TestSupport
import Testing

@testable import AssistantHost

/// The sandbox's library rules in-process: the ELF parser on hostile files, and the grants worked out for the built
/// executables of this package (the control: they are granted exact files and nothing is refused).
@Suite(.tags(.unit)) struct LibraryGrantsTests {
  /// An app bundle in a temporary directory holding a copy of the built executable `product`.
  func bundle(with product: String, in directory: TemporaryDirectory) throws -> (app: String, executable: String) {
    let appex = directory.file("Fixture.app/PlugIns/X.appex")
    try FileManager.default.createDirectory(at: appex, withIntermediateDirectories: true)
    let executable = appex.appendingPathComponent("X").path
    try FileManager.default.copyItem(atPath: PackagePaths.executable(product), toPath: executable)
    return (directory.file("Fixture.app").path, executable)
  }

  @Test func aDynamicSwiftExecutableGetsExactFiles() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (app, executable) = try bundle(with: "HostileExtension", in: directory)
    let grants = LibraryGrants.resolve(executable: executable, appBundle: app)
    #expect(grants.problems.isEmpty, "\(grants.problems)")
    #expect(grants.interpreter?.hasPrefix("/lib") == true, "\(String(describing: grants.interpreter))")
    #expect(grants.libraries.contains { $0.hasSuffix("/libc.so.6") }, "\(grants.libraries)")
    #expect(grants.libraries.contains { $0.hasSuffix("/libswiftCore.so") }, "\(grants.libraries)")
    // Libraries of libraries too (Foundation's ICU), and never a folder.
    #expect(grants.libraries.contains { $0.hasSuffix("/lib_FoundationICU.so") }, "\(grants.libraries)")
    for library in grants.libraries {
      var status = stat()
      #expect(stat(library, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG, "\(library)")
      #expect(isInside(library, LibraryGrants.trustedFolders.map { realPath($0) ?? $0 }), "\(library)")
    }
  }

  @Test func aStaticSwiftExecutableNeedsOnlyTheCLibraries() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (app, executable) = try bundle(with: "RoomsIntents", in: directory)
    let info = try #require(ELFInfo.read(executable))
    #expect(info.runPath == ["$ORIGIN"], "\(info)")
    let grants = LibraryGrants.resolve(executable: executable, appBundle: app)
    #expect(grants.problems.isEmpty, "\(grants.problems)")
    #expect(!grants.libraries.contains { $0.contains("swift") }, "\(grants.libraries)")
  }

  /// A library in the bundle that is a link to a file outside is never granted: the real path decides, and the
  /// loader is sent on to the system's copy.
  @Test func aLinkInTheBundleIsNotFollowedOut() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let secret = directory.file("secret").path
    try "PRIVATE KEY".write(toFile: secret, atomically: true, encoding: .utf8)
    let (app, executable) = try bundle(with: "RoomsIntents", in: directory)
    // RoomsIntents has RUNPATH $ORIGIN: the loader looks beside it first.
    try FileManager.default.createSymbolicLink(
      atPath: (executable as NSString).deletingLastPathComponent + "/libc.so.6", withDestinationPath: secret)
    let grants = LibraryGrants.resolve(executable: executable, appBundle: app)
    #expect(grants.problems.isEmpty, "\(grants.problems)")
    #expect(!grants.libraries.contains(secret), "\(grants.libraries)")
    #expect(grants.libraries.contains { $0.hasSuffix("/libc.so.6") && $0 != secret }, "\(grants.libraries)")
  }

  @Test func anExecutableLinkedFromOutsideIsAProblem() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let appex = directory.file("Fixture.app/PlugIns/X.appex")
    try FileManager.default.createDirectory(at: appex, withIntermediateDirectories: true)
    let executable = appex.appendingPathComponent("X").path
    try FileManager.default.createSymbolicLink(
      atPath: executable, withDestinationPath: PackagePaths.executable("RoomsIntents"))
    let grants = LibraryGrants.resolve(executable: executable, appBundle: directory.file("Fixture.app").path)
    #expect(grants.problems.map(\.rule) == [.executableOutsideBundle])
    #expect(grants.libraries.isEmpty)
  }

  /// Hostile files: truncated ELF headers at every length, garbage, a FIFO (which must not stall the host), a
  /// folder. The parser answers nil or a partial result, and never traps.
  @Test func theParserSurvivesHostileFiles() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let real = try Data(contentsOf: URL(fileURLWithPath: PackagePaths.executable("RoomsIntents")))
    let path = directory.file("elf").path
    for length in [0, 4, 16, 63, 64, 65, 120, 500, 4096, 20_000] {
      try real.prefix(length).write(to: URL(fileURLWithPath: path))
      _ = ELFInfo.read(path)
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      var bytes = [UInt8](real.prefix(4096))
      for _ in 0..<32 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255) }
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      _ = ELFInfo.read(path)
    }
    // Huge offsets and sizes in an otherwise valid header.
    var header = [UInt8](real.prefix(64))
    for offset in 32..<40 { header[offset] = 0xFF }  // e_phoff
    try Data(header).write(to: URL(fileURLWithPath: path))
    #expect(ELFInfo.read(path) == nil)
    let fifo = directory.file("fifo").path
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(ELFInfo.read(fifo) == nil)
    #expect(ELFInfo.read(directory.path) == nil)
  }

  @Test func pathsAreNormalizedAsText() {
    #expect(normalized("/usr/lib/../../home/./user//.ssh") == "/home/user/.ssh")
    #expect(normalized("/..") == "/")
    #expect(isInside("/usr/lib/x86_64-linux-gnu/libc.so.6", ["/usr/lib"]))
    #expect(!isInside("/usr/libexec/x", ["/usr/lib"]))
    #expect(isInside("/anything", ["/"]))
  }
}

/// `DiskUsage.measure`: a bounded walk that counts links without following them.
@Suite(.tags(.unit)) struct DiskUsageTests {
  @Test func countsEntriesAndAllocatedBytesWithoutFollowingLinks() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let root = directory.file("container").path
    try FileManager.default.createDirectory(atPath: root + "/a/b", withIntermediateDirectories: true)
    try Data(repeating: 1, count: 100_000).write(to: URL(fileURLWithPath: root + "/a/b/file"))
    // A link to a big folder outside counts as one entry of no size.
    let outside = directory.file("outside").path
    try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    try Data(repeating: 2, count: 1_000_000).write(to: URL(fileURLWithPath: outside + "/big"))
    try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: outside)
    let usage = try DiskUsage.measure(root, bytes: 1 << 30, entries: 1000)
    #expect(usage.entries == 4, "\(usage)")  // a, a/b, a/b/file, link
    #expect(usage.bytes >= 100_000 && usage.bytes < 500_000, "\(usage)")
    #expect(!usage.isPartial)
    // The root itself must be a folder, not a link to one.
    #expect(throws: SystemError.self) { try DiskUsage.measure(root + "/link", bytes: 1 << 30, entries: 1000) }
  }

  @Test func stopsAtTheLimitsAndTheDepth() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let root = directory.file("container").path
    var deep = root
    for level in 0..<10 { deep += "/\(level)" }
    try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
    for index in 0..<50 { #expect(FileManager.default.createFile(atPath: root + "/f\(index)", contents: nil)) }
    let few = try DiskUsage.measure(root, bytes: 1 << 30, entries: 20)
    #expect(few.isPartial && few.entries == 21, "\(few)")
    let shallow = try DiskUsage.measure(root, bytes: 1 << 30, entries: 1000, depthLimit: 5)
    #expect(shallow.tooDeep, "\(shallow)")
    let whole = try DiskUsage.measure(root, bytes: 1 << 30, entries: 1000)
    #expect(!whole.isPartial && whole.entries == 60, "\(whole)")
  }
}
