import Foundation
import IntentHostSystem

/// The most a container or an app group may hold: the bytes its files take on disk and how many entries it has
/// (files, folders, links: everything counts). Each home has one (`State/storage.json`, set by `assistant storage
/// set`; `standard` until then), a run may give its own (`--storage-limit`), and it is enforced in one of two ways
/// (`StorageEnforcement`): checked before each launch, or by the kernel with a volume per folder. Documented in
/// docs/SANDBOX.md, "Limits", **Storage**.
package struct StorageBudget: Sendable, Equatable, Codable {
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

  /// The largest budget: 1 TiB (1,048,576 MiB) and 10 million entries. A volume holds its inode table whatever is
  /// stored: 10 million entries are 2.4 GiB of it.
  package static let maximumMegabytes = 1 << 20
  package static let maximumEntries = 10_000_000

  /// How folders may nest (a folder deeper than this is over the budget, whatever its size).
  package static let depthLimit = 64

  /// The budget in whole MiB (budgets are set in MiB).
  package var megabytes: Int { bytes >> 20 }

  /// "128 MiB and 10000 files".
  package var description: String { "\(megabytes) MiB and \(entries) files" }

  enum CodingKeys: String, CodingKey {
    case megabytes, files
  }

  /// `{"megabytes": 128, "files": 10000}`, each checked against the limits (a document written by hand, or planted,
  /// is refused with what is wrong rather than used).
  /// - Throws: `StorageLimit.Problem` naming the value and its range; `DecodingError` for a missing or mistyped key.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let megabytes = try container.decode(Int.self, forKey: .megabytes)
    let files = try container.decode(Int.self, forKey: .files)
    try StorageLimit.check(megabytes: megabytes, files: files)
    self.init(bytes: megabytes << 20, entries: files)
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(megabytes, forKey: .megabytes)
    try container.encode(entries, forKey: .files)
  }

  /// Where the budget of a run comes from.
  package enum Source: String, Sendable, Encodable {
    /// `--storage-limit` of this run.
    case run
    /// The home's (`assistant storage set`).
    case home
    /// Neither: `standard`.
    case standard
  }

  /// The budget of a run: its own (`--storage-limit`, the files it does not give taken from the next), else the
  /// home's (`State/storage.json`), else `standard`.
  package static func effective(run: StorageLimit?, home: StorageBudget?) -> (budget: StorageBudget, source: Source) {
    let base = home ?? standard
    if let run { return (run.applied(to: base), .run) }
    return (base, home == nil ? .standard : .home)
  }
}

/// A budget as the user writes it, `MIB[,FILES]` (`--storage-limit`, `assistant storage set`): the files may be left
/// out, and are then those of the budget it changes.
package struct StorageLimit: Sendable, Equatable {
  package var megabytes: Int
  package var files: Int?

  package init(megabytes: Int, files: Int? = nil) {
    self.megabytes = megabytes
    self.files = files
  }

  /// A value out of range, or not of the form `MIB[,FILES]`; the message names what is wrong and what is allowed.
  package struct Problem: Error, Sendable, CustomStringConvertible, Equatable {
    package var description: String
  }

  /// What `MIB[,FILES]` may be, for messages and help.
  package static let form =
    "MIB or MIB,FILES (e.g. 256,20000): MIB a whole number from 1 to \(StorageBudget.maximumMegabytes) (1 TiB), "
    + "FILES from 1 to \(StorageBudget.maximumEntries)"

  /// Parses `MIB` or `MIB,FILES`, whole decimal numbers in range.
  /// - Throws: `Problem` quoting the text and saying the form.
  package init(parsing text: String) throws(Problem) {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    func number(_ part: Substring) -> Int? {
      part.isEmpty || part.count > 12 || !part.allSatisfy(\.isASCII) || !part.allSatisfy(\.isNumber)
        ? nil : Int(part)
    }
    guard (1...2).contains(parts.count), let megabytes = number(parts[0]) else {
      throw Problem(description: "needs \(Self.form), not \"\(text)\"")
    }
    let files = parts.count == 2 ? number(parts[1]) : nil
    if parts.count == 2 && files == nil { throw Problem(description: "needs \(Self.form), not \"\(text)\"") }
    do throws(Problem) {
      try Self.check(megabytes: megabytes, files: files ?? 1)
    } catch {
      throw Problem(description: "\(error.description), not \"\(text)\"")
    }
    self.init(megabytes: megabytes, files: files)
  }

  /// Checks the ranges of a budget.
  /// - Throws: `Problem` naming the value out of range and the range.
  static func check(megabytes: Int, files: Int) throws(Problem) {
    guard (1...StorageBudget.maximumMegabytes).contains(megabytes) else {
      throw Problem(
        description:
          "the size \(megabytes) MiB is out of range: from 1 to \(StorageBudget.maximumMegabytes) MiB (1 TiB)")
    }
    guard (1...StorageBudget.maximumEntries).contains(files) else {
      throw Problem(
        description: "the file count \(files) is out of range: from 1 to \(StorageBudget.maximumEntries)")
    }
  }

  /// `base` with these MiB, and these files when given.
  package func applied(to base: StorageBudget) -> StorageBudget {
    StorageBudget(bytes: megabytes << 20, entries: files ?? base.entries)
  }
}

/// What one container or app group holds, against the budget.
package struct StorageUsage: Sendable, Equatable {
  /// "container" or "app group group.com.example.rooms".
  package var what: String
  package var path: String
  /// The measurement of a walk; nil when the folder could not be opened (it is then not over), or when its volume
  /// answered instead (`volume`).
  package var usage: DiskUsage?
  package var budget: StorageBudget
  /// What the folder's file system says when the folder is its volume (the kernel enforces the budget: it is
  /// never over, nor walked).
  package var volume: VolumeUsage? = nil

  /// Whether the next launch is refused.
  package var isOver: Bool {
    guard let usage else { return false }
    return usage.tooDeep || usage.bytes > budget.bytes || usage.entries > budget.entries
  }

  /// "1.2 MiB in 14 files", or "at least 128.0 MiB in 6 files" when the walk stopped at the budget.
  package var summary: String {
    if let volume { return volume.summary }
    guard let usage else { return "not measured (it cannot be opened as a folder)" }
    if usage.tooDeep { return "folders nested more than \(StorageBudget.depthLimit) deep" }
    let amount = "\(mebibytes(usage.bytes)) in \(usage.entries) file\(usage.entries == 1 ? "" : "s")"
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

/// What a volume's file system says of itself (`fstatvfs`): used and left, in bytes and entries.
package struct VolumeUsage: Sendable, Equatable {
  package var usedBytes: Int
  package var availableBytes: Int
  package var usedEntries: Int
  package var availableEntries: Int

  package init(usedBytes: Int, availableBytes: Int, usedEntries: Int, availableEntries: Int) {
    self.usedBytes = usedBytes
    self.availableBytes = availableBytes
    self.usedEntries = usedEntries
    self.availableEntries = availableEntries
  }

  /// What its files can take in all.
  package var capacityBytes: Int { usedBytes + availableBytes }
  package var capacityEntries: Int { usedEntries + availableEntries }

  /// Full: less than 1% of its bytes or of its entries left (the next write of any size may get ENOSPC).
  package var isFull: Bool {
    availableBytes * 100 < capacityBytes || availableEntries * 100 < capacityEntries
  }

  /// "1.2 MiB in 14 files (volume: 126.8 MiB and 9986 files left)".
  package var summary: String {
    "\(mebibytes(usedBytes)) in \(usedEntries) file\(usedEntries == 1 ? "" : "s") (its volume: "
      + "\(mebibytes(availableBytes)) and \(availableEntries) files left)"
  }
}

/// "1.2 MiB".
func mebibytes(_ bytes: Int) -> String {
  String(format: "%.1f MiB", Double(bytes) / 1_048_576)
}
