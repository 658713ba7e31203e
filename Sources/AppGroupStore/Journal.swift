/// The journal beside a document (`.NAME.journal`): one record per committed update, each the whole new document,
/// so the newest intact record is the current state.
///
/// A record is one line: `IHJ1 LLLLLLLL CCCCCCCC SSSSSSSSSSSSSSSS {json}\n`, where `L` is the JSON's length, `C` its
/// CRC-32 and `S` the update's sequence number, in hex, and the JSON is
/// `{"content":…,"schemaVersion":N,"sequence":S}`.
///
/// The file is reused, never truncated: after a checkpoint at sequence `S`, the next record (`S + 1`) is written at
/// offset 0 over the old ones, as SQLite reuses its WAL. Overwriting blocks that are already allocated keeps the file
/// size, so the one `fdatasync` per commit writes data only. The current records are therefore the chain from offset
/// 0 whose sequences run `S + 1, S + 2, …` with intact framing; the chain ends at the first record that breaks it
/// (an old record, a torn write, zeros). Of that chain, the newest record whose checksum matches is the state: a
/// writer killed mid-record leaves a bad checksum at the end of the chain, which the next writer overwrites.
enum Journal {
  /// "IHJ1 ".
  static let magic: [UInt8] = Array("IHJ1 ".utf8)
  static let headerSize = 40

  /// One record's place in the journal bytes.
  struct Record {
    var sequence: UInt64
    var checksum: UInt32
    /// The JSON payload.
    var payload: Range<Int>
    /// Where the record ends (after its newline).
    var end: Int
  }

  /// The chain of records that follow a checkpoint at `checkpointSequence` (nil: whatever the first record's
  /// sequence is, for recovering without a checkpoint), as far as framing and sequence numbers hold. Checksums are
  /// not checked here (see `newestIntact`).
  static func chain(_ bytes: [UInt8], after checkpointSequence: UInt64?) -> [Record] {
    bytes.withUnsafeBufferPointer { bytes in
      var records: [Record] = []
      var offset = 0
      var expected = checkpointSequence.map { $0 + 1 }
      let count = bytes.count
      while offset + headerSize <= count {
        guard bytes[offset] == 0x49, bytes[offset + 1] == 0x48, bytes[offset + 2] == 0x4A, bytes[offset + 3] == 0x31,
          bytes[offset + 4] == 0x20,
          let length = hex(bytes, offset + 5, 8), bytes[offset + 13] == 0x20,
          let checksum = hex(bytes, offset + 14, 8), bytes[offset + 22] == 0x20,
          let sequence = hex(bytes, offset + 23, 16), bytes[offset + 39] == 0x20,
          sequence == expected ?? sequence
        else { break }
        let start = offset + headerSize
        let end = start + Int(length) + 1
        guard end <= count, bytes[end - 1] == 0x0A else { break }
        records.append(Record(sequence: sequence, checksum: UInt32(checksum), payload: start..<end - 1, end: end))
        offset = end
        expected = sequence + 1
      }
      return records
    }
  }

  /// The sequence a record header says (`IHJ1 LLLLLLLL CCCCCCCC SSSSSSSSSSSSSSSS `), or nil when `header` is not one.
  static func sequence(inHeader header: [UInt8]) -> UInt64? {
    guard header.count >= headerSize, header.starts(with: magic) else { return nil }
    return header.withUnsafeBufferPointer { hex($0, 23, 16) }
  }

  private static func hex(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> UInt64? {
    var value: UInt64 = 0
    for index in start..<start + count {
      let digit = bytes[index]
      let nibble: UInt8
      switch digit {
      case 0x30...0x39: nibble = digit &- 0x30
      case 0x61...0x66: nibble = digit &- 0x61 &+ 10
      default: return nil
      }
      value = value << 4 | UInt64(nibble)
    }
    return value
  }

  /// The newest record of `chain` whose checksum matches, searching back from the end (only the end can be torn).
  static func newestIntact(_ bytes: [UInt8], _ chain: [Record]) -> Record? {
    chain.last { CRC32.checksum(bytes[$0.payload]) == $0.checksum }
  }

  /// The bytes of one record.
  static func encode(_ payload: [UInt8], sequence: UInt64) -> [UInt8] {
    var line = magic
    line += hexDigits(UInt64(payload.count), 8)
    line.append(0x20)
    line += payload.withUnsafeBytes { hexDigits(UInt64(CRC32.checksum($0)), 8) }
    line.append(0x20)
    line += hexDigits(sequence, 16)
    line.append(0x20)
    line += payload
    line.append(0x0A)
    return line
  }

  private static func hexDigits(_ value: UInt64, _ count: Int) -> [UInt8] {
    let digits = Array("0123456789abcdef".utf8)
    return (0..<count).reversed().map { digits[Int((value >> (UInt64($0) * 4)) & 0xF)] }
  }
}
