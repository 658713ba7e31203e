/// The one sanitizer: text that a bundle, an extension, an app, a stored document or a file name supplied, made
/// safe to show on a terminal or to write as a log line.
///
/// Control characters and the characters that reorder or hide text are shown escaped as `\u{XX}`, so what the user
/// sees is what the text holds and it cannot move the cursor, clear the screen, set a window title, write the
/// clipboard (OSC 52), ring the bell or reverse the line:
/// - C0 controls U+0000–U+001F (ESC starts every terminal sequence), except newline and tab in multi-line text;
/// - DEL U+007F and the C1 controls U+0080–U+009F (CSI, OSC, ST, ...);
/// - bidirectional controls: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069;
/// - the line and paragraph separators U+2028 and U+2029 (a line break that is not a newline).
/// Everything else, including any valid UTF-8 text, passes unchanged. Invalid UTF-8 never reaches here as such:
/// decoding bytes into a `String` replaces it with U+FFFD.
///
/// - Important: `--json` output is not for this: JSON's own escaping keeps it exact.
public enum Untrusted {
  /// `text` with every unsafe character escaped; newlines and tabs too unless `multiline`.
  public static func sanitized(_ text: String, multiline: Bool = false) -> String {
    guard text.unicodeScalars.contains(where: { isUnsafe($0, multiline: multiline) }) else { return text }
    var result = ""
    result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
    for scalar in text.unicodeScalars {
      if isUnsafe(scalar, multiline: multiline) {
        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Bytes from an untrusted source (a pipe, a file), decoded as UTF-8 (invalid sequences become U+FFFD) and
  /// sanitized.
  public static func sanitized(bytes: some Collection<UInt8>, multiline: Bool = false) -> String {
    sanitized(String(decoding: Array(bytes), as: UTF8.self), multiline: multiline)
  }

  /// Whether `scalar` must be escaped.
  public static func isUnsafe(_ scalar: Unicode.Scalar, multiline: Bool) -> Bool {
    switch scalar.value {
    case 0x0A, 0x09: return !multiline
    case 0x00...0x1F, 0x7F...0x9F: return true
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
    case 0x2028, 0x2029: return true
    default: return false
    }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
