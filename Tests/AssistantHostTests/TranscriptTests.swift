import Foundation
import IntentHostSystem
import Synchronization
import Testing

@testable import AssistantHost

@Suite struct TranscriptTests {
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
        @@
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
          for index in 0..<each { recorder.record("send", ["peer": "P\(thread)", "message": ["id": index]]) }
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
    #expect(diff.components(separatedBy: "@@\n").count == 3)
    #expect(diff.contains("-a\n+A\n") && diff.contains("-b\n+B\n"))
  }
}
