import Foundation
import IntentHostSystem
import UntrustedText

/// A bundle is a tree of regular files and folders, nothing else: a symbolic link in it would let the bundle change
/// its manifests after install (its entitlements or identity read through the link from a file someone writes later)
/// or make the host read a file outside it, and a FIFO or device would hang or feed the copy. `install` checks the
/// tree first, then copies it entry by entry through descriptors (no link followed, nothing but regular files
/// opened), so the installed copy can only ever be what was checked.
enum BundleTree {
  /// The most entries and the deepest nesting a bundle may have.
  static let maximumEntries = 20_000
  static let maximumDepth = 32

  /// Refuses a bundle that holds anything but regular files and folders, naming the first such entry.
  /// - Throws: `BundleTreeProblem` naming the entry, its kind and the fix; `HostError` when the folder cannot be read.
  static func check(_ bundle: URL) throws {
    try walk(bundle) { _, _, _ in }
  }

  /// Copies the checked tree at `source` to `destination` (which must not exist), keeping each file's permission bits
  /// (the executables') and nothing else.
  static func copy(_ source: URL, to destination: URL) throws {
    guard mkdir(destination.path, 0o755) == 0 else {
      throw HostError(.ioError, "cannot create \(destination.path): \(SystemError.current("mkdir"))")
    }
    try walk(source) { relative, directory, status in
      let target = destination.path + "/" + relative
      if status.kind == .directory {
        guard mkdir(target, 0o755) == 0 else {
          throw HostError(.ioError, "cannot create \(target): \(SystemError.current("mkdir"))")
        }
        return
      }
      do throws(SystemError) {
        let input = try directory.openFile(String(relative.split(separator: "/").last!), O_RDONLY)
        defer { input.close() }
        try copyBytes(from: input, to: target, mode: status.permissions & 0o755)
      } catch {
        throw HostError(.ioError, "cannot copy \(Untrusted.shown(relative)) into \(destination.path): \(error)")
      }
    }
  }

  /// Copies what `input` reads to a new file `target` (`O_EXCL`, never through a link) with the permission bits
  /// `mode`.
  static func copyBytes(from input: FileDescriptor, to target: String, mode: mode_t) throws(SystemError) {
    let output = try FileDescriptor.open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
    defer { output.close() }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = try input.read(into: &buffer)
      if count == 0 { break }
      try output.writeAll(Array(buffer[..<count]), timeoutMilliseconds: -1)
    }
    try output.changeMode(mode)
  }

  /// Visits every entry below `root` (folders before their contents), with its path relative to `root`, the open
  /// folder that holds it and its status; refuses links, special files, and trees too large or too deep.
  private static func walk(
    _ root: URL, _ visit: (String, DirectoryDescriptor, FileStatus) throws -> Void
  ) throws {
    let top: DirectoryDescriptor
    do throws(SystemError) {
      top = try DirectoryDescriptor.open(root.path)
    } catch {
      throw HostError(.dataError, "cannot install \(root.path): it is not a bundle folder (\(error))")
    }
    defer { top.close() }
    var seen = 0
    func descend(_ folder: DirectoryDescriptor, _ prefix: String, depth: Int) throws {
      guard depth <= maximumDepth else {
        throw refusal(root, prefix, "is nested more than \(maximumDepth) folders deep")
      }
      let names: [String]
      do throws(SystemError) { names = try folder.entries().sorted() } catch {
        throw HostError(.dataError, "cannot read \(Untrusted.shown(root.path + "/" + prefix)): \(error)")
      }
      for name in names {
        seen += 1
        guard seen <= maximumEntries else {
          throw refusal(root, prefix, "holds more than \(maximumEntries) entries")
        }
        let relative = prefix.isEmpty ? name : prefix + "/" + name
        let status: FileStatus
        do throws(SystemError) {
          guard let found = try folder.status(of: name) else { continue }
          status = found
        } catch {
          throw HostError(.dataError, "cannot read \(Untrusted.shown(root.path + "/" + relative)): \(error)")
        }
        switch status.kind {
        case .regular:
          try visit(relative, folder, status)
        case .directory:
          try visit(relative, folder, status)
          let child: DirectoryDescriptor
          do throws(SystemError) { child = try folder.openDirectory(name) } catch {
            throw refusal(root, relative, "cannot be opened as a folder (\(error))")
          }
          defer { child.close() }
          try descend(child, relative, depth: depth + 1)
        default:
          throw refusal(root, relative, "is a \(describe(status.kind)), not a regular file or a folder")
        }
      }
    }
    try descend(top, "", depth: 0)
  }

  private static func describe(_ kind: FileKind) -> String {
    switch kind {
    case .symbolicLink: return "symbolic link"
    case .fifo: return "FIFO"
    case .characterDevice, .blockDevice: return "device"
    case .socket: return "socket"
    default: return "special file"
    }
  }

  private static func refusal(_ root: URL, _ relative: String, _ problem: String) -> BundleTreeProblem {
    BundleTreeProblem(bundle: root.path, entry: relative, problem: problem)
  }
}

/// An entry of a bundle that is not a regular file or a folder (or a tree too large or deep).
struct BundleTreeProblem: Error, Sendable, CustomStringConvertible {
  var bundle: String
  /// Relative to the bundle; empty for the bundle itself.
  var entry: String
  var problem: String
  static let fix =
    "a bundle holds only regular files and folders: copy the file into the bundle in place of a link, "
    + "and remove special files"

  /// The entry's path.
  var file: String { entry.isEmpty ? bundle : bundle + "/" + entry }

  var description: String {
    "\(Untrusted.shown(entry.isEmpty ? "it" : entry)) \(problem); \(Self.fix)"
  }
}
