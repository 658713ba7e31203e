import BundleManifest
import Foundation

/// An in-memory definition, OrderSoupIntent, with a parameter of every type `ValueInterpreter` knows: the fixture of
/// UnderstandingTests' value tests and of the engine's enum tests (a manifest model only, so both can link it).
package enum SoupManifests {
  package static let intentClass = "OrderSoupIntent"

  package static func parameter(_ name: String, _ type: String, _ more: [String: Any] = [:]) -> [String: Any] {
    ["INIntentParameterName": name, "INIntentParameterType": type].merging(more) { $1 }
  }

  package static func definition() throws -> IntentDefinition {
    let confirmation = [
      [
        "INIntentParameterPromptDialogType": "Confirmation", "INIntentParameterPromptDialogFormatString": "Sure?",
        "INIntentParameterPromptDialogFormatStringID": "pConf",
      ]
    ]
    var definition = try IntentDefinition(
      PlistDictionary(
        values: [
          "INIntentDefinitionModelVersion": "1.2",
          "INEnums": [
            [
              "INEnumName": "Size",
              "INEnumValues": [
                ["INEnumValueName": "small", "INEnumValueDisplayName": "Small", "INEnumValueIndex": 1],
                [
                  "INEnumValueName": "medium", "INEnumValueDisplayName": "Medium size",
                  "INEnumValueDisplayNameID": "szM", "INEnumValueIndex": 2,
                ],
                ["INEnumValueName": "large", "INEnumValueIndex": 3],
              ],
            ] as [String: Any]
          ],
          "INIntents": [
            [
              "INIntentName": "OrderSoup",
              "INIntentParameters": [
                parameter("quantity", "Integer"),
                parameter("price", "Decimal"),
                parameter("weight", "Double"),
                parameter("tip", "Currency"),
                parameter(
                  "isCancellation", "Boolean",
                  [
                    "INIntentParameterMetadata": [
                      "INIntentParameterMetadataTrueDisplayName": "Cancel",
                      "INIntentParameterMetadataTrueDisplayNameID": "bTrue",
                      "INIntentParameterMetadataFalseDisplayName": "Book",
                      "INIntentParameterMetadataFalseDisplayNameID": "bFalse",
                    ],
                    "INIntentParameterPromptDialogs": confirmation,
                  ]),
                parameter("extraSpicy", "Boolean"),
                parameter(
                  "size", "Integer",
                  ["INIntentParameterEnumType": "Size", "INIntentParameterPromptDialogs": confirmation]),
                parameter("note", "String"),
                parameter("deliveryTime", "Date"),
                parameter("cookingTime", "Duration"),
                parameter("birthday", "DateComponents"),
                parameter("customer", "Object", ["INIntentParameterObjectType": "Person"]),
                parameter("toppings", "String", ["INIntentParameterSupportsMultipleValues": true]),
                parameter("rooms", "Integer", ["INIntentParameterSupportsMultipleValues": true]),
                parameter(
                  "sizes", "Integer",
                  ["INIntentParameterEnumType": "Size", "INIntentParameterSupportsMultipleValues": true]),
              ],
            ] as [String: Any]
          ],
        ], file: "Soup.intentdefinition"))
    definition.variants = ["pConf-bTrue": "Really cancel?", "pConf-szM": "A medium one, then?"]
    return definition
  }
}
