// `assistant serve`: keeps the home's extensions running between CLI calls. The engine is AssistantHost's
// `ExtensionServer` (the server) and `ServerClient` (the calls' side, `--status`, `--stop`).
import AssistantHost
import Foundation
import IntentHostSystem
import UntrustedText

/// `--no-server`: the call starts its own extensions even when the home has a server.
let noServerOption = Option.flag(
  "--no-server", help: "Start this call's extensions itself, even when `assistant serve` runs for the home.")

/// `assistant serve [--idle SECONDS] [--exit-after SECONDS] [--max-extensions N] [--memory-budget MIB]`, `--status`,
/// `--stop`.
struct Serve: AssistantCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "serve",
      abstract: "Keep the home's extensions running between calls, as iOS keeps an extension alive for a while.",
      discussion: """
        Runs in the foreground until Ctrl-C, SIGTERM (128+N, as any run) or `assistant serve --stop` (0). While it \
        runs, `assistant "UTTERANCE"`, `ask` and `run` on the same home take each extension they need from it: \
        one kept from an earlier call, or started by the server, with the sandbox and limits a call would use. \
        The call talks to the extension directly (the server passes its pipes over the socket and stays its \
        parent), and gives it back at the end of its run when it is healthy; one that failed is shut down. \
        The lock rules, the conversation and the donations are the call's, as without a server.

        An extension not used for --idle seconds is shut down (default 60), as are the ones idle longest when more \
        than --max-extensions are kept (default 8) or their private memory together passes --memory-budget MiB \
        (default 256). The server ends after --exit-after seconds with nothing kept (default 600; 0 never). An \
        extension whose app is installed again is started afresh.

        The socket is <home>/serve.sock, mode 0600, and only a process of the server's own uid is served (the \
        kernel's record of the caller, SO_PEERCRED). One server serves a home (<home>/serve.lock); each home has \
        its own. Calls with --no-server, --record, --no-sandbox, --memory-limit, --cpu-limit or --storage-limit \
        start their own extensions. A call never waits for a server that is gone or hung: it starts its own \
        extensions and says so once (a socket left by a server that died is removed then). `assistant shell` and \
        the testing library keep their extensions in their own process.

        With --json the server prints one line when it is ready: {"pid", "home", "socket"}. --status prints what it \
        keeps ({"pid", "home", "version", "extensions": [{"bundleIdentifier", "name", "pid", "locale", "lent", \
        "idleSeconds", "privateBytes", "runs"}], "idleSeconds", "exitAfterSeconds", "maximumExtensions", \
        "memoryBudgetBytes"}), or exits 69 when no server runs. --stop stops it and waits until it is gone \
        ({"stopped": PID or null}).
        """,
      options: [
        Shell.idleOption, Self.exitAfterOption, Self.maximumOption, Self.budgetOption, Self.statusOption,
        Self.stopOption,
      ],
      examples: [
        "assistant serve &", "assistant serve --idle 300 --exit-after 0", "assistant serve --status --json",
        "assistant serve --stop",
      ])
  }

  static let exitAfterOption = Option.value(
    "--exit-after", value: "SECONDS", help: "End after SECONDS with no extension kept (default 600; 0: never).")
  static let maximumOption = Option.value(
    "--max-extensions", value: "N", help: "Keep at most N extensions (default 8, at most 64).")
  static let budgetOption = Option.value(
    "--memory-budget", value: "MIB", help: "The private memory of the kept extensions together (default 256).")
  static let statusOption = Option.flag("--status", help: "Say whether a server runs for the home and what it keeps.")
  static let stopOption = Option.flag("--stop", help: "Stop the home's server and wait until it is gone.")

  enum Action: Equatable {
    case serve(ServerConfiguration)
    case status
    case stop
  }

  var action: Action

  init(_ parsed: ParsedCommand) throws {
    let status = parsed.flag(Self.statusOption)
    let stop = parsed.flag(Self.stopOption)
    let settings = [Shell.idleOption, Self.exitAfterOption, Self.maximumOption, Self.budgetOption]
      .filter { parsed.value($0) != nil }.map(\.key)
    if status && stop { throw HostError(.usage, "--status and --stop go alone; give one") }
    if status || stop, let setting = settings.first {
      throw HostError(.usage, "\(setting) sets up a server; \(status ? "--status" : "--stop") takes no setting")
    }
    if status {
      action = .status
      return
    }
    if stop {
      action = .stop
      return
    }
    var configuration = ServerConfiguration()
    configuration.idle = try Shell.idleTime(parsed.value(Shell.idleOption))
    if let text = parsed.value(Self.exitAfterOption) {
      let never = text.allSatisfy { "0.".contains($0) } && Double(text) == 0
      configuration.exitAfter = never ? nil : try Self.seconds(text, option: "--exit-after")
    }
    if let text = parsed.value(Self.maximumOption) {
      guard let count = Int(text), (1...64).contains(count) else {
        throw HostError(.usage, "--max-extensions needs a whole number from 1 to 64, not \"\(text)\"")
      }
      configuration.maximumExtensions = count
    }
    if let text = parsed.value(Self.budgetOption) {
      guard let megabytes = Int(text), (1...65_536).contains(megabytes) else {
        throw HostError(.usage, "--memory-budget needs a number of MiB from 1 to 65536, not \"\(text)\"")
      }
      configuration.memoryBudget = megabytes << 20
    }
    action = .serve(configuration)
  }

  /// A number of seconds as `--idle` takes them.
  static func seconds(_ text: String, option: String) throws -> Duration {
    do { return try Shell.idleTime(text) } catch {
      throw HostError(.usage, "\(option) needs a number of seconds above 0 and at most 86400, not \"\(text)\"")
    }
  }

  func run(in context: CommandContext) async throws -> Int32 {
    let home = try context.home()
    switch action {
    case .status:
      guard let status = try await ServerClient(home: home).status() else {
        throw HostError(.noMatch, "no server runs for \(home.root.path); start one with assistant serve")
      }
      if context.json {
        try await context.output(json: status)
      } else {
        try await context.output(Untrusted.shown(Self.text(status), multiline: true))
      }
    case .stop:
      let stopped = try await ServerClient(home: home).stop()
      if context.json {
        try await context.output(json: ["stopped": stopped])
      } else {
        try await context.output(
          stopped.map { "stopped the server of \(home.root.path) (pid \($0))" }
            ?? "no server runs for \(home.root.path)")
      }
    case .serve(let configuration):
      let server = ExtensionServer(home: home, configuration: configuration)
      try await server.run { pid, socket in
        if context.json {
          struct Ready: Encodable {
            var pid: Int32
            var home: String
            var socket: String
          }
          try? await context.output(json: Ready(pid: pid, home: home.root.path, socket: socket))
        }
      }
    }
    return ExitStatus.success.rawValue
  }

  /// `--status` for a person: the server, then one line per extension.
  static func text(_ status: ServerStatus) -> String {
    let inUse = status.extensions.filter(\.lent).count
    var lines = [
      "server of \(status.home): pid \(status.pid), \(status.extensions.count - inUse) extension"
        + "\(status.extensions.count - inUse == 1 ? "" : "s") kept idle (at most \(status.maximumExtensions)), \(inUse) "
        + "in use; shut down after \(status.idleSeconds) s idle"
    ]
    for kept in status.extensions {
      let memory = kept.privateBytes.map { String(format: ", %.1f MiB private", Double($0) / 1_048_576) } ?? ""
      let use = kept.lent ? "in use" : String(format: "idle %.1f s", kept.idleSeconds)
      lines.append(
        "  \(kept.name) (\(kept.bundleIdentifier), \(kept.locale)): pid \(kept.pid), \(use), \(kept.runs) "
          + "run\(kept.runs == 1 ? "" : "s")\(memory)")
    }
    return lines.joined(separator: "\n")
  }
}
