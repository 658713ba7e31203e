// assistant: the IntentHost command line, a thin front end over AssistantHost.
import AssistantHost
import BundleManifest
import Foundation
import IntentHostSystem
import ProcessSupervision
import Synchronization
import UntrustedText

let help = """
  usage: assistant [OPTIONS] "UTTERANCE"                 say something, e.g. "Book room 12 for Ada with Rooms"
         assistant [OPTIONS] run APP INTENT [NAME=VALUE...] run an intent directly, like a Shortcuts action
         assistant [OPTIONS] list                          installed apps, their extensions and intents
         assistant [OPTIONS] open APP [-- ARGS...]         launch an app with its container and app groups
         assistant [OPTIONS] validate [--setting N=V] PATH... check bundles, source folders or files with
                                                           Apple's rules (exit 65 on an error; --json)
         assistant [OPTIONS] install [--share-group GROUP] BUNDLE.app...
                                                           install (or update) app bundles that validate, and
                                                           whose team owns their bundle ids and app groups
         assistant [OPTIONS] uninstall APP|BUNDLE-ID       remove an app (its data is kept)
         assistant [OPTIONS] sandbox-profile APP|EXTENSION what an app or extension may read, write and run,
                                                           its limits and deadlines
         assistant [OPTIONS] defaults VERB GROUP ...       read, write, delete, watch or recover app-group data
                                                           (`assistant defaults --help`)

  options:
    --home DIR              host home (else $ASSISTANT_HOME, else $XDG_DATA_HOME/intenthost,
                            else ~/.local/share/intenthost); app groups live in DIR/AppGroup
                            unless $ASSISTANT_APP_GROUPS names another folder
    --json                  print one JSON object (app, intent, parameters, code, success, dialog);
                            dialog and prompts go to stderr
    --answer TEXT           answer the next question with TEXT (repeatable; used before asking the terminal)
    --deadline PHASE=SECS   deadline for handshake, resolve, confirm, handle, ui or shutdown (or all);
                            defaults 5, 5, 5, 10, 3, 2
    --locale LOCALE         the user's locale (default en_US)
    --memory-limit MIB      memory ceiling of each extension (default 30)
    --cpu-limit SECONDS     CPU time of each extension process (default 10)
    --storage-limit MIB[,FILES]  what each container and app group may hold before launches
                            are refused (default 128,10000)
    --no-sandbox            run extensions and apps unconfined (unsafe; warns on every run)
    --share-group GROUP     install: let the bundle use app group GROUP although another team owns it
                            (repeatable; without it such a bundle is refused, exit 77)
    -h, --help              this help;  --version  the version

  exit status:
    0   handled with a success response        65  invalid manifest or data
    1   handled with a failure response        69  no app or intent matches
    64  usage error                            70  extension fault: crash, exit, timeout, protocol violation
    75  a value is needed but cannot be asked  77  refused (locked, authentication, entitlement, sandbox,
                                                   an id or app group of another team)
    For `open`, the app's own exit status. `defaults`: 0, 64, 65 (unreadable document), 69 (no such key), 77.
  """

struct Options {
  var home: String?
  var json = false
  var answers: [String] = []
  var deadlines = Deadlines()
  var locale = "en_US"
  var sandbox = SandboxPolicy()
  /// `--share-group`: app groups of another team that `install` may give the bundle.
  var sharedGroups: Set<String> = []
  var rest: [String] = []
}

func parseOptions(_ arguments: [String]) throws -> Options {
  var options = Options()
  var index = 0
  func value(_ flag: String) throws -> String {
    index += 1
    guard index < arguments.count else { throw HostError(.usage, "\(flag) needs a value") }
    return arguments[index]
  }
  while index < arguments.count {
    let argument = arguments[index]
    // `open` passes what follows to the app, `defaults` parses its own options.
    if !options.rest.isEmpty
      && (["open", "defaults", "validate"].contains(options.rest.first!) && argument != "--json" || argument == "--")
    {
      options.rest.append(contentsOf: arguments[index...])
      break
    }
    switch argument {
    case "--home": options.home = try value(argument)
    case "--json": options.json = true
    case "--answer": options.answers.append(try value(argument))
    case "--deadline": try options.deadlines.set(try value(argument))
    case "--locale": options.locale = try value(argument)
    case "--no-sandbox": options.sandbox.enabled = false
    case "--share-group":
      let group = try value(argument)
      if let problem = AppGroupIdentifier.problem(group) { throw HostError(.usage, "--share-group: \(problem)") }
      options.sharedGroups.insert(group)
    case "--cpu-limit":
      let text = try value(argument)
      guard let seconds = Int(text), seconds > 0 else {
        throw HostError(.usage, "--cpu-limit needs a whole number of seconds, not \"\(text)\"")
      }
      options.sandbox.setExtensionCPU(seconds: seconds)
    case "--memory-limit":
      let text = try value(argument)
      guard let megabytes = Int(text), megabytes > 0 else {
        throw HostError(.usage, "--memory-limit needs a number of MiB, not \"\(text)\"")
      }
      options.sandbox.setExtensionMemory(megabytes: megabytes)
    case "--storage-limit":
      let text = try value(argument)
      let parts = text.split(separator: ",", omittingEmptySubsequences: false)
      guard (1...2).contains(parts.count), let megabytes = Int(parts[0]), megabytes > 0,
        parts.count == 1 || Int(parts[1]).map({ $0 > 0 }) == true
      else {
        throw HostError(.usage, "--storage-limit needs MIB or MIB,FILES (e.g. 256,20000), not \"\(text)\"")
      }
      options.sandbox.storage.bytes = megabytes << 20
      if parts.count == 2 { options.sandbox.storage.entries = Int(parts[1])! }
    case "-h", "--help":
      print(help)
      exit(0)
    case "--version":
      print("assistant (IntentHost) \(hostVersion)")
      exit(0)
    default:
      if argument.hasPrefix("--") && !argument.contains(" ") {
        throw HostError(.usage, "unknown option \(argument); see assistant --help")
      }
      options.rest.append(argument)
    }
    index += 1
  }
  return options
}

/// Prints a line on stdout, off the cooperative pool (a pipe's reader may be slow).
func output(_ line: String) async {
  await FileDescriptor.standardOutput.write(line + "\n")
}

func report(_ outcome: IntentOutcome, json: Bool) async -> Int32 {
  if json { await output(outcome.json()) }
  return outcome.isSuccess ? ExitStatus.success.rawValue : ExitStatus.failureResponse.rawValue
}

/// Whether a failure of this run is also printed as JSON on stdout (`--json` with run or an utterance).
nonisolated(unsafe) var jsonOutput = false  // set once, before any other thread reads it

/// Runs the command line. Everything it starts is stopped and reaped before it returns, on every path; Ctrl-C
/// cancels it (see the end of this file).
func main() async -> Int32 {
  do {
    let options = try parseOptions(Array(CommandLine.arguments.dropFirst()))
    jsonOutput = options.json && ["run", "ask"].contains(options.rest.first ?? "ask")
    guard let command = options.rest.first else {
      throw HostError(.usage, "nothing to do\n\(help)")
    }
    let home = try AssistantHome(root: options.home)
    let conversation = TerminalConversation(
      answers: options.answers, interactive: FileDescriptor.standardInput.isTerminal, quiet: options.json)
    var driver = IntentDriver(home: home, conversation: conversation)
    driver.deadlines = options.deadlines
    driver.locale = options.locale
    driver.sandbox = options.sandbox
    if !options.sandbox.enabled && ["run", "open", "ask", "sandbox-profile"].contains(command)
      || !options.sandbox.enabled
        && !["list", "install", "uninstall", "validate", "defaults"].contains(command)
    {
      await FileDescriptor.standardError.write(SandboxPolicy.warning + "\n")
    }
    if Untrusted.isBypassedForTesting {
      await writeHostMessage("warning: INTENTHOST_TEST_RAW_TEXT=1 (test only): untrusted text is printed raw")
    }
    let arguments = Array(options.rest.dropFirst())

    switch command {
    case "run":
      guard arguments.count >= 2 else { throw HostError(.usage, "usage: assistant run APP INTENT [NAME=VALUE...]") }
      let router = Router(apps: try home.installedApps())
      let app = try router.app(named: arguments[0])
      let intentClass = try router.intentClass(named: arguments[1], in: app)
      let values = try router.values(Array(arguments.dropFirst(2)), intentClass: intentClass, in: app)
      try await home.prepare()
      return await report(
        try await driver.run(IntentInvocation(app: app, intentClass: intentClass, values: values)), json: options.json)
    case "list":
      let apps = try home.installedApps().map { $0.localized(for: options.locale) }
      var lines: [String] = []
      func print(_ line: String) { lines.append(Untrusted.shown(line)) }  // names from manifests, one line each
      if apps.isEmpty { print("No apps are installed in \(home.root.path). Install one with `assistant install`.") }
      for app in apps {
        print("\(app.name) (\(app.info.bundleIdentifier))")
        for ext in app.extensions {
          let kind = ext.extensionInfo.point == .intentsUIService ? "Intents UI extension" : "Intents extension"
          print("  \(ext.name) (\(ext.info.bundleIdentifier)): \(kind)")
          for className in ext.extensionInfo.intentsSupported {
            let spec = app.runnableSpec(className: className)?.spec
            let restricted =
              ext.extensionInfo.intentsRestrictedWhileLocked.contains(className) ? ", restricted while locked" : ""
            let parameters = spec.map { " (" + $0.parameters.map(\.name).joined(separator: ", ") + ")" } ?? ""
            print("    \(className)\(parameters)\(spec?.title.map { ": \($0)" } ?? "")\(restricted)")
          }
        }
        if !app.entitlements.applicationGroups.isEmpty {
          print("  app groups: \(app.entitlements.applicationGroups.joined(separator: ", "))")
        }
      }
      for line in lines { await output(line) }
      return 0
    case "open":
      guard let name = arguments.first else { throw HostError(.usage, "usage: assistant open APP [-- ARGS...]") }
      var appArguments = Array(arguments.dropFirst())
      if appArguments.first == "--" { appArguments.removeFirst() }
      let app = try Router(apps: try home.installedApps()).app(named: name)
      try await home.prepare()
      var launcher = AppLauncher(home: home)
      launcher.locale = options.locale
      launcher.sandbox = options.sandbox
      return try await launcher.open(app, arguments: appArguments)
    case "sandbox-profile":
      guard arguments.count == 1 else { throw HostError(.usage, "usage: assistant sandbox-profile APP|EXTENSION") }
      // Computing a profile may record the app's identity (a locked, synced update): off the pool.
      let (name, policy, deadlines) = (arguments[0], options.sandbox, options.deadlines)
      let profiles = try await offloaded { try sandboxProfiles(name, home: home, policy: policy, deadlines: deadlines) }
      await output(Untrusted.shown(profiles, multiline: true))
      return 0
    case "install":
      guard !arguments.isEmpty else {
        throw HostError(.usage, "usage: assistant install [--share-group GROUP] BUNDLE.app...")
      }
      try await home.prepare()
      for path in arguments {
        let (app, diagnostics) = try await home.install(
          from: URL(fileURLWithPath: path), sharing: options.sharedGroups)
        for diagnostic in diagnostics where diagnostic.severity == .warning {
          await FileDescriptor.standardError.write("\(diagnostic.shown)\n")
        }
        await output(Untrusted.shown("Installed \(app.name) (\(app.info.bundleIdentifier)) in \(app.url.path)"))
      }
      return 0
    case "validate":
      return try await validate(arguments, json: options.json)
    case "uninstall":
      guard arguments.count == 1 else { throw HostError(.usage, "usage: assistant uninstall APP|BUNDLE-ID") }
      do {
        let app = try await offloaded { try home.uninstall(arguments[0]) }
        await output(
          Untrusted.shown(
            "Uninstalled \(app.name) (\(app.info.bundleIdentifier)); its containers and app groups are kept"))
      } catch let removed as InvalidBundleRemoved {
        await output(Untrusted.shown("Removed \(removed.folder), which no longer loaded; its data is kept"))
      }
      return 0
    case "defaults":
      // Temporary: `defaults` moves into the command model, over AppGroupDefaults.
      throw HostError(.usage, "defaults: being rewired")
    case "ask":
      return try await understand(arguments.joined(separator: " "), home: home, driver: driver, json: options.json)
    default:
      return try await understand(options.rest.joined(separator: " "), home: home, driver: driver, json: options.json)
    }
  } catch is CancellationError {
    return 128 + (ProcessRegistry.shared.interruptSignal ?? SIGINT)
  } catch let error as HostError {
    if let signal = ProcessRegistry.shared.interruptSignal { return 128 + signal }
    await FileDescriptor.standardError.write(error.printed + "\n")
    if jsonOutput {
      // The same line, for scripts: {"error": {"message", "status", "kind"}}.
      let object: [String: Any] = [
        "error": ["message": error.message, "status": Int(error.status.rawValue), "kind": "\(error.status)"]
      ]
      if let data = try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
      {
        await output(Untrusted.shown(json: String(decoding: data, as: UTF8.self)))
      }
    }
    return error.status.rawValue
  } catch {
    if let signal = ProcessRegistry.shared.interruptSignal { return 128 + signal }
    await writeHostMessage("\(error)")
    return ExitStatus.extensionFault.rawValue
  }
}

/// `assistant sandbox-profile NAME`: the profiles of an app and its extensions, or of one extension.
func sandboxProfiles(_ name: String, home: AssistantHome, policy: SandboxPolicy, deadlines: Deadlines) throws -> String
{
  let apps = try home.installedApps()
  var enabled = policy
  enabled.enabled = true
  let mechanism = SandboxReport.memoryMechanism()
  let extensions = apps.flatMap { app in
    app.extensions.filter {
      $0.name.caseInsensitiveCompare(name) == .orderedSame || $0.identifier.rawValue == name
    }.map { (app, $0) }
  }
  // An app by its bundle id or name (several apps with that name: refused, listing them), else an extension.
  let isAppName = apps.contains {
    $0.identifier.rawValue == name || $0.names.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
  }
  if isAppName || extensions.isEmpty {
    let app = try Router(apps: apps).app(named: name)
    var text = [
      try home.profile(of: app, extensionNamed: nil, policy: enabled).description(
        deadlines: nil, memoryMechanism: mechanism)
    ]
    for ext in app.extensions {
      text.append(
        try home.profile(of: app, extensionNamed: ext.name, policy: enabled).description(
          deadlines: deadlines, memoryMechanism: mechanism))
    }
    return text.joined(separator: "\n\n")
      + (policy.enabled ? "" : "\n(--no-sandbox is set: none of this applies on this run)")
  }
  guard extensions.count == 1, let (app, ext) = extensions.first else {
    throw HostError(
      .noMatch,
      "\"\(name)\" is the name of \(extensions.count) installed extensions: "
        + extensions.map { "\($0.1.identifier)" }.sorted().joined(separator: ", ")
        + "; use the bundle id instead of the name to say which")
  }
  return try home.profile(of: app, extensionNamed: ext.name, policy: enabled).description(
    deadlines: deadlines, memoryMechanism: mechanism)
}

/// `assistant validate [--setting NAME=VALUE] PATH...`.
func validate(_ arguments: [String], json: Bool) async throws -> Int32 {
  var settings: [String: String] = [:]
  var paths: [String] = []
  var index = 0
  while index < arguments.count {
    if arguments[index] == "-h" || arguments[index] == "--help" {
      await output("usage: assistant validate [--json] [--setting NAME=VALUE] PATH...  (rules: docs/VALIDATION.md)")
      return 0
    }
    if arguments[index] == "--setting" {
      index += 1
      guard index < arguments.count, let equals = arguments[index].firstIndex(of: "=") else {
        throw HostError(.usage, "--setting needs NAME=VALUE, e.g. --setting PRODUCT_BUNDLE_IDENTIFIER=com.example.app")
      }
      settings[String(arguments[index][..<equals])] = String(arguments[index][arguments[index].index(after: equals)...])
    } else {
      paths.append(arguments[index])
    }
    index += 1
  }
  guard !paths.isEmpty else {
    throw HostError(.usage, "usage: assistant validate [--json] [--setting NAME=VALUE] PATH...")
  }
  let validator = Validator(settings: settings)
  var diagnostics: [Diagnostic] = []
  for path in paths { diagnostics += await offloaded { validator.validate(path: path) } }
  let errors = diagnostics.errors.count
  let warnings = diagnostics.filter { $0.severity == .warning }.count
  if json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    struct Report: Encodable {
      var paths: [String]
      var errors: Int
      var warnings: Int
      var diagnostics: [Diagnostic]
    }
    let data = try encoder.encode(Report(paths: paths, errors: errors, warnings: warnings, diagnostics: diagnostics))
    await output(Untrusted.shown(json: String(decoding: data, as: UTF8.self)))
  } else {
    for diagnostic in diagnostics { await output(diagnostic.shown) }
    let notes = diagnostics.count - errors - warnings
    await output(
      "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
        + (notes > 0 ? ", \(notes) note\(notes == 1 ? "" : "s")" : "")
        + " in \(Untrusted.shown(paths.joined(separator: ", ")))")
  }
  return errors > 0 ? ExitStatus.dataError.rawValue : 0
}

func understand(_ utterance: String, home: AssistantHome, driver: IntentDriver, json: Bool) async throws -> Int32 {
  let match = try UtteranceMatcher(apps: try home.installedApps()).match(utterance)
  try await home.prepare()
  return await report(
    try await driver.run(IntentInvocation(app: match.app, intentClass: match.intentClass, values: match.values)),
    json: json)
}

/// The command's task, cancellable by the interrupt handler even before it has started.
final class CancellableRun: Sendable {
  private let state = Mutex<(task: Task<Int32, Never>?, cancelled: Bool)>((nil, false))

  /// Starts `body` in a task and waits for it.
  func start(_ body: @escaping @Sendable () async -> Int32) async -> Int32 {
    let task = Task { await body() }
    let cancelled = state.withLock { state -> Bool in
      state.task = task
      return state.cancelled
    }
    if cancelled { task.cancel() }
    return await task.value
  }

  func cancel() {
    let task = state.withLock { state -> Task<Int32, Never>? in
      state.cancelled = true
      return state.task
    }
    task?.cancel()
  }
}

// Ctrl-C (or SIGTERM, SIGHUP) cancels the run: its structured cleanup shuts down and reaps every extension and app
// it started, and the host exits with 128 + the signal. A second signal, or a cleanup still running 3 s later, kills
// every child at once instead.
FileDescriptor.ensureStandardDescriptorsOpen()
ignoreBrokenPipeSignal()
let run = CancellableRun()
ProcessRegistry.shared.installInterruptHandler(
  forcedMessage: "\nassistant: interrupted; every extension was killed\n", onInterrupt: { _ in run.cancel() })
let status = await run.start { await main() }
if let signal = ProcessRegistry.shared.interruptSignal {
  ProcessRegistry.shared.exit(128 + signal, message: "\nassistant: interrupted; every extension was stopped\n")
}
ProcessRegistry.shared.exit(status)
