import ExtensionProtocol
import Foundation
import TestSupport
import Testing

/// The App Intents messages (docs/PROTOCOL.md, "App Intents") on the wire: their exact JSON, what they decode back to,
/// and the bounds they refuse where they are decoded.
@Suite(.tags(.unit))
struct AppIntentMessageTests {
  static let vehicle = ObjectValue(
    identifier: "v1", displayString: "Blue Golf", properties: ["fuelType": .enumCase("diesel")])
  static let intent = AppIntentInstance(
    identifier: "OrderFuelIntent", parameters: ["location": .enumCase("home"), "vehicle": .object(vehicle)])
  static let summary = SnippetNode.stack([.text("Full tank of diesel"), .row(label: "Delivery", value: "14:00")])

  static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
    try WireCoding.decoder().decode(type, from: Data(json.utf8))
  }

  /// Encodes `value` and decodes it back.
  static func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
    try WireCoding.decoder().decode(T.self, from: WireCoding.encoder().encode(value))
  }

  @Test func performMatchesItsGoldenJSON() throws {
    let request = PerformAppIntentRequest(intent: Self.intent, attempt: 1, mode: .background)
    let line = try encode(RequestEnvelope(id: .number(8), method: PerformAppIntentRequest.method, params: request))
    #expect(
      line
        == #"{"id":8,"jsonrpc":"2.0","method":"appIntent/perform","params":{"attempt":1,"intent":{"identifier":"OrderFuelIntent","parameters":{"location":{"type":"enum","value":"home"},"vehicle":{"type":"object","value":{"displayString":"Blue Golf","identifier":"v1","properties":{"fuelType":{"type":"enum","value":"diesel"}}}}}},"mode":"background"}}"#
    )
    #expect(try Self.decode(RequestEnvelope<PerformAppIntentRequest>.self, line).params == request)
    let answers: [(AppIntentPerformResult, String)] = [
      (.result(), #"{"kind":"result"}"#),
      (
        .result(dialog: "Placed.", value: .string("order-17"), snippet: .text("Diesel")),
        #"{"dialog":"Placed.","kind":"result","snippet":{"text":"Diesel"},"value":{"type":"string","value":"order-17"}}"#
      ),
      (
        .needsValue(parameter: "location", dialog: "Where should the order be?"),
        #"{"dialog":"Where should the order be?","kind":"needsValue","parameter":"location"}"#
      ),
      (.needsValue(parameter: "location"), #"{"kind":"needsValue","parameter":"location"}"#),
      (
        .continueInForeground(dialog: "Pick a slot.", alwaysConfirm: false),
        #"{"alwaysConfirm":false,"dialog":"Pick a slot.","kind":"continueInForeground"}"#
      ),
    ]
    for (answer, json) in answers {
      #expect(try encode(answer) == json)
      #expect(try Self.decode(AppIntentPerformResult.self, json) == answer)
    }
    #expect(Set(answers.map(\.0.kind)) == Set(AppIntentPerformResult.Kind.allCases))
    // `"value": null` is no value, as everywhere else.
    #expect(try Self.decode(AppIntentPerformResult.self, #"{"kind":"result","value":null}"#) == .result())
  }

  @Test func optionsMatchTheirGoldenJSON() throws {
    let request = AppIntentOptionsRequest(
      intent: AppIntentInstance(identifier: "OrderFuelIntent"), parameter: "location")
    #expect(
      try encode(request) == #"{"intent":{"identifier":"OrderFuelIntent","parameters":{}},"parameter":"location"}"#)
    #expect(try Self.roundTrip(request) == request)
    let flat = AppIntentOptionsResult(items: [.enumCase("home"), .enumCase("work")], defaultValue: .enumCase("home"))
    #expect(
      try encode(flat)
        == #"{"default":{"type":"enum","value":"home"},"items":[{"type":"enum","value":"home"},{"type":"enum","value":"work"}]}"#
    )
    let sectioned = AppIntentOptionsResult(
      items: [], sections: [OptionSection(title: "Recent", items: [.enumCase("work")]), OptionSection(items: [])])
    #expect(
      try encode(sectioned)
        == #"{"items":[],"sections":[{"items":[{"type":"enum","value":"work"}],"title":"Recent"},{"items":[]}]}"#)
    for result in [flat, sectioned] { #expect(try Self.roundTrip(result) == result) }
    #expect(sectioned.allItems == [.enumCase("work")])
  }

  @Test func entityQueriesMatchTheirGoldenJSON() throws {
    let queries: [(EntityLookup, String)] = [
      (.identifiers(["v2", "v9"]), #"{"by":"identifiers","entityType":"VehicleEntity","identifiers":["v2","v9"]}"#),
      (.suggested, #"{"by":"suggested","entityType":"VehicleEntity"}"#),
      (.matching("golf"), #"{"by":"string","entityType":"VehicleEntity","string":"golf"}"#),
      (.all, #"{"by":"all","entityType":"VehicleEntity"}"#),
    ]
    for (lookup, json) in queries {
      let request = EntityQueryRequest(entityType: "VehicleEntity", lookup: lookup)
      #expect(try encode(request) == json)
      #expect(try Self.decode(EntityQueryRequest.self, json) == request)
    }
    #expect(Set(queries.map(\.0.kind)) == Set(EntityLookup.Kind.allCases))
    let result = EntityQueryResult(entities: [Self.vehicle, ObjectValue(identifier: "v2", displayString: "Red Zoe")])
    #expect(
      try encode(result)
        == #"{"entities":[{"displayString":"Blue Golf","identifier":"v1","properties":{"fuelType":{"type":"enum","value":"diesel"}}},{"displayString":"Red Zoe","identifier":"v2"}]}"#
    )
    #expect(try Self.roundTrip(result) == result)
  }

  @Test func questionsToTheUserMatchTheirGoldenJSON() throws {
    let value = RequestValueRequest(parameter: "location", dialog: "Where should the order be?")
    #expect(try encode(value) == #"{"dialog":"Where should the order be?","parameter":"location"}"#)
    #expect(try encode(RequestValueRequest(parameter: "location")) == #"{"parameter":"location"}"#)
    #expect(try encode(RequestValueResult(value: .enumCase("work"))) == #"{"value":{"type":"enum","value":"work"}}"#)
    let choice = RequestDisambiguationRequest(
      parameter: "vehicle",
      candidates: [.object(Self.vehicle), .object(ObjectValue(identifier: "v2", displayString: "Z"))])
    let confirmParameter = RequestParameterConfirmationRequest(parameter: "location", value: .enumCase("work"))
    #expect(try encode(confirmParameter) == #"{"parameter":"location","value":{"type":"enum","value":"work"}}"#)
    #expect(try encode(RequestParameterConfirmationResult(confirmed: false)) == #"{"confirmed":false}"#)
    let confirm = RequestConfirmationRequest(actionName: .order, showPrompt: false, snippet: Self.summary)
    #expect(
      try encode(confirm)
        == #"{"actionName":"order","showPrompt":false,"snippet":{"stack":[{"text":"Full tank of diesel"},{"row":{"label":"Delivery","value":"14:00"}}]}}"#
    )
    #expect(try Self.roundTrip(value) == value)
    #expect(try Self.roundTrip(choice) == choice)
    #expect(try Self.roundTrip(confirmParameter) == confirmParameter)
    #expect(try Self.roundTrip(confirm) == confirm)
    #expect(
      try Self.roundTrip(RequestValueResult(value: .object(Self.vehicle)))
        == RequestValueResult(value: .object(Self.vehicle)))
    #expect(try Self.roundTrip(RequestParameterConfirmationResult(confirmed: true)).confirmed)
    // Without an action name, Apple's default, `continue`.
    #expect(try Self.decode(RequestConfirmationRequest.self, #"{"showPrompt":true}"#).actionName == .continue)
  }

  /// Apple's closed set, each name on the wire as Apple spells it.
  @Test func confirmationActionNamesAreApplesSet() throws {
    let apple = [
      "add", "addData", "book", "buy", "call", "checkIn", "continue", "create", "do", "download", "filter", "get", "go",
      "log", "open", "order", "pay", "play", "playSound", "post", "request", "run", "search", "send", "set", "share",
      "start", "toggle",
    ]
    #expect(ConfirmationActionName.allCases.map(\.rawValue) == apple)
    for name in ConfirmationActionName.allCases { #expect(try Self.roundTrip(name) == name) }
  }

  /// The digest is optional, so an older extension's answer still decodes and a SiriKit extension's has no new key.
  @Test func initializeCarriesTheMetadataDigest() throws {
    let digest = String(repeating: "0123456789abcdef", count: 4)
    let result = InitializeResult(implementation: "IntentHostSDK 0.1.0", appIntentsMetadataDigest: digest)
    #expect(
      try encode(result)
        == #"{"appIntentsMetadataDigest":"\#(digest)","implementation":"IntentHostSDK 0.1.0","protocolVersion":1}"#)
    #expect(try Self.roundTrip(result) == result)
    let old = #"{"protocolVersion":1,"implementation":"IntentHostSDK 0.1.0"}"#
    #expect(try Self.decode(InitializeResult.self, old) == InitializeResult(implementation: "IntentHostSDK 0.1.0"))
    #expect(try encode(InitializeResult(implementation: "x")) == #"{"implementation":"x","protocolVersion":1}"#)
  }

  @Test func everyAppIntentsMessageIsRegistered() {
    let types: [String: any RequestMessage.Type] = [
      "appIntent/perform": PerformAppIntentRequest.self, "appIntent/options": AppIntentOptionsRequest.self,
      "entity/query": EntityQueryRequest.self, "host/requestValue": RequestValueRequest.self,
      "host/requestDisambiguation": RequestDisambiguationRequest.self,
      "host/requestConfirmation": RequestConfirmationRequest.self,
      "host/requestParameterConfirmation": RequestParameterConfirmationRequest.self,
    ]
    for (method, type) in types {
      #expect(type.method == method)
      #expect(MessageRegistry.requestType(for: method) == type)
    }
    #expect(ErrorCode.userCancelled.description == "userCancelled -33007")
    #expect((-33099 ... -33000).contains(ErrorCode.userCancelled.rawValue))
  }

  /// How the host reads an error answer to perform: a thrown error is said, a cancel is the user's, anything else
  /// is a fault.
  @Test func performErrorsAreReadAsDocumented() {
    let said = ResponseError.performFailed("threw SiriIntentError", localizedStringResource: "No vehicle selected")
    #expect(said.code == .handlerFailed)
    #expect(said.data == "No vehicle selected")
    #expect(
      PerformFailure(said) == .threw(message: "threw SiriIntentError", localizedStringResource: "No vehicle selected"))
    #expect(
      PerformFailure(.performFailed("threw", localizedStringResource: nil))
        == .threw(message: "threw", localizedStringResource: nil))
    #expect(PerformFailure(ResponseError(.userCancelled, "no")) == .cancelledByUser)
    #expect(
      PerformFailure(.performFailed("threw", localizedStringResource: " "))
        == .fault("the error's data is blank"))
    #expect(
      PerformFailure(ResponseError(.internalError, "boom"))
        == .fault("appIntent/perform answered the error internalError -32603: boom"))
  }

  /// Apple's rule: an identifier that no longer exists is left out; what was not asked for, or twice, is wrong.
  @Test func entityAnswersAreCheckedAgainstTheQuery() {
    let byIdentifiers = EntityQueryRequest(entityType: "VehicleEntity", lookup: .identifiers(["v1", "v9"]))
    let v1 = ObjectValue(identifier: "v1", displayString: "Blue Golf")
    let v2 = ObjectValue(identifier: "v2", displayString: "Red Zoe")
    #expect(EntityQueryResult(entities: [v1]).problem(answering: byIdentifiers) == nil)
    #expect(EntityQueryResult(entities: []).problem(answering: byIdentifiers) == nil)
    #expect(
      EntityQueryResult(entities: [v1, v2]).problem(answering: byIdentifiers) == #"the entity "v2" was not asked for"#)
    #expect(
      EntityQueryResult(entities: [v1, v1]).problem(answering: byIdentifiers) == #"the entity "v1" is given twice"#)
    let suggested = EntityQueryRequest(entityType: "VehicleEntity", lookup: .suggested)
    #expect(EntityQueryResult(entities: [v1, v2]).problem(answering: suggested) == nil)
    #expect(EntityQueryResult(entities: [v2, v2]).problem(answering: suggested) == #"the entity "v2" is given twice"#)
  }
}

/// A hostile or mistaken message and the one change that makes it right: the first is refused saying why, the second
/// (the control) decodes, so each rule is seen to hold and to be the reason.
struct Refusal: Sendable, CustomTestStringConvertible {
  var testDescription: String
  var refused: String
  var control: String
  /// What the refusal's message says.
  var says: String
  var decode: @Sendable (Data) throws -> Void

  init<T: Decodable & Sendable>(_ rule: String, _ type: T.Type, _ refused: String, control: String, says: String) {
    testDescription = rule
    self.refused = refused
    self.control = control
    self.says = says
    decode = { _ = try WireCoding.decoder().decode(T.self, from: $0) }
  }
}

@Suite(.tags(.unit))
struct AppIntentBoundsTests {
  static let long = String(repeating: "x", count: 1001)
  static let thousand = String(repeating: "x", count: 1000)
  static let longName = String(repeating: "n", count: 201)
  static let name200 = String(repeating: "n", count: 200)
  static func values(_ count: Int) -> String {
    "[" + Array(repeating: #"{"type":"integer","value":1}"#, count: count).joined(separator: ",") + "]"
  }
  static func entities(_ count: Int) -> String {
    #"{"entities":["# + (0..<count).map { #"{"identifier":"e\#($0)","displayString":"E"}"# }.joined(separator: ",")
      + "]}"
  }
  static func snippet(_ count: Int) -> String {
    #"{"showPrompt":true,"snippet":{"stack":["#
      + Array(repeating: #"{"text":"t"}"#, count: count).joined(separator: ",")
      + "]}}"
  }
  static func perform(_ intent: String, attempt: String = "1", mode: String = "background") -> String {
    #"{"intent":\#(intent),"attempt":\#(attempt),"mode":"\#(mode)"}"#
  }

  static let refusals: [Refusal] = [
    Refusal(
      "an unknown action name", RequestConfirmationRequest.self, #"{"actionName":"purchase","showPrompt":true}"#,
      control: #"{"actionName":"buy","showPrompt":true}"#,
      says: #""purchase" is not a confirmation action name; it is one of add, addData, book, buy, call, checkIn"#),
    Refusal(
      "an action name in another case", RequestConfirmationRequest.self, #"{"actionName":"Order","showPrompt":true}"#,
      control: #"{"actionName":"order","showPrompt":true}"#, says: #""Order" is not a confirmation action name"#),
    Refusal(
      "a confirmation without showPrompt", RequestConfirmationRequest.self, #"{"actionName":"order"}"#,
      control: #"{"actionName":"order","showPrompt":false}"#, says: "showPrompt"),
    Refusal(
      "a parameter that is not a name", RequestValueRequest.self, #"{"parameter":"1st place"}"#,
      control: #"{"parameter":"firstPlace"}"#, says: #"parameter is not a name (a letter or "_", then letters"#),
    Refusal(
      "an empty parameter", RequestValueRequest.self, #"{"parameter":""}"#, control: #"{"parameter":"_x"}"#,
      says: "parameter is empty"),
    Refusal(
      "a parameter name too long", RequestValueRequest.self, #"{"parameter":"\#(longName)"}"#,
      control: #"{"parameter":"\#(name200)"}"#, says: "parameter is 201 Unicode scalars long; the limit is 200"),
    Refusal(
      "a parameter name with a control character", RequestValueRequest.self, #"{"parameter":"a\u001b[31m"}"#,
      control: #"{"parameter":"lieu_été"}"#, says: "parameter is not a name"),
    Refusal(
      "a blank dialog", RequestValueRequest.self, #"{"parameter":"p","dialog":" \n"}"#,
      control: #"{"parameter":"p","dialog":"Where?"}"#, says: "dialog is blank"),
    Refusal(
      "a dialog too long", RequestValueRequest.self, #"{"parameter":"p","dialog":"\#(long)"}"#,
      control: #"{"parameter":"p","dialog":"\#(thousand)"}"#,
      says: "dialog is 1001 Unicode scalars long; the limit is 1000"),
    Refusal(
      "no candidates", RequestDisambiguationRequest.self, #"{"parameter":"p","candidates":[]}"#,
      control: #"{"parameter":"p","candidates":\#(values(1))}"#, says: "candidates has 0 items; give at least 1"),
    Refusal(
      "too many candidates", RequestDisambiguationRequest.self, #"{"parameter":"p","candidates":\#(values(501))}"#,
      control: #"{"parameter":"p","candidates":\#(values(500))}"#, says: "candidates has 501 items; the limit is 500"),
    Refusal(
      "an enum value that is not a name", RequestParameterConfirmationRequest.self,
      #"{"parameter":"p","value":{"type":"enum","value":"home sweet home"}}"#,
      control: #"{"parameter":"p","value":{"type":"enum","value":"home"}}"#, says: "value.value is not a name"),
    Refusal(
      "an entity identifier with a control character", RequestValueResult.self,
      #"{"value":{"type":"object","value":{"identifier":"v\u0007","displayString":"V"}}}"#,
      control: #"{"value":{"type":"object","value":{"identifier":"v 1","displayString":"V"}}}"#,
      says: "value.value.identifier contains a control character"),
    Refusal(
      "an array value too long", RequestValueResult.self, #"{"value":{"type":"array","value":\#(values(501))}}"#,
      control: #"{"value":{"type":"array","value":\#(values(500))}}"#,
      says: "value.value has 501 items; the limit is 500"),
    Refusal(
      "perform attempt 0", PerformAppIntentRequest.self,
      perform(#"{"identifier":"OrderFuelIntent","parameters":{}}"#, attempt: "0"),
      control: perform(#"{"identifier":"OrderFuelIntent","parameters":{}}"#),
      says: "attempt is 0; the first perform is attempt 1"),
    Refusal(
      "an unknown perform mode", PerformAppIntentRequest.self,
      perform(#"{"identifier":"OrderFuelIntent","parameters":{}}"#, mode: "sideways"),
      control: perform(#"{"identifier":"OrderFuelIntent","parameters":{}}"#, mode: "foreground"),
      says: #""sideways" is not a perform mode; it is one of background, foreground"#),
    Refusal(
      "an intent identifier that is not a name", PerformAppIntentRequest.self,
      perform(#"{"identifier":"Order Fuel","parameters":{}}"#),
      control: perform(#"{"identifier":"OrderFuel","parameters":{}}"#), says: "identifier is not a name"),
    Refusal(
      "a parameter key that is not a name", PerformAppIntentRequest.self,
      perform(#"{"identifier":"OrderFuelIntent","parameters":{"../x":{"type":"string","value":"a"}}}"#),
      control: perform(#"{"identifier":"OrderFuelIntent","parameters":{"x":{"type":"string","value":"a"}}}"#),
      says: #"the key "../x" of parameters is not a name"#),
    Refusal(
      "an entity nested in an array with an empty identifier", PerformAppIntentRequest.self,
      perform(
        #"{"identifier":"I","parameters":{"cars":{"type":"array","value":[{"type":"object","value":{"identifier":"","displayString":"C"}}]}}}"#
      ),
      control: perform(
        #"{"identifier":"I","parameters":{"cars":{"type":"array","value":[{"type":"object","value":{"identifier":"c","displayString":"C"}}]}}}"#
      ), says: "parameters.cars.value[0].value.identifier is empty"),
    Refusal(
      "an unknown kind of perform result", AppIntentPerformResult.self, #"{"kind":"done"}"#,
      control: #"{"kind":"result"}"#,
      says: #""done" is not a kind of perform result; it is one of result, needsValue, continueInForeground"#),
    Refusal(
      "needsValue without its parameter", AppIntentPerformResult.self, #"{"kind":"needsValue","dialog":"Where?"}"#,
      control: #"{"kind":"needsValue","parameter":"location","dialog":"Where?"}"#, says: "parameter"),
    Refusal(
      "continueInForeground without alwaysConfirm", AppIntentPerformResult.self, #"{"kind":"continueInForeground"}"#,
      control: #"{"kind":"continueInForeground","alwaysConfirm":true}"#, says: "alwaysConfirm"),
    Refusal(
      "a snippet too large", RequestConfirmationRequest.self, snippet(500), control: snippet(499),
      says: "snippet has more than 500 nodes"),
    Refusal(
      "a snippet text too long", AppIntentPerformResult.self, #"{"kind":"result","snippet":{"text":"\#(long)"}}"#,
      control: #"{"kind":"result","snippet":{"text":"\#(thousand)"}}"#,
      says: "snippet: a text is 1001 Unicode scalars long"),
    Refusal(
      "an unknown kind of entity query", EntityQueryRequest.self, #"{"entityType":"Car","by":"properties"}"#,
      control: #"{"entityType":"Car","by":"all"}"#,
      says: #""properties" is not a kind of entity query; it is one of identifiers, suggested, string, all"#),
    Refusal(
      "a string with identifiers", EntityQueryRequest.self,
      #"{"entityType":"Car","by":"identifiers","identifiers":["c1"],"string":"golf"}"#,
      control: #"{"entityType":"Car","by":"identifiers","identifiers":["c1"]}"#,
      says: #"string is given only with by "string", not "identifiers""#),
    Refusal(
      "identifiers with all", EntityQueryRequest.self, #"{"entityType":"Car","by":"all","identifiers":["c1"]}"#,
      control: #"{"entityType":"Car","by":"all"}"#, says: #"identifiers is given only with by "identifiers""#),
    Refusal(
      "no identifiers", EntityQueryRequest.self, #"{"entityType":"Car","by":"identifiers","identifiers":[]}"#,
      control: #"{"entityType":"Car","by":"identifiers","identifiers":["c1"]}"#,
      says: "identifiers has 0 items; give at least 1"),
    Refusal(
      "a blank query string", EntityQueryRequest.self, #"{"entityType":"Car","by":"string","string":"  "}"#,
      control: #"{"entityType":"Car","by":"string","string":"golf"}"#, says: "string is blank"),
    Refusal(
      "an entity type that is not a name", EntityQueryRequest.self, #"{"entityType":"Car/../x","by":"all"}"#,
      control: #"{"entityType":"Car","by":"all"}"#, says: "entityType is not a name"),
    Refusal(
      "too many entities", EntityQueryResult.self, entities(501), control: entities(500),
      says: "entities has 501 items; the limit is 500"),
    Refusal(
      "an entity property that is not a name", EntityQueryResult.self,
      #"{"entities":[{"identifier":"c","displayString":"C","properties":{"fuel type":{"type":"string","value":"d"}}}]}"#,
      control:
        #"{"entities":[{"identifier":"c","displayString":"C","properties":{"fuelType":{"type":"string","value":"d"}}}]}"#,
      says: #"the key "fuel type" of entities[0].properties is not a name"#),
    Refusal(
      "too many options in all", AppIntentOptionsResult.self,
      #"{"items":\#(values(300)),"sections":[{"items":\#(values(201))}]}"#,
      control: #"{"items":\#(values(300)),"sections":[{"items":\#(values(200))}]}"#,
      says: "the options (items and sections) has 501 items; the limit is 500"),
    Refusal(
      "a blank section title", AppIntentOptionsResult.self, #"{"items":[],"sections":[{"title":"","items":[]}]}"#,
      control: #"{"items":[],"sections":[{"title":"Recent","items":[]}]}"#, says: "title is blank"),
    Refusal(
      "an uppercase digest", InitializeResult.self,
      #"{"protocolVersion":1,"implementation":"x","appIntentsMetadataDigest":"0123456789ABCDEF"}"#,
      control: #"{"protocolVersion":1,"implementation":"x","appIntentsMetadataDigest":"0123456789abcdef"}"#,
      says: "appIntentsMetadataDigest is not lowercase hexadecimal"),
    Refusal(
      "a digest too short", InitializeResult.self,
      #"{"protocolVersion":1,"implementation":"x","appIntentsMetadataDigest":"abc"}"#,
      control: #"{"protocolVersion":1,"implementation":"x"}"#,
      says: "appIntentsMetadataDigest has 3 digits; a digest has an even number from 16 to 128"),
  ]

  @Test(arguments: refusals) func refusedSayingWhy(_ refusal: Refusal) {
    #expect(throws: Never.self, "control") { try refusal.decode(Data(refusal.control.utf8)) }
    do {
      try refusal.decode(Data(refusal.refused.utf8))
      Issue.record("accepted: \(refusal.refused.prefix(200))")
    } catch {
      #expect(String(describing: error).contains(refusal.says), "\(error)")
    }
  }

  /// The path of a refusal names the field, for the host's `invalid params for METHOD: PATH: …`.
  @Test func aRefusalNamesItsField() throws {
    let line =
      #"{"jsonrpc":"2.0","id":3,"method":"host/requestConfirmation","params":{"actionName":"purchase","showPrompt":true}}"#
    do {
      _ = try WireCoding.decoder().decode(RequestEnvelope<RequestConfirmationRequest>.self, from: Data(line.utf8))
      Issue.record("accepted")
    } catch DecodingError.dataCorrupted(let context) {
      #expect(context.codingPath.map(\.stringValue) == ["params", "actionName"])
      #expect(context.debugDescription.hasSuffix("start, toggle"))
    }
  }

  /// The name rule at its edges: Swift's names, including Unicode letters and a leading underscore.
  @Test(
    arguments: [
      ("OrderFuelIntent", true), ("_private", true), ("lieu_été", true), ("x2", true), ("Ω", true),
      ("2x", false), ("order-fuel", false), ("Order.Fuel", false), ("a b", false), ("", false), ("é\u{301}", true),
      ("a\u{200E}", false),
    ] as [(String, Bool)])
  func namesAreSwiftNames(name: String, accepted: Bool) {
    #expect((AppIntentLimits.nameProblem(name, field: "name") == nil) == accepted)
  }

  /// Hostile bytes never trap: garbage as any App Intents request or answer is an error, never a crash.
  @Test func garbageIsAnErrorNotATrap() {
    let types: [any RequestMessage.Type] = [
      PerformAppIntentRequest.self, AppIntentOptionsRequest.self, EntityQueryRequest.self, RequestValueRequest.self,
      RequestDisambiguationRequest.self, RequestConfirmationRequest.self, RequestParameterConfirmationRequest.self,
    ]
    let garbage = [
      "", "null", "[]", #"{"kind":1}"#, #"{"intent":null}"#, #"{"by":["all"]}"#, #"{"candidates":{}}"#,
      #"{"value":{"type":"array","value":[[[[]]]]}}"#, #"{"items":[{"type":"enum","value":-1}]}"#,
      String(repeating: "[", count: 10000), String(repeating: #"{"stack":["#, count: 2000),
    ]
    for text in garbage {
      for type in types {
        #expect(throws: (any Error).self, "\(type.method): \(text.prefix(40))") {
          try Self.decodeBoth(type, Data(text.utf8))
        }
      }
    }
  }

  /// Decodes `data` as the answer of `type` (which may or may not throw) and as its params (which must).
  static func decodeBoth<Message: RequestMessage>(_ type: Message.Type, _ data: Data) throws {
    _ = try? WireCoding.decoder().decode(Message.Response.self, from: data)
    _ = try WireCoding.decoder().decode(Message.self, from: data)
  }
}
