import Foundation
import TestSupport
import Testing

/// The FuelOrder example (seed 000) by voice, as the README shows it, with the real `assistant`, the App Intents
/// extension sandboxed: the phrase with and without its slot, by synonym and by the app's other name; the question
/// "Where should the order be?" with its options; the summary and the confirmation, accepted (the order is placed,
/// as the app lists it) and declined (nothing placed); the seed's error heard; and a locked device.
@Suite(.serialized, .tags(.endToEnd))
struct FuelOrderVoiceTests {
  static func orders(_ host: HostFixture) async throws -> [Substring] {
    try await host.assistant(["open", "FuelOrder", "--", "orders"]).stdout.split(separator: "\n")
  }

  @Test func fuelMyCarAtHomePlacesAnOrderAfterItsSummaryAndConfirmation() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    _ = try await host.installFuelOrder()
    let placed = try await host.assistant(["Fuel my car at home with FuelOrder", "--answer", "yes"])
    #expect(placed.code == 0, "\(placed)")
    #expect(
      placed.stdout.hasPrefix(
        "[FuelOrderIntents]\n  [fuelpump]  Fuel order\n  Vehicle: the red car (AB-123)\n  Fuel: Full tank of 98\n"
          + "  Location: Home, 12 Harbour Road\n  Time slot: "), "\(placed)")
    #expect(placed.stdout.hasSuffix("Awesome! Your fuel order has been placed.\n"), "\(placed)")
    #expect(placed.stderr.contains("Order? (yes/no) yes"), "\(placed)")  // the button of `.order`
    #expect(!placed.stderr.contains("Here is your fuel order."), "\(placed)")  // showPrompt: false
    var orders = try await Self.orders(host)
    #expect(orders.count == 1 && orders[0].hasPrefix("placed: Full tank of 98 for the red car (AB-123) at home"))

    // A second order, by the synonym of work and the app's other name: placed too. Each order has an identifier of
    // its own (Foundation's UUID() reads /dev/urandom, which the sandbox must let it read: without it every UUID
    // was the same and this order was refused as "already placed").
    let again = try await host.assistant(["Fuel my car at the office with Fuel Order", "--answer", "order"])
    #expect(again.code == 0 && again.stdout.contains("Location: Work, 1 Market Square"), "\(again)")
    orders = try await Self.orders(host)
    #expect(orders.count == 2 && orders.allSatisfy { $0.hasPrefix("placed: ") }, "\(orders)")

    // Each placed order was donated (`AppIntent.donate()` in the Swift SDK, `host/donate` with `appIntent`): the two
    // locations, newest first, each a shortcut to be made; a declined order donates nothing (the next test).
    let suggested = try await host.assistant(["shortcuts", "suggested", "FuelOrder"])
    #expect(suggested.code == 0, "\(suggested)")
    #expect(suggested.stdout.contains("d2  Order Fuel: location Work"), "\(suggested)")
    #expect(suggested.stdout.contains("d1  Order Fuel: location Home"), "\(suggested)")
    let made = try await host.assistant(["shortcuts", "add", "Fuel up at work", "--from", "d2", "--keep-values"])
    #expect(made.code == 0, "\(made)")
    let fueled = try await host.assistant(["Fuel up at work", "--answer", "yes"])
    #expect(fueled.code == 0 && fueled.stdout.contains("Location: Work, 1 Market Square"), "\(fueled)")
    #expect(try await Self.orders(host).count == 3)
  }

  @Test func withoutItsSlotTheLocationIsAskedAndDecliningPlacesNothing() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    _ = try await host.installFuelOrder()
    let declined = try await host.assistant(
      ["Fuel my car with FuelOrder", "--answer", "my place", "--answer", "no"])
    #expect(declined.code == 1, "\(declined)")
    #expect(
      declined.stderr.contains("Where should the order be?\n  1. Home\n  2. Work\nChoose 1-2: my place\n"),
      "\(declined)")
    #expect(declined.stdout.contains("Location: Home, 12 Harbour Road"), "\(declined)")
    #expect(declined.stdout.hasSuffix("OK, I won't.\n"), "\(declined)")
    let orders = try await Self.orders(host)
    #expect(orders.count == 1 && orders[0].hasPrefix("created: "), "\(orders)")  // a draft, nothing placed
    let nothing = try await host.assistant(["shortcuts", "suggested", "FuelOrder"])
    #expect(nothing.stdout.hasPrefix("FuelOrder has donated nothing"), "\(nothing)")

    // The control: the same run, confirmed by the option's number, places it.
    let placed = try await host.assistant(["Order fuel in FuelOrder", "--answer", "2", "--answer", "yes", "--json"])
    #expect(placed.code == 0, "\(placed)")
    let json =
      #"{"app":"FuelOrder","code":"success","dialog":"Awesome! Your fuel order has been placed.","#
      + #""intent":"OrderFuelIntent","parameters":{"location":"work"},"success":true,"#
      + #""views":[{"parameters":[],"size":{"height":600,"width":398},"#
      + #""snippet":{"stack":[{"text":"[fuelpump]  Fuel order"},"#
    #expect(placed.stdout.hasPrefix(json), "\(placed)")
    #expect(try await Self.orders(host).allSatisfy { $0.hasPrefix("placed: ") })
  }

  /// The confirmation with nobody to answer it (a script without the answer): the extension hears a cancel, nothing
  /// is placed, and the run ends with 75 naming the question, not as the user's "no" (1).
  @Test func aConfirmationNobodyAnswersEndsTheRunWith75() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    _ = try await host.installFuelOrder()
    let unanswered = try await host.assistant(["Fuel my car at home with FuelOrder"])
    #expect(unanswered.code == 75, "\(unanswered)")
    #expect(
      unanswered.stderr.contains("assistant: a confirmation is needed (\"Order? (yes/no)\"), but there is no terminal"),
      "\(unanswered)")
    #expect(!unanswered.stdout.contains("OK, I won't."), "\(unanswered)")
    let orders = try await Self.orders(host)
    #expect(orders.count == 1 && orders[0].hasPrefix("created: "), "\(orders)")
  }

  /// An app whose alternative name is another app's ("Rooms") and whose App Shortcut says that app's words takes
  /// nothing unasked: the user is asked which app is meant, and the other app's SiriKit intent can be chosen. Before,
  /// App Shortcuts were matched first and alone, so the impostor ran and got the user's words.
  @Test func anAppShortcutDoesNotTakeAnotherAppsWordsUnasked() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    let bundles = host.directory.file("bundles")
    let rooms = try await TestBundles.rooms(in: bundles)
    #expect(try await host.assistant(["install", rooms.path]).code == 0)
    let impostor = try TestBundles.fuelOrder(
      phrases: ["Book room 12 for Ada with ${applicationName}"], in: host.directory.file("impostor"))
    try writePlist(
      [
        "CFBundleIdentifier": "com.example.fuel", "CFBundleExecutable": "fuelorder", "CFBundleName": "FuelOrder",
        "CFBundlePackageType": "APPL", "INAlternativeAppNames": [["INAlternativeAppName": "Rooms"]],
      ], to: impostor.appendingPathComponent("Info.plist"))
    #expect(try await host.assistant(["install", impostor.path]).code == 0)

    let unasked = try await host.assistant(["Book room 12 for Ada with Rooms"])
    #expect(unasked.code == 75, "\(unasked)")
    #expect(
      unasked.stderr.contains(
        "\"Book room 12 for Ada with Rooms\" could mean:\n  1. OrderFuelIntent of FuelOrder (com.example.fuel)\n"
          + "  2. BookRoomIntent of Rooms (com.example.rooms)\n"), "\(unasked)")
    let chosen = try await host.assistant(["Book room 12 for Ada with Rooms", "--answer", "2"])
    #expect(chosen.code == 0, "\(chosen)")
    #expect(chosen.stdout.contains("Ada"), "\(chosen)")
  }

  @Test func withoutASelectedVehicleTheUserHearsWhy() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    _ = try await host.installFuelOrder()
    #expect(try await host.assistant(["open", "FuelOrder", "--", "remove-vehicle", "AB-123"]).code == 0)
    let failed = try await host.assistant(["Fuel my car at work with FuelOrder"])
    #expect(failed.code == 1, "\(failed)")
    #expect(failed.stdout == "Couldn't find your selected vehicle\n", "\(failed)")
    #expect(!failed.stderr.contains("Order?"), "\(failed)")  // nothing was asked
    #expect(try await Self.orders(host) == ["No orders yet."])
  }

  /// OrderFuelIntent's `authenticationPolicy` is `requiresAuthentication`: on a locked device the passcode comes
  /// first, and without it nothing runs (77); SelectVehicleIntent's is `alwaysAllowed` and runs locked (the control).
  @Test func aLockedDeviceIsUnlockedBeforeTheOrder() async throws {
    let host = try HostFixture()
    defer { host.directory.remove() }
    _ = try await host.installFuelOrder()
    #expect(try await host.assistant(["passcode", "set", "--passcode-stdin"], input: "2468\n").code == 0)
    #expect(try await host.assistant(["lock"]).code == 0)
    let refused = try await host.assistant(["Fuel my car at home with FuelOrder", "--answer", "yes"])
    #expect(refused.code == 77, "\(refused)")
    #expect(refused.stderr.contains("You need to unlock your device first.\n"), "\(refused)")
    #expect(
      refused.stderr.contains(
        "OrderFuelIntent was not run: the device is locked and OrderFuelIntent's authenticationPolicy is "
          + "requiresAuthentication in "), "\(refused)")
    #expect(try await Self.orders(host) == ["No orders yet."])
    let explained = try await host.assistant(["explain", "FuelOrder", "OrderFuelIntent"])
    #expect(explained.stdout.contains("when locked: the passcode is asked first"), "\(explained)")

    let selected = try await host.assistant(["Select the red car in FuelOrder"])
    #expect(selected.code == 0, "\(selected)")

    let unlocked = try await host.assistant(
      ["--passcode-stdin", "Fuel my car at home with FuelOrder", "--answer", "yes"], input: "2468\n")
    #expect(unlocked.code == 0 && unlocked.stdout.hasSuffix("placed.\n"), "\(unlocked)")
    #expect(try await Self.orders(host).count == 1)
  }
}
