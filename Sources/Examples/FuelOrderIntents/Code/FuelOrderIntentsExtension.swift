import AppIntents

// The FuelOrder App Intents extension (seed 000, "Patterns: Command + Siri"): OrderFuelIntent composes FuelOrderKit's
// use cases, the same commands the app runs, and SelectVehicleIntent picks the vehicle they order for. Run by the
// host, it serves appIntent/perform, appIntent/options and entity/query; run as
// `FuelOrderIntents --emit-appintents-metadata DIR` (`assistant build` does), it writes
// DIR/Metadata.appintents from these declarations, as Xcode does at build time.

@main
struct FuelOrderIntentsExtension: AppIntentsExtension {
  static let intents: [any AppIntent.Type] = [OrderFuelIntent.self, SelectVehicleIntent.self]
  static let shortcuts: (any AppShortcutsProvider.Type)? = FuelOrderShortcuts.self
}
