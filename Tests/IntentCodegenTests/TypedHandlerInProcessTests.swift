import ExtensionSDK
import TestSupport
import Testing

// A handler of generated types tested in-process, as docs/SDK.md ("Unit-testing a typed handler") shows it: the lines
// between the two markers are the page's example, character for character (SDKDocumentTests checks it). The types
// are those IntentDefinitionPlugin generates from this target's Definition/Pizza.intentdefinition.

// docs/SDK.md: begin typed handler test
/// The handler under test: resolves the size and the count itself, leaves the other parameters to the defaults.
struct PizzaOrderHandler: OrderPizzaIntentHandling {
  func resolveSize(for intent: OrderPizzaIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<PizzaSize>
  {
    guard let size = intent.size, size != .unknown else { return .disambiguation(with: [.small, .extraLarge]) }
    return size == .extraLarge ? .confirmationRequired(with: size) : .success(with: size)
  }

  func resolveCount(for intent: OrderPizzaIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<Int>
  {
    guard let count = intent.count else { return .needsValue }
    return (1...10).contains(count) ? .success(with: count) : .unsupported(reason: "greaterThanMaximumValue")
  }

  func handle(intent: OrderPizzaIntent, in context: ExtensionContext) async throws -> OrderPizzaIntentResponse {
    guard let count = intent.count else { return OrderPizzaIntentResponse(code: .failure) }
    if intent.size == .extraLarge && count > 2 { return OrderPizzaIntentResponse(code: .failureOutOfDough) }
    return OrderPizzaIntentResponse(code: .success, minutes: 15 + 5 * count)
  }
}

@Suite(.tags(.unit))
struct PizzaOrderHandlerTests {
  /// A context that is not connected to a host (no app group: this handler uses none).
  let context = ExtensionContext(
    bundleIdentifier: "com.example.pizza.PizzaIntents", extensionPoint: SessionKind.intentsExtension.extensionPoint,
    bundlePath: "/nonexistent/PizzaIntents.appex", containerPath: "/nonexistent/container", locale: "en_US",
    appGroups: [])

  @Test func resolvesAndHandlesTypedValues() async throws {
    let handler = PizzaOrderHandler()
    #expect(try await handler.resolveCount(for: OrderPizzaIntent(), in: context) == .needsValue)
    #expect(
      try await handler.resolveCount(for: OrderPizzaIntent(count: 40), in: context)
        == .unsupported(reason: "greaterThanMaximumValue"))
    #expect(
      try await handler.resolveSize(for: OrderPizzaIntent(size: .unknown), in: context)
        == .disambiguation(with: [.small, .extraLarge]))
    #expect(
      try await handler.resolveSize(for: OrderPizzaIntent(size: .extraLarge), in: context)
        == .confirmationRequired(with: .extraLarge))
    // A parameter without a resolve method of the handler's own: the default accepts the value given.
    #expect(
      try await handler.resolveToppings(for: OrderPizzaIntent(toppings: ["basil"]), in: context)
        == .accepting(["basil"]))

    let intent = OrderPizzaIntent(size: .small, count: 2)
    #expect(try await handler.confirm(intent: intent, in: context).code == .ready)  // the default
    #expect(
      try await handler.handle(intent: intent, in: context) == OrderPizzaIntentResponse(code: .success, minutes: 25))
    let tooMany = OrderPizzaIntent(size: .extraLarge, count: 3)
    #expect(try await handler.handle(intent: tooMany, in: context).code == .failureOutOfDough)
  }

  @Test func answersTheHostWithWireValues() async throws {
    // What the SDK calls when the host asks: the IntentHandler side, with the intent as the wire carries it.
    let handler: any IntentHandler = PizzaOrderHandler()
    let wire = Intent(
      name: OrderPizzaIntent.className, identifier: "r1",
      parameters: ["size": .enumCase("small"), "count": .integer(2)])
    #expect(wire.value(of: "size", as: PizzaSize.self) == .small)
    #expect(try await handler.resolve("size", of: wire, in: context) == .success(.enumCase("small")))
    #expect(try await handler.resolve("count", of: wire, in: context) == .success(.integer(2)))
    let response = try await handler.handle(wire, in: context)
    #expect(response == IntentResponse(code: .success, parameters: ["minutes": .integer(25)]))
    #expect(response.value(of: "minutes", as: Int.self) == 25)
  }
}
// docs/SDK.md: end typed handler test
