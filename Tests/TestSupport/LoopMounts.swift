import Foundation
import IntentHostSystem

/// Whether this machine lets a test mount a file system image on a loop device, found by trying it: the tests of
/// volumes (`assistant storage set --volumes on`) run only where it does.
public enum LoopMounts {
  /// Why a loop mount cannot be made here, or nil when one can: the test process must be root, `mkfs.ext4` must make
  /// an 8 MiB image, and `mount -o loop,nosuid,nodev,noexec` must mount it (then it is unmounted and removed). The
  /// answer is worked out once per test process, and printed when it is a reason.
  public static func unavailableReason() async -> String? {
    await probe.value
  }

  private static let probe = Task<String?, Never> {
    let reason = await findReason()
    if let reason {
      FileHandle.standardError.write(Data("LoopMounts: the volume tests are skipped: \(reason)\n".utf8))
    }
    return reason
  }

  private static func findReason() async -> String? {
    guard geteuid() == 0 else { return "the tests do not run as root (mounting needs it)" }
    let candidates = ["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"]
    guard let mkfs = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
      return "mkfs.ext4 is not installed (e2fsprogs)"
    }
    guard let scratch = try? TemporaryDirectory("intenthost-loop-probe") else { return "no temporary folder" }
    defer { scratch.remove() }
    let image = scratch.file("probe.ext4").path
    let point = scratch.file("mounted").path
    do {
      try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: false)
      guard FileManager.default.createFile(atPath: image, contents: nil),
        truncate(image, 8 << 20) == 0
      else { return "cannot make a file of 8 MiB in \(scratch.path)" }
      let made = try await runCommand(mkfs, ["-q", "-F", image], timeout: .seconds(60))
      guard made.code == 0 else { return "mkfs.ext4 failed: \(made.stderr)" }
      let mounted = try await runCommand(
        "/bin/mount", ["-o", "loop,nosuid,nodev,noexec", image, point], timeout: .seconds(60))
      guard mounted.code == 0 else { return "mount -o loop failed: \(mounted.stderr)" }
      let unmounted = try await runCommand("/bin/umount", [point], timeout: .seconds(60))
      guard unmounted.code == 0 else { return "umount failed: \(unmounted.stderr)" }
      return nil
    } catch {
      return "the probe failed: \(error)"
    }
  }
}
