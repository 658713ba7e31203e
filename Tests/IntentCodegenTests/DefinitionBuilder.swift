import BundleManifest
import Foundation

/// Intent definitions written in a test, as Xcode writes them (a property list), then read by the parser the
/// generator uses.
enum DefinitionBuilder {
  /// A parameter's dictionary: its name and type, and where given the enum it takes and whether it takes several.
  static func parameter(_ name: String, _ type: String, enumType: String? = nil, multiple: Bool = false) -> [String:
    Any]
  {
    var entry: [String: Any] = ["INIntentParameterName": name, "INIntentParameterType": type]
    if let enumType { entry["INIntentParameterEnumType"] = enumType }
    if multiple { entry["INIntentParameterSupportsMultipleValues"] = true }
    return entry
  }

  /// An intent's dictionary with its parameters, response codes and response parameters.
  static func intent(
    _ name: String, parameters: [[String: Any]] = [], codes: [String] = ["success", "failure"],
    responseParameters: [[String: Any]] = []
  ) -> [String: Any] {
    let responseEntries = responseParameters.map { parameter in
      Dictionary(
        uniqueKeysWithValues: parameter.map { key, value in
          (key.replacingOccurrences(of: "INIntentParameter", with: "INIntentResponseParameter"), value)
        })
    }
    return [
      "INIntentName": name, "INIntentType": "Custom", "INIntentCategory": "generic",
      "INIntentParameters": parameters,
      "INIntentResponse": [
        "INIntentResponseCodes": codes.map { ["INIntentResponseCodeName": $0] },
        "INIntentResponseParameters": responseEntries,
      ] as [String: Any],
    ]
  }

  /// An enum's dictionary with its values (indexes in order, from 0).
  static func enumeration(_ name: String, values: [String]) -> [String: Any] {
    [
      "INEnumName": name,
      "INEnumValues": values.enumerated().map { ["INEnumValueName": $1, "INEnumValueIndex": $0] as [String: Any] },
    ]
  }

  /// The definition of `intents` and `enums`, read as the file `file` would be.
  static func definition(
    _ intents: [[String: Any]], enums: [[String: Any]] = [], file: String = "Intents.intentdefinition"
  ) throws -> IntentDefinition {
    let plist: [String: Any] = [
      "INIntentDefinitionModelVersion": "1.2", "INIntents": intents, "INEnums": enums, "INTypes": [Any](),
    ]
    let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    return try IntentDefinition(PlistDictionary.parse(data, file: file))
  }
}
