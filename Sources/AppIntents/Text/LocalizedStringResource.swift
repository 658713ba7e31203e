// The text types of App Intents: what Foundation on Linux lacks (LocalizedStringResource) and what the intent's
// declarations are written with (IntentDescription, IntentDialog, DisplayRepresentation, TypeDisplayRepresentation).

/// A string the system shows or says, and the key it is localized by (`AppShortcuts.strings`, `Localizable.strings`).
/// Linux Foundation has no `LocalizedStringResource`: this module defines it, with Apple's literal and interpolation
/// spellings.
///
/// ```swift
/// static var title: LocalizedStringResource = "Order Fuel"
/// var localizedStringResource: LocalizedStringResource { "\(reason)" }
/// ```
public struct LocalizedStringResource: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral,
  ExpressibleByStringInterpolation
{
  /// The localization key: the literal text, as Xcode writes it in `Metadata.appintents` (`{"key": …}`).
  public var key: String
  /// The text when no table translates the key: the key itself unless given.
  public var defaultValue: String

  public init(_ key: String, defaultValue: String? = nil) {
    self.key = key
    self.defaultValue = defaultValue ?? key
  }

  public init(stringLiteral value: String) { self.init(value) }

  public init(stringInterpolation: DefaultStringInterpolation) {
    self.init(String(stringInterpolation: stringInterpolation))
  }

  public var description: String { defaultValue }
}

/// An error (or any value) that tells the user what it is: a thrown error that conforms is said to the user as its
/// `localizedStringResource`; any other error is Apple's "unknown error".
///
/// ```swift
/// struct SiriIntentError: Error, CustomLocalizedStringResourceConvertible {
///   let reason: String
///   var localizedStringResource: LocalizedStringResource { "\(reason)" }
/// }
/// ```
public protocol CustomLocalizedStringResourceConvertible {
  var localizedStringResource: LocalizedStringResource { get }
}

/// What an intent does, for lists and search: its text, category and search keywords.
///
/// ```swift
/// static var description = IntentDescription("Orders a full tank", categoryName: "Fuel Ordering",
///                                            searchKeywords: ["fuel", "order"])
/// ```
public struct IntentDescription: Sendable, Hashable, ExpressibleByStringLiteral {
  public var descriptionText: LocalizedStringResource
  public var categoryName: LocalizedStringResource?
  public var searchKeywords: [LocalizedStringResource]

  public init(
    _ descriptionText: LocalizedStringResource, categoryName: LocalizedStringResource? = nil,
    searchKeywords: [LocalizedStringResource] = []
  ) {
    self.descriptionText = descriptionText
    self.categoryName = categoryName
    self.searchKeywords = searchKeywords
  }

  public init(stringLiteral value: String) { self.init(LocalizedStringResource(value)) }
}

/// What the assistant says: a result's dialog, a question, a confirmation's prompt.
///
/// ```swift
/// return .result(dialog: "Awesome! Your fuel order has been placed.")
/// return .result(dialog: IntentDialog(stringLiteral: message))
/// ```
public struct IntentDialog: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral,
  ExpressibleByStringInterpolation
{
  public var resource: LocalizedStringResource

  public init(_ resource: LocalizedStringResource) { self.resource = resource }

  /// Apple's form: the same text for full and supporting dialog (a text host has one).
  public init(full: LocalizedStringResource, supporting: LocalizedStringResource) { self.init(full) }

  public init(stringLiteral value: String) { self.init(LocalizedStringResource(value)) }

  public init(stringInterpolation: DefaultStringInterpolation) {
    self.init(LocalizedStringResource(String(stringInterpolation: stringInterpolation)))
  }

  public var description: String { resource.defaultValue }
}

/// How one value (an enum case, an entity) is shown: its title, subtitle, the other words for it, and an image.
///
/// ```swift
/// .home: DisplayRepresentation(title: "Home", synonyms: ["my house"]),
/// .work: "Work",
/// ```
public struct DisplayRepresentation: Sendable, Hashable, ExpressibleByStringLiteral,
  ExpressibleByStringInterpolation
{
  /// An image by SF Symbol name, kept for lists; a text host does not draw it.
  public struct Image: Sendable, Hashable {
    public var systemName: String
    public init(systemName: String) { self.systemName = systemName }
  }

  public var title: LocalizedStringResource
  public var subtitle: LocalizedStringResource?
  public var image: Image?
  /// Other words a person says for the value; the assistant matches them like the title.
  public var synonyms: [LocalizedStringResource]

  public init(
    title: LocalizedStringResource, subtitle: LocalizedStringResource? = nil, image: Image? = nil,
    synonyms: [LocalizedStringResource] = []
  ) {
    self.title = title
    self.subtitle = subtitle
    self.image = image
    self.synonyms = synonyms
  }

  public init(stringLiteral value: String) { self.init(title: LocalizedStringResource(value)) }

  public init(stringInterpolation: DefaultStringInterpolation) {
    self.init(title: LocalizedStringResource(String(stringInterpolation: stringInterpolation)))
  }
}

/// How a type is named to the user ("Order Location").
///
/// ```swift
/// static var typeDisplayRepresentation: TypeDisplayRepresentation { "Order Location" }
/// static var typeDisplayRepresentation = TypeDisplayRepresentation(name: "Vehicle")
/// ```
public struct TypeDisplayRepresentation: Sendable, Hashable, ExpressibleByStringLiteral {
  public var name: LocalizedStringResource
  public var numericFormat: LocalizedStringResource?

  public init(name: LocalizedStringResource, numericFormat: LocalizedStringResource? = nil) {
    self.name = name
    self.numericFormat = numericFormat
  }

  public init(stringLiteral value: String) { self.init(name: LocalizedStringResource(value)) }
}
