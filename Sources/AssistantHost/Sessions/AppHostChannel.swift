import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import IntentHostSystem
import ProcessSupervision

/// The host's side of an app's host channel (docs/PROTOCOL.md, "The host channel of an app"): the app's fd 3, on which
/// it sends `host/donate`, `host/deleteDonations`, `host/setVocabulary` and `host/setShortcutSuggestions` while it
/// runs (`DonationServer.methods`). The host never sends it anything but answers. Served on the connection's reader
/// thread, in arrival order; at most `budget` per launch, and lines of at most `maximumMessageSize`: past either, the
/// connection ends (one note in the app's log), and the app runs on.
final class AppHostChannel: Sendable {
  /// 256 requests and 1 MiB of them per launch: the host sends no request, so the budget counts from the start.
  static let budget = Connection.UnsolicitedBudget(messages: 256, bytes: 1 << 20)
  static let maximumMessageSize = 64 << 10

  private let connection: Connection

  /// Serves `channel` (the host's end, owned from here on) for `app`, whose process is `process`.
  /// - Throws: `SystemError` when the descriptor cannot be duplicated (the channel is then closed).
  init(_ channel: FileDescriptor, app: AppBundle, home: AssistantHome, process: SupervisedProcess) throws {
    let output: FileDescriptor
    do {
      output = try channel.duplicate()
    } catch {
      channel.close()
      throw error
    }
    let log: @Sendable (String) -> Void = { [process] line in process.appendHostLine(line) }
    connection = Connection(
      input: channel, output: output,
      options: .init(
        maximumMessageSize: Self.maximumMessageSize, unsolicitedBudget: Self.budget,
        peerName: "\(app.name) (\(app.info.bundleIdentifier))", log: log))
    let server = DonationServer(
      store: DonationStore(home: home), app: app.info.bundleIdentifier,
      rules: DonationRules(definitions: app.allDefinitions, appIntents: app.allAppIntentsMetadata), log: log)
    connection.start { [weak connection] message in
      guard let connection else { return }
      guard let message else {
        if case .protocolViolation(let what)? = connection.failure {
          log("note: the host channel was closed: \(app.name) broke the protocol: \(what)")
        }
        return
      }
      guard case .request(let id) = message.kind else { return }  // notifications are dropped
      if DonationServer.methods.contains(message.method) {
        server.serve(message, id: id, connection: connection)
      } else {
        do {
          try connection.reply(
            to: id,
            error: ResponseError(
              .methodNotFound,
              "the host channel serves \(DonationServer.methods.sorted().joined(separator: ", ")), "
                + "not \(message.method)"))
        } catch {
          log("note: an answer on the host channel was dropped: \(error)")
        }
      }
    }
  }

  /// Stops serving and closes the host's end.
  func close() { connection.close() }
}
