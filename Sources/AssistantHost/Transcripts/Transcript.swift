import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import Synchronization

/// A transcript of a run (`--record FILE`): JSON lines, one object each, with `kind` (invocation, shortcut, user,
/// assistant, send, receive, outcome), `t` (seconds since the start) and, for messages, `peer` (the extension's name).
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
public final class TranscriptRecorder: Sendable {
  private let start = ContinuousClock.now
  /// The lines, in order; nil for a place taken whose line is still being encoded.
  private let entries = Mutex<[String?]>([])

  public init() {}

  /// Appends an entry; `t` is added. Values must be JSON (dictionaries, arrays, strings, numbers, booleans, NSNull).
  public func record(_ kind: String, _ fields: [String: Any]) {
    var object = fields
    object["kind"] = kind
    // The place and the time in one step; the encoding (a message may be large) outside the lock.
    let (index, elapsed) = entries.withLock { entries in
      entries.append(nil)
      return (entries.count - 1, ContinuousClock.now - start)
    }
    object["t"] = (elapsed.inSeconds * 1000).rounded() / 1000
    let line = Transcript.encode(object)
    entries.withLock { $0[index] = line }
  }

  /// A tap for the connection to `peer` (`Connection.Options.tap`).
  public func tap(peer: String) -> @Sendable (Connection.TapDirection, [UInt8]) -> Void {
    { [self] direction, bytes in
      let message: Any =
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
        ?? String(decoding: bytes, as: UTF8.self)
      record(direction == .sent ? "send" : "receive", ["peer": peer, "message": message])
    }
  }

  /// The transcript so far, one JSON object a line (a line still being recorded is left out).
  public var lines: [String] { entries.withLock { $0.compactMap { $0 } } }

  /// Writes the transcript to `path` (`TranscriptFile.write`: a regular file replaced atomically, a device or a FIFO
  /// written into), off the cooperative pool.
  /// - Parameter action: what the message says could not be done, e.g. "record to" or "update".
  /// - Throws: `HostError` (73 or 74) naming the path and why.
  public func write(to path: String, action: String = "record to") async throws {
    let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
    try await offloaded { () throws in try TranscriptFile.write(bytes, to: path, action: action) }
  }
}

/// A conversation that records each turn into a transcript and passes it on to the conversation it wraps.
public struct RecordingConversation: Conversation {
  public let inner: any Conversation
  public let recorder: TranscriptRecorder

  public init(_ inner: any Conversation, recorder: TranscriptRecorder) {
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

  public func say(_ text: String) async {
    recorder.record("assistant", ["say": text])
    await inner.say(text)
  }

  public func explain(_ text: String) async {
    recorder.record("assistant", ["explain": text])
    await inner.explain(text)
  }

  public func show(_ view: ConfiguredView, from extensionName: String) async {
    recorder.record("assistant", ["show": view.snippet?.lines ?? [], "from": extensionName])
    await inner.show(view, from: extensionName)
  }

  public func ask(_ prompt: String, need: String) async throws -> String {
    try await ask(prompt, need: need, kind: .value)
  }

  public func ask(_ prompt: String, need: String, kind: AnswerKind) async throws -> String {
    do {
      let answer = try await inner.ask(prompt, need: need, kind: kind)
      recorder.record("user", ["question": prompt, "answer": answer])
      return answer
    } catch {
      recorder.record("user", ["question": prompt, "unanswered": Self.why(error)])
      throw error
    }
  }

  public func askPasscode(_ prompt: String, for purpose: PasscodePurpose) async throws -> PasscodeAnswer {
    let answer = try await inner.askPasscode(prompt, for: purpose)
    recorder.record(
      "user",
      ["question": prompt, "passcode": purpose == .unlock ? "unlock" : "authentication", "answer": shown(answer)])
    return answer
  }

  public func askApproval(_ prompt: String) async throws -> PasscodeAnswer {
    let answer = try await inner.askApproval(prompt)
    recorder.record("user", ["question": prompt, "approval": true, "answer": shown(answer)])
    return answer
  }

  public func progress(_ text: String?) async { await inner.progress(text) }

  /// A passcode answer as recorded: never the passcode itself.
  private func shown(_ answer: PasscodeAnswer) -> String {
    switch answer {
    case .entered: "[passcode]"
    case .cancelled: "[cancelled]"
    case .unavailable: "[unavailable]"
    }
  }
}

/// Reading, normalising and comparing transcripts (`assistant replay`).
public enum Transcript {
  /// One line of JSON, keys sorted.
  public static func encode(_ object: Any) -> String {
    guard JSONSerialization.isValidJSONObject(object),
      let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    else { return "\"\(object)\"" }
    return String(decoding: data, as: UTF8.self)
  }

  /// The most lines a transcript may have.
  public static let maximumLines = 10_000

  /// What a transcript's line may be.
  static let kinds = ["invocation", "shortcut", "user", "assistant", "send", "receive", "outcome"]

  /// The lines of a transcript file, parsed. Blank lines are skipped; lines are numbered as in the file.
  /// - Throws: `HostError(.dataError)` naming the line that is not valid JSON (and why the parser refused it: nested
  ///   too deep, a syntax error), or that is JSON but not an object.
  public static func parse(_ text: String, file: String) throws -> [[String: Any]] {
    var result: [[String: Any]] = []
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    // A run's transcript has a few hundred lines; the comparison's cost grows with the square of the count.
    let count = lines.count { !$0.allSatisfy(\.isWhitespace) }
    guard count <= maximumLines else {
      throw HostError(
        .dataError, "\(file): \(count) lines; a transcript has at most \(maximumLines); is it a transcript of --record?"
      )
    }
    for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
      let value: Any
      do {
        value = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
      } catch {
        let why = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "it does not parse"
        throw HostError(
          .dataError, "\(file): line \(index + 1) is not valid JSON (\(why)); is it a transcript of --record?")
      }
      guard let object = value as? [String: Any] else {
        throw HostError(
          .dataError, "\(file): line \(index + 1) is not a JSON object; is it a transcript of --record?")
      }
      guard let kind = object["kind"] as? String, kinds.contains(kind) else {
        throw HostError(
          .dataError,
          "\(file): line \(index + 1) has no \"kind\" of a transcript's line ("
            + kinds.joined(separator: ", ") + "); is it a transcript of --record?")
      }
      result.append(object)
    }
    return result
  }

  /// The scripted answers of a transcript: the answers of its user turns, in order (passcodes are not recorded and
  /// not replayed).
  public static func answers(_ entries: [[String: Any]]) -> [String] {
    entries.compactMap { entry in
      guard entry["kind"] as? String == "user", entry["passcode"] == nil, entry["approval"] == nil else { return nil }
      return entry["answer"] as? String
    }
  }

  /// The transcript with what changes from run to run taken out, one line per entry, in a stable order: `t` is
  /// dropped; request ids (`id` of a message), the intent's `identifier`, paths (`bundlePath`, `containerPath`,
  /// app groups' paths, any string that starts with `home`) and ISO 8601 dates become placeholders. The entries of the
  /// conversation keep their order, and so do each extension's; the extensions' streams follow the conversation's,
  /// by peer name, since an Intents extension and its UI extension run side by side and interleave at random.
  public static func normalised(_ lines: [String], home: String? = nil) -> [String] {
    let entries = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    let normal = entries.map { entry -> (String, String) in
      var entry = entry
      entry["t"] = nil
      if var message = entry["message"] as? [String: Any], message["id"] != nil {
        message["id"] = "<id>"
        entry["message"] = message
      }
      return (entry["peer"] as? String ?? "", encode(scrub(entry, home: home)))
    }
    let order = normal.enumerated().sorted { a, b in
      a.element.0 != b.element.0 ? a.element.0 < b.element.0 : a.offset < b.offset
    }
    return order.map { $0.element.1 }
  }

  private static let pathKeys: Set<String> = ["bundlePath", "containerPath", "path", "home"]

  private static func scrub(_ value: Any, home: String?, key: String? = nil) -> Any {
    switch value {
    case let object as [String: Any]:
      var result: [String: Any] = [:]
      let isIntent = object["name"] != nil && object["displayString"] == nil
      for (name, inner) in object {
        if name == "identifier" && isIntent && inner is String {
          result[name] = "<identifier>"
        } else {
          result[name] = scrub(inner, home: home, key: name)
        }
      }
      return result
    case let array as [Any]:
      return array.map { scrub($0, home: home, key: key) }
    case let text as String:
      if let key, pathKeys.contains(key), text.hasPrefix("/") { return "<path>" }
      if let home, !home.isEmpty, text.contains(home) { return text.replacingOccurrences(of: home, with: "<home>") }
      if looksLikeDate(text) { return "<date>" }
      return text
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
  public static func diff(
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
