import Foundation
import TestSupport
import Testing

/// From an empty folder to a working extension: `assistant new app` writes a package, `assistant build --install`
/// builds it with the real `swift build` against this clone's SDK, and its sample phrase answers.
@Suite(.serialized, .tags(.endToEnd))
struct NewAppEndToEndTests {
  /// Runs the assistant on `home` (none: the command's own); a build of a new package compiles the SDK too, so it
  /// gets minutes.
  func assistant(_ arguments: [String], home: URL?, timeout: Duration = .seconds(120)) async throws -> CommandResult {
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_APP_GROUPS"] = nil
    return try await runCommand(
      PackagePaths.executable("assistant"), (home.map { ["--home", $0.path] } ?? []) + arguments,
      environment: environment, timeout: timeout)
  }

  /// `swift test` in a new package, in a build folder the suite's packages share: each new package builds the SDK's
  /// engine for its test target, and sharing it builds the engine once (the packages are all named Coffee). The
  /// test's `PackageBundles` takes the executables from beside the test product, in that folder.
  func swiftTest(_ package: URL) async throws -> CommandResult {
    let swift = try #require(
      ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { "\($0)/swift" }.first {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    var environment = ProcessInfo.processInfo.environment
    environment["ASSISTANT_HOME"] = nil
    environment["ASSISTANT_APP_GROUPS"] = nil
    let shared = PackagePaths.root.appendingPathComponent(".build/new-app-tests")
    return try await runCommand(
      swift, ["test", "--package-path", package.path, "--scratch-path", shared.path], environment: environment,
      timeout: .seconds(1200))
  }

  @Test func aNewAppBuildsInstallsAndAnswersItsSamplePhrase() async throws {
    let scratch = try TemporaryDirectory("intenthost-new")
    defer { scratch.remove() }
    let home = scratch.file("home")
    let package = scratch.file("Coffee")
    let made = try await assistant(
      ["new", "app", "Coffee", package.path, "--sdk", PackagePaths.root.path, "--json"], home: home)
    #expect(made.code == 0, "\(made)")
    #expect(made.stdout.contains(#""samplePhrase":"Order 2 large for Ada with Coffee""#), "\(made)")
    for file in [
      "Package.swift", "Coffee/Base.lproj/Intents.intentdefinition", "CoffeeIntents/Code/CoffeeIntents.swift",
    ] {
      #expect(FileManager.default.fileExists(atPath: package.appendingPathComponent(file).path), "\(file)")
    }

    let built = try await assistant(["build", package.path, "--install"], home: home, timeout: .seconds(900))
    #expect(built.code == 0, "\(built)")
    #expect(built.stderr.contains("assistant: building Coffee..."), "\(built)")
    #expect(built.stdout.contains("Installed \(home.path)/Applications/Coffee.app"), "\(built)")

    let said = try await assistant(["Order 2 large for Ada with Coffee"], home: home)
    #expect(said.code == 0, "\(said)")
    #expect(said.stdout.contains("Your 2 large for Ada is ordered."), "\(said)")
    #expect(said.stdout.contains("[CoffeeUI]") && said.stdout.contains("Size: large"), "\(said)")
    let listed = try await assistant(["open", "Coffee", "--", "list"], home: home)
    #expect(listed.stdout.contains("customer: Ada, quantity: 2, size: large"), "\(listed)")
    // The app group is the home's: a home is a device.
    #expect(
      FileManager.default.fileExists(atPath: home.appendingPathComponent("AppGroup/group.com.example.coffee").path))

    // A value left out is asked with the definition's prompt.
    let asked = try await assistant(["--answer", "Grace", "Order 3 small with Coffee"], home: home)
    #expect(asked.code == 0 && (asked.stdout + asked.stderr).contains("Which customer? Grace"), "\(asked)")
    #expect(asked.stdout.contains("Your 3 small for Grace is ordered."), "\(asked)")

    // The package's own test (IntentHostTesting, through the real engine and the built extensions) passes.
    let tested = try await swiftTest(package)
    #expect(tested.code == 0, "\(tested)")
    #expect((tested.stdout + tested.stderr).contains("theSamplePhraseIsHandled() passed"), "\(tested)")

    // `assistant dev` installs into its development home, says the phrase, and after a change to the definition
    // builds, installs and says it again, with the new dialog.
    let devHome = package.appendingPathComponent(".build/dev-home/Applications/Coffee.app")
    let definition = package.appendingPathComponent("Coffee/Base.lproj/Intents.intentdefinition")
    async let developing = assistant(
      ["dev", package.path, "Order 2 large for Ada with Coffee", "--count", "2"], home: nil, timeout: .seconds(300))
    var waited = 0
    while !FileManager.default.fileExists(atPath: devHome.path) && waited < 2400 {
      try await Task.sleep(for: .milliseconds(100))
      waited += 1
    }
    try await Task.sleep(for: .milliseconds(500))
    let text = try String(contentsOf: definition, encoding: .utf8)
    try text.replacingOccurrences(of: "is ordered.", with: "is coming up.").write(
      to: definition, atomically: true, encoding: .utf8)
    let developed = try await developing
    #expect(developed.code == 0, "\(developed)")
    #expect(developed.stdout.contains("Your 2 large for Ada is ordered."), "\(developed)")
    #expect(developed.stdout.contains("Your 2 large for Ada is coming up."), "\(developed)")
    #expect(
      developed.stderr.contains("Coffee/Base.lproj/Intents.intentdefinition changed; building Coffee..."),
      "\(developed)")

    // A compile error fails the build with the compiler's words, and nothing is installed over the good app.
    let code = package.appendingPathComponent("CoffeeIntents/Code/CoffeeIntents.swift")
    let source = try String(contentsOf: code, encoding: .utf8)
    try (source + "\nlet broken: Int = \"not a number\"\n").write(to: code, atomically: true, encoding: .utf8)
    let failed = try await assistant(["build", package.path, "--install"], home: home, timeout: .seconds(300))
    #expect(failed.code == 65, "\(failed)")
    #expect(failed.stderr.contains("the build of Coffee failed") && failed.stderr.contains("error:"), "\(failed)")
    let still = try await assistant(["Order 2 large for Ada with Coffee"], home: home)
    #expect(still.code == 0, "\(still)")
  }

  /// The App Intents flavour: an AppIntent in Swift, whose Metadata.appintents `assistant build` writes from the
  /// code; its App Shortcut phrase says the enum and the rest is asked; the app reads the order from the app group.
  @Test func aNewAppIntentsAppPerformsItsShortcutPhrase() async throws {
    let scratch = try TemporaryDirectory("intenthost-new")
    defer { scratch.remove() }
    let home = scratch.file("home")
    let package = scratch.file("Coffee")
    let made = try await assistant(
      ["new", "app", "Coffee", package.path, "--app-intents", "--sdk", PackagePaths.root.path, "--json"], home: home)
    #expect(made.code == 0, "\(made)")
    #expect(made.stdout.contains(#""sampleAnswers":["2","Ada"],"samplePhrase":"Order large with Coffee""#), "\(made)")
    #expect(!FileManager.default.fileExists(atPath: package.appendingPathComponent("CoffeeIntents").path))

    let built = try await assistant(["build", package.path, "--install"], home: home, timeout: .seconds(900))
    #expect(built.code == 0, "\(built)")
    let metadata = home.appendingPathComponent(
      "Applications/Coffee.app/Extensions/CoffeeAppIntents.appex/Metadata.appintents/extract.actionsdata")
    #expect(FileManager.default.fileExists(atPath: metadata.path), "\(built)")

    let phrases = try await assistant(["phrases", "Coffee"], home: home)
    #expect(phrases.stdout.contains(#""Order ${size} with Coffee"  OrderCoffeeIntent"#), "\(phrases)")
    let said = try await assistant(["--answer", "2", "--answer", "Ada", "Order large with Coffee"], home: home)
    #expect(said.code == 0, "\(said)")
    #expect(said.stderr.contains("How many? 2") && said.stderr.contains("Which customer? Ada"), "\(said)")
    #expect(said.stdout.contains("Your 2 large for Ada is ordered.") && said.stdout.contains("Size: large"), "\(said)")
    let listed = try await assistant(["open", "Coffee", "--", "list"], home: home)
    #expect(listed.stdout.contains("customer: Ada, quantity: 2, size: large"), "\(listed)")
    // The package's own test passes: the phrase and the answers through the real engine.
    let tested = try await swiftTest(package)
    #expect(tested.code == 0, "\(tested)")
    #expect((tested.stdout + tested.stderr).contains("theShortcutPhraseIsPerformed() passed"), "\(tested)")
    // Control: a phrase the shortcut does not say is not taken for it.
    let other = try await assistant(["--answer", "2", "--answer", "Ada", "Order huge with Coffee"], home: home)
    #expect(other.code != 0 && !other.stdout.contains("is ordered"), "\(other)")
    let refused = try await assistant(
      ["new", "app", "Tea", scratch.file("Tea").path, "--app-intents", "--language", "python"], home: home)
    #expect(refused.code == 64 && refused.stderr.contains("--app-intents writes Swift"), "\(refused)")
  }

  /// The same app in Python: scripts beside the SDK's modules, nothing compiled; it builds, installs and answers, and
  /// the app reads the order from the app group. Control: the script without its execute bit is refused by the build.
  @Test func aNewPythonAppAnswersWithoutCompiling() async throws {
    let scratch = try TemporaryDirectory("intenthost-new")
    defer { scratch.remove() }
    let home = scratch.file("home")
    let package = scratch.file("Coffee")
    let made = try await assistant(
      ["new", "app", "Coffee", package.path, "--language", "python", "--sdk", PackagePaths.root.path], home: home)
    #expect(made.code == 0, "\(made)")
    #expect(!FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path))
    let script = package.appendingPathComponent("CoffeeIntents/CoffeeIntents")
    #expect(FileManager.default.isExecutableFile(atPath: script.path))

    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: script.path)
    let refused = try await assistant(["build", package.path, "--install"], home: home)
    #expect(refused.code == 65 && refused.stderr.contains("is not executable"), "\(refused)")
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)

    let built = try await assistant(["build", package.path, "--install"], home: home)
    #expect(built.code == 0 && !built.stderr.contains("building"), "\(built)")
    let said = try await assistant(["Order 2 large for Ada with Coffee"], home: home)
    #expect(said.code == 0 && said.stdout.contains("Your 2 large for Ada is ordered."), "\(said)")
    #expect(said.stdout.contains("Size: large"), "\(said)")
    let listed = try await assistant(["open", "Coffee", "--", "list"], home: home)
    #expect(listed.stdout.contains("customer: Ada, quantity: 2, size: large"), "\(listed)")
    let unknown = try await assistant(
      ["new", "app", "Tea", scratch.file("Tea").path, "--language", "pyton"], home: home)
    #expect(unknown.code == 64 && unknown.stderr.contains("python"), "\(unknown)")
  }

  /// Names are validated, and nothing is overwritten: an existing, non-empty folder is refused (exit 73).
  @Test func badNamesAndUsedFoldersAreRefused() async throws {
    let scratch = try TemporaryDirectory("intenthost-new")
    defer { scratch.remove() }
    let home = scratch.file("home")
    for name in ["coffee", "Coffee Shop", "../Coffee", "Café"] {
      let result = try await assistant(
        ["new", "app", name, scratch.file("x").path, "--sdk", PackagePaths.root.path], home: home)
      #expect(result.code == 64 && result.stderr.contains("UpperCamelCase"), "\(name): \(result)")
    }
    let bad = try await assistant(
      [
        "new", "app", "Tea", scratch.file("t").path, "--sdk", PackagePaths.root.path, "--param",
        "kind:enum(green,,black)",
      ],
      home: home)
    #expect(bad.code == 64, "\(bad)")
    let used = scratch.file("used")
    try FileManager.default.createDirectory(at: used, withIntermediateDirectories: true)
    try Data("mine\n".utf8).write(to: used.appendingPathComponent("notes.txt"))
    let refused = try await assistant(["new", "app", "Tea", used.path, "--sdk", PackagePaths.root.path], home: home)
    #expect(refused.code == 73 && refused.stderr.contains("not empty"), "\(refused)")
    #expect(try String(contentsOf: used.appendingPathComponent("notes.txt"), encoding: .utf8) == "mine\n")
    // Control: an intent of the user's parameters is written, and its definition validates clean.
    let tea = scratch.file("Tea")
    let made = try await assistant(
      [
        "new", "app", "Tea", tea.path, "--sdk", PackagePaths.root.path, "--intent", "BrewTeaIntent", "--param",
        "kind:enum(green,black)", "--param", "cups:integer", "--param", "note:string",
      ], home: home)
    #expect(made.code == 0 && made.stdout.contains("Brew tea black 2 Ada with Tea"), "\(made)")
    let validated = try await assistant(["validate", tea.path], home: home)
    #expect(validated.code == 0 && validated.stdout.contains("0 errors, 0 warnings"), "\(validated)")
  }
}
