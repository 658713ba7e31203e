import Foundation
import TestSupport
import Testing
import UntrustedText

@Suite(.tags(.unit))
struct OutputTests {
  static let attack = "\u{1B}]0;t\u{07}\u{9B}2J\u{7F}\u{202E}x\u{2066}\u{2028}é日本👩‍🚀"

  /// Sanitized text has nothing left to escape: sanitizing it again changes nothing (no double escapes when two
  /// layers both sanitize), and no unsafe scalar remains.
  @Test(arguments: [attack, "plain", "tab\there\nand\r\nthere", "\\u{1B} already escaped"])
  func sanitizingIsIdempotent(text: String) {
    for multiline in [false, true] {
      let once = Untrusted.sanitized(text, multiline: multiline)
      #expect(Untrusted.sanitized(once, multiline: multiline) == once)
      #expect(!once.unicodeScalars.contains { Untrusted.isUnsafe($0, multiline: multiline) })
    }
  }

  /// A C1 control arrives from a pipe either as UTF-8 (C2 9B), escaped, or as a bare byte 9B, which is invalid
  /// UTF-8 and becomes U+FFFD: neither reaches a terminal that reads 8-bit controls.
  @Test func c1FromBytesIsNeverPassedOn() {
    #expect(Untrusted.sanitized(bytes: [0x61, 0xC2, 0x9B, 0x32, 0x4A]) == "a\\u{9B}2J")
    #expect(Untrusted.sanitized(bytes: [0x61, 0x9B, 0x32, 0x4A]) == "a\u{FFFD}2J")
    #expect(Untrusted.sanitized(bytes: [0xE2, 0x80, 0xAE], multiline: true) == "\\u{202E}")
  }

  /// JSON escaping keeps the value exact and leaves no unsafe scalar in the text, compact or pretty-printed.
  @Test func jsonEscapingKeepsTheValueExact() throws {
    let value: [String: Any] = ["text": Self.attack, "list": [Self.attack, "ok"], Self.attack: 1]
    for options: JSONSerialization.WritingOptions in [[.sortedKeys], [.sortedKeys, .prettyPrinted]] {
      let json = String(decoding: try JSONSerialization.data(withJSONObject: value, options: options), as: UTF8.self)
      #expect(json.unicodeScalars.contains { $0.value == 0x9B }, "the encoder leaves C1 controls raw")
      let escaped = Untrusted.jsonEscaped(json)
      #expect(!escaped.unicodeScalars.contains { Untrusted.isUnsafe($0, multiline: true) })
      #expect(escaped.contains(#"\u009b"#) && escaped.contains(#"\u202e"#) && escaped.contains(#"\u2028"#))
      let decoded = try #require(try JSONSerialization.jsonObject(with: Data(escaped.utf8)) as? [String: Any])
      #expect(decoded["text"] as? String == Self.attack)
      #expect(decoded["list"] as? [String] == [Self.attack, "ok"])
      #expect(decoded[Self.attack] as? Int == 1)
    }
    #expect(Untrusted.jsonEscaped("{\"a\":\"b\"}") == "{\"a\":\"b\"}")
  }

  /// A character split between two chunks of a stream passes whole; only an incomplete one at the very end becomes
  /// U+FFFD.
  @Test func aStreamKeepsASplitCharacterWhole() {
    let bytes = Array(("é日👩‍🚀\u{1B}[2J\u{9B}" + "\n").utf8)
    for cut in 0...bytes.count {
      var stream = Untrusted.StreamSanitizer(multiline: true)
      let text = stream.text(bytes[..<cut]) + stream.text(bytes[cut...]) + stream.finish()
      #expect(text == "é日👩‍🚀\\u{1B}[2J\\u{9B}\n", "cut at \(cut)")
    }
    var stream = Untrusted.StreamSanitizer(multiline: false)
    #expect(stream.text([0x41, 0xE6, 0x97]) == "A")
    #expect(stream.finish() == "\u{FFFD}")
  }

  @Test(
    arguments: [
      ([], 0), ([0x41], 1), ([0xC3], 0), ([0xC3, 0xA9], 2), ([0x41, 0xE6, 0x97], 1), ([0xE6, 0x97, 0xA5], 3),
      ([0xF0, 0x9F, 0x91], 0), ([0xF0, 0x9F, 0x91, 0xA9], 4), ([0x80, 0x80, 0x80, 0x80], 4), ([0xFF], 1),
    ] as [([UInt8], Int)])
  func wholeCharacterPrefix(bytes: [UInt8], whole: Int) {
    #expect(Untrusted.wholeCharacterPrefix(bytes) == whole)
  }

  /// The bypass is for the end-to-end tests' controls only: unit tests run without it, and `shown` sanitizes.
  @Test func shownSanitizesWithoutTheTestOnlyBypass() {
    #expect(!Untrusted.isBypassedForTesting)
    #expect(Untrusted.shown("a\u{1B}b") == "a\\u{1B}b")
    #expect(Untrusted.shown(json: "[\"\u{9B}\"]") == "[\"\\u009b\"]")
  }
}
