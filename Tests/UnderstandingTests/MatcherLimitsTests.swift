import BundleManifest
import Foundation
import NameSuggestions
import Testing

@testable import Understanding

/// The bounds on what the matcher reads, from the second attack on issue 15: an utterance of at most 64 words and
/// titles of at most 32 words and slots (a title of 1,300 "a"s made the reader recurse until the stack overflowed,
/// crashing every utterance to the app), a name in the middle that never loses to an app named by the words after
/// it, and names never measured against words of a very different length.
@Suite(.tags(.unit))
struct MatcherLimitsTests {
  @Test func anUtteranceOfMoreThan64WordsIsRefusedAndOneOf64IsRead() throws {
    let directory = try TemporaryDirectory("assistanthost-limits")
    defer { directory.remove() }
    let app = try AppBundle.load(
      from: SmallApp.build(name: "Ping", intents: [("Ping", "ping ${value}")], in: directory.url))
    let matcher = UtteranceMatcher(apps: [app])
    let long = "ping " + Array(repeating: "a", count: 62).joined(separator: " ") + " with Ping"
    do {
      _ = try matcher.understand(long)
      Issue.record("an utterance of 65 words was read")
    } catch let error as UnderstandingError {
      #expect(error.kind == .usage && error.message.contains("at most 64"), "\(error)")
    }
    // The control: 64 words are read.
    let bounded = "ping " + Array(repeating: "a", count: 61).joined(separator: " ") + " with Ping"
    #expect(try matcher.understand(bounded).first?.intentClass == "PingIntent")
  }

  /// A title of 1,300 "a"s is no phrase: utterances to its app are read (no crash), and only its other phrases
  /// match. The control: a title within the bound is a phrase.
  @Test func aTitleLongerThan32TokensIsNoPhrase() throws {
    let directory = try TemporaryDirectory("assistanthost-limits")
    defer { directory.remove() }
    let huge = Array(repeating: "a", count: 1300).joined(separator: " ") + " ${value}"
    let app = try AppBundle.load(
      from: SmallApp.build(
        name: "Big", intents: [("Huge", huge), ("Small", "sing ${value}")], in: directory.url))
    let matcher = UtteranceMatcher(apps: [app])
    #expect(try matcher.match("sing loud with Big").intentClass == "SmallIntent")
    #expect(throws: UnderstandingError.self) {
      try matcher.match("a a a a a a a a a a a a a a a a a a a a loud with Big")
    }
    let within = Array(repeating: "a", count: 20).joined(separator: " ") + " ${value}"
    let control = try AppBundle.load(
      from: SmallApp.build(name: "Fits", intents: [("Fits", within)], in: directory.url))
    #expect(
      try UtteranceMatcher(apps: [control]).match(
        Array(repeating: "a", count: 20).joined(separator: " ") + " loud with Fits"
      ).intentClass == "FitsIntent")
  }

  /// "Start a wall climb with Ascent for 30 minutes": an app called "minutes" is named at the end, Ascent in the
  /// middle; neither wins unasked, both are candidates. The control: with Ascent alone, Ascent is matched.
  @Test func aNameInTheMiddleIsAsGoodAsOneAtTheEnd() throws {
    let directory = try TemporaryDirectory("assistanthost-limits")
    defer { directory.remove() }
    let ascent = try AppBundle.load(
      from: SmallApp.build(
        name: "Ascent", intents: [], systemIntents: ["INStartWorkoutIntent"], in: directory.url))
    let minutes = try AppBundle.load(
      from: SmallApp.build(name: "Minutes", intents: [("Log", "${value}")], in: directory.url))
    let utterance = "Start a wall climb with Ascent for 30 minutes"
    let alone = try UtteranceMatcher(apps: [ascent]).understand(utterance)
    #expect(alone.count == 1 && alone[0].app.name == "Ascent", "\(alone.map(\.app.name))")
    let both = try UtteranceMatcher(apps: [ascent, minutes]).understand(utterance)
    #expect(Set(both.map(\.app.name)) == ["Ascent", "Minutes"], "\(both.map(\.app.name))")
  }

  /// A word far longer than every name is never close to one (and never measured); a misspelling still is.
  @Test func namesAreNotMeasuredAgainstWordsOfAVeryDifferentLength() {
    #expect(closestNames(to: "Roms", among: ["Rooms", "Ascent"]) == ["Rooms"])
    #expect(closestNames(to: String(repeating: "r", count: 100_000), among: ["Rooms", "Ascent"]).isEmpty)
    #expect(!ClosestPhrases.misspelt(String(repeating: "x", count: 100_000), "rooms"))
    #expect(ClosestPhrases.misspelt("rooms", "roms"))
  }
}
