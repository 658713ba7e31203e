import IntentHostSystem

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

extension Document {
  /// What `recover()` did, one sentence per step.
  public struct RecoveryReport: Sendable {
    public var steps: [String]
    /// The sequence the document holds afterwards.
    public var sequence: UInt64
  }

  /// Makes a document that cannot be read (corrupt, of a newer schema, or with a link, FIFO, device or socket planted
  /// in place of one of its files) usable again, explicitly: each unreadable file is renamed aside to
  /// `NAME.unreadable-TIMESTAMP` (the journal to `NAME.journal.unreadable-TIMESTAMP`, a planted lock to
  /// `.NAME.lock.unsafe-TIMESTAMP`), never deleted and never followed; the newest readable state left (the journal's
  /// newest intact record, else the checkpoint) becomes a fresh checkpoint, and with nothing readable left the
  /// document starts again empty. A readable document is left as it is.
  /// - Throws: `StoreError.unsafeFile` when a folder on the way to the document is a link (remove it); `.io` when a
  ///   file cannot be moved or written.
  public func recover() throws(StoreError) -> RecoveryReport {
    try files.serializedStore { () throws(StoreError) -> RecoveryReport in try recoverLocked() }
  }

  /// Moves aside each folder between `root` and the document that is not a directory (a link planted in place of
  /// `Library`, say) as `NAME.unsafe-TIMESTAMP`, and makes the folders that are missing, through `root`'s descriptor
  /// (group-writable and set-group-ID in a set-group-ID root).
  private func replacePlantedFolders(stamp: String) throws(StoreError) -> [String] {
    guard !subdirectory.isEmpty else { return [] }
    var steps: [String] = []
    do throws(SystemError) {
      let top = try DirectoryDescriptor.open(root)
      defer { top.close() }
      let shared = try top.status().permissions & 0o2000 != 0
      var folder = ""
      for component in subdirectory.split(separator: "/") {
        folder += (folder.isEmpty ? "" : "/") + component
        if let status = try top.status(of: folder), status.kind != .directory {
          let aside = folder + ".unsafe-" + stamp
          try top.rename(folder, to: aside)
          steps.append("moved \(top.path(of: folder)) aside to \(top.path(of: aside)): it was \(status.kind)")
        }
        try top.makeDirectory(folder, mode: 0o770, permissions: shared ? 0o2770 : nil).directory.close()
      }
    } catch {
      if error.code == ENOENT { return steps }
      throw storeError(error)
    }
    return steps
  }

  private func recoverLocked() throws(StoreError) -> RecoveryReport {
    let stamp = String(Date().formatted(Date.ISO8601FormatStyle(timeZone: .gmt)).filter { $0 != ":" })
    var steps = try replacePlantedFolders(stamp: stamp)
    // A planted lock can be held by nobody, so nobody is using the document: move it aside, and lock a new one.
    if let folder = try folder(again: true) {
      let status: FileStatus?
      do { status = try folder.status(of: lockName) } catch { throw storeError(error) }
      if let status, status.kind != .regular {
        let aside = lockName + ".unsafe-" + stamp
        do { try folder.rename(lockName, to: aside) } catch { throw storeError(error) }
        steps.append("moved \(lockPath) aside to \(folder.path(of: aside)): it was \(status.kind)")
      }
    }
    let (folder, lock) = try acquire(exclusive: true)
    defer {
      release(lock)
      files.reset()  // files may have been moved aside
    }
    var checkpoint = State()
    var checkpointError: StoreError? = nil
    do { checkpoint = try loadCheckpointState(in: folder) } catch { checkpointError = error }
    var state = checkpoint
    var journalError: StoreError? = nil
    do throws(StoreError) {
      // Updates refuse a journal with a second name (see `keepJournal`): so does recovery, which moves it aside.
      // (A journal that cannot be looked up is reported by the load that follows.)
      if let links = try? folder.status(of: journalName)?.linkCount, links > 1 {
        throw StoreError.unsafeFile(file: journalPath, detail: "has \(links) hard links; a journal has one name only")
      }
      try loadJournal(into: &state, in: folder, withoutCheckpoint: checkpointError != nil)
    } catch {
      journalError = error
      state = checkpoint
    }
    if checkpointError == nil && journalError == nil {
      return RecoveryReport(
        steps: steps + ["\(path) is readable (sequence \(state.sequence)); nothing to recover"],
        sequence: state.sequence)
    }
    for (file, name, error) in [
      (journalName, fileName + ".journal.unreadable-" + stamp, journalError),
      (fileName, fileName + ".unreadable-" + stamp, checkpointError),
    ] {
      guard let error else { continue }
      // renameat moves a planted link itself, never what it points to.
      do { try folder.rename(file, to: name) } catch { throw storeError(error) }
      let reason: String
      if case .unsafeFile(_, let detail) = error { reason = "it \(detail)" } else { reason = "\(error)" }
      steps.append("moved \(folder.path(of: file)) aside to \(folder.path(of: name)): \(reason)")
    }
    guard let content = state.content else {
      // Nothing readable is left: the document no longer exists, and readers see an empty one.
      steps.append("nothing readable was left: \(fileName) starts again empty")
      return RecoveryReport(steps: steps, sequence: 0)
    }
    try writeCheckpoint(content, sequence: state.sequence + 1, in: folder)
    steps.append("wrote \(path) from the newest readable state (sequence \(state.sequence))")
    return RecoveryReport(steps: steps, sequence: state.sequence + 1)
  }
}
