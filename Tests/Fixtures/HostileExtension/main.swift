import CHostileCalls
import ExtensionSDK
import Foundation

// HostileExtension: an Intents extension that attacks its sandbox. The attack is chosen by argv[0] (the .appex
// name the host passes); the target (a path, a port, a pid) is the PingIntent's `value`. `handle` answers success
// with "done: …" when the attack worked and "refused: …" with the errno when it did not, so a test can show both
// the sandboxed refusal and, with --no-sandbox, the control where the same attack succeeds. Attacks that cannot
// answer (memory, CPU, stdout abuse) are seen by how the host reports the extension's end.
#if canImport(Glibc)
  import Glibc
#endif

let attack = (CommandLine.arguments.first ?? "").split(separator: "/").last.map(String.init) ?? ""

func failure(_ what: String) -> String { "refused: \(what): \(String(cString: strerror(errno))) (errno \(errno))" }

func readFile(_ path: String) -> String {
  let fd = open(path, O_RDONLY)
  if fd < 0 { return failure("open \(path)") }
  var buffer = [UInt8](repeating: 0, count: 4096)
  let count = read(fd, &buffer, buffer.count)
  close(fd)
  return count < 0 ? failure("read \(path)") : "done: read \(count) bytes of \(path)"
}

func listFolder(_ path: String) -> String {
  guard let folder = opendir(path) else { return failure("opendir \(path)") }
  defer { closedir(folder) }
  var names = 0
  while readdir(folder) != nil { names += 1 }
  return "done: listed \(names) names in \(path)"
}

func writeFile(_ path: String) -> String {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  if fd < 0 { return failure("create \(path)") }
  let text = Array("written by a hostile extension\n".utf8)
  _ = write(fd, text, text.count)
  close(fd)
  return "done: wrote \(path)"
}

func connectTCP(_ port: UInt16) -> String {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  if fd < 0 { return failure("socket") }
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = port.bigEndian
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let result = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  if result != 0 { return failure("connect 127.0.0.1:\(port)") }
  let text = Array("hello from a hostile extension\n".utf8)
  _ = write(fd, text, text.count)
  return "done: connected to 127.0.0.1:\(port)"
}

func sendUDP(_ port: UInt16) -> String {
  let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
  if fd < 0 { return failure("socket") }
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = port.bigEndian
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let text = Array("udp from a hostile extension".utf8)
  let sent = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      sendto(fd, text, text.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
  }
  return sent < 0 ? failure("sendto 127.0.0.1:\(port)") : "done: sent UDP to 127.0.0.1:\(port)"
}

/// Listens on 127.0.0.1 (a port the kernel picks). With `wait`, writes the port to `$HOME/listening-port`, accepts
/// one connection (within 20 s) and reads what it sends; otherwise answers as soon as it listens.
func listenTCP(_ mode: String) -> String {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  if fd < 0 { return failure("socket") }
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
  }
  if bound != 0 { return failure("bind 127.0.0.1") }
  if listen(fd, 4) != 0 { return failure("listen") }
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
  }
  let port = UInt16(bigEndian: address.sin_port)
  guard mode == "wait" else { return "done: listening on 127.0.0.1:\(port)" }
  let path = (ProcessInfo.processInfo.environment["HOME"] ?? ".") + "/listening-port"
  let file = open(path + ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  let text = Array("\(port)".utf8)
  _ = write(file, text, text.count)
  close(file)
  rename(path + ".tmp", path)
  var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
  if poll(&waiting, 1, 20_000) != 1 { return "refused: nobody connected to 127.0.0.1:\(port)" }
  let client = accept(fd, nil, nil)
  if client < 0 { return failure("accept") }
  defer { close(client) }
  var buffer = [UInt8](repeating: 0, count: 64)
  let count = read(client, &buffer, buffer.count)
  if count < 0 { return failure("read") }
  return "done: accepted on 127.0.0.1:\(port) and read \"\(String(decoding: buffer[..<count], as: UTF8.self))\""
}

/// Sets a socket option on a fresh TCP socket: `reuseport` (SO_REUSEPORT, which would let it join the port group
/// of a service running as the same uid) or `reuseaddr` (SO_REUSEADDR, harmless: the control).
func setReuseOption(_ which: String) -> String {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  if fd < 0 { return failure("socket") }
  defer { close(fd) }
  let option = which == "reuseport" ? SO_REUSEPORT : SO_REUSEADDR
  var on: Int32 = 1
  if setsockopt(fd, SOL_SOCKET, option, &on, socklen_t(MemoryLayout<Int32>.size)) != 0 {
    return failure("setsockopt \(which)")
  }
  return "done: set \(which)"
}

/// Connects as it sends (TCP Fast Open, `sendto` with MSG_FASTOPEN), without calling connect.
func fastOpen(_ port: UInt16) -> String {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  if fd < 0 { return failure("socket") }
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = port.bigEndian
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let text = Array("fast open from a hostile extension".utf8)
  let sent = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      sendto(fd, text, text.count, Int32(MSG_FASTOPEN), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
  }
  return sent < 0 ? failure("sendto MSG_FASTOPEN 127.0.0.1:\(port)") : "done: fast-opened 127.0.0.1:\(port)"
}

/// A pathname socket (`/path`) or an abstract one (`@name`).
func connectUnix(_ target: String) -> String {
  let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
  if fd < 0 { return failure("socket") }
  defer { close(fd) }
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  let bytes = Array(target.utf8)
  withUnsafeMutableBytes(of: &address.sun_path) { path in
    for (index, byte) in bytes.enumerated() where index < path.count { path[index] = byte }
    if target.hasPrefix("@") { path[0] = 0 }
  }
  let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
  let result = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
  }
  return result != 0 ? failure("connect \(target)") : "done: connected to \(target)"
}

func forkMany(_ count: Int) -> String {
  var started = 0
  for _ in 0..<count {
    let pid = fork()
    if pid == 0 {
      sleep(2)
      _exit(0)
    }
    if pid < 0 { break }
    started += 1
  }
  return started == 0 ? failure("fork") : "done: forked \(started) children"
}

func runShell(_ marker: String) -> String {
  let arguments = ["/bin/sh", "-c", "echo pwned > '\(marker)'"]
  var argv = arguments.map { strdup($0) } + [nil]
  execve("/bin/sh", &argv, environ)
  return failure("execve /bin/sh")
}

/// The fds open when the process started, before the SDK opened any of its own.
func fileDescriptors() -> String {
  guard let directory = opendir("/proc/self/fd") else { return failure("opendir /proc/self/fd") }
  var fds: [Int32] = []
  while let entry = readdir(directory) {
    // Through a pointer: `entry.pointee` would copy a whole `struct dirent`, past a short record.
    let name = String(
      cString: (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(
        to: CChar.self))
    if let fd = Int32(name) { fds.append(fd) }
  }
  let listing = dirfd(directory)
  closedir(directory)
  return "done: open fds " + fds.filter { $0 != listing }.sorted().map(String.init).joined(separator: ",")
}

/// The fd the SDK keeps the protocol's stdout on: the pipe that is neither stdin nor stderr.
func protocolDescriptor() -> Int32? {
  func link(_ fd: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = buffer.withUnsafeMutableBufferPointer { raw in
      raw.withMemoryRebound(to: CChar.self) { readlink("/proc/self/fd/\(fd)", $0.baseAddress!, $0.count - 1) }
    }
    return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
  }
  let taken = [link(0), link(2)]
  return (Int32(3)..<Int32(64)).first { fd in
    let target = link(fd)
    return target.hasPrefix("pipe:") && !taken.contains(target)
  }
}

func raiseLimit() -> String {
  // 256 is within any ordinary user's hard limit, and four times the sandbox's 64.
  var limit = rlimit(rlim_cur: 256, rlim_max: 256)
  return setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0
    ? failure("setrlimit RLIMIT_NOFILE") : "done: raised RLIMIT_NOFILE to 256"
}

func ioUring() -> String {
  let fd = hostile_io_uring_setup()
  if fd < 0 { return failure("io_uring_setup") }
  close(fd)
  return "done: io_uring ready"
}

func allocate(megabytes: Int) -> String {
  var blocks: [UnsafeMutableRawPointer] = []
  for _ in 0..<megabytes {
    guard let block = malloc(1 << 20) else { return failure("malloc") }
    memset(block, 0x5A, 1 << 20)
    blocks.append(block)
  }
  for block in blocks { free(block) }
  return "done: allocated \(megabytes) MB"
}

/// Notifications of its own, straight to the protocol output (fd 3, as for HugeLine), in writes of whole lines.
func floodNotifications(_ count: Int) -> String {
  guard let fd = protocolDescriptor() else { return "refused: no protocol descriptor" }
  _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
  let line = Array("{\"jsonrpc\":\"2.0\",\"method\":\"hostile/tick\",\"params\":{}}\n".utf8)
  let perWrite = max(1, 4000 / line.count)
  var sent = 0
  while sent < count {
    let lines = min(perWrite, count - sent)
    let chunk = Array([[UInt8]](repeating: line, count: lines).joined())
    if write(fd, chunk, chunk.count) != chunk.count { return failure("write after \(sent) notifications") }
    sent += lines
  }
  return "done: sent \(sent) notifications"
}

/// `files=N` empty files, or `mib=N` MiB of allocated blocks (fallocate, 32 MiB a file), in `$HOME/fill`.
/// With a `group:` prefix, in its first app group instead.
func fillContainer(_ request: String) -> String {
  let environment = ProcessInfo.processInfo.environment
  var home = environment["HOME"] ?? "."
  var request = Substring(request)
  if request.hasPrefix("group:") {
    request = request.dropFirst("group:".count)
    let groups = environment["INTENTHOST_APP_GROUPS"] ?? ""
    guard let equals = groups.firstIndex(of: "=") else { return "refused: no app group" }
    home = String(groups[groups.index(after: equals)...].prefix { $0 != ":" })
  }
  let folder = home + "/fill-\(getpid())"
  if mkdir(folder, 0o700) != 0 { return failure("mkdir \(folder)") }
  let parts = request.split(separator: "=")
  let amount = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
  if parts.first == "files" {
    for index in 0..<amount {
      let fd = open(folder + "/f\(index)", O_WRONLY | O_CREAT | O_EXCL, 0o600)
      if fd < 0 { return failure("create file \(index)") }
      close(fd)
    }
    return "done: wrote \(amount) files"
  }
  var left = amount
  var index = 0
  while left > 0 {
    let fd = open(folder + "/b\(index)", O_WRONLY | O_CREAT | O_EXCL, 0o600)
    if fd < 0 { return failure("create file \(index)") }
    let mib = min(left, 32)
    let code = posix_fallocate(fd, 0, off_t(mib) << 20)
    close(fd)
    if code != 0 {
      errno = code
      return failure("fallocate \(mib) MiB")
    }
    left -= mib
    index += 1
  }
  return "done: wrote \(amount) MiB"
}

struct Attack: IntentHandler {
  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    let target: String = { if case .string(let s)? = intent["value"] { return s } else { return "" } }()
    let outcome: String
    switch attack {
    case "ReadFile": outcome = readFile(target)
    case "ListFolder": outcome = listFolder(target)
    case "ReadHostEnvironment": outcome = readFile("/proc/\(getppid())/environ")
    case "WriteFile": outcome = writeFile(target)
    case "TCPConnect": outcome = connectTCP(UInt16(target) ?? 0)
    case "UDPSend": outcome = sendUDP(UInt16(target) ?? 0)
    case "UnixConnect": outcome = connectUnix(target)
    case "Listen": outcome = listenTCP(target)
    case "FastOpen": outcome = fastOpen(UInt16(target) ?? 0)
    case "ReuseOption": outcome = setReuseOption(target)
    case "ForkBomb": outcome = forkMany(1000)
    case "RunShell": outcome = runShell(target)
    case "FileDescriptors": outcome = initialDescriptors
    case "RaiseLimit": outcome = raiseLimit()
    case "IOUring": outcome = ioUring()
    case "Allocate": outcome = allocate(megabytes: Int(target) ?? 500)
    case "KillHost":
      outcome = kill(getppid(), SIGKILL) != 0 ? failure("kill host \(getppid())") : "done: killed the host"
    case "TraceHost":
      outcome =
        hostile_ptrace_attach(getppid()) != 0
        ? failure("ptrace attach \(getppid())") : "done: attached to the host"
    case "LimitHost":
      let now = hostile_limit_cpu(getppid(), 1)
      outcome = now < 0 ? failure("prlimit host \(getppid()) RLIMIT_CPU") : "done: the host's CPU limit is now \(now) s"
    case "ReniceUser":
      outcome =
        hostile_renice_user(5) != 0
        ? failure("setpriority PRIO_USER")
        : "done: reniced its user; the host's nice value is now \(hostile_nice_of(getppid()))"
    case "KeepAfterHost":
      // Clears the parent-death signal, says how that went in $HOME/death-signal, and stays, never answering.
      // Unlike the SDK, it ignores the host hanging up: stdin becomes a pipe nobody closes (as for CloseStdout), so
      // only the parent-death signal can end it.
      var fds: [Int32] = [0, 0]
      _ = pipe(&fds)
      _ = dup2(fds[0], 0)
      let report = deathSignalReport
      let path = (ProcessInfo.processInfo.environment["HOME"] ?? ".") + "/death-signal"
      let fd = open(path + ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      _ = write(fd, report, report.utf8.count)
      close(fd)
      rename(path + ".tmp", path)
      while true { sleep(1000) }
    case "Threads":
      var error: Int32 = 0
      let started = hostile_start_threads(Int32(target) ?? 1000, &error)
      outcome =
        error != 0
        ? "refused: pthread_create after \(started) threads: \(String(cString: strerror(error)))"
        : "done: started \(started) threads"
    case "NotificationFlood":
      outcome = floodNotifications(Int(target) ?? 1_000_000)
    case "FillContainer":
      outcome = fillContainer(target)
    case "Spin":
      var x: UInt64 = 0
      while true { x = x &* 6364136223846793005 &+ 1; if x == 42 { break } }
      outcome = "done: \(x)"
    case "FloodStderr":
      let line = [UInt8](repeating: 0x41, count: 1 << 16)
      for _ in 0..<160 { _ = write(2, line, line.count) }  // 10 MiB
      outcome = "done: flooded stderr"
    case "HugeLine":
      // Garbage, then a 100 MB "line", straight to the protocol output (fd 3 is where the SDK keeps it; stdout
      // was pointed at stderr), so the host must refuse it without buffering it all.
      let chunk = [UInt8](repeating: 0x7B, count: 1 << 20)
      guard let fd = protocolDescriptor() else { return IntentResponse(code: .failure) }
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
      for _ in 0..<100 { if write(fd, chunk, chunk.count) < 0 { break } }
      outcome = "done: wrote a huge line"
    case "CloseStdout":
      // Unlike the SDK, ignore the host hanging up: stdin becomes a pipe nobody closes. This comes first, so the
      // SDK's reader cannot see the host's answer to the close (its end of stdin) as end of input.
      var fds: [Int32] = [0, 0]
      _ = pipe(&fds)
      _ = dup2(fds[0], 0)
      if let fd = protocolDescriptor() { close(fd) }
      close(1)
      while true { sleep(1000) }
    default: outcome = "unknown attack \(attack)"
    }
    return IntentResponse(code: .success, parameters: ["value": .string(outcome)])
  }
}

struct HostileExtension: IntentsExtension {
  func handler(for intent: Intent) -> (any IntentHandler)? { Attack() }
}

let initialDescriptors = fileDescriptors()
/// KeepAfterHost clears the parent-death signal first thing, on the main thread: the signal is a property of each
/// thread, and the one the host armed is the main thread's (threads started later have none).
let deathSignalReport: String = {
  guard attack == "KeepAfterHost" else { return "" }
  let armed = hostile_clear_death_signal()
  return armed < 0 ? failure("prctl PR_SET_PDEATHSIG") : "done: the parent-death signal is now \(armed)"
}()
await HostileExtension.main()
