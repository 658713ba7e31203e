import AppIntents
import ExtensionProtocol
import TestSupport
import Testing

struct Car: AppEntity {
  static let typeDisplayRepresentation: TypeDisplayRepresentation = "Vehicle"
  static let defaultQuery = CarQuery()
  let id: String
  let name: String
  var displayRepresentation: DisplayRepresentation { "\(name)" }
}

struct CarQuery: EntityStringQuery {
  static let garage = [Car(id: "AB-1", name: "the red car"), Car(id: "EV-2", name: "the van")]
  func entities(for identifiers: [String]) async throws -> [Car] {
    Self.garage.filter { identifiers.contains($0.id) }
  }
  func suggestedEntities() async throws -> [Car] { Self.garage }
  func entities(matching string: String) async throws -> [Car] {
    Self.garage.filter { $0.name.contains(string.lowercased()) }
  }
}

struct FillIntent: AppIntent {
  static let title: LocalizedStringResource = "Fill"

  @Parameter(title: "Car")
  var car: Car

  @Parameter(title: "Where")
  var location: Location?

  func perform() async throws -> some IntentResult & ProvidesDialog & ReturnsValue<String> {
    guard car.id != "EV-2" else { throw SiriIntentError(reason: "The van takes no fuel") }
    return .result(value: car.id, dialog: "Filling \(car.name) at \(location?.rawValue ?? "home")")
  }
}

/// A perform that throws an error with no text for the user.
struct BrokenIntent: AppIntent {
  static let title: LocalizedStringResource = "Broken"
  struct Opaque: Error {}
  func perform() async throws -> some IntentResult {
    if BrokenIntent.title.key == "Broken" { throw Opaque() }
    return .result()
  }
}

/// The runtime in-process: what an App Intents extension answers to the host's requests.
@Suite(.tags(.unit))
struct RuntimeTests {
  let catalog = IntentCatalog(intents: [OrderFuelIntent.self, FillIntent.self, BrokenIntent.self])
  let car: ParameterValue = .object(ObjectValue(identifier: "AB-1", displayString: "the red car"))

  @Test func performSetsTheParametersAndReturnsTheResult() async throws {
    let result = try await catalog.perform(
      AppIntentInstance(identifier: "FillIntent", parameters: ["car": car, "location": .enumCase("work")]),
      conversation: ScriptedConversation(confirms: true))
    #expect(result == .result(dialog: "Filling the red car at Work", value: .string("AB-1")))
  }

  /// The seed's error is heard as its reason; an error without one carries no text (the host says Apple's generic
  /// sentence); a declined confirmation is the user's cancel; a parameter declined is needsValue.
  @Test func errorsBecomeWhatTheHostSays() async throws {
    let van = ParameterValue.object(ObjectValue(identifier: "EV-2", displayString: "the van"))
    let thrown = await #expect(throws: ResponseError.self) {
      _ = try await catalog.perform(
        AppIntentInstance(identifier: "FillIntent", parameters: ["car": van]),
        conversation: ScriptedConversation(confirms: true))
    }
    #expect(
      thrown.map(PerformFailure.init)
        == .threw(
          message: #"SiriIntentError(reason: "The van takes no fuel")"#,
          localizedStringResource: "The van takes no fuel"))
    let opaque = await #expect(throws: ResponseError.self) {
      _ = try await catalog.perform(
        AppIntentInstance(identifier: "BrokenIntent"), conversation: ScriptedConversation(confirms: true))
    }
    #expect(opaque?.data == nil && opaque?.code == .handlerFailed)
    let declined = await #expect(throws: ResponseError.self) {
      _ = try await catalog.perform(
        AppIntentInstance(identifier: "OrderFuelIntent", parameters: ["location": .enumCase("home")]),
        conversation: ScriptedConversation(confirms: false))
    }
    #expect(declined?.code == .userCancelled)
    let again = try await catalog.perform(
      AppIntentInstance(identifier: "OrderFuelIntent", parameters: ["location": .enumCase("work")]),
      conversation: ScriptedConversation(confirms: false))
    #expect(again == .needsValue(parameter: "location", dialog: "Where then?"))
  }

  @Test func badRequestsAreRefusedByName() async throws {
    for (instance, words) in [
      (AppIntentInstance(identifier: "NoSuchIntent"), "no App Intent NoSuchIntent"),
      (AppIntentInstance(identifier: "FillIntent", parameters: ["colour": .string("red")]), "no parameter colour"),
      (AppIntentInstance(identifier: "FillIntent", parameters: ["car": .string("AB-1")]), "car"),
    ] {
      let error = await #expect(throws: ResponseError.self) {
        _ = try await catalog.perform(instance, conversation: ScriptedConversation(confirms: true))
      }
      #expect(error?.message.contains(words) == true, "\(String(describing: error))")
    }
  }

  @Test func optionsComeFromTheProviderTheEnumOrTheQuery() async throws {
    let order = AppIntentInstance(identifier: "OrderFuelIntent")
    #expect(try await catalog.options(of: "location", in: order).items == [.enumCase("work"), .enumCase("home")])
    let fill = AppIntentInstance(identifier: "FillIntent")
    #expect(try await catalog.options(of: "location", in: fill).items == [.enumCase("home"), .enumCase("work")])
    #expect(try await catalog.options(of: "car", in: fill).items.count == 2)
  }

  /// What an intent, an options provider or a query reaches its app group with: the context of the request being
  /// answered, and none outside one.
  @Test func theExtensionContextIsKnownOnlyWhileARequestIsAnswered() throws {
    #expect(throws: AppIntentsUsageError.outsideRequest) { try ExtensionContext.current() }
    let groups = [AppGroupLocation(identifier: "group.com.example.fuel", path: "/groups/fuel")]
    let context = ExtensionContext(
      bundleIdentifier: "com.example.fuel.FuelIntents", extensionPoint: "com.apple.appintents-extension",
      bundlePath: "/apps/Fuel.app/Extensions/FuelIntents.appex", containerPath: "/containers/fuel", locale: "en_US",
      appGroups: groups)
    #expect(try ExtensionContext.$answering.withValue(context) { try ExtensionContext.current().appGroups } == groups)
  }

  @Test func entityQueriesAnswerByEveryLookupTheQueryHas() async throws {
    #expect(
      try await catalog.query(EntityQueryRequest(entityType: "Car", lookup: .identifiers(["EV-2", "gone"]))).entities
        .map(\.identifier) == ["EV-2"])
    #expect(
      try await catalog.query(EntityQueryRequest(entityType: "Car", lookup: .matching("Red"))).entities
        .map(\.displayString) == ["the red car"])
    let all = await #expect(throws: ResponseError.self) {
      _ = try await catalog.query(EntityQueryRequest(entityType: "Car", lookup: .all))
    }
    #expect(all?.message.contains("cannot look up by all") == true)
    await #expect(throws: ResponseError.self) {
      _ = try await catalog.query(EntityQueryRequest(entityType: "Boat", lookup: .suggested))
    }
  }
}

/// An app hands the host's App Intents launch to `main()`: `isLaunchedToPerform` reads `INTENTHOST_LAUNCH_REASON`.
struct LaunchReasonTests {
  @Test func onlyAnAppIntentLaunchIsOneToPerform() {
    #expect(FuelExtension.isLaunchedToPerform(environment: ["INTENTHOST_LAUNCH_REASON": "appIntent"]))
    // The controls: the SiriKit hand-over, a foreground continuation, no reason at all.
    #expect(!FuelExtension.isLaunchedToPerform(environment: ["INTENTHOST_LAUNCH_REASON": "handleInApp"]))
    #expect(!FuelExtension.isLaunchedToPerform(environment: ["INTENTHOST_LAUNCH_REASON": "continueUserActivity"]))
    #expect(!FuelExtension.isLaunchedToPerform(environment: [:]))
    #expect(LaunchEnvironment.LaunchReason.appIntent.variables == ["INTENTHOST_LAUNCH_REASON": "appIntent"])
  }
}
