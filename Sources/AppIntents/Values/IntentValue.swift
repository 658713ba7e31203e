// How a Swift value crosses the wire as a parameter of an App Intent, and what its type is in the metadata.
import ExtensionProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The type of a parameter as `Metadata.appintents` names it (`valueType`): a primitive, an `AppEnum`, an
/// `AppEntity`, an array of one of these, or an optional one.
public indirect enum IntentValueType: Sendable, Hashable {
  case string, bool, int, double, date, url
  /// A `Duration`: a `Measurement<UnitDuration>` in the metadata, seconds on the wire.
  case duration
  /// An `AppEnum`, by its type name.
  case enumeration(String)
  /// An `AppEntity`, by its type name.
  case entity(String)
  case array(IntentValueType)
  case optional(IntentValueType)
}

/// A type an `@Parameter` can hold: String, Int, Double, Bool, Date, URL, Duration, an `AppEnum`, an `AppEntity`, an
/// array or an optional of these. Apple's framework spells this `_IntentValue` too; conform through `AppEnum` or
/// `AppEntity`, not directly.
public protocol _IntentValue: Sendable {
  /// What the metadata says of the type.
  static var intentValueType: IntentValueType { get }
  /// The value on the wire.
  var intentValue: ParameterValue { get }
  /// The value the host sent, or nil when it does not fit this type (an entity is looked up with its query).
  static func fromIntentValue(_ value: ParameterValue) async throws -> Self?
  /// The value of a parameter nobody gave: nil for an optional, none for anything else.
  static var _unsetValue: Self? { get }
}

extension _IntentValue {
  public static var _unsetValue: Self? { nil }
}

extension String: _IntentValue {
  public static var intentValueType: IntentValueType { .string }
  public var intentValue: ParameterValue { .string(self) }
  public static func fromIntentValue(_ value: ParameterValue) async throws -> String? {
    if case .string(let text) = value { return text }
    return nil
  }
}

extension Int: _IntentValue {
  public static var intentValueType: IntentValueType { .int }
  public var intentValue: ParameterValue { .integer(self) }
  public static func fromIntentValue(_ value: ParameterValue) async throws -> Int? {
    if case .integer(let number) = value { return number }
    return nil
  }
}

extension Double: _IntentValue {
  public static var intentValueType: IntentValueType { .double }
  public var intentValue: ParameterValue { .decimal(self) }
  public static func fromIntentValue(_ value: ParameterValue) async throws -> Double? {
    switch value {
    case .decimal(let number): return number
    case .integer(let number): return Double(number)
    default: return nil
    }
  }
}

extension Bool: _IntentValue {
  public static var intentValueType: IntentValueType { .bool }
  public var intentValue: ParameterValue { .boolean(self) }
  public static func fromIntentValue(_ value: ParameterValue) async throws -> Bool? {
    if case .boolean(let flag) = value { return flag }
    return nil
  }
}

extension Date: _IntentValue {
  public static var intentValueType: IntentValueType { .date }
  public var intentValue: ParameterValue { .date(self) }
  public static func fromIntentValue(_ value: ParameterValue) async throws -> Date? {
    if case .date(let date) = value { return date }
    return nil
  }
}

extension URL: _IntentValue {
  public static var intentValueType: IntentValueType { .url }
  public var intentValue: ParameterValue { .string(absoluteString) }
  public static func fromIntentValue(_ value: ParameterValue) async throws -> URL? {
    if case .string(let text) = value { return URL(string: text) }
    return nil
  }
}

/// A length of time, where Apple's API has `Measurement<UnitDuration>` (Foundation's units need ICU, which an extension
/// does not link): `@Parameter(title: "Duration") var duration: Duration`. The user says "90 minutes" or "1 hour 30
/// minutes"; on the wire it is a number of seconds.
extension Duration: _IntentValue {
  public static var intentValueType: IntentValueType { .duration }
  public var intentValue: ParameterValue {
    let (seconds, attoseconds) = components
    return .decimal(Double(seconds) + Double(attoseconds) / 1e18)
  }
  public static func fromIntentValue(_ value: ParameterValue) async throws -> Duration? {
    let seconds: Double
    switch value {
    case .decimal(let number): seconds = number
    case .integer(let number): seconds = Double(number)
    default: return nil
    }
    // A finite, non-negative length a Duration holds (Int64 seconds).
    guard seconds.isFinite, seconds >= 0, seconds < 9e15 else { return nil }
    return .milliseconds(Int64((seconds * 1000).rounded()))
  }
}

extension Array: _IntentValue where Element: _IntentValue {
  public static var intentValueType: IntentValueType { .array(Element.intentValueType) }
  public var intentValue: ParameterValue { .array(map(\.intentValue)) }
  public static func fromIntentValue(_ value: ParameterValue) async throws -> [Element]? {
    guard case .array(let values) = value else { return nil }
    var elements: [Element] = []
    for value in values {
      guard let element = try await Element.fromIntentValue(value) else { return nil }
      elements.append(element)
    }
    return elements
  }
}

extension Optional: _IntentValue where Wrapped: _IntentValue {
  public static var intentValueType: IntentValueType { .optional(Wrapped.intentValueType) }
  /// nil goes as an empty array: the host leaves an unset optional out of the parameters instead.
  public var intentValue: ParameterValue { map(\.intentValue) ?? .array([]) }
  public static func fromIntentValue(_ value: ParameterValue) async throws -> Wrapped?? {
    guard let wrapped = try await Wrapped.fromIntentValue(value) else { return nil }
    return .some(.some(wrapped))
  }
  public static var _unsetValue: Wrapped?? { .some(nil) }
}
