// Donations of App Intents: `IntentDonationManager` and `AppIntent.donate()`, sent to the host as `host/donate` with
// an `appIntent` (docs/PROTOCOL.md, "Requests to the host: donations and vocabulary").
import ExtensionProtocol
import ExtensionSDK

/// The host's name for a donation: the one to delete it by (`IntentDonationMatchingPredicate.donationIdentifier`).
public struct IntentDonationIdentifier: Hashable, Sendable, CustomStringConvertible {
  /// The identifier as the host keeps it (`d1`, or the one given).
  public let rawValue: String

  public init(rawValue: String) { self.rawValue = rawValue }

  public var description: String { rawValue }
}

/// Which donations `IntentDonationManager.deleteDonations(matching:)` deletes.
public struct IntentDonationMatchingPredicate: Sendable, Hashable {
  let selection: DonationSelection

  /// The donation the host named `identifier`.
  public static func donationIdentifier(_ identifier: IntentDonationIdentifier) -> Self {
    Self(selection: .identifiers([identifier.rawValue]))
  }

  /// Every donation of the intent type `type`.
  public static func intentType<Intent: AppIntent>(_ type: Intent.Type) -> Self {
    Self(selection: .intentType(type.identifier))
  }
}

/// Tells the assistant what the user did in the app, so that the user can make a shortcut of it
/// (`assistant shortcuts suggested`, then `assistant shortcuts add "PHRASE" --from d1`). As Apple says, donate only
/// what people did in the app: the host never runs a donation on its own.
///
/// ```swift
/// func perform() async throws -> some IntentResult & ProvidesDialog {
///   let order = try store.placeOrder(at: location)
///   try await IntentDonationManager.shared.donate(intent: self)  // or `try await donate()`
///   return .result(dialog: "Your order \(order.number) is placed.")
/// }
/// ```
///
/// It reaches the host through the request being answered (in `perform()`, an options provider or an entity query)
/// or, in an app the host opened in the foreground, through the app's host channel.
public final class IntentDonationManager: Sendable {
  /// The one manager.
  public static let shared = IntentDonationManager()

  private init() {}

  /// Donates `intent` with its parameters' current values.
  /// - Returns: the host's name for the donation.
  /// - Throws: `ResponseError`: `invalidParams` for what the host refuses (an intent the app's `Metadata.appintents`
  ///   does not declare, a value of another type than declared), `notAllowedNow` with no way to the host.
  @discardableResult
  public func donate<Intent: AppIntent>(intent: Intent) async throws -> IntentDonationIdentifier {
    let instance = Self.instance(of: intent)
    let identifier: String
    if let context = ExtensionContext.answering {
      identifier = try await context.donate(appIntent: instance)
    } else {
      identifier = try await Self.appContext().donate(appIntent: instance)
    }
    return IntentDonationIdentifier(rawValue: identifier)
  }

  /// Deletes the donations `predicate` names.
  /// - Throws: as `donate(intent:)`.
  public func deleteDonations(matching predicate: IntentDonationMatchingPredicate) async throws {
    if let context = ExtensionContext.answering {
      try await context.deleteDonations(predicate.selection)
    } else {
      try await Self.appContext().deleteDonations(predicate.selection)
    }
  }

  /// `intent` on the wire: its identifier and the values its parameters have.
  static func instance(of intent: some AppIntent) -> AppIntentInstance {
    var values: [String: ParameterValue] = [:]
    for parameter in intentParameters(of: intent) {
      if let value = parameter.currentIntentValue { values[parameter.name] = value }
    }
    return AppIntentInstance(identifier: type(of: intent).identifier, parameters: values)
  }

  /// The app's context, outside any request of the host's.
  private static func appContext() throws -> AppContext {
    do {
      return try AppContext.current()
    } catch {
      throw ResponseError(.notAllowedNow, "host/donate: this process is not connected to a host (\(error))")
    }
  }
}

extension AppIntent {
  /// Donates this intent with its parameters' current values: `IntentDonationManager.shared.donate(intent: self)`.
  @discardableResult
  public func donate() async throws -> IntentDonationIdentifier {
    try await IntentDonationManager.shared.donate(intent: self)
  }
}
