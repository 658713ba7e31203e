import AssistantHost
import ExtensionProtocol
import Understanding

/// What a phrase selects, as the assistant understands it (`TestHost.match(_:)`): an app, an intent and the values
/// the phrase says. Nothing runs to find it.
///
/// ```swift
/// let matches = try await host.match("Book room 12 for Ada with Rooms")
/// #expect(matches == [PhraseMatch(app: "Rooms", bundleIdentifier: "com.example.rooms", intent: "BookRoomIntent",
///   parameters: ["roomNumber": .integer(12), "bookedBy": .string("Ada"), "isCancellationOfBooking": .boolean(false)],
///   kind: .intent)])
/// ```
public struct PhraseMatch: Sendable, Hashable {
  /// Where the phrase comes from.
  public enum Kind: Sendable, Hashable {
    /// A SiriKit intent's phrases: vocabulary examples, parameter-combination titles, Siri's system phrases.
    case intent
    /// An App Shortcut phrase of the app's App Intents, said whole.
    case appShortcut
  }

  /// The app's name, e.g. `Rooms`.
  public var app: String
  /// The app's bundle identifier.
  public var bundleIdentifier: String
  /// A SiriKit intent's class (`BookRoomIntent`) or an App Intent's identifier (`OrderFuelIntent`).
  public var intent: String
  /// The values the phrase says, typed by the intent's definition, by parameter name.
  public var parameters: [String: ParameterValue]
  /// Whether a SiriKit intent's phrase or an App Shortcut matched.
  public var kind: Kind

  /// A match, to compare with what `TestHost.match(_:)` returns.
  public init(
    app: String, bundleIdentifier: String, intent: String, parameters: [String: ParameterValue], kind: Kind
  ) {
    self.app = app
    self.bundleIdentifier = bundleIdentifier
    self.intent = intent
    self.parameters = parameters
    self.kind = kind
  }
}

extension TestHost {
  /// What `phrase` selects among the installed apps, best first, as `say` understands it, without starting any
  /// process or asking anything: one match, or several when the assistant would ask "which one?". The user's
  /// shortcuts and capability questions ("What can you do?") are not matched here.
  ///
  /// ```swift
  /// let match = try await host.match("Start a wall climb workout with Ascent").first
  /// #expect(match?.intent == "INStartWorkoutIntent")
  /// ```
  /// - Returns: the matches; empty when nothing matches.
  /// - Throws: `TestHostError` when the installed apps cannot be read.
  public func match(_ phrase: String) async throws -> [PhraseMatch] {
    try checkOpen()
    var configuration = Assistant.Configuration(home: engineHome, conversation: TestConversation(.stepped))
    configuration.locale = locale
    let assistant = Assistant(configuration)
    return try await reportingErrors {
      let candidates: [Assistant.Candidate]
      do {
        candidates = try await assistant.candidates(for: phrase)
      } catch let error as UnderstandingError where error.kind == .noMatch {
        return []
      }
      return candidates.map { candidate in
        switch candidate {
        case .appShortcut(let invocation):
          PhraseMatch(
            app: invocation.app.name, bundleIdentifier: invocation.app.identifier.rawValue,
            intent: invocation.identifier, parameters: invocation.values, kind: .appShortcut)
        case .intent(let match):
          PhraseMatch(
            app: match.app.name, bundleIdentifier: match.app.identifier.rawValue, intent: match.intentClass,
            parameters: match.values, kind: .intent)
        }
      }
    }
  }
}
