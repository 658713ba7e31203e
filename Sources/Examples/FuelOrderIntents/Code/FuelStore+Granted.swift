import AppIntents
import FuelOrderKit

extension FuelStore {
  /// The FuelOrder document of the app group the host granted this extension (its entitlements list it), given
  /// `FuelDocument.sample` on the group's first use.
  /// - Throws: `AppIntentsUsageError.outsideRequest` outside a request of the host; `StoreError.notEntitled` when the
  ///   entitlements do not list the group; `SiriIntentError` when the document cannot be used.
  static func granted() async throws -> FuelStore {
    let store = FuelStore(container: try ExtensionContext.current().appGroup(appGroupIdentifier))
    _ = try await SeedSampleDataUsecase(store: store).execute().mapError(SiriIntentError.logging).get()
    return store
  }
}
