// Making a volume's image: an ext4 file system whose free space and entries are a storage budget's.
import Foundation
import IntentHostSystem

/// An ext4 image sized to a budget: `mkfs.ext4 -q -F -m 0 -b 4096 -I 256 -N <entries + 10> -E root_owner=UID:GID`,
/// the image grown or shrunk until the space an unprivileged writer may fill (the free blocks less the 2% or 4096
/// blocks, whichever is fewer, that ext4 keeps back for itself, once lost+found is removed) is the budget's bytes,
/// or at most 64 KiB less: never more, so that the volume never holds more than a walk would allow.
enum VolumeImage {
  static let blockSize = 4096

  /// The blocks of the lost+found folder mkfs makes (16 KiB), which the host removes from a new volume.
  static let lostAndFoundBlocks = 4

  /// How far below the budget a volume's space may end (blocks): 64 KiB.
  static let tolerance = 16

  /// Blocks in a block group (8 × the block size in bits).
  static let blocksPerGroup = blockSize * 8

  /// How long one `mkfs.ext4` may take.
  static let mkfsSeconds = 300

  /// `mkfs.ext4`, where e2fsprogs installs it; nil when it is not there.
  static var mkfs: String? {
    ["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4", "/usr/bin/mkfs.ext4"].first { access($0, X_OK) == 0 }
  }

  /// What the superblock of an ext4 image says (at byte 1024; the fields are little-endian).
  struct Superblock: Equatable {
    var blocks: Int
    var freeBlocks: Int
    var inodes: Int
    var freeInodes: Int
    var blockSize: Int

    /// What an unprivileged writer may fill: ext4 keeps 2% of the blocks or 4096 of them, whichever is fewer, for
    /// itself (`ext4_calculate_resv_clusters`); `-m 0` reserves nothing for root.
    var availableBlocks: Int { max(0, freeBlocks - min(blocks / 50, 4096)) }

    /// Reads the superblock of the image open at `image`.
    /// - Throws: `SystemError` (`EINVAL` when it is not an ext4 superblock).
    init(of image: FileDescriptor) throws(SystemError) {
      var bytes = [UInt8](repeating: 0, count: 1024)
      let count = bytes.withUnsafeMutableBytes { pread(image.rawValue, $0.baseAddress, 1024, 1024) }
      guard count == 1024 else {
        throw count < 0
          ? SystemError.current("read") : SystemError(code: EINVAL, operation: "read", detail: "too short")
      }
      func field(_ offset: Int, _ size: Int) -> Int {
        (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
      }
      guard field(0x38, 2) == 0xEF53 else {
        throw SystemError(code: EINVAL, operation: "read", detail: "no ext4 superblock")
      }
      let is64Bit = field(0x60, 4) & 0x80 != 0
      inodes = field(0x00, 4)
      blocks = field(0x04, 4) | (is64Bit ? field(0x150, 4) << 32 : 0)
      freeBlocks = field(0x0C, 4) | (is64Bit ? field(0x158, 4) << 32 : 0)
      freeInodes = field(0x10, 4)
      blockSize = 1024 << field(0x18, 4)
    }
  }

  /// Formats the file open at `image` (read-write; its contents are replaced) as the volume of `budget`: its
  /// available space (lost+found removed) `budget.bytes` or up to 64 KiB less, and `budget.entries` inodes past
  /// ext4's reserved ones or up to 15 fewer per block group of 128 MiB (mkfs counts inodes in whole inode-table
  /// blocks of 16 per group; it has at least 16 per group), its root folder owned by `rootOwner`.
  /// - Parameter name: the image's path, for messages.
  /// - Returns: the superblock it ended with.
  /// - Throws: `SystemError` (mkfs missing, failing, or the size not reached).
  @discardableResult
  static func format(
    _ image: FileDescriptor, budget: StorageBudget, rootOwner: (uid: uid_t, gid: gid_t), name: String
  ) throws -> Superblock {
    guard let mkfs else {
      throw SystemError(code: ENOENT, operation: "run", subject: "mkfs.ext4", detail: "it is not installed (e2fsprogs)")
    }
    let target = budget.bytes / blockSize
    let wantedInodes = budget.entries + Volume.reservedInodes
    // A first guess: the budget, what ext4 keeps back, the inode tables, the journal (16 MiB up to 1 GiB) and the
    // groups' bitmaps and descriptors; then corrected from what mkfs made.
    var blocks = target + target / 49 + wantedInodes * 256 / blockSize + min(4096, max(1024, target / 32)) + 256
    /// Makes the file system on an image of `blocks` blocks; false when mkfs found it too small for its tables.
    func make(_ blocks: Int) throws -> Bool {
      // mkfs rounds each group's inodes up to whole inode-table blocks: ask for whole blocks, rounded down.
      let groups = (blocks + blocksPerGroup - 1) / blocksPerGroup
      let inodes = max(16, wantedInodes / groups / 16 * 16) * groups
      guard ftruncate(image.rawValue, 0) == 0, ftruncate(image.rawValue, off_t(blocks * blockSize)) == 0 else {
        throw SystemError.current("truncate", name)
      }
      let run = try runBounded(
        mkfs,
        arguments: [
          "-q", "-F", "-m", "0", "-b", "\(blockSize)", "-I", "256", "-N", "\(inodes)", "-E",
          "root_owner=\(rootOwner.uid):\(rootOwner.gid),lazy_itable_init=0,lazy_journal_init=1,nodiscard",
          "/proc/self/fd/3",
        ], extraDescriptor: image, seconds: mkfsSeconds)
      if run.termination == .exited(0) { return true }
      if ["too small", "Too many", "too big"].contains(where: run.text.contains) { return false }
      throw SystemError(
        code: EIO, operation: "run", subject: "\(mkfs) for \(name)",
        detail: "\(run.termination): \(run.text.isEmpty ? "no output" : run.text)")
    }
    // What the writer may fill once lost+found is removed: as close to the budget as can be, never past it, so
    // that the volume holds what a walk would measure under the budget.
    var best: (blocks: Int, available: Int)? = nil
    var last = 0
    for _ in 0..<10 {
      guard try make(blocks) else {
        blocks *= 2
        continue
      }
      last = blocks
      let available = try Superblock(of: image).availableBlocks + lostAndFoundBlocks
      if available <= target, best.map({ available > $0.available }) ?? true { best = (blocks, available) }
      if available <= target && target - available <= tolerance { break }
      // Each block added gives 49/50 of a block to fill (2% is kept back, up to its cap); a block removed takes it.
      let missing = target - available
      blocks += missing > 0 ? missing * 50 / 49 : (missing * 50 - 48) / 49
    }
    guard let best, target - best.available <= tolerance * 4 else {
      throw SystemError(
        code: ERANGE, operation: "size", subject: name,
        detail: "mkfs.ext4 never left close to \(budget.bytes) bytes free")
    }
    // The last one made was not the closest: make that one again.
    if best.blocks != last, !(try make(best.blocks)) {
      throw SystemError(code: EIO, operation: "size", subject: name, detail: "mkfs.ext4 refused a size it took before")
    }
    return try Superblock(of: image)
  }
}
