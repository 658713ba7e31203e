/// App Intents extension → host: asks the user to confirm a parameter's value
/// (`$parameter.requestConfirmation(for:dialog:)`): yes or no. A separate method from the intent-level
/// `host/requestConfirmation`, because its answer differs: a "no" here is an answer (`confirmed: false`, Apple's
/// `false`), where the intent-level one throws.
///
/// Allowed only while the host's `appIntent/perform` to the sender is pending, one question to the user (or
/// `host/requestAuthentication`) at a time per session; otherwise answered with `notAllowedNow` or `busy`. A user who
/// cancels (or nobody to ask): `userCancelled`. See docs/PROTOCOL.md, "App Intents".
public struct RequestParameterConfirmationRequest: RequestMessage, Equatable {
  public static let method = "host/requestParameterConfirmation"
  public typealias Response = RequestParameterConfirmationResult

  /// The parameter of the intent being performed.
  public var parameter: String
  /// The value to confirm.
  public var value: ParameterValue
  /// What the host asks; not blank, at most `AppIntentLimits.maximumTextLength`. Without one, the host asks with the
  /// parameter's title and the value.
  public var dialog: String?

  public init(parameter: String, value: ParameterValue, dialog: String? = nil) {
    self.parameter = parameter
    self.value = value
    self.dialog = dialog
  }

  private enum CodingKeys: String, CodingKey { case parameter, value, dialog }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    parameter = try container.decodeName(forKey: .parameter)
    value = try container.decodeValue(forKey: .value)
    dialog = try container.decodeTextIfPresent(forKey: .dialog)
  }
}

/// The host's answer to `host/requestParameterConfirmation`: `{"confirmed": true}` for yes, `false` for no.
public struct RequestParameterConfirmationResult: Codable, Sendable, Hashable {
  public var confirmed: Bool

  public init(confirmed: Bool) { self.confirmed = confirmed }
}
