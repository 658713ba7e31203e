import ExtensionProtocol
import Foundation
import Testing

@testable import AssistantHost

/// Transcript lines as typed values (`TranscriptEntry`): every kind, in each of its shapes, goes to its line and back
/// unchanged, through the transcript's own text and through Codable; the line's text is the one Foundation's
/// JSONSerialization wrote for the same fields before the entries were typed (the control: the old encoding, done
/// here); and a field that is not what `--record` writes is named.
@Suite struct TranscriptEntryTests {
  /// A message as an extension sends it, with what JSONSerialization and JSONEncoder order and write differently:
  /// mixed-case and numbered keys, an integer beyond `Int`, an integral `Double`, an escape.
  static let message =
    #"{"jsonrpc":"2.0","id":7,"result":{"B":1,"a":2,"a10":3,"a9":4,"big":12345678901234567890,"#
    + #""e":1e20,"half":0.5,"text":"a/b\u001f\"\u00e9"}}"#

  static let entries: [TranscriptEntry] = [
    .invocation(.init(command: .ask(utterance: "Book room 12 for Ada with Rooms"), locale: "en_US", voice: nil)),
    .invocation(
      .init(command: .run(app: "Rooms", intent: "BookRoom", values: ["roomNumber=12"]), locale: "fr_FR", voice: true)),
    .invocation(.init(command: .ask(utterance: "hand-written"), locale: nil, voice: false)),
    .shortcut(
      .init(
        identifier: "k1", phrase: "Get me a room", app: "com.example.rooms", intent: "BookRoomIntent",
        presets: .object(["roomNumber": .object(["type": .string("integer"), "value": JSON(12)])]),
        asks: ["bookedBy"])),
    .user(.init(question: "Who is the booking for?", reply: .answer("Ada"))),
    .user(.init(question: "Who is the booking for?", reply: .unanswered("interrupted"))),
    .user(.init(question: "Passcode:", reply: .passcode(.unlock, .entered))),
    .user(.init(question: "Passcode:", reply: .passcode(.authentication, .cancelled))),
    .user(.init(question: "Approve?", reply: .approval(.unavailable))),
    .assistant(.say("Room 12 is now booked by Ada.")),
    .assistant(.explain("  1. BookRoomIntent of Rooms (com.example.rooms)")),
    .assistant(.show(lines: ["Room 12", "Ada"], from: "RoomsUI")),
    .assistant(.answer(code: "success", success: true, dialog: "Booked.", voiceDialog: "Done.")),
    .assistant(.answer(code: "failure", success: false, dialog: "No.", voiceDialog: nil)),
    .send(peer: "RoomsIntents", message: try! JSON(parsing: Data(message.utf8))),
    .receive(peer: "RoomsIntents", message: .string("not JSON")),
    .outcome(exit: 0, error: nil),
    .outcome(exit: 130, error: "interrupted"),
  ]

  /// The line of every entry parses back to the entry, with its kind; so does its Codable encoding.
  @Test(arguments: entries)
  func everyEntryGoesToItsLineAndBack(_ entry: TranscriptEntry) throws {
    let line = Transcript.line(entry, time: 1.25)
    let lines = try Transcript.parse(line + "\n", file: "t.jsonl")
    #expect(lines.count == 1 && lines[0].kind == entry.kind)
    #expect(try lines[0].entry(file: "t.jsonl") == entry, "\(line)")
    #expect(lines[0].json["t"] == .number(JSONNumber(1.25)!))
    let coded = try JSONDecoder().decode(TranscriptEntry.self, from: JSONEncoder().encode(entry))
    if case .send = entry {
      // Through Codable a number is an Int or a Double: 12345678901234567890 is not kept whole (the line is).
      #expect(coded.kind == .send)
    } else {
      #expect(coded == entry)
    }
  }

  /// The line's text is exactly what the recorder wrote when it held `[String: Any]` and JSONSerialization encoded
  /// it: the same keys, in JSONSerialization's order, the same numbers and escapes.
  @Test func theLinesAreThoseJSONSerializationWrote() throws {
    let message = try JSONSerialization.jsonObject(with: Data(Self.message.utf8))
    let fields: [(TranscriptEntry, [String: Any])] = [
      (Self.entries[0], ["command": "ask", "utterance": "Book room 12 for Ada with Rooms", "locale": "en_US"]),
      (
        Self.entries[1],
        [
          "command": "run", "app": "Rooms", "intent": "BookRoom", "values": ["roomNumber=12"], "locale": "fr_FR",
          "voice": true,
        ]
      ),
      (Self.entries[6], ["question": "Passcode:", "passcode": "unlock", "answer": "[passcode]"]),
      (Self.entries[8], ["question": "Approve?", "approval": true, "answer": "[unavailable]"]),
      (Self.entries[11], ["show": ["Room 12", "Ada"], "from": "RoomsUI"]),
      (
        Self.entries[12],
        ["code": "success", "success": true, "dialog": "Booked.", "voiceDialog": "Done."]
      ),
      (Self.entries[14], ["peer": "RoomsIntents", "message": message]),
      (Self.entries[17], ["exit": 130, "error": "interrupted"]),
      // A negative zero, which JSONSerialization writes as "-0" (and reads back as 0).
      (.receive(peer: "P", message: .array([.number(JSONNumber(-0.0)!)])), ["peer": "P", "message": [-0.0]]),
    ]
    for (entry, fields) in fields {
      for time in [0.0, 0.012, 1.5, 73.125] {
        var object = fields
        object["kind"] = entry.kind.rawValue
        object["t"] = time
        let old = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(Transcript.line(entry, time: time) == String(decoding: old, as: UTF8.self))
      }
    }
    // The control: JSONEncoder's order and numbers differ, so the check can fail.
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let reordered = String(decoding: try encoder.encode(Self.entries[14]), as: UTF8.self)
    #expect(reordered != Transcript.line(Self.entries[14], time: 0).replacingOccurrences(of: #","t":0"#, with: ""))
  }

  /// A field that is not what `--record` writes is named, with what it should be.
  @Test(arguments: [
    (#"{"kind":"invocation","command":"ask"}"#, #"the invocation's "utterance" should be a string, and is missing"#),
    (#"{"kind":"invocation","command":"book"}"#, #"the invocation's "command" should be "ask" or "run""#),
    (
      #"{"kind":"invocation","command":"run","app":"A","intent":"I","values":[1]}"#,
      #"the invocation's "values" should be an array of strings (NAME=VALUE)"#
    ),
    (
      #"{"kind":"invocation","command":"ask","utterance":"u","voice":1}"#,
      #"the invocation's "voice" should be true or false"#
    ),
    (#"{"kind":"user","question":"Who?","answer":5}"#, #"the user's "answer" should be a string"#),
    (#"{"kind":"user","answer":"Ada"}"#, #"the user's "question" should be a string, and is missing"#),
    (#"{"kind":"outcome","exit":"0"}"#, #"the outcome's "exit" should be a whole number"#),
    (#"{"kind":"send","peer":"P"}"#, #"the send's "message" should be the message, and is missing"#),
  ])
  func aFieldThatIsNotWhatRecordWritesIsNamed(_ line: String, _ problem: String) throws {
    let error = #expect(throws: TranscriptEntry.Problem.self) { try TranscriptEntry(JSON(parsing: Data(line.utf8))) }
    #expect(error?.description == problem)
  }

  /// The scripted answers of a transcript are its users' answers, in order; passcodes, approvals and unanswered
  /// questions give none.
  @Test func theAnswersAreTheUsersAnswers() {
    #expect(Transcript.answers(Self.entries) == ["Ada"])
  }
}

/// `IntentOutcome.json()`, what `--json` prints for an intent, is the text JSONSerialization wrote for the same
/// object before the outcome was typed (the control: the old encoding, done here), keys in its order.
@Suite struct IntentOutcomeJSONTests {
  @Test func theOutcomeIsWhatJSONSerializationWrote() throws {
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    var outcome = IntentOutcome(
      app: "Rooms", intent: "BookRoomIntent",
      parameters: [
        "roomNumber": .integer(12), "bookedBy": .string("Ada/Grace"), "room10": .decimal(1.5), "room9": .decimal(3),
        "Zone": .enumCase("north"), "at": .date(date), "isCancellationOfBooking": .boolean(false),
        "guest": .object(ObjectValue(identifier: "g1", displayString: "Grace")),
        "list": .array([.integer(1), .decimal(-0.0)]),
      ],
      code: "success", isSuccess: true, dialog: "Room 12 is now booked by Ada.")
    outcome.responseParameters = ["reason": .string("tooLong"), "Reason": .integer(2)]
    outcome.views = [ConfiguredView(success: true, parameters: ["roomNumber"], size: .zero, snippet: .text("Room 12"))]
    let views = try JSONSerialization.jsonObject(with: JSONEncoder().encode(outcome.views))
    let object: [String: Any] = [
      "app": "Rooms", "intent": "BookRoomIntent", "code": "success", "success": true,
      "dialog": "Room 12 is now booked by Ada.", "voiceDialog": "Room 12 is now booked by Ada.",
      "parameters": [
        "roomNumber": 12, "bookedBy": "Ada/Grace", "room10": 1.5, "room9": 3.0, "Zone": "north",
        "at": ParameterValue.formatDate(date), "isCancellationOfBooking": false,
        "guest": ["identifier": "g1", "displayString": "Grace"], "list": [1, -0.0],
      ] as [String: Any],
      "responseParameters": ["reason": "tooLong", "Reason": 2] as [String: Any],
      "views": views,
    ]
    let old = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    #expect(outcome.json() == String(decoding: old, as: UTF8.self))
    #expect(outcome.json().contains(#""room9":3,"room10":1.5,"roomNumber":12"#), "\(outcome.json())")
  }
}
