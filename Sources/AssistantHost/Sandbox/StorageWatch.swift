// After a launch: which of its container and app groups is full, in one line each for the user.
import Foundation
import IntentHostSystem
import ProcessSupervision
import Synchronization

/// What to check of one launch's folders once it has run (`confine` makes it).
struct StorageCheck: Sendable, Codable {
  /// One folder: "container" or "app group group.x", and its path.
  struct Folder: Sendable, Hashable, Codable {
    var what: String
    var path: String
  }

  /// The launch's name, "FillContainer".
  var name: String
  var folders: [Folder]
  var budget: StorageBudget
  /// Whether each folder is a volume (the kernel stopped it at the budget).
  var byVolume: Bool
  /// Its log, where the line goes too.
  var logPath: String?

  /// The line for each folder that is full after the launch, without the `assistant: ` prefix: a volume with less
  /// than 1% of its bytes or entries left (`VolumeUsage.isFull`: its writes are failing with ENOSPC), or a folder
  /// checked before each launch that is over its budget (its next launch is refused). Blocks (it measures): call it
  /// off the cooperative pool.
  func fullFolders() -> [String] {
    folders.compactMap { folder in
      if byVolume {
        guard
          let usage = try? DirectoryDescriptor.withOpened(folder.path, { try Volume.usage(of: $0) }),
          usage.isFull
        else { return nil }
        return "\(name)'s \(folder.what) \(folder.path) is full: \(mebibytes(usage.usedBytes)) in "
          + "\(usage.usedEntries) file\(usage.usedEntries == 1 ? "" : "s") of its budget of \(budget.description) "
          + "(a volume of its own: writes past it fail with ENOSPC, \"No space left on device\"); "
          + Self.advice
      }
      let usage = StorageUsage.measure(folder.what, path: folder.path, budget: budget)
      guard usage.isOver else { return nil }
      return "\(name)'s \(folder.what) \(folder.path) is full: it holds \(usage.summary), over its budget of "
        + "\(budget.description) (checked before each launch: the next one is refused until it is under); "
        + Self.advice
    }
  }

  static let advice =
    "delete what it no longer needs there, or raise the budget with assistant storage set MIB[,FILES]"
}

/// The folders a run launched into, so that when the run ends the user is told, one line each, which of them is
/// full (`StorageCheck.fullFolders`). Sessions add their launch's check as they start.
package final class StorageWatch: Sendable {
  private let checks = Mutex<[StorageCheck]>([])

  package init() {}

  func add(_ check: StorageCheck?) {
    guard let check else { return }
    checks.withLock { $0.append(check) }
  }

  /// Tells the user which folders of the run's launches are full (each folder once), on stderr and in the log of
  /// the launch that used it; measures off the cooperative pool.
  package func report() async {
    await Self.report(checks.withLock { $0 })
  }

  /// Tells the user which of `checks`' folders are full (see `report()`).
  static func report(_ checks: [StorageCheck]) async {
    let lines = await offloaded { () -> [(line: String, log: String?)] in
      var seen = Set<String>()
      var lines: [(line: String, log: String?)] = []
      for check in checks {
        var unseen = check
        unseen.folders = check.folders.filter { seen.insert($0.path).inserted }
        lines += unseen.fullFolders().map { (line: $0, log: check.logPath) }
      }
      for (line, log) in lines {
        if let log { _ = ExtensionLog.appendHostLine("warning: \(line)", toLogAt: log) }  // best effort
      }
      return lines
    }
    for (line, _) in lines { await writeHostMessage(line) }
  }
}
