// SoupKitchen: a small Intents extension for the SoupChef test, which runs Apple's SoupChef sample manifests (read
// from ../shared/corpus at test time) against it. It handles OrderSoupIntent with the SDK: asks for a missing
// quantity, refuses more than 10 with SoupChef's own `notEnoughInStock` reason, and answers with the response
// parameters SoupChef's templates use (soup, waitTime, orderDetails.total).
import ExtensionSDK

struct OrderSoupHandler: IntentHandler {
  func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws -> ResolutionResult {
    switch parameter {
    case "soup":
      guard let soup = intent["soup"] else { return .needsValue }
      return .success(soup)
    case "quantity":
      guard case .integer(let quantity)? = intent["quantity"] else { return .needsValue }
      if quantity > 10 { return .unsupported(reason: "notEnoughInStock") }
      return .success(.integer(quantity))
    default:
      return .notRequired
    }
  }

  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    guard case .integer(let quantity)? = intent["quantity"], let soup = intent["soup"] else {
      return IntentResponse(code: .failure)
    }
    let cents = quantity * 499
    let total = "$\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
    return IntentResponse(
      code: .success,
      parameters: [
        "soup": soup, "waitTime": .string("10 minutes"),
        "orderDetails": .object(
          ObjectValue(
            identifier: "order-1", displayString: "Order of \(quantity)", properties: ["total": .string(total)])),
      ])
  }
}

@main
struct SoupKitchen: IntentsExtension {
  func handler(for intent: Intent) -> (any IntentHandler)? {
    intent.name == "OrderSoupIntent" ? OrderSoupHandler() : nil
  }
}
