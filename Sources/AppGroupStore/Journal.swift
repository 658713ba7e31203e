/// The append-only journal beside a document (`.NAME.journal`): one record per committed update, each the whole new
/// document, so the newest intact record is the current state.
///
/// A record is one line: `IHJ1 LLLLLLLL CCCCCCCC {json}\n`, where `L` is the JSON's length and `C` its CRC-32, both
/// 8 hex digits, and the JSON is `{"content":…,"schemaVersion":N,"sequence":S}`. A writer killed mid-append leaves
/// a torn tail: a header that does not parse, a length past the end of the file, or a checksum that does not match.
/// Readers ignore it; the next writer cuts it off before appending.
enum Journal {
  static let magic: [UInt8] = Array("IHJ1 ".utf8)
  static let headerSize = 23

  /// One record's place in the journal bytes.
  struct Record {
    /// The JSON payload.
    var payload: Range<Int>
    /// Where the record ends (after its newline).
    var end: Int
  }

  /// The records whose framing is intact, in order, stopping at the first that is not. Checksums are not checked
  /// here (see `newestIntact`).
  static func frames(_ bytes: [UInt8]) -> [Record] {
    var records: [Record] = []
    var offset = 0
    while offset + headerSize <= bytes.count {
      guard bytes[offset..<offset + 5].elementsEqual(magic),
        let length = hex(bytes[offset + 5..<offset + 13]), bytes[offset + 13] == 0x20,
        hex(bytes[offset + 14..<offset + 22]) != nil, bytes[offset + 22] == 0x20
      else { break }
      let start = offset + headerSize
      let end = start + Int(length) + 1
      guard end <= bytes.count, bytes[end - 1] == 0x0A else { break }
      records.append(Record(payload: start..<end - 1, end: end))
      offset = end
    }
    return records
  }

  /// The newest record whose checksum matches, searching back from the end (only a tail can be torn).
  static func newestIntact(_ bytes: [UInt8], _ records: [Record]) -> Record? {
    for record in records.reversed() {
      let start = record.payload.lowerBound - headerSize
      let expected = hex(bytes[start + 14..<start + 22])
      if CRC32.checksum(bytes[record.payload]) == expected { return record }
    }
    return nil
  }

  /// The bytes of one record for `payload`.
  static func encode(_ payload: [UInt8]) -> [UInt8] {
    var line = magic
    line += hexDigits(UInt32(payload.count))
    line.append(0x20)
    line += payload.withUnsafeBytes { hexDigits(CRC32.checksum($0)) }
    line.append(0x20)
    line += payload
    line.append(0x0A)
    return line
  }

  private static func hex(_ digits: ArraySlice<UInt8>) -> UInt32? {
    var value: UInt32 = 0
    for digit in digits {
      let nibble: UInt8
      switch digit {
      case 0x30...0x39: nibble = digit - 0x30
      case 0x61...0x66: nibble = digit - 0x61 + 10
      default: return nil
      }
      value = value << 4 | UInt32(nibble)
    }
    return value
  }

  private static func hexDigits(_ value: UInt32) -> [UInt8] {
    let digits = Array("0123456789abcdef".utf8)
    return (0..<8).reversed().map { digits[Int((value >> (UInt32($0) * 4)) & 0xF)] }
  }
}
