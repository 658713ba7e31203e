import Foundation
import IntentHostSystem

/// The most a container or an app group may hold: the bytes its files take on disk and how many entries it has
/// (files, folders, links: everything counts). The host measures each container and group a launch can write at
/// every launch (walking it without following links, and stopping at the budget), and refuses the launch (exit 77)
/// while one is over; within a launch, RLIMIT_FSIZE caps each file. Documented in docs/SANDBOX.md, "Limits".
package struct StorageBudget: Sendable, Equatable {
  /// Bytes allocated on disk.
  package var bytes: Int
  /// Entries of every kind below the folder.
  package var entries: Int

  package init(bytes: Int, entries: Int) {
    self.bytes = bytes
    self.entries = entries
  }

  /// 128 MiB and 10,000 entries for every container and every app group. A misbehaving launch filled 321 MiB and
  /// 30,000 files; the Rooms example holds a few KiB in a dozen entries.
  package static let standard = StorageBudget(bytes: 128 << 20, entries: 10_000)

  /// How folders may nest (a folder deeper than this is over the budget, whatever its size).
  package static let depthLimit = 64

  /// "128 MiB and 10000 files".
  package var description: String { "\(bytes >> 20) MiB and \(entries) files" }
}

/// What one container or app group holds, against the budget.
package struct StorageUsage: Sendable, Equatable {
  /// "container" or "app group group.com.example.rooms".
  package var what: String
  package var path: String
  /// The measurement; nil when the folder could not be opened (it is then not over).
  package var usage: DiskUsage?
  package var budget: StorageBudget

  /// Whether the next launch is refused.
  package var isOver: Bool {
    guard let usage else { return false }
    return usage.tooDeep || usage.bytes > budget.bytes || usage.entries > budget.entries
  }

  /// "1.2 MiB in 14 files", or "at least 128.0 MiB in 6 files" when the walk stopped at the budget.
  package var summary: String {
    guard let usage else { return "not measured (it cannot be opened as a folder)" }
    if usage.tooDeep { return "folders nested more than \(StorageBudget.depthLimit) deep" }
    let amount = String(
      format: "%.1f MiB in %d file%@", Double(usage.bytes) / 1_048_576, usage.entries, usage.entries == 1 ? "" : "s")
    return usage.isPartial ? "at least " + amount : amount
  }

  /// Measures `path` against `budget` (a bounded walk: at most the budget's entries are visited).
  static func measure(_ what: String, path: String, budget: StorageBudget) -> StorageUsage {
    StorageUsage(
      what: what, path: path,
      usage: try? DiskUsage.measure(
        path, bytes: budget.bytes, entries: budget.entries, depthLimit: StorageBudget.depthLimit),
      budget: budget)
  }

  /// The refusal of a launch, for `label` ("RoomsIntents (com.example.rooms.RoomsIntents)").
  func refusal(_ label: String) -> String {
    "\(label) was not run: its \(what) \(path) holds \(summary), over its storage budget of \(budget.description) "
      + "(measured at each launch); delete what it no longer needs there, or raise the budget with "
      + "--storage-limit MIB[,FILES]"
  }
}
