import Foundation
import TestSupport
import Testing

/// `assistant build`: bundles assembled from a source tree's manifest folders and built products, as Xcode's build
/// phases do, validated, and installed with `--install`.
@Suite(.serialized, .tags(.endToEnd))
struct BuildEndToEndTests {
  static let assistant = PackagePaths.executable("assistant")

  func assistant(_ arguments: [String], home: URL, in folder: String? = nil) async throws -> CommandResult {
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = nil
    let command = [Self.assistant, "--home", home.path] + arguments
    guard let folder else {
      return try await runCommand(command[0], Array(command.dropFirst()), environment: environment)
    }
    return try await runCommand(
      "/bin/bash", ["-c", #"cd "$1" && shift && exec "$@""#, "bash", folder] + command, environment: environment)
  }

  /// A copy of the Rooms example's folders (app, Intents and UI extension) in `directory/Sources`.
  func roomsSources(in directory: URL) throws -> URL {
    let sources = directory.appendingPathComponent("Sources")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    for name in ["Rooms", "RoomsIntents", "RoomsUI"] {
      try FileManager.default.copyItem(
        at: PackagePaths.root.appendingPathComponent("Sources/Examples/\(name)"),
        to: sources.appendingPathComponent(name))
    }
    return sources
  }

  /// The examples assemble as the script assembled them: extensions in PlugIns/ and Extensions/, the App Intents
  /// extension's metadata written by its executable, Swift sources left out; `--install` installs them, and the
  /// installed Rooms answers.
  @Test func theExamplesAssembleAndInstall() async throws {
    let scratch = try TemporaryDirectory("intenthost-build")
    defer { scratch.remove() }
    let out = scratch.file("bundles")
    let result = try await assistant(
      [
        "build", "--binaries", PackagePaths.binaries.path, "--output", out.path, "--install", "--json",
        PackagePaths.root.appendingPathComponent("Sources/Examples").path,
      ], home: scratch.file("home"))
    #expect(result.code == 0, "\(result)")
    let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let bundles = (report?["bundles"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
    #expect(bundles == ["Ascent", "FuelOrder", "Rooms"], "\(result)")
    #expect((report?["installed"] as? [String])?.count == 3, "\(result)")
    let fm = FileManager.default
    for path in [
      "Rooms.app/rooms", "Rooms.app/Base.lproj/Intents.intentdefinition",
      "Rooms.app/PlugIns/RoomsIntents.appex/RoomsIntents",
      "Rooms.app/PlugIns/RoomsUI.appex/Info.plist",
      "FuelOrder.app/Extensions/FuelOrderIntents.appex/Metadata.appintents/extract.actionsdata",
    ] {
      #expect(fm.fileExists(atPath: out.appendingPathComponent(path).path), "\(path)")
    }
    #expect(!fm.fileExists(atPath: out.appendingPathComponent("Rooms.app/Code").path))
    let said = try await assistant(["Book room 3 for Ada with Rooms"], home: scratch.file("home"))
    #expect(said.code == 0 && said.stdout.contains("Room 3 is now booked by Ada."), "\(said)")
  }

  /// A bundle that breaks a rule is assembled (to look at) but the build fails with exit 65 naming the rule, and
  /// nothing is installed. Control: the same sources unbroken install.
  @Test func aBundleThatDoesNotValidateIsNotInstalled() async throws {
    let scratch = try TemporaryDirectory("intenthost-build")
    defer { scratch.remove() }
    let sources = try roomsSources(in: scratch.url)
    let plist = sources.appendingPathComponent("RoomsIntents/Info.plist")
    let text = try String(contentsOf: plist, encoding: .utf8)
    try text.replacingOccurrences(
      of: "<string>OpenDoorIntent</string>\n\t\t\t</array>\n\t\t\t<key>IntentsRestrictedWhileProtectedDataUnavailable",
      with:
        "<string>SendPaymentIntent</string>\n\t\t\t</array>\n\t\t\t<key>IntentsRestrictedWhileProtectedDataUnavailable"
    )
    .write(to: plist, atomically: true, encoding: .utf8)
    let home = scratch.file("home")
    let broken = try await assistant(
      ["build", "--binaries", PackagePaths.binaries.path, "--install", sources.path], home: home)
    #expect(broken.code == 65, "\(broken)")
    #expect(broken.stdout.contains("SendPaymentIntent") && broken.stdout.contains("nothing was installed"), "\(broken)")
    #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("Applications/Rooms.app").path))
    // Assembled all the same (beside the sources, with no package above them), to look at.
    #expect(FileManager.default.fileExists(atPath: sources.appendingPathComponent(".build/bundles/Rooms.app").path))
    try text.write(to: plist, atomically: true, encoding: .utf8)
    let fixed = try await assistant(
      ["build", "--binaries", PackagePaths.binaries.path, "--install", sources.path], home: home)
    #expect(fixed.code == 0, "\(fixed)")
    #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("Applications/Rooms.app").path))
  }

  /// What cannot be assembled is refused naming the file and the fix: a linked manifest, an extension no app embeds,
  /// an executable that is neither a script in the folder nor a built product.
  @Test func whatCannotBeAssembledIsNamed() async throws {
    let scratch = try TemporaryDirectory("intenthost-build")
    defer { scratch.remove() }
    let home = scratch.file("home")
    let fm = FileManager.default

    let linked = try roomsSources(in: scratch.url.appendingPathComponent("linked"))
    let entitlements = linked.appendingPathComponent("Rooms/Rooms.entitlements")
    try fm.moveItem(at: entitlements, to: scratch.file("elsewhere.entitlements"))
    try fm.createSymbolicLink(at: entitlements, withDestinationURL: scratch.file("elsewhere.entitlements"))
    let link = try await assistant(["build", "--binaries", PackagePaths.binaries.path, linked.path], home: home)
    #expect(link.code == 65 && link.stderr.contains("Rooms.entitlements is a symbolic link"), "\(link)")

    let orphan = try roomsSources(in: scratch.url.appendingPathComponent("orphan"))
    let plist = orphan.appendingPathComponent("RoomsUI/Info.plist")
    try String(contentsOf: plist, encoding: .utf8).replacingOccurrences(
      of: "com.example.rooms.RoomsUI", with: "com.example.other.RoomsUI"
    ).write(to: plist, atomically: true, encoding: .utf8)
    let lost = try await assistant(["build", "--binaries", PackagePaths.binaries.path, orphan.path], home: home)
    #expect(
      lost.code == 65 && lost.stderr.contains("com.example.other.RoomsUI does not start with an app's"), "\(lost)")

    let missing = try roomsSources(in: scratch.url.appendingPathComponent("missing"))
    let empty = scratch.file("no products")
    try fm.createDirectory(at: empty, withIntermediateDirectories: true)
    let none = try await assistant(["build", "--binaries", empty.path, missing.path], home: home)
    #expect(none.code == 66 && none.stderr.contains("its executable rooms (CFBundleExecutable) is not in"), "\(none)")

    // Control: the same sources, with the products, assemble.
    let whole = try await assistant(["build", "--binaries", PackagePaths.binaries.path, missing.path], home: home)
    #expect(whole.code == 0, "\(whole)")
  }
}
