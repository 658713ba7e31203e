// `assistant storage` and `assistant storage set`: the home's storage budget, its enforcement, and each folder's use.
import Foundation
import IntentHostSystem

/// The home's storage budget, how it is enforced, and what each container and app group holds
/// (`assistant storage`, `--json`).
package struct StorageReport: Sendable, Encodable {
  package struct Budget: Sendable, Encodable, Equatable {
    package var megabytes: Int
    package var files: Int
  }

  /// One container or app group.
  package struct Folder: Sendable, Encodable {
    /// "container" or "appGroup".
    package var kind: String
    package var identifier: String
    package var path: String
    /// What it holds: bytes on disk and entries (at least these when `partial`); null when it cannot be measured.
    package var bytes: Int?
    package var files: Int?
    /// Whether the walk stopped at the budget (the folder holds more).
    package var partial: Bool
    /// Whether it is over the budget (checked before each launch: its next launch is refused).
    package var over: Bool
    /// Its volume: "mounted", "unmounted" (an image not mounted yet: the next launch mounts it), "foreign"
    /// (something else is mounted on it), "unknown" (it cannot be examined: `detail` says why), or "none".
    package var volume: String
    /// What its mounted volume has left; null otherwise.
    package var availableBytes: Int?
    package var availableFiles: Int?
    /// Why it is "foreign" or "unknown"; null otherwise.
    package var detail: String?
    /// The line `assistant storage` prints for it (without its indent).
    package var summary: String

    enum CodingKeys: String, CodingKey {
      case kind, identifier, path, bytes, files, partial, over, volume, availableBytes, availableFiles, detail
    }

    /// Every key, null where there is no value.
    package func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(kind, forKey: .kind)
      try container.encode(identifier, forKey: .identifier)
      try container.encode(path, forKey: .path)
      try container.encode(bytes, forKey: .bytes)
      try container.encode(files, forKey: .files)
      try container.encode(partial, forKey: .partial)
      try container.encode(over, forKey: .over)
      try container.encode(volume, forKey: .volume)
      try container.encode(availableBytes, forKey: .availableBytes)
      try container.encode(availableFiles, forKey: .availableFiles)
      try container.encode(detail, forKey: .detail)
    }
  }

  package var budget: Budget
  /// "home" (set with `assistant storage set`) or "standard" (the default).
  package var source: String
  /// "checked" or "volumes" (`StorageEnforcement`).
  package var enforcement: String
  package var folders: [Folder]

  enum CodingKeys: String, CodingKey {
    case budget, source, enforcement, folders
  }

  /// The report as `assistant storage` prints it.
  package var text: String {
    let budgetLine =
      "budget: \(budget.megabytes) MiB and \(budget.files) files for each container and app group"
      + (source == "home" ? " (this home's)" : " (the default; assistant storage set MIB[,FILES] changes it)")
    let enforcementLine =
      enforcement == StorageEnforcement.volumes.rawValue
      ? "enforcement: volumes: each folder is an ext4 file system of its own in Volumes/, mounted on it; a write past "
        + "the budget fails with ENOSPC"
      : "enforcement: checked before each launch, which is refused while a folder is over (assistant storage set "
        + "--volumes on has the kernel enforce it, with a volume per folder: root and loop devices)"
    var lines = [budgetLine, enforcementLine]
    if folders.isEmpty { lines.append("no containers or app groups yet") }
    lines += folders.map(\.summary)
    return lines.joined(separator: "\n")
  }
}

extension AssistantHome {
  /// The home's storage budget, its enforcement and what each container and app group holds: each folder walked
  /// as a launch walks it (bounded by the budget), or its mounted volume asked (`fstatvfs`). Reads only.
  /// - Throws: `HostError(.dataError)` for a corrupt `State/storage.json`.
  package func storageReport() throws -> StorageReport {
    let settings = try storageSettings()
    let budget = settings.effectiveBudget
    let folders = storageFolders().map { folder -> StorageReport.Folder in
      var entry = StorageReport.Folder(
        kind: folder.kind.rawValue, identifier: folder.identifier, path: folder.path, bytes: nil, files: nil,
        partial: false, over: false, volume: "none", summary: "")
      let state: Volume.State
      do {
        state = try volume(of: folder).state()
      } catch {
        // Shown, not thrown: the other folders are still worth seeing.
        state = .none
        entry.volume = "unknown"
        entry.detail = (error as? HostError)?.message ?? "\(error)"
      }
      let usage: StorageUsage
      switch state {
      case .mounted(let volume):
        usage = StorageUsage(what: folder.what, path: folder.path, usage: nil, budget: budget, volume: volume)
        entry.volume = "mounted"
        entry.bytes = volume.usedBytes
        entry.files = volume.usedEntries
        entry.availableBytes = volume.availableBytes
        entry.availableFiles = volume.availableEntries
      case .unmounted, .none, .foreign:
        usage = StorageUsage.measure(folder.what, path: folder.path, budget: budget)
        entry.bytes = usage.usage?.bytes
        entry.files = usage.usage?.entries
        entry.partial = usage.usage?.isPartial ?? false
        entry.over = usage.isOver
        if case .foreign(let what) = state {
          entry.volume = "foreign"
          entry.detail = what
        } else if state == .unmounted {
          entry.volume = "unmounted"
        }
      }
      var summary = "\(folder.what) (\(folder.path)): \(usage.summary)"
      switch entry.volume {
      case "unmounted": summary += " (its volume is not mounted: the next launch mounts it)"
      case "foreign": summary += " (not its volume: \(entry.detail ?? "") is mounted on it)"
      case "unknown": summary += " (its volume cannot be examined: \(entry.detail ?? ""))"
      default: if entry.over { summary += " (over: the next launch is refused)" }
      }
      entry.summary = summary
      return entry
    }
    return StorageReport(
      budget: StorageReport.Budget(megabytes: budget.megabytes, files: budget.entries),
      source: settings.budget == nil ? "standard" : "home", enforcement: settings.enforcement.rawValue,
      folders: folders)
  }

  /// What `setStorage` changed.
  package struct StorageChange: Sendable, Encodable {
    /// The folders made (or made again) volumes of their own, by path.
    package var madeVolumes: [String]
    /// The folders whose volumes were folded back into plain folders, by path.
    package var foldedBack: [String]
    /// The settings and folders after the change.
    package var storage: StorageReport
  }

  /// Changes the home's storage budget (`limit`, its files kept when it gives none) and its enforcement (`volumes`),
  /// then makes the folders match (`assistant storage set`):
  ///
  /// - Volumes on: the machine is checked first (`volumeSupport`: root, mkfs.ext4, a test volume made and
  ///   mounted), then every container and app group must fit the budget (refused, naming those that do not, with
  ///   nothing changed), then each becomes a volume (`Volume.ensureMounted`: what it holds moved in); with a new
  ///   budget, existing volumes are folded back and made again at the new size. The settings are written last.
  /// - Volumes off: the settings are written first, then every volume is folded back (`Volume.foldBack`); one in
  ///   use stops it (refused), and running it again finishes.
  /// - Otherwise the settings are written.
  ///
  /// Blocks (mkfs, copies): call it off the cooperative pool.
  /// - Throws: `HostError(.refused)` (the machine cannot have volumes, a folder does not fit or is in use),
  ///   `.dataError` (a corrupt `State/storage.json`), `.ioError`, `.cannotCreate`.
  package func setStorage(_ limit: StorageLimit?, volumes: Bool?) throws -> StorageChange {
    try prepare()
    let current = try storageSettings()
    var wanted = current
    if let limit { wanted.budget = limit.applied(to: current.effectiveBudget) }
    if let volumes { wanted.enforcement = volumes ? .volumes : .checked }
    var change = StorageChange(madeVolumes: [], foldedBack: [], storage: try storageReport())
    if wanted.enforcement == .volumes {
      let budget = wanted.effectiveBudget
      let remaking = current.enforcement == .volumes && current.effectiveBudget != budget
      if current.enforcement != .volumes || remaking, let reason = volumeSupport() {
        throw HostError(
          .refused, "cannot make the containers and app groups volumes of their own: \(reason); nothing was changed")
      }
      let folders = storageFolders()
      let misfits = folders.compactMap { folder -> String? in
        let usage = storageUsage(of: folder, budget: budget, enforcement: .checked)
        return usage.isOver ? "the \(folder.what) \(folder.path) holds \(usage.summary)" : nil
      }
      guard misfits.isEmpty else {
        throw HostError(
          .refused,
          "cannot make volumes of \(budget.description): \(misfits.joined(separator: "; ")); delete what they no "
            + "longer need, or choose a larger budget; nothing was changed")
      }
      for folder in folders {
        let volume = self.volume(of: folder)
        if remaking, try volume.foldBack() { change.foldedBack.append(folder.path) }
        guard (try? DirectoryDescriptor.withOpened(folder.path) { _ in true }) == true else { continue }
        let before = try volume.state()
        try volume.ensureMounted(budget: budget, owner: nil, permissions: 0o700)
        if before == .none || remaking { change.madeVolumes.append(folder.path) }
      }
      try updateStorageSettings { $0 = wanted }
    } else {
      // Every folder back first, then the setting: a fold that fails leaves the home with volumes, its folders
      // mounted, rather than a home that says "checked" over folders whose files are in images.
      for folder in storageFolders() where try volume(of: folder).foldBack() {
        change.foldedBack.append(folder.path)
      }
      try updateStorageSettings { $0 = wanted }
    }
    change.storage = try storageReport()
    return change
  }

  /// Why this machine cannot have volumes, or nil when it can: the host must be root (mounting needs it), mkfs.ext4
  /// must be installed, `/dev/loop-control` must exist, and a test volume (1 MiB) must be made, mounted (the new
  /// mount API, Linux 5.2), written, asked its mount id (`statx`, Linux 5.8) and unmounted in `<home>/Volumes`.
  /// Blocks: call it off the cooperative pool.
  package func volumeSupport() -> String? {
    guard geteuid() == 0 else { return "only root can mount a file system (run it, and the assistant, as root)" }
    guard VolumeImage.mkfs != nil else { return "mkfs.ext4 is not installed (e2fsprogs)" }
    guard access("/dev/loop-control", F_OK) == 0 else {
      return "the kernel has no loop devices (/dev/loop-control is missing: load the loop module)"
    }
    do throws(SystemError) {
      let home = try DirectoryDescriptor.openTrusted(root.path)
      defer { home.close() }
      let (images, _) = try home.makeDirectory("Volumes", permissions: 0o700)
      defer { images.close() }
      let name = ".probe-\(getpid()).ext4"
      try? images.removeFile(name)
      let file = try images.openFile(name, O_RDWR | O_CREAT | O_EXCL, mode: 0o600)
      defer {
        file.close()
        try? images.removeFile(name)
      }
      do {
        try VolumeImage.format(
          file, budget: StorageBudget(bytes: 1 << 20, entries: 16), rootOwner: (0, 0), name: images.path(of: name))
      } catch {
        return "a test volume could not be made: \(error)"
      }
      let loop = try LoopDevice.attach(file, name: images.path(of: name))
      let mount: DetachedMount
      do throws(SystemError) {
        mount = try DetachedMount.mount("ext4", from: loop.path)
      } catch {
        loop.close()
        throw error
      }
      loop.close()
      defer { mount.close() }
      let root = try mount.root()
      defer { root.close() }
      try root.openFile("probe", O_WRONLY | O_CREAT | O_EXCL).close()
      // The check at each launch needs mount ids from statx (Linux 5.8).
      _ = try MountStatus(of: root.descriptor)
      return nil
    } catch {
      return "a test volume could not be mounted: \(error)"
    }
  }
}
