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

/// Extension or app → host: keeps an App Intent the user ran in the app, App Intents' `IntentDonationManager.donate
/// (intent:)` and `AppIntent.donate()`, so that the user can make a shortcut of it. The same method as `DonateRequest`
/// (`host/donate`), told apart by its `appIntent` field; the same answer and the same times (any time of a session;
/// an app: on its host channel or, launched to perform App Intents, on its protocol pipes). See docs/PROTOCOL.md,
/// "Requests to the host: donations and vocabulary".
///
/// ```json
/// {"appIntent": {"identifier": "OrderFuelIntent", "parameters": {"location": {"type": "enum", "value": "home"}}}}
/// ```
public struct DonateAppIntentRequest: RequestMessage, Equatable {
  public static let method = DonateRequest.method
  public typealias Response = DonateResult

  /// The intent with the values it ran with: its identifier one of the app's `Metadata.appintents` declares.
  public var appIntent: AppIntentInstance
  /// Names the donation (for deleting it); the rules of `DonateRequest.identifier`. Without one, the host names it.
  public var identifier: String?
  /// Donations deleted together; the same rules.
  public var groupIdentifier: String?

  public init(appIntent: AppIntentInstance, identifier: String? = nil, groupIdentifier: String? = nil) {
    self.appIntent = appIntent
    self.identifier = identifier
    self.groupIdentifier = groupIdentifier
  }

  /// What a `host/donate` request's params donate, read before they are decoded as one or the other: an App Intent
  /// when they have an `appIntent` field (`DonateAppIntentRequest`), else a SiriKit interaction (`DonateRequest`).
  public struct Kind: Codable, Sendable, Equatable {
    public var isAppIntent: Bool
    /// Whether the params have an `interaction` field too (both is no donation: the host refuses it).
    public var hasInteraction: Bool

    public init(isAppIntent: Bool, hasInteraction: Bool = false) {
      self.isAppIntent = isAppIntent
      self.hasInteraction = hasInteraction
    }

    private enum CodingKeys: String, CodingKey { case appIntent, interaction }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      isAppIntent = container.contains(.appIntent)
      hasInteraction = container.contains(.interaction)
    }

    /// What is wrong with the params' shape, or nil: exactly one of `interaction` and `appIntent`.
    public var problem: String? {
      switch (isAppIntent, hasInteraction) {
      case (true, true): "give interaction (a SiriKit interaction) or appIntent (an App Intent), not both"
      case (false, false): "give interaction (a SiriKit interaction) or appIntent (an App Intent)"
      default: nil
      }
    }

    public func encode(to encoder: any Encoder) throws {}
  }
}
