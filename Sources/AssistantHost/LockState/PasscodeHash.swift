import CPasscode
import IntentHostSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The device passcode's salted, slow hash, made and checked by the system's password-hashing library (libcrypt's
/// yescrypt, `$y$...`, through the CPasscode target): the host keeps only this string, never the passcode.
package enum PasscodeHash {
  /// The longest passcode, in UTF-8 bytes (libcrypt takes at most 511).
  package static let maximumLength = 256

  /// Why `passcode` cannot be set, or nil: empty, too long, a NUL byte, or bytes that are not UTF-8 (read as
  /// U+FFFD, so two different byte strings would be one passcode).
  package static func problem(_ passcode: String) -> String? {
    if passcode.isEmpty { return "a passcode cannot be empty" }
    if passcode.utf8.count > maximumLength { return "a passcode is at most \(maximumLength) bytes" }
    if passcode.utf8.contains(0) { return "a passcode cannot hold a NUL byte" }
    if passcode.unicodeScalars.contains("\u{FFFD}") { return "a passcode must be UTF-8 text" }
    return nil
  }

  /// A new hash of `passcode`, with a fresh salt: two hashes of one passcode differ.
  /// - Throws: `SystemError` (`EINVAL` for a passcode `problem` refuses; what libcrypt reports otherwise).
  package static func make(_ passcode: String) throws(SystemError) -> String {
    if let problem = problem(passcode) {
      throw SystemError(code: EINVAL, operation: "crypt", detail: problem)
    }
    var output = [CChar](repeating: 0, count: 512)
    let code = output.withUnsafeMutableBufferPointer { buffer in
      ih_passcode_hash(passcode, buffer.baseAddress, buffer.count)
    }
    guard code == 0 else { throw SystemError(code: code, operation: "crypt") }
    return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether `passcode` is the one `hash` was made from (compared in constant time).
  /// - Throws: `SystemError(EINVAL)` when `hash` is not a hash libcrypt can read (a damaged passcode file).
  package static func verify(_ passcode: String, against hash: String) throws(SystemError) -> Bool {
    guard !passcode.utf8.contains(0) else { return false }
    // Only what `make` writes: a planted weaker hash (DES, MD5) is not a passcode file.
    guard hash.hasPrefix("$y$"), !hash.utf8.contains(0) else {
      throw SystemError(code: EINVAL, operation: "crypt", detail: "the stored passcode hash is not one")
    }
    let result = ih_passcode_verify(passcode, hash)
    guard result >= 0 else {
      throw SystemError(code: -result, operation: "crypt", detail: "the stored passcode hash is not one")
    }
    return result == 1
  }
}
