// What an App Intents extension answers: perform an intent, the options of a parameter, an entity query.
import ExtensionProtocol
import ExtensionSDK
import ExtensionTransport

/// The intents a `@main` type lists, by identifier, and the entity types their parameters name.
package struct IntentCatalog: Sendable {
  let intents: [String: any AppIntent.Type]
  let entities: [String: any AppEntity.Type]

  package init(intents: [any AppIntent.Type]) {
    var byIdentifier: [String: any AppIntent.Type] = [:]
    var entities: [String: any AppEntity.Type] = [:]
    for type in intents {
      byIdentifier[type.identifier] = type
      for parameter in intentParameters(of: type.init()) {
        if let entity = parameter.entityType { entities[String(describing: entity)] = entity }
      }
    }
    self.intents = byIdentifier
    self.entities = entities
  }

  /// Answers one request of `AppIntentsExtension.main()`'s methods, with `context` as `ExtensionContext.current()`.
  func answer(_ message: InboundMessage, context: ExtensionContext) async throws -> any Codable & Sendable {
    try await ExtensionContext.$answering.withValue(context) { try await answerInContext(message, context: context) }
  }

  private func answerInContext(_ message: InboundMessage, context: ExtensionContext) async throws
    -> any Codable & Sendable
  {
    switch message.method {
    case PerformAppIntentRequest.method:
      let request = try message.params(PerformAppIntentRequest.self)
      guard let connection = context.hostConnection else { throw ResponseError(.internalError, "no host") }
      return try await perform(request.intent, conversation: HostConversation(connection: connection))
    case AppIntentOptionsRequest.method:
      let request = try message.params(AppIntentOptionsRequest.self)
      return try await options(of: request.parameter, in: request.intent)
    default:
      let request = try message.params(EntityQueryRequest.self)
      return try await query(request)
    }
  }

  /// A fresh intent of `instance`'s type with its parameters set.
  func intent(_ instance: AppIntentInstance) async throws -> (any AppIntent, [any AnyIntentParameter]) {
    guard let type = intents[instance.identifier] else {
      throw ResponseError(.noHandler, "no App Intent \(instance.identifier)")
    }
    let intent = type.init()
    let parameters = intentParameters(of: intent)
    for (name, value) in instance.parameters.sorted(by: { $0.key < $1.key }) {
      guard let parameter = parameters.first(where: { $0.name == name }) else {
        throw ResponseError(.invalidParams, "\(instance.identifier) has no parameter \(name)")
      }
      do {
        try await parameter.setIntentValue(value)
      } catch {
        throw ResponseError(.invalidParams, "\(error)")
      }
    }
    return (intent, parameters)
  }

  /// Performs `instance` with `conversation`: its result, a `needsValue`, or the error the user hears.
  package func perform(_ instance: AppIntentInstance, conversation: any PerformConversation) async throws
    -> AppIntentPerformResult
  {
    let (intent, _) = try await self.intent(instance)
    do {
      let result = try await PerformContext.$conversation.withValue(conversation) { try await intent.perform() }
      return .result(dialog: result.dialog?.description, value: result.value, snippet: result.snippet)
    } catch AppIntentsError.needsValue(let parameter, let dialog) {
      return .needsValue(parameter: parameter, dialog: dialog?.description)
    } catch AppIntentsError.userCancelled {
      throw ResponseError(.userCancelled, "the user did not confirm")
    } catch is CancellationError {
      throw ResponseError(.requestCancelled, "cancelled")
    } catch let error as ResponseError {
      throw error
    } catch {
      let heard = (error as? any CustomLocalizedStringResourceConvertible)?.localizedStringResource.defaultValue
      throw ResponseError.performFailed(String(describing: error), localizedStringResource: heard)
    }
  }

  /// The options of `name`: its provider's results, else an enum's cases, else an entity's suggestions.
  package func options(of name: String, in instance: AppIntentInstance) async throws -> AppIntentOptionsResult {
    let (_, parameters) = try await intent(instance)
    guard let parameter = parameters.first(where: { $0.name == name }) else {
      throw ResponseError(.invalidParams, "\(instance.identifier) has no parameter \(name)")
    }
    do {
      if let options = parameter.options { return AppIntentOptionsResult(items: try await options()) }
      if let cases = parameter.enumType?.allCaseValues { return AppIntentOptionsResult(items: cases) }
      if let entity = parameter.entityType {
        return AppIntentOptionsResult(items: try await entity.lookUpValues(.suggested) ?? [])
      }
    } catch {
      throw ResponseError(.handlerFailed, "the options of \(name): \(error)")
    }
    return AppIntentOptionsResult(items: [])
  }

  package func query(_ request: EntityQueryRequest) async throws -> EntityQueryResult {
    guard let entity = entities[request.entityType] else {
      throw ResponseError(.invalidParams, "no parameter of this extension's intents is a \(request.entityType)")
    }
    let values: [ParameterValue]?
    do {
      values = try await entity.lookUpValues(request.lookup)
    } catch {
      throw ResponseError(.handlerFailed, "the query of \(request.entityType): \(error)")
    }
    guard let values else {
      throw ResponseError(
        .invalidParams, "\(request.entityType)'s query cannot look up by \(request.lookup.kind.rawValue)")
    }
    return EntityQueryResult(entities: values.compactMap { if case .object(let object) = $0 { object } else { nil } })
  }
}

extension AppEntity {
  /// `lookUp` as values on the wire.
  static func lookUpValues(_ lookup: EntityLookup) async throws -> [ParameterValue]? {
    try await lookUp(lookup)?.map(\.intentValue)
  }
}

/// The questions of a perform, sent to the host over the connection (docs/PROTOCOL.md, "App Intents").
struct HostConversation: PerformConversation {
  let connection: Connection

  func requestValue(parameter: String, dialog: IntentDialog?) async throws -> ParameterValue {
    try await asking {
      try await connection.send(RequestValueRequest(parameter: parameter, dialog: dialog?.description))
    }
    .value
  }

  func requestDisambiguation(parameter: String, candidates: [ParameterValue], dialog: IntentDialog?) async throws
    -> ParameterValue
  {
    try await asking {
      try await connection.send(
        RequestDisambiguationRequest(parameter: parameter, candidates: candidates, dialog: dialog?.description))
    }.value
  }

  func requestConfirmation(parameter: String, value: ParameterValue, dialog: IntentDialog?) async throws -> Bool {
    try await asking {
      try await connection.send(
        RequestParameterConfirmationRequest(parameter: parameter, value: value, dialog: dialog?.description))
    }.confirmed
  }

  func requestConfirmation(
    actionName: ConfirmationActionName, dialog: IntentDialog?, showPrompt: Bool, snippet: SnippetNode?
  ) async throws {
    _ = try await asking {
      try await connection.send(
        RequestConfirmationRequest(
          dialog: dialog?.description, actionName: actionName, showPrompt: showPrompt, snippet: snippet))
    }
  }

  /// A question's answer; the user's cancel (the host's `userCancelled` error, which the connection throws as
  /// `ConnectionError.remote`) as `AppIntentsError.userCancelled`, which perform lets through.
  private func asking<T>(_ body: () async throws -> T) async throws -> T {
    do {
      return try await body()
    } catch ConnectionError.remote(let error) where error.code == .userCancelled {
      throw AppIntentsError.userCancelled
    }
  }
}
