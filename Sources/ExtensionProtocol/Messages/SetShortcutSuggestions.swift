/// Extension or app → host: publishes the app's suggested shortcuts ("Add to Siri"), SiriKit's
/// `INVoiceShortcutCenter.setShortcutSuggestions(_:)`: the new list replaces the previous one; an empty list removes
/// them. The user adds one with `assistant shortcuts add --from ID [PHRASE]`. See docs/PROTOCOL.md, "Requests to the
/// host: donations and vocabulary".
public struct SetShortcutSuggestionsRequest: RequestMessage, Equatable {
  public static let method = "host/setShortcutSuggestions"
  public typealias Response = SetShortcutSuggestionsResult

  /// At most `DonationLimits.maximumSuggestions`, in the order the app wants them shown.
  public var suggestions: [ShortcutSuggestion]

  public init(suggestions: [ShortcutSuggestion]) { self.suggestions = suggestions }
}

/// One suggested shortcut: the intent with the values the app chose, and the phrase it suggests
/// (`INIntent.suggestedInvocationPhrase`).
public struct ShortcutSuggestion: Codable, Sendable, Hashable {
  public var intent: Intent
  /// 1 to `DonationLimits.maximumPhraseLength` Unicode scalars, at least one word, no control characters.
  public var phrase: String

  public init(intent: Intent, phrase: String) {
    self.intent = intent
    self.phrase = phrase
  }
}

/// The host's answer to `host/setShortcutSuggestions`: the identifier the host gave each suggestion, in order (an
/// equal suggestion published again keeps its identifier).
public struct SetShortcutSuggestionsResult: Codable, Sendable, Equatable {
  public var identifiers: [String]

  public init(identifiers: [String]) { self.identifiers = identifiers }
}
