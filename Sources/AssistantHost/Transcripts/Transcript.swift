import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import Synchronization

/// A transcript of a run (`--record FILE`): JSON lines, one object each, with `kind` (invocation, shortcut, user,
/// assistant, send, receive, outcome: `TranscriptEntry` has the fields of each), `t` (seconds since the start) and,
/// for messages, `peer` (the extension's name).
/// A `shortcut` line says which of the user's shortcuts the utterance ran (its identifier, phrase, app, intent,
/// presets and asked parameters), so that a replay against a home whose shortcut changed or went shows the difference.
///
/// Entries are kept in memory (short steps under a lock, which never block for long, so the connections' threads may
/// call it) and written at the end (`write(to:)`), a regular file atomically: it is either a whole transcript or absent.
/// Passcodes are never recorded: an answer to a passcode or approval question is "[passcode]".
///
/// The lines are in the order of their times: an entry's time is read in the same step as its place is taken, so
/// the reader threads of two extensions and the conversation, recording at once, never leave a line earlier than
/// the one before it.
package final class TranscriptRecorder: Sendable {
  private let start = ContinuousClock.now
  /// The lines, in order; nil for a place taken whose line is still being encoded.
  private let entries = Mutex<[String?]>([])

  package init() {}

  /// Appends an entry, with `t` (the seconds since the start, to the millisecond).
  package func record(_ entry: TranscriptEntry) {
    // The place and the time in one step; the encoding (a message may be large) outside the lock.
    let (index, elapsed) = entries.withLock { entries in
      entries.append(nil)
      return (entries.count - 1, ContinuousClock.now - start)
    }
    let line = Transcript.line(entry, time: (elapsed.inSeconds * 1000).rounded() / 1000)
    entries.withLock { $0[index] = line }
  }

  /// A tap for the connection to `peer` (`Connection.Options.tap`): each message as its JSON, or as its text when it
  /// is not JSON.
  package func tap(peer: String) -> @Sendable (Connection.TapDirection, [UInt8]) -> Void {
    { [self] direction, bytes in
      let message = (try? JSON(parsing: Data(bytes))) ?? .string(String(decoding: bytes, as: UTF8.self))
      record(direction == .sent ? .send(peer: peer, message: message) : .receive(peer: peer, message: message))
    }
  }

  /// The transcript so far, one JSON object a line (a line still being recorded is left out).
  package var lines: [String] { entries.withLock { $0.compactMap { $0 } } }

  /// Writes the transcript to `path` (`TranscriptFile.write`: a regular file replaced atomically, a device or a FIFO
  /// written into), off the cooperative pool.
  /// - Parameter action: what the message says could not be done, e.g. "record to" or "update".
  /// - Throws: `HostError` (73 or 74) naming the path and why.
  package func write(to path: String, action: String = "record to") async throws {
    let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
    try await offloaded { () throws in try TranscriptFile.write(bytes, to: path, action: action) }
  }
}

/// A conversation that records each turn into a transcript and passes it on to the conversation it wraps.
package struct RecordingConversation: Conversation {
  package let inner: any Conversation
  package let recorder: TranscriptRecorder

  package init(_ inner: any Conversation, recorder: TranscriptRecorder) {
    self.inner = inner
    self.recorder = recorder
  }

  /// Why a question went unanswered, as the transcript says it: an interrupt is "interrupted", a host error its
  /// message.
  static func why(_ error: any Error) -> String {
    switch error {
    case is CancellationError: "interrupted"
    case let error as HostError: error.message
    default: "\(error)"
    }
  }

  package func say(_ text: String) async {
    recorder.record(.assistant(.say(text)))
    await inner.say(text)
  }

  package func explain(_ text: String) async {
    recorder.record(.assistant(.explain(text)))
    await inner.explain(text)
  }

  package func show(_ view: ConfiguredView, from extensionName: String) async {
    recorder.record(.assistant(.show(lines: view.snippet?.lines ?? [], from: extensionName)))
    await inner.show(view, from: extensionName)
  }

  package func ask(_ prompt: String, need: String) async throws -> String {
    try await ask(prompt, need: need, kind: .value)
  }

  package func ask(_ prompt: String, need: String, kind: AnswerKind) async throws -> String {
    do {
      let answer = try await inner.ask(prompt, need: need, kind: kind)
      recorder.record(.user(.init(question: prompt, reply: .answer(answer))))
      return answer
    } catch {
      recorder.record(.user(.init(question: prompt, reply: .unanswered(Self.why(error)))))
      throw error
    }
  }

  package func askPasscode(_ prompt: String, for purpose: PasscodePurpose) async throws -> PasscodeAnswer {
    let answer = try await inner.askPasscode(prompt, for: purpose)
    recorder.record(.user(.init(question: prompt, reply: .passcode(purpose, shown(answer)))))
    return answer
  }

  package func askApproval(_ prompt: String) async throws -> PasscodeAnswer {
    let answer = try await inner.askApproval(prompt)
    recorder.record(.user(.init(question: prompt, reply: .approval(shown(answer)))))
    return answer
  }

  package func progress(_ text: String?) async { await inner.progress(text) }

  /// A passcode answer as recorded: never the passcode itself.
  private func shown(_ answer: PasscodeAnswer) -> TranscriptEntry.UserTurn.Passcode {
    switch answer {
    case .entered: .entered
    case .cancelled: .cancelled
    case .unavailable: .unavailable
    }
  }
}

/// Writing, reading, normalising and comparing transcripts (`assistant replay`).
package enum Transcript {
  /// The line of `entry` recorded `time` seconds after the start: its JSON object with `t`, keys sorted as
  /// JSONSerialization sorts them (`JSON.text`).
  package static func line(_ entry: TranscriptEntry, time: Double) -> String {
    guard case .object(var fields) = entry.json else { return entry.json.text }
    fields["t"] = JSONNumber(time).map(JSON.number) ?? JSON(0)
    return JSON.object(fields).text
  }

  /// The most lines a transcript may have.
  package static let maximumLines = 10_000

  /// One line of a transcript file: where it is, its kind, and its JSON object, which `entry(file:)` decodes. Replay
  /// decodes the lines it acts on (the invocation, the user's turns); the others are what the diff compares.
  package struct Line: Sendable {
    /// Its number among the transcript's lines, from 1; blank lines are not counted (`parse` skips them).
    package var number: Int
    package var kind: TranscriptEntry.Kind
    package var json: JSON

    /// The entry the line holds.
    /// - Throws: `HostError(.dataError)` naming the file, the line (but for the invocation, which a transcript has
    ///   once) and the field that is not what `--record` writes.
    package func entry(file: String) throws -> TranscriptEntry {
      do {
        return try TranscriptEntry(json)
      } catch {
        throw HostError(
          .dataError,
          "\(file): \(kind == .invocation ? "" : "line \(number): ")\(error); is it a transcript of --record?")
      }
    }
  }

  /// The lines of a transcript file, parsed. Blank lines are skipped; the errors here number lines as in the file.
  /// - Throws: `HostError(.dataError)` naming the line that is not valid JSON (and why the parser refused it: nested
  ///   too deep, a syntax error), that is JSON but not an object, or whose `kind` is none of a transcript's.
  package static func parse(_ text: String, file: String) throws -> [Line] {
    var result: [Line] = []
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    // A run's transcript has a few hundred lines; the comparison's cost grows with the square of the count.
    let count = lines.count { !$0.allSatisfy(\.isWhitespace) }
    guard count <= maximumLines else {
      throw HostError(
        .dataError, "\(file): \(count) lines; a transcript has at most \(maximumLines); is it a transcript of --record?"
      )
    }
    for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
      let value: JSON
      do {
        value = try JSON(parsing: Data(line.utf8))
      } catch {
        let why = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "it does not parse"
        throw HostError(
          .dataError, "\(file): line \(index + 1) is not valid JSON (\(why)); is it a transcript of --record?")
      }
      guard case .object = value else {
        throw HostError(
          .dataError, "\(file): line \(index + 1) is not a JSON object; is it a transcript of --record?")
      }
      guard case .string(let name)? = value["kind"], let kind = TranscriptEntry.Kind(rawValue: name) else {
        throw HostError(
          .dataError,
          "\(file): line \(index + 1) has no \"kind\" of a transcript's line ("
            + TranscriptEntry.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            + "); is it a transcript of --record?")
      }
      result.append(Line(number: result.count + 1, kind: kind, json: value))
    }
    return result
  }

  /// The scripted answers of a transcript: the answers of its user turns, in order (passcodes and approvals are not
  /// recorded and not replayed).
  package static func answers(_ entries: [TranscriptEntry]) -> [String] {
    entries.compactMap { entry in
      guard case .user(let turn) = entry, case .answer(let answer) = turn.reply else { return nil }
      return answer
    }
  }

  /// The transcript with what changes from run to run taken out, one line per entry, in a stable order: `t` is
  /// dropped; request ids (`id` of a message), the intent's `identifier`, paths (`bundlePath`, `containerPath`,
  /// app groups' paths, any string that starts with `home`) and ISO 8601 dates become placeholders. The entries of the
  /// conversation keep their order, and so do each extension's; the extensions' streams follow the conversation's,
  /// by peer name, since an Intents extension and its UI extension run side by side and interleave at random.
  package static func normalised(_ lines: [String], home: String? = nil) -> [String] {
    let entries = lines.compactMap { line -> [String: JSON]? in
      guard case .object(let object)? = try? JSON(parsing: Data(line.utf8)) else { return nil }
      return object
    }
    let normal = entries.map { entry -> (String, String) in
      var entry = entry
      entry["t"] = nil
      if case .object(var message)? = entry["message"], message["id"] != nil {
        message["id"] = .string("<id>")
        entry["message"] = .object(message)
      }
      let peer: String = if case .string(let peer)? = entry["peer"] { peer } else { "" }
      return (peer, scrub(.object(entry), home: home).text)
    }
    let order = normal.enumerated().sorted { a, b in
      a.element.0 != b.element.0 ? a.element.0 < b.element.0 : a.offset < b.offset
    }
    return order.map { $0.element.1 }
  }

  private static let pathKeys: Set<String> = ["bundlePath", "containerPath", "path", "home"]

  private static func scrub(_ value: JSON, home: String?, key: String? = nil) -> JSON {
    switch value {
    case .object(let object):
      var result: [String: JSON] = [:]
      let isIntent = object["name"] != nil && object["displayString"] == nil
      for (name, inner) in object {
        if name == "identifier" && isIntent, case .string = inner {
          result[name] = .string("<identifier>")
        } else {
          result[name] = scrub(inner, home: home, key: name)
        }
      }
      return .object(result)
    case .array(let array):
      return .array(array.map { scrub($0, home: home, key: key) })
    case .string(let text):
      if let key, pathKeys.contains(key), text.hasPrefix("/") { return .string("<path>") }
      if let home, !home.isEmpty, text.contains(home) {
        return .string(text.replacingOccurrences(of: home, with: "<home>"))
      }
      if looksLikeDate(text) { return .string("<date>") }
      return value
    default:
      return value
    }
  }

  /// "2026-11-22T10:00:00Z" and the like.
  static func looksLikeDate(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.count >= 19 else { return false }
    func digit(_ i: Int) -> Bool { bytes[i] >= 0x30 && bytes[i] <= 0x39 }
    return (0..<4).allSatisfy(digit) && bytes[4] == 0x2D && digit(5) && digit(6) && bytes[7] == 0x2D && digit(8)
      && digit(9) && bytes[10] == 0x54 && digit(11) && digit(12) && bytes[13] == 0x3A
  }

  /// A unified diff of two lists of lines ("--- recorded", "+++ replayed", then hunks with `context` lines around
  /// each change, each under a standard header `@@ -START,COUNT +START,COUNT @@` numbering the lines of the two
  /// lists from 1); empty when they are equal.
  package static func diff(
    _ old: [String], _ new: [String], oldName: String = "recorded", newName: String = "replayed", context: Int = 2
  ) -> String {
    guard old != new else { return "" }
    // Longest common subsequence, by dynamic programming: transcripts are short.
    let n = old.count
    let m = new.count
    var table = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
    for i in stride(from: n - 1, through: 0, by: -1) {
      for j in stride(from: m - 1, through: 0, by: -1) {
        table[i][j] = old[i] == new[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
      }
    }
    var ops: [(Character, String)] = []
    var i = 0
    var j = 0
    while i < n || j < m {
      if i < n && j < m && old[i] == new[j] {
        ops.append((" ", old[i]))
        i += 1
        j += 1
      } else if i < n && (j == m || table[i + 1][j] >= table[i][j + 1]) {
        ops.append(("-", old[i]))
        i += 1
      } else {
        ops.append(("+", new[j]))
        j += 1
      }
    }
    // Keep the changes and `context` unchanged lines around each, in hunks of consecutive kept operations.
    let changed = ops.indices.filter { ops[$0].0 != " " }
    var keep = Set<Int>()
    for index in changed {
      for k in max(0, index - context)...min(ops.count - 1, index + context) { keep.insert(k) }
    }
    var hunks: [ClosedRange<Int>] = []
    for index in ops.indices where keep.contains(index) {
      if let last = hunks.last, last.upperBound + 1 == index {
        hunks[hunks.count - 1] = last.lowerBound...index
      } else {
        hunks.append(index...index)
      }
    }
    var output = "--- \(oldName)\n+++ \(newName)\n"
    for hunk in hunks {
      // The lines of each side before the hunk, and in it: a side with no line in the hunk is numbered by the line
      // before it, as diff(1) does.
      let before = ops[..<hunk.lowerBound]
      let oldBefore = before.filter { $0.0 != "+" }.count
      let newBefore = before.filter { $0.0 != "-" }.count
      let oldCount = ops[hunk].filter { $0.0 != "+" }.count
      let newCount = ops[hunk].filter { $0.0 != "-" }.count
      output +=
        "@@ -\(oldCount == 0 ? oldBefore : oldBefore + 1),\(oldCount) "
        + "+\(newCount == 0 ? newBefore : newBefore + 1),\(newCount) @@\n"
      for index in hunk { output += "\(ops[index].0)\(ops[index].1)\n" }
    }
    return output
  }
}
