// The checks on what an extension answers: response codes and the shapes and types of response parameters.
import BundleManifest
import ExtensionProtocol
import Foundation
import Synchronization

/// The first of `parameters` (a response's) that `declared` types as an object (`Object`, or a custom type of the
/// definition's `INTypes`) but that is not an object value (an array of them for a parameter with multiple values),
/// described for a protocol fault; nil when every one fits. A value of another shape would leave the template's
/// `${order.total}` empty without a word, so it is refused instead (docs/PROTOCOL.md, "Values and intents").
func objectShapeProblem(in parameters: [String: ParameterValue], declared: [ResponseParameterSpec]) -> String? {
  for spec in declared where spec.type == .object || spec.objectType != nil {
    guard let value = parameters[spec.name] else { continue }
    let items: [ParameterValue]
    if spec.supportsMultipleValues, case .array(let list) = value { items = list } else { items = [value] }
    guard let wrong = items.first(where: { if case .object = $0 { false } else { true } }) else { continue }
    let kind = spec.objectType.map { "an object of the custom type \($0)" } ?? "an object"
    let given =
      wrong.typeName == "enum" ? "an enum" : (wrong.typeName == "integer" ? "an integer" : "a \(wrong.typeName)")
    let many = spec.supportsMultipleValues ? " (an array of them: it has multiple values)" : ""
    return "the response parameter \(spec.name) is \(given), but the intent definition declares it as \(kind)"
      + "\(many): send {\"type\": \"object\", \"value\": \(ObjectValue.wireShape)}"
  }
  return nil
}

/// The wire types a value of a response parameter declared as `spec` may have, one item of it for a parameter with
/// multiple values (docs/PROTOCOL.md, "Which type each parameter has"; the table `DonationRules` holds a donation's
/// values to): an enum's `enum`; `Integer`'s `integer`; a number's (`Decimal`, `Double`, `Currency`, `Duration`)
/// `decimal` or `integer`; `Boolean`'s `boolean`; a date's `date`; `String`'s and `SpeakableString`'s `string`; any
/// other system type's (`Person`, `Placemark`, `CurrencyAmount`, …) `string` or `object`. Nil for an object
/// (`objectShapeProblem` checks those).
func wireTypes(of spec: ResponseParameterSpec) -> [String]? {
  if spec.type == .object || spec.objectType != nil { return nil }
  if spec.enumType != nil || spec.type == .enumeration { return ["enum"] }
  switch spec.type {
  case .integer: return ["integer"]
  case .decimal, .double, .currency, .duration: return ["decimal", "integer"]
  case .boolean: return ["boolean"]
  case .date, .dateComponents: return ["date"]
  case .string, .speakableString: return ["string"]
  default: return ["string", "object"]
  }
}

/// The first of `parameters` (a response's), in the order `declared` lists them, whose value is not of a wire type
/// its declaration allows (`wireTypes(of:)`; for a parameter with multiple values, an array of such values or one
/// such value), described for a protocol fault; nil when every one fits. A string sent for an `Integer` would reach
/// a UI extension that counts with it, and a template, as text (docs/PROTOCOL.md, "Values and intents").
func responseTypeProblem(in parameters: [String: ParameterValue], declared: [ResponseParameterSpec]) -> String? {
  func withArticle(_ type: String) -> String {
    ["integer", "enum", "array", "object"].contains(type) ? "an \(type)" : "a \(type)"
  }
  for spec in declared {
    guard let value = parameters[spec.name], let allowed = wireTypes(of: spec) else { continue }
    let items: [ParameterValue]
    if spec.supportsMultipleValues, case .array(let list) = value { items = list } else { items = [value] }
    guard let wrong = items.first(where: { !allowed.contains($0.typeName) }) else { continue }
    let declaredType = spec.enumType.map { "the enum \($0)" } ?? spec.type.rawValue
    let many = spec.supportsMultipleValues ? " with multiple values (an array of them, or one)" : ""
    let given =
      wrong == value ? "is \(withArticle(wrong.typeName))" : "has an item that is \(withArticle(wrong.typeName))"
    let sample = allowed[0] == "enum" ? "CASE NAME" : "…"
    return "the response parameter \(spec.name) \(given), but the intent definition declares it as \(declaredType)"
      + "\(many): send {\"type\": \"\(allowed[0])\", \"value\": \(sample)}"
      + (allowed.count > 1 ? " (or \(allowed.dropFirst().map { "\"\($0)\"" }.joined(separator: ", ")))" : "")
  }
  return nil
}

extension IntentDriver {
  /// Refuses a response whose object parameters have another shape (`objectShapeProblem`), or whose other parameters
  /// another wire type than their declarations allow (`responseTypeProblem`), as a protocol fault of `session`
  /// (exit 70), naming the parameter, the extension, the type given and the type expected.
  func checkResponseValues(_ response: IntentResponse, spec: IntentSpec?, session: ExtensionSession, what: String)
    throws
  {
    guard let declared = spec?.response?.parameters else { return }
    if let problem = objectShapeProblem(in: response.parameters, declared: declared) {
      throw session.violation("answered \(what) with a value of the wrong shape: \(problem)")
    }
    if let problem = responseTypeProblem(in: response.parameters, declared: declared) {
      throw session.violation("answered \(what) with a value of the wrong type: \(problem)")
    }
  }
}
