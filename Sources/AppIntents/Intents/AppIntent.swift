// AppIntent: one action the app offers to the assistant, with its parameters and its perform().

/// Who may run an intent while the device is locked.
public enum IntentAuthenticationPolicy: Int, Sendable, Hashable {
  /// Runs whether the device is locked or not.
  case alwaysAllowed = 0
  /// Needs the user to be authenticated: while the device is locked, the assistant asks for the passcode first.
  case requiresAuthentication = 1
  /// Needs the device unlocked, as `requiresAuthentication` does on a device without a watch to unlock it.
  case requiresLocalDeviceAuthentication = 2
}

/// An action of the app the assistant runs: it fills the parameters (asking the user for the required ones), runs
/// `perform()` in the app's App Intents extension (or the app), and says or shows the result.
///
/// Apple declares `title` and the other statics as `static var`; in Swift 6 a mutable static is a data race, so
/// write them as `static let` (a `let` meets the requirement).
///
/// ```swift
/// struct OrderFuelIntent: AppIntent {
///   static let title: LocalizedStringResource = "Order Fuel"
///   static let authenticationPolicy = IntentAuthenticationPolicy.requiresAuthentication
///
///   @Parameter(title: "Location", requestValueDialog: "Where should the order be?")
///   var location: Location
///
///   func perform() async throws -> some IntentResult & ProvidesDialog {
///     .result(dialog: "Ordered for \(location.rawValue).")
///   }
/// }
/// ```
public protocol AppIntent: Sendable {
  associatedtype PerformResult: IntentResult
  init()
  static var title: LocalizedStringResource { get }
  static var description: IntentDescription { get }
  /// Whether running it brings the app to the foreground (the assistant launches it in the foreground).
  static var openAppWhenRun: Bool { get }
  static var authenticationPolicy: IntentAuthenticationPolicy { get }
  /// Whether lists and search show it; hidden intents still run.
  static var isDiscoverable: Bool { get }
  func perform() async throws -> PerformResult
}

extension AppIntent {
  public static var description: IntentDescription { IntentDescription("") }
  public static var openAppWhenRun: Bool { false }
  public static var authenticationPolicy: IntentAuthenticationPolicy { .alwaysAllowed }
  public static var isDiscoverable: Bool { true }

  /// The intent's identifier in the metadata and on the wire: its type's name.
  public static var identifier: String { String(describing: Self.self) }
}
