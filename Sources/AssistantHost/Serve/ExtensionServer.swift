// `assistant serve`: extensions kept running between CLI calls, lent to each call over the home's socket.
import AppGroupStore
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision
import Synchronization

/// How long a server keeps what, and how much.
package struct ServerConfiguration: Sendable, Equatable {
  /// An extension not lent for this long is shut down (as iOS keeps an extension briefly after a request).
  package var idle: Duration = .seconds(60)
  /// The server ends once it has kept nothing for this long; nil: it runs until stopped.
  package var exitAfter: Duration? = .seconds(600)
  /// At most this many extensions are kept; past it, the one idle longest is shut down.
  package var maximumExtensions = 8
  /// The private memory of the kept extensions, together; past it, the ones idle longest are shut down.
  package var memoryBudget = 256 << 20

  package init() {}
}

/// The server of one home: it starts extensions as a run would (the same `PreparedLaunch`, sandbox and limits, with
/// the default policy), lends each to one CLI call at a time by passing its pipes over the socket, and keeps it when
/// the call gives it back healthy. The call talks to the extension itself (no hop through the server); the server
/// stays its parent, reaps it, and answers the call's kill, wait and tear-down. A call that vanishes while it holds
/// an extension leaves it in an unknown state: it is killed.
///
/// Only the user who runs it may connect: the socket is mode 0600 in the home, and the kernel's record of each
/// peer's uid (`SO_PEERCRED`) must be the server's own.
package final class ExtensionServer: Sendable {
  package let home: AssistantHome
  package let configuration: ServerConfiguration
  /// Where the server's lines go (stderr): started, shut down, stopping.
  private let report: @Sendable (String) async -> Void

  private struct Entry: Sendable {
    var key: Key
    var name: String
    var process: SupervisedProcess
    /// The write end of its stdin and the read end of its stdout: the server's own copies, lent as copies.
    var input: FileDescriptor
    var output: FileDescriptor
    var containerPath: String
    var appGroups: [AppGroupLocation]
    var executable: String
    var version: ExecutableVersion?
    /// Its CPU time limit (`RLIMIT_CPU`), which counts across runs; nil without one.
    var cpuLimit: Duration?
    /// The launch's storage check: its folders, checked before each lend, and told to each run.
    var storage: StorageCheck?
    /// The container and app-group folders it was confined to, as they were: one made again is not its any more.
    var folders: [String: FolderIdentity?]
    var handshake: InitializeResult?
    var nextRequestNumber = 1
    var idleSince = ContinuousClock.now
    var lent = true
    var runs = 0
  }

  private struct Key: Hashable, Sendable {
    var appFolder: String
    var bundleIdentifier: String
    var locale: String
  }

  private struct State {
    var entries: [Int: Entry] = [:]
    var nextEntry = 0
    /// When an extension was last kept or lent: the server ends `exitAfter` later once nothing is kept.
    var lastActivity = ContinuousClock.now
    /// The timer's wait, resumed when something changes.
    var waiter: CheckedContinuation<Void, Never>?
    var changes = 0
    var stopRequested = false
    /// Set once the server has decided to end: lends are refused (the call starts its own extensions).
    var stopping = false
  }

  private let state = Mutex(State())
  /// The home's folder, as the server opened it.
  private let homeFolder = Mutex<FolderIdentity?>(nil)
  private var homeIdentity: FolderIdentity? { homeFolder.withLock { $0 } }
  /// The connections being served now.
  private let open = Atomic(0)
  /// The most connections served at once (each lent extension holds one).
  static let maximumConnections = 64

  package init(
    home: AssistantHome, configuration: ServerConfiguration,
    report: @escaping @Sendable (String) async -> Void = { await writeHostMessage($0) }
  ) {
    self.home = home
    self.configuration = configuration
    self.report = report
  }

  // MARK: - Running

  /// Serves until the task is cancelled, `assistant serve --stop`, or `exitAfter` with nothing kept; every extension
  /// is shut down (a lent one killed) and the socket removed before it returns.
  /// - Throws: `HostError(.cannotCreate)` when another server holds the home, or the socket cannot be made.
  /// - Parameter ready: called once the socket listens, with the server's pid and the socket's path.
  package func run(ready: @Sendable (Int32, String) async -> Void = { _, _ in }) async throws {
    try await home.prepare()
    let folder = try openHome()
    defer { folder.close() }
    homeFolder.withLock { $0 = FolderIdentity(folder) }
    let lock = try takeLock(in: folder)
    defer {
      _ = unlinkat(folder.descriptor.rawValue, ServeFiles.socket, 0)
      lock.close()
    }
    _ = unlinkat(folder.descriptor.rawValue, ServeFiles.socket, 0)  // a stale one: the lock says nobody serves
    let listener: FileDescriptor
    do {
      listener = try UnixSocket.listen(in: folder, name: ServeFiles.socket)
      try listener.setNonBlocking(true)
    } catch {
      throw HostError(.cannotCreate, "cannot make the server's socket \(socketPath): \(error)")
    }
    let stopListening = try? FileDescriptor.wakeEvent()
    defer {
      listener.close()
      stopListening?.close()
    }
    await report(
      "serving \(home.root.path) at \(socketPath) (pid \(getpid())): extensions kept \(WarmExtensions.seconds(configuration.idle)) after use, "
        + "at most \(configuration.maximumExtensions), \(configuration.memoryBudget >> 20) MiB together"
        + (configuration.exitAfter.map { "; the server ends after \(WarmExtensions.seconds($0)) with none kept" } ?? "")
    )
    await ready(getpid(), socketPath)
    let stopped = Flag()
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.accept(on: listener, until: stopListening, stopped: stopped) }
      await self.keepTime()
      stopped.set()
      state.withLock { $0.stopping = true }
      if let stopListening {
        var one: UInt64 = 1
        _ = Glibc.write(stopListening.rawValue, &one, 8)
      }
      // From now on a call finds no socket and starts its own extensions.
      _ = unlinkat(folder.descriptor.rawValue, ServeFiles.socket, 0)
      if !Task.isCancelled {
        // Asked to stop, or nothing kept: the calls holding an extension finish their runs first, 10 s at most.
        group.addTask { try? await Task.sleep(for: .seconds(10)) }
        await group.next()
      }
      group.cancelAll()
    }
    await shutDownAll()
  }

  private var socketPath: String { home.root.appendingPathComponent(ServeFiles.socket).path }

  private func openHome() throws -> DirectoryDescriptor {
    do { return try DirectoryDescriptor.openTrusted(home.root.path) } catch {
      throw HostError(.cannotCreate, "cannot open the home \(home.root.path): \(error)")
    }
  }

  /// Takes `serve.lock` for the life of the server and writes the pid in it.
  private func takeLock(in folder: DirectoryDescriptor) throws -> FileDescriptor {
    let fd = openat(folder.descriptor.rawValue, ServeFiles.lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw HostError(.cannotCreate, "cannot open \(folder.path)/\(ServeFiles.lock): \(SystemError.current("open"))")
    }
    let lock = FileDescriptor(rawValue: fd)
    do {
      guard try tryLockFile(lock, exclusive: true) else {
        let owner = (try? lock.readAll(limit: 32)).flatMap {
          Int32(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        lock.close()
        throw HostError(
          .cannotCreate,
          "a server already serves \(home.root.path)\(owner.map { " (pid \($0))" } ?? ""); stop it with "
            + "assistant serve --stop, or serve another home with --home")
      }
      _ = ftruncate(fd, 0)
      try lock.writeAll(Array("\(getpid())\n".utf8))
    } catch let error as HostError {
      throw error
    } catch {
      lock.close()
      throw HostError(.cannotCreate, "cannot take \(folder.path)/\(ServeFiles.lock): \(error)")
    }
    return lock
  }

  /// Accepts connections until the task is cancelled or `stopped` is set (and `stop` is signalled), each served by
  /// a task of its own; it returns once the connections have ended.
  private func accept(on listener: FileDescriptor, until stop: FileDescriptor?, stopped: Flag) async {
    // Discarding: a connection's task is gone once it ends (a server up for days serves millions).
    await withDiscardingTaskGroup { connections in
      while !Task.isCancelled && !stopped.isSet {
        let accepted = await offloaded { () -> FileDescriptor? in
          var entries = [pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0)]
          if let stop { entries.append(pollfd(fd: stop.rawValue, events: Int16(POLLIN), revents: 0)) }
          guard poll(&entries, nfds_t(entries.count), stop == nil ? 250 : -1) > 0, entries[0].revents != 0 else {
            return nil
          }
          return try? UnixSocket.accept(listener)
        }
        guard let accepted else { continue }
        // At most `maximumConnections` at once (each lend holds one): past it, closed at once; the call starts its
        // own extensions.
        guard open.add(1, ordering: .relaxed).newValue <= Self.maximumConnections else {
          open.subtract(1, ordering: .relaxed)
          connections.addTask {
            _ = try? accepted.setNonBlocking(true)
            await self.send(
              ServeReply(unusable: "it is serving \(Self.maximumConnections) calls already"), on: accepted)
            accepted.close()
          }
          continue
        }
        connections.addTask {
          await self.serve(accepted)
          self.open.subtract(1, ordering: .relaxed)
        }
      }
    }
  }

  /// Waits, shutting down what has been idle too long, until stopped or `exitAfter` with nothing kept.
  private func keepTime() async {
    while !Task.isCancelled {
      let now = ContinuousClock.now
      let (expired, next, changes, done) = state.withLock { state in
        let expired = state.entries.filter { !$0.value.lent && now - $0.value.idleSince >= configuration.idle }
        for key in expired.keys { state.entries[key] = nil }
        var next = state.entries.values.filter { !$0.lent }.map { $0.idleSince + configuration.idle }.min()
        var done = state.stopRequested
        if state.entries.isEmpty, let exitAfter = configuration.exitAfter {
          if now - state.lastActivity >= exitAfter { done = true }
          next = state.lastActivity + exitAfter
        }
        return (Array(expired.values), next, state.changes, done)
      }
      for entry in expired {
        await shutDown(entry, because: "idle for \(WarmExtensions.seconds(configuration.idle))")
      }
      if done {
        if state.withLock({ $0.stopRequested }) {
          await report("stopping: asked to by assistant serve --stop")
        } else {
          await report("stopping: no extension kept for \(WarmExtensions.seconds(configuration.exitAfter ?? .zero))")
        }
        return
      }
      if !expired.isEmpty { continue }
      await waitForChange(after: changes, until: next)
    }
  }

  /// Waits until the state changes after `changes`, `deadline` passes, or the task is cancelled.
  private func waitForChange(after changes: Int, until deadline: ContinuousClock.Instant?) async {
    await withTaskGroup(of: Void.self) { group in
      if let deadline { group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) } }
      group.addTask {
        await withTaskCancellationHandler {
          await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = self.state.withLock { state -> Bool in
              if state.changes != changes || Task.isCancelled { return true }
              state.waiter = continuation
              return false
            }
            if ready { continuation.resume() }
          }
        } onCancel: {
          self.state.withLock { state in
            defer { state.waiter = nil }
            return state.waiter
          }?.resume()
        }
      }
      await group.next()
      group.cancelAll()
    }
  }

  /// Records a change and wakes the timer.
  private func changed(_ body: (inout State) -> Void = { _ in }) {
    state.withLock { state in
      body(&state)
      state.changes += 1
      state.lastActivity = .now
      defer { state.waiter = nil }
      return state.waiter
    }?.resume()
  }

  // MARK: - One connection

  /// The first frame of a connection, and what it asks: a lend, the status, or the stop.
  private func serve(_ socket: FileDescriptor) async {
    var handedToLend = false
    defer { if !handedToLend { socket.close() } }
    // The request is read first (64 KiB and 2 s at most), so that even a refused caller reads why.
    guard (try? socket.setNonBlocking(true)) != nil,
      let frame = try? await offloaded({ () throws(SystemError) in
        try UnixSocket.receiveFrame(from: socket, limit: 64 << 10, timeoutMilliseconds: 2000)
      })
    else { return }
    for passed in frame.descriptors { passed.close() }  // a request carries none
    // Only the server's own user: the kernel recorded who connected.
    guard let peer = try? UnixSocket.peerCredentials(of: socket), peer.uid == getuid() else {
      let who = (try? UnixSocket.peerCredentials(of: socket)).map { "uid \($0.uid), pid \($0.pid)" } ?? "unknown"
      await report("refused a connection from \(who): only uid \(getuid()) may use this server")
      await send(ServeReply(unusable: "it serves uid \(getuid()) only"), on: socket)
      return
    }
    guard let request = try? JSONDecoder().decode(ServeRequest.self, from: Data(frame.payload)) else { return }
    guard request.home == nil || request.home == homeIdentity else {
      // Its socket reached through a link from another home: that home's calls are not this server's.
      await send(ServeReply(unusable: "it serves another home, \(home.root.path)"), on: socket)
      return
    }
    guard request.version == hostVersion else {
      await send(ServeReply(otherVersion: hostVersion), on: socket)
      return
    }
    if request.status == true {
      await send(ServeReply(status: await status()), on: socket)
    } else if request.stop == true {
      await send(ServeReply(stopping: true), on: socket)
      changed { $0.stopRequested = true }
    } else if let lend = request.lend {
      if state.withLock({ $0.stopping }) {
        await send(ServeReply(unusable: "it is stopping"), on: socket)
        return
      }
      guard await send(ServeReply(working: true), on: socket) else { return }
      handedToLend = await self.lend(lend, on: socket)
    }
  }

  /// Sends a reply frame (and descriptors); false when the client is gone.
  @discardableResult
  private func send(_ reply: ServeReply, descriptors: [FileDescriptor] = [], on socket: FileDescriptor) async -> Bool {
    guard let payload = try? JSONEncoder().encode(reply) else { return false }
    return
      (try? await offloaded { () throws(SystemError) in
        try UnixSocket.sendFrame(
          Array(payload), descriptors: descriptors, on: socket, timeoutMilliseconds: 2000)
      }) != nil
  }

  /// Lends the extension asked for: a kept one, or one started now. Returns whether the socket now belongs to the
  /// lend (its control connection).
  private func lend(_ request: LendRequest, on socket: FileDescriptor) async -> Bool {
    guard (1...64).contains(request.locale.count),
      request.locale.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-@.".contains($0)) })
    else {
      await send(ServeReply(refused: .init(status: ExitStatus.usage.rawValue, message: "not a locale")), on: socket)
      return false
    }
    guard request.appGroups == home.appGroupsRoot.path else {
      await send(
        ServeReply(unusable: "its app groups are \(home.appGroupsRoot.path), this call's \(request.appGroups)"),
        on: socket)
      return false
    }
    let key = Key(appFolder: request.appFolder, bundleIdentifier: request.bundleIdentifier, locale: request.locale)
    var (id, stale) = await takeKept(key)
    for (entry, reason) in stale { await shutDown(entry, because: reason) }
    if let kept = id, let entry = state.withLock({ $0.entries[kept] }), let refusal = await overBudget(entry) {
      giveBack(kept, handshake: entry.handshake, nextRequestNumber: entry.nextRequestNumber, counting: false)
      entry.process.appendHostLine("fault: \(refusal)")
      await send(ServeReply(refused: .init(status: ExitStatus.refused.rawValue, message: refusal)), on: socket)
      return false
    }
    if id == nil {
      do {
        id = try await start(key)
      } catch {
        let refusal = HostError(reporting: error)
        await send(
          ServeReply(refused: .init(status: refusal.status.rawValue, message: refusal.message)), on: socket)
        return false
      }
    }
    guard let id, let entry = state.withLock({ $0.entries[id] }) else { return false }
    entry.process.renewLogAllowance()
    let lent = LentExtension(
      pid: entry.process.pid, containerPath: entry.containerPath, appGroups: entry.appGroups,
      handshake: entry.handshake, nextRequestNumber: entry.nextRequestNumber,
      storage: entry.storage)
    guard await send(ServeReply(lent: lent), descriptors: [entry.input, entry.output], on: socket) else {
      // The call left before it got it: the process is as it was.
      giveBack(id, handshake: entry.handshake, nextRequestNumber: entry.nextRequestNumber)
      return false
    }
    await control(id, entry: entry, socket: socket)
    return true
  }

  /// Takes a kept, healthy, up-to-date extension for `key` (marking it lent), and removes those that are stale.
  private func takeKept(_ key: Key) async -> (Int?, [(Entry, String)]) {
    let candidates = state.withLock { state in state.entries.filter { $0.value.key == key && !$0.value.lent } }
    // Checked off the lock and the pool (a stat of the executable and of each folder): what changed under a kept
    // process makes it stale, as a launch now would differ.
    let verdicts = await offloaded { () -> [Int: String?] in
      candidates.mapValues { entry -> String? in
        if entry.process.termination != nil { return "it had ended" }
        if ExecutableVersion(path: entry.executable) != entry.version { return "its bundle was installed again" }
        if entry.folders.contains(where: { FolderIdentity(path: $0.key) != $0.value }) {
          return "its container or an app group was made again"
        }
        // Its CPU time (RLIMIT_CPU) counts across the runs it serves: past half of it, a new process gets the
        // whole allowance a launch would.
        if let limit = entry.cpuLimit, let used = entry.process.cpuTimeUsed(), used * 2 > limit {
          return "it has used \(used.inSeconds) s of its \(limit.inSeconds) s of CPU time"
        }
        return nil
      }
    }
    var taken: Int?
    var stale: [(Entry, String)] = []
    changed { state in
      for (id, verdict) in verdicts.sorted(by: { $0.key < $1.key }) {
        guard let entry = state.entries[id], !entry.lent else { continue }
        if let verdict {
          stale.append((entry, verdict))
          state.entries[id] = nil
        } else if taken == nil {
          taken = id
          state.entries[id]?.lent = true
        }
      }
    }
    return (taken, stale)
  }

  /// The check a launch makes of its container and app groups before it runs (`--storage-limit` aside: such calls
  /// start their own): a kept process is not lent while one of them is over the home's budget.
  /// - Returns: the refusal a launch would give; nil when within the budget, or volumes enforce it.
  private func overBudget(_ entry: Entry) async -> String? {
    let home = self.home
    return await offloaded { () -> String? in
      guard let storage = entry.storage, let settings = try? home.storageSettings(),
        settings.enforcement == .checked
      else { return nil }
      for folder in storage.folders {
        let usage = StorageUsage.measure(folder.what, path: folder.path, budget: settings.effectiveBudget)
        if usage.isOver { return usage.refusal("\(entry.name) (\(entry.key.bundleIdentifier))") }
      }
      return nil
    }
  }

  /// Starts the extension `key` names, as a run would; it is lent when this returns.
  /// - Throws: `HostError`, what the launch would have thrown in the call.
  private func start(_ key: Key) async throws -> Int {
    let folder = try AssistantHome.pathComponent(key.appFolder, "app folder")
    guard folder.hasSuffix(".app") else {
      throw HostError(.dataError, "\"\(key.appFolder)\" is not an app's folder in \(home.applications.path)")
    }
    let home = self.home
    let (process, launch, target) = try await offloaded {
      () throws -> (SupervisedProcess, PreparedLaunch, SessionTarget) in
      let app = try AppBundle.load(from: home.applications.appendingPathComponent(folder))
      guard
        let target = app.extensions.first(where: { $0.info.bundleIdentifier == key.bundleIdentifier }).map({
          SessionTarget($0, app: app)
        })
          ?? app.appIntentsExtensions.first(where: { $0.info.bundleIdentifier == key.bundleIdentifier }).map({
            SessionTarget($0, app: app)
          })
      else {
        throw HostError(.noMatch, "\(app.name) has no extension \(key.bundleIdentifier) (was it installed again?)")
      }
      let launch = try PreparedLaunch(target, home: home, locale: key.locale, policy: SandboxPolicy())
      let process = try startProcess(launch.specification, label: "\(target.name) (\(target.bundleIdentifier))")
      return (process, launch, target)
    }
    let entry = Entry(
      key: key, name: target.name, process: process, input: process.standardInput!, output: process.standardOutput!,
      containerPath: launch.container.path, appGroups: launch.appGroups, executable: target.executable,
      version: ExecutableVersion(path: target.executable),
      cpuLimit: launch.specification.sandbox.flatMap { $0.cpuSeconds > 0 ? .seconds($0.cpuSeconds) : nil },
      storage: launch.storage,
      folders: Dictionary(
        ([launch.container.path] + launch.appGroups.map(\.path)).map { ($0, FolderIdentity(path: $0)) },
        uniquingKeysWith: { first, _ in first }))
    var id = 0
    changed { state in
      id = state.nextEntry
      state.nextEntry += 1
      state.entries[id] = entry
    }
    await report("started \(target.name) (\(target.bundleIdentifier), pid \(process.pid))")
    return id
  }

  /// Serves the call's requests about the lent process until it gives it back or goes.
  private func control(_ id: Int, entry: Entry, socket: FileDescriptor) async {
    guard let output = try? socket.duplicate() else {
      socket.close()
      await kill(id, because: "its connection failed")
      return
    }
    let connection = Connection(
      input: socket, output: output, options: Connection.Options(maximumMessageSize: 1 << 20, peerName: "a call"))
    let returned = Flag()
    let (messages, continuation) = AsyncStream.makeStream(of: InboundMessage?.self)
    connection.start { message in continuation.yield(message) }
    await withTaskGroup(of: Void.self) { group in
      // Pushes the ending to the call when the process ends while lent.
      group.addTask {
        guard let termination = await entry.process.waitForExit() else { return }
        if !returned.isSet {
          try? connection.notify(LendEndedNotification(ending: self.ending(entry.process, termination)))
        }
      }
      for await message in messages {
        guard let message else { break }
        await handle(message, id: id, entry: entry, connection: connection, returned: returned)
        if returned.isSet { break }
      }
      if !returned.isSet {
        await kill(
          id,
          because: Task.isCancelled
            ? "the server stopped while a call held it" : "the call that held it went away before giving it back")
      }
      group.cancelAll()
    }
    connection.closeOutput()
    _ = await connection.waitUntilOutputClosed()
    connection.close()
  }

  private func handle(
    _ message: InboundMessage, id: Int, entry: Entry, connection: Connection, returned: Flag
  ) async {
    let process = entry.process
    func reply<R: Codable & Sendable>(_ result: R) {
      if case .request(let requestID) = message.kind { try? connection.reply(to: requestID, with: result) }
    }
    switch message.method {
    case LendKillRequest.method:
      reply(ending(process, await process.kill()))
    case LendWaitRequest.method:
      let milliseconds = (try? message.params(LendWaitRequest.self))?.milliseconds ?? 0
      let ended = await process.waitForExit(timeout: .milliseconds(max(0, min(milliseconds, 60_000))))
      reply(ended.map { ending(process, $0) })
    case LendTearDownRequest.method:
      let request = try? message.params(LendTearDownRequest.self)
      let termination = await process.tearDown(
        grace: .milliseconds(max(0, min(request?.graceMilliseconds ?? 500, 60_000))),
        termGrace: .milliseconds(max(0, min(request?.termGraceMilliseconds ?? 500, 60_000))))
      reply(ending(process, termination))
    case LendLastStderrLineRequest.method:
      reply(await process.lastStderrLine())
    case LendLogNotification.method:
      if let line = try? message.params(LendLogNotification.self).line { process.appendHostLine(line) }
    case LendSignalNotification.method:
      // Only the signals a fault plan sends; the process group is the lent process's own.
      if let signal = try? message.params(LendSignalNotification.self).signal, [SIGSTOP, SIGCONT].contains(signal) {
        process.signalGroup(signal)
      }
    case LendReturnRequest.method:
      guard let request = try? message.params(LendReturnRequest.self), process.termination == nil else {
        if case .request(let requestID) = message.kind {
          let why = process.termination == nil ? "its params are not a return's" : "it has ended"
          try? connection.reply(to: requestID, error: ResponseError(.invalidRequest, "not returned: \(why)"))
        }
        return
      }
      // Whatever the call did to it (a fault plan's SIGSTOP), it runs when kept.
      process.signalGroup(SIGCONT)
      returned.set()
      giveBack(id, handshake: request.handshake, nextRequestNumber: request.nextRequestNumber)
      reply(LendReturnRequest.Response())
      await enforceLimits()
    default:
      if case .request(let requestID) = message.kind {
        try? connection.reply(to: requestID, error: ResponseError(.methodNotFound, "no \(message.method) here"))
      }
    }
  }

  private func giveBack(_ id: Int, handshake: InitializeResult?, nextRequestNumber: Int, counting: Bool = true) {
    changed { state in
      state.entries[id]?.lent = false
      state.entries[id]?.idleSince = .now
      state.entries[id]?.handshake = handshake
      state.entries[id]?.nextRequestNumber = nextRequestNumber
      if counting { state.entries[id]?.runs += 1 }
    }
  }

  private func ending(_ process: SupervisedProcess, _ termination: Termination) -> LentEnding {
    switch termination {
    case .exited(let code):
      return LentEnding(exitStatus: code, signal: nil, killedForMemory: false, killDescription: nil)
    case .signalled(let signal):
      return LentEnding(
        exitStatus: nil, signal: signal, killedForMemory: process.wasKilledForMemory,
        killDescription: describeKill(signal, process: process))
    }
  }

  // MARK: - Limits and shutdown

  /// Shuts down the kept extensions idle longest while more than `maximumExtensions` are kept or their private
  /// memory together passes `memoryBudget`.
  private func enforceLimits() async {
    let entries = state.withLock { $0.entries }
    var memory: [Int: Int] = [:]
    for (id, entry) in entries { memory[id] = await offloaded { privateMemory(of: entry.process.pid) } ?? 0 }
    let idleFirst = entries.filter { !$0.value.lent }.sorted { $0.value.idleSince < $1.value.idleSince }
    for id in idleFirst.map(\.key) {
      // Decided on the live state: two returns enforcing at once must not both evict for one excess.
      let removed = state.withLock { state -> (Entry, String)? in
        guard let entry = state.entries[id], !entry.lent else { return nil }
        let total = state.entries.keys.reduce(0) { $0 + (memory[$1] ?? 0) }
        let reason: String
        if state.entries.count > configuration.maximumExtensions {
          reason = "more than \(configuration.maximumExtensions) kept"
        } else if total > configuration.memoryBudget {
          reason =
            "the kept extensions use \(total >> 20) MiB of private memory, over the budget of "
            + "\(configuration.memoryBudget >> 20) MiB"
        } else {
          return nil
        }
        state.entries[id] = nil
        return (entry, reason)
      }
      guard let (entry, reason) = removed else { continue }
      changed()
      await shutDown(entry, because: reason)
    }
  }

  /// The orderly end of a kept extension: `shutdown`, `exit`, then the timed teardown.
  private func shutDown(_ entry: Entry, because reason: String) async {
    entry.process.appendHostLine("\(reason): shut down by assistant serve")
    var options = Connection.Options(peerName: entry.name)
    options.firstRequestNumber = entry.nextRequestNumber
    let connection = Connection(input: entry.output, output: entry.input, options: options)
    connection.start()
    if entry.handshake != nil, entry.process.termination == nil {
      _ = try? await connection.send(ShutdownRequest(), timeout: .seconds(2))
      try? connection.notify(ExitNotification())
    }
    connection.closeOutput()
    await entry.process.tearDown(grace: .seconds(2), termGrace: .milliseconds(500))
    connection.close()
    await report("shut down \(entry.name) (pid \(entry.process.pid)): \(reason)")
  }

  /// Kills a lent extension whose call failed or went.
  private func kill(_ id: Int, because reason: String) async {
    guard let entry = state.withLock({ $0.entries.removeValue(forKey: id) }) else { return }
    changed()
    guard entry.process.termination == nil else {
      // It ended while lent (the call saw it, or tore it down): nothing to kill.
      entry.input.close()
      entry.output.close()
      return
    }
    entry.process.appendHostLine("killed by assistant serve: \(reason)")
    await entry.process.kill()
    entry.input.close()
    entry.output.close()
    await report("killed \(entry.name) (pid \(entry.process.pid)): \(reason)")
  }

  /// Shuts down every kept extension and kills every lent one.
  private func shutDownAll() async {
    let entries = state.withLock { state in
      defer { state.entries.removeAll() }
      return Array(state.entries.values)
    }
    for entry in entries {
      if entry.lent {
        entry.process.appendHostLine("killed by assistant serve: the server stopped")
        await entry.process.kill()
        entry.input.close()
        entry.output.close()
      } else {
        await shutDown(entry, because: "the server stopped")
      }
    }
  }

  /// What the server keeps now.
  package func status() async -> ServerStatus {
    let now = ContinuousClock.now
    let entries = state.withLock { $0.entries.values.sorted { $0.process.pid < $1.process.pid } }
    var kept: [ServerStatus.Kept] = []
    for entry in entries {
      kept.append(
        .init(
          bundleIdentifier: entry.key.bundleIdentifier, name: entry.name, pid: entry.process.pid,
          locale: entry.key.locale, lent: entry.lent,
          idleSeconds: entry.lent ? 0 : (now - entry.idleSince).inSeconds,
          privateBytes: await offloaded { privateMemory(of: entry.process.pid) }, runs: entry.runs))
    }
    return ServerStatus(
      pid: getpid(), home: home.root.path, version: hostVersion, extensions: kept,
      idleSeconds: configuration.idle.inSeconds, exitAfterSeconds: configuration.exitAfter?.inSeconds ?? 0,
      maximumExtensions: configuration.maximumExtensions, memoryBudgetBytes: configuration.memoryBudget)
  }
}

/// A flag set once: a lent extension given back (its end is then no longer the call's news), the server no longer
/// accepting.
private final class Flag: Sendable {
  private let value = Atomic(false)
  var isSet: Bool { value.load(ordering: .acquiring) }
  func set() { value.store(true, ordering: .releasing) }
}

/// Which file a path names now (device, inode, size, modification time): a kept extension whose executable changed
/// (installed again) is not lent again.
struct ExecutableVersion: Sendable, Equatable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modified: Int64

  init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
  }
}

/// Which folder a path names now (device and inode).
struct FolderIdentity: Sendable, Equatable, Codable {
  var device: UInt64
  var inode: UInt64

  init?(path: String) {
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }

  /// The folder open as `folder`.
  init?(_ folder: DirectoryDescriptor) {
    var info = stat()
    guard fstat(folder.descriptor.rawValue, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }
}

/// The private memory of `pid` (`Private_Clean` + `Private_Dirty` of `/proc/PID/smaps_rollup`), bytes; nil when it
/// cannot be read. Blocks: call it off the cooperative pool.
func privateMemory(of pid: Int32) -> Int? {
  guard let fd = try? FileDescriptor.open("/proc/\(pid)/smaps_rollup", O_RDONLY | O_CLOEXEC) else { return nil }
  defer { fd.close() }
  guard let bytes = try? fd.readAll(limit: 64 << 10) else { return nil }
  var kilobytes = 0
  var found = false
  for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n")
  where line.hasPrefix("Private_Clean:") || line.hasPrefix("Private_Dirty:") {
    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
    if fields.count >= 2, let value = Int(fields[1]) {
      kilobytes += value
      found = true
    }
  }
  return found ? kilobytes << 10 : nil
}
