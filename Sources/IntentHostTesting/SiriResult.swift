import AssistantHost
import ExtensionProtocol

/// What one run came to (`TestHost.say`, `TestHost.run`, `SiriConversation.result()`): the app and intent that ran,
/// the values it ran with, what the assistant said and asked, the views the app's Intents UI extension drew, the
/// response code, the exit status of the command line, and the transcript.
///
/// ```swift
/// let result = try await host.say("Book room 14 with Rooms", answers: ["Ada"])
/// #expect(result.intent == "BookRoomIntent")
/// #expect(result.parameters["bookedBy"] == .string("Ada"))
/// #expect(result.questions == ["Who is the booking for?"])
/// #expect(result.dialog == ["Room 14 is now booked by Ada."])
/// #expect(result.views.first?.lines == ["Room 14", "Status: Booked by Ada"])
/// #expect(result.status == .success)
/// ```
public struct SiriResult: Sendable {
  /// The app whose intent ran (its name, e.g. `Rooms`); nil when none ran (no match, a capability question, an
  /// error before an intent was chosen, "cancel" to "which one?").
  public var app: String?
  /// The intent that ran: a SiriKit intent's class (`BookRoomIntent`) or an App Intent's identifier
  /// (`OrderFuelIntent`); nil when none ran.
  public var intent: String?
  /// The values the intent ran with, as resolved (the app's resolution included), by parameter name.
  public var parameters: [String: ParameterValue]
  /// The response's own parameters (what the app answered with), by name.
  public var responseParameters: [String: ParameterValue]
  /// What the assistant said, one dialog line each, in order (the intent's answer last); no question, no snippet.
  public var dialog: [String]
  /// The voice dialog of the answer (the response's concise template, where the definition has one).
  public var voiceDialog: String?
  /// Every question the assistant asked, in order: prompts of values, confirmations, "Which one?", the passcode.
  public var questions: [String]
  /// Lines the assistant said with a question rather than as dialog (a disambiguation's choices, why an answer was
  /// not taken), in order.
  public var explanations: [String]
  /// The views Intents UI extensions drew (snippets under the dialog), in order.
  public var views: [Snippet]
  /// The response code the intent ended with (`success`, `failure`, `failureRequiringAppLaunch`, a custom code);
  /// nil when no intent ran.
  public var responseCode: String?
  /// The phrases a capability question ("What can you do?") answered with, one `APP: PHRASE` each; empty otherwise.
  public var phrases: [String]
  /// The command line's exit status for this run: `success`, `failureResponse` for a failure response, or the status
  /// of the error that ended it (`refused`, `noMatch`, `valueNeeded`, `extensionFault`...).
  public var status: Status
  /// The error that ended the run, as `assistant` prints it (without `assistant: `); nil when it ended with an
  /// answer.
  public var errorMessage: String?
  /// What happened, in order: to read, to attach to a failing test, or to replay.
  public var transcript: SiriTranscript

  /// Whether the intent ran and answered with a success code (`status == .success` and an intent ran).
  public var isSuccess: Bool { status == .success && responseCode != nil }

  /// A view an Intents UI extension drew: its lines, under the extension's name.
  public struct Snippet: Sendable, Hashable {
    /// The UI extension that drew it, e.g. `RoomsUI`.
    public var extensionName: String
    /// Its lines, as `assistant` prints them under `[RoomsUI]`.
    public var lines: [String]

    /// A snippet, to compare with `views`: `Snippet(extensionName: "RoomsUI", lines: ["Room 12"])`.
    public init(extensionName: String, lines: [String]) {
      self.extensionName = extensionName
      self.lines = lines
    }
  }

  /// The exit status of the command line (README, "Exit status"), as a value: compare with the named statuses.
  public struct Status: Sendable, Hashable, CustomStringConvertible {
    /// The number, e.g. 77.
    public var rawValue: Int32
    /// The name, e.g. `refused`.
    public var name: String

    init(_ status: ExitStatus) {
      rawValue = status.rawValue
      name = "\(status)"
    }

    /// `NUMBER (NAME)`, e.g. `77 (refused)`.
    public var description: String { "\(rawValue) (\(name))" }

    /// 0: the intent was handled with a success response (or a capability question was answered).
    public static let success = Status(.success)
    /// 1: the intent was handled with a failure response (or the user cancelled).
    public static let failureResponse = Status(.failureResponse)
    /// 64: the request is wrong (an unknown parameter, a scripted answer nobody asked for).
    public static let usage = Status(.usage)
    /// 65: a manifest or data file is invalid.
    public static let dataError = Status(.dataError)
    /// 66: a path given does not exist.
    public static let noInput = Status(.noInput)
    /// 69: no installed app or intent matches.
    public static let noMatch = Status(.noMatch)
    /// 70: the extension crashed, exited, timed out or broke the protocol.
    public static let extensionFault = Status(.extensionFault)
    /// 73: a folder of the home cannot be made.
    public static let cannotCreate = Status(.cannotCreate)
    /// 74: the host's own input or output failed.
    public static let ioError = Status(.ioError)
    /// 75: a value was needed and the test gave none.
    public static let valueNeeded = Status(.valueNeeded)
    /// 77: refused: a locked device, authentication, an entitlement or the sandbox.
    public static let refused = Status(.refused)
  }
}
