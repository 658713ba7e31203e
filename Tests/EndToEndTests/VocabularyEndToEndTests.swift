import AssistantHost
import Foundation
import TestSupport
import Testing

/// The user's vocabulary through the real binaries: the Fixture app registers workout names through the SDK on its
/// host channel, `assistant vocabulary` shows them, an utterance to the app takes the term as spelled; a second
/// registration replaces the set, and the old term no longer counts. Its extension supports INStartWorkoutIntent.
@Suite(.serialized, .tags(.endToEnd)) struct VocabularyEndToEndTests {
  func fixture() async throws -> HostFixture {
    let host = try HostFixture()
    let app = try TestBundles.fixture(extensionName: "Polite", in: host.directory.file("b"))
    let info = app.appendingPathComponent("PlugIns/Polite.appex/Info.plist")
    var plist =
      try PropertyListSerialization.propertyList(from: Data(contentsOf: info), format: nil) as! [String: Any]
    var ext = plist["NSExtension"] as! [String: Any]
    ext["NSExtensionAttributes"] = ["IntentsSupported": ["PingIntent", "INStartWorkoutIntent"]]
    plist["NSExtension"] = ext
    try writePlist(plist, to: info)
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return host
  }

  /// The workout the utterance started, from `--json` (`parameters` are the intent's values); Siri's confirmation of
  /// a start is answered yes.
  func workout(_ host: HostFixture, _ utterance: String) async throws -> String? {
    let result = try await host.assistant(["--json", utterance, "--answer", "yes"])
    #expect(result.code == 0, "\(result)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return (object?["parameters"] as? [String: Any])?["workoutName"] as? String
  }

  @Test func termsRegisteredThroughTheSDKAreUsedAndReplaced() async throws {
    let host = try await fixture()
    defer { host.directory.remove() }
    let utterance = "Start a tempo run workout with Fixture"
    // Control: no terms yet, the words as written.
    let none = try await host.assistant(["vocabulary", "Fixture"])
    #expect(none.code == 0 && none.stdout == "Fixture (com.example.fixture) has registered no terms.\n", "\(none)")
    #expect(try await workout(host, utterance) == "tempo run")

    let first = try await host.assistant(["open", "Fixture", "--", "vocabulary", "workoutActivityName", "Tempo Run"])
    #expect(first.code == 0 && first.stdout == "kept 1\n", "\(first)")
    let shown = try await host.assistant(["vocabulary", "Fixture"])
    #expect(shown.stdout == "Fixture (com.example.fixture)\n  workoutActivityName (1):\n    Tempo Run\n", "\(shown)")
    #expect(try await workout(host, utterance) == "Tempo Run")

    // A second registration replaces the set: the old term no longer counts, the new one does.
    let second = try await host.assistant([
      "open", "Fixture", "--", "vocabulary", "workoutActivityName", "Hill Sprints", "Long Run",
    ])
    #expect(second.code == 0 && second.stdout == "kept 2\n", "\(second)")
    #expect(try await workout(host, utterance) == "tempo run")
    #expect(try await workout(host, "Start a hill sprints workout with Fixture") == "Hill Sprints")
    let json = try await host.assistant(["vocabulary", "com.example.fixture", "--json"])
    #expect(
      json.stdout
        == #"{"app":"Fixture","bundleIdentifier":"com.example.fixture","types":[{"terms":["Hill Sprints","Long Run"],"type":"workoutActivityName"}]}"#
        + "\n", "\(json)")
    // What the host refuses is not kept, and the set before it stays.
    let refused = try await host.assistant(["open", "Fixture", "--", "vocabulary", "workoutActivityName", " "])
    #expect(refused.code == 1 && refused.stdout.contains("strings[0] is blank"), "\(refused)")
    #expect(try await workout(host, "Start a long run workout with Fixture") == "Long Run")
  }

  @Test func anUnknownAppIsNotInstalled() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant(["vocabulary", "Roms"])
    #expect(result.code == 69, "\(result)")
    #expect(result.stderr.contains("no installed app is called \"Roms\" (did you mean \"Rooms\"?)"), "\(result)")
    let rooms = try await host.assistant(["vocabulary", "Rooms", "--json"])
    #expect(
      rooms.stdout == #"{"app":"Rooms","bundleIdentifier":"com.example.rooms","types":[]}"# + "\n", "\(rooms)")
  }
}
