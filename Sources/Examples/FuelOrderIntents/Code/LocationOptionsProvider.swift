import AppIntents
import FuelOrderKit

/// The places the user saved in the app, offered when the assistant asks where the order should be (the seed's
/// `SiriIntentLocationOptionsProvider`).
struct LocationOptionsProvider: DynamicOptionsProvider {
  func results() async throws -> [Location] {
    let store = try await FuelStore.granted()
    return try await SavedLocationsUsecase(store: store).execute().mapError(SiriIntentError.logging).get()
      .map { Location($0.type) }
  }
}
