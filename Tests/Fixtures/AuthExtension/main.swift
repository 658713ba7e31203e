// AuthExtension: an SDK Intents extension for PingIntent that asks the host to authenticate the user with
// `context.requestAuthentication(reason: "Send VALUE to Ada")`, at the moment its executable name (the .appex name
// the host passes as argv[0]) chooses:
// - "AuthInHandle": in handle; answers success with the outcome as `value` when approved ("Got approved."), failure
//   otherwise ("Not done: denied.");
// - "AuthInConfirm": in confirm; answers ready when approved, failure with the outcome otherwise;
// - "AuthInResolve": while resolving `value`, which the host refuses (notAllowedNow); the answer becomes the value,
//   so handle says it ("Got resolve: error notAllowedNow.").
// An error answer is named "error CODE".
import ExtensionSDK

let mode = (CommandLine.arguments.first ?? "").split(separator: "/").last.map(String.init) ?? ""

/// What came of asking the host: the outcome's name, or "error CODE".
func authenticate(_ intent: Intent, in context: ExtensionContext) async -> String {
  let value = intent["value"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? "it"
  do {
    return try await context.requestAuthentication(reason: "Send \(value) to Ada").rawValue
  } catch let error as ResponseError {
    return "error \(error.code.name)"
  } catch {
    return "error \(error)"
  }
}

func answer(_ outcome: String) -> IntentResponse {
  IntentResponse(code: outcome == "approved" ? .success : .failure, parameters: ["value": .string(outcome)])
}

struct PingHandler: IntentHandler {
  func resolve(_ parameter: String, of intent: Intent, in context: ExtensionContext) async throws -> ResolutionResult {
    if mode == "AuthInResolve" && parameter == "value" {
      return .success(.string("resolve: " + (await authenticate(intent, in: context))))
    }
    return intent[parameter].map { .success($0) } ?? .notRequired
  }

  func confirm(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    guard mode == "AuthInConfirm" else { return IntentResponse(code: .ready) }
    let outcome = await authenticate(intent, in: context)
    return outcome == "approved" ? IntentResponse(code: .ready) : answer(outcome)
  }

  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    switch mode {
    case "AuthInHandle": return answer(await authenticate(intent, in: context))
    case "AuthInConfirm": return answer("approved")
    default: return IntentResponse(code: .success, parameters: ["value": intent["value"] ?? .string("nothing")])
    }
  }
}

@main
struct AuthExtension: IntentsExtension {
  func handler(for intent: Intent) -> (any IntentHandler)? {
    intent.name == "PingIntent" ? PingHandler() : nil
  }
}
