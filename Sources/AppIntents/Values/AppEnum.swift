// AppEnum: a fixed set of values the user picks from by name or synonym.
import ExtensionProtocol

/// A type whose values are a fixed set of cases, each with a name the user says (its title or a synonym).
/// On the wire a case is its Swift name (`{"type":"enum","value":"home"}`), as Xcode writes the case identifiers in
/// `Metadata.appintents`.
///
/// ```swift
/// enum Location: String, AppEnum {
///   case home = "Home", work = "Work"
///   static let typeDisplayRepresentation: TypeDisplayRepresentation = "Order Location"
///   static let caseDisplayRepresentations: [Location: DisplayRepresentation] = [
///     .home: DisplayRepresentation(title: "Home", synonyms: ["my house"]), .work: "Work",
///   ]
/// }
/// ```
public protocol AppEnum: _IntentValue, CaseIterable, Hashable {
  static var typeDisplayRepresentation: TypeDisplayRepresentation { get }
  static var caseDisplayRepresentations: [Self: DisplayRepresentation] { get }
}

extension AppEnum {
  public static var intentValueType: IntentValueType { .enumeration(String(describing: Self.self)) }

  /// The case's Swift name, which identifies it in the metadata and on the wire.
  public var caseIdentifier: String { String(describing: self) }

  public var intentValue: ParameterValue { .enumCase(caseIdentifier) }

  public static func fromIntentValue(_ value: ParameterValue) async throws -> Self? {
    guard case .enumCase(let identifier) = value else { return nil }
    return allCases.first { $0.caseIdentifier == identifier }
  }

  /// How the case is shown: its display representation, or its Swift name when the dictionary has none.
  public var displayRepresentation: DisplayRepresentation {
    Self.caseDisplayRepresentations[self] ?? DisplayRepresentation(title: LocalizedStringResource(caseIdentifier))
  }
}
