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

  /// Makes a document that cannot be read (corrupt, or of a newer schema) usable again, explicitly: each unreadable
  /// file is renamed aside to `NAME.unreadable-TIMESTAMP` (the journal to `NAME.journal.unreadable-TIMESTAMP`), never
  /// deleted; the newest readable state left (the journal's newest intact record, else the checkpoint) becomes a
  /// fresh checkpoint, and with nothing readable left the document starts again empty. A readable document is left
  /// as it is.
  /// - Throws: `StoreError.io` when a file cannot be moved or written.
  public func recover() throws(StoreError) -> RecoveryReport {
    try files.serializedStore { () throws(StoreError) -> RecoveryReport in try recoverLocked() }
  }

  private func recoverLocked() throws(StoreError) -> RecoveryReport {
    let lock = try acquire(exclusive: true)
    defer {
      release(lock)
      files.reset()  // files may have been moved aside
    }
    var checkpoint = State()
    var checkpointError: StoreError? = nil
    do { checkpoint = try loadCheckpointState() } catch { checkpointError = error }
    var state = checkpoint
    var journalError: StoreError? = nil
    do { try loadJournal(into: &state, withoutCheckpoint: checkpointError != nil) } catch {
      journalError = error
      state = checkpoint
    }
    if checkpointError == nil && journalError == nil {
      return RecoveryReport(
        steps: ["\(path) is readable (sequence \(state.sequence)); nothing to recover"], sequence: state.sequence)
    }
    let stamp = String(Date().formatted(Date.ISO8601FormatStyle(timeZone: .gmt)).filter { $0 != ":" })
    var steps: [String] = []
    for (file, name, error) in [
      (journalPath, fileName + ".journal.unreadable-" + stamp, journalError),
      (path, fileName + ".unreadable-" + stamp, checkpointError),
    ] {
      guard let error else { continue }
      let destination = directory + "/" + name
      if rename(file, destination) != 0 { throw .io(SystemError.current("rename", file)) }
      steps.append("moved \(file) aside to \(destination): \(error)")
    }
    guard let content = state.content else {
      // Nothing readable is left: the document no longer exists, and readers see an empty one.
      steps.append("nothing readable was left: \(fileName) starts again empty")
      return RecoveryReport(steps: steps, sequence: 0)
    }
    try writeCheckpoint(content, sequence: state.sequence + 1)
    steps.append("wrote \(path) from the newest readable state (sequence \(state.sequence))")
    return RecoveryReport(steps: steps, sequence: state.sequence + 1)
  }
}
