// @Parameter: an intent's input, which the assistant fills before perform() and perform can ask about again.
import ExtensionProtocol
import Synchronization

/// An intent's parameter, declared with `@Parameter` as in Apple's framework. It is a class (as Apple's is), so the
/// runtime can set its value on any copy of the intent; it finds each one by its stored name (`_location`).
///
/// ```swift
/// @Parameter(title: "Location", requestValueDialog: "Where should the order be?",
///            optionsProvider: LocationOptionsProvider())
/// var location: Location
///
/// func perform() async throws -> some IntentResult {
///   if location == .work, try await !$location.requestConfirmation(for: .work, dialog: "At work?") {
///     throw $location.needsValueError("Where then?")
///   }
///   ...
/// }
/// ```
@propertyWrapper
public final class IntentParameter<Value: _IntentValue>: Sendable {
  public let title: LocalizedStringResource
  public let description: LocalizedStringResource?
  public let defaultValue: Value?
  /// Said when the assistant asks for a value (the host asks before perform when the parameter is required).
  public let requestValueDialog: IntentDialog?
  /// Said when the assistant asks the user to choose between several values.
  public let requestDisambiguationDialog: IntentDialog?
  /// The values offered when the assistant asks, as the provider's `results()`.
  public let options: (@Sendable () async throws -> [ParameterValue])?
  private let state = Mutex<(value: Value?, name: String?)>((nil, nil))

  public init(
    title: LocalizedStringResource, description: LocalizedStringResource? = nil, default defaultValue: Value? = nil,
    requestValueDialog: IntentDialog? = nil, requestDisambiguationDialog: IntentDialog? = nil
  ) {
    self.title = title
    self.description = description
    self.defaultValue = defaultValue
    self.requestValueDialog = requestValueDialog
    self.requestDisambiguationDialog = requestDisambiguationDialog
    options = nil
  }

  public init<Provider: DynamicOptionsProvider>(
    title: LocalizedStringResource, description: LocalizedStringResource? = nil, default defaultValue: Value? = nil,
    requestValueDialog: IntentDialog? = nil, requestDisambiguationDialog: IntentDialog? = nil,
    optionsProvider: Provider
  ) where Provider.DefaultValue == Value {
    self.title = title
    self.description = description
    self.defaultValue = defaultValue
    self.requestValueDialog = requestValueDialog
    self.requestDisambiguationDialog = requestDisambiguationDialog
    options = { try await optionsProvider.results().map(\.intentValue) }
  }

  /// The parameter's name in the metadata and on the wire: the property's name, which the runtime sets when it
  /// finds the parameter ("?" until then).
  public var name: String { state.withLock { $0.name } ?? "?" }

  func named(_ name: String) { state.withLock { $0.name = name } }

  /// Whether it has a value of its own (not only a default).
  public var hasValue: Bool { state.withLock { $0.value != nil } }

  /// The value: the one given, else the default, else (for an optional) nil.
  /// - Important: reading a required parameter that has neither is a programming error, as in Apple's framework.
  public var wrappedValue: Value {
    get {
      guard let value = state.withLock({ $0.value }) ?? defaultValue ?? Value._unsetValue else {
        preconditionFailure("\(AppIntentsUsageError.noValue(parameter: name))")
      }
      return value
    }
    set { state.withLock { $0.value = newValue } }
  }

  public var projectedValue: IntentParameter<Value> { self }

  /// Sets the value the host sent.
  /// - Throws: `AppIntentsUsageError.wrongType` when it is not a value of this parameter's type.
  public func setIntentValue(_ value: ParameterValue) async throws {
    guard let typed = try await Value.fromIntentValue(value) else {
      throw AppIntentsUsageError.wrongType(
        parameter: name, expected: "\(Value.intentValueType)", got: value.typeName)
    }
    wrappedValue = typed
  }

  /// Asks the user for a value (with `dialog`, else the parameter's `requestValueDialog`), sets it and returns it.
  public func requestValue(_ dialog: IntentDialog? = nil) async throws -> Value {
    let value = try await PerformContext.current().requestValue(
      parameter: name, dialog: dialog ?? requestValueDialog)
    try await setIntentValue(value)
    return wrappedValue
  }

  /// Asks the user to choose one of `candidates`, sets it and returns it.
  public func requestDisambiguation(among candidates: [Value], dialog: IntentDialog? = nil) async throws -> Value {
    let value = try await PerformContext.current().requestDisambiguation(
      parameter: name, candidates: candidates.map(\.intentValue), dialog: dialog ?? requestDisambiguationDialog)
    try await setIntentValue(value)
    return wrappedValue
  }

  /// Asks the user whether `value` is right; true when they say yes.
  public func requestConfirmation(for value: Value, dialog: IntentDialog? = nil) async throws -> Bool {
    try await PerformContext.current().requestConfirmation(parameter: name, value: value.intentValue, dialog: dialog)
  }

  /// The error to throw from perform when this parameter needs a new value: the assistant asks for it (with
  /// `dialog`), then runs perform again from the start with it.
  public func needsValueError(_ dialog: IntentDialog? = nil) -> some Error {
    AppIntentsError.needsValue(parameter: name, dialog: dialog ?? requestValueDialog)
  }
}

/// Apple's spelling of the property wrapper: `@Parameter(title: …) var location: Location`.
public typealias Parameter = IntentParameter

/// A parameter of any value type, as the runtime and the metadata writer see it.
public protocol AnyIntentParameter: AnyObject, Sendable {
  var name: String { get }
  var title: LocalizedStringResource { get }
  var requestValueDialog: IntentDialog? { get }
  var requestDisambiguationDialog: IntentDialog? { get }
  var options: (@Sendable () async throws -> [ParameterValue])? { get }
  var hasValue: Bool { get }
  /// The parameter's type in the metadata.
  var valueType: IntentValueType { get }
  /// Its default on the wire, if it has one.
  var defaultIntentValue: ParameterValue? { get }
  /// Its value on the wire: the one given, else the default; nil when it has neither.
  var currentIntentValue: ParameterValue? { get }
  /// The entity type it holds (alone, optional or in an array), if any.
  var entityType: (any AppEntity.Type)? { get }
  /// The enum type it holds (alone, optional or in an array), if any.
  var enumType: (any AppEnum.Type)? { get }
  func setIntentValue(_ value: ParameterValue) async throws
}

extension IntentParameter: AnyIntentParameter {
  public var valueType: IntentValueType { Value.intentValueType }
  public var defaultIntentValue: ParameterValue? { defaultValue?.intentValue }
  public var currentIntentValue: ParameterValue? {
    (state.withLock { $0.value } ?? defaultValue).map(\.intentValue)
  }
  public var entityType: (any AppEntity.Type)? { Value.self as? any AppEntity.Type ?? Value.wrappedEntityType }
  public var enumType: (any AppEnum.Type)? { Value.self as? any AppEnum.Type ?? Value.wrappedEnumType }
}

extension _IntentValue {
  /// The entity type inside an optional or an array; nil for others.
  static var wrappedEntityType: (any AppEntity.Type)? { (Self.self as? any WrappingIntentValue.Type)?.innerEntity }
  static var wrappedEnumType: (any AppEnum.Type)? { (Self.self as? any WrappingIntentValue.Type)?.innerEnum }
}

/// An optional or an array of intent values.
protocol WrappingIntentValue {
  static var innerEntity: (any AppEntity.Type)? { get }
  static var innerEnum: (any AppEnum.Type)? { get }
}

extension Optional: WrappingIntentValue where Wrapped: _IntentValue {
  static var innerEntity: (any AppEntity.Type)? { Wrapped.self as? any AppEntity.Type ?? Wrapped.wrappedEntityType }
  static var innerEnum: (any AppEnum.Type)? { Wrapped.self as? any AppEnum.Type ?? Wrapped.wrappedEnumType }
}

extension Array: WrappingIntentValue where Element: _IntentValue {
  static var innerEntity: (any AppEntity.Type)? { Element.self as? any AppEntity.Type ?? Element.wrappedEntityType }
  static var innerEnum: (any AppEnum.Type)? { Element.self as? any AppEnum.Type ?? Element.wrappedEnumType }
}

extension AppEnum {
  /// Every case on the wire.
  static var allCaseValues: [ParameterValue] { allCases.map(\.intentValue) }
}

/// The parameters of `intent`, in declaration order, each named after its property (`_location` is `location`).
public func intentParameters(of intent: some AppIntent) -> [any AnyIntentParameter] {
  Mirror(reflecting: intent).children.compactMap { child in
    guard let parameter = child.value as? any AnyIntentParameter, let label = child.label else { return nil }
    if let typed = parameter as? any NameableParameter {
      typed.named(label.hasPrefix("_") ? String(label.dropFirst()) : label)
    }
    return parameter
  }
}

protocol NameableParameter {
  func named(_ name: String)
}

extension IntentParameter: NameableParameter {}
