import Foundation
import TestSupport
import Testing

/// What the apps answer to, through the real binary (issue 13): `assistant phrases`, "What can you do?", the phrase
/// lint (`phrases --check`: 65 on a broken bundle, 0 on the clean one) and the numbered question when two apps answer.
@Suite(.tags(.endToEnd)) struct PhrasesEndToEndTests {
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

  /// Each way of asking what one app can do prints that app's phrases, as "What can I say to Rooms?" does: by bundle
  /// id, the app named first, asked, after "you do with", "for me" added. The control: an unknown app exits 69.
  @Test(arguments: [
    "What can I say to com.example.rooms?", "What can com.example.rooms do?", "Rooms, what can you do?",
    "What can you do with Rooms?", "ask Rooms what it can do", "What can Rooms do for me?",
  ])
  func eachWayOfAskingListsTheAppsPhrases(_ question: String) async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let asked = try await host.assistant([question])
    #expect(asked.code == 0, "\(asked)")
    #expect(asked.stdout.hasPrefix("Rooms (com.example.rooms)\n"), "\(asked)")
    #expect(asked.stdout.contains("Book a room with Rooms"), "\(asked)")
    let unknown = try await host.assistant([question.replacingOccurrences(of: "ooms", with: "xooms")])
    #expect(unknown.code == 69, "\(unknown)")
  }

  @Test func phrasesOfOneAppAsJSON() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let result = try await host.assistant(["phrases", "Rooms", "--json"])
    #expect(result.code == 0, "\(result)")
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    let entries = try #require(document["apps"] as? [[String: Any]], "\(result)")
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
      #expect(result.stdout.hasSuffix("\nRooms: 1 of 13 phrases fail\n"), "\(result)")
      #expect(
        result.stdout.contains("[intent-phrase-unreachable]") || result.stderr.contains("[intent-phrase-unreachable]"),
        "\(result)")
      #expect(
        (result.stdout + result.stderr).contains("\"Book room 12 for Ada\" does not reach BookRoomIntent"), "\(result)")
    } else {
      #expect(result.code == 0, "\(result)")
      #expect(result.stdout == "Rooms: all 12 phrases reach their intents\n", "\(result)")
      #expect(!(result.stdout + result.stderr).contains("intent-phrase"), "\(result)")
    }
    let json = try await host.assistant(["phrases", "--check", rooms.path, "--json"])
    #expect(json.code == result.code, "\(json)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
    #expect(report["bundleIdentifier"] as? String == "com.example.rooms", "\(json)")
    #expect(report["errors"] as? Int == (broken ? 1 : 0), "\(json)")
    #expect((report["diagnostics"] as? [Any])?.count == (broken ? 1 : 0), "\(json)")
  }

  /// A folder that is no bundle is 65 with the bundle's own finding (not a host failure); a path that does not exist
  /// (it has a "/" or ends with .app) is 66, as `validate` says.
  @Test func aPathThatIsNoBundleOrDoesNotExist() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let folder = host.directory.file("notabundle")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let notBundle = try await host.assistant(["phrases", "--check", folder.path])
    #expect(notBundle.code == 65, "\(notBundle)")
    #expect(notBundle.stderr.hasPrefix("assistant: cannot check \(folder.path):\n"), "\(notBundle)")
    #expect(notBundle.stderr.contains("\(folder.path)/Info.plist: error: is missing"), "\(notBundle)")
    #expect(!notBundle.stderr.contains("the host failed"), "\(notBundle)")
    for missing in [host.directory.file("gone/Rooms.app").path, "Gone.app"] {
      let result = try await host.assistant(["phrases", "--check", missing])
      #expect(result.code == 66, "\(result)")
      #expect(
        result.stderr
          == "assistant: \(missing) does not exist; give a bundle folder (NAME.app) or an installed app's name\n",
        "\(result)")
    }
  }

  /// Under `--locale fr_FR`, Rooms' French titles (fr.lproj/Intents.strings) are understood and listed, and its
  /// French name (a fr.lproj/InfoPlist.strings added here: Salles) names it in "What can Salles do?". The controls:
  /// the same without the locale exit 69 and list no French title.
  @Test func underALocaleTheTranslatedTitlesAndNamesAreUnderstood() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let rooms = try await TestBundles.rooms(in: host.directory.file("bundles"))
    try "\"CFBundleDisplayName\" = \"Salles\";\n".write(
      to: rooms.appendingPathComponent("fr.lproj/InfoPlist.strings"), atomically: true, encoding: .utf8)
    let installed = try await host.assistant(["install", rooms.path])
    #expect(installed.code == 0, "\(installed)")
    let title = "${isCancellationOfBooking} la salle ${roomNumber} pour ${bookedBy}"

    let booked = try await host.assistant(["--locale", "fr_FR", "Réserver la salle 50 pour Ada with Rooms"])
    #expect(booked.code == 0, "\(booked)")
    #expect(booked.stdout.contains("La salle 50 est maintenant réservée par Ada."), "\(booked)")
    let english = try await host.assistant(["Réserver la salle 51 pour Ada with Rooms"])
    #expect(english.code == 69, "\(english)")

    let asked = try await host.assistant(["--locale", "fr_FR", "What can Salles do?"])
    #expect(asked.code == 0, "\(asked)")
    #expect(asked.stdout.contains(title), "\(asked)")
    let unknown = try await host.assistant(["What can Salles do?"])
    #expect(unknown.code == 69, "\(unknown)")

    let listed = try await host.assistant(["phrases", "Salles", "--locale", "fr_FR"])
    #expect(listed.code == 0, "\(listed)")
    #expect(listed.stdout.contains(title), "\(listed)")
    #expect(listed.stdout.contains("${isCancellationOfBooking} room ${roomNumber} for ${bookedBy}"), "\(listed)")
    let base = try await host.assistant(["phrases", "Rooms"])
    #expect(base.code == 0, "\(base)")
    #expect(!base.stdout.contains(title), "\(base)")
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
    // The second: the shadow's extension runs (and fails, since this copy of Rooms' code wants Rooms' app group,
    // which the shadow is not given); that failure names it.
    let second = try await host.assistant(["--answer", "2", "Book room 12 for Ada with Rooms"])
    let asked = second.stdout + second.stderr
    #expect(asked.contains("\"Book room 12 for Ada with Rooms\" could mean:"), "\(second)")
    #expect(asked.contains("1. BookRoomIntent of Rooms (com.example.rooms)"), "\(second)")
    #expect(asked.contains("2. BookRoomIntent of Rooms (com.shadow.rooms)"), "\(second)")
    #expect(second.code == 70, "\(second)")
    #expect(second.stderr.contains("RoomsIntents (com.shadow.rooms.RoomsIntents) failed handle"), "\(second)")
    // The control: the first is the example Rooms, which books the room.
    let first = try await host.assistant(["--answer", "1", "Book room 12 for Ada with Rooms"])
    #expect(first.code == 0, "\(first)")
    #expect(first.stdout.contains("Room 12 is now booked by Ada."), "\(first)")
    #expect(!first.stderr.contains("com.shadow.rooms.RoomsIntents"), "\(first)")
  }
}
