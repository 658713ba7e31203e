import AppIntents
import FuelOrderKit

/// Orders a full tank for the selected vehicle at home or work, in the nearest time slot, once the user has seen the
/// order and confirmed it (the seed's `OrderFuelIntent`). Its perform() is the seed's: one use case of FuelOrderKit
/// after another, each a command the app runs too.
struct OrderFuelIntent: AppIntent {
  static let title: LocalizedStringResource = "Order Fuel"
  static let description = IntentDescription(
    "Quickly make a Fuel Order with Previously Used Vehicles and Fuel Settings based on latest Order at Home or Work",
    categoryName: "Fuel Ordering",
    searchKeywords: ["fuel", "order"]
  )
  /// Placing an order spends the user's money: on a locked device the assistant asks for the passcode first.
  static let authenticationPolicy = IntentAuthenticationPolicy.requiresAuthentication

  @Parameter(
    title: "Location",
    requestValueDialog: "Where should the order be?",
    optionsProvider: LocationOptionsProvider()
  )
  var location: Location

  /// - Throws: `SiriIntentError` with what the user hears ("Couldn't find your selected vehicle"); the user's cancel
  ///   when they do not confirm, and then nothing is placed (the draft stays until the next order replaces it).
  func perform() async throws -> some IntentResult & ProvidesDialog {
    let store = try await FuelStore.granted()

    // Step 1: the delivery address is the location asked for.
    _ = try await UpdateUserAddressUsecase(newAddress: location.mapToDomainModel(), store: store)
      .execute()
      .mapError(SiriIntentError.logging)
      .get()

    // Step 2: the fuel type of the selected vehicle (98, 95, diesel or electric); none selected is the seed's
    // "Couldn't find your selected vehicle". (Steps 3 to 5, the vehicle and a full tank of that fuel, are the order
    // CreateOrderUsecase makes; the example takes no payment, so the seed's step 4 has no counterpart.)
    let fuelType = try await GetFuelTypeForVehicleUsecase(store: store)
      .execute()
      .mapError(SiriIntentError.logging)
      .get()

    // Step 6: the nearest delivery slot for that fuel.
    let timeSlot = try await NearestTimeSlotUseCase(variantId: fuelType.variantId, store: store)
      .execute()
      .mapError(SiriIntentError.logging)
      .get()

    // Step 7: the order, created as a draft.
    let order = try await CreateOrderUsecase(timeSlot: timeSlot, store: store)
      .execute()
      .mapError(SiriIntentError.logging)
      .get()

    // Step 8: the user sees the order and confirms it; a "no" throws the user's cancel, which ends perform here.
    try await requestConfirmation(
      result: .result(dialog: "Here is your fuel order.", view: OrderSummaryView(order: order)),
      confirmationActionName: .order,
      showPrompt: false
    )

    // Step 9: the order is placed.
    _ = try await PlaceOrderUsecase(orderID: order.id, store: store)
      .execute()
      .mapError(SiriIntentError.logging)
      .get()

    // What the user did, so that they can make a shortcut of it (`assistant shortcuts suggested FuelOrder`). A
    // donation the host cannot keep does not undo the order.
    _ = try? await donate()
    return .result(dialog: "Awesome! Your fuel order has been placed.")
  }
}
