import Foundation
import TestSupport
import Testing

/// A fresh user's findings on shortcuts (issue 14), through the real binaries: punctuation inside words, shortcuts
/// among the suggestions after a no-match, the order and completeness of clash messages, what an install changes for
/// the shortcuts, and the empty state of `shortcuts suggested` once the app is gone.
@Suite(.serialized)
struct ShortcutFindingsEndToEndTests {
  func json(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
  }

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
