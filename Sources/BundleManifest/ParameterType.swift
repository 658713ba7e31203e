/// The type of an intent's parameter, a response parameter or a custom type's property, as an intent definition
/// spells it (`INIntentParameterType`, `INIntentResponseParameterType`, `INTypePropertyType`) and as messages name
/// it: the raw value is that spelling ("Integer", "CurrencyAmount"), and `description` is the same.
///
/// The cases are the types the host reads values of, Xcode writes, or the system intents' catalog uses; any other
/// name is `other`, kept as written (the host reads its values as text). Make a type from a name with
/// `init(rawValue:)`, which gives the case of a known spelling: `other` holds only names without one (an
/// `.other("Integer")` made by hand does not match `case .integer`).
public enum ParameterType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  /// "String": text.
  case string
  /// "SpeakableString": text Siri can say (a system intent's names).
  case speakableString
  /// "Integer": a whole number; also an enum parameter's type in Xcode's files (with `INIntentParameterEnumType`).
  case integer
  /// "Decimal": a number.
  case decimal
  /// "Double": a number.
  case double
  /// "Currency": a number (an amount).
  case currency
  /// "CurrencyAmount": Apple's amount with its currency (payments).
  case currencyAmount
  /// "Duration": a length of time, read as a number of seconds.
  case duration
  /// "TimeInterval": Xcode's spelling of a duration parameter.
  case timeInterval
  /// "Boolean": true or false.
  case boolean
  /// "Date": a date and time.
  case date
  /// "DateComponents": a date and time, as Xcode's "Date Components".
  case dateComponents
  /// "DateComponentsRange": a span of dates (a system intent's).
  case dateComponentsRange
  /// "Object": an instance of a custom type (`INIntentParameterObjectType` names it).
  case object
  /// "Enum": a case of an enum (a system intent's; `INIntentParameterEnumType` names it).
  case enumeration
  /// "Person": a contact.
  case person
  /// "Placemark": a place.
  case placemark
  /// "File": a file.
  case file
  /// "MediaItem": a song, album, playlist ... (a system intent's).
  case mediaItem
  /// "MediaSearch": what to look for in a media library (a system intent's).
  case mediaSearch
  /// "Restaurant": a restaurant (a system intent's).
  case restaurant
  /// "PaymentAccount": a bank account (a system intent's).
  case paymentAccount
  /// "PaymentAmount": an amount to pay (a system intent's).
  case paymentAmount
  /// "Note": a note (a system intent's).
  case note
  /// "NoteContent": what a note says (a system intent's).
  case noteContent
  /// Any other name, as written.
  case other(String)

  /// The types with a case of their own, in declaration order.
  public static let known: [ParameterType] = [
    .string, .speakableString, .integer, .decimal, .double, .currency, .currencyAmount, .duration, .timeInterval,
    .boolean, .date, .dateComponents, .dateComponentsRange, .object, .enumeration, .person, .placemark, .file,
    .mediaItem, .mediaSearch, .restaurant, .paymentAccount, .paymentAmount, .note, .noteContent,
  ]

  private static let byName: [String: ParameterType] = Dictionary(
    uniqueKeysWithValues: known.map { ($0.rawValue, $0) })

  /// The type a definition spells `name`: its case, or `other(name)`. Spellings are case-sensitive, as in the
  /// definition ("integer" is `other`).
  public init(rawValue name: String) {
    self = Self.byName[name] ?? .other(name)
  }

  /// The spelling in an intent definition.
  public var rawValue: String {
    switch self {
    case .string: "String"
    case .speakableString: "SpeakableString"
    case .integer: "Integer"
    case .decimal: "Decimal"
    case .double: "Double"
    case .currency: "Currency"
    case .currencyAmount: "CurrencyAmount"
    case .duration: "Duration"
    case .timeInterval: "TimeInterval"
    case .boolean: "Boolean"
    case .date: "Date"
    case .dateComponents: "DateComponents"
    case .dateComponentsRange: "DateComponentsRange"
    case .object: "Object"
    case .enumeration: "Enum"
    case .person: "Person"
    case .placemark: "Placemark"
    case .file: "File"
    case .mediaItem: "MediaItem"
    case .mediaSearch: "MediaSearch"
    case .restaurant: "Restaurant"
    case .paymentAccount: "PaymentAccount"
    case .paymentAmount: "PaymentAmount"
    case .note: "Note"
    case .noteContent: "NoteContent"
    case .other(let name): name
    }
  }

  /// The spelling in an intent definition, as messages name the type.
  public var description: String { rawValue }
}
