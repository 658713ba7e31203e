import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// Loop devices as the volumes use them: an image attached once is found again by its device and inode (so that a
/// second host mounts the same device instead of attaching the image twice), and detaches itself when its last
/// user goes (`LO_FLAGS_AUTOCLEAR`).
@Suite(.serialized, .tags(.process))
struct LoopDeviceTests {
  @Test(
    .enabled("loop mounts are possible here (else LoopMounts says why)") { await LoopMounts.unavailableReason() == nil }
  )
  func anAttachedImageIsFoundByItsInodeAndDetachesItself() throws {
    let scratch = try TemporaryDirectory("loop-device")
    defer { scratch.remove() }
    let path = scratch.file("image").path
    let file = try FileDescriptor.open(path, O_RDWR | O_CREAT)
    defer { file.close() }
    #expect(ftruncate(file.rawValue, 1 << 20) == 0)
    let identity = FileIdentity(try file.status())
    // The control: nothing is backed by it before.
    #expect(try LoopDevice.backed(by: identity) == nil)
    let attached = try LoopDevice.attach(file, name: path)
    #expect(LoopDevice.boundNumbers().contains(attached.number))
    #expect(try attached.backingFile() == identity)
    let found = try #require(try LoopDevice.backed(by: identity))
    #expect(found.number == attached.number)
    #expect(try found.deviceNumber() == attached.deviceNumber())
    found.close()
    attached.close()
    // With no mount, closing its last descriptor detaches it.
    #expect(try LoopDevice.backed(by: identity) == nil)
  }
}
