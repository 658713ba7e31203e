import Foundation
import TestSupport
import Testing

/// `Scripts/assistant`, the README's way in, as a user runs it: from any folder, on a home of its own. The build is
/// skipped (`INTENTHOST_NO_BUILD=1`: `swift test` holds the build lock; Scripts/test built everything).
@Suite(.serialized, .tags(.endToEnd))
struct ScriptEndToEndTests {
  static let script = PackagePaths.root.appendingPathComponent("Scripts/assistant").path

  /// Runs `Scripts/assistant ARGUMENTS` in `folder`, on the home `scratch/HOME` (its app groups in it, or in
  /// `groups` when given).
  func script(
    _ arguments: [String], in folder: String, scratch: TemporaryDirectory, home: String = "home", groups: String? = nil
  ) async throws -> CommandResult {
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_HOME"] = scratch.file(home).path
    environment["ASSISTANT_APP_GROUPS"] = groups
    environment["INTENTHOST_NO_BUILD"] = "1"
    return try await runCommand(
      "/bin/bash", ["-c", #"cd "$1" && shift && exec /bin/bash "$@""#, "bash", folder, Self.script] + arguments,
      environment: environment)
  }

  /// `validate .` validates the caller's folder: here an empty one, which holds nothing to validate.
  @Test func pathsAreTheCallersFolder() async throws {
    let scratch = try TemporaryDirectory("intenthost-script")
    defer { scratch.remove() }
    let folder = scratch.file("elsewhere")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let result = try await script(["validate", "."], in: folder.path, scratch: scratch)
    #expect(result.code == 65, "\(result)")
    #expect((result.stdout + result.stderr).contains("\(folder.path): error: holds no Info.plist"), "\(result)")
    // Control: from the repository, `.` is the repository, whose manifests validate clean.
    let repository = try await script(["validate", "."], in: PackagePaths.root.path, scratch: scratch)
    #expect(repository.code == 0, "\(repository)")
    #expect(repository.stdout.contains("0 errors"), "\(repository)")
  }

  /// A home is a device: the app groups are in it, so a second, fresh home books room 12 again where the first home
  /// has it booked. Control: with both homes' groups in one folder (`ASSISTANT_APP_GROUPS`, what the script did
  /// before), the second home finds the first one's booking.
  @Test func aFreshHomeIsAFreshDevice() async throws {
    let scratch = try TemporaryDirectory("intenthost-script")
    defer { scratch.remove() }
    let here = PackagePaths.root.path
    let book = ["Book room 12 for Ada with Rooms"]
    let first = try await script(book, in: here, scratch: scratch, home: "first")
    #expect(first.code == 0 && first.stdout.contains("Room 12 is now booked by Ada."), "\(first)")
    #expect(FileManager.default.fileExists(atPath: scratch.file("first/AppGroup/group.com.example.rooms").path))
    let second = try await script(book, in: here, scratch: scratch, home: "second")
    #expect(second.code == 0 && second.stdout.contains("Room 12 is now booked by Ada."), "\(second)")

    let shared = scratch.file("shared groups").path
    let one = try await script(book, in: here, scratch: scratch, home: "third", groups: shared)
    #expect(one.code == 0, "\(one)")
    let other = try await script(book, in: here, scratch: scratch, home: "fourth", groups: shared)
    #expect(other.code == 1 && other.stdout.contains("already booked by Ada"), "\(other)")
  }

  /// A `--home` of the caller's is the home (with its own `AppGroup/`), not a second `--home` beside the script's.
  @Test func aHomeOfTheCallersIsUsed() async throws {
    let scratch = try TemporaryDirectory("intenthost-script")
    defer { scratch.remove() }
    let own = scratch.file("own home").path
    for arguments in [["--home", own, "list"], ["list", "--home=\(own)"]] {
      let result = try await script(arguments, in: PackagePaths.root.path, scratch: scratch)
      #expect(result.code == 0, "\(result)")
      #expect(result.stdout.contains("the home \(own) does not exist yet"), "\(result)")
    }
    // The script's own home got the examples; the caller's was not made.
    #expect(!FileManager.default.fileExists(atPath: own))
    #expect(FileManager.default.fileExists(atPath: scratch.file("home/Applications/Rooms.app").path))
  }

  /// The examples are installed once per home: an uninstalled Rooms stays uninstalled, even after the examples were
  /// rebuilt, until `reset-examples`; an example added since the home was made is installed with the rebuild.
  @Test func anUninstalledExampleStaysUninstalledUntilReset() async throws {
    let scratch = try TemporaryDirectory("intenthost-script")
    defer { scratch.remove() }
    let here = scratch.path
    let first = try await script(["list"], in: here, scratch: scratch)
    #expect(first.code == 0, "\(first)")
    #expect(first.stdout.contains("Rooms (com.example.rooms)"), "\(first)")  // control: the first run installs it

    let uninstalled = try await script(["uninstall", "Rooms"], in: here, scratch: scratch)
    #expect(uninstalled.code == 0, "\(uninstalled)")
    let after = try await script(["list"], in: here, scratch: scratch)
    #expect(after.code == 0, "\(after)")
    #expect(!after.stdout.contains("Rooms (com.example.rooms)"), "\(after)")

    // As if the examples had been rebuilt since they were installed in this home: still not reinstalled.
    try Data("an older build\n".utf8).write(to: scratch.file("home/.examples-installed"))
    let rebuilt = try await script(["list"], in: here, scratch: scratch)
    #expect(!rebuilt.stdout.contains("Rooms (com.example.rooms)"), "\(rebuilt)")

    // An example the home has not had (a home made before FuelOrder, whose marker knows only Rooms and Ascent) is
    // installed by the rebuild; one it has had and lost stays uninstalled.
    #expect(try await script(["uninstall", "FuelOrder"], in: here, scratch: scratch).code == 0)
    try Data("an older build\nknown: Rooms Ascent FuelOrder\n".utf8).write(to: scratch.file("home/.examples-installed"))
    let known = try await script(["list"], in: here, scratch: scratch)
    #expect(!known.stdout.contains("FuelOrder (com.example.fuelorder)"), "\(known)")
    try Data("an older build\n".utf8).write(to: scratch.file("home/.examples-installed"))
    let new = try await script(["list"], in: here, scratch: scratch)
    #expect(new.stdout.contains("FuelOrder (com.example.fuelorder)"), "\(new)")
    #expect(!new.stdout.contains("Rooms (com.example.rooms)"), "\(new)")

    let reset = try await script(["reset-examples"], in: here, scratch: scratch)
    #expect(reset.code == 0, "\(reset)")
    let home = scratch.file("home").path
    #expect(reset.stdout == "Reinstalled the example apps (Rooms, Ascent, FuelOrder) in \(home).\n", "\(reset)")
    let back = try await script(["list"], in: here, scratch: scratch)
    #expect(back.stdout.contains("Rooms (com.example.rooms)"), "\(back)")

    let extra = try await script(["reset-examples", "Rooms"], in: here, scratch: scratch)
    #expect(extra.code == 64, "\(extra)")
  }
}
