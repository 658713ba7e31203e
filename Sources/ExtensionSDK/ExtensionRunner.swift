import ExtensionTransport
import IntentHostSystem
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// The SDK's name and version, sent in `initialize`.
public let sdkImplementation = "IntentHostSDK 0.1.0"

/// Requests beyond SiriKit's that another SDK module of this package answers (the App Intents runtime): their
/// methods, how each is answered, and what it adds to `initialize`'s result.
package struct MoreMethods: Sendable {
  package var methods: Set<String>
  /// Answers one request of `methods`; a `ResponseError` it throws is the answer's error.
  package var answer: @Sendable (InboundMessage, ExtensionContext) async throws -> any Codable & Sendable
  /// `initialize`'s result, with what the module adds.
  package var initialized: @Sendable (InitializeResult) -> InitializeResult

  package init(
    methods: Set<String>,
    answer: @escaping @Sendable (InboundMessage, ExtensionContext) async throws -> any Codable & Sendable,
    initialized: @escaping @Sendable (InitializeResult) -> InitializeResult = { $0 }
  ) {
    self.methods = methods
    self.answer = answer
    self.initialized = initialized
  }
}

/// Serves the protocol on stdin and the real stdout with no SiriKit handler, answering `more`'s requests: the
/// entry point of an App Intents extension. Returns only by exiting.
package func serveMoreMethods(_ more: MoreMethods) async -> Never {
  await ExtensionRunner.serve(handlerFor: { _ in nil }, more: more)
}

/// Serves the protocol for an `IntentsExtension` on stdin and the real stdout.
enum ExtensionRunner {
  /// What the serve loop shares between the reader thread and the handler tasks.
  private final class ServeState: Sendable {
    struct Values {
      var context: ExtensionContext? = nil
      var shutDown = false
      /// In-flight requests, so `$/cancelRequest` can cancel them and `shutdown` can wait for them.
      var tasks: [RequestID: Task<Void, Never>] = [:]
    }
    let values = Mutex(Values())
  }

  /// Serves until the host says `exit` or closes stdin; `handlerFor` picks a fresh handler for each request.
  ///
  /// Messages are taken on the connection's reader thread, and each request runs in a task of its own started from
  /// there: one thread hop per request.
  static func serve(
    handlerFor: @escaping @Sendable (Intent) -> (any IntentHandler)?,
    makeView: (@Sendable () -> any IntentViewController)? = nil, more: MoreMethods? = nil
  ) async -> Never {
    ignoreBrokenPipeSignal()
    // Keep the real stdout for the protocol and point fd 1 at stderr, so a stray print cannot corrupt the stream.
    let protocolOutput: FileDescriptor
    do {
      protocolOutput = try FileDescriptor.standardOutput.duplicate()
      try FileDescriptor.standardOutput.replace(with: .standardError)
    } catch {
      writeToStderr("\(CommandLine.arguments.first ?? "extension"): cannot set up stdout: \(error)\n")
      exit(70)
    }
    let connection = Connection(
      input: .standardInput, output: protocolOutput, options: .init(peerName: "host"))
    let state = ServeState()
    connection.start { message in
      guard let message else {
        // End of input: the host is gone. Exit without waiting for anything.
        exit(state.values.withLock { $0.shutDown } ? 0 : 1)
      }
      receive(
        message, state: state, handlerFor: handlerFor, makeView: makeView, more: more, connection: connection)
    }
    while true { try? await Task.sleep(for: .seconds(3600)) }
  }

  /// Takes one message on the reader thread.
  private static func receive(
    _ message: InboundMessage, state: ServeState, handlerFor: @escaping @Sendable (Intent) -> (any IntentHandler)?,
    makeView: (@Sendable () -> any IntentViewController)?, more: MoreMethods?, connection: Connection
  ) {
    switch message.kind {
    case .notification:
      if message.method == ExitNotification.method {
        exit(state.values.withLock { $0.shutDown } ? 0 : 1)
      }
      if message.method == CancelRequestNotification.method,
        let cancel = try? message.params(CancelRequestNotification.self)
      {
        state.values.withLock { $0.tasks[cancel.id] }?.cancel()
      }
    // Unknown notifications are ignored, as JSON-RPC allows.
    case .request(let id):
      if message.method == InitializeRequest.method {
        do {
          let request = try message.params(InitializeRequest.self)
          guard request.protocolVersion == protocolVersion else {
            throw ResponseError(
              .unsupportedVersion,
              "the host speaks protocol version \(request.protocolVersion); this SDK speaks \(protocolVersion)")
          }
          let context = ExtensionContext(
            bundleIdentifier: request.bundleIdentifier, extensionPoint: request.extensionPoint,
            bundlePath: request.bundlePath, containerPath: request.containerPath, locale: request.locale,
            appGroups: request.appGroups, host: connection)
          let first = state.values.withLock { values -> Bool in
            guard values.context == nil else { return false }
            values.context = context
            return true
          }
          guard first else { throw ResponseError(.notInitialized, "initialize was already received") }
          let result = InitializeResult(implementation: sdkImplementation)
          answerOrLog { try connection.reply(to: id, with: more?.initialized(result) ?? result) }
        } catch let error as ResponseError {
          answerOrLog { try connection.reply(to: id, error: error) }
        } catch {
          answerOrLog { try connection.reply(to: id, error: ResponseError(.internalError, "\(error)")) }
        }
        return
      }
      if message.method == ShutdownRequest.method {
        let running = state.values.withLock { values in
          values.shutDown = true
          return Array(values.tasks.values)
        }
        Task {
          for task in running { await task.value }
          answerOrLog { try connection.reply(to: id, with: EmptyObject()) }
        }
        return
      }
      let (context, shutDown) = state.values.withLock { ($0.context, $0.shutDown) }
      guard let context, !shutDown else {
        let reason = shutDown ? "the extension is shutting down" : "initialize must come first"
        answerOrLog {
          try connection.reply(to: id, error: ResponseError(.notInitialized, "\(message.method): \(reason)"))
        }
        return
      }
      // The task is registered before it can finish, so its removal always follows its insertion.
      state.values.withLock { values in
        values.tasks[id] = Task {
          await answer(
            message, id: id, handlerFor: handlerFor, makeView: makeView, more: more, context: context,
            connection: connection)
          _ = state.values.withLock { $0.tasks.removeValue(forKey: id) }
        }
      }
    }
  }

  private static func answer(
    _ message: InboundMessage, id: RequestID, handlerFor: (Intent) -> (any IntentHandler)?,
    makeView: (@Sendable () -> any IntentViewController)?, more: MoreMethods?, context: ExtensionContext,
    connection: Connection
  ) async {
    do {
      if let more, more.methods.contains(message.method) {
        let result = try await more.answer(message, context)
        try connection.reply(to: id, with: result)
        return
      }
      switch message.method {
      case ResolveParameterRequest.method:
        let request = try message.params(ResolveParameterRequest.self)
        let handler = try handler(handlerFor, for: request.intent)
        let result = try await run { try await handler.resolve(request.parameter, of: request.intent, in: context) }
        try connection.reply(to: id, with: result)
      case ConfirmIntentRequest.method:
        let request = try message.params(ConfirmIntentRequest.self)
        let handler = try handler(handlerFor, for: request.intent)
        let response = try await run { try await handler.confirm(request.intent, in: context) }
        try connection.reply(to: id, with: response)
      case HandleIntentRequest.method:
        let request = try message.params(HandleIntentRequest.self)
        let handler = try handler(handlerFor, for: request.intent)
        let response = try await run { try await handler.handle(request.intent, in: context) }
        try connection.reply(to: id, with: response)
      case ConfigureViewRequest.method:
        let request = try message.params(ConfigureViewRequest.self)
        guard let makeView else {
          throw ResponseError(.methodNotFound, "\(message.method): this is not an Intents UI extension")
        }
        let view = makeView()  // a fresh view controller for every call
        let viewContext = ViewContext(
          kind: request.context, minimumSize: request.minimumSize, maximumSize: request.maximumSize,
          extensionContext: context)
        let configured = try await run {
          try await view.configureView(for: request.parameters, of: request.interaction, in: viewContext)
        }
        try connection.reply(to: id, with: configured)
      default:
        throw ResponseError(.methodNotFound, "unknown method \(message.method)")
      }
    } catch let error as ResponseError {
      answerOrLog { try connection.reply(to: id, error: error) }
    } catch {
      answerOrLog { try connection.reply(to: id, error: ResponseError(.internalError, "\(error)")) }
    }
  }

  private static func handler(_ handlerFor: (Intent) -> (any IntentHandler)?, for intent: Intent)
    throws(ResponseError) -> any IntentHandler
  {
    guard let handler = handlerFor(intent) else {
      throw ResponseError(.noHandler, "no handler for \(intent.name)")
    }
    return handler
  }

  /// Runs handler code, turning its errors into `handlerFailed` and cancellation into `requestCancelled`.
  private static func run<T: Sendable>(_ body: () async throws -> T) async throws(ResponseError) -> T {
    do {
      let value = try await body()
      if Task.isCancelled { throw ResponseError(.requestCancelled, "cancelled") }
      return value
    } catch let error as ResponseError {
      throw error
    } catch is CancellationError {
      throw ResponseError(.requestCancelled, "cancelled")
    } catch {
      throw ResponseError(.handlerFailed, String(describing: error))
    }
  }
}

/// Queues an answer to the host; a failure (the connection has already ended, or the answer cannot be encoded) goes
/// to stderr, which the host keeps in the extension's log.
func answerOrLog(_ body: () throws -> Void) {
  do {
    try body()
  } catch {
    writeToStderr("\(CommandLine.arguments.first ?? "extension"): cannot answer the host: \(error)\n")
  }
}

/// Writes `text` to stderr, which the host keeps in the extension's log; a failed write is dropped (there is nowhere
/// else to say it).
package func writeToStderr(_ text: String) {
  try? FileDescriptor.standardError.writeAll(Array(text.utf8))
}
