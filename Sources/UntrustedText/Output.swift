import Synchronization

extension Untrusted {
  /// JSON text with every unsafe character (`isUnsafe`) inside its strings written as JSON's own escape `\uXXXX`:
  /// the same JSON value, decoded exactly as before, with nothing a terminal acts on (encoders escape C0 controls
  /// themselves, but leave DEL, the C1 controls and the bidirectional controls raw).
  ///
  /// - Parameter json: valid JSON text, as an encoder writes it. Raw tab, newline and carriage return can only be
  ///   whitespace between tokens in valid JSON, so they are left as they are; everything escaped was inside a
  ///   string.
  public static func jsonEscaped(_ json: String) -> String {
    func escaped(_ scalar: Unicode.Scalar) -> Bool {
      isUnsafe(scalar, multiline: true) && scalar != "\r"
    }
    guard json.unicodeScalars.contains(where: escaped) else { return json }
    var result = ""
    result.unicodeScalars.reserveCapacity(json.unicodeScalars.count + 16)
    for scalar in json.unicodeScalars {
      if escaped(scalar) {
        // Every unsafe scalar is in the Basic Multilingual Plane: four hex digits, no surrogate pair.
        let hex = String(scalar.value, radix: 16, uppercase: false)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Test-only: whether the sanitizer is bypassed (`bypassForTesting()`, which only the command line calls, for its
  /// hidden `--raw-untrusted-text`). Then `shown` returns text unchanged, so an end-to-end test can show, as its
  /// control, that the raw sequences reach the output when the sanitizer is bypassed. Off unless turned on; nothing
  /// reads it from the environment, and the host never passes it to its children.
  ///
  /// - Important: For tests only. With it on, extensions and bundles write to the user's terminal and logs
  ///   unchecked (the host warns on every run).
  public static var isBypassedForTesting: Bool { bypassed.load(ordering: .relaxed) }

  /// Bypasses the sanitizer for the rest of this process (`isBypassedForTesting`); there is no way back.
  public static func bypassForTesting() { bypassed.store(true, ordering: .relaxed) }

  private static let bypassed = Atomic<Bool>(false)

  /// Untrusted text as the host shows it on a terminal or in a log line: `sanitized(_:multiline:)`, unless the
  /// test-only bypass is on. Every output site of the host calls this (or `shown(json:)`), never prints raw text.
  public static func shown(_ text: String, multiline: Bool = false) -> String {
    isBypassedForTesting ? text : sanitized(text, multiline: multiline)
  }

  /// JSON text as the host prints it: `jsonEscaped(_:)`, unless the test-only bypass is on.
  public static func shown(json: String) -> String {
    isBypassedForTesting ? json : jsonEscaped(json)
  }
}

extension Untrusted {
  /// Sanitizes a byte stream that arrives in pieces (a pipe): a UTF-8 character split between two pieces is kept
  /// until it is whole, so that it passes unchanged instead of becoming two U+FFFD.
  public struct StreamSanitizer: Sendable {
    /// Whether newlines and tabs pass (as in `sanitized(_:multiline:)`).
    public let multiline: Bool
    private var pending: [UInt8] = []

    public init(multiline: Bool) { self.multiline = multiline }

    /// The sanitized text of what was kept and `chunk`, up to its last whole character; an incomplete character
    /// at the end is kept for the next call.
    public mutating func text(_ chunk: some Collection<UInt8>) -> String {
      var bytes = pending
      bytes.append(contentsOf: chunk)
      let whole = Untrusted.wholeCharacterPrefix(bytes)
      pending = Array(bytes[whole...])
      return sanitized(bytes: bytes[..<whole], multiline: multiline)
    }

    /// What was kept at the end of the stream (an incomplete character, shown as U+FFFD), sanitized.
    public mutating func finish() -> String {
      defer { pending = [] }
      return pending.isEmpty ? "" : sanitized(bytes: pending, multiline: multiline)
    }
  }

  /// The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence: `bytes.count` unless
  /// the last one to three bytes start a multi-byte character that is not complete yet.
  public static func wholeCharacterPrefix(_ bytes: [UInt8]) -> Int {
    var start = bytes.count
    // Back over at most three continuation bytes to the byte that leads them.
    while start > 0 && bytes.count - start < 3 && bytes[start - 1] & 0xC0 == 0x80 { start -= 1 }
    guard start > 0 else { return bytes.count }
    let lead = bytes[start - 1]
    let length: Int
    switch lead {
    case 0xC0...0xDF: length = 2
    case 0xE0...0xEF: length = 3
    case 0xF0...0xF7: length = 4
    default: return bytes.count  // ASCII or an invalid byte: nothing to wait for
    }
    let have = bytes.count - (start - 1)
    return have < length ? start - 1 : bytes.count
  }
}
