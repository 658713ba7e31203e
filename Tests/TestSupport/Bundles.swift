import Foundation

/// Builds app bundles for tests.
public enum TestBundles {
  /// Assembles the example apps (Rooms.app, Ascent.app, FuelOrder.app) into `directory` from the built products, as
  /// `Scripts/assistant` does (`assistant build --binaries`), and returns Rooms.app's path. The command runs through
  /// `runCommand`, so the wait for it is off the cooperative pool.
  public static func rooms(in directory: URL) async throws -> URL {
    let result = try await runCommand(
      PackagePaths.binaries.appendingPathComponent("assistant").path,
      [
        "build", "--quiet", "--binaries", PackagePaths.binaries.path, "--output", directory.path,
        PackagePaths.root.appendingPathComponent("Sources/Examples").path,
      ])
    guard result.code == 0 else { throw BundleError(message: "assistant build failed: \(result)") }
    return directory.appendingPathComponent("Rooms.app")
  }

  public struct BundleError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
  }

  /// A `Fixture.app` (com.example.fixture) whose Intents extension `<extensionName>.appex` runs the FaultyExtension
  /// binary in the mode named `extensionName`, and supports `PingIntent` (one String parameter `value`).
  /// `appMode` is written to `Fixture.app/app-mode` and chooses what the app does when launched for handleInApp.
  /// `uiExtensionName` adds an Intents UI extension for PingIntent running FaultyExtension in that mode.
  /// `userConfirmationRequired` sets the definition's `INIntentUserConfirmationRequired`: Siri asks "Do you want to
  /// ping?" after confirm answers `ready` (the confirmation step).
  ///
  /// The definition's `value` has one unsupported reason, `tooLong` ("Sorry, ${value} is too long."), and besides
  /// `success` and `failure` the response has the domain code `failureRequiringAppLaunchMustVerifyCredentials`.
  public static func fixture(
    extensionName: String, appMode: String? = nil, binary: String = "FaultyExtension", uiExtensionName: String? = nil,
    userConfirmationRequired: Bool = false, in directory: URL
  ) throws -> URL {
    let app = directory.appendingPathComponent("Fixture.app")
    let fm = FileManager.default
    try? fm.removeItem(at: app)
    let appex = app.appendingPathComponent("PlugIns/\(extensionName).appex")
    try fm.createDirectory(at: appex, withIntermediateDirectories: true)
    try fm.copyItem(
      atPath: PackagePaths.executable("FaultyExtension"), toPath: app.appendingPathComponent("fixture").path)
    let binary = PackagePaths.executable(binary)
    if let appMode { try appMode.write(to: app.appendingPathComponent("app-mode"), atomically: true, encoding: .utf8) }
    // Copies, not links: the sandbox grants an executable only as a file of its bundle (docs/SANDBOX.md).
    try fm.copyItem(atPath: binary, toPath: appex.appendingPathComponent("FaultyExtension").path)
    try writePlist(
      [
        "CFBundleIdentifier": "com.example.fixture", "CFBundleExecutable": "fixture", "CFBundleName": "Fixture",
        "CFBundlePackageType": "APPL",
      ], to: app.appendingPathComponent("Info.plist"))
    try writePlist(
      [
        "CFBundleIdentifier": "com.example.fixture.\(extensionName)", "CFBundleExecutable": "FaultyExtension",
        "CFBundlePackageType": "XPC!",
        "NSExtension": [
          "NSExtensionPointIdentifier": "com.apple.intents-service",
          "NSExtensionAttributes": ["IntentsSupported": ["PingIntent"], "IntentsRestrictedWhileLocked": [String]()],
        ] as [String: Any],
      ], to: appex.appendingPathComponent("Info.plist"))
    if let uiExtensionName {
      let ui = app.appendingPathComponent("PlugIns/\(uiExtensionName).appex")
      try fm.createDirectory(at: ui, withIntermediateDirectories: true)
      try fm.copyItem(
        atPath: PackagePaths.executable("FaultyExtension"), toPath: ui.appendingPathComponent("FaultyExtension").path)
      try writePlist(
        [
          "CFBundleIdentifier": "com.example.fixture.\(uiExtensionName)", "CFBundleExecutable": "FaultyExtension",
          "CFBundlePackageType": "XPC!",
          "NSExtension": [
            "NSExtensionPointIdentifier": "com.apple.intents-ui-service", "NSExtensionMainStoryboard": "MainInterface",
            "NSExtensionAttributes": ["IntentsSupported": ["PingIntent"]],
          ] as [String: Any],
        ], to: ui.appendingPathComponent("Info.plist"))
    }
    try writePlist(
      [
        "INIntentDefinitionModelVersion": "1.2", "INEnums": [Any](),
        "INIntents": [
          [
            "INIntentName": "Ping", "INIntentTitle": "Ping",
            "INIntentUserConfirmationRequired": userConfirmationRequired,
            "INIntentParameters": [
              [
                "INIntentParameterName": "value", "INIntentParameterType": "String",
                "INIntentParameterSupportsResolution": true,
                "INIntentParameterUnsupportedReasons": [
                  [
                    "INIntentParameterUnsupportedReasonCode": "tooLong",
                    "INIntentParameterUnsupportedReasonCustom": true,
                    "INIntentParameterUnsupportedReasonFormatString": "Sorry, ${value} is too long.",
                  ] as [String: Any]
                ],
              ] as [String: Any],
              ["INIntentParameterName": "note", "INIntentParameterType": "String"],
            ],
            "INIntentResponse": [
              "INIntentResponseCodes": [
                [
                  "INIntentResponseCodeName": "success", "INIntentResponseCodeSuccess": true,
                  "INIntentResponseCodeFormatString": "Got ${value}.",
                  // The voice dialog (`--voice`): shorter, as a concise template is.
                  "INIntentResponseCodeConciseFormatString": "${value}.",
                ],
                [
                  "INIntentResponseCodeName": "failure", "INIntentResponseCodeFormatString": "Not done: ${value}.",
                ],
                [
                  "INIntentResponseCodeName": "failureRequiringAppLaunchMustVerifyCredentials",
                  "INIntentResponseCodeFormatString": "Verify ${value} in Fixture first.",
                ],
              ],
              "INIntentResponseParameters": [
                ["INIntentResponseParameterName": "value", "INIntentResponseParameterType": "String"]
              ],
            ] as [String: Any],
          ] as [String: Any]
        ],
      ], to: app.appendingPathComponent("Base.lproj/Intents.intentdefinition"))
    return app
  }
}
