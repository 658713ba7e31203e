/// What library code depends on to donate interactions, without knowing whether an app or an extension runs it (seed
/// 001's dependency inversion: a shared framework holds an `any IntentDonating` that the app and its extension each
/// give it). The SDK's `AppContext` and `ExtensionContext` implement it, sending `host/donate` and
/// `host/deleteDonations`.
public protocol IntentDonating: Sendable {
  /// Donates `interaction` (SiriKit's `INInteraction.donate`).
  /// - Returns: the donation's identifier: `identifier`, else the host's.
  /// - Throws: `ResponseError` when the host refuses it (`invalidParams`: see `DonationLimits`), or cannot be
  ///   reached.
  @discardableResult
  func donate(_ interaction: DonatedInteraction, identifier: String?, groupIdentifier: String?) async throws -> String

  /// Deletes donations of this app.
  /// - Returns: how many were deleted.
  @discardableResult
  func deleteDonations(_ selection: DonationSelection) async throws -> Int
}

extension IntentDonating {
  /// Donates `interaction` without an identifier or a group.
  @discardableResult
  public func donate(_ interaction: DonatedInteraction) async throws -> String {
    try await donate(interaction, identifier: nil, groupIdentifier: nil)
  }
}

/// What registers the user's own terms (SiriKit's `INVocabulary`); the SDK's contexts implement it.
public protocol VocabularyRegistering: Sendable {
  /// Replaces the app's terms of `type` with `strings`, most important first; `[]` removes them.
  /// - Returns: how many terms the host kept.
  @discardableResult
  func setVocabularyStrings(_ strings: [String], of type: VocabularyStringType) async throws -> Int
}

/// What publishes the app's suggested shortcuts ("Add to Siri", SiriKit's
/// `INVoiceShortcutCenter.setShortcutSuggestions(_:)`), for library code that does not know whether an app or an
/// extension runs it; the SDK's `AppContext` and `ExtensionContext` implement it, sending
/// `host/setShortcutSuggestions`.
public protocol ShortcutSuggesting: Sendable {
  /// Replaces the app's suggested shortcuts with `suggestions`, in the order they should be shown; `[]` removes them.
  /// An equal suggestion (same intent class, values and phrase) published again keeps its identifier.
  /// - Returns: the host's identifier of each suggestion (`s` and a number), in order: what the user accepts with
  ///   `assistant shortcuts add --from ID`.
  /// - Throws: `ResponseError` when the host refuses them (`invalidParams`: see `DonationLimits`; then none is kept
  ///   and the previous ones stay), or cannot be reached.
  @discardableResult
  func setShortcutSuggestions(_ suggestions: [ShortcutSuggestion]) async throws -> [String]
}

/// The bounds the host enforces on donations and vocabulary (docs/PROTOCOL.md, "Requests to the host: donations and
/// vocabulary"). Lengths are in Unicode scalars.
public enum DonationLimits {
  /// Donations kept per app; past it the oldest is dropped.
  public static let donationsPerApp = 100
  public static let maximumIdentifierLength = 200
  public static let maximumStringValueLength = 1000
  public static let maximumArrayCount = 100
  /// The largest message (the whole JSON line) of a donation, deletion or vocabulary request, in bytes.
  public static let maximumMessageBytes = 16384
  /// The largest `host/setShortcutSuggestions` message, in bytes: room for `maximumSuggestions` of them.
  public static let maximumSuggestionsMessageBytes = 32768
  public static let maximumDeletedIdentifiers = 100
  public static let maximumVocabularyStrings = 500
  public static let maximumVocabularyStringLength = 100
  /// Suggested shortcuts kept per app (`host/setShortcutSuggestions`).
  public static let maximumSuggestions = 50
  /// The longest shortcut phrase, suggested or the user's, in Unicode scalars.
  public static let maximumPhraseLength = 200

  /// What is wrong with an `identifier` or `groupIdentifier` named `field`, or nil. (A donation's own `identifier`
  /// may not hold a colon either: `donationIdentifierProblem`.)
  public static func identifierProblem(_ identifier: String, field: String) -> String? {
    let length = identifier.unicodeScalars.count
    if length == 0 { return "\(field) is empty" }
    if length > maximumIdentifierLength {
      return "\(field) is \(length) Unicode scalars long; the limit is \(maximumIdentifierLength)"
    }
    if identifier.unicodeScalars.contains(where: isControl) { return "\(field) contains a control character" }
    return nil
  }

  /// What is wrong with the `identifier` a sender gives a donation, or nil: what `identifierProblem` refuses, and a
  /// colon, which the command line uses to qualify an identifier (`assistant shortcuts add --from
  /// com.example.rooms:d1`), so that no app can give a donation a name that reads as another app's.
  public static func donationIdentifierProblem(_ identifier: String) -> String? {
    if let problem = identifierProblem(identifier, field: "identifier") { return problem }
    if identifier.contains(":") {
      return "identifier contains a colon (\":\"), which the host uses to qualify identifiers with an app's name"
    }
    return nil
  }

  /// What is wrong with a vocabulary term at `index`, or nil.
  public static func vocabularyStringProblem(_ string: String, index: Int) -> String? {
    let length = string.unicodeScalars.count
    if string.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) { return "strings[\(index)] is blank" }
    if length > maximumVocabularyStringLength {
      return "strings[\(index)] is \(length) Unicode scalars long; the limit is \(maximumVocabularyStringLength)"
    }
    if string.unicodeScalars.contains(where: isControl) { return "strings[\(index)] contains a control character" }
    return nil
  }

  /// What is wrong with a shortcut phrase named `field` (a suggested one, or the user's), or nil: it must be 1 to
  /// `maximumPhraseLength` Unicode scalars, not blank, without control characters. (The host also wants a word in
  /// it: a letter or a digit.)
  public static func phraseProblem(_ phrase: String, field: String) -> String? {
    let length = phrase.unicodeScalars.count
    if phrase.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) { return "\(field) is blank" }
    if length > maximumPhraseLength {
      return "\(field) is \(length) Unicode scalars long; the limit is \(maximumPhraseLength)"
    }
    if phrase.unicodeScalars.contains(where: isControl) { return "\(field) contains a control character" }
    return nil
  }

  /// C0, DEL, C1, the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line
  /// and paragraph separators (U+2028, U+2029): what the output sanitizer escapes.
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
      || (0x2066...0x2069).contains(scalar.value) || [0x061C, 0x200E, 0x200F, 0x2028, 0x2029].contains(scalar.value)
  }
}
