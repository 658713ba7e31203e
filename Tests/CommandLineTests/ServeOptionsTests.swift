import AssistantHost
import Testing

@testable import assistant

/// `assistant serve`'s options and which calls use a server, in-process.
extension ServerConfiguration {
  /// The defaults, but running until stopped.
  static var never: ServerConfiguration {
    var configuration = ServerConfiguration()
    configuration.exitAfter = nil
    return configuration
  }
}

@Suite(.tags(.unit)) struct ServeOptionsTests {
  let parser = CommandLineParser(root: RootCommand.self)

  func serve(_ arguments: [String]) throws -> Serve {
    guard case .run(_, let parsed) = try parser.parse(["serve"] + arguments) else {
      throw HostError(.usage, "not a run of serve")
    }
    return try Serve(parsed)
  }

  @Test func theSettingsReachTheServer() throws {
    var expected = ServerConfiguration()
    #expect(try serve([]).action == .serve(expected))
    expected.idle = .milliseconds(1500)
    expected.exitAfter = nil
    expected.maximumExtensions = 2
    expected.memoryBudget = 64 << 20
    #expect(
      try serve(["--idle", "1.5", "--exit-after", "0", "--max-extensions", "2", "--memory-budget", "64"]).action
        == .serve(expected))
    for never in ["0", "00", "0.0", ".0"] {
      #expect(try serve(["--exit-after", never]).action == .serve(ServerConfiguration.never), "\(never)")
    }
    #expect(try serve(["--status"]).action == .status)
    #expect(try serve(["--stop", "--json"]).action == .stop)
  }

  @Test(arguments: [
    (["--status", "--stop"], "--status and --stop go alone"),
    (["--status", "--idle", "5"], "--idle sets up a server; --status takes no setting"),
    (["--max-extensions", "0"], "--max-extensions needs a whole number from 1 to 64, not \"0\""),
    (["--max-extensions", "65"], "from 1 to 64"),
    (["--memory-budget", "-1"], "--memory-budget needs a number of MiB"),
    (["--exit-after", "-3"], "--exit-after needs a number of seconds"),
    (["--exit-after", "."], "--exit-after needs a number of seconds"),
    (["--idle", "0"], "--idle needs a number of seconds above 0"),
  ])
  func aBadSettingIsAUsageError(arguments: [String], message: String) throws {
    let error = try #require(throws: HostError.self) { try serve(arguments) }
    #expect(error.status == .usage)
    #expect(error.message.contains(message), "\(error.message)")
  }

  /// `ask`, `run` and an utterance use the home's server unless told not to; a changed confinement starts its own.
  @Test func whichCallsUseTheServer() throws {
    func launch(_ arguments: [String]) throws -> LaunchOptions {
      guard case .run(let command, let parsed) = try parser.parse(arguments) else {
        throw HostError(.usage, "not a run")
      }
      switch command {
      case is Run.Type: return try Run(parsed).launch
      case is Ask.Type: return try Ask(parsed).launch
      case is RootCommand.Type: return try RootCommand(parsed).ask.launch
      default: throw HostError(.usage, "not a launch")
      }
    }
    for arguments in [["run", "Rooms", "BookRoom"], ["ask", "Book", "room"], ["Book room 12 with Rooms"]] {
      let options = try launch(arguments)
      #expect(options.usesServer && !options.confinementChanged, "\(arguments)")
      #expect(!(try launch(arguments + ["--no-server"])).usesServer, "\(arguments)")
      for changed in [["--no-sandbox"], ["--memory-limit", "40"], ["--cpu-limit", "3"], ["--storage-limit", "9"]] {
        #expect(try launch(arguments + changed).confinementChanged, "\(arguments + changed)")
      }
    }
  }
}
