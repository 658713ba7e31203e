import AppIntents
import ExtensionProtocol
import Synchronization
import TestSupport
import Testing

// Seed 000's declarations, written as the seed writes them but for `static let` (Swift 6) and Apple's own phrase
// spelling (`\(.applicationName)`, `\(\.$location)`).
enum Location: String, AppEnum {
  case home = "Home"
  case work = "Work"
  static let typeDisplayRepresentation = TypeDisplayRepresentation(name: "Order Location")
  static let caseDisplayRepresentations: [Location: DisplayRepresentation] = [
    .home: DisplayRepresentation(title: "Home", synonyms: ["my house"]), .work: "Work",
  ]
}

struct LocationOptions: DynamicOptionsProvider {
  func results() async throws -> [Location] { [.work, .home] }
}

struct SiriIntentError: Error, CustomLocalizedStringResourceConvertible {
  let reason: String
  var localizedStringResource: LocalizedStringResource { "\(reason)" }
}

struct Summary: View {
  let fuel: String
  var body: some View {
    VStack {
      Text("Full tank of \(fuel)")
      LabeledContent("Delivery", value: "15:00-16:00")
      HStack {
        Image(systemName: "fuelpump")
        Text("Ready")
      }
    }
  }
}

struct OrderFuelIntent: AppIntent {
  static let title: LocalizedStringResource = "Order Fuel"
  static let description = IntentDescription(
    "Quickly make a Fuel Order", categoryName: "Fuel Ordering", searchKeywords: ["fuel", "order"])
  static let authenticationPolicy = IntentAuthenticationPolicy.requiresAuthentication

  @Parameter(title: "Location", requestValueDialog: "Where should the order be?", optionsProvider: LocationOptions())
  var location: Location

  @Parameter(title: "Note")
  var note: String?

  @Parameter(title: "Litres", default: 40)
  var litres: Int

  func perform() async throws -> some IntentResult & ProvidesDialog & ShowsSnippetView {
    if location == .work, try await !$location.requestConfirmation(for: .work, dialog: "At work?") {
      throw $location.needsValueError("Where then?")
    }
    try await requestConfirmation(
      result: .result(view: Summary(fuel: "98")), confirmationActionName: .order, showPrompt: false)
    return .result(dialog: "Awesome! Your fuel order has been placed.", view: Summary(fuel: "98"))
  }
}

struct Shortcuts: AppShortcutsProvider {
  static var appShortcuts: [AppShortcut] {
    AppShortcut(
      intent: OrderFuelIntent(),
      phrases: ["Fuel my car with \(.applicationName)", "Fuel my car at \(\.$location) with \(.applicationName)"],
      shortTitle: "Order Fuel", systemImageName: "fuelpump")
  }
}

/// A conversation that answers from a script and records what was asked.
final class ScriptedConversation: PerformConversation {
  let asked = Mutex<[String]>([])
  let confirms: Bool

  init(confirms: Bool) { self.confirms = confirms }

  func requestValue(parameter: String, dialog: IntentDialog?) async throws -> ParameterValue {
    asked.withLock { $0.append("value \(parameter): \(dialog?.description ?? "-")") }
    return .enumCase("home")
  }

  func requestDisambiguation(parameter: String, candidates: [ParameterValue], dialog: IntentDialog?) async throws
    -> ParameterValue
  {
    asked.withLock { $0.append("choose \(parameter)") }
    return candidates[0]
  }

  func requestConfirmation(parameter: String, value: ParameterValue, dialog: IntentDialog?) async throws -> Bool {
    asked.withLock { $0.append("confirm \(parameter)=\(value): \(dialog?.description ?? "-")") }
    return confirms
  }

  func requestConfirmation(
    actionName: ConfirmationActionName, dialog: IntentDialog?, showPrompt: Bool, snippet: SnippetNode?
  ) async throws {
    asked.withLock { $0.append("confirm \(actionName) prompt=\(showPrompt) \(snippet?.lines ?? [])") }
    if !confirms { throw AppIntentsError.userCancelled }
  }
}

@Suite(.tags(.unit))
struct DeclarationTests {
  @Test func parametersAreFoundByNameWithTheirTypesAndDialogs() async throws {
    let intent = OrderFuelIntent()
    let parameters = intentParameters(of: intent)
    #expect(parameters.map(\.name) == ["location", "note", "litres"])
    #expect(parameters.map(\.valueType) == [.enumeration("Location"), .optional(.string), .int])
    #expect(parameters[0].requestValueDialog?.description == "Where should the order be?")
    #expect(try await parameters[0].options?() == [.enumCase("work"), .enumCase("home")])
    #expect(parameters[2].defaultIntentValue == .integer(40) && intent.litres == 40)
    #expect(intent.note == nil)
    try await parameters[0].setIntentValue(.enumCase("work"))
    #expect(intent.location == .work)
    await #expect(throws: AppIntentsUsageError.self) { try await parameters[0].setIntentValue(.enumCase("mars")) }
    await #expect(throws: AppIntentsUsageError.self) { try await parameters[2].setIntentValue(.string("x")) }
  }

  @Test func enumCasesAreTheirSwiftNamesWithTitlesAndSynonyms() async throws {
    #expect(Location.home.intentValue == .enumCase("home"))
    #expect(try await Location.fromIntentValue(.enumCase("work")) == .work)
    #expect(Location.home.displayRepresentation.synonyms == ["my house"])
    #expect(Location.work.displayRepresentation.title == "Work")
    #expect(Location.typeDisplayRepresentation.name == "Order Location")
  }

  @Test func phrasesAreTheTemplatesXcodeWrites() {
    let shortcut = Shortcuts.appShortcuts[0]
    #expect(
      shortcut.phraseTemplates == [
        "Fuel my car with ${applicationName}", "Fuel my car at ${location} with ${applicationName}",
      ])
    #expect(shortcut.intentType.identifier == "OrderFuelIntent")
    #expect(OrderFuelIntent.identifier == "OrderFuelIntent")
  }

  @Test func viewsBuildTheSnippetTree() {
    #expect(
      snippetTree(of: Summary(fuel: "98"))
        == .stack([.text("Full tank of 98"), .row(label: "Delivery", value: "15:00-16:00"), .text("[fuelpump]  Ready")])
    )
  }

  /// perform's conversation: confirmed, it returns its dialog and snippet; declined, the user's cancel propagates;
  /// a parameter declined asks for a new value by re-performing.
  @Test func performTalksThroughItsConversation() async throws {
    let intent = OrderFuelIntent()
    _ = intentParameters(of: intent)
    intent.location = .home
    let yes = ScriptedConversation(confirms: true)
    let result = try await PerformContext.$conversation.withValue(yes) { try await intent.perform() }
    #expect(result.dialog?.description == "Awesome! Your fuel order has been placed.")
    #expect(result.snippet?.lines.first == "Full tank of 98")
    #expect(
      yes.asked.withLock { $0 } == [
        "confirm order prompt=false [\"Full tank of 98\", \"Delivery: 15:00-16:00\", \"[fuelpump]  Ready\"]"
      ])

    let no = ScriptedConversation(confirms: false)
    await #expect(throws: AppIntentsError.userCancelled) {
      _ = try await PerformContext.$conversation.withValue(no) { try await intent.perform() }
    }
    intent.location = .work
    await #expect(throws: AppIntentsError.needsValue(parameter: "location", dialog: "Where then?")) {
      _ = try await PerformContext.$conversation.withValue(no) { try await intent.perform() }
    }
  }

  /// Outside perform there is nobody to ask: a clear error, not a hang.
  @Test func askingOutsidePerformIsAnError() async throws {
    let intent = OrderFuelIntent()
    _ = intentParameters(of: intent)
    await #expect(throws: AppIntentsUsageError.outsidePerform) { _ = try await intent.$location.requestValue() }
    await #expect(throws: AppIntentsUsageError.outsidePerform) { try await intent.requestConfirmation() }
  }

  @Test func errorsSayTheirResource() {
    let error: any Error = SiriIntentError(reason: "Couldn't find your selected vehicle")
    #expect(
      (error as? any CustomLocalizedStringResourceConvertible)?.localizedStringResource.defaultValue
        == "Couldn't find your selected vehicle")
  }
}
