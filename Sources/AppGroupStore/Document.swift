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
///
/// Every member of an app group can write its folder, so nothing in it is trusted: the document's folder is opened
/// once as a descriptor (`DirectoryDescriptor`) and every checkpoint, journal, lock and temporary file is opened,
/// made, renamed and removed relative to it, never through a path, following no symbolic link and opening nothing but
/// regular files. A link, FIFO, device or socket planted in place of one of them, or a journal with a second hard
/// link, is refused with `StoreError.unsafeFile` naming it; nothing outside the folder is ever created, truncated or
/// read. Only the folder's path up to `root` is trusted (see `init(in:at:)`). In a set-group-ID folder (an app group
/// when the host runs as root) the files it makes are group-readable and -writable whatever the umask, so that every
/// member can use them.
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
  /// Reuses the kept state without looking for a newer record (the guard of `unchangedState` off), to show that the
  /// check catches another writer's commit.
  @_spi(Testing) public var trustsKeptState = false

  /// The directory trusted by path: opened as it is named, refused only when its last component is a symbolic link.
  let root: String
  /// The folders from `root` to the document's folder ("" when it is `root`), opened beneath `root` without following
  /// a symbolic link.
  let subdirectory: String
  /// The document's folder, for messages.
  let directory: String
  let fileName: String
  /// The descriptors and checkpoint this process keeps between operations; shared by copies of this value.
  let files = DocumentFiles()
  var lockName: String { "." + fileName + ".lock" }
  var journalName: String { "." + fileName + ".journal" }
  var lockPath: String { directory + "/" + lockName }
  /// The journal's path.
  public var journalPath: String { directory + "/" + journalName }
  private var temporaryPrefix: String { "." + fileName + ".tmp-" }

  /// The document at `path`. The folder that holds it is trusted by path (it is opened as named, refused only when its
  /// last component is a symbolic link); the document's files are reached through the folder's descriptor only.
  public init(path: String) {
    self.path = path
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[..<$0]) } ?? "."
    directory = folder.isEmpty ? "/" : folder
    fileName = slash.map { String(path[path.index(after: $0)...]) } ?? path
    root = directory
    subdirectory = ""
  }

  /// The document at `relativePath` inside the directory `root`, for example a group's shared defaults,
  /// `Library/Preferences/GROUP.json` inside its container. Only `root` is trusted by path: the folders from it to
  /// the document are opened beneath it without following a symbolic link, so whoever may write inside `root` cannot
  /// lead the store anywhere else.
  /// - Precondition: `relativePath` is relative, with no empty, `.` or `..` component.
  public init(in root: String, at relativePath: String) {
    let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
    precondition(
      !components.isEmpty && !components.contains { $0.isEmpty || $0 == "." || $0 == ".." },
      "a document's path inside its root is relative, with no empty, . or .. component")
    self.root = root
    subdirectory = components.dropLast().joined(separator: "/")
    fileName = String(components.last!)
    directory = subdirectory.isEmpty ? root : root + "/" + subdirectory
    path = directory + "/" + fileName
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

  /// The current content and its sequence number, read under a shared lock. A document that does not exist (no
  /// checkpoint, no journal) is read as empty without its lock, so that reading makes nothing, not even the lock
  /// file: a writer makes the journal or the checkpoint under its lock, and once either name exists a read takes the
  /// lock and waits for it.
  /// - Throws: `StoreError.corrupt`, `.newerSchema` or `.io`.
  public func snapshot() throws(StoreError) -> Snapshot {
    try files.serializedStore { () throws(StoreError) -> Snapshot in
      guard try hasFiles(), let (folder, lock) = try acquireIfPresent(exclusive: false) else {
        return Snapshot(content: Content(), sequence: 0)
      }
      defer { release(lock) }
      let state = try load(in: folder, journal: try cachedJournal(in: folder))
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
      let (folder, lock) = try acquire(exclusive: true)
      defer { release(lock) }
      let journal = try cachedJournal(in: folder)
      let state = try load(in: folder, journal: journal)
      var content = state.content ?? Content()
      let result = try body(&content)
      try commit(content, after: state, in: folder, journal: journal)
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
  func load(in folder: DirectoryDescriptor, journal: FileDescriptor? = nil) throws(StoreError) -> State {
    var state = State()
    var checkpointBytes: [UInt8]? = nil
    if let (bytes, header) = try cachedCheckpoint(in: folder) {
      state.sequence = header.sequence
      state.checkpointSequence = header.sequence
      checkpointBytes = bytes
    }
    if let journal {
      if let unchanged = unchangedState(journal: journal) { return unchanged }
      try loadJournal(try readWhole(journal, file: journalPath), into: &state)
    } else if let bytes = try readFile(journalName, in: folder) {
      try loadJournal(bytes, into: &state)
    }
    // The checkpoint's content is decoded only when no journal record is newer.
    if state.content == nil, let checkpointBytes {
      state.content = try decode(checkpointBytes[...], file: path, isJournal: false).0
    }
    if let journal { keep(state, journal: journal) }
    return state
  }

  /// The state the last load or commit through these files left, when nothing was committed since: the checkpoint is
  /// the same file (inode, size, times), the journal is the same file, and no record follows the state's own (the
  /// header at its end is not the next sequence's). One `pread` of a record header instead of reading the journal
  /// and decoding its newest record; any doubt (a torn record there, an unreadable header) loads in full.
  private func unchangedState(journal: FileDescriptor) -> State? {
    guard let kept = files.loaded, let state = kept.state as? State, kept.checkpoint == files.checkpoint?.key,
      kept.journal == files.identities[journal.rawValue]
    else { return nil }
    var header = [UInt8](repeating: 0, count: Journal.headerSize)
    let count = header.withUnsafeMutableBytes {
      pread(journal.rawValue, $0.baseAddress!, $0.count, off_t(state.journalKept))
    }
    guard count >= 0 else { return nil }
    if trustsKeptState { return state }
    // Another writer's commit starts at the end of the state it loaded, which is this state's end: a record header
    // of a later sequence. Zeros, the end of the file, the middle of an old record (the journal is reused from offset
    // 0 after a checkpoint) or a torn header all end the chain here, so the state is this one.
    if count == Journal.headerSize, let sequence = Journal.sequence(inHeader: header), sequence > state.sequence {
      return nil
    }
    return state
  }

  /// Remembers `state` as what the checkpoint and `journal` hold now (`unchangedState`).
  private func keep(_ state: State, journal: FileDescriptor) {
    guard let identity = files.identities[journal.rawValue] else { return files.loaded = nil }
    files.loaded = DocumentFiles.Loaded(checkpoint: files.checkpoint?.key, journal: identity, state: state)
  }

  /// The checkpoint alone.
  func loadCheckpointState(in folder: DirectoryDescriptor) throws(StoreError) -> State {
    var state = State()
    if let bytes = try readFile(fileName, in: folder) {
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
  func loadJournal(into state: inout State, in folder: DirectoryDescriptor, withoutCheckpoint: Bool = false)
    throws(StoreError)
  {
    guard let bytes = try readFile(journalName, in: folder) else { return }
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

  /// The whole regular file `name` in `folder`, or nil when it does not exist.
  private func readFile(_ name: String, in folder: DirectoryDescriptor) throws(StoreError) -> [UInt8]? {
    let fd: FileDescriptor
    do {
      fd = try folder.openFile(name, O_RDONLY)
    } catch {
      if error.code == ENOENT { return nil }
      throw storeError(error)
    }
    defer { fd.close() }
    return try readAll(fd, file: folder.path(of: name))
  }

  /// `.unsafeFile` for a refusal of `DirectoryDescriptor` (a link, a FIFO, a device, a socket), else `.io`.
  func storeError(_ error: SystemError) -> StoreError {
    error.isUnsafeFileRefusal || (error.code == EMLINK && error.detail != nil)
      ? .unsafeFile(file: error.subject, detail: error.reason) : .io(error)
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
  private func cachedJournal(in folder: DirectoryDescriptor) throws(StoreError) -> FileDescriptor? {
    if let fd = files.journal {
      if files.isStillNamed(fd, name: journalName, in: folder) { return fd }
      fd.close()
      files.journal = nil
    }
    do {
      let fd = try folder.openFile(journalName, O_RDWR)
      try keepJournal(fd)
      return fd
    } catch {
      if error.code == ENOENT { return nil }
      throw storeError(error)
    }
  }

  /// Keeps `fd` as the journal, unless the file has another name too: a hard link planted by someone who may not
  /// write the file it names would make every update write there.
  private func keepJournal(_ fd: FileDescriptor) throws(SystemError) {
    let status: FileStatus
    do throws(SystemError) {
      status = try files.remember(fd)
    } catch {
      fd.close()
      throw SystemError(code: error.code, operation: "fstat", subject: journalPath)
    }
    guard status.linkCount == 1 else {
      files.forget(fd)
      fd.close()
      throw SystemError(
        code: EMLINK, operation: "open", subject: journalPath,
        detail: "has \(status.linkCount) hard links; a journal has one name only")
    }
    files.journal = fd
  }

  /// The checkpoint's bytes and header, read again only when the file changed (another inode, size or time).
  private func cachedCheckpoint(in folder: DirectoryDescriptor) throws(StoreError)
    -> ([UInt8], (schemaVersion: Int, sequence: UInt64))?
  {
    let found: FileStatus?
    do {
      found = try folder.status(of: fileName)
    } catch {
      throw storeError(error)
    }
    guard let status = found else {
      files.checkpoint = nil
      return nil
    }
    guard status.kind == .regular else {
      throw .unsafeFile(file: path, detail: "is \(status.kind), not a regular file")
    }
    let key = DocumentFiles.FileKey(status)
    if let cached = files.checkpoint, cached.key == key { return (cached.bytes, cached.header) }
    guard let bytes = try readFile(fileName, in: folder) else { return nil }
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

  func commit(_ content: Content, after state: State, in folder: DirectoryDescriptor, journal: FileDescriptor? = nil)
    throws(StoreError)
  {
    let sequence = state.sequence + 1
    files.loaded = nil
    if writesInPlace { return try writeInPlace(content, sequence: sequence, in: folder) }
    let record = Journal.encode(try encode(content, sequence: sequence, pretty: false), sequence: sequence)
    let end = state.journalKept + record.count
    // 64 KiB, or room for 16 records when they are large, in whole pages, at most compactionBytes.
    let capacity = min(compactionBytes, (max(64 << 10, record.count * 16) + 4095) / 4096 * 4096)
    if state.journalRecords + 1 >= compactionRecords || end > max(state.journalSize, capacity) {
      try writeCheckpoint(content, sequence: sequence, in: folder)
    } else {
      try append(
        record, at: state.journalKept, growingTo: end > state.journalSize ? capacity : nil, state: state,
        in: folder, journal: journal)
      // The record is durable: the next update through these files starts from it without reading it back.
      if let journal {
        var next = state
        next.content = content
        next.sequence = sequence
        next.journalSize = end > state.journalSize ? capacity : state.journalSize
        next.journalKept = end
        next.journalRecords += 1
        keep(next, journal: journal)
      }
    }
  }

  /// Writes `record` at `offset` and syncs it. When `growingTo` is given, the file is first extended with zeros to
  /// that size (written, not sparse, so later records overwrite allocated blocks).
  private func append(
    _ record: [UInt8], at offset: Int, growingTo size: Int?, state: State, in folder: DirectoryDescriptor,
    journal: FileDescriptor?
  ) throws(StoreError) {
    do throws(SystemError) {
      let fd: FileDescriptor
      if let journal {
        fd = journal
      } else {
        fd = try openMaking(journalName, in: folder, O_RDWR)
        try keepJournal(fd)
      }
      if let size, size > state.journalSize {
        try positionalWrite(fd, [UInt8](repeating: 0, count: size - state.journalSize), at: state.journalSize)
      }
      try positionalWrite(fd, record, at: offset)
      if fdatasync(fd.rawValue) != 0 { throw SystemError.current("fdatasync", journalPath) }
      // A new journal is a new directory entry, which must be durable too.
      if !state.journalExists { try folder.synchronize() }
    } catch {
      throw storeError(error)
    }
  }

  /// Opens the regular file `name` in `folder` with `flags`, making it when it does not exist (mode 0660 less the
  /// umask; exactly 0660 in a shared, set-group-ID folder, so every member of the group can use it).
  private func openMaking(_ name: String, in folder: DirectoryDescriptor, _ flags: Int32) throws(SystemError)
    -> FileDescriptor
  {
    // Whoever makes it between the two opens wins; a third try takes whatever is there (still never a link).
    for attempt in 0..<3 {
      do throws(SystemError) {
        return try folder.openFile(name, flags)
      } catch  where error.code == ENOENT {}
      do throws(SystemError) {
        let fd = try folder.openFile(name, flags | O_CREAT | (attempt < 2 ? O_EXCL : 0), mode: 0o660)
        if files.sharedFolder {
          do throws(SystemError) { try fd.changeMode(0o660) } catch {
            fd.close()
            throw SystemError(code: error.code, operation: "fchmod", subject: folder.path(of: name))
          }
        }
        return fd
      } catch  where error.code == EEXIST {}
    }
    return try folder.openFile(name, flags)
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

  /// Temporary file (made new, `O_EXCL`), fsync, rename over the checkpoint, fsync of the folder.
  func writeCheckpoint(_ content: Content, sequence: UInt64, in folder: DirectoryDescriptor) throws(StoreError) {
    var bytes = try encode(content, sequence: sequence, pretty: true)
    bytes.append(0x0A)
    removeStaleTemporaries(in: folder)
    let temporary = temporaryPrefix + String(getpid())
    do throws(SystemError) {
      let fd: FileDescriptor
      do {
        fd = try folder.openFile(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o660)
      } catch  where error.code == EEXIST {
        // Something took the name since the sweep: remove it (never follow it) and make the file again.
        try folder.removeFile(temporary)
        fd = try folder.openFile(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o660)
      }
      do throws(SystemError) {
        try fd.writeAll(bytes)
        if files.sharedFolder { try fd.changeMode(0o660) }
        if fsync(fd.rawValue) != 0 { throw SystemError.current("fsync", folder.path(of: temporary)) }
      } catch {
        fd.close()
        removeLeftover(temporary, in: folder)
        throw error
      }
      fd.close()
      do {
        try folder.rename(temporary, to: fileName)
      } catch {
        removeLeftover(temporary, in: folder)
        throw error
      }
      try folder.synchronize()
    } catch {
      throw storeError(error)
    }
  }

  private func writeInPlace(_ content: Content, sequence: UInt64, in folder: DirectoryDescriptor) throws(StoreError) {
    let bytes = try encode(content, sequence: sequence, pretty: true)
    do throws(SystemError) {
      let fd = try folder.openFile(fileName, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o660)
      defer { fd.close() }
      try fd.writeAll(Array(bytes[..<(bytes.count / 2)]))
      usleep(500)
      try fd.writeAll(Array(bytes[(bytes.count / 2)...]))
    } catch {
      throw storeError(error)
    }
  }

  /// Temporary files of writers that were killed while writing a checkpoint. Only called under the exclusive
  /// lock, so no living writer owns one.
  private func removeStaleTemporaries(in folder: DirectoryDescriptor) {
    let names: [String]
    do {
      names = try folder.entries()
    } catch {
      return  // the sweep is tidying only: the next writer tries again, and the checkpoint does not need it
    }
    for name in names where name.hasPrefix(temporaryPrefix) { removeLeftover(name, in: folder) }
  }

  /// Removes a temporary file; one that cannot be removed now is removed by the next writer's sweep.
  private func removeLeftover(_ name: String, in folder: DirectoryDescriptor) {
    do { try folder.removeFile(name) } catch {}
  }

  // MARK: - Locking

  /// The document's folder, kept open between operations with everything else: opened again (and every kept
  /// descriptor with it) when `root` is no longer the directory it was, or when `again` (a file in it went missing,
  /// so it may have been deleted). Nil when the root or the folder does not exist.
  func folder(again: Bool = false) throws(StoreError) -> DirectoryDescriptor? {
    var info = stat()
    let rootError = lstat(root, &info) == 0 ? nil : SystemError.current("stat", root)
    if !again, rootError == nil, let folder = files.folder,
      files.rootIdentity == [UInt64(info.st_dev), UInt64(info.st_ino)]
    {
      return folder
    }
    files.reset()
    if let rootError {
      if rootError.code == ENOENT || rootError.code == ENOTDIR { return nil }
      throw .io(rootError)
    }
    do throws(SystemError) {
      let top = try DirectoryDescriptor.open(root)
      let folder: DirectoryDescriptor
      let rootStatus: FileStatus
      let folderStatus: FileStatus
      do throws(SystemError) {
        rootStatus = try top.status()
        folder = subdirectory.isEmpty ? top : try top.openDirectory(subdirectory)
        folderStatus = subdirectory.isEmpty ? rootStatus : try folder.status()
      } catch {
        top.close()
        throw error
      }
      if !subdirectory.isEmpty { top.close() }
      files.folder = folder
      files.rootIdentity = [rootStatus.device, rootStatus.inode]
      files.sharedFolder = folderStatus.permissions & 0o2000 != 0
      return folder
    } catch {
      if error.code == ENOENT { return nil }
      throw storeError(error)
    }
  }

  /// Opens and locks `.NAME.lock`, and returns it with the document's folder. Returns nil when the folder does not
  /// exist (then there is no document either).
  func acquireIfPresent(exclusive: Bool) throws(StoreError) -> (DirectoryDescriptor, FileDescriptor)? {
    var folder: DirectoryDescriptor
    var lock: FileDescriptor
    var again = false
    while true {
      guard let current = try self.folder(again: again) else { return nil }
      folder = current
      if let cached = files.lock, files.isStill(cached, named: lockName, in: folder) {
        lock = cached
        break
      }
      files.lock?.close()
      files.lock = nil
      do {
        lock = try openMaking(lockName, in: folder, O_RDWR)
        _ = try files.remember(lock)
      } catch {
        if error.code == ENOENT && !again {
          again = true  // the folder may have been deleted: open it again, once
          continue
        }
        if error.code == ENOENT { return nil }
        throw storeError(error)
      }
      files.lock = lock
      break
    }
    if lockingDisabled { return (folder, lock) }
    do {
      // The holder's critical section is short (one fdatasync): try without blocking for a moment before sleeping
      // in the kernel, so that a release hands the lock over without a wakeup.
      for attempt in 0..<200 {
        if try tryLockFile(lock, exclusive: exclusive) { return (folder, lock) }
        if attempt > 20 { sched_yield() }
      }
      try lockFile(lock, exclusive: exclusive)
    } catch {
      throw .io(error)
    }
    return (folder, lock)
  }

  /// Opens and locks `.NAME.lock`, and returns it with the document's folder.
  func acquire(exclusive: Bool) throws(StoreError) -> (DirectoryDescriptor, FileDescriptor) {
    guard let acquired = try acquireIfPresent(exclusive: exclusive) else {
      throw .io(SystemError(code: ENOENT, operation: "open", subject: lockPath))
    }
    return acquired
  }

  /// Whether the document has a checkpoint or a journal, looked up through its folder without following anything.
  /// - Throws: `StoreError.unsafeFile` when a folder on the way is a symbolic link; `.io`.
  public func exists() throws(StoreError) -> Bool {
    try files.serializedStore { () throws(StoreError) -> Bool in
      guard let folder = try folder() else { return false }
      do throws(SystemError) {
        if try folder.status(of: fileName) != nil { return true }
        return try folder.status(of: journalName) != nil
      } catch {
        if error.code == ENOENT { return false }
        throw storeError(error)
      }
    }
  }

  /// Whether the checkpoint or the journal is there (anything in their place counts: it is refused when read),
  /// looked up in the kept folder and, when not found there, in the folder opened again (the kept one may have been
  /// deleted and made again). The caller holds `files`' mutex.
  private func hasFiles() throws(StoreError) -> Bool {
    for again in [false, true] {
      guard let folder = try folder(again: again) else { return false }
      do throws(SystemError) {
        if try folder.status(of: fileName) != nil { return true }
        if try folder.status(of: journalName) != nil { return true }
      } catch {
        if error.code != ENOENT { throw storeError(error) }
      }
    }
    return false
  }

  /// Whether the document's folder exists (what a `DocumentWatch` sleeps on), opened as the store opens it: no link
  /// followed beneath `root`. Makes nothing.
  /// - Throws: `StoreError.unsafeFile` when a folder on the way is a link; `.io`.
  public func folderExists() throws(StoreError) -> Bool {
    guard let folder = try openFolder() else { return false }
    folder.close()
    return true
  }

  /// A descriptor of the document's folder of the caller's own (to close), opened as the store opens it; nil when
  /// the folder does not exist.
  func openFolder() throws(StoreError) -> DirectoryDescriptor? {
    do throws(SystemError) {
      let top = try DirectoryDescriptor.open(root)
      if subdirectory.isEmpty { return top }
      defer { top.close() }
      return try top.openDirectory(subdirectory)
    } catch {
      if error.code == ENOENT { return nil }
      throw storeError(error)
    }
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
  /// The document's folder, and the device and inode of its root when it was opened.
  var folder: DirectoryDescriptor?
  var rootIdentity: [UInt64]?
  /// Whether the folder is set-group-ID (an app group when the host is root): files made in it are group-writable.
  var sharedFolder = false
  var lock: FileDescriptor?
  var journal: FileDescriptor?
  var checkpoint: Checkpoint?
  /// The state the last load or commit left (`Document.unchangedState`), with what it was read from.
  var loaded: Loaded?

  struct Loaded {
    /// The checkpoint's key then; nil when there was none.
    var checkpoint: FileKey?
    /// The journal's device and inode.
    var journal: [UInt64]
    /// A `Document<Content>.State` (this class is not generic).
    var state: Any
  }

  struct FileKey: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var changed: Int64

    init(_ status: FileStatus) {
      device = status.device
      inode = status.inode
      size = status.size
      modified = status.modified
      changed = status.changed
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
    folder?.close()
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

  /// Forgets everything (after files were moved aside, or when the folder is opened again).
  func reset() {
    folder?.close()
    lock?.close()
    journal?.close()
    folder = nil
    rootIdentity = nil
    lock = nil
    journal = nil
    checkpoint = nil
    loaded = nil
    identities = [:]
    names = [:]
  }

  /// The device and inode of each descriptor kept open, taken when it was opened.
  var identities: [Int32: [UInt64]] = [:]

  /// Remembers which file `fd` is, and returns what it is.
  func remember(_ fd: FileDescriptor) throws(SystemError) -> FileStatus {
    let status = try fd.status()
    identities[fd.rawValue] = [status.device, status.inode]
    names[fd.rawValue] = Self.kernelName(of: fd)
    return status
  }

  /// Forgets `fd` (before it is closed without being kept).
  func forget(_ fd: FileDescriptor) {
    identities[fd.rawValue] = nil
    names[fd.rawValue] = nil
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

  /// Whether `fd` is still open on `name` in `folder` (not deleted, nor moved aside by a recovery or replaced), from
  /// the name the kernel keeps for it, without asking for the file's attributes (see `readWhole`). Falls back to
  /// `isStill` where there is no `/proc`.
  func isStillNamed(_ fd: FileDescriptor, name: String, in folder: DirectoryDescriptor) -> Bool {
    guard let current = Self.kernelName(of: fd), let original = names[fd.rawValue] else {
      return isStill(fd, named: name, in: folder)
    }
    return current == original
  }

  /// Whether `fd` is still the file named `name` in `folder` (not deleted with its group's folder, nor moved aside by
  /// a recovery, nor replaced by a link): one `fstatat` of the name, not following it, against the identity
  /// remembered at open.
  func isStill(_ fd: FileDescriptor, named name: String, in folder: DirectoryDescriptor) -> Bool {
    // Any failure here means "open it again", and the open reports it.
    guard let identity = identities[fd.rawValue], let status = try? folder.status(of: name) else { return false }
    return identity == [status.device, status.inode]
  }
}
