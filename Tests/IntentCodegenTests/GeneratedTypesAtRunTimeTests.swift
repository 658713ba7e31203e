import ExtensionSDK
import Foundation
import TestSupport
import Testing

// The types of Definition/Pizza.intentdefinition, which IntentDefinitionPlugin generates for this test target (its
// first rule: a target's own definition), used at run time: how they read and write the wire, and the defaults the
// handling protocol gives.

/// A handler that implements only what it must, so the defaults answer the rest.
struct MinimalPizzaHandler: OrderPizzaIntentHandling {
  func handle(intent: OrderPizzaIntent, in context: ExtensionContext) async throws -> OrderPizzaIntentResponse {
    intent.size == .extraLarge ? OrderPizzaIntentResponse(code: .failureOutOfDough) : .init(code: .success, minutes: 20)
  }
}

/// A handler that resolves the count itself.
struct CountingPizzaHandler: OrderPizzaIntentHandling {
  func resolveCount(for intent: OrderPizzaIntent, in context: ExtensionContext) async throws
    -> TypedResolutionResult<Int>
  {
    guard let count = intent.count else { return .needsValue }
    return count > 0 ? .success(with: count) : .unsupported(reason: "negativeNumbersNotSupported")
  }

  func handle(intent: OrderPizzaIntent, in context: ExtensionContext) async throws -> OrderPizzaIntentResponse {
    OrderPizzaIntentResponse(code: .success)
  }
}

let testContext = ExtensionContext(
  bundleIdentifier: "com.example.pizza.Intents", extensionPoint: "com.apple.intents-service", bundlePath: "/",
  containerPath: "/", locale: "en_US", appGroups: [])

@Suite(.tags(.unit))
struct GeneratedTypesAtRunTime {
  @Test func anIntentReadsItsValuesTypedAndWritesThemBack() throws {
    let date = try #require(ParameterValue.parseDate("2026-11-21T09:30:00Z"))
    let wire = Intent(
      name: "OrderPizzaIntent", identifier: "r1",
      parameters: [
        "size": .enumCase("extra large"), "toppings": .array([.string("basil"), .string("olives")]),
        "count": .integer(2), "deliverAt": .date(date),
      ])
    let intent = OrderPizzaIntent(wire)
    #expect(
      intent
        == OrderPizzaIntent(
          size: .extraLarge, toppings: ["basil", "olives"], count: 2, deliverAt: date, identifier: "r1"))
    #expect(intent.untyped == wire)
    #expect(OrderPizzaIntent.className == "OrderPizzaIntent")
  }

  @Test func aValueOfAnotherTypeOrAnUnknownCaseReadsAsMissing() {
    let intent = OrderPizzaIntent(
      Intent(
        name: "OrderPizzaIntent", identifier: "r2",
        parameters: ["size": .enumCase("gigantic"), "count": .string("two"), "toppings": .string("basil")]))
    #expect(intent.size == nil)
    #expect(intent.count == nil)
    // One value given to a parameter that takes several reads as an array of one.
    #expect(intent.toppings == ["basil"])
  }

  @Test func enumCasesGoOnTheWireByTheirNames() {
    #expect(PizzaSize.extraLarge.rawValue == "extra large")
    #expect(PizzaSize.allCases == [.unknown, .small, .extraLarge])
    #expect(PizzaSize(parameterValue: .enumCase("small")) == .small)
  }

  @Test func theDefaultsAcceptTheValueGivenAndConfirmReady() async throws {
    let handler: any IntentHandler = MinimalPizzaHandler()
    let intent = OrderPizzaIntent(count: 3).untyped
    #expect(try await handler.resolve("count", of: intent, in: testContext) == .success(.integer(3)))
    #expect(try await handler.resolve("size", of: intent, in: testContext) == .notRequired)
    #expect(try await handler.confirm(intent, in: testContext) == IntentResponse(code: .ready))
    let handled = try await handler.handle(OrderPizzaIntent(size: .extraLarge).untyped, in: testContext)
    #expect(handled == IntentResponse(code: "failureOutOfDough"))
    let small = try await handler.handle(OrderPizzaIntent(size: .small).untyped, in: testContext)
    #expect(small == IntentResponse(code: .success, parameters: ["minutes": .integer(20)]))
  }

  @Test func anImplementedResolveAnswersThroughTheBridge() async throws {
    let handler: any IntentHandler = CountingPizzaHandler()
    #expect(try await handler.resolve("count", of: OrderPizzaIntent().untyped, in: testContext) == .needsValue)
    #expect(
      try await handler.resolve("count", of: OrderPizzaIntent(count: -1).untyped, in: testContext)
        == .unsupported(reason: "negativeNumbersNotSupported"))
    // The typed side, as a unit test of a handler calls it.
    let typed = try await CountingPizzaHandler().resolveCount(for: OrderPizzaIntent(count: 4), in: testContext)
    #expect(typed == .success(with: 4))
  }

  @Test func aResponseKeepsUndeclaredParametersAndReadsUnknownCodesAsUnspecified() {
    let wire = IntentResponse(code: "failureOutOfDough", parameters: ["minutes": .integer(5), "reason": .string("no")])
    let response = OrderPizzaIntentResponse(wire)
    #expect(response.code == .failureOutOfDough)
    #expect(response.minutes == 5)
    #expect(response.extraParameters == ["reason": .string("no")])
    #expect(response.untyped == wire)
    #expect(OrderPizzaIntentResponse(IntentResponse(code: "noSuchCode")).code == .unspecified)
  }
}
