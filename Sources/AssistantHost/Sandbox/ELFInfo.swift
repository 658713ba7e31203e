import Foundation
import IntentHostSystem
import UntrustedText

/// The parts of an ELF executable or library the sandbox reads: its interpreter, its library search folders and the
/// libraries it links. The file is hostile input: every offset and size is checked, and the parser reads at most a
/// few pages.
package struct ELFInfo: Sendable, Equatable {
  /// `PT_INTERP`: the loader the kernel starts (ld.so).
  package var interpreter: String?
  /// `DT_RUNPATH`, split at colons.
  package var runPath: [String] = []
  /// `DT_RPATH`, split at colons (ignored by the loader when `DT_RUNPATH` is present).
  package var rPath: [String] = []
  /// `DT_NEEDED`: the shared libraries it links, by soname (or by path, when linked by path).
  package var needed: [String] = []

  /// The most `DT_NEEDED` entries and program headers read.
  package static let entryLimit = 1024

  /// Reads `path`; nil when it is not a regular 64-bit little-endian ELF file (a script, a 32-bit program) or
  /// cannot be read.
  package static func read(_ path: String) -> ELFInfo? {
    // Non-blocking, so a FIFO planted in place of a library cannot stall the host; only a regular file is read.
    guard let fd = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY) else { return nil }
    defer { fd.close() }
    var status = stat()
    guard fstat(fd.rawValue, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
    let size = UInt64(max(0, status.st_size))

    func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
      guard count > 0, offset < size, UInt64(count) <= size - offset, offset <= UInt64(Int64.max) else { return nil }
      var buffer = [UInt8](repeating: 0, count: count)
      let got = pread(fd.rawValue, &buffer, count, off_t(offset))
      return got == count ? buffer : nil
    }
    // Little-endian fields (the header says so, checked below), at offsets inside the buffers read.
    func u16(_ b: [UInt8], _ o: Int) -> UInt64 {
      UInt64(UInt16(littleEndian: b.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt16.self) }))
    }
    func u32(_ b: [UInt8], _ o: Int) -> UInt64 {
      UInt64(UInt32(littleEndian: b.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt32.self) }))
    }
    func u64(_ b: [UInt8], _ o: Int) -> UInt64 {
      UInt64(littleEndian: b.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt64.self) })
    }

    guard let header = bytes(at: 0, count: 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2,
      header[5] == 1
    else { return nil }
    let headerOffset = u64(header, 32)
    let headerSize = Int(u16(header, 54))
    let headerCount = Int(u16(header, 56))
    guard headerSize >= 56, headerSize <= 1024, headerCount <= entryLimit,
      let table = headerCount == 0 ? [] : bytes(at: headerOffset, count: headerSize * headerCount)
    else { return nil }

    var info = ELFInfo()
    var loads: [(address: UInt64, offset: UInt64, size: UInt64)] = []
    var dynamic: (offset: UInt64, size: UInt64)? = nil
    for index in 0..<headerCount {
      let o = index * headerSize
      let type = u32(table, o)
      let offset = u64(table, o + 8)
      let address = u64(table, o + 16)
      let fileSize = u64(table, o + 32)
      switch type {
      case 1: loads.append((address, offset, fileSize))  // PT_LOAD
      case 2: dynamic = (offset, fileSize)  // PT_DYNAMIC
      case 3:  // PT_INTERP
        if let text = bytes(at: offset, count: Int(min(fileSize, 4096))) {
          info.interpreter = String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
        }
      default: break
      }
    }
    guard let dynamic, dynamic.size >= 16,
      let entries = bytes(at: dynamic.offset, count: Int(min(dynamic.size, UInt64(16 * entryLimit))) & ~15)
    else { return info }

    var stringTable: UInt64? = nil
    var stringTableSize: UInt64 = 4096
    var runPaths: [UInt64] = []
    var rPaths: [UInt64] = []
    var needed: [UInt64] = []
    for o in stride(from: 0, to: entries.count, by: 16) {
      let tag = u64(entries, o)
      let value = u64(entries, o + 8)
      switch tag {
      case 0: break  // DT_NULL ends the table
      case 1: needed.append(value)
      case 5: stringTable = value
      case 10: stringTableSize = value
      case 15: rPaths.append(value)
      case 29: runPaths.append(value)
      default: continue
      }
      if tag == 0 { break }
    }
    // DT_STRTAB is an address: find the file offset through the segment that maps it.
    guard let stringTable,
      let segment = loads.first(where: { load in
        let (end, overflow) = load.address.addingReportingOverflow(load.size)
        return !overflow && stringTable >= load.address && stringTable < end
      })
    else { return info }
    let (base, overflow) = segment.offset.addingReportingOverflow(stringTable - segment.address)
    guard !overflow else { return info }
    func string(at offset: UInt64) -> String? {
      guard offset < stringTableSize else { return nil }
      let (start, overflow) = base.addingReportingOverflow(offset)
      guard !overflow, start < size else { return nil }
      let count = Int(min(4096, stringTableSize - offset, size - start))
      return bytes(at: start, count: count).map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    func paths(_ offsets: [UInt64]) -> [String] {
      // An empty element means the working directory to the loader: keep it, so the rules see it.
      offsets.flatMap {
        (string(at: $0) ?? "").split(separator: ":", omittingEmptySubsequences: false).map(String.init)
      }
    }
    info.runPath = paths(runPaths)
    info.rPath = paths(rPaths)
    info.needed = needed.prefix(entryLimit).compactMap { string(at: $0) }.filter { !$0.isEmpty }
    return info
  }
}
