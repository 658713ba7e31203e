#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What `runBounded` saw: how the program ended and what it wrote.
public struct BoundedRun: Sendable {
  public var termination: Termination
  /// What it wrote to stdout and stderr, interleaved as written.
  public var output: [UInt8]

  /// The output as text (invalid UTF-8 repaired), its last line breaks dropped.
  public var text: String {
    var text = String(decoding: output, as: UTF8.self)
    while text.hasSuffix("\n") { text.removeLast() }
    return text
  }
}

/// Runs a trusted system program (`mkfs.ext4`, an interpreter asked for its library folders) to its end with stdin
/// on /dev/null and stdout (and stderr, unless `discardsStandardError`) into one pipe, in `/` and in its own
/// session, and returns how it ended and what it wrote. Its whole life is bounded by `seconds`: at the deadline, or
/// when it writes more than `outputLimit` bytes, its process group is killed, it is reaped, and this throws.
///
/// Blocks (it waits for the program): call it off the cooperative pool.
///
/// ```swift
/// let made = try runBounded("/usr/sbin/mkfs.ext4", arguments: ["-q", "/proc/self/fd/3"], extraDescriptor: image,
///                           seconds: 60)
/// guard made.termination == .exited(0) else { print(made.text) }
/// ```
/// - Parameters:
///   - arguments: after argv[0], which is `program`.
///   - extraDescriptor: becomes the program's fd 3 (for example a file it is to work on, as `/proc/self/fd/3`).
///   - adjust: changes the spawn's other options (a sandbox, another argv[0], the executable itself as
///     `/proc/self/fd/3`); the standard descriptors are this function's.
/// - Throws: `SpawnError` when it cannot start; `SystemError` (`ETIMEDOUT`, `E2BIG`, or a wait's errno).
public func runBounded(
  _ program: String, arguments: [String], environment: [String: String] = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"],
  extraDescriptor: FileDescriptor? = nil, seconds: Int, outputLimit: Int = 64 << 10,
  discardsStandardError: Bool = false, adjust: (inout SpawnOptions) -> Void = { _ in }
) throws -> BoundedRun {
  let null = try FileDescriptor.open("/dev/null", O_RDWR)
  defer { null.close() }
  let pipe = try FileDescriptor.pipe()
  defer { pipe.read.close() }
  var options = SpawnOptions(
    executable: program, arguments: [program] + arguments, environment: environment, workingDirectory: "/",
    standardInput: null, standardOutput: pipe.write, standardError: discardsStandardError ? null : pipe.write)
  options.extraDescriptor = extraDescriptor
  options.newSession = true
  adjust(&options)
  let process: SpawnedProcess
  do {
    process = try spawn(options)
  } catch {
    pipe.write.close()
    throw error
  }
  pipe.write.close()
  defer { process.pidfd.close() }
  let deadline = ContinuousClock.now + .seconds(seconds)
  func millisecondsLeft() -> Int32 { max(0, (deadline - ContinuousClock.now).pollTimeout()) }
  var failure: SystemError? = nil
  var output: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  do throws(SystemError) {
    while true {
      let milliseconds = millisecondsLeft()
      guard milliseconds > 0, try pipe.read.waitReadable(timeoutMilliseconds: milliseconds) else {
        failure = SystemError(
          code: ETIMEDOUT, operation: "run", subject: program, detail: "it did not end within \(seconds) s")
        break
      }
      let count = try pipe.read.read(into: &chunk)
      if count == 0 { break }
      output += chunk.prefix(count)
      if output.count > outputLimit {
        failure = SystemError(
          code: E2BIG, operation: "run", subject: program, detail: "it wrote more than \(outputLimit) bytes")
        break
      }
    }
  } catch {
    failure = error
  }
  // Its output ended: it must end too, by the same deadline; otherwise it is killed, and reaped either way.
  var termination: Termination? = nil
  while failure == nil, termination == nil {
    termination = try process.reap()
    if termination != nil { break }
    let milliseconds = millisecondsLeft()
    if milliseconds > 0 {
      _ = try process.pidfd.waitReadable(timeoutMilliseconds: milliseconds)
    } else {
      failure = SystemError(
        code: ETIMEDOUT, operation: "run", subject: program, detail: "it did not end within \(seconds) s")
    }
  }
  if failure != nil {
    process.sendToGroup(SIGKILL)
    process.send(SIGKILL)
    while termination == nil {
      termination = try process.reap()
      if termination == nil { _ = try process.pidfd.waitReadable(timeoutMilliseconds: 1000) }
    }
  }
  if let failure { throw failure }
  return BoundedRun(termination: termination!, output: output)
}
