import ExtensionProtocol
import ExtensionTransport
import UntrustedText

/// How the host serves `host/donate`, `host/deleteDonations`, `host/setVocabulary` and `host/setShortcutSuggestions`
/// from one app or one of its
/// extensions (docs/PROTOCOL.md, "Requests to the host: donations and vocabulary"): checks them (`DonationRules`),
/// keeps them in the app's documents (`DonationStore`), answers.
///
/// Served on the connection's reader thread, in arrival order, so that a deletion sent after a donation applies after
/// it: that thread is the connection's own, never the cooperative pool, and a locked update of a small document is
/// short.
struct DonationServer: Sendable {
  var store: DonationStore
  /// The containing app's bundle identifier: whose donations these are.
  var app: String
  var rules: DonationRules
  /// Where a failure to keep something is reported besides the answer (the sender's log); must not block long.
  var log: @Sendable (String) -> Void

  static let methods: Set<String> = [
    DonateRequest.method, DeleteDonationsRequest.method, SetVocabularyRequest.method,
    SetShortcutSuggestionsRequest.method,
  ]

  /// Answers `message` (one of `methods`), a request `id`.
  func serve(_ message: InboundMessage, id: RequestID, connection: Connection) {
    let result: Result<any Codable & Sendable, ResponseError>
    do throws(ResponseError) {
      result = .success(try answer(message))
    } catch {
      result = .failure(error)
    }
    do {
      switch result {
      case .success(let value): try connection.reply(to: id, with: value)
      case .failure(let error): try connection.reply(to: id, error: error)
      }
    } catch {
      log("note: an answer to \(message.method) was dropped: \(error)")
    }
  }

  /// What `body` (keeping what `method` asked) returns; when it fails, the failure is logged with its detail and the
  /// sender is answered `internalError` "the host could not keep it": the detail (a path of the host's, an errno) is
  /// the host's, never told to the sandboxed sender.
  static func keeping<T>(_ method: String, log: (String) -> Void, _ body: () throws -> T) throws(ResponseError) -> T {
    do {
      return try body()
    } catch {
      log("error: \(method) could not be kept: \(error)")
      throw ResponseError(.internalError, "\(method): the host could not keep it")
    }
  }

  private func answer(_ message: InboundMessage) throws(ResponseError) -> any Codable & Sendable {
    let method = message.method
    let limit =
      method == SetShortcutSuggestionsRequest.method
      ? DonationLimits.maximumSuggestionsMessageBytes : DonationLimits.maximumMessageBytes
    guard message.raw.count <= limit else {
      throw ResponseError(
        .invalidParams, "invalid params for \(method): the message is \(message.raw.count) bytes; the limit is \(limit)"
      )
    }
    func refuse(_ problem: String) -> ResponseError {
      ResponseError(.invalidParams, "invalid params for \(method): \(problem)")
    }
    func kept<T>(_ body: () throws -> T) throws(ResponseError) -> T {
      try Self.keeping(method, log: log, body)
    }
    if method == DonateRequest.method {
      // A SiriKit interaction or an App Intent: exactly one of the two fields.
      let kind = try message.params(DonateAppIntentRequest.Kind.self)
      if let problem = kind.problem { throw refuse(problem) }
      if kind.isAppIntent {
        let request = try message.params(DonateAppIntentRequest.self)
        if let problem = rules.problem(request) { throw refuse(problem) }
        return DonateResult(identifier: try kept { try store.donate(request, for: app) })
      }
    }
    switch method {
    case DonateRequest.method:
      let request = try message.params(DonateRequest.self)
      if let problem = rules.problem(request) { throw refuse(problem) }
      return DonateResult(identifier: try kept { try store.donate(request, for: app) })
    case DeleteDonationsRequest.method:
      let request = try message.params(DeleteDonationsRequest.self)
      if let problem = DonationRules.problem(request.selection) { throw refuse(problem) }
      return DeleteDonationsResult(deleted: try kept { try store.deleteDonations(request.selection, for: app) })
    case SetShortcutSuggestionsRequest.method:
      let request = try message.params(SetShortcutSuggestionsRequest.self)
      if let problem = rules.problem(request) { throw refuse(problem) }
      return SetShortcutSuggestionsResult(
        identifiers: try kept { try store.setSuggestions(request.suggestions, for: app) })
    default:
      let request = try message.params(SetVocabularyRequest.self)
      if let problem = DonationRules.problem(request) { throw refuse(problem) }
      let type = VocabularyStringType(rawValue: request.type)!  // checked by the rules
      return SetVocabularyResult(count: try kept { try store.setVocabulary(request.strings, of: type, for: app) })
    }
  }
}
