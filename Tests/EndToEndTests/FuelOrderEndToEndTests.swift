import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The FuelOrder example (seed 000) as `assistant build` assembles it: the bundle with the metadata its App
/// Intents extension wrote validates and installs; the app manages the vehicles and places of its app group through
/// `assistant open`; and the extension, driven over the protocol by the test (the host does not run App Intents yet),
/// orders from the same group: nothing placed when the user declines, the order placed when they confirm, the seed's
/// reason heard when no vehicle is selected.
@Suite(.serialized, .tags(.endToEnd))
struct FuelOrderEndToEndTests {
  static let appex = "Extensions/FuelOrderIntents.appex"

  @Test func theAssembledBundleValidatesInstallsAndTheAppManagesTheGroup() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await host.installFuelOrder()
    let metadata = app.appendingPathComponent("\(Self.appex)/Metadata.appintents")
    let validated = try await host.assistant(["validate", app.path])
    #expect(validated.code == 0 && validated.stdout == "0 errors, 0 warnings in \(app.path)\n", "\(validated)")
    let bundle = try AppBundle.load(from: app)
    #expect(bundle.info.alternativeAppNames == ["Fuel Order"])
    #expect(bundle.appIntentsExtensions.map(\.name) == ["FuelOrderIntents"])
    let document = try #require(bundle.appIntentsExtensions.first?.metadata?.readDocument)
    #expect(document.actions.keys.map(\.rawValue).sorted() == ["OrderFuelIntent", "SelectVehicleIntent"])
    #expect(
      document.autoShortcuts.first?.phraseTemplates.map(\.key) == [
        "Fuel my car with ${applicationName}", "Fuel my car at ${location} with ${applicationName}",
        "Order fuel in ${applicationName}",
      ])
    #expect(FileManager.default.fileExists(atPath: metadata.appendingPathComponent("version.json").path))

    // The app: the group's first use gives it the sample; each command is one use case of FuelOrderKit.
    let steps: [(arguments: [String], output: String)] = [
      (["vehicles"], "AB-123: the red car, 98 (selected)\n"),
      (["locations"], "home: 12 Harbour Road\nwork: 1 Market Square\n"),
      (["add-vehicle", "EV-1", "electric", "the", "van"], "Added the van (EV-1, electric).\n"),
      (["select-vehicle", "ev-1"], "Selected the van (EV-1) for the next order.\n"),
      (["vehicles"], "AB-123: the red car, 98\nEV-1: the van, electric (selected)\n"),
      (["set-location", "work", "7", "Dock", "Street"], "Saved work: 7 Dock Street.\n"),
      (["locations"], "home: 12 Harbour Road\nwork: 7 Dock Street\n"),
      (["remove-vehicle", "EV-1"], "Removed EV-1.\n"),
      (["vehicles"], "AB-123: the red car, 98\n"),
      (["orders"], "No orders yet.\n"),
    ]
    for step in steps {
      let result = try await host.assistant(["open", "FuelOrder", "--"] + step.arguments)
      #expect(result.code == 0 && result.stdout == step.output, "\(step.arguments): \(result)")
    }
    let refused = try await host.assistant(["open", "FuelOrder", "--", "add-vehicle", "X", "98", "car"])
    #expect(refused.code == 1 && refused.stderr.contains("Invalid plate X"), "\(refused)")
    let misuses: [(arguments: [String], said: String)] = [
      (["add-vehicle", "AB-1", "gas", "car"], "unknown fuel \"gas\": say 98, 95, diesel or electric"),
      (["set-location", "moon", "1 Crater"], "unknown place \"moon\": say home or work"),
      (["select-vehicle"], "select-vehicle takes 1 argument\nusage: fuelorder"),
      (["fly"], "unknown command \"fly\"\nusage: fuelorder"), ([], "no command\nusage: fuelorder"),
    ]
    for misuse in misuses {
      let result = try await host.assistant(["open", "FuelOrder", "--"] + misuse.arguments)
      #expect(result.code == 64 && result.stderr.hasPrefix("fuelorder: " + misuse.said), "\(misuse): \(result)")
    }
  }

  @Test func theExtensionOrdersFromTheGroupTheAppShares() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let app = try await host.installFuelOrder()
    let orders = { try await host.assistant(["open", "FuelOrder", "--", "orders"]).stdout }
    #expect(try await orders() == "No orders yet.\n")  // the app seeded the group
    let executable = app.appendingPathComponent("\(Self.appex)/FuelOrderIntents").path
    let group = host.groups + "/group.com.example.fuelorder"
    let container = host.directory.file("container").path
    let order = AppIntentInstance(identifier: "OrderFuelIntent", parameters: ["location": .enumCase("work")])
    let digest = try #require(AppBundle.load(from: app).appIntentsExtensions.first?.metadata?.digest)

    // Declined: the user's cancel, and the order stays a draft.
    let declining = try await AppIntentsPeer.start(executable, group: group, container: container, confirms: false)
    #expect(declining.initialized.appIntentsMetadataDigest == digest)
    let options = try await declining.send(AppIntentOptionsRequest(intent: order, parameter: "location"))
    #expect(options.items == [.enumCase("home"), .enumCase("work")])
    let vehicles = try await declining.send(EntityQueryRequest(entityType: "VehicleEntity", lookup: .suggested))
    #expect(vehicles.entities == [ObjectValue(identifier: "AB-123", displayString: "the red car")])
    let declined = await #expect(throws: ConnectionError.self) {
      _ = try await declining.send(PerformAppIntentRequest(intent: order))
    }
    #expect(declined == .remote(ResponseError(.userCancelled, "the user did not confirm")))
    let asked = try #require(declining.confirmations.first)
    #expect(asked.actionName == .order && !asked.showPrompt && asked.dialog == "Here is your fuel order.")
    let rows = try #require(asked.snippet?.lines)
    #expect(rows.count == 5 && rows[0] == "[fuelpump]  Fuel order", "\(rows)")
    #expect(
      Array(rows[1...3]) == [
        "Vehicle: the red car (AB-123)", "Fuel: Full tank of 98", "Location: Work, 1 Market Square",
      ])
    #expect(rows[4].hasPrefix("Time slot: "))
    #expect(try await declining.finish() == .exited(0))
    let draft = "created: Full tank of 98 for the red car (AB-123) at work (1 Market Square), "
    #expect(try await orders().hasPrefix(draft))

    // Confirmed: placed, as the app lists it.
    let confirming = try await AppIntentsPeer.start(executable, group: group, container: container, confirms: true)
    let placed = try await confirming.send(PerformAppIntentRequest(intent: order))
    #expect(placed == .result(dialog: "Awesome! Your fuel order has been placed."))
    #expect(try await confirming.finish() == .exited(0))
    let listed = try await orders()
    #expect(listed.hasPrefix("placed: Full tank of 98") && listed.split(separator: "\n").count == 1, "\(listed)")

    // No vehicle selected: the seed's reason is what the user hears; nothing is asked.
    #expect(try await host.assistant(["open", "FuelOrder", "--", "remove-vehicle", "AB-123"]).code == 0)
    let unselected = try await AppIntentsPeer.start(executable, group: group, container: container, confirms: true)
    let failed = await #expect(throws: ConnectionError.self) {
      _ = try await unselected.send(PerformAppIntentRequest(intent: order))
    }
    let error: ResponseError? = if case .remote(let error)? = failed { error } else { nil }
    #expect(error?.code == .handlerFailed, "\(String(describing: failed))")
    #expect(error?.message.hasPrefix("SiriIntentError(") == true, "\(String(describing: failed))")
    #expect(error.map(PerformFailure.init).flatMap(\.heard) == "Couldn't find your selected vehicle")
    #expect(unselected.confirmations.isEmpty)
    #expect(try await unselected.finish() == .exited(0))
  }
}

extension HostFixture {
  /// Assembles the example apps (`assistant build`) and installs FuelOrder.app; returns the assembled bundle.
  func installFuelOrder() async throws -> URL {
    let rooms = try await TestBundles.rooms(in: directory.file("bundles"))
    let app = rooms.deletingLastPathComponent().appendingPathComponent("FuelOrder.app")
    let installed = try await assistant(["install", app.path])
    #expect(installed.code == 0, "\(installed)")
    return app
  }
}

/// The host's side of the App Intents protocol for an extension the test starts (unsandboxed, its stderr discarded):
/// `initialize` with one app group, the requests the test sends, and `host/requestConfirmation` answered yes or no
/// (`confirms`); any other question is refused. `finish()` says `shutdown` and `exit` and reaps the process.
struct AppIntentsPeer {
  let process: SpawnedProcess
  let connection: Connection
  let initialized: InitializeResult
  private let asked: Asked

  /// The confirmations the extension asked for, in order.
  var confirmations: [RequestConfirmationRequest] { asked.requests.withLock { $0 } }

  final class Asked: Sendable {
    let requests = Mutex<[RequestConfirmationRequest]>([])

    /// The answer to the extension's question: yes or no to a confirmation (recorded), an error to anything else.
    func answer(_ message: InboundMessage, confirms: Bool) -> Result<EmptyObject, ResponseError> {
      guard message.method == RequestConfirmationRequest.method else {
        return .failure(ResponseError(.methodNotFound, "the test answers only \(RequestConfirmationRequest.method)"))
      }
      do {
        let request = try message.params(RequestConfirmationRequest.self)
        requests.withLock { $0.append(request) }
        return confirms ? .success(EmptyObject()) : .failure(ResponseError(.userCancelled, "the test says no"))
      } catch {
        return .failure(error)
      }
    }
  }

  static func start(_ executable: String, group: String, container: String, confirms: Bool) async throws
    -> AppIntentsPeer
  {
    ignoreBrokenPipeSignal()
    let toExtension = try FileDescriptor.pipe()
    let fromExtension = try FileDescriptor.pipe()
    let process: SpawnedProcess
    do {
      process = try await offThePool {
        let devNull = try FileDescriptor.open("/dev/null", O_RDWR)
        defer { devNull.close() }
        return try spawn(
          SpawnOptions(
            executable: executable, arguments: ["FuelOrderIntents"], environment: ["SWIFT_BACKTRACE": "enable=no"],
            standardInput: toExtension.read, standardOutput: fromExtension.write, standardError: devNull))
      }
    } catch {
      for descriptor in [toExtension.read, toExtension.write, fromExtension.read, fromExtension.write] {
        descriptor.close()
      }
      throw error
    }
    toExtension.read.close()
    fromExtension.write.close()
    let connection = Connection(
      input: fromExtension.read, output: toExtension.write, options: .init(peerName: "FuelOrderIntents"))
    let asked = Asked()
    connection.start { message in
      guard let message, case .request(let id) = message.kind else { return }
      do {
        switch asked.answer(message, confirms: confirms) {
        case .success(let yes): try connection.reply(to: id, with: yes)
        case .failure(let error): try connection.reply(to: id, error: error)
        }
      } catch {
        connection.close()  // the connection has ended: the test's pending request fails, saying why
      }
    }
    let initialized = try await connection.send(
      InitializeRequest(
        host: "FuelOrderEndToEndTests", bundleIdentifier: "com.example.fuelorder.FuelOrderIntents",
        extensionPoint: AppIntentsExtensionBundle.extensionPoint, bundlePath: executable,
        containerPath: container,
        appGroups: [AppGroupLocation(identifier: "group.com.example.fuelorder", path: group)], locale: "en_US"),
      timeout: .seconds(60))
    return AppIntentsPeer(process: process, connection: connection, initialized: initialized, asked: asked)
  }

  func send<R: RequestMessage>(_ request: R) async throws -> R.Response {
    try await connection.send(request, timeout: .seconds(60))
  }

  /// Shuts the extension down and waits for it to end.
  func finish() async throws -> Termination {
    _ = try await send(ShutdownRequest())
    try connection.notify(ExitNotification())
    connection.closeOutput()
    let termination = try await waitForExit(process)
    connection.close()
    return termination
  }
}

extension PerformFailure {
  /// What the user hears of an error perform threw; nil for a cancel or a fault.
  var heard: String? {
    if case .threw(_, let heard) = self { heard } else { nil }
  }
}
