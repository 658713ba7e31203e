import Foundation
import TestSupport
import Testing

/// The confirmation step (`INIntentUserConfirmationRequired`, confirm answered `ready`) with the real host, the
/// fixture Intents extension (Polite) and the fixture Intents UI extension UIRecorder, which writes each
/// `ui/configureView` it gets (the interaction's handlingStatus and the parameter set) to its log and draws the same
/// line. Two witnesses of the order: the transcript of `--record` (one list, appended as things happen: a message
/// when it is sent, a question when it is answered) and UIRecorder's own log.
///
/// What makes these fail: the UI not asked at the confirmation step (no `ready` drawing), asked after the question
/// instead of before it (the `ready` drawing after "ask"), an interaction drawn without its header (the first
/// configureView of a drawing with a parameter), or handle reached after a "no". Each was checked by breaking
/// IntentDriver.converse / presentCustomUI locally. Moving the drawing after the question leaves stdout as it was
/// (the question is on stderr, a stream of its own): only the transcript's order catches it.
@Suite(.serialized, .tags(.endToEnd))
struct ConfirmationStepEndToEndTests {
  /// Installs Fixture with the confirmation step (or without) and UIRecorder, and runs Ping with `value` and `note`
  /// recorded into a transcript.
  func run(confirmationStep: Bool = true, _ arguments: [String]) async throws -> (
    CommandResult, transcript: [[String: Any]], HostFixture
  ) {
    let host = try HostFixture()
    let app = try TestBundles.fixture(
      extensionName: "Polite", uiExtensionName: "UIRecorder", userConfirmationRequired: confirmationStep,
      in: host.directory.file("b"))
    let installed = try await host.assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    let file = host.directory.file("run.jsonl").path
    let result = try await host.assistant(
      arguments + ["--record", file, "run", "Fixture", "Ping", "value=x", "note=y"])
    let text = try await offThePool { try String(contentsOfFile: file, encoding: .utf8) }
    let entries = text.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    return (result, entries, host)
  }

  /// The transcript as the steps that matter, in its order: confirm and handle sent to the Intents extension, each
  /// configureView sent to the UI extension ("draw STATUS [PARAMETERS]"), each question with its answer, and each
  /// dialog line said.
  func steps(_ transcript: [[String: Any]]) -> [String] {
    transcript.compactMap { entry -> String? in
      switch entry["kind"] as? String {
      case "send":
        let message = entry["message"] as? [String: Any] ?? [:]
        let params = message["params"] as? [String: Any] ?? [:]
        switch message["method"] as? String {
        case "ui/configureView":
          let status = (params["interaction"] as? [String: Any])?["handlingStatus"] as? String ?? "-"
          let parameters = params["parameters"] as? [String] ?? ["?"]
          return "draw \(status) [\(parameters.joined(separator: ", "))]"
        case let method? where method == "intent/confirm" || method == "intent/handle":
          return method
        default:
          return nil
        }
      case "user":
        return "ask \(entry["question"] as? String ?? "?") \(entry["answer"] as? String ?? "-")"
      case "assistant":
        return (entry["say"] as? String).map { "say \($0)" }
      default:
        return nil
      }
    }
  }

  /// The configureView calls UIRecorder says it got, in its log ("| configureView ready [value]").
  func drawn(_ host: HostFixture) async throws -> [String] {
    let path = host.home + "/Logs/com.example.fixture.UIRecorder.log"
    let log = try await offThePool { try String(contentsOfFile: path, encoding: .utf8) }
    return log.split(separator: "\n").compactMap {
      $0.hasPrefix("| configureView ") ? String($0.dropFirst("| configureView ".count)) : nil
    }
  }

  /// Yes: the UI draws the `ready` interaction, header first, before the question; then handle; then the answer,
  /// header first again.
  @Test func theUIDrawsTheConfirmationStepBeforeTheQuestionAndTheAnswerAfterHandling() async throws {
    let (result, transcript, host) = try await run(["--answer", "yes"])
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stderr == "Do you want to ping? yes\n", "\(result)")
    #expect(
      result.stdout
        == "[UIRecorder]\n  ready []\n[UIRecorder]\n  ready [value]\n[UIRecorder]\n  ready [note]\n"
        + "Got pong.\n"
        + "[UIRecorder]\n  success []\n[UIRecorder]\n  success [value]\n[UIRecorder]\n  success [note]\n",
      "\(result)")
    #expect(
      steps(transcript) == [
        "intent/confirm",
        "draw ready []", "draw ready [value]", "draw ready [note]",
        "ask Do you want to ping? yes",
        "intent/handle",
        "say Got pong.",
        "draw success []", "draw success [value]", "draw success [note]",
      ], "\(steps(transcript))")
    // The transcript's times never go back: its order is the order things happened.
    let times = transcript.compactMap { $0["t"] as? Double }
    #expect(times.count == transcript.count && times == times.sorted(), "\(times)")
    // What UIRecorder itself received, in its order: each drawing begins with the header.
    #expect(
      try await drawn(host) == [
        "ready []", "ready [value]", "ready [note]", "success []", "success [value]", "success [note]",
      ])
  }

  /// No: the `ready` interaction was drawn, then "OK, I won't."; handle is never sent and nothing else is drawn.
  @Test func declinedTheConfirmationStepIsTheOnlyDrawing() async throws {
    let (result, transcript, host) = try await run(["--answer", "no"])
    defer { host.directory.remove() }
    #expect(result.code == 1, "\(result)")
    #expect(result.stderr == "Do you want to ping? no\n", "\(result)")
    #expect(
      result.stdout
        == "[UIRecorder]\n  ready []\n[UIRecorder]\n  ready [value]\n[UIRecorder]\n  ready [note]\nOK, I won't.\n",
      "\(result)")
    #expect(
      steps(transcript) == [
        "intent/confirm", "draw ready []", "draw ready [value]", "draw ready [note]", "ask Do you want to ping? no",
        "say OK, I won't.",
      ], "\(steps(transcript))")
    #expect(transcript.last?["exit"] as? Int == 1, "\(transcript.last ?? [:])")
    #expect(try await drawn(host) == ["ready []", "ready [value]", "ready [note]"])
  }

  /// Control: without `INIntentUserConfirmationRequired` nothing is asked, and the UI draws the answer only, header
  /// first.
  @Test func withoutTheConfirmationStepOnlyTheAnswerIsDrawn() async throws {
    let (result, transcript, host) = try await run(confirmationStep: false, [])
    defer { host.directory.remove() }
    #expect(result.code == 0, "\(result)")
    #expect(result.stderr == "", "\(result)")
    #expect(
      steps(transcript) == [
        "intent/confirm", "intent/handle", "say Got pong.", "draw success []", "draw success [value]",
        "draw success [note]",
      ], "\(steps(transcript))")
    #expect(try await drawn(host) == ["success []", "success [value]", "success [note]"])
  }
}
