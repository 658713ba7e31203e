/// Host → App Intents extension: the options of one parameter from its `DynamicOptionsProvider` (`results()` and
/// `defaultResult()`), which the host offers when it asks for the parameter. See docs/PROTOCOL.md, "App Intents".
public struct AppIntentOptionsRequest: RequestMessage, Equatable {
  public static let method = "appIntent/options"
  public typealias Response = AppIntentOptionsResult

  /// The intent with the values resolved so far (a provider may read them, as `@IntentParameterDependency` does).
  public var intent: AppIntentInstance
  /// The parameter whose options are asked for.
  public var parameter: String

  public init(intent: AppIntentInstance, parameter: String) {
    self.intent = intent
    self.parameter = parameter
  }

  private enum CodingKeys: String, CodingKey { case intent, parameter }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    intent = try container.decode(AppIntentInstance.self, forKey: .intent)
    parameter = try container.decodeName(forKey: .parameter)
  }
}

/// The options of a parameter: `{"items": […], "sections": [{"title"?, "items"}]?, "default"?}`. A provider's array
/// is `items`; an `ItemCollection`'s sections follow them (`items` may then be empty). At most
/// `AppIntentLimits.maximumItems` values in all.
public struct AppIntentOptionsResult: Codable, Sendable, Hashable {
  /// The options outside any section, first, in order.
  public var items: [ParameterValue]
  /// The sections of an `ItemCollection`, in order.
  public var sections: [OptionSection]?
  /// `defaultResult()`: the value the host proposes first (for a parameter of one value, the first of an array).
  public var defaultValue: ParameterValue?

  public init(items: [ParameterValue], sections: [OptionSection]? = nil, defaultValue: ParameterValue? = nil) {
    self.items = items
    self.sections = sections
    self.defaultValue = defaultValue
  }

  /// Every option, the items first, then each section's.
  public var allItems: [ParameterValue] { items + (sections ?? []).flatMap(\.items) }

  private enum CodingKeys: String, CodingKey {
    case items, sections
    case defaultValue = "default"
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    items = try container.decodeValues(forKey: .items)
    sections = try container.decodeIfPresent([OptionSection].self, forKey: .sections)
    try container.refuse(AppIntentLimits.countProblem(sections?.count ?? 0, field: "sections"))
    defaultValue = try container.decodeValueIfPresent(forKey: .defaultValue)
    try container.refuse(AppIntentLimits.countProblem(allItems.count, field: "the options (items and sections)"))
  }
}

/// One section of options (`ItemSection`): an optional title and its items.
public struct OptionSection: Codable, Sendable, Hashable {
  public var title: String?
  public var items: [ParameterValue]

  public init(title: String? = nil, items: [ParameterValue]) {
    self.title = title
    self.items = items
  }

  private enum CodingKeys: String, CodingKey { case title, items }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    title = try container.decodeTextIfPresent(forKey: .title)
    items = try container.decodeValues(forKey: .items)
  }
}
