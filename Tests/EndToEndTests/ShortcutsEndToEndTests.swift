import AssistantHost
import ExtensionProtocol
import Foundation
import TestSupport
import Testing

/// The user's shortcuts through the real binaries: seed 004 (two shortcuts made from one donation of the Rooms app,
/// `isCancellationOfBooking` preset, said without naming the app, asking only for the room and the name), the clashes
/// a phrase is refused for, a shortcut of an uninstalled app, `--from` ambiguity, and record and replay.
@Suite(.serialized, .tags(.endToEnd))
struct ShortcutsEndToEndTests {
  /// A fresh home with Rooms installed and one booking made in the Rooms app (donation d1).
  func booked() async throws -> HostFixture {
    let host = try HostFixture()
    try await host.installRooms()
    let booked = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Ada"])
    #expect(booked.code == 0, "\(booked)")
    return host
  }

  /// The seed's two shortcuts: "Book room with Rooms" (k1) and "Cancel booking with Rooms" (k2), from d1.
  func seedShortcuts(_ host: HostFixture) async throws {
    for (phrase, cancel) in [("Book room with Rooms", "false"), ("Cancel booking with Rooms", "true")] {
      let added = try await host.assistant([
        "shortcuts", "add", phrase, "--from", "d1", "--set", "isCancellationOfBooking=\(cancel)",
      ])
      #expect(added.code == 0, "\(added)")
    }
  }

  func json(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
  }

  /// The questions a run asked (its prompts on stderr, "Which room? " and the like).
  func questions(_ result: CommandResult) -> [String] {
    result.stderr.split(separator: "\n").map(String.init).filter { $0.hasSuffix("?") || $0.contains("? ") }
  }

  @Test func seed004() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let nothing = try await host.assistant(["shortcuts", "suggested"])
    #expect(nothing.code == 0 && nothing.stdout.contains("donated nothing"), "\(nothing)")
    let booked = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Ada"])
    #expect(booked.code == 0, "\(booked)")

    // "Shortcuts from Your Apps" shows the donation.
    let suggested = try await host.assistant(["shortcuts", "suggested"])
    #expect(suggested.code == 0, "\(suggested)")
    #expect(suggested.stdout.contains("Rooms (com.example.rooms)\n  Donations:\n"), "\(suggested)")
    #expect(suggested.stdout.contains("d1  Book room 12 for Ada (BookRoomIntent, just now)"), "\(suggested)")
    try await seedShortcuts(host)
    let marked = try await host.assistant(["shortcuts", "suggested", "Rooms", "--json"])
    let donation = ((json(marked.stdout)["apps"] as? [[String: Any]])?.first?["donations"] as? [[String: Any]])?.first
    #expect(donation?["shortcuts"] as? [String] == ["k1", "k2"], "\(marked)")

    // "Book room with Rooms": the room and the name are asked, the cancellation (preset) is not; it books.
    let book = try await host.assistant([
      "Book room with Rooms", "--answer", "14", "--answer", "Grace", "--json",
    ])
    #expect(book.code == 0, "\(book)")
    #expect(questions(book) == ["Which room? 14", "Who is the booking for? Grace"], "\(book)")
    let booking = json(book.stdout)
    #expect(booking["code"] as? String == "success", "\(book)")
    #expect((booking["shortcut"] as? [String: String])?["identifier"] == "k1", "\(book)")
    #expect((booking["parameters"] as? [String: Any])?["isCancellationOfBooking"] as? Bool == false)
    #expect((booking["parameters"] as? [String: Any])?["roomNumber"] as? Int == 14)

    // "Cancel booking with Rooms": the same questions; it cancels.
    let cancel = try await host.assistant(["Cancel booking with Rooms", "--answer", "14", "--answer", "Grace"])
    #expect(cancel.code == 0, "\(cancel)")
    #expect(questions(cancel) == ["Which room? 14", "Who is the booking for? Grace"], "\(cancel)")
    #expect(cancel.stdout.contains("The booking of room 14 by Grace is cancelled."), "\(cancel)")
  }

  @Test func presetsAreNeverAskedAndWhatIsMissingIs() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    let added = try await host.assistant([
      "shortcuts", "add", "Book my usual room", "--from", "d1", "--set", "roomNumber=21", "--json",
    ])
    #expect(added.code == 0, "\(added)")
    #expect(json(added.stdout)["identifier"] as? String == "k1", "\(added)")
    // The room is preset: only the name is asked.
    let run = try await host.assistant(["Book my usual room", "--answer", "Ada"])
    #expect(run.code == 0, "\(run)")
    #expect(questions(run) == ["Who is the booking for? Ada"], "\(run)")
    #expect(run.stdout.contains("Room 21 is now booked by Ada."), "\(run)")
    // Control: with a second answer the run refuses the unused one, so no other question was asked.
    let extra = try await host.assistant(["Book my usual room", "--answer", "Bo", "--answer", "spare"])
    #expect(extra.code == 64 && extra.stderr.contains("not used"), "\(extra)")
    // --keep-values presets the donation's values: nothing is asked.
    let kept = try await host.assistant([
      "shortcuts", "add", "Book my old room", "--from", "d1", "--keep-values", "--set", "roomNumber=22",
    ])
    #expect(kept.code == 0, "\(kept)")
    let silent = try await host.assistant(["book my old room"])
    #expect(silent.code == 0 && questions(silent).isEmpty, "\(silent)")
    #expect(silent.stdout.contains("Room 22 is now booked by Ada."), "\(silent)")
    // A line of `assistant shell` is an utterance too: the shortcut runs (the room is taken now, so it fails).
    let shell = try await host.assistant(["shell", "--json"], input: "BOOK MY OLD ROOM!\nquit\n")
    #expect(shell.code == 0, "\(shell)")
    let line = json(String(shell.stdout.split(separator: "\n").first ?? ""))
    #expect((line["shortcut"] as? [String: String])?["identifier"] == "k2", "\(shell)")
    #expect(line["code"] as? String == "failure", "\(shell)")
    // --ask: a parameter the extension never asks for (the cancellation) is asked each time, in its turn.
    let asking = try await host.assistant([
      "shortcuts", "add", "Change a booking", "--intent", "Rooms", "BookRoom", "--ask", "isCancellationOfBooking",
    ])
    #expect(asking.code == 0 && asking.stdout.contains("it asks for isCancellationOfBooking each time"), "\(asking)")
    let asked = try await host.assistant(["change a booking", "--answer", "22", "--answer", "Ada", "--answer", "yes"])
    #expect(asked.code == 0, "\(asked)")
    #expect(questions(asked).last == "Do you want to cancel a booking? yes", "\(asked)")
    #expect(questions(asked).count == 3, "\(asked)")
    #expect(asked.stdout.contains("The booking of room 22 by Ada is cancelled."), "\(asked)")
  }

  @Test(arguments: [
    "book room with rooms", "BOOK ROOM, with   Rooms!!", "Ｂｏｏｋ room with Rooms.", "  book room with rooms?",
  ])
  func caseSpacingPunctuationAndWidthNeverMatter(_ said: String) async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    try await seedShortcuts(host)
    let run = try await host.assistant([said, "--answer", "15", "--answer", "Ada", "--json"])
    #expect(run.code == 0, "\(run)")
    #expect((json(run.stdout)["shortcut"] as? [String: String])?["phrase"] == "Book room with Rooms", "\(run)")
  }

  @Test func aPhraseThatClashesIsRefusedNamingTheClash() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    try await seedShortcuts(host)
    // Another shortcut's phrase.
    let twice = try await host.assistant([
      "shortcuts", "add", "book room, with rooms", "--from", "d1", "--set", "isCancellationOfBooking=false",
    ])
    #expect(twice.code == 65, "\(twice)")
    #expect(twice.stderr.contains("is already the phrase of shortcut k1 (\"Book room with Rooms\", Rooms)"), "\(twice)")
    // An app's phrase of another intent.
    let door = try await host.assistant(["shortcuts", "add", "Open the door of room 12 with Rooms", "--from", "d1"])
    #expect(door.code == 65, "\(door)")
    #expect(door.stderr.contains("already runs OpenDoorIntent of Rooms (com.example.rooms)"), "\(door)")
    // The same intent, a value different from the preset.
    let contrary = try await host.assistant([
      "shortcuts", "add", "Book a room with Rooms", "--from", "d1", "--set", "isCancellationOfBooking=true",
    ])
    #expect(contrary.code == 65, "\(contrary)")
    #expect(contrary.stderr.contains("presets isCancellationOfBooking to Cancel"), "\(contrary)")
    // The assistant's own phrase.
    let own = try await host.assistant(["shortcuts", "add", "What can you do?", "--from", "d1"])
    #expect(own.code == 65 && own.stderr.contains("the assistant itself answers"), "\(own)")
    // Controls: each accepted once it no longer clashes.
    for accepted in [
      ["Book room now", "--from", "d1"],
      ["Open the door of room 12 with Rooms", "--intent", "Rooms", "OpenDoor", "--set", "roomNumber=12"],
      ["Book a room with Rooms", "--from", "d1", "--set", "isCancellationOfBooking=false"],
    ] {
      let result = try await host.assistant(["shortcuts", "add"] + accepted)
      #expect(result.code == 0, "\(result)")
    }
    let list = try await host.assistant(["shortcuts", "list", "--json"])
    #expect((json(list.stdout)["shortcuts"] as? [Any])?.count == 5, "\(list)")
  }

  @Test func unknownParametersAndBadValuesAreUsageErrors() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    let unknown = try await host.assistant(["shortcuts", "add", "Go", "--from", "d1", "--set", "room=12"])
    #expect(unknown.code == 64 && unknown.stderr.contains("its parameters are roomNumber, bookedBy"), "\(unknown)")
    let bad = try await host.assistant(["shortcuts", "add", "Go", "--from", "d1", "--set", "roomNumber=soon"])
    #expect(bad.code == 64 && bad.stderr.contains("roomNumber=soon"), "\(bad)")
    let ask = try await host.assistant(["shortcuts", "add", "Go", "--from", "d1", "--ask", "room"])
    #expect(ask.code == 64 && ask.stderr.contains("--ask room"), "\(ask)")
    let noPhrase = try await host.assistant(["shortcuts", "add", "--from", "d1"])
    #expect(noPhrase.code == 64, "\(noPhrase)")
    let none = try await host.assistant(["shortcuts", "add", "Go", "--from", "d7"])
    #expect(none.code == 69, "\(none)")
    let list = try await host.assistant(["shortcuts", "list"])
    #expect(list.code == 0 && list.stdout.contains("You have no shortcuts"), "\(list)")
    // Control: the well-formed one is added.
    let good = try await host.assistant(["shortcuts", "add", "Go", "--from", "d1", "--set", "roomNumber=12"])
    #expect(good.code == 0, "\(good)")
  }

  @Test func aShortcutOfAnUninstalledAppIsKeptInactiveAndComesBackWithIt() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    try await seedShortcuts(host)
    let removed = try await host.assistant(["uninstall", "Rooms"])
    #expect(removed.code == 0, "\(removed)")
    let list = try await host.assistant(["shortcuts", "list"])
    #expect(list.code == 0, "\(list)")
    #expect(
      list.stdout.contains(
        "k1 \"Book room with Rooms\": BookRoomIntent of Rooms (com.example.rooms), presets "
          + "isCancellationOfBooking=false; inactive: Rooms (com.example.rooms) is not installed"), "\(list)")
    let listed = try await host.assistant(["shortcuts", "list", "--json"])
    let first = (json(listed.stdout)["shortcuts"] as? [[String: Any]])?.first
    #expect(first?["active"] as? Bool == false, "\(listed)")
    let said = try await host.assistant(["Book room with Rooms", "--answer", "14", "--answer", "Ada"])
    #expect(said.code == 69, "\(said)")
    #expect(
      said.stderr.contains(
        "is shortcut k1 (\"Book room with Rooms\"), which is inactive: Rooms (com.example.rooms) "
          + "is not installed"), "\(said)")
    // The app's donations went with it (as on iOS); the shortcuts did not.
    try await host.installRooms()
    let suggested = try await host.assistant(["shortcuts", "suggested"])
    #expect(suggested.stdout.contains("donated nothing"), "\(suggested)")
    let back = try await host.assistant(["Book room with Rooms", "--answer", "14", "--answer", "Ada"])
    #expect(back.code == 0, "\(back)")
    #expect(back.stdout.contains("Room 14 is now booked by Ada."), "\(back)")
    let active = try await host.assistant(["shortcuts", "list"])
    #expect(!active.stdout.contains("inactive"), "\(active)")
  }

  @Test func fromAnAmbiguousIdentifierNamesTheCandidates() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    // The app's suggestion (the Rooms app published its own two before it: the host names this one), and a
    // donation whose sender gave it the same name.
    let id = try await offThePool { () throws -> String in
      let store = DonationStore(home: try AssistantHome(root: host.home, environment: [:]))
      let intent = Intent(
        name: "BookRoomIntent", identifier: "x",
        parameters: [
          "roomNumber": .integer(30), "bookedBy": .string("Lin"), "isCancellationOfBooking": .boolean(false),
        ])
      let id = try store.setSuggestions(
        [ShortcutSuggestion(intent: intent, phrase: "Book Lin's room")], for: "com.example.rooms")[0]
      try store.donate(
        DonateRequest(interaction: DonatedInteraction(intent: intent), identifier: id), for: "com.example.rooms")
      return id
    }
    let ambiguous = try await host.assistant(["shortcuts", "add", "Lin's room", "--from", id])
    #expect(ambiguous.code == 64, "\(ambiguous)")
    #expect(
      ambiguous.stderr.contains("--from com.example.rooms:donation:\(id) or --from com.example.rooms:suggestion:\(id)"),
      "\(ambiguous)")
    // The suggestion's phrase and values come with it.
    let accepted = try await host.assistant(["shortcuts", "add", "--from", "Rooms:suggestion:\(id)"])
    #expect(accepted.code == 0, "\(accepted)")
    #expect(accepted.stdout.contains("Added k1 \"Book Lin's room\""), "\(accepted)")
    let suggested = try await host.assistant(["shortcuts", "suggested"])
    #expect(
      suggested.stdout.contains("\(id)  \"Book Lin's room\": Book room 30 for Lin (BookRoomIntent) [added: k1]"),
      "\(suggested)")
    let run = try await host.assistant(["Book Lin's room"])
    #expect(run.code == 0 && questions(run).isEmpty, "\(run)")
    #expect(run.stdout.contains("Room 30 is now booked by Lin."), "\(run)")
    let removed = try await host.assistant(["shortcuts", "remove", "book lin's room"])
    #expect(removed.code == 0, "\(removed)")
    let again = try await host.assistant(["shortcuts", "remove", "k1"])
    #expect(again.code == 69, "\(again)")
  }

  @Test func aRecordedShortcutReplaysCleanAndItsRemovalShows() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    try await seedShortcuts(host)
    let transcript = host.directory.file("cancel.jsonl").path
    let recorded = try await host.assistant([
      "--record", transcript, "Cancel booking with Rooms", "--answer", "12", "--answer", "Ada",
    ])
    #expect(recorded.code == 0, "\(recorded)")
    let lines = try String(contentsOfFile: transcript, encoding: .utf8).split(separator: "\n")
    #expect(lines.count > 1 && lines[1].contains("\"kind\":\"shortcut\"") && lines[1].contains("\"identifier\":\"k2\""))
    // Replayed, the room is no longer booked: the answer differs, the shortcut line does not.
    let rebook = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Ada"])
    #expect(rebook.code == 0, "\(rebook)")
    let clean = try await host.assistant(["replay", transcript])
    #expect(clean.code == 0, "\(clean)")
    // Without the shortcut, the replay shows that the utterance no longer ran it.
    let removed = try await host.assistant(["shortcuts", "remove", "k2"])
    #expect(removed.code == 0, "\(removed)")
    let rebookAgain = try await host.assistant(["open", "Rooms", "--", "book", "12", "--by", "Ada"])
    #expect(rebookAgain.code == 0, "\(rebookAgain)")
    let changed = try await host.assistant(["replay", transcript])
    #expect(changed.code == 1, "\(changed)")
    #expect(changed.stdout.contains("-{\"app\":\"com.example.rooms\",\"asks\":[],\"identifier\":\"k2\""), "\(changed)")
  }
}

extension ShortcutsEndToEndTests {
  /// `assistant phrases` and "What can you do?" list the user's shortcuts that can run, under their app; an
  /// uninstalled app's are not listed (and not said).
  @Test func phrasesListTheShortcutsThatCanRun() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    let before = try await host.assistant(["phrases", "Rooms"])
    #expect(before.code == 0 && !before.stdout.contains("Your shortcuts"), "control: \(before)")
    try await seedShortcuts(host)
    let listed = try await host.assistant(["phrases", "Rooms"])
    #expect(
      listed.stdout.contains(
        "  Your shortcuts (said as they are):\n"
          + "    \"Book room with Rooms\"       BookRoomIntent (k1)\n"
          + "    \"Cancel booking with Rooms\"  BookRoomIntent (k2)\n"), "\(listed)")
    let asked = try await host.assistant(["What can I say to Rooms?"])
    #expect(asked.stdout == listed.stdout, "\(asked)")
    let document = json(try await host.assistant(["phrases", "--json"]).stdout)
    let shortcuts = document["shortcuts"] as? [[String: Any]]
    #expect(shortcuts?.map { $0["phrase"] as? String } == ["Book room with Rooms", "Cancel booking with Rooms"])
    #expect(shortcuts?.first?["bundleIdentifier"] as? String == "com.example.rooms")
    let removed = try await host.assistant(["uninstall", "Rooms"])
    #expect(removed.code == 0, "\(removed)")
    let after = json(try await host.assistant(["phrases", "--json"]).stdout)
    #expect((after["shortcuts"] as? [Any])?.isEmpty == true, "\(after)")
  }
}

/// What a shortcut may not be, through the real binaries: a phrase the command line takes for a command, a suggested
/// phrase another locale understands; and an unreadable shortcuts document, and an uninstall past a corrupt
/// donations document.
extension ShortcutsEndToEndTests {
  @Test func aPhraseTheCommandLineTakesForACommandIsRefused() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    for (phrase, named) in [
      ("lock", "the command `assistant lock`"), ("Status!", "a typo of the command `assistant status`"),
      ("unlok", "a typo of the command `assistant unlock`"),
    ] {
      let refused = try await host.assistant([
        "shortcuts", "add", phrase, "--intent", "Rooms", "OpenDoor", "--set", "roomNumber=12",
      ])
      #expect(refused.code == 65, "\(refused)")
      #expect(refused.stderr.contains("\"\(phrase)\" is \(named) for the command line"), "\(refused)")
    }
    // Control: a phrase of more words is said as one.
    let accepted = try await host.assistant([
      "shortcuts", "add", "unlock my door", "--intent", "Rooms", "OpenDoor", "--set", "roomNumber=12",
    ])
    #expect(accepted.code == 0, "\(accepted)")
  }

  @Test func aSuggestedPhraseAnotherLocaleUnderstandsIsRefusedNamingIt() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    let ids = try await offThePool { () throws -> [String] in
      let store = DonationStore(home: try AssistantHome(root: host.home, environment: [:]))
      let cancel = Intent(
        name: "BookRoomIntent", identifier: "x",
        parameters: [
          "roomNumber": .integer(12), "bookedBy": .string("Ada"), "isCancellationOfBooking": .boolean(true),
        ])
      return try store.setSuggestions(
        [
          ShortcutSuggestion(intent: cancel, phrase: "Ouvrir la porte de la salle 12 with Rooms"),
          ShortcutSuggestion(intent: cancel, phrase: "Free room 12 with Rooms"),
        ], for: "com.example.rooms")
    }
    let refused = try await host.assistant(["shortcuts", "add", "--from", "Rooms:suggestion:\(ids[0])"])
    #expect(refused.code == 65, "\(refused)")
    #expect(refused.stderr.contains("already runs OpenDoorIntent of Rooms (com.example.rooms) in fr"), "\(refused)")
    // Control: the other suggestion clashes with nothing.
    let accepted = try await host.assistant(["shortcuts", "add", "--from", "Rooms:suggestion:\(ids[1])"])
    #expect(accepted.code == 0, "\(accepted)")
  }

  @Test func anUnreadableShortcutsDocumentWarnsAndTheAppsPhrasesStillWork() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    try Data("{\"content\": [".utf8).write(to: URL(fileURLWithPath: host.home + "/State/shortcuts.json"))
    let said = try await host.assistant(["Open the door of room 12 with Rooms"])
    #expect(said.code == 0, "\(said)")
    let warnings = said.stderr.split(separator: "\n").filter { $0.contains("your shortcuts could not be read") }
    #expect(warnings.count == 1, "\(said)")
    #expect(warnings.first?.hasSuffix("only the apps' phrases are understood") == true, "\(said)")
    // The shortcuts commands fail with the error, naming the files to move aside, not `defaults recover`.
    let list = try await host.assistant(["shortcuts", "list"])
    #expect(list.code == 65, "\(list)")
    #expect(list.stderr.contains("move aside or remove \(host.home)/State/shortcuts.json"), "\(list)")
    #expect(!list.stderr.contains("defaults recover"), "\(list)")
    // Control: once it is moved aside, nothing is warned.
    try FileManager.default.removeItem(atPath: host.home + "/State/shortcuts.json")
    let clean = try await host.assistant(["Open the door of room 12 with Rooms"])
    #expect(clean.code == 0 && !clean.stderr.contains("could not be read"), "\(clean)")
  }

  @Test func uninstallFinishesPastACorruptDonationsDocumentAndSaysWhatToRemove() async throws {
    let host = try await booked()
    defer { host.directory.remove() }
    let donations = host.home + "/State/donations/com.example.rooms.json"
    try Data("garbage".utf8).write(to: URL(fileURLWithPath: donations))
    let removed = try await host.assistant(["uninstall", "Rooms", "--json"])
    #expect(removed.code == 0, "\(removed)")
    #expect(json(removed.stdout)["uninstalled"] as? String == "Rooms", "\(removed)")
    #expect(removed.stderr.contains("the donations of com.example.rooms could not be forgotten"), "\(removed)")
    #expect(removed.stderr.contains("move aside or remove \(donations)"), "\(removed)")
    let list = try await host.assistant(["list"])
    #expect(!list.stdout.contains("com.example.rooms"), "\(list)")
  }
}

/// Shortcut phrases as people say them and as apps change, through the real binaries: punctuation inside words,
/// shortcuts among the suggestions after a no-match, the order and completeness of clash messages, what an install
/// changes for the shortcuts, and the empty state of `shortcuts suggested` once the app is gone.
extension ShortcutsEndToEndTests {
  /// A home with Rooms installed and the shortcut k1 "Open my room's door" (OpenDoor, room 12).
  func withDoorShortcut() async throws -> HostFixture {
    let host = try HostFixture()
    try await host.installRooms()
    let added = try await host.assistant([
      "shortcuts", "add", "Open my room's door", "--intent", "Rooms", "OpenDoor", "--set", "roomNumber=12",
    ])
    #expect(added.code == 0, "\(added)")
    return host
  }

  /// 1. An apostrophe inside a word is dropped and a hyphen between letters separates words, in shortcut phrases and
  /// utterances alike.
  @Test func punctuationInsideWordsNeverMatters() async throws {
    let host = try await withDoorShortcut()
    defer { host.directory.remove() }
    for said in ["open my rooms door", "Open my room’s door!", "OPEN MY ROOMS' DOOR"] {
      let run = try await host.assistant([said, "--json"])
      #expect((json(run.stdout)["shortcut"] as? [String: String])?["identifier"] == "k1", "\(said): \(run)")
    }
    let hyphen = try await host.assistant(["Book-room with Rooms", "--answer", "12", "--answer", "Ada"])
    #expect(hyphen.code == 0, "\(hyphen)")
    #expect(hyphen.stdout.contains("Room 12 is now booked by Ada."), "\(hyphen)")
    // Control: a word that differs is still another word.
    let other = try await host.assistant(["Bookroom with Rooms"])
    #expect(other.code == 69, "\(other)")
  }

  /// 2. After a no-match, the user's active shortcuts are among the closest phrases, as they are and named.
  @Test func aNoMatchSuggestsTheUsersShortcuts() async throws {
    let host = try await withDoorShortcut()
    defer { host.directory.remove() }
    let close = try await host.assistant(["open my roms door"])
    #expect(close.code == 69, "\(close)")
    #expect(close.stderr.contains("did you mean \"Open my room's door\" (your shortcut k1)"), "\(close)")
    // Control: an inactive shortcut (its app uninstalled) is not suggested.
    #expect(try await host.assistant(["uninstall", "Rooms"]).code == 0)
    let gone = try await host.assistant(["open my roms door"])
    #expect(gone.code == 69 && !gone.stderr.contains("k1"), "\(gone)")
  }

  /// 3. Another shortcut's phrase is named before an app's phrase; every value an app's phrase gives differently is
  /// named in one message.
  @Test func clashesNameTheShortcutFirstAndEveryValue() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let k1 = try await host.assistant([
      "shortcuts", "add", "Book room with Rooms", "--intent", "Rooms", "BookRoom", "--set",
      "isCancellationOfBooking=false",
    ])
    #expect(k1.code == 0, "\(k1)")
    // Without a preset, "book room with rooms" also clashes with the app's phrase: the shortcut is named first.
    let twice = try await host.assistant(["shortcuts", "add", "BOOK ROOM, with rooms", "--intent", "Rooms", "BookRoom"])
    #expect(twice.code == 65, "\(twice)")
    #expect(twice.stderr.contains("is already the phrase of shortcut k1"), "\(twice)")
    #expect(!twice.stderr.contains("--set"), "\(twice)")
    let all = try await host.assistant([
      "shortcuts", "add", "Book room 12 for Ada with Rooms", "--intent", "Rooms", "BookRoom", "--set", "roomNumber=13",
    ])
    #expect(all.code == 65, "\(all)")
    #expect(
      all.stderr.contains(
        "with roomNumber 12, bookedBy Ada and isCancellationOfBooking Book, and the shortcut presets roomNumber to 13 "
          + "and does not preset bookedBy or isCancellationOfBooking; choose another phrase: no preset can change what "
          + "the phrase itself says (roomNumber 12)"), "\(all)")
    let fixable = try await host.assistant([
      "shortcuts", "add", "Book room 12 for Ada with Rooms", "--intent", "Rooms", "BookRoom",
    ])
    #expect(
      fixable.stderr.contains(
        "--set roomNumber=12 --set bookedBy=Ada --set isCancellationOfBooking=false"), "\(fixable)")
    // Control: the --set line given makes it the shortcut's.
    let fixed = try await host.assistant([
      "shortcuts", "add", "Book room 12 for Ada with Rooms", "--intent", "Rooms", "BookRoom", "--set", "roomNumber=12",
      "--set", "bookedBy=Ada", "--set", "isCancellationOfBooking=false",
    ])
    #expect(fixed.code == 0, "\(fixed)")
  }

  /// 4. An install says which shortcuts' phrases the app now answers to (the shortcut wins), and which shortcuts it
  /// made inactive or active again; in --json, in the install document.
  @Test func anInstallSaysWhatItChangedForTheShortcuts() async throws {
    let host = try await withDoorShortcut()
    defer { host.directory.remove() }
    let unlock = try await host.assistant([
      "shortcuts", "add", "Unlock my room with Rooms", "--intent", "Rooms", "OpenDoor", "--set", "roomNumber=7",
    ])
    #expect(unlock.code == 0, "\(unlock)")
    let original = try await TestBundles.rooms(in: host.directory.file("bundles"))
    // An update whose examples now say "Unlock my room with Rooms" for BookRoomIntent.
    let updated = try await copy(original, to: "Updated.app") { directory in
      try edit(directory.appendingPathComponent("Base.lproj/AppIntentVocabulary.plist")) {
        $0.replacingOccurrences(
          of: "<string>Book a room with Rooms</string>",
          with: "<string>Book a room with Rooms</string><string>Unlock my room with Rooms</string>")
      }
    }
    let clash = try await host.assistant(["install", updated.path])
    #expect(clash.code == 0, "\(clash)")
    #expect(
      clash.stderr.contains(
        "assistant: warning: shortcut k2 (\"Unlock my room with Rooms\") takes a phrase the apps now answer to: "
          + "\"Unlock my room with Rooms\" already runs BookRoomIntent of Rooms (com.example.rooms)"), "\(clash)")
    #expect(clash.stderr.contains("the shortcut wins when it is said"), "\(clash)")
    #expect(clash.stderr.contains("`assistant shortcuts remove k2`"), "\(clash)")
    #expect(!clash.stderr.contains("k1"), "\(clash)")
    // The shortcut does win.
    let said = try await host.assistant(["Unlock my room with Rooms", "--json"])
    #expect((json(said.stdout)["shortcut"] as? [String: String])?["identifier"] == "k2", "\(said)")
    // Control: the same update again changes nothing, and says nothing.
    let again = try await host.assistant(["install", updated.path])
    #expect(again.code == 0 && !again.stderr.contains("shortcut"), "\(again)")
    // An update without OpenDoorIntent: both shortcuts inactive, one line each.
    let doorless = try await copy(original, to: "Doorless.app") { directory in
      try edit(directory.appendingPathComponent("PlugIns/RoomsIntents.appex/Info.plist")) {
        $0.replacingOccurrences(of: "<string>OpenDoorIntent</string>", with: "")
      }
    }
    let lost = try await host.assistant(["install", doorless.path])
    #expect(lost.code == 0, "\(lost)")
    for shortcut in ["k1 (\"Open my room's door\")", "k2 (\"Unlock my room with Rooms\")"] {
      #expect(
        lost.stderr.contains(
          "assistant: note: shortcut \(shortcut) is now inactive: Rooms (com.example.rooms) no longer supports "
            + "OpenDoorIntent"), "\(lost)")
    }
    // Back: active again, in the --json document (nothing on stderr).
    let back = try await host.assistant(["install", original.path, "--json"])
    #expect(back.code == 0 && !back.stderr.contains("shortcut"), "\(back)")
    let notices = ((json(back.stdout)["installed"] as? [[String: Any]])?.first?["shortcuts"] as? [[String: String]])
    #expect(notices?.map { $0["identifier"] ?? "" } == ["k1", "k2"], "\(back)")
    #expect(notices?.allSatisfy { $0["change"] == "active" } == true, "\(back)")
    #expect(notices?.first?["message"] == "shortcut k1 (\"Open my room's door\") is active again", "\(back)")
  }

  /// 5. `shortcuts suggested` names only installed apps in its empty-state hint.
  @Test func theEmptyStateNamesOnlyInstalledApps() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    try await host.installRooms()
    let installed = try await host.assistant(["shortcuts", "suggested"])
    #expect(installed.code == 0, "\(installed)")
    #expect(installed.stdout.contains("\"Book room 12 for Ada with Rooms\""), "\(installed)")
    #expect(installed.stdout.contains("`assistant open Rooms`"), "\(installed)")
    #expect(try await host.assistant(["uninstall", "Rooms"]).code == 0)
    let gone = try await host.assistant(["shortcuts", "suggested"])
    #expect(gone.code == 0, "\(gone)")
    #expect(!gone.stdout.contains("Rooms"), "\(gone)")
    #expect(gone.stdout.contains("No app is installed"), "\(gone)")
  }

  /// A copy of `bundle` beside it named `name`, changed by `change`.
  func copy(_ bundle: URL, to name: String, _ change: @escaping @Sendable (URL) throws -> Void) async throws -> URL {
    let destination = bundle.deletingLastPathComponent().appendingPathComponent(name)
    try await offThePool {
      try FileManager.default.copyItem(at: bundle, to: destination)
      try change(destination)
    }
    return destination
  }

  func edit(_ file: URL, _ change: (String) -> String) throws {
    try change(String(contentsOf: file, encoding: .utf8)).write(to: file, atomically: true, encoding: .utf8)
  }
}
