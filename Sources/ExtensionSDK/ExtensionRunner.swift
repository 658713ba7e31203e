#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import ExtensionTransport
import IntentHostSystem
import Synchronization
#if canImport(Glibc)
  import Glibc
#endif

/// The SDK's name and version, sent in `initialize`.
public let sdkImplementation = "IntentHostSDK 0.1.0"

/// Serves the protocol for an `IntentsExtension` on stdin and the real stdout.
enum ExtensionRunner {
  /// In-flight requests, so `$/cancelRequest` can cancel them and `shutdown` can wait for them.
  private final class InFlight: Sendable {
    let tasks = Mutex<[RequestID: Task<Void, Never>]>([:])
  }

  static func serve<E: IntentsExtension>(_ type: E.Type) async -> Never {
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
    connection.start()
    let inFlight = InFlight()
    var context: ExtensionContext? = nil
    var shutDown = false

    for await message in connection.messages {
      switch message.kind {
      case .notification:
        if message.method == ExitNotification.method {
          exit(shutDown ? 0 : 1)
        }
        if message.method == CancelRequestNotification.method,
          let cancel = try? message.params(CancelRequestNotification.self)
        {
          inFlight.tasks.withLock { $0[cancel.id] }?.cancel()
        }
      // Unknown notifications are ignored, as JSON-RPC allows.
      case .request(let id):
        if message.method == InitializeRequest.method {
          do {
            let request = try message.params(InitializeRequest.self)
            guard context == nil else {
              throw ResponseError(.notInitialized, "initialize was already received")
            }
            guard request.protocolVersion == protocolVersion else {
              throw ResponseError(
                .unsupportedVersion,
                "the host speaks protocol version \(request.protocolVersion); this SDK speaks \(protocolVersion)")
            }
            context = ExtensionContext(
              bundleIdentifier: request.bundleIdentifier, extensionPoint: request.extensionPoint,
              bundlePath: request.bundlePath, containerPath: request.containerPath, locale: request.locale,
              appGroups: request.appGroups)
            try? connection.reply(to: id, with: InitializeResult(implementation: sdkImplementation))
          } catch let error as ResponseError {
            try? connection.reply(to: id, error: error)
          } catch {
            try? connection.reply(to: id, error: ResponseError(.internalError, "\(error)"))
          }
          continue
        }
        if message.method == ShutdownRequest.method {
          shutDown = true
          let running = inFlight.tasks.withLock { Array($0.values) }
          for task in running { await task.value }
          try? connection.reply(to: id, with: EmptyObject())
          continue
        }
        guard let context, !shutDown else {
          let reason = shutDown ? "the extension is shutting down" : "initialize must come first"
          try? connection.reply(to: id, error: ResponseError(.notInitialized, "\(message.method): \(reason)"))
          continue
        }
        let task = Task {
          await answer(message, id: id, type: type, context: context, connection: connection)
          _ = inFlight.tasks.withLock { $0.removeValue(forKey: id) }
        }
        inFlight.tasks.withLock { $0[id] = task }
      }
    }
    // End of input: the host is gone. Exit without waiting for anything.
    exit(shutDown ? 0 : 1)
  }

  private static func answer<E: IntentsExtension>(
    _ message: InboundMessage, id: RequestID, type: E.Type, context: ExtensionContext, connection: Connection
  ) async {
    do {
      switch message.method {
      case ResolveParameterRequest.method:
        let request = try message.params(ResolveParameterRequest.self)
        let handler = try handler(type, for: request.intent)
        let result = try await run { try await handler.resolve(request.parameter, of: request.intent, in: context) }
        try connection.reply(to: id, with: result)
      case ConfirmIntentRequest.method:
        let request = try message.params(ConfirmIntentRequest.self)
        let handler = try handler(type, for: request.intent)
        let response = try await run { try await handler.confirm(request.intent, in: context) }
        try connection.reply(to: id, with: response)
      case HandleIntentRequest.method:
        let request = try message.params(HandleIntentRequest.self)
        let handler = try handler(type, for: request.intent)
        let response = try await run { try await handler.handle(request.intent, in: context) }
        try connection.reply(to: id, with: response)
      default:
        throw ResponseError(.methodNotFound, "unknown method \(message.method)")
      }
    } catch let error as ResponseError {
      try? connection.reply(to: id, error: error)
    } catch {
      try? connection.reply(to: id, error: ResponseError(.internalError, "\(error)"))
    }
  }

  private static func handler<E: IntentsExtension>(_ type: E.Type, for intent: Intent) throws(ResponseError)
    -> any IntentHandler
  {
    guard let handler = E().handler(for: intent) else {
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

func writeToStderr(_ text: String) {
  try? FileDescriptor.standardError.writeAll(Array(text.utf8))
}
