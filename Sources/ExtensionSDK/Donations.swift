import ExtensionTransport
import IntentHostSystem
import Synchronization

/// Sends one of the donation, vocabulary and suggestion requests on `host`, turning the transport's errors into `ResponseError`.
func sendToHost<R: RequestMessage>(_ request: R, on host: Connection?) async throws -> R.Response {
  guard let host else {
    throw ResponseError(.notAllowedNow, "\(R.method): this context is not connected to a host")
  }
  do {
    return try await host.send(request)
  } catch ConnectionError.remote(let error) {
    throw error
  } catch ConnectionError.cancelled {
    throw CancellationError()
  } catch {
    throw ResponseError(.internalError, "\(R.method): no answer from the host: \(error)")
  }
}

/// An extension donates (SiriKit's `INInteraction.donate`) and registers terms at any time of its session: give
/// `context` to library code as its `any IntentDonating`.
extension ExtensionContext: IntentDonating, VocabularyRegistering, ShortcutSuggesting {
  /// Sends `host/donate`. See `IntentDonating`.
  /// - Throws: `ResponseError` (`invalidParams` for what the host refuses, `notAllowedNow` in a context not
  ///   connected to a host, `internalError` when the host cannot be reached or cannot keep it).
  @discardableResult
  public func donate(_ interaction: DonatedInteraction, identifier: String?, groupIdentifier: String?) async throws
    -> String
  {
    try await sendToHost(
      DonateRequest(interaction: interaction, identifier: identifier, groupIdentifier: groupIdentifier), on: host
    ).identifier
  }

  /// Sends `host/deleteDonations`. See `IntentDonating`.
  /// - Returns: how many donations were deleted.
  /// - Throws: as `donate(_:identifier:groupIdentifier:)`.
  @discardableResult
  public func deleteDonations(_ selection: DonationSelection) async throws -> Int {
    try await sendToHost(DeleteDonationsRequest(selection), on: host).deleted
  }

  /// Sends `host/donate` with an App Intent (`DonateAppIntentRequest`): the intent as it ran, its identifier one the
  /// app's `Metadata.appintents` declares. The AppIntents module's `IntentDonationManager` calls it.
  /// - Returns: the donation's identifier (`identifier` when given, else the host's).
  /// - Throws: as `donate(_:identifier:groupIdentifier:)`.
  @discardableResult
  public func donate(appIntent: AppIntentInstance, identifier: String? = nil, groupIdentifier: String? = nil)
    async throws -> String
  {
    try await sendToHost(
      DonateAppIntentRequest(appIntent: appIntent, identifier: identifier, groupIdentifier: groupIdentifier), on: host
    ).identifier
  }

  /// Sends `host/setVocabulary`: the app's terms of `type` become `strings`. See `VocabularyRegistering`.
  /// - Returns: how many terms the host kept.
  /// - Throws: as `donate(_:identifier:groupIdentifier:)`.
  @discardableResult
  public func setVocabularyStrings(_ strings: [String], of type: VocabularyStringType) async throws -> Int {
    try await sendToHost(SetVocabularyRequest(type: type, strings: strings), on: host).count
  }

  /// Sends `host/setShortcutSuggestions`: the app's suggested shortcuts become `suggestions`. See
  /// `ShortcutSuggesting`.
  @discardableResult
  public func setShortcutSuggestions(_ suggestions: [ShortcutSuggestion]) async throws -> [String] {
    try await sendToHost(SetShortcutSuggestionsRequest(suggestions: suggestions), on: host).identifiers
  }
}

/// An app launched by the host donates and registers terms on its host channel (docs/PROTOCOL.md, "The host channel
/// of an app"), connected on first use: give `context` to library code as its `any IntentDonating`. Without a channel
/// (an app not launched in the foreground by the host) the calls throw `notAllowedNow`.
extension AppContext: IntentDonating, VocabularyRegistering, ShortcutSuggesting {
  /// Sends `host/donate` on the host channel. See `IntentDonating`.
  /// - Returns: the donation's identifier (`identifier` when given, else the host's).
  /// - Throws: `ResponseError` (`invalidParams` for what the host refuses, `notAllowedNow` without a host channel,
  ///   `internalError` when the channel cannot be used or the host cannot keep it).
  @discardableResult
  public func donate(_ interaction: DonatedInteraction, identifier: String?, groupIdentifier: String?) async throws
    -> String
  {
    try await sendToHost(
      DonateRequest(interaction: interaction, identifier: identifier, groupIdentifier: groupIdentifier),
      on: try HostChannel.connection(hostChannelDescriptor)
    ).identifier
  }

  /// Sends `host/deleteDonations` on the host channel. See `IntentDonating`.
  /// - Returns: how many donations were deleted.
  /// - Throws: as `donate(_:identifier:groupIdentifier:)`.
  @discardableResult
  public func deleteDonations(_ selection: DonationSelection) async throws -> Int {
    try await sendToHost(DeleteDonationsRequest(selection), on: try HostChannel.connection(hostChannelDescriptor))
      .deleted
  }

  /// Sends `host/donate` with an App Intent on the host channel (`ExtensionContext.donate(appIntent:...)`).
  @discardableResult
  public func donate(appIntent: AppIntentInstance, identifier: String? = nil, groupIdentifier: String? = nil)
    async throws -> String
  {
    try await sendToHost(
      DonateAppIntentRequest(appIntent: appIntent, identifier: identifier, groupIdentifier: groupIdentifier),
      on: try HostChannel.connection(hostChannelDescriptor)
    ).identifier
  }

  /// Sends `host/setVocabulary` on the host channel. See `VocabularyRegistering`.
  /// - Returns: how many terms the host kept.
  /// - Throws: as `donate(_:identifier:groupIdentifier:)`.
  @discardableResult
  public func setVocabularyStrings(_ strings: [String], of type: VocabularyStringType) async throws -> Int {
    try await sendToHost(
      SetVocabularyRequest(type: type, strings: strings), on: try HostChannel.connection(hostChannelDescriptor)
    ).count
  }

  /// Sends `host/setShortcutSuggestions` on the host channel. See `ShortcutSuggesting`.
  /// - Returns: the host's identifier of each suggestion, in order.
  /// - Throws: as `donate(_:identifier:groupIdentifier:)`.
  @discardableResult
  public func setShortcutSuggestions(_ suggestions: [ShortcutSuggestion]) async throws -> [String] {
    try await sendToHost(
      SetShortcutSuggestionsRequest(suggestions: suggestions), on: try HostChannel.connection(hostChannelDescriptor)
    ).identifiers
  }
}

/// The process's one connection on its host channel, made on first use (however many `AppContext` values there are,
/// one reader per descriptor).
enum HostChannel {
  private static let connections = Mutex<[Int32: Connection]>([:])

  /// The connection on `descriptor`; nil when there is none.
  /// - Throws: `ResponseError(.internalError)` when the descriptor cannot be used.
  static func connection(_ descriptor: Int32?) throws -> Connection? {
    guard let descriptor else { return nil }
    return try connections.withLock { connections throws -> Connection in
      if let existing = connections[descriptor] { return existing }
      ignoreBrokenPipeSignal()
      let input = FileDescriptor(rawValue: descriptor)
      let output: FileDescriptor
      do {
        output = try input.duplicate()
      } catch {
        throw ResponseError(.internalError, "the host channel (fd \(descriptor)) cannot be used: \(error)")
      }
      let connection = Connection(input: input, output: output, options: .init(peerName: "host"))
      // The host sends nothing but answers; anything else is answered methodNotFound and dropped.
      connection.start { [weak connection] message in
        guard let message, let connection, case .request(let id) = message.kind else { return }
        answerOrLog {
          try connection.reply(
            to: id, error: ResponseError(.methodNotFound, "an app serves no request on its host channel"))
        }
      }
      connections[descriptor] = connection
      return connection
    }
  }
}
