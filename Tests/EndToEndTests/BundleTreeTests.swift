import Foundation
import TestSupport
import Testing

/// A bundle holds only regular files and folders: install refuses a link (which could change a manifest after install
/// or read a file outside the bundle) and a FIFO (which would hang the copy), naming the entry, and leaves nothing.
@Suite(.serialized, .tags(.endToEnd))
struct BundleTreeTests {
  /// Entitlements that are a link to a file the installer does not own: after install, whoever writes that file would
  /// choose the app's groups. Refused; the control shows a plain copy keeps the link, so the manifest would follow it.
  @Test func aLinkedManifestIsRefused() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    let outside = host.directory.file("outside.entitlements")
    let entitlements = app.appendingPathComponent("Rooms.entitlements")
    try FileManager.default.moveItem(at: entitlements, to: outside)
    try FileManager.default.createSymbolicLink(at: entitlements, withDestinationURL: outside)
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 65, "\(installed)")
    #expect(installed.stderr.contains("Rooms.entitlements is a symbolic link"), "\(installed)")
    #expect(!FileManager.default.fileExists(atPath: host.home + "/Applications/Rooms.app"))
    // Control: FileManager's copy (what install used before) keeps the link.
    let copied = host.directory.file("copied.app")
    try FileManager.default.copyItem(at: app, to: copied)
    #expect(
      (try? FileManager.default.destinationOfSymbolicLink(
        atPath: copied.appendingPathComponent("Rooms.entitlements")
          .path)) == outside.path)
  }

  /// A FIFO in the bundle: install refuses it at once instead of hanging on it, and leaves no staging folder.
  @Test func aFIFOInTheBundleIsRefusedWithoutHanging() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await TestBundles.rooms(in: host.directory.file("bundles"))
    #expect(mkfifo(app.appendingPathComponent("Resources.fifo").path, 0o644) == 0)
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 65, "\(installed)")
    #expect(installed.stderr.contains("Resources.fifo is a FIFO"), "\(installed)")
    let left = try FileManager.default.contentsOfDirectory(atPath: host.home + "/Applications")
    #expect(left.isEmpty, "\(left)")
  }

  /// The installed copy has the bundle's files and their executable bits, and runs.
  @Test func theCopyKeepsFilesAndExecutableBits() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let installed = host.home + "/Applications/Rooms.app/PlugIns/RoomsIntents.appex/RoomsIntents"
    #expect(FileManager.default.isExecutableFile(atPath: installed))
    let booked = try await host.assistant(["run", "Rooms", "BookRoom", "roomNumber=3", "bookedBy=Ada"])
    #expect(booked.code == 0, "\(booked)")
  }
}
