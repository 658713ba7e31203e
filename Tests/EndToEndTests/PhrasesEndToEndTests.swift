import Foundation
import TestSupport
import Testing

/// What the apps answer to, through the real binary (issue 13): `assistant phrases`, "What can you do?", the phrase
/// lint (`phrases --check`: 65 on a broken bundle, 0 on the clean one) and the numbered question when two apps answer.
@Suite struct PhrasesEndToEndTests {
  @Test func phrasesListsTheAppsAndWhatCanYouDoPrintsTheSame() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let phrases = try await host.assistant(["phrases"])
    #expect(phrases.code == 0, "\(phrases)")
    #expect(phrases.stdout.contains("Rooms"), "\(phrases)")
    #expect(phrases.stdout.contains("Book room 12 for Ada with Rooms"), "\(phrases)")
    #expect(phrases.stdout.contains("Open the door of room 12 with Rooms"), "\(phrases)")
    let asked = try await host.assistant(["What can you do?"])
    #expect(asked.code == 0, "\(asked)")
    #expect(asked.stdout == phrases.stdout, "\(asked)")
    let toRooms = try await host.assistant(["What can I say to Rooms?"])
    #expect(toRooms.code == 0, "\(toRooms)")
    #expect(toRooms.stdout.contains("Book a room with Rooms"), "\(toRooms)")
  }

  @Test func phrasesOfOneAppAsJSON() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant(["phrases", "Rooms", "--json"])
    #expect(result.code == 0, "\(result)")
    let entries = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result)")
    #expect(entries.count == 1)
    #expect(entries.first?["bundleIdentifier"] as? String == "com.example.rooms")
    #expect(entries.first?["name"] as? String == "Rooms")
    let lines = try #require(entries.first?["phrases"] as? [[String: String]])
    #expect(
      lines.contains {
        $0["intent"] == "BookRoomIntent" && $0["phrase"] == "Book room 12 for Ada with Rooms"
          && $0["source"] == "example"
      }, "\(lines)")
    #expect(lines.contains { $0["intent"] == "OpenDoorIntent" }, "\(lines)")
  }

  /// The clean bundle checks clean (the control); the same bundle with an example that names no app exits 65.
  @Test(arguments: [false, true])
  func phrasesCheck(broken: Bool) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let rooms = try await TestBundles.rooms(in: host.directory.file("bundles"))
    if broken {
      let vocabulary = rooms.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist")
      var plist =
        try PropertyListSerialization.propertyList(from: Data(contentsOf: vocabulary), format: nil) as! [String: Any]
      var phrases = plist["IntentPhrases"] as! [[String: Any]]
      phrases[0]["IntentExamples"] = (phrases[0]["IntentExamples"] as! [String]) + ["Book room 12 for Ada"]
      plist["IntentPhrases"] = phrases
      try writePlist(plist, to: vocabulary)
    }
    let result = try await host.assistant(["phrases", "--check", rooms.path])
    if broken {
      #expect(result.code == 65, "\(result)")
      #expect(
        result.stdout.contains("[intent-phrase-unreachable]") || result.stderr.contains("[intent-phrase-unreachable]"),
        "\(result)")
      #expect(
        (result.stdout + result.stderr).contains("\"Book room 12 for Ada\" does not reach BookRoomIntent"), "\(result)")
    } else {
      #expect(result.code == 0, "\(result)")
      #expect(!(result.stdout + result.stderr).contains("intent-phrase"), "\(result)")
    }
  }

  /// Two apps called Rooms: the utterance asks which one, and `--answer 2` picks the second of the list.
  @Test func theNumberedQuestionTakesAScriptedAnswer() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let rooms = try await TestBundles.rooms(in: host.directory.file("bundles/assembled"))
    let shadow = try IdentityEndToEndTests.variant(
      of: rooms, at: "bundles/shadow/Rooms.app", in: host.directory.url
    ) { app in
      try IdentityEndToEndTests.identify(app, as: "com.shadow.rooms")
      for entitlements in ["Rooms.entitlements", "\(IdentityEndToEndTests.appex)/RoomsIntents.entitlements"] {
        try ValidationTests.edit(app.appendingPathComponent(entitlements)) {
          $0["com.apple.security.application-groups"] = ["group.com.shadow.rooms"]
        }
      }
    }
    let installed = try await host.assistant(["install", shadow.path])
    #expect(installed.code == 0, "\(installed)")
    let said = try await host.assistant(["--answer", "2", "Book room 12 for Ada with Rooms"])
    #expect(said.code == 0, "\(said)")
    #expect(said.stdout.contains("1. BookRoomIntent of Rooms (com.example.rooms)"), "\(said)")
    #expect(said.stdout.contains("2. BookRoomIntent of Rooms (com.shadow.rooms)"), "\(said)")
    // The shadow's store got the booking, the original's did not.
    let shadowList = try await host.assistant(["open", "com.shadow.rooms", "--", "list"])
    let originalList = try await host.assistant(["open", "com.example.rooms", "--", "list"])
    #expect(shadowList.stdout.contains("12"), "\(shadowList)")
    #expect(!originalList.stdout.contains("12"), "\(originalList)")
  }
}
