import Foundation
import TestSupport
import Testing

/// The Python App Intents example of docs/examples/python-appintents (Pantry.app: an app and an App Intents extension,
/// each a `#!/usr/bin/env python3` script, with a `Metadata.appintents` written by hand), assembled by the documented
/// `Scripts/make-python-appintents-example`, validated, installed and run sandboxed through the real host: App
/// Shortcut phrases with and without a slot, entities read by their query, questions asked before perform and while
/// it runs, confirmations accepted and declined (a "no" writes nothing in the app group), thrown errors, and the
/// extension's test-only intent breaking the protocol's rules on purpose (a hang, a crash, a question outside perform,
/// two questions at once).
///
/// The machine's /usr/bin/python3 runs the scripts: a machine without it fails these tests, saying so
/// (`PythonExampleTests.requirePython`), rather than skipping them.
@Suite(.serialized, .tags(.endToEnd))
struct AppIntentsPythonTests {
  /// A fresh home, and Pantry.app assembled in it by the documented script.
  struct Scene {
    let host: HostFixture
    let app: URL
    var installed: String { host.home + "/Applications/Pantry.app" }
    var log: String { host.home + "/Logs/com.example.pantry.PantryIntents.log" }
    /// The app group's folder, which the extension writes through `appgroup.py`.
    var group: String { host.groups + "/group.com.example.pantry" }
    /// The installed `extract.actionsdata`.
    var metadata: String { installed + "/Extensions/PantryIntents.appex/Metadata.appintents/extract.actionsdata" }

    /// Assembles Pantry.app with `Scripts/make-python-appintents-example` into a fresh home's folder.
    init() async throws {
      host = try HostFixture()
      app = try await PythonExampleTests.assemble("Pantry.app", with: AppIntentsPythonTests.script, in: host)
    }

    /// Runs `assistant --home HOME` with `arguments` (`HostFixture.assistant`).
    func assistant(_ arguments: [String]) async throws -> CommandResult {
      try await host.assistant(arguments)
    }

    /// The app's own listing, `assistant open Pantry -- list` (the app, sandboxed, reads the group).
    func list() async throws -> String {
      let listed = try await assistant(["open", "Pantry", "--", "list"])
      #expect(listed.code == 0, "\(listed)")
      return listed.stdout
    }

    /// Every file of the app group, by its path in the group, with its bytes: what a run wrote, if anything.
    func groupFiles() async throws -> [String: Data] {
      let group = group
      return try await offThePool { () throws -> [String: Data] in
        guard FileManager.default.fileExists(atPath: group) else { return [:] }
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: group) {
          var isFolder: ObjCBool = false
          if FileManager.default.fileExists(atPath: group + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
            files[path] = try Data(contentsOf: URL(fileURLWithPath: group + "/" + path))
          }
        }
        return files
      }
    }

    /// The extension's log.
    func readLog() async throws -> String {
      let log = log
      return try await offThePool { () throws in try String(contentsOfFile: log, encoding: .utf8) }
    }
  }

  /// Runs `body` with Pantry.app assembled and installed in a fresh home, which is removed afterwards; without the
  /// system's python3, `PythonExampleTests.requirePython` fails the test instead.
  static func withPantry(_ body: (Scene) async throws -> Void) async throws {
    guard PythonExampleTests.requirePython() else { return }
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let installed = try await scene.assistant(["install", scene.app.path])
    #expect(installed.code == 0, "\(installed)")
    #expect(installed.stdout == "Installed Pantry (com.example.pantry) in \(scene.installed)\n", "\(installed)")
    try await body(scene)
  }

  static var script: String {
    PackagePaths.root.appendingPathComponent("Scripts/make-python-appintents-example").path
  }

  /// The lines a command wrote to stderr, without empty ones.
  static func lines(_ text: String) -> [String] { PythonExampleTests.lines(text) }

  /// The messages of a transcript (`--record`) the host sent its extension, in order.
  static func sent(_ transcript: String) async throws -> [[String: Any]] {
    let text = try await offThePool { () throws in try String(contentsOfFile: transcript, encoding: .utf8) }
    return try text.split(separator: "\n").compactMap { line -> [String: Any]? in
      let entry = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      return entry?["kind"] as? String == "send" ? entry?["message"] as? [String: Any] : nil
    }
  }

  /// The one JSON object `--json` printed.
  static func outcome(_ result: CommandResult) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
  }

  /// The stock the app lists before anything is changed.
  static let startingList =
    "Fridge: Butter (3), Oat Milk (1)\nCupboard: Basmati Rice (2), Brown Rice (0)\n"
    + "Freezer: Garden Peas (1), Vanilla Ice Cream (2)\nOrders: none\n"

  @Test func theScriptAssemblesABundleThatValidatesAndInstalls() async throws {
    try await PythonExampleTests.expectHelpAndUsage(of: Self.script)
    guard PythonExampleTests.requirePython() else { return }
    let scene = try await Scene()
    defer { scene.host.directory.remove() }
    let app = scene.app.path
    let layout = try await fileModes(under: app)
    let appex = "Extensions/PantryIntents.appex"
    var expected: [String: Int] = [:]
    for path in ["pantry", "\(appex)/PantryIntents"] { expected[path] = 0o755 }
    for path in ["Extensions", appex, "\(appex)/Metadata.appintents", "Metadata.appintents"] { expected[path] = 0o755 }
    for path in [
      "Info.plist", "Pantry.entitlements", "pantry.py", "appgroup.py", "appintents.py", "intenthost.py",
      "Metadata.appintents/extract.actionsdata", "Metadata.appintents/version.json", "\(appex)/Info.plist",
      "\(appex)/PantryIntents.entitlements", "\(appex)/appintents.py", "\(appex)/intenthost.py", "\(appex)/pantry.py",
      "\(appex)/appgroup.py",
      "\(appex)/Metadata.appintents/extract.actionsdata", "\(appex)/Metadata.appintents/version.json",
    ] {
      expected[path] = 0o644
    }
    #expect(layout == expected)

    // Every phrase passes Apple's rules; the metadata folder on its own too.
    let validated = try await scene.assistant(["validate", app])
    #expect(validated.code == 0, "\(validated)")
    #expect(validated.stdout == "0 errors, 0 warnings in \(app)\n", "\(validated)")
    let folder = "\(app)/\(appex)/Metadata.appintents"
    let alone = try await scene.assistant(["validate", folder])
    #expect(alone.code == 0, "\(alone)")
    #expect(alone.stdout == "0 errors, 0 warnings in \(folder)\n", "\(alone)")
    let installed = try await scene.assistant(["install", app])
    #expect(installed.code == 0, "\(installed)")
    // The app reads the starting pantry: nothing is written until something changes.
    #expect(try await scene.list() == Self.startingList)
    #expect(try await scene.groupFiles() == [:])
  }

  /// The phrase with a slot for the AppEnum Shelf takes its title and each synonym, with every name the app has
  /// (CFBundleName and each INAlternativeAppName); the phrase without it asks for the shelf with its
  /// requestValueDialog, offering the enum's cases. The control: a name the app does not have matches nothing (69).
  @Test(arguments: ["Pantry", "Larder", "Food Store"])
  func aPhraseWithAndWithoutItsSlot(appName: String) async throws {
    try await Self.withPantry { scene in
      for (shelf, said) in [
        ("fridge", "In the fridge: Butter (3), Oat Milk (1).\n"),
        ("refrigerator", "In the fridge: Butter (3), Oat Milk (1).\n"),
        ("deep freeze", "In the freezer: Garden Peas (1), Vanilla Ice Cream (2).\n"),
      ] {
        let listed = try await scene.assistant(["List the \(shelf) in \(appName)"])
        #expect(listed.code == 0, "\(listed)")
        #expect(listed.stdout == said, "\(listed)")
        #expect(listed.stderr == "", "\(listed)")
      }
      let asked = try await scene.assistant(["--answer", "cabinet", "List a shelf in \(appName)"])
      #expect(asked.code == 0, "\(asked)")
      #expect(asked.stdout == "In the cupboard: Basmati Rice (2), Brown Rice (0).\n", "\(asked)")
      #expect(
        Self.lines(asked.stderr) == [
          "Which shelf should I list?", "  1. Fridge", "  2. Cupboard", "  3. Freezer", "Choose 1-3: cabinet",
        ], "\(asked)")

      let stranger = try await scene.assistant(["List the fridge in Pantree"])
      #expect(stranger.code == 69, "\(stranger)")
    }
  }

  /// The words an AppEntity slot took are read by the entity's query (`entity/query` `string`): one item found is
  /// taken; two are asked about with the parameter's requestDisambiguationDialog; none is said, then the value is
  /// asked for.
  @Test func theWordsOfAnEntitySlotAreReadByItsQuery() async throws {
    try await Self.withPantry { scene in
      let one = try await scene.assistant(["How much basmati rice is left in Pantry"])
      #expect(one.code == 0, "\(one)")
      #expect(
        one.stdout == "Basmati Rice: 2 left, in the cupboard.\n[PantryIntents]\n  Basmati Rice\n  Shelf: Cupboard\n"
          + "  Left: 2\n", "\(one)")
      #expect(one.stderr == "", "\(one)")

      let two = try await scene.assistant(["--answer", "2", "How much rice is left in Pantry"])
      #expect(two.code == 0, "\(two)")
      #expect(two.stdout.hasPrefix("Brown Rice: 0 left, in the cupboard.\n"), "\(two)")
      #expect(
        Self.lines(two.stderr) == ["Which item do you mean?", "  1. Basmati Rice", "  2. Brown Rice", "Choose 1-2: 2"],
        "\(two)")

      let none = try await scene.assistant(["--answer", "oat milk", "How much caviar is left in Pantry"])
      #expect(none.code == 0, "\(none)")
      #expect(none.stdout.hasPrefix("Oat Milk: 1 left, in the fridge.\n"), "\(none)")
      #expect(Self.lines(none.stderr).first == "Sorry, I couldn't find caviar.", "\(none)")
      #expect(Self.lines(none.stderr).last == "Choose 1-6: oat milk", "\(none)")
      #expect(Self.lines(none.stderr).contains("Which item should I check?"), "\(none)")
    }
  }

  /// A required parameter the phrase does not give is asked before perform with its requestValueDialog, offering
  /// the entity query's suggestions; with nobody to ask, the run ends with 75 naming the parameter and its dialog.
  @Test func aMissingRequiredParameterIsAskedWithItsDialog() async throws {
    try await Self.withPantry { scene in
      let answered = try await scene.assistant(["--answer", "oat milk", "Check my stock with Pantry"])
      #expect(answered.code == 0, "\(answered)")
      #expect(answered.stdout.hasPrefix("Oat Milk: 1 left, in the fridge.\n"), "\(answered)")
      #expect(
        Self.lines(answered.stderr) == [
          "Which item should I check?", "  1. Butter", "  2. Oat Milk", "  3. Basmati Rice", "  4. Brown Rice",
          "  5. Garden Peas", "  6. Vanilla Ice Cream", "Choose 1-6: oat milk",
        ], "\(answered)")

      let unanswered = try await scene.assistant(["Check my stock with Pantry"])
      #expect(unanswered.code == 75, "\(unanswered)")
      #expect(unanswered.stdout == "", "\(unanswered)")
      #expect(
        unanswered.stderr.contains(
          "Item (item) for Pantry, asked \"Which item should I check?\", is needed (\"Choose 1-6:\")"), "\(unanswered)")
      #expect(unanswered.stderr.hasPrefix("Which item should I check?\n"), "\(unanswered)")
    }
  }

  /// The delivery slot is offered from the parameter's options provider (`appIntent/options`: the afternoon and the
  /// evening; the morning is full), not from its enum's three cases. The control: the morning is still a slot, which
  /// `run` takes when it is given.
  @Test func theOptionsProviderOffersTheSlots() async throws {
    try await Self.withPantry { scene in
      let ordered = try await scene.assistant(["--answer", "evening", "--answer", "yes", "Order butter with Pantry"])
      #expect(ordered.code == 0, "\(ordered)")
      #expect(ordered.stdout.hasSuffix("Ordered Butter for the evening.\n"), "\(ordered)")
      #expect(
        Self.lines(ordered.stderr) == [
          "When should the order come?", "  1. Afternoon", "  2. Evening", "Choose 1-2: evening",
          "Order? (yes/no) yes",
        ], "\(ordered)")

      let morning = try await scene.assistant(
        ["--answer", "yes", "run", "Pantry", "OrderGroceriesIntent", "slot=morning", "item=oat milk"])
      #expect(morning.code == 0, "\(morning)")
      #expect(morning.stdout.hasSuffix("Ordered Oat Milk for the morning.\n"), "\(morning)")
      #expect(try await scene.list().hasSuffix("Order 1: Butter, evening\nOrder 2: Oat Milk, morning\n"))
    }
  }

  /// Without an item, perform asks which of the items running low to order (`host/requestDisambiguation`, with the
  /// parameter's requestDisambiguationDialog), then confirms the order; the order is written.
  @Test func theExtensionAsksWhichItemAmongThoseRunningLow() async throws {
    try await Self.withPantry { scene in
      let ordered = try await scene.assistant([
        "--answer", "2", "--answer", "garden peas", "--answer", "yes", "Order groceries with Pantry",
      ])
      #expect(ordered.code == 0, "\(ordered)")
      #expect(
        Self.lines(ordered.stderr) == [
          "When should the order come?", "  1. Afternoon", "  2. Evening", "Choose 1-2: 2",
          "Which item should I order?",
          "  1. Oat Milk", "  2. Brown Rice", "  3. Garden Peas", "Choose 1-3: garden peas", "Order? (yes/no) yes",
        ], "\(ordered)")
      #expect(ordered.stdout.hasSuffix("Order Garden Peas for the evening?\nOrdered Garden Peas for the evening.\n"))
      #expect(try await scene.list().hasSuffix("Order 1: Garden Peas, evening\n"))
    }
  }

  /// Without a count, AddStock answers needsValue: the host asks with the parameter's requestValueDialog and sends
  /// `appIntent/perform` again (attempt 2, with the count), as the transcript shows.
  @Test func needsValuePerformsAgainWithTheAnswer() async throws {
    try await Self.withPantry { scene in
      let transcript = scene.host.directory.file("add.jsonl").path
      let added = try await scene.assistant(["--record", transcript, "--answer", "2", "Add butter to Pantry"])
      #expect(added.code == 0, "\(added)")
      #expect(added.stdout == "Added 2 to Butter: now 5.\n", "\(added)")
      #expect(Self.lines(added.stderr) == ["How many should I add? 2"], "\(added)")
      let performs = try await Self.sent(transcript).filter { $0["method"] as? String == "appIntent/perform" }
      #expect(performs.count == 2)
      let params = performs.map { $0["params"] as? [String: Any] }
      #expect(params.map { $0?["attempt"] as? Int } == [1, 2])
      let values = params.map { ($0?["intent"] as? [String: Any])?["parameters"] as? [String: Any] ?? [:] }
      #expect(values.map { Set($0.keys) } == [["item"], ["item", "count"]])
      #expect((values.last?["count"] as? [String: Any])?["value"] as? Int == 2)
      #expect(try await scene.list().hasPrefix("Fridge: Butter (5), Oat Milk (1)\n"))
    }
  }

  /// More than usual is confirmed (`host/requestParameterConfirmation`, the extension's dialog): "no" goes on in
  /// perform and writes nothing in the app group, "yes" adds. The control of the threshold: 2 is not asked about.
  @Test func aParameterConfirmationDeclinedWritesNothing() async throws {
    try await Self.withPantry { scene in
      let before = try await scene.groupFiles()
      let declined = try await scene.assistant(
        ["--answer", "no", "run", "Pantry", "AddStockIntent", "item=butter", "count=12"])
      #expect(declined.code == 0, "\(declined)")
      #expect(declined.stdout == "OK, Butter stays at 3.\n", "\(declined)")
      #expect(Self.lines(declined.stderr) == ["Add 12 to Butter? That is more than usual. no"], "\(declined)")
      #expect(try await scene.groupFiles() == before)
      #expect(try await scene.list() == Self.startingList)

      let accepted = try await scene.assistant(
        ["--answer", "yes", "run", "Pantry", "AddStockIntent", "item=butter", "count=12"])
      #expect(accepted.code == 0, "\(accepted)")
      #expect(accepted.stdout == "Added 12 to Butter: now 15.\n", "\(accepted)")
      #expect(try await scene.groupFiles() != before)

      let usual = try await scene.assistant(["run", "Pantry", "AddStockIntent", "item=butter", "count=2"])
      #expect(usual.code == 0, "\(usual)")
      #expect(usual.stdout == "Added 2 to Butter: now 17.\n", "\(usual)")
      #expect(usual.stderr == "", "\(usual)")
      #expect(try await scene.list().hasPrefix("Fridge: Butter (17), Oat Milk (1)\n"))
    }
  }

  /// The order is confirmed (`host/requestConfirmation`): the host draws the extension's snippet, says its dialog
  /// and asks with the button `order` names. "No" ends the run as the user's cancel (perform lets it through:
  /// "OK, I won't.", exit 1) with nothing written in the app group; "yes" places the order, which the app lists.
  @Test func anIntentConfirmationWithASnippet() async throws {
    try await Self.withPantry { scene in
      let card = "[PantryIntents]\n  Order\n  Item: Butter\n  Delivery: Afternoon\n  Total: €2.90\n"
      let before = try await scene.groupFiles()
      let declined = try await scene.assistant(["--answer", "1", "--answer", "no", "Order butter with Pantry"])
      #expect(declined.code == 1, "\(declined)")
      #expect(declined.stdout == card + "Order Butter for the afternoon?\nOK, I won't.\n", "\(declined)")
      #expect(Self.lines(declined.stderr).last == "Order? (yes/no) no", "\(declined)")
      #expect(try await scene.groupFiles() == before)
      #expect(try await scene.list() == Self.startingList)

      let accepted = try await scene.assistant(["--answer", "1", "--answer", "order", "Order butter with Pantry"])
      #expect(accepted.code == 0, "\(accepted)")
      #expect(
        accepted.stdout == card + "Order Butter for the afternoon?\nOrdered Butter for the afternoon.\n", "\(accepted)")
      #expect(try await scene.groupFiles() != before)
      #expect(try await scene.list().hasSuffix("Order 1: Butter, afternoon\n"))
    }
  }

  /// `run` names an App Intent as it names a SiriKit intent (its help: "its class (BookRoomIntent), definition name
  /// (BookRoom) or title"): the type name, the name without `Intent`, case aside, or the title. A name that is none
  /// of the app's is refused (69) with a suggestion and the list of its App Intents (not "it supports none").
  @Test func runNamesAnAppIntentByItsTypeNameShortNameOrTitle() async throws {
    try await Self.withPantry { scene in
      for (name, said) in [
        ("AddStockIntent", "Added 1 to Butter: now 4.\n"), ("AddStock", "Added 1 to Butter: now 5.\n"),
        ("addstock", "Added 1 to Butter: now 6.\n"), ("Add Stock", "Added 1 to Butter: now 7.\n"),
      ] {
        let added = try await scene.assistant(["run", "Pantry", name, "item=butter", "count=1"])
        #expect(added.code == 0, "\(added)")
        #expect(added.stdout == said, "\(added)")
      }
      let unknown = try await scene.assistant(["run", "Pantry", "AddStok", "item=butter", "count=1"])
      #expect(unknown.code == 69, "\(unknown)")
      #expect(
        unknown.stderr
          == "assistant: Pantry has no intent called \"AddStok\" (did you mean \"AddStock\"?); it supports "
          + "CountOrdersIntent, ShowPantryIntent, AddStockIntent, CheckStockIntent, ListShelfIntent, "
          + "OpenShelfIntent, OrderGroceriesIntent, TakeItemIntent, TestOnlyIntent\n",
        "\(unknown)")
      #expect(try await scene.list().hasPrefix("Fridge: Butter (7), Oat Milk (1)\n"))
    }
  }

  /// A question of perform that nobody can answer (no terminal, no `--answer` left) is answered `userCancelled`, and
  /// when perform lets that through, the run ends as any question nobody can answer does: exit 75, naming what was
  /// needed (docs/PROTOCOL.md, "Questions to the user while perform runs"), not "OK, I won't.". The control: the
  /// user's own "cancel" to the same question is the user's cancel, exit 1. Nothing is ordered either way.
  @Test func aQuestionOfPerformNobodyCanAnswerEndsWith75() async throws {
    try await Self.withPantry { scene in
      let unanswered = try await scene.assistant(["--answer", "evening", "Order groceries with Pantry"])
      #expect(unanswered.code == 75, "\(unanswered)")
      #expect(unanswered.stdout == "", "\(unanswered)")
      #expect(
        unanswered.stderr.contains(
          "assistant: which item for Pantry is needed (\"Choose 1-3:\"), but there is no terminal to ask"),
        "\(unanswered)")
      let unconfirmed = try await scene.assistant(["--answer", "1", "Order butter with Pantry"])
      #expect(unconfirmed.code == 75, "\(unconfirmed)")
      #expect(!unconfirmed.stdout.contains("OK, I won't."), "\(unconfirmed)")
      #expect(
        unconfirmed.stderr.contains("assistant: a confirmation is needed (\"Order? (yes/no)\")"), "\(unconfirmed)")

      let cancelled = try await scene.assistant(
        ["--answer", "evening", "--answer", "cancel", "Order groceries with Pantry"])
      #expect(cancelled.code == 1, "\(cancelled)")
      #expect(cancelled.stdout == "OK, I won't.\n", "\(cancelled)")
      #expect(try await scene.groupFiles() == [:])
      // "cancel" to a String parameter's question is the user's cancel too, never the text "cancel".
      let probed = try await scene.assistant(
        ["--answer", "cancel", "run", "Pantry", "TestOnlyIntent", "behaviour=askOutsidePerform"])
      #expect(probed.code == 1 && probed.stdout == "OK, I won't.\n", "\(probed)")
    }
  }

  /// A perform that goes on after a question nobody could answer (it takes the cancel as an answer) and returns a
  /// result still ends the run with 75: the result is not said, on stdout or (with `--json`, where dialogs go to
  /// stderr) anywhere, and `--json` prints only the error; the extension's log says the answer was dropped. The
  /// control: the same intent with its questions answered says its result, exit 0.
  @Test func aResultAfterAQuestionNobodyCouldAnswerIsNotSaid() async throws {
    try await Self.withPantry { scene in
      let run = ["run", "Pantry", "TestOnlyIntent", "behaviour=askTwiceAtOnce"]
      let unanswered = try await scene.assistant(run)
      #expect(unanswered.code == 75, "\(unanswered)")
      #expect(unanswered.stdout == "", "\(unanswered)")
      #expect(!unanswered.stderr.contains("Second question"), "\(unanswered)")
      #expect(
        unanswered.stderr.hasSuffix(
          "assistant: Probe (probe) for Pantry, asked \"First question?\", is needed (\"Choose 1-2:\"), but there is "
            + "no terminal to ask: answer it with --answer NUMBER (or the name), or run it on a terminal\n"),
        "\(unanswered)")
      #expect(
        try await scene.readLog().contains(
          "perform of TestOnlyIntent answered after a question nobody could answer; the answer is dropped and the run "
            + "ends with 75"))

      let json = try await scene.assistant(["--json"] + run)
      #expect(json.code == 75, "\(json)")
      let outcome = try Self.outcome(json)
      #expect(Set(outcome.keys) == ["error"], "\(json)")
      #expect((outcome["error"] as? [String: Any])?["status"] as? Int == 75, "\(json)")
      #expect(!json.stderr.contains("Second question"), "\(json)")

      let answered = try await scene.assistant(["--answer", "1"] + run)
      #expect(answered.code == 0, "\(answered)")
      #expect(answered.stdout == "First question: answered one. Second question: busy.\n", "\(answered)")
    }
  }

  /// An array parameter (TestOnlyIntent's `shelves`, a [Shelf]) is given on the command line as items separated by
  /// commas, and perform gets an `array` of `enum` values; without it, perform's needsValue has the host ask with
  /// the parameter's dialog, offering the enum's cases, and the answer names several (by number or by name). The
  /// control: an item that is not a shelf is refused (64), saying what each item must be.
  @Test func anArrayParameterIsGivenAndAskedAsAList() async throws {
    try await Self.withPantry { scene in
      let run = ["run", "Pantry", "TestOnlyIntent", "behaviour=listShelves"]
      let transcript = scene.host.directory.file("shelves.jsonl").path
      let given = try await scene.assistant(["--record", transcript] + run + ["shelves=fridge, deep freeze"])
      #expect(given.code == 0, "\(given)")
      #expect(given.stdout == "Shelves: fridge, freezer.\n", "\(given)")
      let perform = try #require(
        try await Self.sent(transcript).first { $0["method"] as? String == "appIntent/perform" })
      let intent = (perform["params"] as? [String: Any])?["intent"] as? [String: Any]
      let shelves = try #require((intent?["parameters"] as? [String: Any])?["shelves"], "\(perform)")
      #expect(
        String(decoding: try JSONSerialization.data(withJSONObject: shelves, options: [.sortedKeys]), as: UTF8.self)
          == #"{"type":"array","value":[{"type":"enum","value":"fridge"},{"type":"enum","value":"freezer"}]}"#)

      let asked = try await scene.assistant(["--answer", "1, cabinet"] + run)
      #expect(asked.code == 0, "\(asked)")
      #expect(asked.stdout == "Shelves: fridge, cupboard.\n", "\(asked)")
      #expect(
        Self.lines(asked.stderr) == [
          "Which shelves should I list?", "  1. Fridge", "  2. Cupboard", "  3. Freezer",
          "Choose one or more of 1-3, separated by commas: 1, cabinet",
        ], "\(asked)")

      let wrong = try await scene.assistant(run + ["shelves=fridge, garage"])
      #expect(wrong.code == 64, "\(wrong)")
      #expect(
        wrong.stderr.contains(
          "shelves=fridge, garage: Shelves needs one of Fridge, Cupboard, Freezer, or several separated by commas"),
        "\(wrong)")
    }
  }

  /// A number among numbered choices is a choice: out of range for a String parameter with options (TestOnlyIntent's
  /// `probe`), it is refused and asked again, not taken for the text "7"; the next answer, 1, is the first option.
  @Test func aNumberOutOfRangeIsNoTextWhereThereAreChoices() async throws {
    try await Self.withPantry { scene in
      let result = try await scene.assistant(
        ["--answer", "7", "--answer", "1", "run", "Pantry", "TestOnlyIntent", "behaviour=askTwiceAtOnce"])
      #expect(result.code == 0, "\(result)")
      #expect(result.stdout == "First question: answered one. Second question: busy.\n", "\(result)")
      #expect(
        Self.lines(result.stderr) == [
          "First question?", "  1. one", "  2. two", "Choose 1-2: 7",
          "Please say a number from 1 to 2, or the words of one.", "Choose 1-2: 1",
        ], "\(result)")
    }
  }

  /// A perform that answers needsValue every time is asked after each of the first four performs; after the fifth,
  /// the host gives up (75) in one line naming the extension, the intent and the parameter, which the extension's
  /// log has too.
  @Test func theGiveUpAfterTheLastPerformNamesTheExtension() async throws {
    try await Self.withPantry { scene in
      let answers = Array(repeating: ["--answer", "1"], count: 4).flatMap { $0 }
      let result = try await scene.assistant(
        answers + ["run", "Pantry", "TestOnlyIntent", "behaviour=needsValueForever"])
      #expect(result.code == 75, "\(result)")
      #expect(result.stdout == "", "\(result)")
      let line =
        "PantryIntents (com.example.pantry.PantryIntents): TestOnlyIntent still needed probe after 5 performs; the "
        + "assistant gave up"
      #expect(result.stderr.hasSuffix("assistant: \(line)\n"), "\(result)")
      #expect(Self.lines(result.stderr).filter { $0 == "Choose 1-2: 1" }.count == 4, "\(result)")
      #expect(try await scene.readLog().contains(line))
    }
  }

  /// A perform that throws an error with a localized reason is heard as that reason, exit 1 (the intent's failure,
  /// not a fault); one without a reason as Apple's sentence. The control: an item with some left is taken.
  @Test func aThrownErrorIsHeardAsItsReason() async throws {
    try await Self.withPantry { scene in
      let none = try await scene.assistant(["Take brown rice from Pantry"])
      #expect(none.code == 1, "\(none)")
      #expect(none.stdout == "There is no Brown Rice left in your pantry.\n", "\(none)")
      #expect(none.stderr == "", "\(none)")
      let json = try await scene.assistant(["--json", "Take brown rice from Pantry"])
      #expect(json.code == 1, "\(json)")
      let outcome = try Self.outcome(json)
      #expect(outcome["code"] as? String == "failure")
      #expect(outcome["success"] as? Bool == false)
      #expect(outcome["dialog"] as? String == "There is no Brown Rice left in your pantry.")

      let taken = try await scene.assistant(["Take butter from Pantry"])
      #expect(taken.code == 0, "\(taken)")
      #expect(taken.stdout == "Took one Butter: 2 left.\n", "\(taken)")

      let unexplained = try await scene.assistant(
        ["run", "Pantry", "TestOnlyIntent", "behaviour=throwWithoutReason"])
      #expect(unexplained.code == 1, "\(unexplained)")
      #expect(
        unexplained.stdout == "The action Test Only could not run because an unknown error occurred.\n",
        "\(unexplained)")
      #expect(try await scene.readLog().contains("| RuntimeError: a failure with no reason for the user"))
    }
  }

  /// A perform that never answers is killed at the perform deadline (`--deadline perform=1`): exit 70, the message
  /// naming the deadline and how to change it; nothing is said as if it were the intent's answer.
  @Test func aHangingPerformIsKilledAtItsDeadline() async throws {
    try await Self.withPantry { scene in
      let hung = try await scene.assistant(
        ["--deadline", "perform=1", "run", "Pantry", "TestOnlyIntent", "behaviour=hang"])
      #expect(hung.code == 70, "\(hung)")
      #expect(hung.stdout == "", "\(hung)")
      #expect(
        hung.stderr.contains(
          "PantryIntents (com.example.pantry.PantryIntents) did not answer perform of TestOnlyIntent within 1 s (the "
            + "perform deadline; change it with --deadline perform=SECONDS) and was killed"), "\(hung)")
      #expect(try await scene.readLog().contains("| TestOnlyIntent: hanging on purpose"))
    }
  }

  /// A perform whose process crashes is a fault of the extension (70), reported with the signal and its last line
  /// on stderr, never heard as the intent's error; so is a crash while the host reads the answer to one of
  /// perform's questions (its `appIntent/options`, sent while the question is pending), named as such: the host
  /// neither traps on its own deadline hold (it did: "releaseDeadlines() without holdDeadlines()", exit 132) nor
  /// lets perform go on.
  @Test(arguments: [
    ("crash", "crashed with SIGABRT during perform of TestOnlyIntent", "crashing on purpose"),
    ("crashWhileAnswered", " during appIntent/options of probe", "crashing while the host reads the answer"),
  ])
  func aCrashingPerformIsAFault(behaviour: String, during: String, lastWords: String) async throws {
    try await Self.withPantry { scene in
      let crashed = try await scene.assistant(
        ["--answer", "1", "run", "Pantry", "TestOnlyIntent", "behaviour=\(behaviour)"])
      #expect(crashed.code == 70, "\(crashed)")
      #expect(crashed.stdout == "", "\(crashed)")
      #expect(crashed.stderr.hasPrefix("assistant: PantryIntents (com.example.pantry.PantryIntents) "), "\(crashed)")
      #expect(crashed.stderr.contains(during), "\(crashed)")
      #expect(crashed.stderr.contains("its last words on stderr: TestOnlyIntent: \(lastWords)"), "\(crashed)")
      #expect(!crashed.stderr.contains("Fatal error"), "\(crashed)")
    }
  }

  /// The rules of the extension's questions: one sent while no perform is pending (here during `appIntent/options`,
  /// between two performs) is refused at once with `notAllowedNow`, and nobody is asked; of two sent at once, the
  /// first is asked (and while it waits, the host reads the answer with `appIntent/options`, which the extension
  /// serves: it keeps reading stdin) and the second is refused with `busy`. The extension says what it got in its
  /// perform's dialog, and in its log.
  @Test(arguments: [
    (
      "askOutsidePerform", "Asked outside perform, the host answered notAllowedNow.\n", "Which probe?",
      "| TestOnlyIntent: host/requestValue during appIntent/options: notAllowedNow"
    ),
    (
      "askTwiceAtOnce", "First question: answered one. Second question: busy.\n", "First question?",
      "| TestOnlyIntent: two questions at once: answered one, busy"
    ),
  ])
  func aQuestionIsRefusedOutsidePerformAndWhileAnotherIsAsked(
    behaviour: String, said: String, asked: String, logged: String
  ) async throws {
    try await Self.withPantry { scene in
      let result = try await scene.assistant(
        ["--answer", "1", "run", "Pantry", "TestOnlyIntent", "behaviour=\(behaviour)"])
      #expect(result.code == 0, "\(result)")
      #expect(result.stdout == said, "\(result)")
      #expect(Self.lines(result.stderr) == [asked, "  1. one", "  2. two", "Choose 1-2: 1"], "\(result)")
      #expect(try await scene.readLog().contains(logged))
    }
  }

  /// The extension reports the digest of the metadata its code registers; the installed file written another way
  /// (compact, keys reordered) is the same document and runs. Once it says something else (a description edited
  /// after install), the host refuses to route by it: exit 65, naming both digests, and the extension performs
  /// nothing.
  @Test func metadataThatDriftedFromTheCodeIsRefused() async throws {
    try await Self.withPantry { scene in
      let transcript = scene.host.directory.file("digest.jsonl").path
      let control = try await scene.assistant(["--record", transcript, "List the fridge in Pantry"])
      #expect(control.code == 0, "\(control)")
      let text = try await offThePool { () throws in try String(contentsOfFile: transcript, encoding: .utf8) }
      let digest = try #require(
        text.firstMatch(of: /"appIntentsMetadataDigest":"([0-9a-f]{64})"/).map { String($0.1) }, "\(text)")

      let metadata = scene.metadata
      try await offThePool { () throws in
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: metadata)))
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: metadata))
      }
      let relaid = try await scene.assistant(["List the fridge in Pantry"])
      #expect(relaid.code == 0, "\(relaid)")

      try await offThePool { () throws in
        let text = try String(contentsOfFile: metadata, encoding: .utf8)
        #expect(text.contains("Lists what is on one shelf"))
        try Data(text.replacingOccurrences(of: "Lists what is on one shelf", with: "Lists a shelf").utf8)
          .write(to: URL(fileURLWithPath: metadata))
      }
      let drifted = try await scene.assistant(["List the fridge in Pantry"])
      #expect(drifted.code == 65, "\(drifted)")
      #expect(drifted.stdout == "", "\(drifted)")
      #expect(
        drifted.stderr.contains(
          "PantryIntents (com.example.pantry.PantryIntents) registers App Intents that its Metadata.appintents does "
            + "not describe: the code's metadata digest is \(digest), the installed file's "), "\(drifted)")
      #expect(!drifted.stderr.contains("the installed file's \(digest)"), "\(drifted)")
    }
  }

  /// `--json` prints one JSON document: the app, the intent, its parameters (an entity as its identifier and
  /// display string), the code, success, the dialog, the snippet drawn (`views`) and the returned value
  /// (`responseParameters.value`). The control: an intent that draws no snippet and returns no value has neither.
  @Test func jsonGivesTheOutcome() async throws {
    try await Self.withPantry { scene in
      let result = try await scene.assistant(["--json", "How much basmati rice is left in Larder"])
      #expect(result.code == 0, "\(result)")
      let outcome = try Self.outcome(result)
      #expect(outcome["app"] as? String == "Pantry")
      #expect(outcome["intent"] as? String == "CheckStockIntent")
      let item = (outcome["parameters"] as? [String: Any])?["item"] as? [String: String]
      #expect(item == ["identifier": "basmati", "displayString": "Basmati Rice"])
      #expect(outcome["code"] as? String == "success")
      #expect(outcome["success"] as? Bool == true)
      #expect(outcome["dialog"] as? String == "Basmati Rice: 2 left, in the cupboard.")
      #expect((outcome["responseParameters"] as? [String: Any])?["value"] as? Int == 2)
      let views = try #require(outcome["views"] as? [[String: Any]], "\(result)")
      #expect(views.count == 1)
      let snippet = try #require(views.first?["snippet"] as? [String: Any])
      let card = try JSONSerialization.data(withJSONObject: snippet, options: [.sortedKeys])
      #expect(
        String(decoding: card, as: UTF8.self)
          == #"{"stack":[{"text":"Basmati Rice"},{"row":{"label":"Shelf","value":"Cupboard"}},{"row":{"label":"Left","value":"2"}}]}"#
      )

      let plain = try await scene.assistant(["--json", "List the fridge in Pantry"])
      #expect(plain.code == 0, "\(plain)")
      let listed = try Self.outcome(plain)
      #expect(listed["intent"] as? String == "ListShelfIntent")
      #expect((listed["parameters"] as? [String: String]) == ["shelf": "fridge"])
      #expect(listed["dialog"] as? String == "In the fridge: Butter (3), Oat Milk (1).")
      #expect(listed["views"] == nil && listed["responseParameters"] == nil, "\(plain)")
    }
  }

  /// The App Intents the app declares itself (`Pantry.app/Metadata.appintents`) run in the app, launched sandboxed with
  /// `INTENTHOST_LAUNCH_REASON=appIntent`, not in the extension: CountOrdersIntent in the background, ShowPantryIntent
  /// (`openAppWhenRun`) in the foreground, as `mode` in `appIntent/perform` says. Opening the app needs an unlocked
  /// device before anything runs: locked, ShowPantryIntent is refused (77) without starting the app, while
  /// CountOrdersIntent (the control) runs locked.
  @Test func theAppPerformsItsOwnIntentsInTheBackgroundOrTheForeground() async throws {
    try await Self.withPantry { scene in
      let appLog = scene.host.home + "/Logs/com.example.pantry.log"
      let transcript = scene.host.directory.file("count.jsonl").path
      let counted = try await scene.assistant(["--record", transcript, "run", "Pantry", "CountOrdersIntent"])
      #expect(counted.code == 0 && counted.stdout == "Pantry has no orders.\n", "\(counted)")
      let counting = try await Self.sent(transcript)
      #expect((counting.first?["params"] as? [String: Any])?["bundleIdentifier"] as? String == "com.example.pantry")
      let performs = counting.filter { $0["method"] as? String == "appIntent/perform" }
      #expect(performs.map { ($0["params"] as? [String: Any])?["mode"] as? String } == ["background"])

      let shown = scene.host.directory.file("show.jsonl").path
      let opened = try await scene.assistant(["--record", shown, "run", "Pantry", "ShowPantryIntent"])
      #expect(opened.code == 0, "\(opened)")
      #expect(opened.stdout.hasPrefix("Pantry is open on 6 items.\n[Pantry]\n  Fridge: Butter (3)"), "\(opened)")
      let showing = try await Self.sent(shown).filter { $0["method"] as? String == "appIntent/perform" }
      #expect(showing.map { ($0["params"] as? [String: Any])?["mode"] as? String } == ["foreground"])
      let log = try await offThePool { () throws in try String(contentsOfFile: appLog, encoding: .utf8) }
      #expect(log.contains("CountOrdersIntent: perform 1 in the background"), "\(log)")
      #expect(log.contains("ShowPantryIntent: perform 1 in the foreground"), "\(log)")
      // The extension never started.
      #expect(!FileManager.default.fileExists(atPath: scene.log))

      // OpenShelfIntent: declared by the extension with openAppWhenRun, performed by the app in the foreground, by
      // voice; the app's own metadata is what its digest is checked against (the extension's would be "drifted").
      let shelf = scene.host.directory.file("shelf.jsonl").path
      let opened2 = try await scene.assistant(["--record", shelf, "Open the fridge in Pantry"])
      #expect(opened2.code == 0, "\(opened2)")
      #expect(opened2.stdout == "Pantry is open on the fridge: Butter (3), Oat Milk (1).\n", "\(opened2)")
      let openingShelf = try await Self.sent(shelf)
      #expect((openingShelf.first?["params"] as? [String: Any])?["bundleIdentifier"] as? String == "com.example.pantry")
      #expect(
        openingShelf.filter { $0["method"] as? String == "appIntent/perform" }
          .map { ($0["params"] as? [String: Any])?["mode"] as? String } == ["foreground"])

      let before = try await offThePool { () throws in try String(contentsOfFile: appLog, encoding: .utf8) }

      let explained = try await scene.assistant(["explain", "Pantry", "ShowPantryIntent"])
      #expect(
        explained.stdout.contains(
          "  needs an unlocked device: ShowPantryIntent opens Pantry when run (openAppWhenRun in "
            + "Applications/Pantry.app/Metadata.appintents) [open-app-when-run]\n"), "\(explained)")
      #expect(try await scene.host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
      #expect(try await scene.assistant(["lock"]).code == 0)
      let refused = try await scene.assistant(["run", "Pantry", "ShowPantryIntent"])
      #expect(refused.code == 77, "\(refused)")
      #expect(refused.stderr.contains("ShowPantryIntent opens Pantry when run"), "\(refused)")
      let after = try await offThePool { () throws in try String(contentsOfFile: appLog, encoding: .utf8) }
      #expect(after == before, "the app was started while the device was locked")
      let locked = try await scene.assistant(["run", "Pantry", "CountOrdersIntent"])
      #expect(locked.code == 0 && locked.stdout == "Pantry has no orders.\n", "\(locked)")
    }
  }

  /// AddStock donates what the user did (`host/donate` with `appIntent`): `shortcuts suggested` lists it in words, and
  /// a shortcut made of it with its values (`--keep-values`) runs the App Intent again by its own phrase; one made
  /// without them that asks for the count each time asks for both. The control of the host's check: the extension's
  /// donation of an intent Pantry does not declare is refused (invalidParams) and nothing is kept.
  @Test func aDonationBecomesAShortcutThatRunsTheAppIntent() async throws {
    try await Self.withPantry { scene in
      let refused = try await scene.assistant(["run", "Pantry", "TestOnlyIntent", "behaviour=donateUndeclared"])
      #expect(refused.stdout == "A donation of an intent Pantry does not declare: invalidParams.\n", "\(refused)")
      let none = try await scene.assistant(["shortcuts", "suggested", "Pantry", "--json"])
      let noApps = try Self.outcome(none)["apps"] as? [[String: Any]]
      #expect((noApps?.first?["donations"] as? [Any])?.isEmpty == true, "\(none)")

      let added = try await scene.assistant(["--answer", "2", "Add butter to Pantry"])
      #expect(added.stdout == "Added 2 to Butter: now 5.\n", "\(added)")
      let suggested = try await scene.assistant(["shortcuts", "suggested", "Pantry"])
      #expect(suggested.stdout.contains("d1  Add Stock: item Butter, count 2 (AddStockIntent, "), "\(suggested)")
      let made = try await scene.assistant(["shortcuts", "add", "Top up the butter", "--from", "d1", "--keep-values"])
      #expect(made.code == 0, "\(made)")
      #expect(
        made.stdout.hasPrefix(
          "Added k1 \"Top up the butter\": AddStockIntent of Pantry (com.example.pantry), presets count=2, "
            + "item=Butter\n"), "\(made)")
      let topped = try await scene.assistant(["Top up the butter"])
      #expect(topped.code == 0 && topped.stdout == "Added 2 to Butter: now 7.\n", "\(topped)")

      let asking = try await scene.assistant([
        "shortcuts", "add", "More of something", "--from", "d1", "--ask", "count",
      ])
      #expect(asking.code == 0, "\(asking)")
      let asked = try await scene.assistant(["--answer", "1", "--answer", "3", "more of something"])
      #expect(asked.code == 0 && asked.stdout == "Added 3 to Butter: now 10.\n", "\(asked)")
      #expect(Self.lines(asked.stderr).contains("How many should I add? 3"), "\(asked)")
      // A phrase the app's App Shortcuts already say otherwise is refused (65), naming the intent.
      let clash = try await scene.assistant(["shortcuts", "add", "Order groceries with Pantry", "--from", "d1"])
      #expect(clash.code == 65, "\(clash)")
      #expect(clash.stderr.contains("already runs the App Intent OrderGroceriesIntent of Pantry"), "\(clash)")
    }
  }

  /// A recorded App Intents run (the entity query, the question, perform and its snippet) replays clean. The
  /// control: once the pantry has changed, the same recording replays with a diff (exit 1).
  @Test func aRecordedRunReplaysClean() async throws {
    try await Self.withPantry { scene in
      let transcript = scene.host.directory.file("check.jsonl").path
      let recorded = try await scene.assistant(
        ["--record", transcript, "--answer", "1", "How much rice is left in Pantry"])
      #expect(recorded.code == 0, "\(recorded)")
      let text = try await offThePool { () throws in try String(contentsOfFile: transcript, encoding: .utf8) }
      #expect(text.contains(#""method":"entity/query""#) && text.contains(#""method":"appIntent/perform""#), "\(text)")
      #expect(text.contains(#""answer":"1""#), "\(text)")

      let replayed = try await scene.assistant(["replay", transcript])
      #expect(replayed.code == 0, "\(replayed)")
      #expect(replayed.stdout == "\(transcript): replays clean\n", "\(replayed)")

      let taken = try await scene.assistant(["Take basmati rice from Pantry"])
      #expect(taken.code == 0, "\(taken)")
      let changed = try await scene.assistant(["replay", transcript])
      #expect(changed.code == 1, "\(changed)")
      #expect(changed.stdout.contains("Basmati Rice: 1 left, in the cupboard."), "\(changed)")
    }
  }
}
