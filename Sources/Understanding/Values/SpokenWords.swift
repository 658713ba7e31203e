// Words as the matcher compares them: folded, split, with their ranges in the text.
import ExtensionProtocol
import Foundation

/// The little words `sameWords` ignores.
let sameWordsFiller: Set<String> = ["a", "an", "the", "my", "of"]

/// Whether two phrases are the same words, ignoring the little words people add or drop ("cancel booking" is
/// "cancel my booking of"), and case and punctuation.
package func sameWords(_ a: String, _ b: String) -> Bool {
  let filler = sameWordsFiller
  let left = normalizedWords(a)
  let right = normalizedWords(b)
  if left == right { return true }
  let leftCore = left.filter { !filler.contains($0) }
  return !leftCore.isEmpty && leftCore == right.filter { !filler.contains($0) }
}

/// Lower-cased words without punctuation, for matching speech (`spokenWords(_:)`).
package func normalizedWords(_ text: String) -> [String] {
  spokenWords(text).map { $0.lowercased() }
}

/// Words without punctuation, case kept (names keep their capitals), in Unicode compatibility form (NFKC: `Ｒｏｏｍｓ`
/// is `Rooms`, `１２` is `12`, `ﬁ` is `fi`). A word is a run of letters and digits. An apostrophe (`'`, or a
/// typographic `’`, `‘`, `ʼ`) between two letters or digits is dropped, the word going on: "room's" is the word
/// "rooms", "O’Brien" is "OBrien"; anywhere else it ends a word, as a quotation mark does. A hyphen or a slash
/// separates words ("Book-room", "book/cancel", "Ada-Lovelace" are two words each), except in a number, a time or a
/// date, which stays one word: a `-` between two digits (`2026-11-21`) or starting a number (`-3`) is kept, a `.` or
/// `:` between two digits is kept (`2.5`, `09:30`), and so is the `+` of an ISO 8601 date-time's offset
/// (`2026-11-21T09:30:00+02:00`). Default-ignorable
/// code points (U+00AD soft hyphen, U+200B–U+200D zero-width space and joiners, U+2060 word joiner, U+FEFF, variation
/// selectors …; not the bidirectional controls) are dropped: "Book\u{00AD}room" is the word "Bookroom", as it is
/// shown. Any other character ends a word, so "Rooms, book room 12." is four words.
package func spokenWords(_ text: String) -> [String] {
  spokenWordRanges(text).map(\.word)
}

/// The words of `text` (`spokenWords(_:)`), each with where it is in `text`, so that what lies between two words
/// (punctuation, symbols, emoji) can be read as it was written.
func spokenWordRanges(_ text: String) -> [(range: Range<String.Index>, word: String)] {
  // Each character as the words see it: in compatibility form, a typographic apostrophe as "'".
  // Default-ignorable code points (a soft hyphen, a zero-width space or joiner, a word joiner, a byte order mark, a
  // variation selector) are invisible: they are dropped, neither part of a word nor the end of one.
  let characters: [(index: String.Index, folded: String)] = text.indices.compactMap { index in
    let character = text[index]
    if ["’", "‘", "ʼ"].contains(character) { return (index, "'") }
    if character.isASCII { return (index, String(character)) }
    // (Not the bidirectional controls: those end a word, as other controls do.)
    let visible = character.unicodeScalars.filter {
      !$0.properties.isDefaultIgnorableCodePoint || DonationLimits.isControl($0)
    }
    guard !visible.isEmpty else { return nil }
    return (index, String(String.UnicodeScalarView(visible)).precomposedStringWithCompatibilityMapping)
  }
  var words: [(range: Range<String.Index>, word: String)] = []
  var word = ""
  var start = text.startIndex
  func isDigit(_ index: Int) -> Bool {
    characters.indices.contains(index) && !characters[index].folded.isEmpty
      && characters[index].folded.allSatisfy(\.isNumber)
  }
  func isLetterOrDigit(_ index: Int) -> Bool {
    characters.indices.contains(index) && !characters[index].folded.isEmpty
      && characters[index].folded.allSatisfy { $0.isLetter || $0.isNumber }
  }
  for (index, (position, folded)) in characters.enumerated() {
    let kept: Bool
    if folded == "'" {
      // "room's" is "rooms": inside a word the apostrophe is dropped, the word goes on.
      if !word.isEmpty, isLetterOrDigit(index - 1), isLetterOrDigit(index + 1) { continue }
      kept = false
    } else if !folded.isEmpty, folded.allSatisfy({ $0.isLetter || $0.isNumber }) {
      kept = true
    } else if folded == "-" {
      // A date ("2026-11-21") or a negative number ("-3"); "Book-room" is two words.
      kept = isDigit(index + 1) && (word.isEmpty || isDigit(index - 1))
    } else if folded == "." || folded == ":" {
      kept = !word.isEmpty && isDigit(index - 1) && isDigit(index + 1)
    } else if folded == "+" {
      kept = isDigit(index - 1) && isDigit(index + 1) && startsWithDateAndTime(word)
    } else {
      kept = false
    }
    if kept {
      if word.isEmpty { start = position }
      word += folded
    } else if !word.isEmpty {
      words.append((start..<position, word))
      word = ""
    }
  }
  if !word.isEmpty { words.append((start..<text.endIndex, word)) }
  return words
}

/// A value as the user wrote it (`UtteranceMatcher` takes a `String` slot's text this way): without the spaces
/// around it, the punctuation that ends a sentence or a clause after it (`.` `?` `!` `,` `;` `:` `…`), a `,` `;` or
/// `:` before it, and a pair of quotation marks around the whole. Everything else is kept: case, inner punctuation,
/// symbols, emoji and invisible characters (the sanitizer escapes those when the value is shown).
func writtenValue(_ text: Substring) -> String {
  var text = text
  func trim(_ characters: Set<Character>, leading: Bool) {
    while let first = text.first, leading, first.isWhitespace || characters.contains(first) { text.removeFirst() }
    while let last = text.last, !leading, last.isWhitespace || characters.contains(last) { text.removeLast() }
  }
  trim([",", ";", ":"], leading: true)
  trim([".", "?", "!", ",", ";", ":", "…"], leading: false)
  let pairs: [Character: Character] = ["\"": "\"", "'": "'", "“": "”", "‘": "’", "«": "»"]
  if text.count > 2, let first = text.first, let close = pairs[first], text.last == close {
    text = text.dropFirst().dropLast()
    trim([], leading: true)
    trim([], leading: false)
  }
  return String(text)
}

/// Whether `word` starts as an ISO 8601 date-time does: `YYYY-MM-DDT`.
private func startsWithDateAndTime(_ word: String) -> Bool {
  let characters = Array(word.prefix(11))
  guard characters.count == 11 else { return false }
  return characters.enumerated().allSatisfy { index, character in
    switch index {
    case 4, 7: return character == "-"
    case 10: return character == "T" || character == "t"
    default: return character.isASCII && character.isNumber
    }
  }
}
