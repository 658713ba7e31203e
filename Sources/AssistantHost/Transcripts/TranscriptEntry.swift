/// One line of a transcript (`--record FILE`), by its kind. Its JSON object holds `kind` and the fields of the kind
/// (the recorder adds `t`, the seconds since the start, as it writes the line); `json` and `init(_:)` are the one
/// mapping between the two, which `Codable` goes through too.
///
/// - `invocation`: the command the run came from, `{"command": "ask", "utterance"}` or `{"command": "run", "app",
///   "intent", "values": [NAME=VALUE...]}`, with `locale` and, when on, `"voice": true`.
/// - `shortcut`: the user's shortcut the utterance ran: `identifier`, `phrase`, `app`, `intent`, `presets` (its
///   preset values, as the shortcuts document holds them) and `asks` (its "ask each time" parameters).
/// - `user`: a question (`question`) and what came of it: `answer`; `unanswered` (why); for a passcode, `passcode`
///   ("unlock" or "authentication") and `answer` ("[passcode]", "[cancelled]" or "[unavailable]": never the passcode
///   itself); for an approval, `"approval": true` and such an `answer`.
/// - `assistant`: what the assistant said (`say`), said around a question (`explain`), showed (`show`: the lines of
///   a snippet, `from`: the extension that drew it), or the intent's answer (`code`, `success`, `dialog` and, when the
///   definition has one, `voiceDialog`).
/// - `send`, `receive`: a message to or from the extension `peer`, as it went over the wire (`message`: its JSON, or
///   its text when it is not JSON).
/// - `outcome`: how the run ended: `exit` (its exit status) and, when an error ended it, `error`.
package enum TranscriptEntry: Sendable, Hashable {
  case invocation(Invocation)
  case shortcut(ShortcutRun)
  case user(UserTurn)
  case assistant(AssistantTurn)
  case send(peer: String, message: JSON)
  case receive(peer: String, message: JSON)
  case outcome(exit: Int, error: String?)

  /// What a line's `kind` may be, in the order the transcript's documentation lists them.
  package enum Kind: String, CaseIterable, Sendable {
    case invocation, shortcut, user, assistant, send, receive, outcome
  }

  /// The command a transcript's run came from.
  package struct Invocation: Sendable, Hashable {
    package enum Command: Sendable, Hashable {
      /// `assistant "UTTERANCE"` or `assistant ask UTTERANCE...`.
      case ask(utterance: String)
      /// `assistant run APP INTENT [NAME=VALUE...]`.
      case run(app: String, intent: String, values: [String])
    }

    package var command: Command
    /// `--locale`: `--record` always writes it; a transcript without it replays in the default locale.
    package var locale: String?
    /// `--voice`: `--record` writes it only when on (`true`).
    package var voice: Bool?

    package init(command: Command, locale: String?, voice: Bool?) {
      self.command = command
      self.locale = locale
      self.voice = voice
    }
  }

  /// The user's shortcut that an utterance ran.
  package struct ShortcutRun: Sendable, Hashable {
    package var identifier: String
    package var phrase: String
    /// The app's bundle identifier.
    package var app: String
    /// The intent's class.
    package var intent: String
    /// The preset values, as the shortcuts document encodes them.
    package var presets: JSON
    /// The parameters asked for each time.
    package var asks: [String]

    package init(identifier: String, phrase: String, app: String, intent: String, presets: JSON, asks: [String]) {
      self.identifier = identifier
      self.phrase = phrase
      self.app = app
      self.intent = intent
      self.presets = presets
      self.asks = asks
    }
  }

  /// A question to the user, and what came of it.
  package struct UserTurn: Sendable, Hashable {
    package enum Reply: Sendable, Hashable {
      /// The user's answer (typed, or scripted with `--answer`).
      case answer(String)
      /// The question went unanswered: why ("interrupted", a host error's message).
      case unanswered(String)
      /// A passcode asked for `purpose`: what came of it, never the passcode.
      case passcode(PasscodePurpose, Passcode)
      /// An approval of an extension's transaction: what came of it.
      case approval(Passcode)
    }

    /// A passcode's answer as recorded.
    package enum Passcode: String, Sendable, Hashable {
      case entered = "[passcode]"
      case cancelled = "[cancelled]"
      case unavailable = "[unavailable]"
    }

    package var question: String
    package var reply: Reply

    package init(question: String, reply: Reply) {
      self.question = question
      self.reply = reply
    }
  }

  /// What the assistant said or showed.
  package enum AssistantTurn: Sendable, Hashable {
    /// A dialog line.
    case say(String)
    /// A line that belongs to a question (the choices of a disambiguation).
    case explain(String)
    /// A snippet an Intents UI extension drew: its lines, and the extension's name.
    case show(lines: [String], from: String)
    /// The intent's answer: its response code, whether it is a success, its printed dialog and its voice dialog.
    case answer(code: String, success: Bool, dialog: String, voiceDialog: String?)
  }

  package var kind: Kind {
    switch self {
    case .invocation: .invocation
    case .shortcut: .shortcut
    case .user: .user
    case .assistant: .assistant
    case .send: .send
    case .receive: .receive
    case .outcome: .outcome
    }
  }

  /// The entry's JSON object: `kind` and its fields.
  package var json: JSON {
    var fields: [String: JSON] = ["kind": .string(kind.rawValue)]
    switch self {
    case .invocation(let invocation):
      switch invocation.command {
      case .ask(let utterance):
        fields["command"] = .string("ask")
        fields["utterance"] = .string(utterance)
      case .run(let app, let intent, let values):
        fields["command"] = .string("run")
        fields["app"] = .string(app)
        fields["intent"] = .string(intent)
        fields["values"] = .array(values.map(JSON.string))
      }
      if let locale = invocation.locale { fields["locale"] = .string(locale) }
      if let voice = invocation.voice { fields["voice"] = .bool(voice) }
    case .shortcut(let shortcut):
      fields["identifier"] = .string(shortcut.identifier)
      fields["phrase"] = .string(shortcut.phrase)
      fields["app"] = .string(shortcut.app)
      fields["intent"] = .string(shortcut.intent)
      fields["presets"] = shortcut.presets
      fields["asks"] = .array(shortcut.asks.map(JSON.string))
    case .user(let turn):
      fields["question"] = .string(turn.question)
      switch turn.reply {
      case .answer(let answer): fields["answer"] = .string(answer)
      case .unanswered(let why): fields["unanswered"] = .string(why)
      case .passcode(let purpose, let answer):
        fields["passcode"] = .string(purpose == .unlock ? "unlock" : "authentication")
        fields["answer"] = .string(answer.rawValue)
      case .approval(let answer):
        fields["approval"] = .bool(true)
        fields["answer"] = .string(answer.rawValue)
      }
    case .assistant(let turn):
      switch turn {
      case .say(let text): fields["say"] = .string(text)
      case .explain(let text): fields["explain"] = .string(text)
      case .show(let lines, let from):
        fields["show"] = .array(lines.map(JSON.string))
        fields["from"] = .string(from)
      case .answer(let code, let success, let dialog, let voiceDialog):
        fields["code"] = .string(code)
        fields["success"] = .bool(success)
        fields["dialog"] = .string(dialog)
        if let voiceDialog { fields["voiceDialog"] = .string(voiceDialog) }
      }
    case .send(let peer, let message), .receive(let peer, let message):
      fields["peer"] = .string(peer)
      fields["message"] = message
    case .outcome(let exit, let error):
      fields["exit"] = JSON(exit)
      if let error { fields["error"] = .string(error) }
    }
    return .object(fields)
  }

  /// A field of a line that is not what `--record` writes.
  package struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
    package var kind: Kind
    package var field: String
    /// What it should be: "a string", "true or false", "\"ask\" or \"run\"".
    package var expected: String
    /// Whether the field is missing, rather than of another type.
    package var missing = false

    /// `the invocation's "app" should be a string`, `, and is missing` added when it is.
    package var description: String {
      "the \(kind.rawValue)'s \"\(field)\" should be \(expected)" + (missing ? ", and is missing" : "")
    }
  }

  /// The entry a line's JSON object holds: `kind` and the fields `--record` writes for it, each of its type (other
  /// fields are ignored; `t` is the recorder's).
  /// - Throws: `Problem` naming the first field that is missing or not of its type.
  package init(_ json: JSON) throws(Problem) {
    guard case .object(let object) = json, case .string(let name)? = object["kind"], let kind = Kind(rawValue: name)
    else {
      throw Problem(
        kind: .invocation, field: "kind", expected: Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
    }
    let fields = Fields(kind: kind, object: object)
    switch kind {
    case .invocation:
      let command: Invocation.Command
      switch object["command"] {
      case .string("ask")?: command = .ask(utterance: try fields.string("utterance"))
      case .string("run")?:
        command = .run(
          app: try fields.string("app"), intent: try fields.string("intent"),
          values: try fields.strings("values", expected: "an array of strings (NAME=VALUE)"))
      default: throw Problem(kind: kind, field: "command", expected: "\"ask\" or \"run\"")
      }
      let locale = object["locale"] == nil ? nil : try fields.string("locale")
      let voice = object["voice"] == nil ? nil : try fields.bool("voice")
      self = .invocation(Invocation(command: command, locale: locale, voice: voice))
    case .shortcut:
      guard let presets = object["presets"], case .object = presets else {
        throw Problem(kind: kind, field: "presets", expected: "an object", missing: object["presets"] == nil)
      }
      self = .shortcut(
        ShortcutRun(
          identifier: try fields.string("identifier"), phrase: try fields.string("phrase"),
          app: try fields.string("app"), intent: try fields.string("intent"), presets: presets,
          asks: try fields.strings("asks", expected: "an array of strings")))
    case .user:
      let question = try fields.string("question")
      let reply: UserTurn.Reply
      if object["unanswered"] != nil {
        reply = .unanswered(try fields.string("unanswered"))
      } else if object["passcode"] != nil {
        let purpose: PasscodePurpose
        switch object["passcode"] {
        case .string("unlock")?: purpose = .unlock
        case .string("authentication")?: purpose = .authentication
        default: throw Problem(kind: kind, field: "passcode", expected: "\"unlock\" or \"authentication\"")
        }
        reply = .passcode(purpose, try fields.passcode())
      } else if object["approval"] != nil {
        _ = try fields.bool("approval")
        reply = .approval(try fields.passcode())
      } else {
        reply = .answer(try fields.string("answer"))
      }
      self = .user(UserTurn(question: question, reply: reply))
    case .assistant:
      if object["say"] != nil {
        self = .assistant(.say(try fields.string("say")))
      } else if object["explain"] != nil {
        self = .assistant(.explain(try fields.string("explain")))
      } else if object["show"] != nil {
        self = .assistant(
          .show(lines: try fields.strings("show", expected: "an array of strings"), from: try fields.string("from")))
      } else if object["code"] != nil {
        self = .assistant(
          .answer(
            code: try fields.string("code"), success: try fields.bool("success"), dialog: try fields.string("dialog"),
            voiceDialog: object["voiceDialog"] == nil ? nil : try fields.string("voiceDialog")))
      } else {
        // None of its shapes: named by the first.
        throw Problem(kind: kind, field: "say", expected: "a string", missing: true)
      }
    case .send, .receive:
      guard let message = object["message"] else {
        throw Problem(kind: kind, field: "message", expected: "the message", missing: true)
      }
      let peer = try fields.string("peer")
      self = kind == .send ? .send(peer: peer, message: message) : .receive(peer: peer, message: message)
    case .outcome:
      guard case .number(let number)? = object["exit"], let exit = number.integer else {
        throw Problem(kind: kind, field: "exit", expected: "a whole number", missing: object["exit"] == nil)
      }
      self = .outcome(exit: exit, error: object["error"] == nil ? nil : try fields.string("error"))
    }
  }

  /// The fields of one line, read with the problem each can have.
  private struct Fields {
    var kind: Kind
    var object: [String: JSON]

    func string(_ field: String) throws(Problem) -> String {
      guard case .string(let value)? = object[field] else {
        throw Problem(kind: kind, field: field, expected: "a string", missing: object[field] == nil)
      }
      return value
    }

    func bool(_ field: String) throws(Problem) -> Bool {
      guard case .bool(let value)? = object[field] else {
        throw Problem(kind: kind, field: field, expected: "true or false")
      }
      return value
    }

    func strings(_ field: String, expected: String) throws(Problem) -> [String] {
      guard case .array(let items)? = object[field] else { throw Problem(kind: kind, field: field, expected: expected) }
      var strings: [String] = []
      for item in items {
        guard case .string(let string) = item else { throw Problem(kind: kind, field: field, expected: expected) }
        strings.append(string)
      }
      return strings
    }

    func passcode() throws(Problem) -> UserTurn.Passcode {
      guard case .string(let text)? = object["answer"], let answer = UserTurn.Passcode(rawValue: text) else {
        throw Problem(
          kind: kind, field: "answer", expected: "\"[passcode]\", \"[cancelled]\" or \"[unavailable]\"",
          missing: object["answer"] == nil)
      }
      return answer
    }
  }
}

extension TranscriptEntry: Codable {
  package init(from decoder: any Decoder) throws {
    try self.init(JSON(from: decoder))
  }

  package func encode(to encoder: any Encoder) throws {
    try json.encode(to: encoder)
  }
}
