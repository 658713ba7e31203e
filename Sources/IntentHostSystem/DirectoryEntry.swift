#if canImport(Glibc)
  import Glibc
#endif

/// The fields of an entry `readdir` returned, read in place.
///
/// A record the kernel returns is only as long as its name (`d_reclen`), so `entry.pointee` or
/// `withUnsafeBytes(of: entry.pointee.d_name)`, which copy a whole 280-byte `struct dirent`, read past a short record
/// at the end of the kernel's buffer: a crash when that is the end of a page (seen listing `/usr/share`).
///
/// ```swift
/// while let entry = readdir(stream) {
///   if entry.isDirectoryOrUnknown { print(entry.name) }
/// }
/// ```
extension UnsafeMutablePointer where Pointee == dirent {
  /// The entry's name, NUL-terminated, where it lies.
  public var namePointer: UnsafePointer<CChar> {
    UnsafePointer(
      (UnsafeRawPointer(self) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
        .assumingMemoryBound(to: CChar.self))
  }

  /// The entry's name; a name that is not valid UTF-8 is repaired, so it no longer names its file.
  public var name: String {
    String(decoding: UnsafeRawBufferPointer(start: namePointer, count: strlen(namePointer)), as: UTF8.self)
  }

  /// `d_type`: `DT_DIR`, `DT_REG`, `DT_LNK`, … or `DT_UNKNOWN` where the file system does not say.
  public var type: UInt8 {
    UnsafeRawPointer(self).load(fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_type)!, as: UInt8.self)
  }

  /// Whether the entry is a folder, or of a type the file system does not say.
  public var isDirectoryOrUnknown: Bool { type == UInt8(DT_DIR) || type == UInt8(DT_UNKNOWN) }
}
