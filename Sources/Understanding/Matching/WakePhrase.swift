/// What a user says to wake the assistant ("Hey Siri", "Siri") before the request: no part of it. Siri hears the
/// request after its wake phrase; a typed "Hey Siri, book room 12 for Ada with Rooms" is the request "book room 12 for
/// Ada with Rooms".
package enum WakePhrase {
  /// The wake phrases, as words (`normalizedWords`), the longest first.
  static let phrases: [[String]] = [["hey", "siri"], ["siri"]]

  /// `utterance` without the wake phrase that starts it, and the punctuation after it ("Hey Siri, book room 12 …",
  /// "siri book room 12 …" and "HEY SIRI: book room 12 …" are "book room 12 …"); `utterance` itself when no wake
  /// phrase starts it. Only the start counts: elsewhere the words are the request's ("Book room 12 for Hey Siri with
  /// Rooms" books for "Hey Siri"), and only one wake phrase is removed. An utterance that is only a wake phrase is
  /// empty: nothing was asked.
  package static func removed(from utterance: String) -> String {
    let spoken = spokenWordRanges(utterance)
    let words = spoken.prefix(2).map { $0.word.lowercased() }
    guard let phrase = phrases.first(where: { words.starts(with: $0) }) else { return utterance }
    guard phrase.count < spoken.count else { return "" }
    return String(utterance[spoken[phrase.count].range.lowerBound...])
  }
}
