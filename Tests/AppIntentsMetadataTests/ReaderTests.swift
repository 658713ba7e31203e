import AppIntentsMetadata
import Foundation
import TestSupport
import Testing

/// Reads `text` as `extract.actionsdata` at a fixed path.
func read(_ text: String, limits: MetadataLimits = .standard) throws(MetadataError) -> MetadataReading {
  try MetadataReader.read(Array(text.utf8), file: "/M/extract.actionsdata", limits: limits)
}

/// The identifier `text`, which must be one.
func id(_ text: String) -> MetadataIdentifier { MetadataIdentifier(validating: text)! }

/// The error reading `text` throws; nil when it reads.
func readingError(_ text: String, limits: MetadataLimits = .standard) -> MetadataError? {
  do {
    _ = try read(text, limits: limits)
    return nil
  } catch {
    return error
  }
}

/// The reader on Apple's real shape: every key IntentHost models is read, Apple's others are left aside without a
/// note, and the values are typed.
@Suite(.tags(.unit))
struct MetadataReaderTests {
  @Test func appleWeatherShapeIsReadWithoutANote() throws {
    let reading = try read(AppIntentsFixtures.weather)
    #expect(reading.findings.isEmpty, "\(reading.findings)")
    let document = reading.document
    #expect(document.version == 1)
    let action = try #require(document.actions[id("OpenMoonIntent")])
    #expect(action.title == "Open Moon Details")
    #expect(action.description?.descriptionText == "Opens Weather and shows moon details")
    #expect(action.openAppWhenRun == false)
    #expect(action.supportedModes == 1)
    #expect(action.authenticationPolicy == .none)
    #expect(action.isDiscoverable)
    #expect(
      action.actionConfiguration
        == .object([
          "actionSummary": .object([
            "wrapper": .object([
              "summaryString": .object([
                "formatString": .string("Open moon details for ${location}"),
                "parameterIdentifiers": .array([.string("location")]),
              ])
            ])
          ])
        ]))
    #expect(action.parameters.count == 1)
    let location = action.parameters[0]
    #expect(location.name == id("location"))
    #expect(location.title == "Location")
    #expect(!location.isOptional)
    #expect(location.valueType == .entity(id("LocationSearchEntity")))
    #expect(location.dynamicOptionsSupport == 2)
    #expect(location.typeSpecificMetadata.entries.isEmpty)
    #expect(location.intentHost == nil)

    let entity = try #require(document.entities[id("LocationSearchEntity")])
    #expect(entity.displayTypeName == "Location")
    #expect(entity.defaultQueryIdentifier?.rawValue == "Weather.LocationSearchEntityQuery")
    #expect(
      entity.properties == [.init(identifier: id("name"), title: "Name", valueType: .primitive(.string))])
    let query = try #require(document.queries[id("LocationSearchEntityQuery")])
    #expect(query.entityType == id("LocationSearchEntity"))
    #expect(query.isDefaultQueryForEntity)
    #expect(query.answers == nil)
    #expect(query.isNamed(entity.defaultQueryIdentifier!))

    #expect(document.enums.count == 1)
    #expect(document.enums[0].identifier == id("AirQualityPosition"))
    #expect(document.enums[0].displayTypeName == "Position")
    #expect(document.enums[0].cases == [.init(identifier: id("top"), title: "Top")])
    #expect(document.autoShortcuts.isEmpty)
    #expect(document.negativePhrases.isEmpty)
    #expect(document.autoShortcutProviderMangledName == nil)
  }

  @Test func fuelOrderIsReadWithItsPhrasesAndIntentHostsDialog() throws {
    let document = try read(AppIntentsFixtures.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases)).document
    let action = try #require(document.actions[id("OrderFuelIntent")])
    #expect(action.authenticationPolicy == .requiresLocalDeviceAuthentication)
    #expect(action.description?.categoryName == "Fuel Ordering")
    #expect(action.description?.searchKeywords == ["fuel", "order"])
    #expect(action.parameters[0].valueType == .enumeration(id("Location")))
    #expect(action.parameters[0].intentHost?.requestValueDialog == "Where should the order be?")
    #expect(action.parameters[0].intentHost?.requestDisambiguationDialog == nil)
    let location = try #require(document.enumeration(id("Location")))
    #expect(location.cases.map(\.identifier.rawValue) == ["home", "work"])
    #expect(location.cases[0].synonyms == ["my house"])
    #expect(document.autoShortcuts.count == 1)
    #expect(document.autoShortcuts[0].actionIdentifier == id("OrderFuelIntent"))
    #expect(document.autoShortcuts[0].phraseTemplates.map(\.key) == AppIntentsFixtures.correctedPhrases)
    #expect(document.autoShortcuts[0].shortTitle == "Order Fuel")
    #expect(document.autoShortcuts[0].systemImageName == "fuelpump")
    #expect(document.autoShortcutProviderMangledName == "9FuelOrder21SiriShortcutsProviderV")
  }

  @Test func defaultsFillWhatTheFileLeavesOut() throws {
    let document = try read(
      #"{"version": 1, "actions": {"A": {"title": {"key": "A"}, "parameters": [{"name": "p", "valueType": "#
        + #"{"primitive": {"wrapper": {"typeIdentifier": 2}}}}]}}}"#
    ).document
    let action = try #require(document.actions[id("A")])
    #expect(action.identifier == id("A"))
    #expect(action.title == MetadataDocument.LocalizedText("A", alternatives: []))
    #expect(action.openAppWhenRun == false && action.isDiscoverable && action.authenticationPolicy == .none)
    #expect(action.parameters[0].isOptional == false)
    #expect(action.parameters[0].title == nil)
    #expect(action.parameters[0].valueType == .primitive(.int))
    #expect(document.entities.isEmpty && document.queries.isEmpty && document.enums.isEmpty)
  }

  @Test(arguments: [
    (0, MetadataDocument.AuthenticationPolicy.none), (1, .requiresAuthentication),
    (2, .requiresLocalDeviceAuthentication),
  ])
  func authenticationPolicyMapping(_ value: Int, _ policy: MetadataDocument.AuthenticationPolicy) throws {
    let document = try read(#"{"version": 1, "actions": {"A": {"authenticationPolicy": \#(value)}}}"#).document
    #expect(document.actions[id("A")]?.authenticationPolicy == policy)
  }

  @Test func everyValueTypeTagIsRead() throws {
    func type(_ json: String) throws -> MetadataDocument.ValueType {
      try read(#"{"version": 1, "actions": {"A": {"parameters": [{"name": "p", "valueType": \#(json)}]}}}"#)
        .document.actions[id("A")]!.parameters[0].valueType
    }
    for (identifier, primitive) in [
      (0, MetadataDocument.PrimitiveType.string), (1, .bool), (2, .int), (7, .double), (8, .date), (11, .url),
    ] {
      #expect(try type(#"{"primitive": {"wrapper": {"typeIdentifier": \#(identifier)}}}"#) == .primitive(primitive))
    }
    #expect(try type(#"{"linkEnumeration": {"wrapper": {"identifier": "Location"}}}"#) == .enumeration(id("Location")))
    #expect(
      try type(
        #"{"array": {"wrapper": {"capabilities": 3, "memberValueType": {"entity": {"wrapper": {"typeName": "V"}}}}}}"#)
        == .array(.entity(id("V"))))
    #expect(
      try type(#"{"measurement": {"wrapper": {"unitType": 4}}}"#)
        == .measurement(.object(["wrapper": .object(["unitType": .integer(4)])])))
    #expect(try type(#"{"intents": {"wrapper": {"typeIdentifier": 12}}}"#) == .intents(12))
  }

  @Test func typeSpecificMetadataKeepsTheDefaultValue() throws {
    let document = try read(
      #"{"version": 1, "actions": {"A": {"parameters": [{"name": "position", "valueType": "#
        + #"{"linkEnumeration": {"wrapper": {"identifier": "AirQualityPosition"}}}, "typeSpecificMetadata": "#
        + #"["LNValueTypeSpecificMetadataKeyDefaultValue", {"string": {"wrapper": "top"}}, "other", 3]}]}}}"#
    ).document
    let metadata = document.actions[id("A")]!.parameters[0].typeSpecificMetadata
    #expect(metadata.entries.count == 2)
    #expect(metadata.defaultValue?.tag == "string")
    #expect(metadata.defaultValue?.string == "top")
    #expect(metadata.entries[1] == .init(key: "other", value: .integer(3)))
  }
}

/// Keys, value types and primitive types the reader does not know are reported with their JSON path, and the file
/// is still read: IntentBench's way with a format that changes with Xcode.
@Suite(.tags(.unit))
struct UnknownMetadataKeysTests {
  @Test func anUnknownKeyIsANoteWithItsPath() throws {
    let text = AppIntentsFixtures.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases)
      .replacingOccurrences(of: #""name": "location","#, with: #""name": "location", "foo": 1,"#)
      .replacingOccurrences(of: #""version": 1,"#, with: #""version": 1, "futureKey": [],"#)
      .replacingOccurrences(
        of: #""systemImageName": "fuelpump""#, with: #""systemImageName": "fuelpump", "phrase": "x""#)
    let reading = try read(text)
    // In the order they are read: the top level's own keys last.
    #expect(
      reading.findings.map(\.path) == [
        "actions.OrderFuelIntent.parameters[0].foo", "autoShortcuts[0].phrase", "futureKey",
      ])
    #expect(reading.findings.allSatisfy { $0.severity == .note && $0.rule == .unknownKey })
    #expect(reading.findings.allSatisfy { $0.file == "/M/extract.actionsdata" && $0.fix != nil })
    // The document is what it would be without them.
    #expect(
      reading.document
        == (try read(AppIntentsFixtures.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases))).document)
  }

  @Test func aHostileFilesNotesAreCountedPastAHundred() throws {
    let keys = (0..<150).map { "\"k\($0)\": 1" }.joined(separator: ", ")
    let reading = try read("{\"version\": 1, \(keys)}")
    #expect(reading.findings.count == 101)
    #expect(reading.findings.last?.message == "has 50 more keys or types IntentHost does not read, not listed")
    #expect(reading.findings.last?.path == "")
    // The control: at a hundred, each is listed.
    let hundred = (0..<100).map { "\"k\($0)\": 1" }.joined(separator: ", ")
    #expect(try read("{\"version\": 1, \(hundred)}").findings.count == 100)
  }

  @Test func anUnknownValueTypeIsKeptAndReported() throws {
    let reading = try read(
      #"{"version": 1, "actions": {"A": {"parameters": [{"name": "p", "valueType": {"hologram": {"wrapper": {"x": 1}}}}]}}}"#
    )
    #expect(
      reading.document.actions[id("A")]!.parameters[0].valueType
        == .unknown(tag: "hologram", content: .object(["wrapper": .object(["x": .integer(1)])])))
    #expect(reading.findings.map(\.path) == ["actions.A.parameters[0].valueType.hologram"])
    #expect(reading.findings.first?.rule == .unknownKey)
  }

  @Test func anUnknownPrimitiveTypeIsKeptAndReported() throws {
    let reading = try read(
      #"{"version": 1, "actions": {"A": {"parameters": [{"name": "p", "valueType": {"primitive": {"wrapper": {"typeIdentifier": 10}}}}]}}}"#
    )
    #expect(reading.document.actions[id("A")]!.parameters[0].valueType == .primitive(.other(10)))
    #expect(reading.findings.map(\.path) == ["actions.A.parameters[0].valueType.primitive.wrapper.typeIdentifier"])
  }

  @Test func anotherVersionIsAWarning() throws {
    let reading = try read(#"{"version": 2}"#)
    #expect(reading.document.version == 2)
    #expect(reading.findings.map(\.rule) == [.version])
    #expect(reading.findings.first?.severity == .warning)
  }

  @Test func versionJSONIsRead() throws {
    let (version, findings) = try MetadataReader.readVersion(
      Array(#"{"version": "3.0", "toolsVersion": "17E6107", "extra": true}"#.utf8), file: "/M/version.json")
    #expect(version == MetadataVersion(version: "3.0", toolsVersion: "17E6107"))
    #expect(findings.map(\.path) == ["extra"])
  }
}

/// Hostile input is refused with a message that names the file, the JSON path and the fix, and never traps.
@Suite(.tags(.unit))
struct HostileMetadataTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    var path: String
    var problem: String
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(name: "empty", text: "", path: "", problem: "is empty"),
    Case(name: "not JSON", text: "{\"version\": 1,,}", path: "", problem: "is not valid JSON: line 1, column 15"),
    Case(name: "not an object", text: "[1]", path: "", problem: "is an array, expected an object"),
    Case(name: "no version", text: "{}", path: "version", problem: "is missing"),
    Case(
      name: "version as text", text: #"{"version": "1"}"#, path: "version", problem: "is a string, expected an integer"),
    Case(
      name: "a key given twice", text: #"{"version": 1, "version": 1}"#, path: "",
      problem: "the key \"version\" is given twice in one object"),
    Case(
      name: "control character in an action identifier",
      text: "{\"version\": 1, \"actions\": {\"Order\\u0007Fuel\": {}}}",
      path: "actions[\"Order\\u0007Fuel\"]",
      problem: "is a key \"Order\\u0007Fuel\", not an identifier: it contains U+0007"),
    Case(
      name: "bidi control in a parameter name",
      text:
        "{\"version\": 1, \"actions\": {\"A\": {\"parameters\": [{\"name\": \"lo\\u202Ecation\", \"valueType\": {}}]}}}",
      path: "actions.A.parameters[0].name", problem: "contains U+202E, a control or invisible character"),
    Case(
      name: "a path as an entity type",
      text: #"{"version": 1, "entities": {"../etc": {}}}"#, path: "entities[\"../etc\"]",
      problem: "not an identifier: it starts with \".\" (U+002E)"),
    Case(
      name: "an overlong enum case identifier",
      text: #"{"version": 1, "enums": [{"identifier": "E", "cases": [{"identifier": ""#
        + String(repeating: "a", count: 300)
        + #""}]}]}"#, path: "enums[0].cases[0].identifier", problem: "is 300 bytes long; the limit is 255"),
    Case(
      name: "an identifier that disagrees with its key",
      text: #"{"version": 1, "actions": {"A": {"identifier": "B"}}}"#, path: "actions.A.identifier",
      problem: "is \"B\", but the object's key is \"A\""),
    Case(
      name: "an unknown authentication policy", text: #"{"version": 1, "actions": {"A": {"authenticationPolicy": 7}}}"#,
      path: "actions.A.authenticationPolicy", problem: "is 7, not a policy IntentHost knows"),
    Case(
      name: "a value type with two tags",
      text:
        #"{"version": 1, "actions": {"A": {"parameters": [{"name": "p", "valueType": {"entity": {}, "primitive": {}}}]}}}"#,
      path: "actions.A.parameters[0].valueType", problem: "is an object with 2 keys, expected an object with one key"),
    Case(
      name: "an odd typeSpecificMetadata",
      text:
        #"{"version": 1, "actions": {"A": {"parameters": [{"name": "p", "valueType": {"measurement": 1}, "typeSpecificMetadata": ["k"]}]}}}"#,
      path: "actions.A.parameters[0].typeSpecificMetadata", problem: "has 1 elements"),
    Case(
      name: "a title that is a number", text: #"{"version": 1, "actions": {"A": {"title": 3}}}"#,
      path: "actions.A.title",
      problem: "is a number, expected a localized string"),
    Case(
      name: "a lone surrogate", text: #"{"version": 1, "negativePhrases": [{"key": "\ud800"}]}"#, path: "",
      problem: "a lone surrogate escape"),
    Case(
      name: "a number out of range", text: #"{"version": 1e999}"#, path: "", problem: "is out of range"),
    Case(
      name: "a query kind IntentHost does not know",
      text: #"{"version": 1, "queries": {"Q": {"entityType": "E", "intenthost": {"answers": ["everything"]}}}}"#,
      path: "queries.Q.intenthost.answers[0]", problem: "is \"everything\", not a kind of query"),
    Case(
      name: "a default query that is no name",
      text: #"{"version": 1, "entities": {"E": {"defaultQueryIdentifier": "Weather..Query"}}}"#,
      path: "entities.E.defaultQueryIdentifier", problem: "has an empty component"),
  ]

  @Test(arguments: cases)
  func isRefusedWithItsPath(_ hostile: Case) throws {
    let error = try #require(readingError(hostile.text), "read: \(hostile.text)")
    #expect(error.file == "/M/extract.actionsdata")
    #expect(error.path == hostile.path, "\(error)")
    #expect(error.problem.contains(hostile.problem), "\(error)")
    #expect(error.finding.rule == .metadata && error.finding.severity == .error)
  }

  @Test func theSizeLimitHolds() throws {
    let text = AppIntentsFixtures.weather
    let limits = MetadataLimits(maximumBytes: text.utf8.count - 1, maximumDepth: 64)
    let error = try #require(readingError(text, limits: limits))
    #expect(error.problem == "is \(text.utf8.count) bytes, larger than the \(text.utf8.count - 1)-byte limit")
    #expect(error.fix != nil)
    // The control: at the limit it reads.
    #expect(readingError(text, limits: MetadataLimits(maximumBytes: text.utf8.count, maximumDepth: 64)) == nil)
  }

  @Test func theDepthLimitHolds() throws {
    // 100,000 nested arrays would overflow a recursive parser's stack without the limit.
    let deep =
      #"{"version": 1, "actions": {"A": {"actionConfiguration": "# + String(repeating: "[", count: 100_000)
      + String(repeating: "]", count: 100_000) + "}}}"
    let error = try #require(readingError(deep))
    #expect(error.problem.contains("nested more than 64 deep"), "\(error)")
    // The control: Apple's deepest nesting, well within it, reads.
    let fine =
      #"{"version": 1, "actions": {"A": {"actionConfiguration": "# + String(repeating: "[", count: 40)
      + String(repeating: "]", count: 40) + "}}}"
    #expect(readingError(fine) == nil)
  }

  /// An action has at most 500 parameters, the protocol's limit on an intent's parameters: a generated document with
  /// 501 is refused at the action's `parameters`, naming the count, the limit and the fix. The control: 500 read.
  @Test func anActionHasAtMost500Parameters() throws {
    func document(parameters count: Int) -> String {
      let parameters = (0..<count).map {
        #"{"name": "p\#($0)", "title": {"key": "P", "alternatives": []}, "isOptional": true, "#
          + #""valueType": {"primitive": {"wrapper": {"typeIdentifier": 0}}}}"#
      }
      return #"{"version": 1, "actions": {"Big": {"title": {"key": "Big", "alternatives": []}, "parameters": ["#
        + parameters.joined(separator: ", ") + "]}}}"
    }
    #expect(MetadataLimits.maximumParameters == 500)
    let error = try #require(readingError(document(parameters: 501)))
    #expect(error.path == "actions.Big.parameters")
    #expect(error.problem == "has 501 parameters; the limit is 500")
    #expect(
      error.fix
        == "give Big at most 500 parameters (the protocol's limit on an intent's parameters): split it into intents "
        + "that each take fewer, or group related values in an AppEntity")
    #expect(try read(document(parameters: 500)).document.actions[id("Big")]?.parameters.count == 500)
  }

  /// A string's escapes and the text between them are read in order, whatever the mix; bytes that are not UTF-8
  /// before an escape are still refused where they end.
  @Test func aStringOfTextAndEscapesIsReadInOrder() throws {
    let text =
      #"{"version": 1, "negativePhrases": [{"key": "a\nb\u00e9\ud83d\ude00c\"d\\e\/f\tg é", "alternatives": []}]}"#
    #expect(try read(text).document.negativePhrases.map(\.key) == ["a\nbé😀c\"d\\e/f\tg é"])
    var bytes = Array(#"{"version": 1, "negativePhrases": [{"key": "ab\n"}]}"#.utf8)
    bytes.insert(0xC3, at: bytes.firstIndex(of: UInt8(ascii: "\\"))!)
    #expect(throws: MetadataError.self) { try MetadataReader.read(bytes, file: "/M/extract.actionsdata") }
  }

  /// A 6 MB string of text and escapes, "a\n" two million times over, reads in a second or so: it took time in the
  /// square of its length (over a minute), as each run of text was appended to a string view that it rebuilt. The
  /// time limit is the guard against that shape, not a measure (Scripts/bench measures).
  @Test(.timeLimit(.minutes(1))) func aLongStringOfEscapesReadsInLinearTime() throws {
    let text =
      #"{"version": 1, "negativePhrases": [{"key": ""# + String(repeating: #"a\n"#, count: 2_000_000)
      + #"", "alternatives": []}]}"#
    #expect(text.utf8.count > 6_000_000)
    let key = try #require(try read(text).document.negativePhrases.first?.key)
    #expect(key.utf8.count == 4_000_000 && key.hasPrefix("a\na\n"))
  }

  @Test func bytesThatAreNotUTF8AreRefused() throws {
    var bytes = Array(#"{"version": 1, "autoShortcutProviderMangledName": "ab"}"#.utf8)
    bytes.insert(0xFF, at: bytes.count - 3)
    #expect(throws: MetadataError.self) { try MetadataReader.read(bytes, file: "/M/extract.actionsdata") }
  }

  @Test func everyPrefixOfARealFileIsReadOrRefusedWithoutATrap() {
    let bytes = Array(AppIntentsFixtures.fuelOrder(phrases: AppIntentsFixtures.seedPhrases).utf8)
    var read = 0
    for end in stride(from: 0, through: bytes.count, by: 7) {
      if (try? MetadataReader.read(bytes[..<end], file: "f")) != nil { read += 1 }
    }
    #expect(read <= 1)
  }
}
