import ExtensionProtocol
import Foundation
import TestSupport
import Testing

func encode<T: Encodable>(_ value: T) throws -> String {
  String(decoding: try WireCoding.encoder().encode(value), as: UTF8.self)
}

@Suite(.tags(.unit))
struct MessageGoldenTests {
  static let intent = Intent(
    name: "BookRoomIntent", identifier: "ID-1",
    parameters: ["roomNumber": .integer(12), "bookedBy": .string("Ada"), "isCancellationOfBooking": .boolean(false)])

  @Test func requestsMatchTheirGoldenJSON() throws {
    #expect(
      try encode(
        RequestEnvelope(
          id: .number(2), method: ResolveParameterRequest.method,
          params: ResolveParameterRequest(intent: Self.intent, parameter: "roomNumber")))
        == #"{"id":2,"jsonrpc":"2.0","method":"intent/resolve","params":{"intent":{"identifier":"ID-1","name":"BookRoomIntent","parameters":{"bookedBy":{"type":"string","value":"Ada"},"isCancellationOfBooking":{"type":"boolean","value":false},"roomNumber":{"type":"integer","value":12}}},"parameter":"roomNumber"}}"#
    )
    #expect(
      try encode(
        RequestEnvelope(
          id: .number(1), method: InitializeRequest.method,
          params: InitializeRequest(
            host: "IntentHost 0.1.0", bundleIdentifier: "com.example.rooms.RoomsIntents",
            extensionPoint: "com.apple.intents-service", bundlePath: "/b", containerPath: "/c",
            appGroups: [AppGroupLocation(identifier: "group.com.example.rooms", path: "/g")], locale: "en_US")))
        == #"{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"appGroups":[{"identifier":"group.com.example.rooms","path":"/g"}],"bundleIdentifier":"com.example.rooms.RoomsIntents","bundlePath":"/b","containerPath":"/c","extensionPoint":"com.apple.intents-service","host":"IntentHost 0.1.0","locale":"en_US","protocolVersion":1}}"#
    )
    #expect(
      try encode(RequestEnvelope(id: .number(9), method: ShutdownRequest.method, params: ShutdownRequest()))
        == #"{"id":9,"jsonrpc":"2.0","method":"shutdown","params":{}}"#)
    #expect(
      try encode(
        NotificationEnvelope(
          method: CancelRequestNotification.method,
          params: CancelRequestNotification(id: .string("a"))))
        == #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a"}}"#)
  }

  @Test func configureViewMatchesItsGoldenJSON() throws {
    let request = ConfigureViewRequest(
      interaction: Interaction(
        intent: Intent(name: "PingIntent", identifier: "ID-2", parameters: ["value": .string("x")]),
        response: IntentResponse(code: .success), handlingStatus: "success"),
      parameters: ["value"], minimumSize: .zero, maximumSize: ViewSize(width: 398, height: 600))
    #expect(
      try encode(RequestEnvelope(id: .number(5), method: ConfigureViewRequest.method, params: request))
        == #"{"id":5,"jsonrpc":"2.0","method":"ui/configureView","params":{"context":"siriSnippet","interaction":{"handlingStatus":"success","intent":{"identifier":"ID-2","name":"PingIntent","parameters":{"value":{"type":"string","value":"x"}}},"response":{"code":"success","parameters":{}}},"maximumSize":{"height":600,"width":398},"minimumSize":{"height":0,"width":0},"parameters":["value"]}}"#
    )
    let view = ConfiguredView(
      success: true, parameters: ["value"], size: ViewSize(width: 300, height: 40),
      snippet: .stack([.text("Ping"), .row(label: "Value", value: "x")]))
    let json = try encode(ResultEnvelope(id: .number(5), result: view))
    #expect(
      json
        == #"{"id":5,"jsonrpc":"2.0","result":{"parameters":["value"],"size":{"height":40,"width":300},"snippet":{"stack":[{"text":"Ping"},{"row":{"label":"Value","value":"x"}}]},"success":true}}"#
    )
    let decoded = try WireCoding.decoder().decode(ResultEnvelope<ConfiguredView>.self, from: Data(json.utf8)).result
    #expect(decoded == view)
    #expect(view.snippet?.lines == ["Ping", "Value: x"])
  }

  @Test func resultsAndErrorsMatchTheirGoldenJSON() throws {
    #expect(
      try encode(
        ResultEnvelope(
          id: .number(4),
          result: IntentResponse(
            code: "successCancelledBooking", parameters: ["roomNumber": .integer(12)])))
        == #"{"id":4,"jsonrpc":"2.0","result":{"code":"successCancelledBooking","parameters":{"roomNumber":{"type":"integer","value":12}}}}"#
    )
    #expect(
      try encode(
        ResultEnvelope(
          id: .number(3),
          result: ResolutionResult.disambiguation([
            .object(ObjectValue(identifier: "r12", displayString: "Room 12"))
          ])))
        == #"{"id":3,"jsonrpc":"2.0","result":{"candidates":[{"type":"object","value":{"displayString":"Room 12","identifier":"r12"}}],"kind":"disambiguation"}}"#
    )
    #expect(
      try encode(ErrorEnvelope(id: nil, error: ResponseError(.parseError, "bad")))
        == #"{"error":{"code":-32700,"message":"bad"},"id":null,"jsonrpc":"2.0"}"#)
  }

  @Test(arguments: [
    ParameterValue.string("Ada"), .integer(-3), .decimal(2.5), .boolean(true),
    .date(Date(timeIntervalSince1970: 1_763_700_000)), .enumCase("delivery"),
    .object(ObjectValue(identifier: "a", displayString: "A")), .array([.integer(1), .string("x")]),
  ])
  func valuesRoundTrip(value: ParameterValue) throws {
    let data = try WireCoding.encoder().encode(value)
    #expect(try WireCoding.decoder().decode(ParameterValue.self, from: data) == value)
  }

  @Test func unknownValueTypeIsRefusedByName() throws {
    #expect(throws: DecodingError.self) {
      try WireCoding.decoder().decode(ParameterValue.self, from: Data(#"{"type":"color","value":"red"}"#.utf8))
    }
  }

  @Test(arguments: [
    (
      #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
      MessageHeader.Kind.request(.number(1), method: "initialize")
    ),
    (#"{"jsonrpc":"2.0","method":"exit"}"#, .notification(method: "exit")),
    (#"{"jsonrpc":"2.0","id":"x","result":{}}"#, .response(.string("x"))),
    (
      #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}"#,
      .errorResponse(nil, ResponseError(.parseError, "m"))
    ),
  ])
  func headersClassifyMessages(line: String, kind: MessageHeader.Kind) throws {
    #expect(try WireCoding.decoder().decode(MessageHeader.self, from: Data(line.utf8)).kind == kind)
  }

  /// Extension → host: `host/requestAuthentication` and its answer.
  @Test func requestAuthenticationMatchesItsGoldenJSON() throws {
    #expect(
      try encode(
        RequestEnvelope(
          id: .number(1), method: RequestAuthenticationRequest.method,
          params: RequestAuthenticationRequest(reason: "Send 20 € to Ada")))
        == #"{"id":1,"jsonrpc":"2.0","method":"host/requestAuthentication","params":{"reason":"Send 20 € to Ada"}}"#)
    for outcome in AuthenticationOutcome.allCases {
      let json = try encode(ResultEnvelope(id: .number(1), result: RequestAuthenticationResult(outcome: outcome)))
      #expect(json == #"{"id":1,"jsonrpc":"2.0","result":{"outcome":"\#(outcome.rawValue)"}}"#)
    }
    #expect(AuthenticationOutcome.allCases.map(\.rawValue) == ["approved", "denied", "cancelled", "lockedOut"])
    #expect(ErrorCode.notAllowedNow.description == "notAllowedNow -33005")
    #expect(ErrorCode.busy.description == "busy -33006")
  }

  @Test(
    arguments: [
      ("Pay", nil), ("", "reason is empty"), (" \n\t", "reason is empty"),
      (String(repeating: "x", count: 200), nil),
      (String(repeating: "x", count: 201), "reason is 201 Unicode scalars long; the limit is 200"),
      // One character of 300 scalars: bounded by scalars, not characters.
      ("e" + String(repeating: "\u{301}", count: 299), "reason is 300 Unicode scalars long; the limit is 200"),
    ] as [(String, String?)])
  func reasonsAreBounded(reason: String, problem: String?) {
    #expect(RequestAuthenticationRequest.reasonProblem(reason) == problem)
  }

  /// Extension or app → host: `host/donate`, `host/deleteDonations`, `host/setVocabulary` and their answers.
  @Test func donationsAndVocabularyMatchTheirGoldenJSON() throws {
    let interaction = DonatedInteraction(
      intent: Intent(name: "BookRoomIntent", identifier: "ID-1", parameters: ["roomNumber": .integer(12)]),
      response: IntentResponse(code: .success))
    #expect(
      try encode(
        RequestEnvelope(
          id: .number(1), method: DonateRequest.method,
          params: DonateRequest(interaction: interaction, groupIdentifier: "bookings")))
        == #"{"id":1,"jsonrpc":"2.0","method":"host/donate","params":{"groupIdentifier":"bookings","interaction":{"intent":{"identifier":"ID-1","name":"BookRoomIntent","parameters":{"roomNumber":{"type":"integer","value":12}}},"response":{"code":"success","parameters":{}}}}}"#
    )
    #expect(try encode(DonateResult(identifier: "d7")) == #"{"identifier":"d7"}"#)
    #expect(try encode(DeleteDonationsRequest(.identifiers(["a", "b"]))) == #"{"identifiers":["a","b"]}"#)
    #expect(try encode(DeleteDonationsRequest(.group("bookings"))) == #"{"groupIdentifier":"bookings"}"#)
    #expect(try encode(DeleteDonationsRequest(.all)) == #"{"all":true}"#)
    #expect(try encode(DeleteDonationsResult(deleted: 2)) == #"{"deleted":2}"#)
    #expect(
      try encode(SetVocabularyRequest(type: .contactName, strings: ["Ada"]))
        == #"{"strings":["Ada"],"type":"contactName"}"#)
    #expect(try encode(SetVocabularyResult(count: 1)) == #"{"count":1}"#)
    #expect(try encode(DeleteDonationsRequest(.intentType("OrderFuelIntent"))) == #"{"intentType":"OrderFuelIntent"}"#)
    for selection in [DonationSelection.identifiers(["a"]), .group("g"), .intentType("OrderFuelIntent"), .all] {
      let data = try WireCoding.encoder().encode(DeleteDonationsRequest(selection))
      #expect(try WireCoding.decoder().decode(DeleteDonationsRequest.self, from: data).selection == selection)
    }
  }

  /// Extension or app → host: `host/setShortcutSuggestions` and its answer, as docs/PROTOCOL.md shows them.
  @Test func shortcutSuggestionsMatchTheirGoldenJSON() throws {
    let request = SetShortcutSuggestionsRequest(suggestions: [
      ShortcutSuggestion(
        intent: Intent(
          name: "BookRoomIntent", identifier: "ID-1",
          parameters: [
            "bookedBy": .string("Ada"), "isCancellationOfBooking": .boolean(false), "roomNumber": .integer(12),
          ]),
        phrase: "Book my usual room"),
      ShortcutSuggestion(
        intent: Intent(name: "OpenDoorIntent", identifier: "ID-2", parameters: ["roomNumber": .integer(12)]),
        phrase: "Open my room's door"),
    ])
    let line =
      #"{"id":4,"jsonrpc":"2.0","method":"host/setShortcutSuggestions","params":{"suggestions":[{"intent":{"identifier":"ID-1","name":"BookRoomIntent","parameters":{"bookedBy":{"type":"string","value":"Ada"},"isCancellationOfBooking":{"type":"boolean","value":false},"roomNumber":{"type":"integer","value":12}}},"phrase":"Book my usual room"},{"intent":{"identifier":"ID-2","name":"OpenDoorIntent","parameters":{"roomNumber":{"type":"integer","value":12}}},"phrase":"Open my room's door"}]}}"#
    #expect(
      try encode(RequestEnvelope(id: .number(4), method: SetShortcutSuggestionsRequest.method, params: request))
        == line)
    #expect(try encode(SetShortcutSuggestionsResult(identifiers: ["s1", "s2"])) == #"{"identifiers":["s1","s2"]}"#)
    // It decodes back to what was sent, and the registry knows it.
    let decoded = try WireCoding.decoder().decode(
      RequestEnvelope<SetShortcutSuggestionsRequest>.self, from: Data(line.utf8))
    #expect(decoded.params == request)
    #expect(MessageRegistry.requestType(for: "host/setShortcutSuggestions") == SetShortcutSuggestionsRequest.self)
  }

  /// A selection names exactly one kind; `all` must be true. Control: each alone decodes.
  @Test(
    arguments: [
      (#"{}"#, false), (#"{"all":true,"groupIdentifier":"g"}"#, false), (#"{"all":false}"#, false),
      (#"{"identifiers":"a"}"#, false), (#"{"all":true}"#, true), (#"{"groupIdentifier":"g"}"#, true),
    ])
  func deletionSelectionsAreExact(json: String, decodes: Bool) {
    let decoded = try? WireCoding.decoder().decode(DeleteDonationsRequest.self, from: Data(json.utf8))
    #expect((decoded != nil) == decodes)
  }

  @Test(
    arguments: [
      ("bookings", nil), ("", "identifier is empty"), ("a\u{1B}[31m", "identifier contains a control character"),
      ("a\u{202E}b", "identifier contains a control character"),
      (String(repeating: "x", count: 200), nil),
      (String(repeating: "x", count: 201), "identifier is 201 Unicode scalars long; the limit is 200"),
    ] as [(String, String?)])
  func donationIdentifiersAreBounded(identifier: String, problem: String?) {
    #expect(DonationLimits.identifierProblem(identifier, field: "identifier") == problem)
  }

  /// `host/donate` with an `appIntent` is `DonateAppIntentRequest`, told apart from a SiriKit donation by its params.
  @Test func anAppIntentDonationMatchesItsGoldenJSON() throws {
    let request = DonateAppIntentRequest(
      appIntent: AppIntentInstance(identifier: "OrderFuelIntent", parameters: ["location": .enumCase("home")]),
      groupIdentifier: "orders")
    let line =
      #"{"id":3,"jsonrpc":"2.0","method":"host/donate","params":{"appIntent":{"identifier":"OrderFuelIntent","parameters":{"location":{"type":"enum","value":"home"}}},"groupIdentifier":"orders"}}"#
    #expect(try encode(RequestEnvelope(id: .number(3), method: DonateAppIntentRequest.method, params: request)) == line)
    #expect(MessageRegistry.requestType(for: "host/donate", line: Data(line.utf8)) == DonateAppIntentRequest.self)
    let decoded = try WireCoding.decoder().decode(
      RequestEnvelope<DonateAppIntentRequest>.self, from: Data(line.utf8))
    #expect(decoded.params == request)
    // The control: a SiriKit donation is a DonateRequest, as is one with neither field (refused when decoded).
    let siriKit =
      #"{"id":1,"jsonrpc":"2.0","method":"host/donate","params":{"interaction":{"intent":{"identifier":"I","name":"BookRoomIntent","parameters":{}}}}}"#
    #expect(MessageRegistry.requestType(for: "host/donate", line: Data(siriKit.utf8)) == DonateRequest.self)
    #expect(
      MessageRegistry.requestType(for: "host/donate", line: Data(#"{"params":{}}"#.utf8)) == DonateRequest.self)
  }

  @Test func everyMessageIsRegisteredOnce() {
    let methods = MessageRegistry.requests.map { $0.method } + MessageRegistry.notifications.map { $0.method }
    #expect(Set(methods).count == methods.count)
    #expect(MessageRegistry.requestType(for: "intent/handle") == HandleIntentRequest.self)
  }
}
