// A CLI call's side of `assistant serve`: borrowing a running extension from the home's server, and the peer that
// stands for the lent process.
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentHostSystem
import ProcessSupervision
import Synchronization

/// The way from one CLI call to its home's server. A call with one takes each extension it needs from the server
/// (running already, or started there) instead of starting it, talks to it directly over the pipes the server
/// passes, and gives it back healthy at the end of its run.
///
/// Without a server (no socket) the call starts its own extensions, as always. A server that is gone (a stale
/// socket), of another build, or that does not answer within `timeout` is passed over the same way, and the call
/// says so once on stderr; it never waits longer than `timeout` for it.
package final class ServerClient: Sendable {
  package let home: AssistantHome
  /// How long the server may take to answer a lend (it starts the extension within it, when none is kept).
  package let timeout: Duration
  private let saidFallback = Mutex(false)
  private let report: @Sendable (String) async -> Void

  /// How long a lend may take once the server said it is working on it (it may start the extension, under load).
  package let lendTimeout: Duration

  package init(
    home: AssistantHome, timeout: Duration = .seconds(2), lendTimeout: Duration = .seconds(30),
    report: @escaping @Sendable (String) async -> Void = { await writeHostMessage($0) }
  ) {
    self.home = home
    self.timeout = timeout
    self.lendTimeout = lendTimeout
    self.report = report
  }

  /// What the exchange of first frames came to.
  private enum Exchange {
    case answered(ServeReply, [FileDescriptor], FileDescriptor)
    /// No socket: no server, nothing to say.
    case none
    /// A server that cannot be used, and why (said once).
    case unusable(String)
  }

  /// Borrows `target`'s extension for `locale`.
  /// - Returns: the lent session's parts (the handshake done when a run before did it); nil when the server cannot
  ///   be used (the run then starts its own).
  /// - Throws: `HostError` the server's launch ended with (a refusal, a fault), as the call's own launch would.
  func lend(_ target: SessionTarget, locale: String, recorder: TranscriptRecorder?) async throws -> LaunchedSession? {
    let request = ServeRequest(
      version: hostVersion,
      lend: LendRequest(
        appFolder: URL(fileURLWithPath: target.appPath).lastPathComponent, bundleIdentifier: target.bundleIdentifier,
        locale: locale, appGroups: home.appGroupsRoot.path))
    switch await exchange(request) {
    case .none: return nil
    case .unusable(let why):
      await fallBack(why)
      return nil
    case .answered(let reply, let descriptors, let socket):
      if let refused = reply.refused {
        descriptors.forEach { $0.close() }
        socket.close()
        throw HostError(ExitStatus(rawValue: refused.status) ?? .extensionFault, refused.message)
      }
      guard let lent = reply.lent, descriptors.count == 2, paths(of: lent, for: target),
        let control = try? socket.duplicate()
      else {
        descriptors.forEach { $0.close() }
        socket.close()
        await fallBack(reply.otherVersion.map { "it is another build (\($0))" } ?? "its answer made no sense")
        return nil
      }
      let peer = ServedPeer(
        pid: lent.pid, control: Connection(input: socket, output: control, options: .init(peerName: "the server")),
        logPath: home.logFile(for: target.bundleIdentifier).path)
      var options = Connection.Options(
        unsolicitedBudget: unsolicitedBudget, peerName: target.name,
        log: { [peer] line in peer.appendToLog("note: \(line)") })
      options.tap = recorder?.tap(peer: target.name)
      options.firstRequestNumber = lent.nextRequestNumber
      let connection = Connection(input: descriptors[1], output: descriptors[0], options: options)
      return LaunchedSession(
        connection: connection, peer: peer, containerPath: lent.containerPath, appGroups: lent.appGroups,
        storage: lent.storage, handshake: lent.handshake)
    }
  }

  /// Whether the paths of a lend are the ones this call's own launch would use: its container, its app groups in
  /// this home's groups folder, its log. (The server is this user's; still, no path of its answer is taken on trust.)
  private func paths(of lent: LentExtension, for target: SessionTarget) -> Bool {
    let entitled = Set(target.entitlements.applicationGroups)
    let folders = Set([lent.containerPath] + lent.appGroups.map(\.path))
    return lent.containerPath == home.containers.appendingPathComponent(target.bundleIdentifier).path
      && lent.appGroups.allSatisfy {
        entitled.contains($0.identifier) && (try? home.appGroupLocation($0.identifier).path) == $0.path
      }
      && (lent.storage.map { storage in
        storage.logPath.map { $0 == home.logFile(for: target.bundleIdentifier).path } ?? true
          && storage.folders.allSatisfy { folders.contains($0.path) }
      } ?? true)
  }

  /// What the home's server keeps; nil when none runs.
  /// - Throws: `HostError(.noMatch)` for a server that cannot be used (stale, another build, not answering).
  package func status() async throws -> ServerStatus? {
    switch await exchange(ServeRequest(version: hostVersion, status: true)) {
    case .none:
      if let pid = await lockHolder() {
        throw HostError(
          .noMatch,
          "the server of \(home.root.path) (pid \(pid), from \(ServeFiles.lock)) runs but its socket "
            + "\(ServeFiles.socket) is gone, so no call can use it; end it with kill \(pid)")
      }
      return nil
    case .unusable(let why): throw HostError(.noMatch, "the server of \(home.root.path) cannot be used: \(why)")
    case .answered(let reply, let descriptors, let socket):
      descriptors.forEach { $0.close() }
      socket.close()
      guard let status = reply.status else {
        throw HostError(
          .noMatch,
          "the server of \(home.root.path) "
            + (reply.otherVersion.map { "is another build (\($0)); stop it with that build" } ?? "did not say"))
      }
      return status
    }
  }

  /// Asks the home's server to stop, and waits until it is gone (its lock released).
  /// - Returns: the stopped server's pid; nil when none ran.
  /// - Throws: `HostError(.noMatch)` for a server that cannot be asked, `.valueNeeded`… never: it gives up after
  ///   `timeout` with `.ioError`.
  package func stop() async throws -> Int32? {
    guard let status = try await status() else { return nil }
    switch await exchange(ServeRequest(version: hostVersion, stop: true)) {
    case .none: return status.pid
    case .unusable(let why): throw HostError(.noMatch, "the server of \(home.root.path) cannot be used: \(why)")
    case .answered(_, let descriptors, let socket):
      descriptors.forEach { $0.close() }
      socket.close()
    }
    // It removes its socket and releases its lock last: wait for the lock.
    let lockPath = home.root.appendingPathComponent(ServeFiles.lock).path
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      let free = await offloaded { () -> Bool in
        guard let fd = try? FileDescriptor.open(lockPath, O_RDWR | O_NOFOLLOW | O_CLOEXEC) else { return true }
        defer { fd.close() }
        return (try? tryLockFile(fd, exclusive: true)) ?? false
      }
      if free { return status.pid }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw HostError(.ioError, "the server of \(home.root.path) (pid \(status.pid)) did not stop within 30 s")
  }

  /// The pid written in `serve.lock` while a server holds it; nil when no server holds it.
  private func lockHolder() async -> Int32? {
    let path = home.root.appendingPathComponent(ServeFiles.lock).path
    return await offloaded { () -> Int32? in
      guard let fd = try? FileDescriptor.open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC) else { return nil }
      defer { fd.close() }
      guard (try? tryLockFile(fd, exclusive: true)) == false, let bytes = try? fd.readAll(limit: 32) else {
        return nil
      }
      return Int32(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
  }

  /// Connects, sends `request` and reads the first frame back, off the cooperative pool, within `timeout`.
  private func exchange(_ request: ServeRequest) async -> Exchange {
    let root = home.root.path
    let milliseconds = Int32(clamping: timeout.wholeMilliseconds)
    let lendMilliseconds = Int32(clamping: lendTimeout.wholeMilliseconds)
    return await offloaded { () -> Exchange in
      guard let folder = try? DirectoryDescriptor.openTrusted(root) else { return .none }
      defer { folder.close() }
      var request = request
      request.home = FolderIdentity(folder)
      guard let payload = try? JSONEncoder().encode(request) else { return .unusable("cannot encode the request") }
      let socket: FileDescriptor
      do {
        socket = try UnixSocket.connect(in: folder, name: ServeFiles.socket)
      } catch let error as SystemError {
        switch error.code {
        case ENOENT: return .none
        case ECONNREFUSED: return .unusable(Self.removeStaleSocket(in: folder))
        case EAGAIN: return .unusable("it is not accepting connections (its backlog is full)")
        default: return .unusable("cannot connect to \(root)/\(ServeFiles.socket): \(error)")
        }
      } catch {
        return .unusable("cannot connect to \(root)/\(ServeFiles.socket): \(error)")
      }
      var waited = milliseconds
      // Only a server of this user: whoever else listens on the socket (a home another user can write to) is
      // never talked to.
      guard let server = try? UnixSocket.peerCredentials(of: socket), server.uid == getuid() else {
        let who = (try? UnixSocket.peerCredentials(of: socket)).map { "uid \($0.uid)" } ?? "an unknown user"
        socket.close()
        return .unusable("its socket is served by \(who), not by this user (uid \(getuid()))")
      }
      do {
        do {
          try UnixSocket.sendFrame(Array(payload), on: socket, timeoutMilliseconds: milliseconds)
        } catch let error as SystemError where error.code == EPIPE || error.code == ECONNRESET {
          // Closed before it read the request: its reason may be waiting (a server at its connection limit).
          if let frame = try? UnixSocket.receiveFrame(from: socket, limit: 64 << 10, timeoutMilliseconds: 200),
            let reply = try? JSONDecoder().decode(ServeReply.self, from: Data(frame.payload)),
            let unusable = reply.unusable
          {
            frame.descriptors.forEach { $0.close() }
            socket.close()
            return .unusable(unusable)
          }
          throw error
        }
        var frame = try UnixSocket.receiveFrame(from: socket, limit: 1 << 20, timeoutMilliseconds: milliseconds)
        if frame.descriptors.isEmpty,
          (try? JSONDecoder().decode(ServeReply.self, from: Data(frame.payload)))?.working == true
        {
          // Alive and at work on the lend: its answer may take a start of the extension.
          waited = lendMilliseconds
          frame = try UnixSocket.receiveFrame(from: socket, limit: 1 << 20, timeoutMilliseconds: lendMilliseconds)
        }
        guard let reply = try? JSONDecoder().decode(ServeReply.self, from: Data(frame.payload)) else {
          frame.descriptors.forEach { $0.close() }
          socket.close()
          return .unusable("its answer is not a server's")
        }
        if let unusable = reply.unusable {
          frame.descriptors.forEach { $0.close() }
          socket.close()
          return .unusable(unusable)
        }
        return .answered(reply, frame.descriptors, socket)
      } catch let error as SystemError {
        socket.close()
        if error.code == ETIMEDOUT {
          return .unusable(
            "it did not answer within \(WarmExtensions.seconds(.milliseconds(Int64(waited)))) (is it stopped "
              + "or hung? end it, or run with --no-server)")
        }
        return .unusable("the connection failed: \(error)")
      } catch {
        socket.close()
        return .unusable("the connection failed: \(error)")
      }
    }
  }

  /// A socket nobody listens on: when no server holds the lock, it is left from one that died; it is removed (under
  /// the lock, so that a server starting now is not robbed of its own).
  private static func removeStaleSocket(in folder: DirectoryDescriptor) -> String {
    let fd = openat(folder.descriptor.rawValue, ServeFiles.lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return "nothing listens on \(folder.path)/\(ServeFiles.socket)" }
    let lock = FileDescriptor(rawValue: fd)
    defer { lock.close() }
    guard (try? tryLockFile(lock, exclusive: true)) == true else {
      return "it is starting or stopping (nothing listens on its socket yet)"
    }
    guard unlinkat(folder.descriptor.rawValue, ServeFiles.socket, 0) == 0 else {
      return "nothing listens on \(folder.path)/\(ServeFiles.socket), and it cannot be removed: "
        + "\(SystemError.current("unlink"))"
    }
    return "it had stopped without removing its socket \(folder.path)/\(ServeFiles.socket) (removed now)"
  }

  /// Says once per call why the server is passed over.
  private func fallBack(_ why: String) async {
    let first = saidFallback.withLock { said in
      defer { said = true }
      return !said
    }
    if first { await report("not using the server of \(home.root.path): \(why); running without it") }
  }
}

/// The lent process, as a session sees it: every question about it (kill, wait, tear down, its last stderr line)
/// goes to the server, its parent, over the lend's own connection; its end comes from the server as it happens.
final class ServedPeer: SessionPeer {
  let pid: Int32
  private let control: Connection
  private let ending = Mutex<LentEnding?>(nil)
  private let logPath: String

  init(pid: Int32, control: Connection, logPath: String) {
    self.pid = pid
    self.control = control
    self.logPath = logPath
    control.start { [weak self] message in
      guard let message, message.method == LendEndedNotification.method,
        let ended = try? message.params(LendEndedNotification.self)
      else { return }
      self?.ending.withLock { $0 = ended.ending }
    }
  }

  var termination: Termination? {
    if let ended = ending.withLock({ $0 }) { return ended.termination }
    // The server is gone, and its children with it.
    return control.failure == nil ? nil : .signalled(SIGKILL)
  }

  /// Asks the server, and keeps the answer; a server that is gone counts as the process killed with it.
  private func ask<R: RequestMessage>(_ request: R, timeout: Duration) async -> R.Response? {
    await withUncancelledTask { [control] in try? await control.send(request, timeout: timeout) }
  }

  private func record(_ answer: LentEnding?) -> Termination {
    if let answer { ending.withLock { $0 = answer } }
    return termination ?? .signalled(SIGKILL)
  }

  func waitForExit(timeout: Duration) async -> Termination? {
    if let termination { return termination }
    let milliseconds = Int(timeout.wholeMilliseconds)
    guard let answer = await ask(LendWaitRequest(milliseconds: milliseconds), timeout: timeout + .seconds(5)) else {
      return termination
    }
    if let answer { ending.withLock { $0 = answer } }
    return termination
  }

  @discardableResult func kill() async -> Termination {
    if let termination {
      control.close()
      return termination
    }
    let answer = await ask(LendKillRequest(), timeout: .seconds(10))
    control.close()
    return record(answer)
  }

  func signalGroup(_ signal: Int32) {
    try? control.notify(LendSignalNotification(signal: signal))
  }

  @discardableResult func tearDown(grace: Duration, termGrace: Duration) async -> Termination {
    let answer = await ask(
      LendTearDownRequest(
        graceMilliseconds: Int(grace.wholeMilliseconds), termGraceMilliseconds: Int(termGrace.wholeMilliseconds)),
      timeout: grace + termGrace + .seconds(10))
    control.close()
    return record(answer)
  }

  func lastStderrLine() async -> String? {
    await ask(LendLastStderrLineRequest(), timeout: .seconds(2)) ?? nil
  }

  func describeKill(_ signal: Int32) -> String {
    if let described = ending.withLock({ $0?.killDescription }) { return described }
    if control.failure != nil { return "was killed with its server (assistant serve went away)" }
    return "crashed with \(signalName(signal))"
  }

  var wasKilledForMemory: Bool { ending.withLock { $0?.killedForMemory } ?? false }

  func appendToLog(_ line: String) {
    if (try? control.notify(LendLogNotification(line: line))) == nil {
      ExtensionLog.appendHostLine(line, toLogAt: logPath)
    }
  }

  /// Gives the process back to the server, healthy, for the next run; the lend ends.
  func giveBack(handshake: InitializeResult, nextRequestNumber: Int) async {
    _ = await ask(LendReturnRequest(handshake: handshake, nextRequestNumber: nextRequestNumber), timeout: .seconds(5))
    control.close()
  }
}
