import Foundation
import IntentHostSystem

/// Where the package and its built products are.
public enum PackagePaths {
  /// The package root (the folder with Package.swift).
  public static let root: URL = {
    var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
      url.deleteLastPathComponent()
    }
    return url
  }()

  /// The folder of built executables: `$INTENTHOST_BIN`, else `.build/debug`.
  public static var binaries: URL {
    if let bin = ProcessInfo.processInfo.environment["INTENTHOST_BIN"], !bin.isEmpty {
      return URL(fileURLWithPath: bin)
    }
    return root.appendingPathComponent(".build/debug")
  }

  /// A built executable, e.g. "assistant".
  public static func executable(_ name: String) -> String { binaries.appendingPathComponent(name).path }

  /// `../shared/corpus/real-xcode` beside the clone, if present.
  public static var corpus: URL { root.deletingLastPathComponent().appendingPathComponent("shared/corpus/real-xcode") }
}

/// A fresh temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
  public let url: URL
  public var path: String { url.path }

  public init(_ prefix: String = "intenthost-test") throws {
    var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw SystemError.current("mkdtemp") }
    url = URL(fileURLWithPath: String(cString: made)).standardizedFileURL
  }

  public func remove() { try? FileManager.default.removeItem(at: url) }

  public func file(_ relative: String) -> URL { url.appendingPathComponent(relative) }
}

/// What a finished command did.
public struct CommandResult: Sendable, CustomStringConvertible {
  public var status: Termination
  public var stdout: String
  public var stderr: String
  public var pid: pid_t

  /// The exit code, or 128 + signal.
  public var code: Int32 {
    switch status {
    case .exited(let code): return code
    case .signalled(let signal): return 128 + signal
    }
  }

  public var description: String { "\(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// Runs a built executable to its end, as a user would from a shell (stdin /dev/null unless `input` is given).
/// - Parameters:
///   - onStart: called with the pid once the process runs (e.g. to signal it).
public func runCommand(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
  timeoutSeconds: Double = 120, onStart: (@Sendable (pid_t) -> Void)? = nil
) throws -> CommandResult {
  let scratch = try TemporaryDirectory("intenthost-run")
  defer { scratch.remove() }
  let out = try FileDescriptor.open(scratch.file("out").path, O_WRONLY | O_CREAT | O_TRUNC)
  let err = try FileDescriptor.open(scratch.file("err").path, O_WRONLY | O_CREAT | O_TRUNC)
  _ = FileManager.default.createFile(atPath: scratch.file("in").path, contents: Data((input ?? "").utf8))
  let inFD = try FileDescriptor.open(input == nil ? "/dev/null" : scratch.file("in").path, O_RDONLY)
  var env = environment ?? ProcessInfo.processInfo.environment
  env["CI"] = nil
  var options = SpawnOptions(
    executable: executable, arguments: [executable] + arguments, environment: env, standardInput: inFD,
    standardOutput: out, standardError: err)
  options.newSession = true
  let process = try spawn(options)
  inFD.close()
  out.close()
  err.close()
  onStart?(process.pid)
  var status: Termination? = nil
  let deadline = Date().addingTimeInterval(timeoutSeconds)
  while status == nil {
    _ = try process.pidfd.waitReadable(timeoutMilliseconds: 100)
    status = try process.reap()
    if status == nil && Date() > deadline {
      process.sendToGroup(SIGKILL)
      process.send(SIGKILL)
    }
  }
  process.pidfd.close()
  return CommandResult(
    status: status!, stdout: (try? String(contentsOf: scratch.file("out"), encoding: .utf8)) ?? "",
    stderr: (try? String(contentsOf: scratch.file("err"), encoding: .utf8)) ?? "", pid: process.pid)
}

/// Whether a process is alive (a zombie counts as dead).
public func isAlive(_ pid: pid_t) -> Bool {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
  guard let close = stat.lastIndex(of: ")") else { return false }
  let state = stat[stat.index(close, offsetBy: 2)]
  return state != "Z" && state != "X"
}

/// Writes a property list (XML) from a dictionary.
public func writePlist(_ value: [String: Any], to url: URL) throws {
  let data = try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)
  try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try data.write(to: url)
}
