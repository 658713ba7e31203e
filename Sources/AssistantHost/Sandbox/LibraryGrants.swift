import BundleManifest
import Foundation
import IntentHostSystem
import UntrustedText

/// The files the dynamic loader needs to start an executable, as the sandbox grants them: exact files, never
/// folders, and only from the trusted library folders or the app's own bundle. What the ELF headers ask for
/// (`PT_INTERP`, `DT_RUNPATH`, `DT_RPATH`, `DT_NEEDED`) is input to these rules, never a grant in itself: a header
/// that points anywhere else makes the executable unsandboxable (`problems`), which validation reports and a launch
/// refuses.
struct LibraryGrants: Sendable, Equatable {
  /// The ELF interpreter, to be granted read and execute (the kernel opens it as an exec); nil for a static
  /// executable or a file that is not ELF.
  var interpreter: String?
  /// The shared libraries the loader opens, by real path, to be granted read.
  var libraries: [String] = []
  /// Why the executable cannot be sandboxed; empty when it can.
  var problems: [Problem] = []

  /// One header entry (or the executable itself) that points outside the folders the sandbox trusts.
  struct Problem: Sendable, Equatable {
    /// The rule, as `assistant validate` names it: `executable-outside-bundle`, `elf-interpreter`, `elf-runpath`
    /// or `elf-needed`.
    var rule: Diagnostic.Rule
    /// The ELF file that holds the entry.
    var file: String
    /// The entry: "PT_INTERP", "DT_RUNPATH[0]", "DT_NEEDED[3]", or "CFBundleExecutable".
    var entry: String
    /// The value as written in the file.
    var value: String
    /// What is wrong, as a sentence fragment: "lists /, outside …".
    var reason: String
    /// How to fix it.
    var fix: String
  }

  /// The folders whose libraries any executable may be granted: the system library folders, with everything below
  /// them (the multiarch folders `x86_64-linux-gnu`, `aarch64-linux-gnu` included). Root owns them; they are
  /// trusted as the host is.
  static let systemFolders = ["/lib", "/lib64", "/usr/lib", "/usr/lib64"]

  /// Where the loader looks for a library that no RUNPATH or RPATH provides, in its order (ld.so's default path;
  /// the sandbox does not let it read `/etc/ld.so.cache`).
  static let defaultSearchPath: [String] = {
    #if arch(x86_64)
      let triplet = "x86_64-linux-gnu"
    #elseif arch(arm64)
      let triplet = "aarch64-linux-gnu"
    #else
      let triplet = ""
    #endif
    let multiarch = triplet.isEmpty ? [] : ["/lib/\(triplet)", "/usr/lib/\(triplet)"]
    return multiarch + ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
  }()

  /// The folder of the Swift runtime the host itself runs on (`libswiftCore.so`), when it is linked dynamically: an
  /// extension built by the same toolchain may load its libraries from there. Read from the host's own memory map,
  /// never from a bundle.
  static let hostSwiftRuntime: String? = {
    guard let fd = try? FileDescriptor.open("/proc/self/maps", O_RDONLY) else { return nil }
    defer { fd.close() }
    let text = String(decoding: (try? fd.readAll(limit: 8 << 20)) ?? [], as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasSuffix("/libswiftCore.so") {
      guard let slash = line.firstIndex(of: "/") else { continue }
      return (String(line[slash...]) as NSString).deletingLastPathComponent
    }
    return nil
  }()

  /// The trusted library folders of this host: the system folders and the host's Swift runtime.
  static var trustedFolders: [String] { systemFolders + (hostSwiftRuntime.map { [$0] } ?? []) }

  /// How the trusted folders read in a message: "/lib, /lib64, /usr/lib, /usr/lib64 (and below), the Swift runtime
  /// /opt/swift/usr/lib/swift/linux".
  static var trustedDescription: String {
    "the system library folders (\(systemFolders.joined(separator: ", ")) and below)"
      + (hostSwiftRuntime.map { ", the host's Swift runtime (\($0))" } ?? "")
  }

  /// The most objects (the executable and its libraries) one resolution follows.
  static let objectLimit = 512

  /// Works out the grants for `executable` of a bundle inside the app bundle `appBundle` (an extension's `.appex`
  /// lies inside its app's `.app`, and may load libraries from anywhere in it).
  ///
  /// The executable must be a file of the app bundle (a link may point within it). Its `PT_INTERP` must lie in the
  /// system library folders. Each of its `DT_RUNPATH`/`DT_RPATH` folders (after `$ORIGIN` is expanded) and each
  /// `DT_NEEDED` with a slash must lie in the trusted folders or the app bundle, by its written form and by its real
  /// path. The same holds for every library of the bundle it loads. Libraries of the trusted folders are trusted:
  /// their own entries are followed only into trusted folders and the bundle, and never reported.
  static func resolve(executable: String, appBundle: String) -> LibraryGrants {
    var grants = LibraryGrants()
    let bundle = realPath(appBundle) ?? normalized(appBundle)
    guard let main = realPath(executable) else { return grants }  // missing: validation and exec report it
    if !isInside(main, [bundle]) {
      grants.problems.append(
        Problem(
          rule: .executableOutsideBundle, file: executable, entry: "CFBundleExecutable", value: executable,
          reason: "is a link to \(main), outside the bundle",
          fix: "put the executable itself in the bundle, not a link to a file elsewhere"))
      return grants
    }
    guard let info = ELFInfo.read(main) else { return grants }  // not ELF: exec decides
    follow(main: main, displayed: executable, info: info, bundle: bundle, into: &grants)
    return grants
  }

  /// Works out the grants for a system program that runs a script (`ScriptInterpreter`), or for one of its own
  /// extension modules: its loader, and the libraries it needs from the trusted library folders only (never from a
  /// bundle). `path` is a real path that passed `ScriptInterpreter`'s rules (root's, in no writable folder); its own
  /// entries pointing elsewhere are not followed, and reported as problems only for its loader.
  static func resolve(systemProgram path: String) -> LibraryGrants {
    var grants = LibraryGrants()
    guard let info = ELFInfo.read(path) else { return grants }
    follow(main: path, displayed: path, info: info, bundle: nil, into: &grants)
    return grants
  }

  /// The loader of `main` and the libraries of `main` and of each library it loads (a breadth-first walk of at most
  /// `objectLimit` objects), looked up in the trusted folders and `bundle`; `main` is trusted when `bundle` is nil.
  private static func follow(
    main: String, displayed executable: String, info: ELFInfo, bundle: String?, into grants: inout LibraryGrants
  ) {
    let bundleFolders = bundle.map { [$0] } ?? []
    let trusted = trustedFolders.map { realPath($0) ?? $0 }
    let systemReal = systemFolders.map { realPath($0) ?? $0 }

    if let interpreter = info.interpreter {
      let written = normalized(interpreter)
      let real = realPath(interpreter) ?? written
      if interpreter.hasPrefix("/") && isInside(written, systemFolders) && isInside(real, systemReal) {
        grants.interpreter = interpreter
      } else {
        grants.problems.append(
          Problem(
            rule: .elfInterpreter, file: executable, entry: "PT_INTERP", value: interpreter,
            reason: "is outside the system library folders (\(systemFolders.joined(separator: ", ")))",
            fix: "link with the system's loader (the default of cc and swiftc), e.g. /lib64/ld-linux-x86-64.so.2"))
      }
    }

    /// Whether a folder or file (written form, and real path when it exists) is one the sandbox may grant from.
    func allowed(_ path: String) -> Bool {
      let written = normalized(path)
      guard path.hasPrefix("/"), isInside(written, systemFolders + trusted + bundleFolders) else { return false }
      guard let real = realPath(written) else { return true }  // nothing there: nothing to grant
      return isInside(real, trusted + bundleFolders)
    }

    var queue: [(path: String, displayed: String, info: ELFInfo, trusted: Bool)] = [
      (main, executable, info, bundle == nil)
    ]
    var seen: Set<String> = [main]
    var index = 0
    while index < queue.count && index < objectLimit {
      let object = queue[index]
      index += 1
      let origin = (object.path as NSString).deletingLastPathComponent
      // DT_RUNPATH wins over DT_RPATH when both are present, as in the loader; the executable's RPATH also serves
      // the libraries it loads when it has no RUNPATH.
      var entries: [(name: String, index: Int, value: String)] =
        object.info.runPath.isEmpty
        ? object.info.rPath.enumerated().map { ("DT_RPATH", $0.offset, $0.element) }
        : object.info.runPath.enumerated().map { ("DT_RUNPATH", $0.offset, $0.element) }
      if object.info.runPath.isEmpty && index > 1 && info.runPath.isEmpty {
        entries += info.rPath.enumerated().map { ("DT_RPATH", $0.offset, $0.element) }
      }
      var searchFolders: [String] = []
      for entry in entries {
        let expanded = entry.value.replacingOccurrences(of: "${ORIGIN}", with: origin)
          .replacingOccurrences(of: "$ORIGIN", with: origin)
        if !expanded.contains("$") && allowed(expanded) {
          searchFolders.append(normalized(expanded))
        } else if !object.trusted {
          let reason: String
          if expanded.contains("$") {
            reason = "uses a token other than $ORIGIN, which the sandbox cannot check"
          } else if !expanded.hasPrefix("/") {
            reason =
              "is relative to the working directory (the container), outside \(trustedDescription) and the bundle"
          } else {
            let shown = expanded == entry.value ? "is" : "is \(Untrusted.sanitized(expanded)),"
            reason = "\(shown) outside \(trustedDescription) and the bundle"
          }
          grants.problems.append(
            Problem(
              rule: .elfRunpath, file: object.displayed, entry: "\(entry.name)[\(entry.index)]", value: entry.value,
              reason: reason,
              fix: "link with -Wl,-rpath,'$ORIGIN' (libraries in the bundle) or with no RUNPATH (system libraries)"))
        }
      }
      for (position, name) in object.info.needed.enumerated() {
        var found: String? = nil
        if name.contains("/") {
          if allowed(name) {
            found = realPath(name)
          } else if !object.trusted {
            grants.problems.append(
              Problem(
                rule: .elfNeeded, file: object.displayed, entry: "DT_NEEDED[\(position)]", value: name,
                reason: name.hasPrefix("/")
                  ? "is outside \(trustedDescription) and the bundle"
                  : "is relative to the working directory (the container)",
                fix: "link the library by its soname (-lNAME, or a library built with -Wl,-soname), not by its path"))
          }
        } else {
          for folder in searchFolders + defaultSearchPath {
            let candidate = folder + "/" + name
            var status = stat()
            guard stat(candidate, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, allowed(candidate),
              let real = realPath(candidate)
            else { continue }
            found = real
            break
          }
        }
        guard let found, !seen.contains(found) else { continue }
        seen.insert(found)
        grants.libraries.append(found)
        if let library = ELFInfo.read(found) {
          queue.append((found, found, library, isInside(found, trusted)))
        }
      }
    }
  }

  /// The first problem as one line for a launch refusal: what, where, and the fix.
  var refusal: String? {
    guard let first = problems.first else { return nil }
    let more =
      problems.count > 1
      ? " (and \(problems.count - 1) more problem\(problems.count == 2 ? "" : "s"); `assistant validate` lists them)"
      : ""
    return
      "\(Untrusted.sanitized(first.file)): \(first.entry) \"\(Untrusted.sanitized(first.value))\" \(first.reason); "
      + "\(first.fix), and reinstall\(more)"
  }
}

/// `path` with `.` and `..` components and repeated slashes resolved as text (no file system access).
func normalized(_ path: String) -> String {
  var parts: [Substring] = []
  for part in path.split(separator: "/") {
    if part == "." || part.isEmpty { continue }
    if part == ".." {
      _ = parts.popLast()
    } else {
      parts.append(part)
    }
  }
  return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
}

/// The canonical path of an existing file (symbolic links resolved); nil when it does not exist.
func realPath(_ path: String) -> String? {
  guard let resolved = Glibc.realpath(path, nil) else { return nil }
  defer { free(resolved) }
  return String(cString: resolved)
}

/// Whether `path` is one of `folders` or below one of them (as text; give canonical paths for real containment).
func isInside(_ path: String, _ folders: [String]) -> Bool {
  folders.contains { folder in
    let folder = folder.hasSuffix("/") && folder.count > 1 ? String(folder.dropLast()) : folder
    return path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
  }
}
