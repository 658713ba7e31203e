import IntentHostSystem
import TestSupport
import Testing

@testable import AssistantHost

/// The passcode hash is libcrypt's yescrypt: salted, and only the right passcode verifies.
@Suite(.tags(.unit))
struct PasscodeHashTests {
  @Test func hashIsYescrypt() throws {
    let hash = try PasscodeHash.make("123456")
    #expect(hash.hasPrefix("$y$"))
    #expect(!hash.contains("123456"))
  }

  @Test(arguments: [("123456", true), ("123457", false), ("", false), ("1234567", false), ("12345", false)])
  func verify(candidate: String, matches: Bool) throws {
    let hash = try PasscodeHash.make("123456")
    #expect(try PasscodeHash.verify(candidate, against: hash) == matches)
  }

  @Test func saltDiffers() throws {
    let first = try PasscodeHash.make("0000")
    let second = try PasscodeHash.make("0000")
    #expect(first != second)
    #expect(try PasscodeHash.verify("0000", against: first))
    #expect(try PasscodeHash.verify("0000", against: second))
  }

  @Test func emptyAndUnicodePasscodes() throws {
    let hash = try PasscodeHash.make("pâsscödé ✓")
    #expect(try PasscodeHash.verify("pâsscödé ✓", against: hash))
    #expect(try !PasscodeHash.verify("passcode ✓", against: hash))
  }

  @Test func damagedHashIsAnError() {
    #expect(throws: SystemError.self) { try PasscodeHash.verify("0000", against: "not a hash") }
    #expect(throws: SystemError.self) { try PasscodeHash.make("a\u{0}b") }
  }
}
