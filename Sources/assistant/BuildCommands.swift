// `assistant build`: a package's apps built and assembled as Xcode's build phases do. The command line is parsed
// here; finding the bundles is AssistantHost's `BundleSources`, building and assembling its `BundleAssembler`.
import AssistantHost
import BundleManifest
import Foundation
import IntentHostSystem
import UntrustedText

/// `assistant build [PATH] [--install] [--release] [--output DIR] [--binaries DIR]`.
struct Build: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "build",
      abstract:
        "Build a package's apps and extensions and assemble their bundles, as Xcode does; --install installs them.",
      discussion: """
        Every folder below PATH (default: the current folder) that holds an Info.plist is one bundle's folder: an \
        app, or an extension (NSExtension, or EXAppExtensionAttributes for App Intents) embedded in the app whose \
        bundle id, followed by a dot, begins its own. Each executable (CFBundleExecutable) is a script in its \
        bundle's folder or the product of that name of the package at or above PATH, built with one `swift build` \
        of the package (quietly, one progress line on stderr; the compiler's output goes to .build/assistant-build.log and is \
        shown only if the build fails). Then each app is assembled into .build/bundles/NAME.app (or --output): its \
        Info.plist, entitlements, .lproj folders (definitions, vocabularies, strings) and other files but Swift \
        sources, its executable, its Intents and Intents UI extensions in PlugIns/ and its App Intents extensions in \
        Extensions/ (whose Metadata.appintents the SDK's executable writes). Each bundle is validated as \
        `assistant validate` does: an error fails the build (exit 65) and nothing is installed. With --json, one \
        document: {"bundles": [{"name", "path", "extensions", "diagnostics"}], "installed": [...]}.
        """,
      arguments: [Self.path.argument],
      options: [Self.install, Self.release, Self.output, Self.binaries, Self.quiet],
      examples: [
        "assistant build",
        "assistant build Coffee --install",
        "assistant build Sources/Examples --output /tmp/bundles --json",
      ])
  }

  static let path = Positional.optional(
    "PATH", help: "The package's folder, or a folder of bundle folders in it (default: the current folder).",
    completion: .directory)
  static let install = Option.flag("--install", help: "Install every bundle built (as `assistant install`).")
  static let release = Option.flag("--release", help: "Build the release configuration (default: debug).")
  static let output = Option.value(
    "--output", value: "DIR", help: "Where to write NAME.app (default: the package's .build/bundles).",
    completion: .directory)
  static let binaries = Option.value(
    "--binaries", value: "DIR",
    help: "Take the executables from DIR, built already, instead of running swift build.", completion: .directory)
  static let quiet = Option.flag("--quiet", help: "Print no progress line.")

  var path: String
  var installs: Bool
  var configurationName: BundleAssembler.Configuration
  var output: String?
  var binaries: String?
  var quiet: Bool

  init(_ parsed: ParsedCommand) throws {
    path = parsed[Self.path] ?? "."
    installs = parsed.flag(Self.install)
    configurationName = parsed.flag(Self.release) ? .release : .debug
    output = parsed.value(Self.output)
    binaries = parsed.value(Self.binaries)
    quiet = parsed.flag(Self.quiet)
  }

  struct Report: Encodable {
    struct Bundle: Encodable {
      var name: String
      var path: String
      var extensions: [String]
      var diagnostics: [Diagnostic]
    }
    var bundles: [Bundle]
    var installed: [String]
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let (path, configuration, output, binaries, quiet) = (path, configurationName, output, binaries, quiet)
    let sources = try await offloaded { () throws in try BundleSources.find(in: URL(fileURLWithPath: path)) }
    let assembler = BundleAssembler(
      sources: sources, configuration: configuration, output: output.map { URL(fileURLWithPath: $0) },
      binaries: binaries.map { URL(fileURLWithPath: $0) })
    let (bundles, installedURLs) = try await assembler.run(
      environment: ProcessInfo.processInfo.environment, installingInto: installs ? context.home() : nil
    ) {
      guard !quiet else { return }
      await FileDescriptor.standardError.write(
        "assistant: building " + Untrusted.shown((sources.package ?? sources.root).lastPathComponent) + "...\n")
    }
    let diagnostics = bundles.flatMap(\.diagnostics)
    let installed = installedURLs.map(\.path)
    if context.json {
      try await context.output(
        json: Report(
          bundles: bundles.map {
            Report.Bundle(name: $0.name, path: $0.url.path, extensions: $0.extensions, diagnostics: $0.diagnostics)
          }, installed: installed))
    } else {
      for diagnostic in diagnostics where diagnostic.severity != .note {
        try await context.output(diagnostic.shown)
      }
      for bundle in bundles {
        let parts = bundle.extensions.isEmpty ? "" : " (with " + bundle.extensions.joined(separator: ", ") + ")"
        try await context.output(Untrusted.shown("Assembled \(bundle.name).app in \(bundle.url.path)\(parts)"))
      }
      for path in installed { try await context.output(Untrusted.shown("Installed \(path)")) }
      if diagnostics.hasErrors {
        let count = diagnostics.errors.count
        try await context.output(
          "\(count) error\(count == 1 ? "" : "s"): nothing was installed; fix them and build again")
      }
    }
    return diagnostics.hasErrors ? ExitStatus.dataError.rawValue : ExitStatus.success.rawValue
  }
}

/// `assistant new app NAME ...`.
struct New: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "new",
      abstract: "Write a new app package that builds and answers its sample phrase at once.",
      subcommands: [NewApp.self, NewIntentCommand.self],
      examples: ["assistant new app Coffee", "assistant build Coffee --install"])
  }

  init(_ parsed: ParsedCommand) throws {}

  func run(in context: CommandContext) async throws -> Int32 { ExitStatus.usage.rawValue }  // the parser refuses it
}

/// `assistant new app NAME [--intent NAME] [--param NAME:TYPE ...] [--sdk PATH] [PATH]`.
struct NewApp: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "app",
      abstract: "Write a Swift package with an app and its Intents and Intents UI extensions (or App Intents).",
      discussion: """
        The package (in PATH, default ./NAME, which must not exist or be empty) has the app NAME, the Intents \
        extension NAMEIntents and the Intents UI extension NAMEUI, each a folder with its manifests (Info.plist, \
        entitlements; the app's Base.lproj holds Intents.intentdefinition and AppIntentVocabulary.plist) and its \
        Swift code in Code/, sharing the app group group.com.example.LOWERCASE-NAME. The definition has one intent, \
        --intent (default OrderNAME), with the parameters --param NAME:TYPE (TYPE integer, decimal, boolean, string \
        or enum(CASE,CASE...); default size:enum(small,medium,large), quantity:integer, customer:string), and its \
        vocabulary one example phrase, the sample phrase. Package.swift depends on the IntentHost SDK by path: \
        --sdk, else $INTENTHOST_SDK, else the clone this assistant was built in. Then `assistant build NAME \
        --install` and the sample phrase answers. With --language python, each executable is a python3 script in \
        its bundle's folder beside the SDK's modules (intenthost.py, appgroup.py, copied from the clone's \
        docs/examples/python), and there is nothing to compile. With --app-intents, the app and an App Intents \
        extension NAMEAppIntents written against the SDK's AppIntents library: the intent is an AppIntent struct \
        with a @Parameter for each parameter and an AppEnum for each enum, and an App Shortcut phrase says the \
        first enum in its slot ("Order large with Coffee"); what the phrase does not say is asked. `assistant \
        build` writes its Metadata.appintents. With --json: {"path", "files", "samplePhrase", "sampleAnswers"}.
        """,
      arguments: [Self.name.argument, Self.path.argument],
      options: [Self.intent, Self.parameter, Self.language, Self.appIntents, Self.sdk],
      examples: [
        "assistant new app Coffee",
        "assistant new app Coffee --app-intents",
        "assistant new app Tea --intent BrewTea --param 'kind:enum(green,black)' --param cups:integer",
      ])
  }

  static let name = Positional("NAME", help: "The app's name: letters and digits, UpperCamelCase (Coffee).")
  static let path = Positional.optional(
    "PATH", help: "The package's folder (default: ./NAME).", completion: .directory)
  static let intent = Option.value(
    "--intent", value: "NAME", help: "The intent's name, without Intent (default: OrderNAME).")
  static let parameter = Option.value(
    "--param", value: "NAME:TYPE",
    help: "A parameter of the intent (repeatable): integer, decimal, boolean, string or enum(CASE,CASE...).",
    repeatable: true)
  static let language = Option.value(
    "--language", value: "LANGUAGE", help: "swift (default) or python.", completion: .words(["swift", "python"]))
  static let appIntents = Option.flag(
    "--app-intents", help: "An App Intents extension in Swift (AppIntent, AppEnum, App Shortcuts), not SiriKit's.")
  static let sdk = Option.value(
    "--sdk", value: "PATH", help: "The IntentHost clone to depend on (default: the one this assistant was built in).",
    completion: .directory)

  var template: AppTemplate
  var folder: String
  var python: Bool
  var appIntents: Bool

  init(_ parsed: ParsedCommand) throws {
    let name = parsed[Self.name]
    if let problem = AppTemplate.nameProblem(name) { throw HostError(.usage, problem) }
    var intent = AppTemplate.defaultIntent(for: name)
    if let intentName = parsed.value(Self.intent) {
      intent.name = try NewIntent.intentName(intentName, as: "--intent \(intentName)")
      (intent.phrase, intent.successDialog) = (nil, nil)  // the default's words are for OrderNAME alone
    }
    let parameters = try NewIntent.parameters(parsed.values(Self.parameter))
    if !parameters.isEmpty {
      intent.parameters = parameters
      (intent.phrase, intent.successDialog) = (nil, nil)
    }
    let sdk = try parsed.value(Self.sdk) ?? Self.defaultSDK()
    guard FileManager.default.fileExists(atPath: sdk + "/Package.swift") else {
      throw HostError(.noInput, "--sdk \(sdk): no Package.swift there; give the folder of your IntentHost clone")
    }
    template = AppTemplate(
      name: name, intent: intent, sdkPath: URL(fileURLWithPath: sdk).standardizedFileURL.path)
    folder = parsed[Self.path] ?? name
    switch parsed.value(Self.language) ?? "swift" {
    case "swift": python = false
    case "python": python = true
    case let other:
      throw HostError(
        .usage,
        "--language \(other): give swift or python"
          + CommandLineParser.suggestion(for: other, among: ["swift", "python"]))
    }
    appIntents = parsed.flag(Self.appIntents)
    if appIntents && python {
      throw HostError(
        .usage,
        "--app-intents writes Swift: leave out --language python (docs/examples/python-appintents is an App Intents "
          + "app in Python)")
    }
  }

  /// `$INTENTHOST_SDK`, else the package this executable was built in (`.../.build/CONFIG/assistant`).
  static func defaultSDK() throws -> String {
    if let path = ProcessInfo.processInfo.environment["INTENTHOST_SDK"], !path.isEmpty { return path }
    var folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    while folder.path != "/" {
      let manifest = folder.appendingPathComponent("Package.swift")
      if let text = try? String(contentsOf: manifest, encoding: .utf8), text.contains("name: \"IntentHost\"") {
        return folder.path
      }
      folder.deleteLastPathComponent()
    }
    throw HostError(
      .usage,
      "cannot tell where the IntentHost SDK is: give --sdk PATH (your IntentHost clone) or set INTENTHOST_SDK")
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let (template, folder, python, appIntents) = (template, folder, python, appIntents)
    let root = URL(fileURLWithPath: folder).standardizedFileURL
    let flavour = AppIntentsAppTemplate(base: template)
    let (samplePhrase, sampleAnswers) =
      appIntents ? (flavour.samplePhrase, flavour.sampleAnswers) : (template.samplePhrase, [])
    let files = try await offloaded { () throws -> [(path: String, contents: String)] in
      var files = appIntents ? flavour.files : template.files
      var executables: Set<String> = []
      if python {
        var modules: [String: String] = [:]
        for module in PythonAppTemplate.moduleNames {
          let file = template.sdkPath + "/docs/examples/python/" + module
          guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw HostError(
              .noInput, "cannot read the Python SDK's \(file); give --sdk the folder of your IntentHost clone")
          }
          modules[module] = text
        }
        let flavour = PythonAppTemplate(base: template, modules: modules)
        (files, executables) = (flavour.files, flavour.executables)
      }
      try Self.write(template.name, files, executables: executables, into: root)
      return files
    }
    if context.json {
      struct Report: Encodable {
        var path: String
        var files: [String]
        var samplePhrase: String
        /// What the sample phrase asks, answered in order (an App Shortcut phrase says at most one value).
        var sampleAnswers: [String]
      }
      try await context.output(
        json: Report(
          path: root.path, files: files.map(\.path), samplePhrase: samplePhrase, sampleAnswers: sampleAnswers))
    } else {
      try await context.output("Wrote \(template.name) (\(files.count) files) in \(root.path). Next:")
      try await context.output("  cd \(shellQuoted(folder)) && assistant build --install")
      let answers = sampleAnswers.map { "--answer \(shellQuoted($0)) " }.joined()
      try await context.output("  assistant \(answers)\(shellQuoted(samplePhrase))")
    }
    return ExitStatus.success.rawValue
  }

  /// Writes every file, each new (`O_EXCL`): a folder that exists and is not empty is refused, nothing overwritten.
  static func write(
    _ name: String, _ files: [(path: String, contents: String)], executables: Set<String>, into root: URL
  ) throws {
    let fm = FileManager.default
    if let names = try? fm.contentsOfDirectory(atPath: root.path), !names.isEmpty {
      throw HostError(
        .cannotCreate, "cannot write \(name) into \(root.path): the folder is not empty; give a new PATH")
    }
    for (path, contents) in files {
      let file = root.appendingPathComponent(path)
      do {
        try fm.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = try FileDescriptor.open(
          file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
          mode: executables.contains(path) ? 0o755 : 0o644)
        defer { descriptor.close() }
        try descriptor.writeAll(Array(contents.utf8), timeoutMilliseconds: -1)
      } catch {
        throw HostError(.cannotCreate, "cannot write \(file.path): \(error)")
      }
    }
  }
}

/// `assistant dev [PATH] ["UTTERANCE"] [--count N]`.
struct Dev: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "dev",
      abstract: "Build, install and say an utterance again on every change to a package's sources.",
      discussion: """
        Builds and installs the package at PATH (default: the current folder) as `assistant build --install` does, \
        into a development home (PATH/.build/dev-home, or --home), says UTTERANCE if given, then watches every \
        folder below PATH (inotify; hidden folders and .build are not watched) and does it all again after each \
        change, once the tree has been quiet for 300 ms. A failed build or a refused bundle is reported and the \
        watch goes on: the last good install stays. Ctrl-C stops it; --count N stops after N rounds.
        """,
      arguments: [Self.path.argument, Self.utterance.argument],
      options: [Self.count, Build.release],
      examples: ["assistant dev", "assistant dev Coffee \"Order 2 large for Ada with Coffee\""],
      printsJSON: false)
  }

  static let path = Positional.optional(
    "PATH", help: "The package's folder (default: the current folder).", completion: .directory)
  static let utterance = Positional.optional("UTTERANCE", help: "What to say after each install.")
  static let count = Option.value("--count", value: "N", help: "Stop after N rounds (default: never).")

  var path: String
  var utterance: String?
  var rounds: Int?
  var configurationName: BundleAssembler.Configuration

  init(_ parsed: ParsedCommand) throws {
    path = parsed[Self.path] ?? "."
    utterance = parsed[Self.utterance]
    if let text = parsed.value(Self.count) {
      guard let count = Int(text), count > 0 else { throw HostError(.usage, "--count \(text): give a number from 1") }
      rounds = count
    }
    configurationName = parsed.flag(Build.release) ? .release : .debug
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let root = URL(fileURLWithPath: path).standardizedFileURL
    let sources = try await offloaded { () throws in try BundleSources.find(in: root) }
    let base = (sources.package ?? sources.root).appendingPathComponent(".build")
    let homePath = context.homeOption ?? base.appendingPathComponent("dev-home").path
    let home = try AssistantHome(root: homePath)
    let watch = try SourceWatch(root: root)
    var round = 0
    var change: String? = nil
    while true {
      round += 1
      await FileDescriptor.standardError.write(
        "assistant dev: "
          + (change.map { "\(Untrusted.shown($0)) changed; " } ?? "") + "building "
          + Untrusted.shown((sources.package ?? sources.root).lastPathComponent) + "...\n")
      if await installRound(root: root, home: home), let utterance {
        let status = try await say(utterance, home: homePath)
        await FileDescriptor.standardError.write("assistant dev: said it (exit \(status)); watching \(root.path)\n")
      } else {
        await FileDescriptor.standardError.write("assistant dev: watching \(root.path)\n")
      }
      if let rounds, round >= rounds { return ExitStatus.success.rawValue }
      change = try await offloaded { () throws in try watch.waitForChange() }
    }
  }

  /// Builds, assembles and installs; reports what failed and returns false.
  func installRound(root: URL, home: AssistantHome) async -> Bool {
    do {
      let sources = try await offloaded { () throws in try BundleSources.find(in: root) }
      let assembler = BundleAssembler(sources: sources, configuration: configurationName, output: nil, binaries: nil)
      let (bundles, _) = try await assembler.run(
        environment: ProcessInfo.processInfo.environment, installingInto: home)
      let diagnostics = bundles.flatMap(\.diagnostics)
      for diagnostic in diagnostics where diagnostic.severity != .note {
        await FileDescriptor.standardError.write(diagnostic.shown + "\n")
      }
      return !diagnostics.hasErrors
    } catch {
      let message = (error as? HostError)?.message ?? "\(error)"
      await FileDescriptor.standardError.write("assistant dev: \(message)\n")
      return false
    }
  }

  /// Says `utterance` as `assistant --home HOME UTTERANCE` would, in a child (this executable), on this terminal.
  func say(_ utterance: String, home: String) async throws -> Int32 {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let termination = try await offloaded { () throws in
      var options = SpawnOptions(
        executable: executable, arguments: [executable, "--home", home, "--", utterance],
        environment: ProcessInfo.processInfo.environment, workingDirectory: nil, standardInput: .standardInput,
        standardOutput: .standardOutput, standardError: .standardError)
      options.newSession = false
      return try BundleAssembler.runToEnd(options)
    }
    if case .exited(let code) = termination { return code }
    return 128
  }
}

/// `assistant new intent NAME --param NAME:TYPE ... [PATH]`.
struct NewIntentCommand: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "intent",
      abstract: "Add an intent to an existing intent definition, so nobody writes plist by hand.",
      discussion: """
        PATH is an .intentdefinition file, or a folder holding exactly one (default: the current folder). The \
        intent NAME (without Intent) gets the parameters --param NAME:TYPE (TYPE integer, decimal, boolean, string \
        or enum(CASE,CASE...); an enum is named after its parameter), each with a prompt, a success and a failure \
        response that say them, and a primary parameter combination; each Intents and Intents UI extension of the \
        package that supports an intent of that definition lists it in IntentsSupported too, and the \
        AppIntentVocabulary.plist beside the definition gets its example phrase. The files are \
        rewritten whole, atomically, as Xcode writes them. Then implement NAMEIntentHandling (generated by the \
        IntentDefinitionPlugin) and return it from handler(for:). With --json: {"definition", "intent", \
        "parameters", "infoPlists", "vocabulary", "phrase"}.
        """,
      arguments: [Self.name.argument, Self.path.argument],
      options: [NewApp.parameter],
      examples: ["assistant new intent CancelOrder --param customer:string"])
  }

  static let name = Positional("NAME", help: "The intent's name, UpperCamelCase, without Intent (CancelOrder).")
  static let path = Positional.optional(
    "PATH", help: "The definition, or a folder holding one (default: the current folder).", completion: .file)

  var intent: NewIntent
  var path: String

  init(_ parsed: ParsedCommand) throws {
    let name = parsed[Self.name]
    intent = NewIntent(
      name: try NewIntent.intentName(name, as: name),
      parameters: try NewIntent.parameters(parsed.values(NewApp.parameter)))
    path = parsed[Self.path] ?? "."
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let (intent, path) = (intent, path)
    let addition = try await offloaded { () throws in try intent.add(to: URL(fileURLWithPath: path)) }
    if context.json {
      try await context.output(json: addition)
    } else {
      try await context.output(
        Untrusted.shown("Added \(addition.intent) to \(addition.definition) (\(addition.parameters.count) parameters).")
      )
      for file in addition.infoPlists {
        try await context.output(Untrusted.shown("\(file): IntentsSupported lists \(addition.intent)."))
      }
      if let vocabulary = addition.vocabulary, let phrase = addition.phrase {
        try await context.output(Untrusted.shown("\(vocabulary): its example phrase is \"\(phrase)\"."))
      }
      try await context.output(
        "Next: implement \(intent.name)IntentHandling and return it from handler(for:) for \(addition.intent).className."
      )
    }
    return ExitStatus.success.rawValue
  }
}
