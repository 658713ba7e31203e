import BundleManifest
import Foundation
import Testing

/// A parameter's type is read from a definition by its spelling, and spelled back the same way in messages.
@Suite struct ParameterTypeTests {
  @Test(arguments: [
    (ParameterType.string, "String"), (.speakableString, "SpeakableString"), (.integer, "Integer"),
    (.decimal, "Decimal"), (.double, "Double"), (.currency, "Currency"), (.currencyAmount, "CurrencyAmount"),
    (.duration, "Duration"), (.timeInterval, "TimeInterval"), (.boolean, "Boolean"), (.date, "Date"),
    (.dateComponents, "DateComponents"), (.dateComponentsRange, "DateComponentsRange"), (.object, "Object"),
    (.enumeration, "Enum"), (.person, "Person"), (.placemark, "Placemark"), (.file, "File"),
    (.mediaItem, "MediaItem"), (.mediaSearch, "MediaSearch"), (.restaurant, "Restaurant"),
    (.paymentAccount, "PaymentAccount"), (.paymentAmount, "PaymentAmount"), (.note, "Note"),
    (.noteContent, "NoteContent"),
  ])
  func eachKnownTypeIsSpelledAsTheDefinitionSpellsIt(_ type: ParameterType, _ spelling: String) {
    #expect(type.rawValue == spelling)
    #expect("\(type)" == spelling)
    #expect(ParameterType(rawValue: spelling) == type)
  }

  @Test func everyKnownTypeHasItsOwnSpelling() {
    let spellings = ParameterType.known.map(\.rawValue)
    #expect(Set(spellings).count == spellings.count)
    for type in ParameterType.known {
      if case .other = type { Issue.record("\(type) is listed as known") }
      #expect(ParameterType(rawValue: type.rawValue) == type)
    }
  }

  /// A name without a case of its own is kept as written; spellings are case-sensitive.
  @Test(arguments: ["Distance", "integer", "My Custom Type", "", "Integer "])
  func anotherNameIsKeptAsWritten(_ name: String) {
    let type = ParameterType(rawValue: name)
    #expect(type == .other(name))
    #expect(type.rawValue == name)
    #expect("\(type)" == name)
  }

  /// `INIntentParameterType`, `INIntentResponseParameterType` and `INTypePropertyType` read as types; a parameter
  /// without one is a `String`, as Xcode's editor defaults it.
  @Test func aDefinitionsTypesAreRead() throws {
    func parameter(_ name: String, _ type: String?) -> [String: Any] {
      var parameter: [String: Any] = ["INIntentParameterName": name]
      if let type { parameter["INIntentParameterType"] = type }
      return parameter
    }
    let plist: [String: Any] = [
      "INIntentDefinitionModelVersion": "1.2",
      "INIntents": [
        [
          "INIntentName": "Order",
          "INIntentParameters": [
            parameter("count", "Integer"), parameter("price", "Decimal"), parameter("gift", "Boolean"),
            parameter("soup", "Object"), parameter("delay", "TimeInterval"), parameter("distance", "Distance"),
            parameter("note", nil),
          ],
          "INIntentResponse": [
            "INIntentResponseCodes": [["INIntentResponseCodeName": "success"]],
            "INIntentResponseParameters": [
              ["INIntentResponseParameterName": "total", "INIntentResponseParameterType": "CurrencyAmount"],
              ["INIntentResponseParameterName": "message"],
            ],
          ],
        ]
      ],
      "INTypes": [
        [
          "INTypeName": "Soup",
          "INTypeProperties": [
            ["INTypePropertyName": "calories", "INTypePropertyType": "Integer"],
            ["INTypePropertyName": "name"],
          ],
        ]
      ],
    ]
    let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    let definition = try IntentDefinition(PlistDictionary.parse(data, file: "Intents.intentdefinition"))
    let intent = try #require(definition.intents.first)
    #expect(
      intent.parameters.map(\.type) == [
        .integer, .decimal, .boolean, .object, .timeInterval, .other("Distance"), .string,
      ])
    #expect(intent.response?.parameters.map(\.type) == [.currencyAmount, .string])
    #expect(definition.type(named: "Soup")?.properties.map(\.type) == [.integer, .string])
  }
}
