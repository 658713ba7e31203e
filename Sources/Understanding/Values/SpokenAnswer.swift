import Foundation

/// What an answer to a question means when it is not a value: yes, no, or "cancel", in the languages IntentHost's
/// locales can be (English, French, Spanish, German, Italian, Portuguese, Japanese), whatever the locale, as a person
/// may answer in their own language an app that speaks another.
///
/// An answer is compared as words: case, accents, the width of Japanese characters and punctuation around or between
/// its words do not count ("Oui !", "sí", "si", "NÃO", "はい。" are all answers), so "d'accord" and "d’accord" are one.
/// docs/CONVERSATION.md ("Answers") lists the words.
package enum SpokenAnswer {
  /// yes in words.
  static let yesWords: [String] = [
    // English
    "yes", "y", "yeah", "yep", "yup", "sure", "ok", "okay", "confirm", "true", "1", "of course", "go ahead",
    "yes please", "do it",
    // French
    "oui", "ouais", "d'accord", "bien sûr", "oui merci", "oui s'il vous plaît", "vas-y", "allez-y", "confirmer",
    // Spanish
    "sí", "claro", "vale", "de acuerdo", "por supuesto", "sí por favor", "confirmar",
    // German
    "ja", "jawohl", "klar", "genau", "na klar", "in ordnung", "ja bitte", "bestätigen",
    // Italian
    "certo", "va bene", "d'accordo", "sì grazie", "confermo", "conferma",
    // Portuguese
    "sim", "com certeza", "está bem", "sim por favor",
    // Japanese
    "はい", "うん", "ええ", "お願いします", "はいお願いします",
  ]

  /// no in words ("cancel" too, as it always was; at a question every cancel word is a no, `answer(to:)`).
  static let noWords: [String] = [
    // English
    "no", "n", "nope", "nah", "false", "0", "no thanks", "no thank you", "don't", "cancel",
    // French
    "non", "non merci", "pas question",
    // Spanish and Italian
    "no gracias", "no grazie",
    // German
    "nein", "nee", "nein danke",
    // Portuguese
    "não", "não obrigado", "não obrigada",
    // Japanese
    "いいえ", "いや", "ううん", "結構です",
  ]

  /// Words that end the intent at any question, as Siri takes "cancel" at any prompt. At a yes/no question they are
  /// a no.
  static let cancelWords: [String] = [
    // English ("quit" and "exit", as `assistant shell` ends on them)
    "cancel", "stop", "never mind", "nevermind", "quit", "exit", "cancel it", "forget it",
    // French
    "annuler", "annule", "arrête", "laisse tomber",
    // Spanish and Portuguese
    "cancelar", "cancela", "para", "pare",
    // German
    "abbrechen", "stopp", "vergiss es",
    // Italian
    "annulla", "basta", "lascia perdere",
    // Japanese
    "キャンセル", "やめて", "やめる", "中止",
  ]

  private static let yes = Set(yesWords.map(key))
  private static let no = Set(noWords.map(key))
  private static let cancel = Set(cancelWords.map(key))

  /// true for yes, false for no, nil for anything else: a Boolean value said in words (`ValueInterpreter`).
  package static func yesNo(_ text: String) -> Bool? {
    let key = key(text)
    if yes.contains(key) { return true }
    if no.contains(key) { return false }
    return nil
  }

  /// The answer to a yes/no question: `yesNo`, and a cancel word is a no ("stop" declines).
  package static func answer(to text: String) -> Bool? {
    yesNo(text) ?? (isCancel(text) ? false : nil)
  }

  /// Whether `text` asks to stop ("cancel", "annuler", "キャンセル").
  package static func isCancel(_ text: String) -> Bool {
    cancel.contains(key(text))
  }

  /// The words of `text` as they are compared: folded (case, accents, width), apostrophes made one, every other
  /// punctuation mark or symbol a space, runs of spaces one.
  static func key(_ text: String) -> String {
    let folded = text.replacingOccurrences(of: "’", with: "'").folding(
      options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    var words: [String] = []
    var current = ""
    for scalar in folded.unicodeScalars {
      let separates =
        scalar != "'" && scalar != "-"
        && (CharacterSet.whitespacesAndNewlines.contains(scalar) || CharacterSet.punctuationCharacters.contains(scalar)
          || CharacterSet.symbols.contains(scalar))
      if separates {
        if !current.isEmpty { words.append(current) }
        current = ""
      } else {
        current.unicodeScalars.append(scalar)
      }
    }
    if !current.isEmpty { words.append(current) }
    return words.joined(separator: " ")
  }
}

/// yes/no in the words people use, in any of the supported languages (`SpokenAnswer.yesNo`).
func parseYesNo(_ text: String) -> Bool? {
  SpokenAnswer.yesNo(text)
}
