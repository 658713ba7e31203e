import Foundation
import IntentHostSystem
import Synchronization

/// A pseudo-terminal for driving a program step by step, as a person at a terminal does: the test holds the master
/// side, types into it and reads what the terminal shows; the program (`start`) gets the slave side as its
/// controlling terminal and as its stdin, stdout and stderr.
///
/// The terminal's line discipline does what a real one does: it echoes what is typed while ECHO is on, turns Ctrl-C
/// (`\u{03}`) into SIGINT for the program's process group (ISIG) and Ctrl-D (`\u{04}`) at the start of a line into end
/// of input, and shows every `\n` the program writes as `\r\n` (ONLCR). The test keeps a descriptor of the slave open
/// for the terminal's whole life, so that its settings can be read after the program ended (`echoIsOn`) and nothing
/// the program wrote is lost when it closes its end.
///
/// Reading waits for text (`waitFor`), each wait with a time limit after which it throws what the terminal showed, so
/// a program that never asks cannot hang the test.
public final class PseudoTerminal: Sendable {
  /// The master side: what the test types into and reads the terminal from.
  public let master: FileDescriptor
  /// The test's own descriptor of the slave side (the program gets its own, through `start`).
  public let slave: FileDescriptor
  /// The slave's path, `/dev/pts/N`.
  public let slavePath: String
  /// Everything read from the master so far, and where the next `waitFor` starts looking.
  private let output = Mutex<(shown: [UInt8], cursor: Int)>(([], 0))

  /// Opens a new pseudo-terminal pair (the corresponding C functions are `posix_openpt`, `grantpt`, `unlockpt` and
  /// `ptsname_r`); neither side becomes the test's controlling terminal, and both are close-on-exec.
  public init() throws(SystemError) {
    let library = CLibrary.pseudoTerminals
    let fd = library.open(O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError.current("posix_openpt") }
    let master = FileDescriptor(rawValue: fd)
    var name = [CChar](repeating: 0, count: 256)
    for (operation, succeeded) in [
      ("grantpt", { library.grant(fd) == 0 }), ("unlockpt", { library.unlock(fd) == 0 }),
      ("ptsname_r", { library.name(fd, &name, name.count) == 0 }),
    ] where !succeeded() {
      let error = SystemError.current(operation, "/dev/ptmx")
      master.close()
      throw error
    }
    let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    do {
      slave = try FileDescriptor.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
    } catch {
      master.close()
      throw error
    }
    self.master = master
    slavePath = path
  }

  /// Closes both sides. Call it once the program ended.
  public func close() {
    slave.close()
    master.close()
  }

  /// `util-linux`'s `setsid`, which every Debian system has (util-linux is Essential): it makes the new session and
  /// takes the terminal on its stdin as the session's controlling terminal (`--ctty`) before it runs the program.
  public static let setsid = "/usr/bin/setsid"

  /// Starts `executable` with `arguments` in a new session whose controlling terminal is this one (so that it can
  /// open `/dev/tty` and the terminal's Ctrl-C reaches it), its stdin, stdout and stderr the slave side. The spawn
  /// waits for the exec: it runs off the pool.
  ///
  /// The program runs under `setsid --ctty` in the test's process group until `setsid` makes its session (it does not
  /// fork, not being a group leader, so the pid is the program's); from then on its process group is its own, the
  /// terminal's foreground group.
  /// - Returns: the process, to reap with `waitForExit` (which kills its group and it when its time is up).
  public func start(
    _ executable: String, _ arguments: [String], environment: [String: String]
  ) async throws -> SpawnedProcess {
    let slave = slave
    return try await offThePool {
      var options = SpawnOptions(
        executable: Self.setsid, arguments: ["setsid", "--ctty", executable] + arguments, environment: environment,
        standardInput: slave, standardOutput: slave, standardError: slave)
      options.newSession = false  // a group leader's setsid would fork, and the pid would be the parent's
      return try spawn(options)
    }
  }

  /// Types `text`, as if at the keyboard (a write to the master, off the pool).
  public func type(_ text: String) async throws {
    let master = master
    try await offThePool { () throws(SystemError) in try master.writeAll(Array(text.utf8)) }
  }

  /// The terminal's local modes now (`c_lflag`; the corresponding C function is `tcgetattr`).
  public func localModes() throws(SystemError) -> tcflag_t {
    var settings = termios()
    guard tcgetattr(slave.rawValue, &settings) == 0 else { throw SystemError.current("tcgetattr", slavePath) }
    return settings.c_lflag
  }

  /// Whether the terminal echoes what is typed (ECHO).
  public var echoIsOn: Bool {
    get throws(SystemError) { try localModes() & tcflag_t(ECHO) != 0 }
  }

  /// Whether the terminal echoes the newline even when ECHO is off (ECHONL).
  public var echoesNewline: Bool {
    get throws(SystemError) { try localModes() & tcflag_t(ECHONL) != 0 }
  }

  /// Everything the terminal showed so far (read from the master), invalid UTF-8 repaired.
  public var transcript: String { output.withLock { String(decoding: $0.shown, as: UTF8.self) } }

  /// The terminal did not show the text awaited in time.
  public struct Timeout: Error, CustomStringConvertible {
    public var awaited: String
    public var shown: String
    public var description: String {
      "the terminal did not show \(awaited.debugDescription) in time; it showed \(shown.debugDescription)"
    }
  }

  /// Waits until the terminal has shown `text` after what earlier waits matched, reading the master off the pool.
  /// - Returns: what the terminal showed from the end of the previous match to the end of this one.
  /// - Throws: `Timeout`, with everything shown, when `text` did not come within `timeout`; a `SystemError` when the
  ///   master cannot be read.
  @discardableResult
  public func waitFor(_ text: String, timeout: Duration = .seconds(60)) async throws -> String {
    let deadline = ContinuousClock.now + timeout
    return try await offThePool { () throws in
      let wanted = Array(text.utf8)
      while true {
        let found = self.output.withLock { output -> String? in
          guard let range = output.shown[output.cursor...].firstRange(of: wanted) else { return nil }
          let seen = String(decoding: output.shown[output.cursor..<range.upperBound], as: UTF8.self)
          output.cursor = range.upperBound
          return seen
        }
        if let found { return found }
        let left = deadline - ContinuousClock.now
        guard left > .zero, try self.readAvailable(waiting: left) else {
          throw Timeout(awaited: text, shown: self.transcript)
        }
      }
    }
  }

  /// Reads what the terminal shows without waiting for more: the end of a program's output, once it ended.
  /// - Returns: what was read.
  @discardableResult
  public func drain() async throws -> String {
    try await offThePool { () throws in
      let before = self.output.withLock { $0.shown.count }
      while try self.readAvailable(waiting: .zero) {}
      return self.output.withLock { String(decoding: $0.shown[before...], as: UTF8.self) }
    }
  }

  /// Waits up to `limit` for the master to be readable and reads what it has. Blocks: runs off the pool only.
  /// - Returns: whether anything was read.
  private func readAvailable(waiting limit: Duration) throws(SystemError) -> Bool {
    guard try master.waitReadable(timeoutMilliseconds: max(limit.pollTimeout(), 0)) else { return false }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count: Int
    do throws(SystemError) {
      count = try master.read(into: &buffer)
    } catch {
      if error.code == EIO { return false }  // no slave open: nothing more to show
      throw error
    }
    guard count > 0 else { return false }
    output.withLock { $0.shown += buffer[..<count] }
    return true
  }
}

/// The C library's pseudo-terminal functions, looked up by name: Swift's Glibc module is built without
/// `_XOPEN_SOURCE`, so it declares none of them (`posix_openpt`, `grantpt`, `unlockpt`, `ptsname_r`).
private struct CLibrary: Sendable {
  typealias Open = @convention(c) (CInt) -> CInt
  typealias Name = @convention(c) (CInt, UnsafeMutablePointer<CChar>?, Int) -> CInt
  let open: Open
  let grant: Open
  let unlock: Open
  let name: Name

  static let pseudoTerminals: CLibrary = {
    // The program itself and what it links (the C library among them); never closed.
    let handle = dlopen(nil, RTLD_NOW)
    func function<F>(_ symbol: String, _: F.Type) -> F {
      guard let address = dlsym(handle, symbol) else { fatalError("the C library has no \(symbol)") }
      return unsafeBitCast(address, to: F.self)
    }
    return CLibrary(
      open: function("posix_openpt", Open.self), grant: function("grantpt", Open.self),
      unlock: function("unlockpt", Open.self), name: function("ptsname_r", Name.self))
  }()
}
