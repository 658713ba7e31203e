import Foundation
import TestSupport
import Testing

/// The conversation around Ascent's questions through the real binaries: yes and no in French, an unclear answer
/// asked about again, a workout named at the confirmation of another, why a workout is asked for again and which ones
/// Ascent knows, "cancel" at a question, the advice when a script or a piped shell cannot answer a yes/no, and "avec"
/// naming the app under a French locale. The in-process counterpart is
/// AssistantHostTests/QuestionsAndAnswersTests.swift.
@Suite(.serialized, .tags(.endToEnd))
struct QuestionsAndAnswersEndToEndTests {
  /// A home with Ascent and Rooms installed.
  func host() async throws -> HostFixture { try await HostFixture.withAscent(rooms: true) }

  /// Ascent's workouts, oldest first, as "obstacle: state".
  func history(_ host: HostFixture) async throws -> [String] { try await host.ascentHistory() }

  static let start = "Start a wall climb workout with Ascent"

  /// "oui" starts the workout under fr_FR, and unlocks the device; "non" refuses (the control).
  @Test func frenchYesStartsAndUnlocksAndFrenchNoRefuses() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let refused = try await host.assistant(["--locale", "fr_FR", "--answer", "non", Self.start])
    #expect(refused.code == 1, "\(refused)")
    #expect(refused.stdout.contains("OK, I won't."), "\(refused)")
    #expect(try await history(host) == [])

    #expect(try await host.assistant(["lock"]).code == 0)
    let started = try await host.assistant(["--locale", "fr_FR", "--answer", "oui", "--answer", "oui", Self.start])
    #expect(started.code == 0, "\(started)")
    #expect(started.stderr.contains("Unlock it? oui"), "\(started)")
    #expect(started.stdout.contains("Starting your wall climb workout in Ascent."), "\(started)")
    #expect(try await history(host) == ["wall climb: active"])
  }

  /// "maybe" is asked about once more; a script with nothing more stops with 75 and says how to answer.
  @Test func anUnclearAnswerIsAskedAboutAgain() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let stopped = try await host.assistant(["--answer", "maybe", Self.start])
    #expect(stopped.code == 75, "\(stopped)")
    #expect(stopped.stderr.contains("Please answer yes or no."), "\(stopped)")
    #expect(
      stopped.stderr.contains("but there is no terminal to ask: answer it with --answer yes (or --answer no)"),
      "\(stopped)")
    #expect(try await history(host) == [])

    let started = try await host.assistant(["--answer", "maybe", "--answer", "yes", Self.start])
    #expect(started.code == 0, "\(started)")
    #expect(try await history(host) == ["wall climb: active"])
  }

  /// "Just to confirm, you wanted wall climb?" "boulder climb": the boulder climb is started.
  @Test func aWorkoutNamedAtTheConfirmationIsTheOneStarted() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    #expect(try await host.assistant(["--answer", "yes", Self.start]).code == 0)
    #expect(try await host.assistant(["End my workout with Ascent"]).code == 0)
    let other = try await host.assistant([
      "--answer", "boulder climb", "--answer", "yes", "Start a workout with Ascent",
    ])
    #expect(other.code == 0, "\(other)")
    #expect(other.stderr.contains("Just to confirm, you wanted wall climb? boulder climb"), "\(other)")
    #expect(!other.stderr.contains("What kind of workout?"), "\(other)")
    #expect(try await history(host) == ["wall climb: ended", "boulder climb: active"])
  }

  /// A workout Ascent does not know is explained, with the ones it knows (its AppIntentVocabulary), before the
  /// question; a missing one is simply asked for (the control).
  @Test func aWorkoutAskedForAgainIsExplained() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let swimming = try await host.assistant([
      "--answer", "boulder climb", "--answer", "yes", "Start a swimming workout with Ascent",
    ])
    #expect(swimming.code == 0, "\(swimming)")
    #expect(
      swimming.stderr.contains(
        "Sorry, Ascent can't use \"swimming\".\nYou can say wall climb or boulder climb (or \"cancel\" to stop).\n"
          + "What kind of workout? boulder climb"), "\(swimming)")
    #expect(try await host.assistant(["End my workout with Ascent"]).code == 0)

    let missing = try await host.assistant([
      "run", "Ascent", "StartWorkout", "--answer", "wall climb", "--answer", "yes",
    ])
    #expect(missing.code == 0, "\(missing)")
    #expect(!missing.stderr.contains("Sorry"), "\(missing)")
    #expect(!missing.stderr.contains("You can say"), "\(missing)")
  }

  /// "cancel" at the question ends the utterance: nothing is started.
  @Test func cancelAtTheQuestionEndsIt() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let cancelled = try await host.assistant(["--answer", "annuler", "Start a swimming workout with Ascent"])
    #expect(cancelled.code == 1, "\(cancelled)")
    #expect(cancelled.stdout == "OK, I won't.\n", "\(cancelled)")
    #expect(try await history(host) == [])
  }

  /// A piped shell cannot answer a yes/no: it says to run the shell on a terminal or the utterance alone with
  /// --answer yes, never Rooms' example; a single run without a terminal says --answer yes (not "on the command
  /// line").
  @Test func theAdviceForAYesNoFitsIt() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let shell = try await host.assistant(["shell"], input: Self.start + "\n")
    #expect(shell.code == 0, "\(shell)")
    #expect(
      shell.stderr.contains(
        "a session without a terminal cannot answer yes or no: run `assistant shell` on a terminal, or run the "
          + "utterance alone with `assistant --answer yes \"UTTERANCE\"`"), "\(shell)")
    #expect(!shell.stderr.contains("Book room 12"), "\(shell)")

    let single = try await host.assistant([Self.start])
    #expect(single.code == 75, "\(single)")
    #expect(single.stderr.contains("answer it with --answer yes (or --answer no), or run it on a terminal"))
    #expect(!single.stderr.contains("on the command line"), "\(single)")
    #expect(try await history(host) == [])
  }

  /// On a terminal, "cancel" at the question of `assistant shell` ends that utterance, and the session goes on to the
  /// next line ("quit"); answering instead starts the workout (the control). `script` gives the shell a terminal and
  /// types the lines (TerminalEndToEndTests).
  @Test(arguments: [
    ("cancel\nquit\n", [String]()), ("boulder climb\nyes\nquit\n", ["boulder climb: active"]),
  ])
  func cancelInAShellOnATerminalEndsTheUtteranceOnly(_ typed: String, _ workouts: [String]) async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let command =
      ([PackagePaths.executable("assistant"), "--home", host.home, "shell"]).map(TerminalEndToEndTests.quoted)
      .joined(separator: " ")
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = host.groups
    environment["SHELL"] = "/bin/sh"
    let terminal = try await runCommand(
      "/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment,
      input: "Start a swimming workout with Ascent\n" + typed)
    #expect(terminal.code == 0, "\(terminal)")
    #expect(terminal.stdout.contains("Sorry, Ascent can't use \"swimming\"."), "\(terminal)")
    #expect(terminal.stdout.contains("OK, I won't.") == workouts.isEmpty, "\(terminal)")
    #expect(try await history(host) == workouts)
  }

  /// A recorded run with an unclear answer replays clean: the re-asked question is recorded and answered again.
  @Test func aRunWithAnUnclearAnswerReplaysClean() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let record = host.directory.file("start.jsonl").path
    let recorded = try await host.assistant(["--record", record, "--answer", "maybe", "--answer", "oui", Self.start])
    #expect(recorded.code == 0, "\(recorded)")
    #expect(try await host.assistant(["End my workout with Ascent"]).code == 0)
    let replayed = try await host.assistant(["replay", record])
    #expect(replayed.code == 0, "\(replayed)")
    #expect(replayed.stdout.contains("replays clean"), "\(replayed)")
  }

  /// "avec Rooms" names the app under fr_FR; under en_US it does not (the control).
  @Test func frenchNamesTheAppWithAvec() async throws {
    let host = try await host()
    defer { host.directory.remove() }
    let english = try await host.assistant(["Réserver la salle 51 pour Ada avec Rooms"])
    #expect(english.code == 69, "\(english)")
    let french = try await host.assistant(["--locale", "fr_FR", "Réserver la salle 51 pour Ada avec Rooms"])
    #expect(french.code == 0, "\(french)")
    #expect(french.stdout.hasPrefix("La salle 51 est maintenant réservée par Ada."), "\(french)")
  }
}
