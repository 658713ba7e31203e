// `assistant storage`: the home's storage budget for its containers and app groups, how it is enforced, and what each
// holds; `storage set` changes them. The engine is AssistantHost's `storageReport` and `setStorage`.
import AssistantHost
import Foundation
import IntentHostSystem
import UntrustedText

private let storageDiscussion = """
  Every container and app group may hold the home's budget: 128 MiB and 10000 files until `storage set` changes it \
  (every file, folder and link counts). By default it is checked before each launch, which is refused (exit 77) \
  while a folder is over; a launch can go over once, and is told about it in one line when it ends. With volumes \
  (`storage set --volumes on`: root and loop devices), each folder is an ext4 file system of its own, \
  <home>/Volumes/Containers/<bundle id>.ext4 or Volumes/AppGroup/<group id>.ext4, mounted on it (nosuid, nodev, \
  noexec) and left mounted: the kernel refuses a write past the budget with ENOSPC. `--storage-limit MIB[,FILES]` \
  changes the budget for one run, checked before each launch. docs/SANDBOX.md ("Storage") has the details.
  """

/// `assistant storage [show|set]`.
struct Storage: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "storage",
      abstract: "Show or set the storage budget of containers and app groups, and how it is enforced.",
      discussion: storageDiscussion,
      subcommands: [StorageShow.self, StorageSet.self],
      defaultSubcommand: StorageShow.self,
      examples: [
        "assistant storage", "assistant storage set 256,20000", "sudo assistant storage set --volumes on",
      ])
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 { ExitStatus.usage.rawValue }  // the parser refuses it
}

/// `assistant storage show`.
struct StorageShow: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "show",
      abstract: "Show the budget, its enforcement and what each container and app group holds (makes nothing).",
      discussion: """
        Each folder is measured as a launch measures it (a walk that stops at the budget, following no link), or \
        its mounted volume is asked. With --json: {"budget": {"megabytes", "files"}, "source" ("home" or \
        "standard"), "enforcement" ("checked" or "volumes"), "folders": [{"kind", "identifier", "path", "bytes", \
        "files", "partial", "over", "volume" ("mounted", "unmounted", "foreign", "unknown" or "none"), "availableBytes", \
        "availableFiles", "detail"}]}.
        """,
      examples: ["assistant storage show", "assistant storage --json"])
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let report = try await offloaded { () throws in try home.storageReport() }
    try await context.output(context.json ? try jsonText(report) : Untrusted.shown(report.text, multiline: true))
    return 0
  }
}

/// `assistant storage set [MIB[,FILES]] [--volumes on|off]`.
struct StorageSet: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "set",
      abstract: "Set the home's storage budget, or whether each folder is a volume of its own.",
      discussion: """
        MIB is a whole number from 1 to 1048576 (1 TiB), FILES from 1 to 10000000; without FILES the file count \
        stays. --volumes on checks that this machine can have volumes (root, mkfs.ext4, loop devices: a test \
        volume is made and mounted) and refuses with the reason otherwise (77); then every container and app group \
        must fit the budget (refused, naming those that do not, with nothing changed), and each becomes a volume, \
        what it holds moved in. A new budget with volumes on makes each volume again at the new size. --volumes \
        off folds every volume back into a plain folder; a volume in use (a running extension, app or shell) is \
        refused, and running it again finishes. Make the change while nothing of the home runs. Before deleting a \
        home with volumes, turn them off. With --json: {"madeVolumes", "foldedBack", "storage"}, storage as \
        `storage show --json` prints it.
        """,
      arguments: [Self.limit.argument],
      options: [Self.volumes],
      examples: [
        "assistant storage set 256", "assistant storage set 64,5000 --volumes on",
        "assistant storage set --volumes off",
      ])
  }

  static let limit = Positional.optional(
    "MIB[,FILES]", help: "What each container and app group may hold: MiB, and files (e.g. 256,20000).")
  static let volumes = Option.value(
    "--volumes", value: "on|off",
    help: "on: each container and app group is a volume of its own, enforced by the kernel; off: plain folders.",
    completion: .words(["on", "off"]))

  var limit: StorageLimit?
  var volumes: Bool?

  init(_ parsed: ParsedCommand) throws {
    if let text = parsed[Self.limit] {
      do throws(StorageLimit.Problem) {
        limit = try StorageLimit(parsing: text)
      } catch {
        throw HostError(.usage, "storage set: \(error)")
      }
    }
    if let text = parsed.value(Self.volumes) {
      guard text == "on" || text == "off" else {
        throw HostError(.usage, "--volumes needs on or off, not \"\(Untrusted.shown(text))\"")
      }
      volumes = text == "on"
    }
    guard limit != nil || volumes != nil else {
      throw HostError(
        .usage, "storage set needs MIB[,FILES], --volumes on|off, or both (assistant storage shows the settings)")
    }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    let (limit, volumes) = (self.limit, self.volumes)
    let change = try await offloaded { () throws in try home.setStorage(limit, volumes: volumes) }
    if context.json {
      try await context.output(json: change)
      return 0
    }
    let budget = change.storage.budget
    var lines = [
      "storage budget: \(budget.megabytes) MiB and \(budget.files) files for each container and app group, "
        + (change.storage.enforcement == "volumes"
          ? "each a volume of its own (enforced by the kernel)" : "checked before each launch")
    ]
    if !change.madeVolumes.isEmpty { lines.append("made volumes of: " + change.madeVolumes.joined(separator: ", ")) }
    if !change.foldedBack.isEmpty { lines.append("folded back: " + change.foldedBack.joined(separator: ", ")) }
    try await context.output(Untrusted.shown(lines.joined(separator: "\n"), multiline: true))
    return 0
  }
}
