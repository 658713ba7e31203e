/// An App Intent with its parameter values (docs/PROTOCOL.md, "App Intents"): what `appIntent/perform` performs and
/// what `appIntent/options` asks about. On the wire `{"identifier": "OrderFuelIntent", "parameters": {…}}`.
///
/// Unlike a SiriKit `Intent`, whose `identifier` names one request and whose `name` names its class, `identifier` here
/// names the intent's type, as App Intents does (the key of `actions` in `Metadata.appintents`, the Swift type's
/// name): App Intents has no per-request identifier.
public struct AppIntentInstance: Codable, Sendable, Hashable {
  /// The intent's identifier in the app's `Metadata.appintents` (its Swift type's name): a name as
  /// `AppIntentLimits.nameProblem` wants.
  public var identifier: String
  /// The parameters' values by the parameter's name; a parameter without a value is absent. An AppEnum value is an
  /// `enum` (the case's identifier), an AppEntity an `object` (`identifier`, `displayString`, `properties`).
  public var parameters: [String: ParameterValue]

  public init(identifier: String, parameters: [String: ParameterValue] = [:]) {
    self.identifier = identifier
    self.parameters = parameters
  }

  public subscript(parameter: String) -> ParameterValue? {
    get { parameters[parameter] }
    set { parameters[parameter] = newValue }
  }

  private enum CodingKeys: String, CodingKey { case identifier, parameters }

  /// Decodes and checks the identifier and the parameters (`AppIntentLimits.propertiesProblem`).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    identifier = try container.decodeName(forKey: .identifier)
    parameters = try container.decode([String: ParameterValue].self, forKey: .parameters)
    try container.refuse(AppIntentLimits.propertiesProblem(parameters, field: "parameters"))
  }
}
