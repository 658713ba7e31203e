// App Shortcuts: the phrases that run an app's intents with no setup, written with the app's name and at most one
// parameter, as Apple's AppShortcutsProvider declares them.

/// The app's App Shortcuts: each runs an intent when the user says one of its phrases.
///
/// ```swift
/// struct FuelShortcuts: AppShortcutsProvider {
///   static var appShortcuts: [AppShortcut] {
///     AppShortcut(
///       intent: OrderFuelIntent(),
///       phrases: ["Fuel my car with \(.applicationName)", "Fuel my car at \(\.$location) with \(.applicationName)"],
///       shortTitle: "Order Fuel", systemImageName: "fuelpump")
///   }
/// }
/// ```
public protocol AppShortcutsProvider: Sendable {
  @AppShortcutsBuilder static var appShortcuts: [AppShortcut] { get }
  /// Phrases that must never run the app's App Shortcuts (iOS 17): said whole, they bypass the app's phrases, even
  /// one that would match them. None by default.
  static var negativePhrases: NegativeAppShortcutPhrases { get }
}

extension AppShortcutsProvider {
  public static var negativePhrases: NegativeAppShortcutPhrases { NegativeAppShortcutPhrases() }
}

/// Phrases that bypass the app's App Shortcuts, as Apple's `NegativeAppShortcutPhrases` lists them:
///
/// ```swift
/// static let negativePhrases = NegativeAppShortcutPhrases {
///   "Fuel prices with \(.applicationName)"
///   "Cancel my fuel order"
/// }
/// ```
public struct NegativeAppShortcutPhrases: Sendable {
  /// The phrases as the metadata holds them (`${applicationName}` for the app's name).
  public let templates: [String]

  /// None.
  public init() { templates = [] }

  public init(@NegativeAppShortcutPhrasesBuilder _ phrases: () -> [NegativeAppShortcutPhrase]) {
    templates = phrases().map(\.template)
  }
}

/// A negative phrase: words, and `\(.applicationName)` for the app's name (no parameter).
public struct NegativeAppShortcutPhrase: Sendable, ExpressibleByStringInterpolation {
  public let template: String

  public init(stringLiteral value: String) { template = value }

  public init(stringInterpolation: StringInterpolation) { template = stringInterpolation.template }

  public struct StringInterpolation: StringInterpolationProtocol, PhraseTemplateInterpolation {
    public var template = ""

    public init(literalCapacity: Int, interpolationCount: Int) {}
  }
}

/// What the interpolations of a phrase (`AppShortcutPhrase`, `NegativeAppShortcutPhrase`) share: words as written and
/// `\(.applicationName)` as `${applicationName}`, into the template the metadata holds.
public protocol PhraseTemplateInterpolation {
  var template: String { get set }
}

extension PhraseTemplateInterpolation {
  public mutating func appendLiteral(_ literal: String) { template += literal }

  public mutating func appendInterpolation(_ token: AppShortcutPhraseToken) {
    switch token {
    case .applicationName: template += "${applicationName}"
    }
  }
}

/// Lists the phrases of `NegativeAppShortcutPhrases { ... }`.
@resultBuilder
public enum NegativeAppShortcutPhrasesBuilder {
  public static func buildExpression(_ phrase: NegativeAppShortcutPhrase) -> [NegativeAppShortcutPhrase] { [phrase] }
  public static func buildBlock(_ parts: [NegativeAppShortcutPhrase]...) -> [NegativeAppShortcutPhrase] {
    parts.flatMap { $0 }
  }
}

/// Lists the shortcuts of `appShortcuts`, with `if` and `if #available` as Apple's builder allows.
@resultBuilder
public enum AppShortcutsBuilder {
  public static func buildExpression(_ shortcut: AppShortcut) -> [AppShortcut] { [shortcut] }
  public static func buildBlock(_ parts: [AppShortcut]...) -> [AppShortcut] { parts.flatMap { $0 } }
  public static func buildOptional(_ part: [AppShortcut]?) -> [AppShortcut] { part ?? [] }
  public static func buildEither(first: [AppShortcut]) -> [AppShortcut] { first }
  public static func buildEither(second: [AppShortcut]) -> [AppShortcut] { second }
  public static func buildLimitedAvailability(_ part: [AppShortcut]) -> [AppShortcut] { part }
}

/// One App Shortcut: an intent, its phrases, and how Shortcuts shows it.
public struct AppShortcut: Sendable {
  /// The intent's type (a fresh one is made each time it runs).
  public let intentType: any AppIntent.Type
  /// The phrases as Xcode writes them in the metadata: `Fuel my car at ${location} with ${applicationName}`.
  public let phraseTemplates: [String]
  public let shortTitle: LocalizedStringResource
  public let systemImageName: String

  public init<Intent: AppIntent>(
    intent: Intent, phrases: [AppShortcutPhrase<Intent>], shortTitle: LocalizedStringResource,
    systemImageName: String
  ) {
    intentType = Intent.self
    phraseTemplates = phrases.map(\.template)
    self.shortTitle = shortTitle
    self.systemImageName = systemImageName
  }
}

/// A token of a phrase: the app's name, which every phrase says once.
public enum AppShortcutPhraseToken: Sendable {
  case applicationName
}

/// A phrase of an App Shortcut, written with interpolations: `\(.applicationName)` for the app's name and
/// `\(\.$location)` for a parameter of the intent.
public struct AppShortcutPhrase<Intent: AppIntent>: Sendable, ExpressibleByStringInterpolation {
  /// The phrase as the metadata holds it: `${applicationName}` and `${parameter}` for the interpolations.
  public let template: String

  public init(stringLiteral value: String) { template = value }

  public init(stringInterpolation: StringInterpolation) { template = stringInterpolation.template }

  public struct StringInterpolation: StringInterpolationProtocol, PhraseTemplateInterpolation {
    public var template = ""

    public init(literalCapacity: Int, interpolationCount: Int) {}

    /// A parameter, by its key path (`\.$location`): the intent's property named by it.
    public mutating func appendInterpolation<Value>(_ parameter: KeyPath<Intent, IntentParameter<Value>>) {
      let intent = Intent()
      let wanted = intent[keyPath: parameter]
      let name = intentParameters(of: intent).first { $0 === wanted }?.name ?? "?"
      template += "${\(name)}"
    }
  }
}
