import IntentHostSystem

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// Content stored in a document, with the schema version it is written in.
///
/// Requirements:
/// - `schemaVersion`: the version this type writes. Documents with a higher version are refused, never overwritten.
/// - `init()`: the content of a document that does not exist yet.
/// - `storedSchemaVersion`, `loaded(schemaVersion:)`: optional; only content that keeps whatever version it was
///   read with (such as `AnyDocumentContent`) implements them.
public protocol DocumentContent: Codable, Sendable {
  static var schemaVersion: Int { get }
  init()
  /// The version written with this content; `schemaVersion` by default.
  var storedSchemaVersion: Int { get }
  /// Called after the content was decoded from a document of `schemaVersion`.
  mutating func loaded(schemaVersion: Int)
}

extension DocumentContent {
  public var storedSchemaVersion: Int { Self.schemaVersion }
  public mutating func loaded(schemaVersion: Int) {}
}

/// One JSON document in an app-group container, shared by any number of reading and writing processes.
///
/// On disk, `NAME` is a checkpoint, `{"content": …, "schemaVersion": N, "sequence": S}`, and `.NAME.journal` holds
/// the updates committed since, one record per update, each the whole new content (see `Journal`). An update writes
/// one record and syncs it once (`fdatasync`). The journal is allocated ahead, filled with zeros (64 KiB, or 16
/// records when they are larger, at most `compactionBytes`), so that writing a record overwrites blocks the file
/// already has and the sync writes data only, not file metadata. When the next record does not fit, or after
/// `compactionRecords` records, the state is written as a new checkpoint instead (a temporary file, synced, renamed
/// over the old one, the directory synced), after which the journal's records are old and the next one is written
/// over them from the start. `S`, the sequence, counts committed updates.
///
/// Updates hold an exclusive `flock` on `.NAME.lock` for their whole read-modify-write; reads hold a shared one.
/// The kernel releases the lock when its holder dies, so a killed writer never blocks anyone; what it leaves (a torn
/// journal tail, a temporary file) is ignored by readers and removed by the next writer.
public struct Document<Content: DocumentContent>: Sendable {
  /// The checkpoint's path.
  public let path: String
  /// The largest checkpoint or journal read, in bytes.
  public var maximumSize = 64 << 20
  /// After how many journal records an update writes a new checkpoint instead.
  public var compactionRecords = 256
  /// The most bytes the journal may take: a large document is checkpointed more often, and every update reads at
  /// most this much journal.
  public var compactionBytes = 1 << 20
  /// For tests only: skip the lock, to show that updates are lost without it.
  @_spi(Testing) public var lockingDisabled = false
  /// For tests only: write the whole document in place (truncate, then write it in two halves), as a naive writer
  /// does, to show that the crash test catches torn files.
  @_spi(Testing) public var writesInPlace = false

  let directory: String
  let fileName: String
  /// The descriptors and checkpoint this process keeps between operations; shared by copies of this value.
  let files = DocumentFiles()
  var lockPath: String { directory + "/." + fileName + ".lock" }
  /// The journal's path.
  public var journalPath: String { directory + "/." + fileName + ".journal" }
  private var temporaryPrefix: String { "." + fileName + ".tmp-" }

  public init(path: String) {
    self.path = path
    let slash = path.lastIndex(of: "/")
    directory = slash.map { String(path[..<$0]) } ?? "."
    fileName = slash.map { String(path[path.index(after: $0)...]) } ?? path
  }

  /// The content with its sequence number.
  public struct Snapshot: Sendable {
    public var content: Content
    /// How many updates were committed; 0 for a document that does not exist.
    public var sequence: UInt64
  }

  /// The current content, or `Content()` when the document does not exist.
  /// - Throws: `StoreError.corrupt`, `.newerSchema` or `.io`.
  public func read() throws(StoreError) -> Content {
    try snapshot().content
  }

  /// The current content and its sequence number, read under a shared lock.
  /// - Throws: `StoreError.corrupt`, `.newerSchema` or `.io`.
  public func snapshot() throws(StoreError) -> Snapshot {
    try files.serializedStore { () throws(StoreError) -> Snapshot in
      guard let lock = try acquireIfPresent(exclusive: false) else {
        return Snapshot(content: Content(), sequence: 0)
      }
      defer { release(lock) }
      let state = try load(journal: try cachedJournal())
      return Snapshot(content: state.content ?? Content(), sequence: state.sequence)
    }
  }

  /// Runs `body` on the content while holding the document's exclusive lock, then commits the result durably: when
  /// `update` returns, the change survives a crash of any process and a loss of power.
  /// Nothing is written when `body` throws.
  /// - Returns: what `body` returns.
  /// - Throws: `StoreError` (a corrupt or newer document is never overwritten), or what `body` throws.
  /// - Important: `body` must not read or update the same document again: it would wait for the lock it holds.
  public func update<Result>(_ body: (inout Content) throws -> Result) throws -> Result {
    try files.serialized { () throws -> Result in
      let lock = try acquire(exclusive: true)
      defer { release(lock) }
      let journal = try cachedJournal()
      let state = try load(journal: journal)
      var content = state.content ?? Content()
      let result = try body(&content)
      try commit(content, after: state, journal: journal)
      return result
    }
  }

  // MARK: - Loading

  /// What is on disk, read under a lock.
  struct State {
    var content: Content?
    var sequence: UInt64 = 0
    var checkpointSequence: UInt64 = 0
    var journalExists = false
    var journalSize = 0
    /// Where the current records end in the journal (what follows is old records, or a torn tail).
    var journalKept = 0
    var journalRecords = 0
  }

  private struct Envelope<C: Codable>: Codable {
    var schemaVersion: Int
    var sequence: UInt64?
    var content: C
  }

  private struct Header: Decodable {
    var schemaVersion: Int
    var sequence: UInt64?
  }

  /// Reads the checkpoint and the journal. `journal`, when given, is the journal already open (the update path
  /// reads and writes through one descriptor).
  func load(journal: FileDescriptor? = nil) throws(StoreError) -> State {
    var state = State()
    var checkpointBytes: [UInt8]? = nil
    if let (bytes, header) = try cachedCheckpoint() {
      state.sequence = header.sequence
      state.checkpointSequence = header.sequence
      checkpointBytes = bytes
    }
    if let journal {
      try loadJournal(try readWhole(journal, file: journalPath), into: &state)
    } else if let bytes = try readFile(journalPath) {
      try loadJournal(bytes, into: &state)
    }
    // The checkpoint's content is decoded only when no journal record is newer.
    if state.content == nil, let checkpointBytes {
      state.content = try decode(checkpointBytes[...], file: path, isJournal: false).0
    }
    return state
  }

  /// The checkpoint alone.
  func loadCheckpointState() throws(StoreError) -> State {
    var state = State()
    if let bytes = try readFile(path) {
      let (content, sequence) = try decode(bytes[...], file: path, isJournal: false)
      state.content = content
      state.sequence = sequence
      state.checkpointSequence = sequence
    }
    return state
  }

  /// The checkpoint's schema version (checked) and sequence, read from the tail this type writes
  /// (`"schemaVersion" : N,\n  "sequence" : S\n}`) without parsing the content; anything else is parsed in full.
  private func checkpointHeader(_ bytes: [UInt8]) throws(StoreError) -> (schemaVersion: Int, sequence: UInt64) {
    if let header = Self.fastHeader(bytes) {
      if header.schemaVersion > Content.schemaVersion {
        throw .newerSchema(file: path, found: header.schemaVersion, known: Content.schemaVersion)
      }
      return header
    }
    let header = try decodeHeader(bytes[...], file: path, isJournal: false)
    return (header.schemaVersion, header.sequence ?? 0)
  }

  static func fastHeader(_ bytes: [UInt8]) -> (schemaVersion: Int, sequence: UInt64)? {
    // Walk back over: "\n"? "}" "\n" digits ' : "sequence"  ' ",\n" digits ' : "schemaVersion"'
    var index = bytes.count - 1
    func skip(_ literal: String) -> Bool {
      for byte in literal.utf8.reversed() {
        guard index >= 0, bytes[index] == byte else { return false }
        index -= 1
      }
      return true
    }
    func number() -> UInt64? {
      var value: UInt64 = 0
      var scale: UInt64 = 1
      var digits = 0
      while index >= 0, (0x30...0x39).contains(bytes[index]), digits < 18 {
        value += UInt64(bytes[index] - 0x30) * scale
        scale *= 10
        digits += 1
        index -= 1
      }
      return digits > 0 ? value : nil
    }
    if index >= 0 && bytes[index] == 0x0A { index -= 1 }
    guard skip("\n}"), let sequence = number(), skip("\n  \"sequence\" : "), skip(","),
      let version = number(), skip("\"schemaVersion\" : ")
    else { return nil }
    return (Int(version), sequence)
  }

  /// Reads the journal's current records into `state`.
  /// - Parameter withoutCheckpoint: take the chain from the first record on, whatever its sequence (recovery).
  func loadJournal(into state: inout State, withoutCheckpoint: Bool = false) throws(StoreError) {
    guard let bytes = try readFile(journalPath) else { return }
    try loadJournal(bytes, into: &state, withoutCheckpoint: withoutCheckpoint)
  }

  private func loadJournal(_ bytes: [UInt8], into state: inout State, withoutCheckpoint: Bool = false)
    throws(StoreError)
  {
    state.journalExists = true
    state.journalSize = bytes.count
    let chain = Journal.chain(bytes, after: withoutCheckpoint ? nil : state.checkpointSequence)
    guard let newest = Journal.newestIntact(bytes, chain) else { return }
    let (content, sequence) = try decode(bytes[newest.payload], file: journalPath, isJournal: true)
    if sequence != newest.sequence {
      throw .corrupt(file: journalPath, detail: "a record says sequence \(sequence) in a header of \(newest.sequence)")
    }
    state.content = content
    state.sequence = sequence
    state.journalKept = newest.end
    state.journalRecords = Int(sequence - (withoutCheckpoint ? chain[0].sequence - 1 : state.checkpointSequence))
  }

  private func decodeHeader(_ bytes: ArraySlice<UInt8>, file: String, isJournal: Bool) throws(StoreError) -> Header {
    let header: Header
    do {
      header = try JSONDecoder().decode(Header.self, from: Data(bytes))
    } catch {
      let what = isJournal ? "its newest intact record is not a document" : "not a JSON document with a schemaVersion"
      throw .corrupt(file: file, detail: bytes.isEmpty ? "empty file" : what)
    }
    if header.schemaVersion > Content.schemaVersion {
      throw .newerSchema(file: file, found: header.schemaVersion, known: Content.schemaVersion)
    }
    return header
  }

  private func decode(_ bytes: ArraySlice<UInt8>, file: String, isJournal: Bool) throws(StoreError)
    -> (Content, UInt64)
  {
    let data = Data(bytes)
    let envelope: Envelope<Content>
    do {
      envelope = try JSONDecoder().decode(Envelope<Content>.self, from: data)
    } catch {
      // Say why: not a document at all, a newer schema, or content that does not match.
      let header = try decodeHeader(bytes, file: file, isJournal: isJournal)
      throw .corrupt(
        file: file, detail: "its content does not match schema version \(header.schemaVersion): \(error)")
    }
    if envelope.schemaVersion > Content.schemaVersion {
      throw .newerSchema(file: file, found: envelope.schemaVersion, known: Content.schemaVersion)
    }
    var content = envelope.content
    content.loaded(schemaVersion: envelope.schemaVersion)
    return (content, envelope.sequence ?? 0)
  }

  /// The whole file, or nil when it does not exist.
  private func readFile(_ file: String) throws(StoreError) -> [UInt8]? {
    let fd: FileDescriptor
    do {
      fd = try FileDescriptor.open(file, O_RDONLY)
    } catch {
      if error.code == ENOENT { return nil }
      throw .io(error)
    }
    defer { fd.close() }
    return try readAll(fd, file: file)
  }

  private func readAll(_ fd: FileDescriptor, file: String) throws(StoreError) -> [UInt8] {
    do {
      return try fd.readAll(limit: maximumSize)
    } catch {
      if error.code == EFBIG { throw .corrupt(file: file, detail: "larger than \(maximumSize) bytes") }
      throw .io(error)
    }
  }

  // MARK: - Writing

  private func encode(_ content: Content, sequence: UInt64, pretty: Bool) throws(StoreError) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys]
    do {
      return [UInt8](
        try encoder.encode(
          Envelope(schemaVersion: content.storedSchemaVersion, sequence: sequence, content: content)))
    } catch {
      throw .corrupt(file: path, detail: "cannot encode the new content: \(error)")
    }
  }

  /// Commits `content` as the next sequence: one journal record, or a new checkpoint when the journal is long.
  /// The journal open for reading and writing (kept open between operations: it is rewritten in place, never
  /// replaced), or nil when there is none yet. A journal deleted behind our back is reopened.
  private func cachedJournal() throws(StoreError) -> FileDescriptor? {
    if let fd = files.journal {
      if files.isStillNamed(fd, path: journalPath) { return fd }
      fd.close()
      files.journal = nil
    }
    do {
      let fd = try FileDescriptor.open(journalPath, O_RDWR)
      files.journal = fd
      files.remember(fd)
      return fd
    } catch {
      if error.code == ENOENT { return nil }
      throw .io(error)
    }
  }

  /// The checkpoint's bytes and header, read again only when the file changed (another inode, size or time).
  private func cachedCheckpoint() throws(StoreError) -> ([UInt8], (schemaVersion: Int, sequence: UInt64))? {
    var info = stat()
    guard stat(path, &info) == 0 else {
      let error = SystemError.current("stat", path)
      if error.code == ENOENT {
        files.checkpoint = nil
        return nil
      }
      throw .io(error)
    }
    let key = DocumentFiles.FileKey(info)
    if let cached = files.checkpoint, cached.key == key { return (cached.bytes, cached.header) }
    guard let bytes = try readFile(path) else { return nil }
    let header = try checkpointHeader(bytes)
    files.checkpoint = DocumentFiles.Checkpoint(key: key, bytes: bytes, header: header)
    return (bytes, header)
  }

  /// The whole file behind `fd`, from its start (`pread`, so the shared offset does not matter).
  private func readWhole(_ fd: FileDescriptor, file: String) throws(StoreError) -> [UInt8] {
    // No fstat: on kernels with multigrain timestamps, asking for a file's attributes makes its next write record a
    // fine-grained time, which dirties the inode and costs the following fdatasync an extra write (measured here:
    // 84 → 125 µs per sync). Read until the end instead.
    // Room for the usual 64 KiB journal and the end-of-file read, under malloc's mmap threshold (a mapping per read
    // costs page faults and TLB shootdowns on every update).
    var bytes = [UInt8](repeating: 0, count: 72 << 10)
    var filled = 0
    while true {
      if filled == bytes.count {
        if bytes.count >= maximumSize { throw .corrupt(file: file, detail: "larger than \(maximumSize) bytes") }
        bytes.append(contentsOf: repeatElement(0, count: bytes.count))
      }
      let n = bytes.withUnsafeMutableBytes {
        pread(fd.rawValue, $0.baseAddress! + filled, $0.count - filled, off_t(filled))
      }
      if n < 0 {
        let error = SystemError.current("pread", file)
        if error.code == EINTR { continue }
        throw .io(error)
      }
      if n == 0 { break }
      filled += n
    }
    bytes.removeSubrange(filled...)
    return bytes
  }

  func commit(_ content: Content, after state: State, journal: FileDescriptor? = nil) throws(StoreError) {
    let sequence = state.sequence + 1
    if writesInPlace { return try writeInPlace(content, sequence: sequence) }
    let record = Journal.encode(try encode(content, sequence: sequence, pretty: false), sequence: sequence)
    let end = state.journalKept + record.count
    // 64 KiB, or room for 16 records when they are large, in whole pages, at most compactionBytes.
    let capacity = min(compactionBytes, (max(64 << 10, record.count * 16) + 4095) / 4096 * 4096)
    if state.journalRecords + 1 >= compactionRecords || end > max(state.journalSize, capacity) {
      try writeCheckpoint(content, sequence: sequence)
    } else {
      try append(
        record, at: state.journalKept, growingTo: end > state.journalSize ? capacity : nil, state: state,
        journal: journal)
    }
  }

  /// Writes `record` at `offset` and syncs it. When `growingTo` is given, the file is first extended with zeros to
  /// that size (written, not sparse, so later records overwrite allocated blocks).
  private func append(
    _ record: [UInt8], at offset: Int, growingTo size: Int?, state: State, journal: FileDescriptor?
  ) throws(StoreError) {
    do throws(SystemError) {
      let fd: FileDescriptor
      if let journal {
        fd = journal
      } else {
        fd = try FileDescriptor.open(journalPath, O_RDWR | O_CREAT, mode: 0o660)
        files.journal = fd
        files.remember(fd)
      }
      if let size, size > state.journalSize {
        try positionalWrite(fd, [UInt8](repeating: 0, count: size - state.journalSize), at: state.journalSize)
      }
      try positionalWrite(fd, record, at: offset)
      if fdatasync(fd.rawValue) != 0 { throw SystemError.current("fdatasync", journalPath) }
      // A new journal is a new directory entry, which must be durable too.
      if !state.journalExists { try syncDirectory() }
    } catch {
      throw .io(error)
    }
  }

  private func positionalWrite(_ fd: FileDescriptor, _ bytes: [UInt8], at offset: Int) throws(SystemError) {
    var written = 0
    while written < bytes.count {
      let n = bytes.withUnsafeBytes {
        pwrite(fd.rawValue, $0.baseAddress! + written, $0.count - written, off_t(offset + written))
      }
      if n > 0 {
        written += n
      } else if n < 0 {
        let error = SystemError.current("pwrite", journalPath)
        if error.code != EINTR { throw error }
      }
    }
  }

  /// Temporary file, fsync, rename over the checkpoint, fsync of the directory.
  func writeCheckpoint(_ content: Content, sequence: UInt64) throws(StoreError) {
    var bytes = try encode(content, sequence: sequence, pretty: true)
    bytes.append(0x0A)
    removeStaleTemporaries()
    let temporary = directory + "/" + temporaryPrefix + String(getpid())
    do throws(SystemError) {
      let fd = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o660)
      do throws(SystemError) {
        try fd.writeAll(bytes)
        if fsync(fd.rawValue) != 0 { throw SystemError.current("fsync", temporary) }
      } catch {
        fd.close()
        unlink(temporary)
        throw error
      }
      fd.close()
      if rename(temporary, path) != 0 {
        let error = SystemError.current("rename", path)
        unlink(temporary)
        throw error
      }
      try syncDirectory()
    } catch {
      throw .io(error)
    }
  }

  private func writeInPlace(_ content: Content, sequence: UInt64) throws(StoreError) {
    let bytes = try encode(content, sequence: sequence, pretty: true)
    do throws(SystemError) {
      let fd = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o660)
      defer { fd.close() }
      try fd.writeAll(Array(bytes[..<(bytes.count / 2)]))
      usleep(500)
      try fd.writeAll(Array(bytes[(bytes.count / 2)...]))
    } catch {
      throw .io(error)
    }
  }

  private func syncDirectory() throws(SystemError) {
    let dir = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
    defer { dir.close() }
    if fsync(dir.rawValue) != 0 { throw SystemError.current("fsync", directory) }
  }

  /// Temporary files of writers that were killed while writing a checkpoint. Only called under the exclusive
  /// lock, so no living writer owns one.
  private func removeStaleTemporaries() {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
    for name in names where name.hasPrefix(temporaryPrefix) { unlink(directory + "/" + name) }
  }

  // MARK: - Locking

  /// Opens and locks `.NAME.lock`. Returns nil when the directory does not exist (then there is no document
  /// either).
  func acquireIfPresent(exclusive: Bool) throws(StoreError) -> FileDescriptor? {
    let lock: FileDescriptor
    if let cached = files.lock, files.isStill(cached, at: lockPath) {
      lock = cached
    } else {
      files.lock?.close()
      files.lock = nil
      do {
        lock = try FileDescriptor.open(lockPath, O_RDWR | O_CREAT, mode: 0o660)
      } catch {
        if error.code == ENOENT { return nil }
        throw .io(error)
      }
      files.lock = lock
      files.remember(lock)
    }
    if lockingDisabled { return lock }
    do {
      // The holder's critical section is short (one fdatasync): try without blocking for a moment before sleeping
      // in the kernel, so that a release hands the lock over without a wakeup.
      for attempt in 0..<200 {
        if try tryLockFile(lock, exclusive: exclusive) { return lock }
        if attempt > 20 { sched_yield() }
      }
      try lockFile(lock, exclusive: exclusive)
    } catch {
      throw .io(error)
    }
    return lock
  }

  /// Opens and locks `.NAME.lock`.
  func acquire(exclusive: Bool) throws(StoreError) -> FileDescriptor {
    guard let lock = try acquireIfPresent(exclusive: exclusive) else {
      throw .io(SystemError(code: ENOENT, operation: "open", subject: lockPath))
    }
    return lock
  }

  /// Releases the lock; the descriptor stays open for the next operation.
  func release(_ lock: FileDescriptor) {
    if !lockingDisabled { unlockFile(lock) }
  }
}

/// What a `Document` keeps open in one process between operations: the lock file's and the journal's descriptors
/// (neither file is ever replaced, only rewritten in place) and the last checkpoint read. An `flock` belongs to an
/// open file, not to a thread, so every operation of the process on the document runs under `serialized`.
final class DocumentFiles: @unchecked Sendable {
  // @unchecked: every stored property is read and written only inside `serialized`, under `mutex`.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  var lock: FileDescriptor?
  var journal: FileDescriptor?
  var checkpoint: Checkpoint?

  struct FileKey: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: [Int]
    var changed: [Int]

    init(_ info: stat) {
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      modified = [info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
      changed = [info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
    }
  }

  struct Checkpoint {
    var key: FileKey
    var bytes: [UInt8]
    var header: (schemaVersion: Int, sequence: UInt64)
  }

  init() {
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    lock?.close()
    journal?.close()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func serialized<R>(_ body: () throws -> R) rethrows -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }

  /// `serialized` for bodies that throw only `StoreError`.
  func serializedStore<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }

  /// Forgets everything (after files were moved aside).
  func reset() {
    lock?.close()
    journal?.close()
    lock = nil
    journal = nil
    checkpoint = nil
    identities = [:]
    names = [:]
  }

  /// The device and inode of each descriptor kept open, taken when it was opened.
  var identities: [Int32: [UInt64]] = [:]

  /// Remembers which file `fd` is.
  func remember(_ fd: FileDescriptor) {
    var info = stat()
    if fstat(fd.rawValue, &info) == 0 { identities[fd.rawValue] = [UInt64(info.st_dev), UInt64(info.st_ino)] }
    names[fd.rawValue] = Self.kernelName(of: fd)
  }

  /// The names the kernel gave the kept descriptors when they were opened (`/proc/self/fd`).
  var names: [Int32: String] = [:]

  /// The kernel's name for an open descriptor, or nil without `/proc`.
  static func kernelName(of fd: FileDescriptor) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/fd/\(fd.rawValue)", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether `fd` is still open on `path` (not deleted, nor moved aside by a recovery), from the name the kernel
  /// keeps for it, without asking for the file's attributes (see `readWhole`). Falls back to `isStill` where there
  /// is no `/proc`.
  func isStillNamed(_ fd: FileDescriptor, path: String) -> Bool {
    guard let name = Self.kernelName(of: fd), let original = names[fd.rawValue] else { return isStill(fd, at: path) }
    return name == original
  }

  /// Whether `fd` is still the file at `path` (not deleted with its group's folder, nor moved aside by a recovery):
  /// one `stat` of the path against the identity remembered at open.
  func isStill(_ fd: FileDescriptor, at path: String) -> Bool {
    var named = stat()
    guard let identity = identities[fd.rawValue], stat(path, &named) == 0 else { return false }
    return identity == [UInt64(named.st_dev), UInt64(named.st_ino)]
  }
}
