import Foundation
import TestSupport
import Testing

/// What the Ascent end-to-end suites share: a home with the example apps installed, the app's history as
/// "obstacle: state" lines, and an utterance's `--json` outcome with its values typed.
extension HostFixture {
  /// A fresh home with Ascent installed (`assistant build` assembles Rooms.app and Ascent.app together), and
  /// Rooms too when `rooms`.
  static func withAscent(rooms: Bool = false) async throws -> HostFixture {
    let host = try HostFixture()
    let built = try await TestBundles.rooms(in: host.directory.file("bundles"))
    let apps = [built.deletingLastPathComponent().appendingPathComponent("Ascent.app")] + (rooms ? [built] : [])
    for app in apps {
      let installed = try await host.assistant(["install", app.path])
      #expect(installed.code == 0, "\(installed)")
    }
    return host
  }

  /// The app's history (`ascent history`), one line per workout, oldest first, without the times:
  /// "2026-11-23T03:13:42Z  wall climb: ended at 2026-11-23T03:13:43Z" is "wall climb: ended".
  func ascentHistory() async throws -> [String] {
    let result = try await assistant(["open", "Ascent", "--", "history"])
    #expect(result.code == 0, "\(result)")
    if result.stdout == "No workouts yet.\n" { return [] }
    return result.stdout.split(separator: "\n").map { line in
      let text = line.split(separator: " ", maxSplits: 1).dropFirst().first.map(String.init) ?? String(line)
      let trimmed = text.trimmingCharacters(in: .whitespaces)
      return trimmed.range(of: " at ").map { String(trimmed[..<$0.lowerBound]) } ?? trimmed
    }
  }
}

/// An utterance's `--json` outcome: the intent, its code and the intent's values, typed as JSON types them.
struct WorkoutOutcome: Decodable {
  var code: String
  var intent: String
  var parameters: [String: Value]

  enum Value: Decodable, Equatable {
    case text(String), number(Double), flag(Bool)

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let flag = try? container.decode(Bool.self) {
        self = .flag(flag)
      } else if let number = try? container.decode(Double.self) {
        self = .number(number)
      } else {
        self = .text(try container.decode(String.self))
      }
    }
  }
}
