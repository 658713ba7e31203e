/// App Intents extension → host: asks the user to pick one of `candidates` for a parameter
/// (`$parameter.requestDisambiguation(among:dialog:)`), with `dialog`, else the parameter's
/// `requestDisambiguationDialog`. The answer is one of the candidates, as given.
///
/// Allowed only while the host's `appIntent/perform` to the sender is pending, one question to the user (or
/// `host/requestAuthentication`) at a time per session; otherwise answered with `notAllowedNow` or `busy`. A user who
/// cancels (or nobody to ask): `userCancelled`. See docs/PROTOCOL.md, "App Intents".
public struct RequestDisambiguationRequest: RequestMessage, Equatable {
  public static let method = "host/requestDisambiguation"
  public typealias Response = RequestValueResult

  /// The parameter of the intent being performed.
  public var parameter: String
  /// 1 to `AppIntentLimits.maximumItems` values of the parameter's type.
  public var candidates: [ParameterValue]
  /// What the host asks; not blank, at most `AppIntentLimits.maximumTextLength`.
  public var dialog: String?

  public init(parameter: String, candidates: [ParameterValue], dialog: String? = nil) {
    self.parameter = parameter
    self.candidates = candidates
    self.dialog = dialog
  }

  private enum CodingKeys: String, CodingKey { case parameter, candidates, dialog }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    parameter = try container.decodeName(forKey: .parameter)
    candidates = try container.decodeValues(forKey: .candidates, minimum: 1)
    dialog = try container.decodeTextIfPresent(forKey: .dialog)
  }
}
