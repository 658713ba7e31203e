#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A Swift type that a property of a generated intent or response has (docs/INTENT-CODEGEN.md, "Type mapping"): how
/// its value is read from a `ParameterValue` and written back.
///
/// Requirements:
/// - `init?(parameterValue:)`: the value `parameterValue` carries, or nil when it carries a value of another type (a
///   generated intent then reads the parameter as missing).
/// - `parameterValue`: the value on the wire.
public protocol IntentValue: Sendable, Hashable {
  init?(parameterValue: ParameterValue)
  var parameterValue: ParameterValue { get }
}

extension Int: IntentValue {
  /// An `integer`.
  public init?(parameterValue: ParameterValue) {
    guard case .integer(let value) = parameterValue else { return nil }
    self = value
  }
  public var parameterValue: ParameterValue { .integer(self) }
}

extension Double: IntentValue {
  /// A `decimal`, or an `integer` (a number said without a fraction: "a goal of 5").
  public init?(parameterValue: ParameterValue) {
    switch parameterValue {
    case .decimal(let value): self = value
    case .integer(let value): self = Double(value)
    default: return nil
    }
  }
  public var parameterValue: ParameterValue { .decimal(self) }
}

extension Bool: IntentValue {
  /// A `boolean`.
  public init?(parameterValue: ParameterValue) {
    guard case .boolean(let value) = parameterValue else { return nil }
    self = value
  }
  public var parameterValue: ParameterValue { .boolean(self) }
}

extension String: IntentValue {
  /// A `string`.
  public init?(parameterValue: ParameterValue) {
    guard case .string(let value) = parameterValue else { return nil }
    self = value
  }
  public var parameterValue: ParameterValue { .string(self) }
}

extension Date: IntentValue {
  /// A `date`.
  public init?(parameterValue: ParameterValue) {
    guard case .date(let value) = parameterValue else { return nil }
    self = value
  }
  public var parameterValue: ParameterValue { .date(self) }
}

extension ObjectValue: IntentValue {
  /// An `object`: an instance of a custom type (`INObject`).
  public init?(parameterValue: ParameterValue) {
    guard case .object(let value) = parameterValue else { return nil }
    self = value
  }
  public var parameterValue: ParameterValue { .object(self) }
}

extension ParameterValue: IntentValue {
  /// Any value, as it is: the type of parameters with no Swift type of their own (a person, a placemark, a file).
  public init?(parameterValue: ParameterValue) { self = parameterValue }
  public var parameterValue: ParameterValue { self }
}

extension Array: IntentValue where Element: IntentValue {
  /// An `array` whose every element is an `Element`; a single `Element` is read as an array of one (a parameter that
  /// supports multiple values, given one). Nil when any element is of another type.
  public init?(parameterValue: ParameterValue) {
    guard case .array(let values) = parameterValue else {
      guard let single = Element(parameterValue: parameterValue) else { return nil }
      self = [single]
      return
    }
    var elements: [Element] = []
    elements.reserveCapacity(values.count)
    for value in values {
      guard let element = Element(parameterValue: value) else { return nil }
      elements.append(element)
    }
    self = elements
  }
  public var parameterValue: ParameterValue { .array(map(\.parameterValue)) }
}

/// An enum of an intent definition (`INEnums`) or one of Apple's system enums, as the generator writes it: a case per
/// value, whose raw value is the value's name as the wire carries it (`.enumCase("delivery")`).
///
/// Requirements: none beyond `RawRepresentable` with a `String` raw value and `CaseIterable`; the reading and the
/// writing of values are given.
public protocol IntentEnum: IntentValue, RawRepresentable, CaseIterable where RawValue == String {}

extension IntentEnum {
  /// An `enum` value naming one of the cases; nil for another name.
  public init?(parameterValue: ParameterValue) {
    guard case .enumCase(let name) = parameterValue else { return nil }
    self.init(rawValue: name)
  }
  public var parameterValue: ParameterValue { .enumCase(rawValue) }
}

extension Intent {
  /// The value of `parameter` as a `Value`: nil when the intent has none, or one of another type.
  public func value<Value: IntentValue>(of parameter: String, as type: Value.Type = Value.self) -> Value? {
    parameters[parameter].flatMap(Value.init(parameterValue:))
  }
}

extension IntentResponse {
  /// The value of the response parameter `parameter` as a `Value`: nil when the response has none, or one of another
  /// type.
  public func value<Value: IntentValue>(of parameter: String, as type: Value.Type = Value.self) -> Value? {
    parameters[parameter].flatMap(Value.init(parameterValue:))
  }
}
