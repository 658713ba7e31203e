// Templates (`${name}` placeholders) and lists as the assistant says them.
import ExtensionProtocol
import Foundation

/// `items` joined by commas, or "none" when there are none.
package func listOrNone(_ items: [String]) -> String {
  items.isEmpty ? "none" : items.joined(separator: ", ")
}

/// The `${name}` placeholders of a template, in order.
package func placeholders(_ template: String) -> [String] {
  var names: [String] = []
  var rest = Substring(template)
  while let start = rest.range(of: "${"), let end = rest[start.upperBound...].firstIndex(of: "}") {
    names.append(String(rest[start.upperBound..<end]))
    rest = rest[rest.index(after: end)...]
  }
  return names
}

/// Fills `${name}` placeholders from `values`, which gets the whole name (a dotted path such as `${order.total}`
/// reaches into an object's properties).
/// Unknown placeholders become empty text and are reported in `missing`.
package func renderTemplate(_ template: String, values: (String) -> String?) -> (text: String, missing: [String]) {
  var output = ""
  var missing: [String] = []
  var rest = Substring(template)
  while let start = rest.range(of: "${") {
    output += rest[..<start.lowerBound]
    guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
      output += rest[start.lowerBound...]
      rest = ""
      break
    }
    let name = String(rest[start.upperBound..<end])
    if let value = values(name) {
      output += value
    } else {
      missing.append(name)
    }
    rest = rest[rest.index(after: end)...]
  }
  output += rest
  return (output, missing)
}

/// The value a template placeholder names: the first name is a parameter, each further name a property of the
/// object before it (`${orderDetails.total}`); nil when any step is missing.
package func parameterValue(at name: String, in parameters: [String: ParameterValue]) -> ParameterValue? {
  let path = name.split(separator: ".").map(String.init)
  guard let head = path.first, var value = parameters[head] else { return nil }
  for property in path.dropFirst() {
    guard case .object(let object) = value, let next = object.properties?[property] else { return nil }
    value = next
  }
  return value
}
