// What `assistant serve` and the CLI calls that use it say to each other over the home's socket: a first frame each
// way (the lend, carrying the extension's pipes), then JSON-RPC about the lent process. Both ends are this host, the
// same build (the version is checked first): the messages are internal, not part of docs/PROTOCOL.md.
import ExtensionProtocol
import Foundation
import IntentHostSystem

/// The socket and the lock of a home's server.
enum ServeFiles {
  /// `<home>/serve.sock`: the server's socket (mode 0600).
  static let socket = "serve.sock"
  /// `<home>/serve.lock`: held (`flock`) by the running server, which writes its pid in it.
  static let lock = "serve.lock"
}

/// The first frame a client sends.
struct ServeRequest: Codable, Sendable {
  /// The host's version: a server of another build refuses, and the client runs without it.
  var version: String
  /// The home the client means, as it opened it: a server of another home (reached through a link) refuses.
  var home: FolderIdentity?
  var lend: LendRequest?
  /// Asks what the server keeps (`assistant serve --status`).
  var status: Bool?
  /// Asks the server to stop (`assistant serve --stop`).
  var stop: Bool?
}

/// What the client asks to borrow: an extension of an installed app, started for `locale`.
struct LendRequest: Codable, Sendable {
  /// The app's folder in the home's Applications, "Rooms.app" (a name, nothing else).
  var appFolder: String
  /// The extension's bundle identifier.
  var bundleIdentifier: String
  var locale: String
  /// Where the call's app groups are (`ASSISTANT_APP_GROUPS`): a server whose are elsewhere cannot lend to it.
  var appGroups: String
}

/// The first frame the server sends back.
struct ServeReply: Codable, Sendable {
  /// Sent at once when a lend is taken, before the extension is found or started: the server is alive, and the call
  /// may wait longer for the lend itself (a start under load).
  var working: Bool?
  var lent: LentExtension?
  /// Why it lends nothing: what a launch of its own would have said (a refusal, a fault), as the run should end.
  var refused: Refusal?
  /// Another build: the client runs without it.
  var otherVersion: String?
  /// Why the server cannot serve this caller (another user, another app groups folder): the call runs without it.
  var unusable: String?
  var status: ServerStatus?
  var stopping: Bool?

  struct Refusal: Codable, Sendable {
    var status: Int32
    var message: String
  }
}

/// A lent extension: its pipes ride on the frame (stdin's write end, stdout's read end).
struct LentExtension: Codable, Sendable {
  var pid: Int32
  var containerPath: String
  var appGroups: [AppGroupLocation]
  /// What it answered `initialize`, when a run before this one did the handshake; nil for a process just started.
  var handshake: InitializeResult?
  /// The id its next request gets (requests go on from those of the runs before).
  var nextRequestNumber: Int
  /// The launch's storage check: what the run tells its user of a full folder when it ends.
  var storage: StorageCheck?
}

/// What a server keeps (`assistant serve --status`).
package struct ServerStatus: Codable, Sendable, Equatable {
  package struct Kept: Codable, Sendable, Equatable {
    package var bundleIdentifier: String
    package var name: String
    package var pid: Int32
    package var locale: String
    /// Lent to a run now (else idle).
    package var lent: Bool
    /// How long it has been idle, in seconds (0 while lent).
    package var idleSeconds: Double
    /// Its private memory (`smaps_rollup`), bytes; nil when it cannot be read.
    package var privateBytes: Int?
    /// How many runs it has served.
    package var runs: Int
  }
  package var pid: Int32
  package var home: String
  package var version: String
  package var extensions: [Kept]
  package var idleSeconds: Double
  package var exitAfterSeconds: Double
  package var maximumExtensions: Int
  package var memoryBudgetBytes: Int
}

/// How a lent process ended, pushed to the borrower as it ends (`lend/ended`) and answered by kill, wait and tear-down.
struct LentEnding: Codable, Sendable, Equatable {
  /// The exit status, or nil when a signal ended it.
  var exitStatus: Int32?
  var signal: Int32?
  var killedForMemory: Bool
  /// Why a signal ended it, in words ("was killed for using too much memory (...)").
  var killDescription: String?

  var termination: Termination { signal.map(Termination.signalled) ?? .exited(exitStatus ?? 0) }
}

/// `lend/kill`: kill it now.
struct LendKillRequest: RequestMessage {
  typealias Response = LentEnding
  static let method = "lend/kill"
}

/// `lend/wait`: its ending, or nil after `milliseconds`.
struct LendWaitRequest: RequestMessage {
  typealias Response = LentEnding?
  static let method = "lend/wait"
  var milliseconds: Int
}

/// `lend/tearDown`: the timed teardown (wait, SIGTERM, SIGKILL).
struct LendTearDownRequest: RequestMessage {
  typealias Response = LentEnding
  static let method = "lend/tearDown"
  var graceMilliseconds: Int
  var termGraceMilliseconds: Int
}

/// `lend/lastStderrLine`.
struct LendLastStderrLineRequest: RequestMessage {
  typealias Response = String?
  static let method = "lend/lastStderrLine"
}

/// `lend/return`: the run is done with it, healthy; the server keeps it for the next.
struct LendReturnRequest: RequestMessage {
  struct Response: Codable, Sendable {}
  static let method = "lend/return"
  var handshake: InitializeResult
  var nextRequestNumber: Int
}

/// `lend/log`: a line for its log.
struct LendLogNotification: NotificationMessage {
  static let method = "lend/log"
  var line: String
}

/// `lend/signal`: a signal to its process group (a fault plan's SIGSTOP and SIGCONT).
struct LendSignalNotification: NotificationMessage {
  static let method = "lend/signal"
  var signal: Int32
}

/// `lend/ended` (server to client): it ended while lent.
struct LendEndedNotification: NotificationMessage {
  static let method = "lend/ended"
  var ending: LentEnding
}
