import CPasscode
import IntentHostSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The device passcode's salted, slow hash, made and checked by the system's password-hashing library (libcrypt's
/// yescrypt, `$y$...`, through the CPasscode target): the host keeps only this string, never the passcode.
public enum PasscodeHash {
  /// A new hash of `passcode`, with a fresh salt: two hashes of one passcode differ.
  /// - Throws: `SystemError` (`EINVAL` for a passcode with a NUL byte; what libcrypt reports otherwise).
  public static func make(_ passcode: String) throws(SystemError) -> String {
    guard !passcode.utf8.contains(0) else {
      throw SystemError(code: EINVAL, operation: "crypt", detail: "a passcode cannot hold a NUL byte")
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
  public static func verify(_ passcode: String, against hash: String) throws(SystemError) -> Bool {
    guard !passcode.utf8.contains(0) else { return false }
    guard !hash.utf8.contains(0) else {
      throw SystemError(code: EINVAL, operation: "crypt", detail: "the stored passcode hash is not one")
    }
    let result = ih_passcode_verify(passcode, hash)
    guard result >= 0 else {
      throw SystemError(code: -result, operation: "crypt", detail: "the stored passcode hash is not one")
    }
    return result == 1
  }
}
