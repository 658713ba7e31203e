import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One parser of what an untrusted bundle, extension, app or file hands the host, as a fuzzer drives it: bytes in,
/// and the properties that must hold whatever the bytes are.
///
/// A target never throws for bad input (refusing it is the parser's job); it returns the properties it found broken,
/// each a sentence. A crash, a hang or unbounded memory in `check` is a bug in the parser, as is a broken property.
///
/// ```swift
/// let target = FuzzTargets.named("line-framer")!
/// let problems = target.check(Array("{\"jsonrpc\":\"2.0\"}\n".utf8))
/// assert(problems.isEmpty)
/// ```
package struct FuzzTarget: Sendable {
  /// The name `Scripts/fuzz` takes, e.g. "plist".
  package let name: String
  /// What it parses, one line.
  package let summary: String
  /// The longest input worth trying, in bytes.
  package let maximumLength: Int
  /// Runs the parser on `bytes`; returns the properties that did not hold (empty when all did).
  package let check: @Sendable ([UInt8]) -> [String]

  package init(
    name: String, summary: String, maximumLength: Int = 64 << 10,
    check: @escaping @Sendable ([UInt8]) -> [String]
  ) {
    self.name = name
    self.summary = summary
    self.maximumLength = maximumLength
    self.check = check
  }
}

/// Every fuzz target, one per parser of untrusted input (docs/FUZZING.md).
package enum FuzzTargets {
  package static let all: [FuzzTarget] = [
    lineFramer, jsonRPC, sanitizer, plist, entitlements, intentDefinition, vocabulary, strings, journal, elf,
    transcript, appIntentsMetadata,
  ]

  package static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// A folder of this process's own for targets that parse files, made once and removed at exit.
enum Scratch {
  static let folder: String = {
    // Memory-backed where there is one: the targets write a file per input, and a disk's truncation and sync would
    // set the pace.
    var status = stat()
    let shared = stat("/dev/shm", &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR ? "/dev/shm" : nil
    let base = shared ?? ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    let template = base + "/intenthost-fuzz-XXXXXX"
    var bytes = Array(template.utf8CString)
    guard let made = mkdtemp(&bytes) else { fatalError("fuzz: cannot make a scratch folder in \(base)") }
    let path = String(cString: made)
    atexit { Scratch.remove() }
    return path
  }()

  /// Writes `bytes` to `name` in the scratch folder, replacing what was there; returns its path.
  static func write(_ bytes: some Collection<UInt8>, to name: String) -> String {
    let path = folder + "/" + name
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { fatalError("fuzz: cannot write \(path): errno \(errno)") }
    defer { close(fd) }
    let buffer = Array(bytes)
    var written = 0
    while written < buffer.count {
      let result = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, buffer.count - written) }
      guard result > 0 else { fatalError("fuzz: cannot write \(path): errno \(errno)") }
      written += result
    }
    return path
  }

  /// Empties the scratch folder (not recursive: targets write plain files, and a document's recovery files).
  static func empty() {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
    for name in names { unlink(folder + "/" + name) }
  }

  static func remove() {
    empty()
    rmdir(folder)
  }
}
