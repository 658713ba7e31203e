import Foundation
import IntentHostSystem

/// Where a transcript is written (`--record FILE`, `replay --update FILE`) and where one is read from (`replay FILE`),
/// with the checks and messages of the command line: a path is checked before anything runs, so a run is never lost to
/// a path that cannot take its transcript.
///
/// Writing follows what the path is, as a shell's `>` would, but never renames over anything but a regular file:
/// - a character device or a FIFO (`/dev/null`, `/dev/stdout`, a named pipe) is opened write-only, neither created
///   nor truncated, and the transcript is written into it;
/// - a regular file, or a name that does not exist yet, is replaced atomically: a temporary file made new (`O_EXCL`)
///   in the same folder, written, synced and renamed over it, with the mode of the file it replaces;
/// - a symbolic link is followed: its target (the last link's, once every link is resolved) is written as above, in
///   the target's folder, and the link stays;
/// - a directory, a socket or a block device is refused.
///
/// Every function blocks (`open`, `fsync`, a FIFO's reader): call them off the cooperative pool (`offloaded`).
package enum TranscriptFile {
  /// The largest transcript `read(_:)` takes.
  package static let sizeLimit = 16 << 20

  /// What a path is, for writing.
  enum Destination: Equatable {
    /// A character device or a FIFO, written in place.
    case stream(String)
    /// A regular file (its permission bits, owner and group) or a new one (nil), replaced atomically.
    case file(String, existing: FileStatus?)
  }

  /// A path that cannot be written: why, and what to do instead.
  struct Problem: Error {
    var why: String
    var fix: String
  }

  /// Checks, before a run, that `path` can take a transcript: it resolves to a regular file, a character device or
  /// a FIFO, or a new name in a folder that exists and is writable.
  /// - Parameter action: what the message says cannot be done, e.g. "record to" or "update".
  /// - Throws: `HostError(.cannotCreate)` (73): "cannot record to PATH: WHY; FIX".
  package static func checkWritable(_ path: String, action: String) throws {
    do {
      let destination = try destination(path)
      switch destination {
      case .stream(let target):
        guard access(target, W_OK) == 0 else {
          throw Problem(why: "\(target) is not writable (\(SystemError.current("access").reason))", fix: fixElsewhere)
        }
      case .file(let target, let existing):
        try checkFolder(of: target)
        if existing != nil && access(target, W_OK) != 0 {
          throw Problem(
            why: "it is not writable (\(SystemError.current("access").reason))",
            fix: "make it writable (chmod u+w) or record elsewhere")
        }
      }
    } catch let problem as Problem {
      throw HostError(.cannotCreate, "cannot \(action) \(shown(path)): \(problem.why); \(problem.fix)")
    }
  }

  /// Writes `bytes` to `path` as the type says.
  /// - Throws: `HostError(.cannotCreate)` when the path cannot take a file (it changed since it was checked);
  ///   `HostError(.ioError)` (74) when the write itself fails: "cannot record to PATH: WHY".
  package static func write(_ bytes: [UInt8], to path: String, action: String) throws {
    let destination: Destination
    do {
      destination = try self.destination(path)
    } catch let problem as Problem {
      throw HostError(.cannotCreate, "cannot \(action) \(shown(path)): \(problem.why); \(problem.fix)")
    }
    do throws(SystemError) {
      switch destination {
      case .stream(let target):
        // No O_CREAT, no O_TRUNC: a device or a pipe is written into, never made or emptied.
        let fd = try FileDescriptor.open(target, O_WRONLY | O_NOCTTY)
        defer { fd.close() }
        try fd.writeAll(bytes)
      case .file(let target, let existing):
        try replace(target, with: bytes, existing: existing)
      }
    } catch {
      throw HostError(.ioError, "cannot \(action) \(shown(path)): \(error)")
    }
  }

  /// The text of the transcript at `path`: a regular file of at most `sizeLimit` bytes, in UTF-8. Opened
  /// non-blocking (a FIFO without a writer does not hang the open) and checked with `fstat` before it is read.
  /// - Throws: `HostError(.noInput)` (66) when it does not exist or is not a regular file; `HostError(.dataError)`
  ///   (65) when it is too large or not UTF-8; `HostError(.ioError)` (74) when reading it fails.
  package static func read(_ path: String) throws -> String {
    let fd: FileDescriptor
    do {
      fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)
    } catch {
      switch error.code {
      case ENOENT:
        throw HostError(.noInput, "\(path) does not exist; give a transcript written by --record")
      case ENOTDIR:
        throw HostError(.noInput, "\(path) does not exist (a part of the path before its last is not a folder)")
      case ELOOP:
        throw HostError(.noInput, "\(path) is a loop of symbolic links; give a transcript written by --record")
      case EACCES, EPERM:
        throw HostError(.noInput, "\(path) is not readable (\(error.reason)); give a transcript you may read")
      default:
        throw HostError(.noInput, "cannot open \(path): \(error.reason)")
      }
    }
    defer { fd.close() }
    let status: FileStatus
    do throws(SystemError) { status = try fd.status() } catch {
      throw HostError(.ioError, "cannot read \(path): \(error.reason)")
    }
    guard status.kind == .regular else {
      throw HostError(
        .noInput, "\(path) is not a regular file (it is \(status.kind)); give a transcript written by --record")
    }
    let tooLarge = { (size: Int) in
      HostError(.dataError, "\(path) is \(mebibytes(size)) MiB; a transcript is at most \(sizeLimit >> 20) MiB")
    }
    guard status.size <= sizeLimit else { throw tooLarge(Int(status.size)) }
    let bytes: [UInt8]
    do throws(SystemError) {
      try fd.setNonBlocking(false)
      bytes = try fd.readAll(limit: sizeLimit)
    } catch {
      if error.code == EFBIG { throw tooLarge(sizeLimit + 1) }  // it grew while it was read
      throw HostError(.ioError, "cannot read \(path): \(error.reason)")
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw HostError(.dataError, "\(path) is not UTF-8 text; is it a transcript of --record?")
    }
    return text
  }

  private static let fixElsewhere = "record elsewhere"

  /// The path as a message names it: an empty one as "".
  private static func shown(_ path: String) -> String { path.isEmpty ? "\"\"" : path }

  /// "16.5" for a size just over 16 MiB, "20" for 20 MiB.
  private static func mebibytes(_ size: Int) -> String {
    let tenths = (size * 10 + (1 << 20) - 1) >> 20
    return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
  }

  /// What `path` is, once its symbolic links are followed.
  static func destination(_ path: String) throws -> Destination {
    guard !path.isEmpty else { throw Problem(why: "the file name is empty", fix: "give a file name") }
    if path.hasSuffix("/") {
      var info = stat()
      let file = String(path.reversed().drop { $0 == "/" }.reversed())
      if !file.isEmpty, stat(file, &info) == 0, FileStatus(info).kind != .directory {
        throw Problem(why: "it ends with / but \(file) is not a folder", fix: "drop the trailing /")
      }
      throw Problem(why: "it names a folder (it ends with /)", fix: "give a file name, e.g. \(path)run.jsonl")
    }
    var info = stat()
    if stat(path, &info) == 0 {
      let status = FileStatus(info)
      switch status.kind {
      case .characterDevice:
        return .stream(path)
      case .fifo:
        // Written when the run ends: without a reader by then, the host would wait for one. Refused now instead,
        // before anything runs (a non-blocking open for writing fails with ENXIO when nobody reads).
        let probe = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard probe >= 0 else {
          let error = SystemError.current("open")
          if error.code == ENXIO {
            throw Problem(why: "it is a FIFO nobody reads", fix: "start its reader first (e.g. cat \(path) &)")
          }
          throw Problem(why: error.reason, fix: fixElsewhere)
        }
        close(probe)
        return .stream(path)
      case .regular:
        // The file itself, wherever its links lead: it is replaced in its own folder and the links stay.
        guard let resolved = realPath(path) else {
          throw Problem(
            why: "its links cannot be resolved (\(SystemError.current("realpath").reason))", fix: fixElsewhere)
        }
        return .file(resolved, existing: status)
      case .directory:
        throw Problem(why: "it is a directory", fix: "give a file name inside it, e.g. \(path)/run.jsonl")
      default:
        throw Problem(
          why: "it is \(status.kind)", fix: "record to a regular file, a FIFO or a character device")
      }
    }
    let error = SystemError.current("stat")
    switch error.code {
    case ENOENT:
      // A new file, or a link whose target does not exist yet: the target is made, as a shell's > would.
      return .file(try danglingTarget(path), existing: nil)
    case ELOOP:
      throw Problem(why: "it is a loop of symbolic links", fix: "point the link at a file or record elsewhere")
    case ENOTDIR:
      throw Problem(why: "a part of the path before its last is not a folder", fix: fixElsewhere)
    default:
      throw Problem(why: error.reason, fix: fixElsewhere)
    }
  }

  /// The path a chain of symbolic links ending nowhere leads to (`path` itself when it is no link).
  private static func danglingTarget(_ path: String) throws -> String {
    var current = path
    for _ in 0..<40 {
      var info = stat()
      guard lstat(current, &info) == 0, FileKind(mode: info.st_mode) == .symbolicLink else { return current }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(current, &buffer, buffer.count - 1)
      guard count > 0 else {
        throw Problem(why: "its link cannot be read (\(SystemError.current("readlink").reason))", fix: fixElsewhere)
      }
      let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current = target.hasPrefix("/") ? target : folder(of: current) + "/" + target
    }
    throw Problem(why: "it is a loop of symbolic links", fix: "point the link at a file or record elsewhere")
  }

  /// The folder of `path`: "." for a bare name, "/" for a name at the root.
  static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    let folder = String(path[..<slash])
    return folder.isEmpty ? "/" : folder
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The folder of `target` exists, is a folder, and may be written to.
  private static func checkFolder(of target: String) throws {
    let folder = folder(of: target)
    var info = stat()
    guard stat(folder, &info) == 0 else {
      let error = SystemError.current("stat")
      if error.code == ENOENT || error.code == ENOTDIR {
        throw Problem(why: "the folder \(folder) does not exist", fix: "create it or record elsewhere")
      }
      throw Problem(why: "the folder \(folder) cannot be reached (\(error.reason))", fix: fixElsewhere)
    }
    guard FileKind(mode: info.st_mode) == .directory else {
      throw Problem(why: "\(folder) is not a folder", fix: fixElsewhere)
    }
    guard access(folder, W_OK | X_OK) == 0 else {
      throw Problem(
        why: "the folder \(folder) is not writable (\(SystemError.current("access").reason))", fix: fixElsewhere)
    }
  }

  /// Replaces `target` atomically: a temporary file made new in its folder (`O_EXCL`, never following a link),
  /// given the replaced file's mode (and, for root, its owner), written, synced, renamed over it; the folder synced.
  private static func replace(_ target: String, with bytes: [UInt8], existing: FileStatus?) throws(SystemError) {
    let folder = folder(of: target)
    let name = String(target[target.index(after: target.lastIndex(of: "/") ?? target.startIndex)...])
    var temporary = ""
    var fd: FileDescriptor? = nil
    for attempt in 0..<100 {
      temporary = "\(folder)/.\(name).\(getpid()).\(attempt).tmp"
      do {
        fd = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o666)
        break
      } catch  where error.code == EEXIST {
        continue
      }
    }
    guard let fd else { throw SystemError(code: EEXIST, operation: "open", subject: temporary) }
    var renamed = false
    defer {
      fd.close()
      if !renamed { unlink(temporary) }
    }
    if let existing {
      if fchmod(fd.rawValue, existing.permissions) != 0 { throw SystemError.current("fchmod", temporary) }
      if geteuid() == 0 && (existing.owner != geteuid() || existing.group != getegid()) {
        if fchown(fd.rawValue, existing.owner, existing.group) != 0 { throw SystemError.current("fchown", temporary) }
      }
    }
    try fd.writeAll(bytes)
    if fsync(fd.rawValue) != 0 { throw SystemError.current("fsync", temporary) }
    if rename(temporary, target) != 0 { throw SystemError.current("rename", target) }
    renamed = true
    let directory = try FileDescriptor.open(folder, O_RDONLY | O_DIRECTORY)
    defer { directory.close() }
    if fsync(directory.rawValue) != 0 { throw SystemError.current("fsync", folder) }
  }
}
