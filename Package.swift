// swift-tools-version: 6.2
import PackageDescription

// The example app and extension link the Swift runtime statically in every build, as shipped extensions should:
// they start faster, use less memory, and need only the C libraries in their sandbox (docs/SANDBOX.md). The static
// FoundationEssentials needs its two helper libraries named, which `--static-swift-stdlib` would add. They link with
// lld: GNU ld prints a warning on every link for a `mktemp` inside the static Foundation (not called by our code).
let staticSwiftRuntime: [LinkerSetting] = [
  .unsafeFlags(
    ["-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims", "-use-ld=lld"], .when(platforms: [.linux]))
]

// Layers, leaves first. Each target's purpose is the comment above it; README.md repeats the list.
let package = Package(
  name: "IntentHost",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "assistant", targets: ["assistant"]),
    .library(name: "ExtensionSDK", targets: ["ExtensionSDK"]),
    .library(name: "AppIntents", targets: ["AppIntents"]),
    .library(name: "IntentHostTesting", targets: ["IntentHostTesting"]),
    .plugin(name: "IntentDefinitionPlugin", targets: ["IntentDefinitionPlugin"]),
  ],
  targets: [
    // purpose: the syscalls Swift cannot make (fork/exec with fd hygiene, the sandbox between fork and exec, pidfds, openat2, loop devices and the mount API).
    .target(name: "CIntentHostSystem", path: "Sources/CIntentHostSystem"),
    // purpose: the device passcode's salted hash by libcrypt (yescrypt); the host's alone, so no extension links libcrypt.
    .target(name: "CPasscode", path: "Sources/CPasscode", linkerSettings: [.linkedLibrary("crypt")]),
    // purpose: typed Swift wrappers over CIntentHostSystem: file and directory descriptors, errno, spawning, termination, threads and cancellable waits for blocking calls, loop devices and mounts.
    .target(name: "IntentHostSystem", dependencies: ["CIntentHostSystem"], path: "Sources/IntentHostSystem"),
    // purpose: the one sanitizer that makes untrusted text safe for a terminal or a log line.
    .target(name: "UntrustedText", path: "Sources/UntrustedText"),
    // purpose: "did you mean": the known names closest to a misspelt one, by edit distance.
    .target(name: "NameSuggestions", path: "Sources/NameSuggestions"),
    // purpose: the wire protocol: intent model, resolution results, response codes and every JSON-RPC message.
    .target(name: "ExtensionProtocol", path: "Sources/ExtensionProtocol"),
    // purpose: Apple's App Intents metadata (Metadata.appintents) as a typed document, read from untrusted bytes, written canonically with its digest, checked by Apple's rules.
    .target(name: "AppIntentsMetadata", path: "Sources/AppIntentsMetadata"),
    // purpose: the Xcode manifest model: Info.plist, intent definitions, vocabularies, entitlements, strings, build settings, system intents, bundles.
    .target(
      name: "BundleManifest", dependencies: ["AppIntentsMetadata", "NameSuggestions"], path: "Sources/BundleManifest"),
    // purpose: understanding what a user says (matching utterances to apps' intents, reading spoken values) as pure functions over the manifests.
    .target(
      name: "Understanding",
      dependencies: ["AppIntentsMetadata", "BundleManifest", "ExtensionProtocol", "NameSuggestions"],
      path: "Sources/Understanding"),
    // purpose: newline-delimited JSON-RPC 2.0 over a pair of file descriptors.
    .target(
      name: "ExtensionTransport", dependencies: ["ExtensionProtocol", "IntentHostSystem"],
      path: "Sources/ExtensionTransport"),
    // purpose: shared JSON documents in app-group containers: locked updates, a synced journal, change watching.
    .target(name: "AppGroupStore", dependencies: ["IntentHostSystem"], path: "Sources/AppGroupStore"),
    // purpose: one supervisor per child process: spawn, stderr log, memory ceiling, typed termination, timed teardown.
    .target(
      name: "ProcessSupervision", dependencies: ["IntentHostSystem", "UntrustedText"],
      path: "Sources/ProcessSupervision"),
    // purpose: what extension and app authors import to serve intents and reach their containers.
    .target(
      name: "ExtensionSDK", dependencies: ["ExtensionProtocol", "ExtensionTransport", "AppGroupStore"],
      path: "Sources/ExtensionSDK"),
    // purpose: Apple's App Intents API, spelled as Apple spells it (AppIntent, @Parameter, AppEnum, AppEntity, App Shortcuts, results, snippet views), for extensions and apps that declare their intents in Swift.
    .target(
      name: "AppIntents",
      dependencies: ["ExtensionProtocol", "ExtensionTransport", "ExtensionSDK", "AppIntentsMetadata"],
      path: "Sources/AppIntents"),
    // purpose: the assistant engine: the use cases of `Assistant`, each concern in a folder of its own (docs/ARCHITECTURE.md).
    .target(
      name: "AssistantHost",
      dependencies: [
        "ExtensionProtocol", "ExtensionTransport", "BundleManifest", "AppIntentsMetadata", "ProcessSupervision",
        "AppGroupStore", "UntrustedText", "CPasscode", "IntentHostSystem", "NameSuggestions", "Understanding",
      ],
      path: "Sources/AssistantHost"),
    // purpose: the test harness for Siri flows: the real engine in a temporary home, stepped conversations, results to assert.
    .target(
      name: "IntentHostTesting",
      dependencies: [
        "AppGroupStore", "AssistantHost", "BundleManifest", "ExtensionProtocol", "IntentHostSystem", "Understanding",
      ],
      path: "Sources/IntentHostTesting"),
    // purpose: the thin command line over AssistantHost: one command model from which parsing, help, the man page
    // and the shell completions are generated; it prints, the engine decides.
    .executableTarget(
      name: "assistant",
      dependencies: [
        "AppGroupStore", "AppIntentsMetadata", "AssistantHost", "BundleManifest", "ExtensionProtocol",
        "IntentHostSystem", "NameSuggestions", "ProcessSupervision", "Understanding", "UntrustedText",
      ], path: "Sources/assistant"),
    // purpose: typed Swift source (intent structs, handling protocols, responses, enums) from intent definitions (docs/INTENT-CODEGEN.md).
    .target(
      name: "IntentCodegen", dependencies: ["BundleManifest", "ExtensionProtocol"], path: "Sources/IntentCodegen"),
    // purpose: the command line of IntentCodegen that IntentDefinitionPlugin runs: definitions in, one Swift file out.
    .executableTarget(
      name: "intenthost-intentgen", dependencies: ["IntentCodegen", "BundleManifest", "UntrustedText"],
      path: "Sources/Tools/intenthost-intentgen"),
    // purpose: the build-tool plugin that finds a target's intent definition and has intenthost-intentgen write its typed Swift.
    .plugin(
      name: "IntentDefinitionPlugin", capability: .buildTool(), dependencies: ["intenthost-intentgen"],
      path: "Plugins/IntentDefinitionPlugin"),
    // purpose: the in-process measurements of Scripts/bench: warm intents over kept-alive extensions, throughput with
    // concurrent warm clients, host and extension memory, and the sandboxed launch against a plain spawn.
    .executableTarget(
      name: "intenthost-bench", dependencies: ["AssistantHost", "Understanding", "UntrustedText"],
      path: "Sources/Tools/intenthost-bench"),

    // purpose: one fuzz target per parser of untrusted input (bytes in, the properties that must hold), for Scripts/fuzz and the replay tests.
    .target(
      name: "FuzzTargets",
      dependencies: [
        "AppGroupStore", "AppIntentsMetadata", "AssistantHost", "BundleManifest", "ExtensionProtocol",
        "ExtensionTransport", "IntentCodegen", "UntrustedText",
      ], path: "Sources/Tools/FuzzTargets"),
    // purpose: the libFuzzer driver of FuzzTargets (built by Scripts/fuzz), or in an ordinary build their replay over files.
    .executableTarget(
      name: "intenthost-fuzz", dependencies: ["FuzzTargets"], path: "Sources/Tools/intenthost-fuzz",
      linkerSettings: [.unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux]))]),

    // Examples. Each bundle's folder (Sources/Examples/NAME) holds its manifests as the Xcode project has them, and
    // its target is the Code/ folder in it: nothing written beside the manifests (a LANG.lproj of `assistant strings
    // export`) is then a file of a target, which SwiftPM would take for a localized resource and refuse the package
    // for (it has no defaultLocalization).
    //
    // Examples: the Rooms booking app (seed 004).
    // purpose: the room-booking logic shared by the Rooms app and its Intents extension.
    .target(
      name: "RoomsKit", dependencies: ["AppGroupStore", "ExtensionProtocol"], path: "Sources/Examples/RoomsKit"),
    // purpose: the Rooms containing app, a command-line app launched by `assistant open Rooms`.
    .executableTarget(
      name: "rooms", dependencies: ["RoomsKit", "ExtensionSDK"], path: "Sources/Examples/Rooms/Code",
      linkerSettings: staticSwiftRuntime),
    // purpose: the Rooms Intents extension, which resolves, confirms and handles BookRoomIntent and OpenDoorIntent.
    .executableTarget(
      name: "RoomsIntents", dependencies: ["RoomsKit", "ExtensionSDK"], path: "Sources/Examples/RoomsIntents/Code",
      linkerSettings: staticSwiftRuntime, plugins: ["IntentDefinitionPlugin"]),

    // purpose: the Rooms Intents UI extension, which draws a card for a booking or a cancellation.
    .executableTarget(
      name: "RoomsUI", dependencies: ["ExtensionSDK"], path: "Sources/Examples/RoomsUI/Code",
      linkerSettings: staticSwiftRuntime),

    // Examples: the Ascent workout app (seed 003).
    // purpose: the workouts shared by the Ascent app and its extensions (AscentFramework): their history, their card.
    .target(
      name: "AscentKit", dependencies: ["AppGroupStore", "ExtensionProtocol"], path: "Sources/Examples/AscentKit"),
    // purpose: the Ascent containing app: handles the workout intents handed over with handleInApp, shows the history.
    .executableTarget(
      name: "ascent", dependencies: ["AscentKit", "ExtensionSDK"], path: "Sources/Examples/Ascent/Code",
      linkerSettings: staticSwiftRuntime),
    // purpose: the Ascent Intents extension, which resolves and confirms the five workout intents and hands them to the app.
    .executableTarget(
      name: "AscentIntents", dependencies: ["AscentKit", "ExtensionSDK"], path: "Sources/Examples/AscentIntents/Code",
      linkerSettings: staticSwiftRuntime, plugins: ["IntentDefinitionPlugin"]),
    // purpose: the Ascent Intents UI extension, which draws the card of a workout intent.
    .executableTarget(
      name: "AscentUI", dependencies: ["AscentKit", "ExtensionSDK"], path: "Sources/Examples/AscentUI/Code",
      linkerSettings: staticSwiftRuntime),

    // Examples: the FuelOrder app (seed 000), in App Intents.
    // purpose: the fuel-ordering use cases (the seed's commands) shared by the FuelOrder app and its App Intents extension.
    .target(name: "FuelOrderKit", dependencies: ["AppGroupStore"], path: "Sources/Examples/FuelOrderKit"),
    // purpose: the FuelOrder containing app, a command-line app launched by `assistant open FuelOrder` that manages the vehicles and places the orders use.
    .executableTarget(
      name: "fuelorder", dependencies: ["FuelOrderKit", "ExtensionSDK"], path: "Sources/Examples/FuelOrder/Code",
      linkerSettings: staticSwiftRuntime),
    // purpose: the FuelOrder App Intents extension, which orders fuel (OrderFuelIntent) and selects a vehicle in Apple's App Intents API.
    .executableTarget(
      name: "FuelOrderIntents", dependencies: ["AppIntents", "FuelOrderKit"],
      path: "Sources/Examples/FuelOrderIntents/Code", linkerSettings: staticSwiftRuntime),

    // Test fixtures and helpers.
    // purpose: a misbehaving Intents extension whose fault is chosen by its executable name (also the fixture app).
    .executableTarget(
      name: "FaultyExtension", dependencies: ["ExtensionSDK"], path: "Tests/Fixtures/FaultyExtension"),
    // purpose: an SDK extension that attacks its sandbox (the attack chosen by its executable name).
    .executableTarget(
      name: "HostileExtension", dependencies: ["ExtensionSDK", "CHostileCalls"], path: "Tests/Fixtures/HostileExtension"
    ),
    // purpose: the system calls the hostile extension makes that Swift cannot (io_uring_setup, ptrace).
    .target(name: "CHostileCalls", path: "Tests/Fixtures/CHostileCalls"),
    // purpose: an SDK extension that asks the host to authenticate the user, when its executable name says.
    .executableTarget(name: "AuthExtension", dependencies: ["ExtensionSDK"], path: "Tests/Fixtures/AuthExtension"),
    // purpose: a small SDK extension that orders soup, for the test that runs Apple's SoupChef manifests.
    .executableTarget(name: "SoupKitchen", dependencies: ["ExtensionSDK"], path: "Tests/Fixtures/SoupKitchen"),
    // purpose: one process of the store's multi-process stress tests, crash tests and benchmark.
    .executableTarget(name: "store-stress", dependencies: ["AppGroupStore"], path: "Tests/Fixtures/StoreStress"),
    // purpose: test helpers: temporary homes and bundles, built-executable lookup, running the real binaries.
    .target(name: "TestSupport", dependencies: ["BundleManifest", "IntentHostSystem"], path: "Tests/TestSupport"),

    .testTarget(name: "IntentHostSystemTests", dependencies: ["IntentHostSystem", "TestSupport"]),
    .testTarget(name: "ExtensionProtocolTests", dependencies: ["ExtensionProtocol", "TestSupport"]),
    .testTarget(name: "UntrustedTextTests", dependencies: ["UntrustedText", "TestSupport"]),
    .testTarget(name: "ExtensionTransportTests", dependencies: ["ExtensionTransport", "TestSupport"]),
    .testTarget(name: "ProcessSupervisionTests", dependencies: ["ProcessSupervision", "TestSupport"]),
    .testTarget(name: "AppIntentsMetadataTests", dependencies: ["AppIntentsMetadata", "TestSupport"]),
    .testTarget(name: "BundleManifestTests", dependencies: ["BundleManifest", "TestSupport"]),
    // The generator in-process, and its output type-checked by swiftc against the built ExtensionSDK.
    // Its own Definition/Pizza.intentdefinition gives it generated types to run (the plugin's first rule).
    .testTarget(
      name: "IntentCodegenTests",
      dependencies: ["IntentCodegen", "BundleManifest", "ExtensionSDK", "IntentHostSystem", "TestSupport"],
      plugins: ["IntentDefinitionPlugin"]),
    // The matcher in-process, over manifests written to temporary folders: no process, no home, no C sandbox.
    // purpose: test fixtures built from the manifest model alone (no processes, no C sandbox), shared by test targets.
    .target(name: "ManifestFixtures", dependencies: ["BundleManifest"], path: "Tests/ManifestFixtures"),
    .testTarget(
      name: "UnderstandingTests",
      dependencies: ["Understanding", "BundleManifest", "ExtensionProtocol", "ManifestFixtures", "NameSuggestions"]
    ),
    // Every committed fuzz input and the real Xcode files through their fuzz targets, in-process.
    .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets", "AppIntentsMetadata", "TestSupport"]),
    .testTarget(name: "AppGroupStoreTests", dependencies: ["AppGroupStore", "IntentHostSystem", "TestSupport"]),
    // RoomsKit in-process: a library that donates through the protocol it is given (seed 001).
    .testTarget(
      name: "RoomsKitTests", dependencies: ["RoomsKit", "AppGroupStore", "ExtensionProtocol", "TestSupport"]),
    // The two SDKs in-process: App Intents declarations and runtime, and a SiriKit handler unit-tested as docs/SDK.md
    // shows.
    .testTarget(
      name: "AppIntentsTests",
      dependencies: ["AppIntents", "AppIntentsMetadata", "ExtensionProtocol", "ExtensionSDK", "TestSupport"]),
    .testTarget(name: "FuelOrderKitTests", dependencies: ["FuelOrderKit", "AppGroupStore", "TestSupport"]),
    // AscentKit in-process: obstacle names, the history's state machine and its failures, the workout card.
    .testTarget(
      name: "AscentKitTests", dependencies: ["AscentKit", "AppGroupStore", "ExtensionProtocol", "TestSupport"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "AssistantHost", "BundleManifest", "ExtensionProtocol", "ExtensionTransport", "IntentHostSystem", "TestSupport",
      ]),
    // The command model and its parser in-process, each command's --help against Golden/, and how values are spelt.
    .testTarget(
      name: "CommandLineTests",
      dependencies: [
        "assistant", "AppGroupStore", "AssistantHost", "NameSuggestions", "ProcessSupervision", "TestSupport",
        "Understanding",
      ],
      exclude: ["Golden"]),
    // The test harness driving the example apps' real extensions, as an app author's tests would.
    .testTarget(
      name: "IntentHostTestingTests",
      dependencies: ["IntentHostTesting", "AppGroupStore", "ExtensionProtocol", "IntentHostSystem", "TestSupport"]),
    .testTarget(
      name: "AssistantHostTests",
      dependencies: [
        "AppGroupStore", "AssistantHost", "BundleManifest", "ExtensionProtocol", "ExtensionTransport",
        "IntentHostSystem", "TestSupport", "Understanding", "ManifestFixtures",
      ]),
  ]
)

// Every target is ours (the package has no dependencies): a warning is an error, so the build stays warning-free.
// C settings go to the C targets only: on a Swift target, SwiftPM 6.3 turns them into `-Xcc -Xcc -fPIC` when the
// package is a git URL dependency, and the dependent's build fails ("unknown argument: '-fPIC'", docs/SDK.md).
let cTargets: Set = ["CIntentHostSystem", "CPasscode", "CHostileCalls"]
for target in package.targets {
  switch target.type {
  case .regular, .executable, .test:
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
    if cTargets.contains(target.name) {
      target.cSettings = (target.cSettings ?? []) + [.treatAllWarnings(as: .error)]
    }
  default:
    break
  }
}
