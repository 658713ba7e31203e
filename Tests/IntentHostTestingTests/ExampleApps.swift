import Foundation
import IntentHostTesting
import TestSupport

/// The example apps (`Rooms.app`, `Ascent.app`, `FuelOrder.app`) as `Scripts/assemble-bundles .build/debug DIR`
/// assembles them from the built executables: assembled once per test process into `.build/intenthost-testing`
/// (replaced each time), then installed into each test's own host, which copies them.
enum ExampleApps {
  static let folder = PackagePaths.root.appendingPathComponent(".build/intenthost-testing")

  private static let assembled = Task { try await TestBundles.rooms(in: folder) }

  /// The assembled bundle `name` (`Rooms`, `Ascent` or `FuelOrder`).
  static func bundle(_ name: String) async throws -> URL {
    _ = try await assembled.value
    return folder.appendingPathComponent("\(name).app")
  }
}

extension TestHost {
  /// Installs the example app `name` (`Rooms`, `Ascent` or `FuelOrder`).
  @discardableResult
  func installExample(_ name: String) async throws -> InstalledApp {
    try await install(ExampleApps.bundle(name))
  }
}
