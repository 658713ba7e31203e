import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

@Suite(.tags(.unit)) struct TranscriptTests {
  @Test func normalisingTakesOutWhatChangesFromRunToRun() {
    let first = [
      #"{"kind":"send","peer":"RoomsIntents","t":0.01,"message":{"id":4,"method":"intent/handle","params":{"intent":{"identifier":"1F52","name":"BookRoomIntent","parameters":{}},"containerPath":"/tmp/a/Containers/x"}}}"#,
      #"{"kind":"assistant","t":0.2,"say":"Booked at 2026-11-22T10:00:00Z in /home/u/.local/share/intenthost/Logs"}"#,
    ]
    let second = [
      #"{"kind":"send","peer":"RoomsIntents","t":0.5,"message":{"id":9,"method":"intent/handle","params":{"intent":{"identifier":"77AB","name":"BookRoomIntent","parameters":{}},"containerPath":"/tmp/b/Containers/x"}}}"#,
      #"{"kind":"assistant","t":0.7,"say":"Booked at 2026-11-22T10:00:00Z in /home/u/.local/share/intenthost/Logs"}"#,
    ]
    let home = "/home/u/.local/share/intenthost"
    #expect(Transcript.normalised(first, home: home) == Transcript.normalised(second, home: home))
    // The conversation's stream comes first, then each extension's.
    #expect(Transcript.normalised(first, home: home)[0].contains("\"say\":\"Booked at 2026-11-22T10:00:00Z in <home>"))
  }

  @Test func normalisingKeepsWhatTheExtensionsSay() {
    let recorded = [#"{"kind":"receive","peer":"P","t":1,"message":{"id":1,"result":{"code":"success"}}}"#]
    let changed = [#"{"kind":"receive","peer":"P","t":1,"message":{"id":1,"result":{"code":"failure"}}}"#]
    #expect(Transcript.normalised(recorded) != Transcript.normalised(changed))
    // An object's identifier (an INObject, with a displayString) is not the intent's: it is kept.
    let object = [#"{"kind":"receive","peer":"P","message":{"result":{"identifier":"a","displayString":"A"}}}"#]
    let other = [#"{"kind":"receive","peer":"P","message":{"result":{"identifier":"b","displayString":"A"}}}"#]
    #expect(Transcript.normalised(object) != Transcript.normalised(other))
  }

  /// A question left unanswered says why in words: an interrupt is "interrupted", a host error its message; never a
  /// Swift debug description such as `CancellationError()`.
  @Test func anUnansweredQuestionSaysWhy() {
    #expect(RecordingConversation.why(CancellationError()) == "interrupted")
    #expect(RecordingConversation.why(HostError(.valueNeeded, "input ended")) == "input ended")
  }

  @Test func dateDetection() {
    #expect(Transcript.looksLikeDate("2026-11-22T10:00:00Z"))
    #expect(!Transcript.looksLikeDate("room 2026-11-22"))
  }

  @Test func diffOfEqualListsIsEmpty() {
    #expect(Transcript.diff(["a", "b"], ["a", "b"]).isEmpty)
  }

  @Test func diffShowsRemovedThenAddedLinesWithContext() {
    let old = ["1", "2", "3", "4", "5", "6", "7", "8"]
    let new = ["1", "2", "3", "4", "X", "6", "7", "8"]
    #expect(
      Transcript.diff(old, new) == """
        --- recorded
        +++ replayed
        @@ -3,5 +3,5 @@
         3
         4
        -5
        +X
         6
         7

        """)
  }

  /// Several threads record at once, as the connections' reader threads and the conversation do in a run: the lines
  /// are in the order of their times (`t` never goes back), so a transcript reads as what happened when.
  @Test func linesAreInTheOrderOfTheirTimesWhateverThreadRecords() async {
    let recorder = TranscriptRecorder()
    let threads = 4
    let each = 2000
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      let left = Mutex(threads)
      for thread in 0..<threads {
        detachThread {
          for index in 0..<each { recorder.record(.send(peer: "P\(thread)", message: .object(["id": JSON(index)]))) }
          if left.withLock({ left in
            left -= 1
            return left
          }) == 0 {
            done.resume()
          }
        }
      }
    }
    let times = recorder.lines.compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["t"] as? Double
    }
    #expect(times.count == threads * each)
    let backwards = zip(times, times.dropFirst()).filter { $0 > $1 }
    #expect(backwards.isEmpty, "\(backwards.count) lines are earlier than the line before them: \(backwards.prefix(5))")
  }

  @Test func diffSeparatesDistantHunks() {
    let old = ["a", "1", "2", "3", "4", "5", "6", "b"]
    let new = ["A", "1", "2", "3", "4", "5", "6", "B"]
    let diff = Transcript.diff(old, new, context: 1)
    #expect(diff.contains("@@ -1,2 +1,2 @@\n-a\n+A\n 1\n@@ -7,2 +7,2 @@\n 6\n-b\n+B\n"), "\(diff)")
    #expect(Self.apply(diff, to: old) == new, "\(diff)")
  }

  /// The hunk headers are standard (`@@ -START,COUNT +START,COUNT @@`): applying the diff by its numbers alone, as
  /// patch(1) does, turns the recorded lines into the replayed ones, for insertions, deletions and changes at the
  /// start, the middle and the end; a side with no line in a hunk is numbered by the line before it.
  @Test(arguments: [
    (["a"], ["a", "b"]), (["a", "b"], ["b"]), (["a", "b", "c"], ["x", "b", "c", "d"]), ([], ["a"]), (["a"], []),
    (["1", "2", "3", "4", "5", "6", "7", "8", "9"], ["1", "X", "3", "4", "5", "6", "7", "Y", "9", "10"]),
  ])
  func diffHunkHeadersNumberTheLines(_ old: [String], _ new: [String]) {
    for context in 0...3 {
      let diff = Transcript.diff(old, new, context: context)
      #expect(Self.apply(diff, to: old) == new, "context \(context):\n\(diff)")
    }
    #expect(Transcript.diff(["a"], ["a", "b"], context: 0).contains("@@ -1,0 +2,1 @@\n+b\n"))
  }

  /// Applies a unified diff to `lines` using only its hunk headers' numbers, checking each context and removed line
  /// against `lines`; nil when a header or a line does not fit.
  static func apply(_ diff: String, to lines: [String]) -> [String]? {
    var result: [String] = []
    var position = 0  // lines of the old list consumed
    let body = diff.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).dropLast()
    var hunkLines: [Substring] = []
    var headers: [(oldStart: Int, oldCount: Int, newStart: Int, newCount: Int)] = []
    var hunks: [[Substring]] = []
    for line in body {
      if line.hasPrefix("@@ ") {
        let fields = line.split(separator: " ")
        guard fields.count == 4, fields[3] == "@@" else { return nil }
        let old = fields[1].dropFirst().split(separator: ",").compactMap { Int($0) }
        let new = fields[2].dropFirst().split(separator: ",").compactMap { Int($0) }
        guard old.count == 2, new.count == 2 else { return nil }
        if !headers.isEmpty { hunks.append(hunkLines) }
        hunkLines = []
        headers.append((old[0], old[1], new[0], new[1]))
      } else {
        hunkLines.append(line)
      }
    }
    if !headers.isEmpty { hunks.append(hunkLines) }
    for (header, hunk) in zip(headers, hunks) {
      let start = header.oldCount == 0 ? header.oldStart : header.oldStart - 1
      guard start >= position, start <= lines.count else { return nil }
      result += lines[position..<start]
      position = start
      guard result.count == (header.newCount == 0 ? header.newStart : header.newStart - 1) else { return nil }
      var oldCount = 0
      var newCount = 0
      for line in hunk {
        let text = String(line.dropFirst())
        switch line.first {
        case " ", "-":
          guard position < lines.count, lines[position] == text else { return nil }
          position += 1
          oldCount += 1
          if line.first == " " {
            result.append(text)
            newCount += 1
          }
        case "+":
          result.append(text)
          newCount += 1
        default: return nil
        }
      }
      guard oldCount == header.oldCount, newCount == header.newCount else { return nil }
    }
    return result + lines[position...]
  }
}
