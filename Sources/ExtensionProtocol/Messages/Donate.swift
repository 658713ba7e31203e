/// Extension or app → host: keeps an interaction the user completed, SiriKit's `INInteraction.donate`, so that the
/// assistant can suggest it and the user can make a shortcut of it. Allowed at any time of a session (an app: on its
/// host channel). See docs/PROTOCOL.md, "Requests to the host: donations and vocabulary".
public struct DonateRequest: RequestMessage, Equatable {
  public static let method = "host/donate"
  public typealias Response = DonateResult

  public var interaction: DonatedInteraction
  /// `INInteraction.identifier`: names the donation (for deleting it); 1 to 200 Unicode scalars, no control
  /// characters. Without one, the host names it.
  public var identifier: String?
  /// `INInteraction.groupIdentifier`: donations deleted together; same rules as `identifier`.
  public var groupIdentifier: String?

  public init(interaction: DonatedInteraction, identifier: String? = nil, groupIdentifier: String? = nil) {
    self.interaction = interaction
    self.identifier = identifier
    self.groupIdentifier = groupIdentifier
  }
}

/// What is donated: the intent with its values, and optionally the response it got.
public struct DonatedInteraction: Codable, Sendable, Hashable {
  public var intent: Intent
  public var response: IntentResponse?

  public init(intent: Intent, response: IntentResponse? = nil) {
    self.intent = intent
    self.response = response
  }
}

/// The host's answer to `host/donate`: the donation's identifier (the one given, else the host's).
public struct DonateResult: Codable, Sendable, Equatable {
  public var identifier: String

  public init(identifier: String) { self.identifier = identifier }
}
