/// What happened in one run, in order: as a person at the terminal would have read it (`lines`), and as
/// `assistant --record` records it (`recorded`: JSON lines with every message to and from each extension, never a
/// passcode), which `assistant replay FILE` replays.
///
/// A failing expectation of `SiriResult` attaches both (`SiriResult.expect`); with XCTest, pass it as the message:
///
/// ```swift
/// XCTAssertEqual(result.dialog, ["Room 12 is now booked by Ada."], "\(result.transcript)")
/// ```
public struct SiriTranscript: Sendable, CustomStringConvertible {
  /// The run as read at a terminal: `> UTTERANCE`, each question with its answer (`Who is the booking for? Ada`; a
  /// passcode shown as `****`), the dialog, each snippet under `[EXTENSION]`, the error that ended the run as
  /// `assistant: MESSAGE`, and `exit STATUS` last.
  public var lines: [String]
  /// The run in `assistant --record`'s format, one JSON document a line.
  public var recorded: [String]

  /// A transcript of these lines (a test host makes them; tests of your own reporting may too).
  public init(lines: [String], recorded: [String]) {
    self.lines = lines
    self.recorded = recorded
  }

  /// `lines`, one a line.
  public var description: String { lines.joined(separator: "\n") }

  /// `recorded`, one a line, as a file for `assistant replay`.
  public var recordedText: String { recorded.map { $0 + "\n" }.joined() }
}
