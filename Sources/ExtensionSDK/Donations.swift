import ExtensionTransport

/// Sends one of the donation and vocabulary requests on `host`, turning the transport's errors into `ResponseError`.
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
extension ExtensionContext: IntentDonating, VocabularyRegistering {
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

  /// Sends `host/deleteDonations`.
  @discardableResult
  public func deleteDonations(_ selection: DonationSelection) async throws -> Int {
    try await sendToHost(DeleteDonationsRequest(selection), on: host).deleted
  }

  /// Sends `host/setVocabulary`: the app's terms of `type` become `strings`.
  @discardableResult
  public func setVocabularyStrings(_ strings: [String], of type: VocabularyStringType) async throws -> Int {
    try await sendToHost(SetVocabularyRequest(type: type, strings: strings), on: host).count
  }
}
