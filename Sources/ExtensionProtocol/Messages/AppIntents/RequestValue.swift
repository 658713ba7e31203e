/// App Intents extension → host: asks the user for a parameter's value (`$parameter.requestValue(dialog)`), with
/// `dialog`, else the parameter's `requestValueDialog`. The host reads the answer as it reads any value of the
/// parameter's type (an AppEnum's titles and synonyms, the entity query, the options provider).
///
/// Allowed only while the host's `appIntent/perform` to the sender is pending, one question to the user (or
/// `host/requestAuthentication`) at a time per session; otherwise answered with `notAllowedNow` or `busy`. A user who
/// cancels (or nobody to ask): `userCancelled`. See docs/PROTOCOL.md, "App Intents".
public struct RequestValueRequest: RequestMessage, Equatable {
  public static let method = "host/requestValue"
  public typealias Response = RequestValueResult

  /// The parameter of the intent being performed.
  public var parameter: String
  /// What the host asks; not blank, at most `AppIntentLimits.maximumTextLength`.
  public var dialog: String?

  public init(parameter: String, dialog: String? = nil) {
    self.parameter = parameter
    self.dialog = dialog
  }

  private enum CodingKeys: String, CodingKey { case parameter, dialog }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    parameter = try container.decodeName(forKey: .parameter)
    dialog = try container.decodeTextIfPresent(forKey: .dialog)
  }
}

/// The host's answer to `host/requestValue` and `host/requestDisambiguation`: `{"value": …}`, the user's value.
public struct RequestValueResult: Codable, Sendable, Hashable {
  public var value: ParameterValue

  public init(value: ParameterValue) { self.value = value }

  private enum CodingKeys: String, CodingKey { case value }

  public init(from decoder: any Decoder) throws {
    value = try decoder.container(keyedBy: CodingKeys.self).decodeValue(forKey: .value)
  }
}
